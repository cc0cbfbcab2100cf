/* Per-channel sums, squares, min and max, and the key's row and column
 * profiles, black count and frame difference, in one pass over the frame:
 * the reduction pattern.
 *
 * The frame's planes are cut into tiles one warp wide (32 chunks of 16
 * bytes, or 48 for 3-byte pixels, one chunk per lane) and kTileRows rows
 * high.  One wave of blocks walks them, a block taking every gridDim.x-th
 * tile of a plane (neighbouring blocks, neighbouring tiles; with profiles
 * a run of tiles down a column, see count_plane), its warps every
 * kWarps-th row of a tile.  A thread issues the loads of all its
 * rows of the next tile before counting the current one, so the memory is
 * busy while the SM counts: a reduction does little per byte, and its
 * speed is the bytes in flight and how soon the next ones go out.
 * (docs/notes.md has the versions before: a wave with two rows in flight
 * per thread, 2.3x the floor at 4K; a block per tile, whose waves loaded
 * and then counted in lockstep, no faster.)
 *
 * Within a tile a thread counts whole 32-bit words of its chunk: the bytes
 * at positions 0 and 2 and those at 1 and 3 are split into two words of
 * 16-bit lanes whose sums, minima and maxima take one instruction each for
 * two samples, and the same words, bytes with zeros between them, give
 * two squares per dp4a.  The 16-bit sums cannot overflow within a tile
 * (kRowsPerWarp rows of four words per lane) and are added to 32-bit
 * totals after each.  3-byte pixels, whose channels do not line up with
 * word positions, are counted a byte at a time.
 *
 * After each plane a block reduces its threads (warp reductions, then
 * shared memory) and adds its totals to the workspace with a handful of
 * atomics; the last block to finish copies the totals out and zeroes the
 * workspace, so a frame is one launch.  Min is kept as the max of 255 - v
 * so that a zeroed workspace is the starting point of every total.
 *
 * The statistics alone, added into a caller's sums (cf_sum_planes_add),
 * of planes of whole aligned rows have a kernel of their own:
 * statistics_kernel, many short-lived blocks over runs of vectors.
 *
 * CPU reference: sum-reference.c, the same results. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

#include <atomic>
#include <type_traits>

namespace {

constexpr int kWarps = 8;
constexpr int kThreads = 32 * kWarps;
/* rows of a tile a warp counts; the 16-bit lane sums take up to 64 rows
 * of four words */
constexpr int kRowsPerWarp = 8;
constexpr int kTileRows = kWarps * kRowsPerWarp;
/* tiles of a plane a block counts at most, so that a warp's sum of
 * squares fits 32 bits: 32 * 12 * kRowsPerWarp * 16 * 255^2 < 2^32 */
constexpr int kMaxTilesPerBlock = 12;
static_assert (32ull * kMaxTilesPerBlock * kRowsPerWarp * 16 * 255 * 255
    < (1ull << 32), "squares overflow");
constexpr int kMaxChunkPixels = 16;
static_assert (kRowsPerWarp * 4 <= 256, "16-bit lane sums overflow");

/* the key features a kernel is built with */
constexpr unsigned kProfiles = CF_SUM_PROFILES;
constexpr unsigned kBlack = CF_SUM_BLACK;
constexpr unsigned kPrevious = CF_SUM_DIFF;     /* DIFF or KEEP */

template < int BPP > __host__ __device__ constexpr int
chunk_bytes ()
{
  return BPP == 3 ? 48 : 16;
}

template < int BPP > __host__ __device__ constexpr int
chunk_pixels ()
{
  return chunk_bytes < BPP > () / BPP;
}

/* Rows of a tile whose loads a thread issues together.  A tile's rows
 * take 32 registers a buffer, and the next tile's are loaded while this
 * one is counted, but for 3-byte pixels: their 48-byte chunks would take
 * 96 a buffer, so they are loaded two rows at a time within the tile. */
template < int BPP > __host__ __device__ constexpr int
rows_in_flight ()
{
  return BPP == 3 ? 2 : kRowsPerWarp;
}

/* The byte positions of a word whose samples belong to different channels
 * (BPP 1: one; BPP 2: the pairs 0, 2 and 1, 3; 3 bytes per pixel: a slot
 * per byte of a pixel). */
template < int BPP > __host__ __device__ constexpr int
positions ()
{
  return BPP == 1 ? 1 : BPP == 2 ? 2 : BPP == 3 ? 3 : 4;
}

struct PlaneArgs
{
  const uint8_t *data;
  size_t pitch;
  int row_bytes;
  int rows;
  int bpp;
  int width;                    /* pixels */
  int tile_cols;                /* tiles across a row */
  int tile_rows;                /* tiles down the plane */
  bool vectors;                 /* base and pitch multiples of 16 */
  int channel[4];               /* byte of a pixel -> channel, or -1 */
  int first_block;              /* statistics_kernel: the plane's first */
  uint64_t row_of_vector;       /* statistics_kernel: 2^64 / (row_bytes / 16),
                                 * rounded up (row_bytes >= 32: for 16, 2^64
                                 * itself would not fit) */
};

struct LaunchArgs
{
  PlaneArgs plane[CF_HIST_MAX_PLANES];
  int n_planes;
  unsigned flags;
  uint32_t weights[4];
  /* byte i of every weight, packed a byte per pixel byte (weights are
   * under 2^16: two bytes), for keys by dot products */
  uint32_t weight_bytes[2];
  uint32_t black_limit;         /* (threshold + 1) << 16, at most 2^24 */
  uint8_t *previous;
  size_t previous_pitch;
  int key_width, key_height;    /* of plane 0, for the profiles */
  CfSumStats *out;
  uint32_t *row_out;
  uint32_t *column_out;
  /* false: the blocks add into the caller's zeroed sums and nobody
   * publishes (cf_sum_planes_add) */
  bool publish;
  uint32_t *zero_next;          /* words the launch zeroes, or null */
  size_t zero_words;
  int blocks;                   /* statistics_kernel: blocks with vectors */
};

struct Workspace
{
  unsigned long long sum[CF_HIST_MAX_CHANNELS];
  unsigned long long sum_squares[CF_HIST_MAX_CHANNELS];
  unsigned long long black, abs_diff;
  unsigned int inv_min[CF_HIST_MAX_CHANNELS];   /* max of 255 - v */
  unsigned int max[CF_HIST_MAX_CHANNELS];
  unsigned int blocks_done;
  unsigned int pad[3];
  /* then the row sums (max_height words), then the column sums */
};

__host__ __device__ inline uint32_t *
ws_rows (Workspace * ws)
{
  return reinterpret_cast < uint32_t * >(ws + 1);
}

/* A thread's running totals per position (positions<BPP>() of them), over
 * the tiles of a plane it counts. */
struct Totals
{
  uint32_t sum[4], sq[4], mn[4], mx[4];
  uint32_t black, diff;
};

__device__ __forceinline__ void
totals_init (Totals & t)
{
#pragma unroll
  for (int p = 0; p < 4; p++) {
    t.sum[p] = t.sq[p] = t.mx[p] = 0;
    t.mn[p] = 255;
  }
  t.black = t.diff = 0;
}

/* A thread's totals per byte position of a word, over a plane's tiles
 * (the 16-bit lane sums over a tile only: see word_acc_fold_sums). */
struct WordAcc
{
  uint32_t s_even, s_odd;       /* 16-bit lanes: positions 0, 2 and 1, 3 */
  uint32_t mn_even, mn_odd, mx_even, mx_odd;
  /* squares: 1 byte per pixel q[0] all; 2 bytes q[0] positions 0 and 2,
   * q[1] 1 and 3; 4 bytes q[0] twice position 0, q[1] twice position 1
   * (word_acc_add_pair), q[2] positions 0 and 2, q[3] 1 and 3 (a dot
   * product squares two samples at once) */
  uint32_t q[4];
};

__device__ __forceinline__ void
word_acc_init (WordAcc & a)
{
  a.s_even = a.s_odd = 0;
  a.mn_even = a.mn_odd = 0x00ff00ffu;
  a.mx_even = a.mx_odd = 0;
#pragma unroll
  for (int p = 0; p < 4; p++)
    a.q[p] = 0;
}

/* w: the word, missing bytes 0; w_min: the same with missing bytes 255 */
template < int BPP > __device__ __forceinline__ void
word_acc_add (WordAcc & a, uint32_t w, uint32_t w_min)
{
  /* the bytes at positions 0, 2 and 1, 3 as 16-bit lanes, which are also
   * bytes with zeros between them */
  uint32_t e = __byte_perm (w, 0, 0x4240);
  uint32_t o = __byte_perm (w, 0, 0x4341);
  a.s_even += e;
  a.s_odd += o;
  a.mx_even = __vmaxu2 (a.mx_even, e);
  a.mx_odd = __vmaxu2 (a.mx_odd, o);
  a.mn_even = __vminu2 (a.mn_even, __byte_perm (w_min, 0, 0x4240));
  a.mn_odd = __vminu2 (a.mn_odd, __byte_perm (w_min, 0, 0x4341));
  if constexpr (BPP == 1) {
    a.q[0] = __dp4a (w, w, a.q[0]);
  } else if constexpr (BPP == 2) {
    a.q[0] = __dp4a (e, e, a.q[0]);
    a.q[1] = __dp4a (o, o, a.q[1]);
  } else {
    a.q[2] = __dp4a (e, e, a.q[2]);
    a.q[3] = __dp4a (o, o, a.q[3]);
  }
}

/* 4-byte pixels: the squares of positions 0 and 1 of two words, twice
 * each, from one byte permutation and one dot product per position
 * (x0 x0 alone took a byte extraction and a multiply per word) */
__device__ __forceinline__ void
word_acc_add_pair (WordAcc & a, uint32_t w0, uint32_t w1)
{
  const uint32_t p0 = __byte_perm (w0, w1, 0x4040);
  const uint32_t p1 = __byte_perm (w0, w1, 0x5151);
  a.q[0] = __dp4a (p0, p0, a.q[0]);
  a.q[1] = __dp4a (p1, p1, a.q[1]);
}

/* Adds a tile's 16-bit lane sums to the running totals and restarts
 * them: they would overflow past a tile (kRowsPerWarp rows of four
 * words).  Byte positions of a word that belong to the same channel are
 * combined. */
template < int BPP > __device__ __forceinline__ void
word_acc_fold_sums (WordAcc & a, Totals & t)
{
  const uint32_t s[4] = { a.s_even & 0xffffu, a.s_odd & 0xffffu,
    a.s_even >> 16, a.s_odd >> 16
  };
  if constexpr (BPP == 1) {
    t.sum[0] += s[0] + s[1] + s[2] + s[3];
  } else if constexpr (BPP == 2) {
#pragma unroll
    for (int p = 0; p < 2; p++)
      t.sum[p] += s[p] + s[p + 2];
  } else {
#pragma unroll
    for (int p = 0; p < 4; p++)
      t.sum[p] += s[p];
  }
  a.s_even = a.s_odd = 0;
}

/* The squares, minima and maxima of a plane's tiles, into the totals
 * (which held none: they are set, not added to). */
template < int BPP > __device__ __forceinline__ void
word_acc_fold_rest (const WordAcc & a, Totals & t)
{
  const uint32_t mn[4] = { a.mn_even & 0xffffu, a.mn_odd & 0xffffu,
    a.mn_even >> 16, a.mn_odd >> 16
  };
  const uint32_t mx[4] = { a.mx_even & 0xffffu, a.mx_odd & 0xffffu,
    a.mx_even >> 16, a.mx_odd >> 16
  };
  if constexpr (BPP == 1) {
    t.sq[0] = a.q[0];
    t.mn[0] = min (min (mn[0], mn[1]), min (mn[2], mn[3]));
    t.mx[0] = max (max (mx[0], mx[1]), max (mx[2], mx[3]));
  } else if constexpr (BPP == 2) {
#pragma unroll
    for (int p = 0; p < 2; p++) {
      t.sq[p] = a.q[p];
      t.mn[p] = min (mn[p], mn[p + 2]);
      t.mx[p] = max (mx[p], mx[p + 2]);
    }
  } else {
    const uint32_t sq[4] = { a.q[0] / 2, a.q[1] / 2, a.q[2] - a.q[0] / 2,
      a.q[3] - a.q[1] / 2
    };
#pragma unroll
    for (int p = 0; p < 4; p++) {
      t.sq[p] = sq[p];
      t.mn[p] = mn[p];
      t.mx[p] = mx[p];
    }
  }
}

/* The bytes of a 3-byte-pixel chunk, a slot per byte of a pixel. */
struct ByteAcc
{
  uint32_t s[3], q[3], mn[3], mx[3];
};

__device__ __forceinline__ uint32_t
byte_of (const uint32_t * words, int i)
{
  return (words[i >> 2] >> (8 * (i & 3))) & 0xffu;
}

/* The key of pixel k of a chunk, times 65536 plus a fraction:
 * 32768 + sum of weight * byte, under 2^24.  The key is this >> 16. */
template < int BPP > __device__ __forceinline__ uint32_t
key_sum_of (const uint32_t * words, int k, const uint32_t (&wt)[4],
    const uint32_t (&wt_bytes)[2])
{
  if constexpr (BPP == 1) {
    return byte_of (words, k) << 16;
  } else if constexpr (BPP == 4) {
    /* a pixel is a word: two dot products, one per byte of the weights,
     * instead of four byte extractions and multiplies */
    const uint32_t x = words[k];
    return (__dp4a (x, wt_bytes[1], 0u) << 8) +
        __dp4a (x, wt_bytes[0], 32768u);
  } else {
    uint32_t acc = 32768u;
#pragma unroll
    for (int b = 0; b < BPP; b++)
      acc += wt[b] * byte_of (words, k * BPP + b);
    return acc;
  }
}

/* The frame's bytes are read once: its loads (__ldcs) mark their lines
 * first to go from L2, so that a 4K frame streaming through does not push
 * out the previous frame's keys, which this kernel wrote a frame ago and
 * reads now (`cut`).  On an H100, 4K RGBA with every feature and the keys
 * in one buffer took 21.3-21.5 us so, 22.4-22.5 with plain loads (before
 * absdiff4_add and the key addresses by additions; docs/notes.md,
 * cudasum v10). */

/* Loads a whole chunk in 16-byte vectors (the plane is aligned). */
template < int BPP > __device__ __forceinline__ void
load_chunk_vector (const uint8_t * __restrict__ src,
    uint32_t (&w)[chunk_bytes < BPP > () / 4])
{
#pragma unroll
  for (int j = 0; j < chunk_bytes < BPP > () / 16; j++) {
    uint4 v = __ldcs (reinterpret_cast < const uint4 * >(src) + j);
    w[4 * j + 0] = v.x;
    w[4 * j + 1] = v.y;
    w[4 * j + 2] = v.z;
    w[4 * j + 3] = v.w;
  }
}

/* Loads `valid` bytes of a chunk from `src`, zeros after them: whole
 * words with 4-byte loads where the address allows, else a byte at a
 * time. */
template < int BPP > __device__ __forceinline__ void
load_chunk_any (const uint8_t * __restrict__ src, int valid,
    uint32_t (&w)[chunk_bytes < BPP > () / 4])
{
  const bool words = ((uintptr_t) src & 3) == 0;
#pragma unroll
  for (int j = 0; j < chunk_bytes < BPP > () / 4; j++) {
    if (words && 4 * j + 4 <= valid) {
      w[j] = __ldcs (reinterpret_cast < const unsigned int * >(src) + j);
    } else {
      uint32_t word = 0;
#pragma unroll
      for (int b = 0; b < 4; b++) {
        if (4 * j + b < valid)
          word |= (uint32_t) __ldcs (src + 4 * j + b) << (8 * b);
      }
      w[j] = word;
    }
  }
}

/* Column sums of the key: the block's warps add theirs in shared memory,
 * then one atomic per column goes to the workspace. */
template < int BPP > __device__ void
flush_columns (uint32_t (&col)[kMaxChunkPixels], int tile_col, int width,
    uint32_t * ws_columns, uint32_t * smem)
{
  constexpr int PX = chunk_pixels < BPP > ();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < PX; k++) {
    smem[warp * 32 * PX + lane * PX + k] = col[k];
    col[k] = 0;
  }
  __syncthreads ();
  for (int i = threadIdx.x; i < 32 * PX; i += kThreads) {
    uint32_t s = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++)
      s += smem[w * 32 * PX + i];
    int x = tile_col * 32 * PX + i;
    if (x < width && s)
      atomicAdd (&ws_columns[x], s);
  }
  __syncthreads ();
}

/* acc + the four bytewise |a - b|.  For 4-byte pixels PTX's vabsdiff4
 * with its .add (one VABSDIFF4.U8.ACC on sm_90), where __vabsdiffu4 and a
 * dp4a were two instructions: the kernel with every feature at 4K RGBA
 * executed 1.8% fewer instructions (Nsight Compute, H100) and took
 * 21.0-21.2 us against 21.4.  In the kernels of 1- and 3-byte pixels the
 * same made ptxas spill more (3-byte pixels with every feature: 36 bytes
 * of spill stores, none before), so they keep the two. */
template < int BPP > __device__ __forceinline__ uint32_t
absdiff4_add (uint32_t a, uint32_t b, uint32_t acc)
{
  if constexpr (BPP == 4) {
    uint32_t sum;
    asm ("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;":"=r" (sum)
        :"r" (a), "r" (b), "r" (acc));
    return sum;
  } else {
    return __dp4a (__vabsdiffu4 (a, b), 0x01010101u, acc);
  }
}

/* Warp reductions: one instruction from sm_80 on, shuffles before. */
__device__ __forceinline__ uint32_t
warp_add (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync (0xffffffffu, v);
#else
  for (int d = 16; d > 0; d >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, d);
  return v;
#endif
}

__device__ __forceinline__ uint32_t
warp_min (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync (0xffffffffu, v);
#else
  for (int d = 16; d > 0; d >>= 1)
    v = min (v, __shfl_xor_sync (0xffffffffu, v, d));
  return v;
#endif
}

__device__ __forceinline__ uint32_t
warp_max (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync (0xffffffffu, v);
#else
  for (int d = 16; d > 0; d >>= 1)
    v = max (v, __shfl_xor_sync (0xffffffffu, v, d));
  return v;
#endif
}

/* The previous frame's keys of chunk `chunk` of row y, a byte each; null
 * in a kernel without them, where args.previous is null too. */
template < int BPP, unsigned K > __device__ __forceinline__ uint8_t *
previous_keys (const LaunchArgs & args, int y, int chunk)
{
  if constexpr ((K & kPrevious) == 0)
    return nullptr;
  else
    return args.previous + (size_t) y * args.previous_pitch +
        (size_t) chunk * chunk_pixels < BPP > ();
}

/* Loads the keys of a whole chunk, 4 bytes or 16 (aligned as the pitch
 * is), as words. */
template < int BPP > __device__ __forceinline__ void
load_previous_keys (const uint8_t * prev,
    uint32_t (&old)[chunk_pixels < BPP > () / 4])
{
  if constexpr (chunk_pixels < BPP > () == 4) {
    old[0] = *reinterpret_cast < const uint32_t * >(prev);
  } else {
    const uint4 v = *reinterpret_cast < const uint4 * >(prev);
    old[0] = v.x;
    old[1] = v.y;
    old[2] = v.z;
    old[3] = v.w;
  }
}

/* Counts a lane's chunk of a row into the tile's totals; row_key is the
 * sum of its keys.  prev: where the chunk's previous keys are
 * (previous_keys (); unused without kPrevious). */
template < int BPP, unsigned K > __device__ __forceinline__ void
count_row (const LaunchArgs & args, bool keyed,
    const uint32_t (&w)[chunk_bytes < BPP > () / 4], int valid, WordAcc & wa,
    ByteAcc & ba, uint32_t & black, uint32_t & diff,
    uint32_t (&col)[kMaxChunkPixels], uint32_t & row_key, uint8_t * prev,
    const uint32_t * old_keys = nullptr)
{
  constexpr int CHUNK = chunk_bytes < BPP > ();
  constexpr int WORDS = CHUNK / 4;
  constexpr int PX = chunk_pixels < BPP > ();
  const int valid_px = valid / BPP;
  if constexpr (BPP == 3) {
#pragma unroll
    for (int i = 0; i < CHUNK; i++) {
      if (i < valid) {
        uint32_t v = byte_of (w, i);
        ba.s[i % 3] += v;
        ba.q[i % 3] += v * v;
        ba.mn[i % 3] = min (ba.mn[i % 3], v);
        ba.mx[i % 3] = max (ba.mx[i % 3], v);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < WORDS; j++) {
      int in_word = valid - 4 * j;
      uint32_t missing = in_word >= 4 ? 0u :
          in_word <= 0 ? 0xffffffffu : 0xffffffffu << (8 * in_word);
      word_acc_add < BPP > (wa, w[j], w[j] | missing);
    }
    if constexpr (BPP == 4) {
#pragma unroll
      for (int j = 0; j < WORDS; j += 2)
        word_acc_add_pair (wa, w[j], w[j + 1]);
    }
  }

  if (!keyed)
    return;

  uint32_t keys[PX];
  uint32_t row_sum = 0;
#pragma unroll
  for (int k = 0; k < PX; k++) {
    const bool present = k < valid_px;
    const uint32_t key_sum = present ? key_sum_of < BPP > (w, k,
        args.weights, args.weight_bytes) : 0u;
    keys[k] = key_sum >> 16;
    row_sum += keys[k];
    if constexpr ((K & kProfiles) != 0)
      col[k] += keys[k];
    /* key <= threshold: key_sum < black_limit, both under 2^24, so the
     * difference's top bit is the answer (two instructions, where the
     * shifted key's compare and add took three) */
    if constexpr ((K & kBlack) != 0) {
      if (present)
        black += (key_sum - args.black_limit) >> 31;
    }
    if constexpr ((K & kPrevious) != 0) {
      /* the last chunk of a row, a byte at a time */
      if (present && valid_px < PX) {
        if (args.flags & CF_SUM_DIFF)
          diff += (uint32_t) abs ((int) keys[k] - (int) prev[k]);
        if (args.flags & CF_SUM_KEEP)
          prev[k] = (uint8_t) keys[k];
      }
    }
  }
  row_key = row_sum;
  if constexpr ((K & kPrevious) != 0) {
    if (valid_px == PX) {
      /* PX keys: 4 bytes or 16, aligned as the pitch is */
      uint32_t packed[PX / 4], old[PX / 4];
#pragma unroll
      for (int q = 0; q < PX / 4; q++)
        packed[q] = keys[4 * q] | keys[4 * q + 1] << 8 |
            keys[4 * q + 2] << 16 | keys[4 * q + 3] << 24;
      if (args.flags & CF_SUM_DIFF) {
        if (old_keys) {
#pragma unroll
          for (int q = 0; q < PX / 4; q++)
            old[q] = old_keys[q];
        } else {
          load_previous_keys < BPP > (prev, old);
        }
#pragma unroll
        for (int q = 0; q < PX / 4; q++)
          diff = absdiff4_add < BPP > (packed[q], old[q], diff);
      }
      if (args.flags & CF_SUM_KEEP) {
        if constexpr (PX == 4)
          *reinterpret_cast < uint32_t * >(prev) = packed[0];
        else
          *reinterpret_cast < uint4 * >(prev) =
              make_uint4 (packed[0], packed[1], packed[2], packed[3]);
      }
    }
  }
}

/* A block's shared memory: each warp's totals (sums, squares, 255 - min,
 * max by position, black, diff), and with profiles its warps' column sums
 * of the key.  Kernels without profiles declare the totals alone (0.6 KB
 * rather than 17): 16 KB a block that nothing used made the experiment's
 * statistics kernel 1.3 us slower at 4K RGBA on an H100 at 2 blocks an
 * SM, though not at 4 (docs/notes.md, cudasum v9). */
constexpr int kTotals = 18;
struct SharedTotals
{
  uint32_t totals[kWarps][kTotals];
};
struct BlockShared:SharedTotals
{
  uint32_t columns[kWarps * 32 * kMaxChunkPixels];
};
template < unsigned K > using SharedOf =
    typename std::conditional < (K & kProfiles) != 0, BlockShared,
    SharedTotals >::type;

/* Where this thread's chunk of a tile lies. */
struct Spot
{
  int tile_col;
  int chunk;                    /* of the row, this lane's */
  int rest;                     /* bytes of the row from the chunk on */
  int y0, y1;                   /* this warp's first row, the tile's end */
  const uint8_t *src;           /* the chunk in row y0 */
};

template < int BPP > __device__ __forceinline__ Spot
spot_of (const PlaneArgs & pl, int tile_row, int tile_col)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  Spot s;
  s.tile_col = tile_col;
  s.chunk = tile_col * 32 + lane;
  const int byte0 = s.chunk * chunk_bytes < BPP > ();
  s.rest = pl.row_bytes - byte0;
  s.y0 = tile_row * kTileRows + warp;
  s.y1 = min (pl.rows, (tile_row + 1) * kTileRows);
  s.src = pl.data + (size_t) s.y0 * pl.pitch + byte0;
  return s;
}

/* A block's walk over a plane's tiles, as (major, minor) coordinates:
 * (tile row, tile column) when it takes every stride-th tile in row-major
 * order, (tile column, tile row) when it takes a run down the columns.
 * Each step adds the stride without dividing: a division per tile, in the
 * loop, was about a seventh of a tile's instructions with profiles. */
struct TileWalk
{
  int major, minor;
  int minors;                   /* per major */
  int step_major, step_minor;   /* the stride, split */
  bool column_major;

  __device__ TileWalk (int first, int stride, int n_minors, bool by_columns)
  {
    minors = n_minors > 0 ? n_minors : 1;       /* (an empty plane) */
    column_major = by_columns;
    major = first / minors;
    minor = first - major * minors;
    step_major = stride / minors;
    step_minor = stride - step_major * minors;
  }
  __device__ int row () const { return column_major ? minor : major; }
  __device__ int col () const { return column_major ? major : minor; }
  /* whether the next step starts a new column of tiles (runs only) */
  __device__ bool column_ends () const { return minor + 1 == minors; }
  __device__ void advance ()
  {
    major += step_major;
    minor += step_minor;
    if (minor >= minors) {
      minor -= minors;
      major++;
    }
  }
};

/* A whole chunk in an aligned plane: loaded in vectors, all rows at once.
 * (Tested as rest >= CHUNK.  Written as max (0, min (CHUNK, rest)) ==
 * CHUNK, this kernel built with CUDA 13.0 took the branch for any rest
 * >= 0 on the H100, though its PTX was right; docs/notes.md.) */
template < int BPP > __device__ __forceinline__ bool
is_whole (const PlaneArgs & pl, const Spot & s)
{
  return pl.vectors && s.rest >= chunk_bytes < BPP > ();
}

/* Issues the loads of this thread's rows of a tile (whole chunks only),
 * and for 4-byte pixels, where old_keys, the previous frame's keys of
 * them, a word a row: loaded a tile ahead like the rows, they are there
 * when the tile is counted.  (Loaded just before their rows were counted,
 * they queued behind the next tile's loads, and waiting for them was over
 * a quarter of the stalls of the kernel with every feature; 1-byte pixels
 * would need 32 registers for them, which that kernel does not have.) */
template < int BPP > __device__ __forceinline__ void
load_rows (const LaunchArgs & args, const PlaneArgs & pl, const Spot & s,
    bool old_keys, uint32_t (&w)[kRowsPerWarp][chunk_bytes < BPP > () / 4],
    uint32_t (&old)[kRowsPerWarp])
{
  if (!is_whole < BPP > (pl, s))
    return;
  const size_t step = (size_t) kWarps * pl.pitch;
  const uint8_t *row = s.src;
  if constexpr (BPP == 4) {
    if (old_keys) {
      /* the address by additions: recomputed each row it took 8 SASS
       * instructions (a 64-bit multiply-add), and its store's in
       * count_tile () as many; 4K RGBA with every feature 20.9-21.0 us
       * against 21.1 (H100) */
      const uint8_t *prev = previous_keys < BPP, kPrevious > (args, s.y0,
          s.chunk);
      const size_t prev_step = (size_t) kWarps * args.previous_pitch;
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; i++, prev += prev_step) {
        if (s.y0 + i * kWarps < s.y1)
          old[i] = *reinterpret_cast < const uint32_t * >(prev);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; i++, row += step) {
    if (s.y0 + i * kWarps < s.y1)
      load_chunk_vector < BPP > (row, w[i]);
  }
}

/* row_key[i] = key for a row index i known only at run time, without
 * taking the array out of registers */
__device__ __forceinline__ void
set_row_key (uint32_t (&row_key)[kRowsPerWarp], int i, uint32_t key)
{
#pragma unroll
  for (int j = 0; j < kRowsPerWarp; j++) {
    if (j == i)
      row_key[j] = key;
  }
}

/* One tile of a plane: this warp's rows, this lane's chunk of each, added
 * to the thread's running totals.  `loaded` holds the rows of a whole
 * chunk (load_rows) but for 3-byte pixels, whose 48-byte chunks are
 * loaded here, rows_in_flight() at a time; `loaded_old` the previous keys
 * of those rows for 4-byte pixels. */
template < int BPP, unsigned K > __device__ __forceinline__ void
count_tile (const LaunchArgs & args, const PlaneArgs & pl, bool keyed,
    const Spot & s,
    const uint32_t (&loaded)[kRowsPerWarp][chunk_bytes < BPP > () / 4],
    const uint32_t (&loaded_old)[kRowsPerWarp], WordAcc & wa, Totals & t,
    uint32_t (&col)[kMaxChunkPixels], Workspace * ws)
{
  constexpr int CHUNK = chunk_bytes < BPP > ();
  constexpr int WORDS = CHUNK / 4;
  constexpr int BATCH = rows_in_flight < BPP > ();
  const int lane = threadIdx.x & 31;
  const size_t step = (size_t) kWarps * pl.pitch;

  ByteAcc ba;
  if constexpr (BPP == 3) {
#pragma unroll
    for (int b = 0; b < 3; b++) {
      ba.s[b] = ba.q[b] = ba.mx[b] = 0;
      ba.mn[b] = 255;
    }
  }
  uint32_t &black = t.black, &diff = t.diff;
  uint32_t row_key[kRowsPerWarp];
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; i++)
    row_key[i] = 0;

  /* row i of this warp is y0 + i * kWarps, the same for every lane */
  if (is_whole < BPP > (pl, s)) {
    if constexpr (BPP == 4 && (K & kPrevious) != 0) {
      /* the keys' address by additions, as in load_rows () */
      uint8_t *prev = previous_keys < BPP, K > (args, s.y0, s.chunk);
      const size_t prev_step = (size_t) kWarps * args.previous_pitch;
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; i++, prev += prev_step) {
        if (s.y0 + i * kWarps < s.y1)
          count_row < BPP, K > (args, keyed, loaded[i], CHUNK, wa, ba, black,
              diff, col, row_key[i], prev, &loaded_old[i]);
      }
    } else if constexpr (BPP == 1 && (K & kPrevious) != 0) {
      /* the previous keys of PREV_ROWS rows, loaded together before any
       * is used, so that a tile waits for them twice rather than once a
       * row (which had made the difference cost as much as the rest of
       * the statistics).  On an H100 batches of 4 rows took 4K NV12 with
       * every feature in 24.6 us, of 2 in 41.7; the kernel has no
       * registers to load them a tile ahead as for 4-byte pixels. */
      constexpr int PW = chunk_pixels < BPP > () / 4;
      constexpr int PREV_ROWS = 4;
      const bool load_old = keyed && (args.flags & CF_SUM_DIFF);
#pragma unroll
      for (int ib = 0; ib < kRowsPerWarp; ib += PREV_ROWS) {
        uint32_t old[PREV_ROWS][PW];
#pragma unroll
        for (int i = 0; i < PREV_ROWS; i++) {
          const int y = s.y0 + (ib + i) * kWarps;
          if (load_old && y < s.y1) {
            load_previous_keys < BPP > (previous_keys < BPP, K > (args, y,
                    s.chunk), old[i]);
          } else {
#pragma unroll
            for (int q = 0; q < PW; q++)
              old[i][q] = 0;
          }
        }
#pragma unroll
        for (int i = 0; i < PREV_ROWS; i++) {
          const int y = s.y0 + (ib + i) * kWarps;
          if (y < s.y1)
            count_row < BPP, K > (args, keyed, loaded[ib + i], CHUNK, wa,
                ba, black, diff, col, row_key[ib + i],
                previous_keys < BPP, K > (args, y, s.chunk), old[i]);
        }
      }
    } else if constexpr (BPP != 3) {
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; i++) {
        const int y = s.y0 + i * kWarps;
        if (y < s.y1)
          count_row < BPP, K > (args, keyed, loaded[i], CHUNK, wa, ba, black,
              diff, col, row_key[i], previous_keys < BPP, K > (args, y,
                  s.chunk));
      }
    } else {
      /* not unrolled: the code of a 48-byte chunk is long, and what
       * matters here is the loads in flight, BATCH rows' worth (unrolled,
       * this and the loop below made the file take minutes to compile
       * and each kernel three times as long, for no speed) */
#pragma unroll 1
      for (int ib = 0; ib < kRowsPerWarp; ib += BATCH) {
        uint32_t w[BATCH][WORDS];
#pragma unroll
        for (int i = 0; i < BATCH; i++) {
          if (s.y0 + (ib + i) * kWarps < s.y1)
            load_chunk_vector < BPP > (s.src + (ib + i) * step, w[i]);
        }
#pragma unroll
        for (int i = 0; i < BATCH; i++) {
          const int y = s.y0 + (ib + i) * kWarps;
          uint32_t key = 0;
          if (y < s.y1)
            count_row < BPP, K > (args, keyed, w[i], CHUNK, wa, ba, black,
                diff, col, key, previous_keys < BPP, K > (args, y, s.chunk));
          set_row_key (row_key, ib + i, key);
        }
      }
    }
  } else if (s.rest > 0) {
    /* the last chunk of a row, or a plane not aligned for vectors: a row
     * at a time (byte loads would take too many registers in flight),
     * and not unrolled: in an aligned plane one lane in 32 at most is
     * here */
    const int valid = min (CHUNK, s.rest);
#pragma unroll 1
    for (int i = 0; i < kRowsPerWarp; i++) {
      const int y = s.y0 + i * kWarps;
      if (y < s.y1) {
        uint32_t w[WORDS], key = 0;
        load_chunk_any < BPP > (s.src + i * step, valid, w);
        count_row < BPP, K > (args, keyed, w, valid, wa, ba, black, diff,
            col, key, previous_keys < BPP, K > (args, y, s.chunk));
        set_row_key (row_key, i, key);
      }
    }
  }

  /* the row sums: every lane of the warp is here again */
  if constexpr ((K & kProfiles) != 0) {
    if (keyed) {
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; i++) {
        const int y = s.y0 + i * kWarps;
        const uint32_t r = warp_add (row_key[i]);
        if (lane == 0 && y < s.y1 && r)
          atomicAdd (&ws_rows (ws)[y], r);
      }
    }
  }

  if constexpr (BPP == 3) {
#pragma unroll
    for (int b = 0; b < 3; b++) {
      t.sum[b] += ba.s[b];
      t.sq[b] += ba.q[b];
      t.mn[b] = min (t.mn[b], ba.mn[b]);
      t.mx[b] = max (t.mx[b], ba.mx[b]);
    }
  } else {
    word_acc_fold_sums < BPP > (wa, t);
  }
}

/* Adds the block's totals to the workspace: warp reductions, then a
 * thread per total over the warps, and one atomic each.  The u32 warp
 * totals cannot overflow: a thread counts kRowsPerWarp * 16 samples of a
 * position per tile, and at most kMaxTilesPerBlock tiles. */
template < int BPP, bool AFTER_PLANE = true > __device__ __forceinline__ void
add_block_totals (const PlaneArgs & pl, const Totals & t, Workspace * ws,
    SharedTotals & sh)
{
  constexpr int NP = positions < BPP > ();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if constexpr (AFTER_PLANE)
    __syncthreads ();           /* the previous plane's totals are read */
#pragma unroll
  for (int p = 0; p < NP; p++) {
    uint32_t s = warp_add (t.sum[p]);
    uint32_t q = warp_add (t.sq[p]);
    uint32_t mn = warp_min (t.mn[p]);
    uint32_t mx = warp_max (t.mx[p]);
    if (lane == 0) {
      sh.totals[warp][p] = s;
      sh.totals[warp][4 + p] = q;
      sh.totals[warp][8 + p] = 255 - mn;
      sh.totals[warp][12 + p] = mx;
    }
  }
  const uint32_t black = warp_add (t.black), diff = warp_add (t.diff);
  if (lane == 0) {
    sh.totals[warp][16] = black;
    sh.totals[warp][17] = diff;
  }
  __syncthreads ();

  const int i = threadIdx.x;
  if (i >= kTotals || (i < 16 && (i & 3) >= NP))
    return;
  const int c = i < 16 ? pl.channel[i & 3] : 0;
  if (c < 0)
    return;                     /* a padding byte */
  if (i >= 8 && i < 16) {
    uint32_t v = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++)
      v = max (v, sh.totals[w][i]);
    if (v)
      atomicMax (i < 12 ? &ws->inv_min[c] : &ws->max[c], v);
  } else {
    unsigned long long v = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++)
      v += sh.totals[w][i];
    unsigned long long *to = i < 4 ? &ws->sum[c] : i < 8 ?
        &ws->sum_squares[c] : i == 16 ? &ws->black : &ws->abs_diff;
    if (v)
      atomicAdd (to, v);
  }
}

template < int BPP > __device__ __forceinline__ void
zero_rows (uint32_t (&w)[kRowsPerWarp][chunk_bytes < BPP > () / 4])
{
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; i++) {
#pragma unroll
    for (int j = 0; j < chunk_bytes < BPP > () / 4; j++)
      w[i][j] = 0;
  }
}

/* The block's share of a plane's tiles, added to the workspace.  While a
 * tile is counted the loads of the block's next tile are in flight (but
 * for 3-byte pixels), so the memory stays busy through the counting.
 *
 * Which tiles: tile blockIdx.x, then every gridDim.x-th, so that
 * neighbouring blocks read neighbouring tiles; but with profiles of this
 * plane, where a block has two tiles or more, a run of consecutive tiles
 * down the columns of tiles, so that a thread keeps its column sums in
 * registers from one tile to the next and the block adds them to the
 * workspace once per column of tiles it visits (one or two) rather than
 * once a tile.  (With about one tile a block the runs saved nothing and
 * were slower: 4K GRAY8 16.1 us against 14.8 on an H100.) */
template < int BPP, unsigned K > __device__ void
count_plane (const LaunchArgs & args, const PlaneArgs & pl, bool key_plane,
    Workspace * ws, uint32_t * ws_columns, SharedOf < K > &sh)
{
  constexpr int WORDS = chunk_bytes < BPP > () / 4;
  const bool keyed = K != 0 && key_plane;
  const int n = pl.tile_rows * pl.tile_cols;
  const bool runs = (K & kProfiles) != 0 && keyed &&
      n >= 2 * (int) gridDim.x;
  int first = blockIdx.x, end = n, stride = gridDim.x;
  if (runs) {
    first = (int) ((long long) n * blockIdx.x / gridDim.x);
    end = (int) ((long long) n * (blockIdx.x + 1) / gridDim.x);
    stride = 1;
  }
  TileWalk at (first, stride, runs ? pl.tile_rows : pl.tile_cols, runs);
  Totals t;
  totals_init (t);
  WordAcc wa;
  if constexpr (BPP != 3)
    word_acc_init (wa);
  uint32_t col[kMaxChunkPixels];
#pragma unroll
  for (int k = 0; k < kMaxChunkPixels; k++)
    col[k] = 0;

  /* the next tile's loads are in flight while this one is counted */
  const bool old_keys = keyed && (K & kPrevious) != 0 &&
      (args.flags & CF_SUM_DIFF);
  uint32_t next[kRowsPerWarp][WORDS], next_old[kRowsPerWarp];
  zero_rows < BPP > (next);
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; r++)
    next_old[r] = 0;
  if constexpr (BPP != 3) {
    if (first < end)
      load_rows < BPP > (args, pl, spot_of < BPP > (pl, at.row (),
              at.col ()), old_keys, next, next_old);
  }
  for (int i = first; i < end; i += stride) {
    uint32_t cur[kRowsPerWarp][WORDS], cur_old[kRowsPerWarp];
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; r++) {
      cur_old[r] = next_old[r];
#pragma unroll
      for (int j = 0; j < WORDS; j++)
        cur[r][j] = next[r][j];
    }
    const Spot s = spot_of < BPP > (pl, at.row (), at.col ());
    const bool column_ends = at.column_ends ();
    at.advance ();
    if constexpr (BPP != 3) {
      if (i + stride < end)
        load_rows < BPP > (args, pl, spot_of < BPP > (pl, at.row (),
                at.col ()), old_keys, next, next_old);
    }
    count_tile < BPP, K > (args, pl, keyed, s, cur, cur_old, wa, t, col,
        ws);
    if constexpr ((K & kProfiles) != 0) {
      /* block-uniform: every tile, or in a run where its column of tiles
       * ends */
      if (keyed && (!runs || i + 1 == end || column_ends))
        flush_columns < BPP > (col, s.tile_col, pl.width, ws_columns,
            sh.columns);
    }
  }
  if constexpr (BPP != 3)
    word_acc_fold_rest < BPP > (wa, t);
  add_block_totals < BPP > (pl, t, ws, sh);
}

/* A plane without key features, of any bytes per pixel. */
__device__ __forceinline__ void
count_plain_plane (const LaunchArgs & args, const PlaneArgs & pl,
    Workspace * ws, uint32_t * ws_columns, SharedTotals & sh)
{
  switch (pl.bpp) {
    case 1:
      count_plane < 1, 0 > (args, pl, false, ws, ws_columns, sh);
      break;
    case 2:
      count_plane < 2, 0 > (args, pl, false, ws, ws_columns, sh);
      break;
    case 3:
      count_plane < 3, 0 > (args, pl, false, ws, ws_columns, sh);
      break;
    default:
      count_plane < 4, 0 > (args, pl, false, ws, ws_columns, sh);
      break;
  }
}

/* K: the key features; KEY_BPP: plane 0's bytes per pixel where K is not
 * 0 (1, 3 or 4).  A kernel per key layout, rather than one choosing the
 * key plane's code at run time: ptxas allocates registers for a kernel as
 * a whole, and the kernel with every feature for all layouts spilled 424
 * bytes a thread where each layout alone spilled none (docs/notes.md). */
template < unsigned K, int KEY_BPP > __global__ void
__launch_bounds__ (kThreads, 2)
sum_kernel (LaunchArgs args, Workspace * __restrict__ ws, int ws_max_height)
{
  __shared__ SharedOf < K > sh;
  uint32_t *ws_columns = ws_rows (ws) + ws_max_height;

  cf_grid_zero_words (args.zero_next, args.zero_words);

  int p = 0;
  if constexpr (K != 0) {
    if (args.n_planes > 0)
      count_plane < KEY_BPP, K > (args, args.plane[0], true, ws, ws_columns,
          sh);
    p = 1;
  }
  for (; p < args.n_planes; p++)
    count_plain_plane (args, args.plane[p], ws, ws_columns, sh);

  /* The last block out publishes the totals and leaves zeros behind
   * (cf_sum_planes; cf_sum_planes_add leaves the sums where they are). */
  if (!args.publish || !cf_block_is_last (&ws->blocks_done))
    return;
  /* every load before any store, L2 (where the atomics are) to L2 */
  if (threadIdx.x < 4) {
    const int c = threadIdx.x;
    const unsigned long long sum = __ldcg (&ws->sum[c]);
    const unsigned long long squares = __ldcg (&ws->sum_squares[c]);
    const unsigned int inv_min = __ldcg (&ws->inv_min[c]);
    const unsigned int max = __ldcg (&ws->max[c]);
    args.out->sum[c] = sum;
    args.out->sum_squares[c] = squares;
    args.out->min[c] = 255 - inv_min;
    args.out->max[c] = max;
    __stcg (&ws->sum[c], 0ull);
    __stcg (&ws->sum_squares[c], 0ull);
    __stcg (&ws->inv_min[c], 0u);
    __stcg (&ws->max[c], 0u);
  } else if (threadIdx.x == 4) {
    const unsigned long long black = __ldcg (&ws->black);
    const unsigned long long abs_diff = __ldcg (&ws->abs_diff);
    args.out->black = black;
    args.out->abs_diff = abs_diff;
    __stcg (&ws->black, 0ull);
    __stcg (&ws->abs_diff, 0ull);
    __stcg (&ws->blocks_done, 0u);
  }
  if constexpr ((K & kProfiles) != 0) {
    /* the row sums and then the column sums, one array of words in the
     * workspace: 16-byte loads, eight in flight per thread, so that this
     * single block's copy is one or two L2 round trips (4K: 6000 words)
     * rather than a chain of them */
    uint32_t *sums = ws_rows (ws);
    const int n = args.key_height + args.key_width;
    const int n_vectors = ((uintptr_t) sums & 15) == 0 ? n / 4 : 0;
    constexpr int kLoads = 8;
    auto put =[&](int i, uint32_t v) {
      if (i < args.key_height)
        args.row_out[i] = v;
      else
        args.column_out[i - args.key_height] = v;
    };
    for (int base = threadIdx.x; base < n_vectors;
        base += kLoads * kThreads) {
      uint4 v[kLoads];
#pragma unroll
      for (int j = 0; j < kLoads; j++) {
        const int i = base + j * kThreads;
        v[j] = i < n_vectors ?
            __ldcg (reinterpret_cast < const uint4 * >(sums) + i) :
            make_uint4 (0, 0, 0, 0);
      }
#pragma unroll
      for (int j = 0; j < kLoads; j++) {
        const int i = base + j * kThreads;
        if (i < n_vectors) {
          put (4 * i, v[j].x);
          put (4 * i + 1, v[j].y);
          put (4 * i + 2, v[j].z);
          put (4 * i + 3, v[j].w);
          __stcg (reinterpret_cast < uint4 * >(sums) + i,
              make_uint4 (0, 0, 0, 0));
        }
      }
    }
    for (int i = 4 * n_vectors + threadIdx.x; i < n; i += kThreads) {
      put (i, __ldcg (sums + i));
      __stcg (sums + i, 0u);
    }
  }
}

/* The statistics alone, without a last block (cf_sum_planes_add), of
 * planes of 1, 2 or 4 bytes a pixel whose rows are whole aligned 16-byte
 * vectors: each plane is one run of vectors, row after row, and a block
 * takes kRunVectors * kThreads consecutive ones (32 KB), thread i the
 * vectors i, i + kThreads, ..., all loaded before any is counted; as many
 * blocks as that makes, which the GPU hands to its SMs as they free up,
 * where the wave of persistent blocks above keeps a tile in flight a
 * block while it counts another.  On the H100 this took 1080p NV12 from
 * 8.2 to 6.5-6.7 us, 4K NV12 from 11.1 to 9.8-9.9, 1080p RGBA from 9.0 to
 * 8.4-8.6 and 4K RGBA from 17.1 to 16.8-16.9 (docs/notes.md, cudasum v8);
 * tight planes read without a row a vector and whole blocks without a
 * check a vector took 4K RGBA to 16.3-16.4 and 1080p to 8.3-8.4
 * (cudasum v9). */
constexpr int kRunVectors = 8;
/* 16-bit lane sums: kRunVectors vectors of 4 words, 255 each at most */
static_assert (kRunVectors * 4 * 255 < 65536, "16-bit lane sums overflow");

/* Loads a thread's vectors of its block's run: with CHECKED, those in the
 * plane (the others zero); FLAT: a tight plane, vector i at data + 16 i,
 * where otherwise each vector's row comes from a multiply-high.  Plain
 * loads: __ldg was 1 us slower at 4K RGBA in the experiment's kernel; with
 * no line in L1 and a 256-byte L2 fetch (ld.global.nc.L1::no_allocate
 * .L2::256B) 4K took what it takes and 8K 2 us more (docs/notes.md,
 * cudasum, tried after v10). */
template < bool FLAT, bool CHECKED > __device__ __forceinline__ void
load_run (const PlaneArgs & pl, int first, int total,
    uint4 (&v)[kRunVectors])
{
  if constexpr (FLAT) {
    const uint4 *src = reinterpret_cast < const uint4 * >(pl.data) + first;
#pragma unroll
    for (int u = 0; u < kRunVectors; u++)
      v[u] = !CHECKED || first + u * kThreads < total ? src[u * kThreads] :
          make_uint4 (0, 0, 0, 0);
  } else {
    const int vectors_per_row = pl.row_bytes / 16;
#pragma unroll
    for (int u = 0; u < kRunVectors; u++) {
      const int i = first + u * kThreads;
      v[u] = make_uint4 (0, 0, 0, 0);
      if (!CHECKED || i < total) {
        /* exact for i < 2^31 (the launch checks) */
        const int y = (int) __umul64hi ((uint64_t) i, pl.row_of_vector);
        const int x = i - y * vectors_per_row;
        v[u] = reinterpret_cast < const uint4 * >(pl.data +
            (size_t) y * pl.pitch)[x];
      }
    }
  }
}

template < int BPP, bool FLAT, bool CHECKED > __device__ __forceinline__ void
count_run (const PlaneArgs & pl, int first, int total, Totals & t)
{
  uint4 v[kRunVectors];
  load_run < FLAT, CHECKED > (pl, first, total, v);
  WordAcc wa;
  word_acc_init (wa);
#pragma unroll
  for (int u = 0; u < kRunVectors; u++) {
    const uint32_t w[4] = { v[u].x, v[u].y, v[u].z, v[u].w };
    /* a vector past the plane: zeros for the sums, none for the minima */
    const uint32_t missing = !CHECKED || first + u * kThreads < total ?
        0u : 0xffffffffu;
#pragma unroll
    for (int j = 0; j < 4; j++)
      word_acc_add < BPP > (wa, w[j], w[j] | missing);
    if constexpr (BPP == 4) {
      word_acc_add_pair (wa, w[0], w[1]);
      word_acc_add_pair (wa, w[2], w[3]);
    }
  }
  totals_init (t);
  word_acc_fold_sums < BPP > (wa, t);
  word_acc_fold_rest < BPP > (wa, t);
}

/* A block's run of a plane.  A block whose vectors all lie in a tight
 * plane (every block but a plane's partial last one) takes them without a
 * check each.  Each
 * case loads and counts in one branch: with the loads of both cases in
 * one if/else and the counting in another, 4K RGBA took 16.8-16.9 us
 * rather than 16.2-16.4. */
template < int BPP, bool FLAT > __device__ __forceinline__ void
statistics_of_run (const PlaneArgs & pl, Workspace * ws, SharedTotals & sh)
{
  const int total = pl.row_bytes / 16 * pl.rows;
  const int block_first = ((int) blockIdx.x - pl.first_block) * kThreads *
      kRunVectors;
  const int first = block_first + (int) threadIdx.x;
  Totals t;
  if (FLAT && block_first + kThreads * kRunVectors <= total)
    count_run < BPP, FLAT, false > (pl, first, total, t);
  else
    count_run < BPP, FLAT, true > (pl, first, total, t);
  /* a block counts one plane: no barrier before its totals */
  add_block_totals < BPP, false > (pl, t, ws, sh);
}

/* ONLY: the bytes a pixel of every plane, or 0 for planes of 1, 2 and 4
 * in one launch (NV12, I420); FLAT: every plane tight.  In v8, with every
 * layout's code in one kernel (72 registers, 3 blocks an SM), 4K RGBA
 * took 18.1 us instead of 16.9 on the H100.  Now each kernel fits 64
 * registers without spills: 4 blocks an SM. */
template < int ONLY, bool FLAT > __global__ void
__launch_bounds__ (kThreads, 4)
statistics_kernel (LaunchArgs args, Workspace * __restrict__ ws)
{
  __shared__ SharedTotals sh;

  cf_grid_zero_words (args.zero_next, args.zero_words);
  if ((int) blockIdx.x >= args.blocks)
    return;                     /* the one block of an empty region */
  if constexpr (ONLY != 0) {
    /* one plane: its arguments at fixed offsets rather than indexed
     * (`stats-stream pieces` in bench/experiments, 4K RGBA with padded rows:
     * 16.3-16.4 us against 16.9-17.0) */
    if (args.n_planes == 1) {
      statistics_of_run < ONLY, FLAT > (args.plane[0], ws, sh);
      return;
    }
  }
  int p = 0;
  while (p + 1 < args.n_planes && (int) blockIdx.x >=
      args.plane[p + 1].first_block)
    p++;
  const PlaneArgs & pl = args.plane[p];
  if constexpr (ONLY != 0) {
    statistics_of_run < ONLY, FLAT > (pl, ws, sh);
  } else {
    switch (pl.bpp) {
      case 1:
        statistics_of_run < 1, FLAT > (pl, ws, sh);
        break;
      case 2:
        statistics_of_run < 2, FLAT > (pl, ws, sh);
        break;
      default:
        statistics_of_run < 4, FLAT > (pl, ws, sh);
        break;
    }
  }
}

template < int ONLY > void
launch_statistics_kernel (bool flat, int grid, const LaunchArgs & args,
    Workspace * sums, CfStream stream)
{
  if (flat)
    statistics_kernel < ONLY, true > <<< grid, kThreads, 0, stream >>> (args,
        sums);
  else
    statistics_kernel < ONLY, false > <<< grid, kThreads, 0, stream >>> (args,
        sums);
}

/* Launches statistics_kernel where the planes allow it (the statistics
 * alone, added into sums, every plane of rows of 2 or more whole aligned
 * vectors, row_of_vector's condition, and not 3 bytes a pixel); false
 * where not, and nothing is launched. */
bool
launch_statistics_runs (LaunchArgs & args, Workspace * sums, CfStream stream)
{
  long long vectors = 0, blocks = 0;
  bool all4 = args.n_planes > 0, flat = true;
  for (int p = 0; p < args.n_planes; p++) {
    const PlaneArgs & pl = args.plane[p];
    if (pl.bpp == 3 || (pl.rows > 0 && (!pl.vectors || pl.row_bytes % 16
                || pl.row_bytes < 32)))
      return false;
    vectors += (long long) (pl.row_bytes / 16) * pl.rows;
    all4 = all4 && pl.bpp == 4;
    flat = flat && (pl.rows <= 1 || pl.pitch == (size_t) pl.row_bytes);
  }
  if (vectors >= INT32_MAX / 2)
    return false;
  for (int p = 0; p < args.n_planes; p++) {
    PlaneArgs & pl = args.plane[p];
    const long long n = (long long) (pl.row_bytes / 16) * pl.rows;
    pl.first_block = (int) blocks;
    pl.row_of_vector = pl.row_bytes >= 32 ?
        UINT64_MAX / (uint64_t) (pl.row_bytes / 16) + 1 : 0;
    blocks += (n + kRunVectors * kThreads - 1) / (kRunVectors * kThreads);
  }
  args.blocks = (int) blocks;
  const int grid = blocks > 0 ? (int) blocks : 1;
  if (all4)
    launch_statistics_kernel < 4 > (flat, grid, args, sums, stream);
  else
    launch_statistics_kernel < 0 > (flat, grid, args, sums, stream);
  return true;
}

typedef void (*SumKernel) (LaunchArgs, Workspace *, int);

template < unsigned K > SumKernel
kernel_for_key (int key_bpp)
{
  return key_bpp == 1 ? sum_kernel < K, 1 > : key_bpp == 3 ?
      sum_kernel < K, 3 > : sum_kernel < K, 4 >;
}

/* The kernel for key features k (bits: profiles, black, previous) and a
 * key plane of key_bpp bytes per pixel (1, 3 or 4; any where k is 0). */
SumKernel
kernel_for (unsigned k, int key_bpp)
{
  switch (k) {
    case 0:
      return sum_kernel < 0, 0 >;
    case 1:
      return kernel_for_key < 1 > (key_bpp);
    case 2:
      return kernel_for_key < 2 > (key_bpp);
    case 3:
      return kernel_for_key < 3 > (key_bpp);
    case 4:
      return kernel_for_key < 4 > (key_bpp);
    case 5:
      return kernel_for_key < 5 > (key_bpp);
    case 6:
      return kernel_for_key < 6 > (key_bpp);
    default:
      return kernel_for_key < 7 > (key_bpp);
  }
}

/* Blocks resident on the whole device, per device and kernel.  Elements
 * launch from several streaming threads: the cache's entries are atomic
 * (threads that miss at once compute the same value). */
cudaError_t
resident_blocks (unsigned k, int key_bpp, int *blocks)
{
  static std::atomic < int >cached[64][8][5];
  int dev = 0, sms = 0, per_sm = 0;
  cudaError_t err;

  if ((err = cudaGetDevice (&dev)) != cudaSuccess)
    return err;
  if (dev >= 0 && dev < 64) {
    int known = cached[dev][k][key_bpp].load (std::memory_order_relaxed);

    if (known) {
      *blocks = known;
      return cudaSuccess;
    }
  }
  if ((err = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
              dev)) != cudaSuccess
      || (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm,
              kernel_for (k, key_bpp), kThreads, 0)) != cudaSuccess)
    return err;
  *blocks = sms * (per_sm > 0 ? per_sm : 1);
  if (dev >= 0 && dev < 64)
    cached[dev][k][key_bpp].store (*blocks, std::memory_order_relaxed);
  return cudaSuccess;
}

}                               /* namespace */

extern "C" size_t
cf_sum_workspace_bytes (int max_width, int max_height)
{
  if (max_width < 0 || max_height < 0)
    return 0;
  return sizeof (Workspace) + sizeof (uint32_t) *
      ((size_t) max_width + (size_t) max_height);
}

/* Both entry points: the blocks add into `workspace`; with `stats` the
 * last block publishes the totals (and row and column sums) there and
 * zeroes the workspace, without (cf_sum_planes_add) they stay where they
 * are, and `zero_bytes` of `zero_next`, if any, are zeroed. */
static CfError
launch_sum (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, CfSumStats * stats, uint32_t * row_sums,
    uint32_t * column_sums, void *workspace, void *zero_next,
    size_t zero_bytes, CfStream stream)
{
  LaunchArgs args = { };
  unsigned flags = key ? key->flags : 0;
  const bool publish = stats != nullptr;

  /* the buffer zeroed for a later launch may not overlap this one's */
  const uintptr_t ws_at = (uintptr_t) workspace, zero_at = (uintptr_t) zero_next;
  const size_t ws_bytes = n_planes > 0 && planes ?
      cf_sum_workspace_bytes (planes[0].width, planes[0].height) :
      sizeof (Workspace);
  if (n_planes < 0 || n_planes > CF_HIST_MAX_PLANES || !workspace
      || (n_planes > 0 && !planes) || zero_next == workspace
      || ws_at % 8 || zero_at % 4
      || zero_bytes % 4 || (zero_bytes && !zero_next)
      || (zero_bytes && zero_at < ws_at + ws_bytes
          && ws_at < zero_at + zero_bytes)
      || (flags & ~(unsigned) (CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF |
                  CF_SUM_KEEP)))
    return cudaErrorInvalidValue;
  if (flags && n_planes == 0)
    flags = 0;
  if (flags) {
    const CfSamplePlane *p0 = &planes[0];
    uint64_t max_key = 32768;
    if (p0->bytes_per_pixel != 1 && p0->bytes_per_pixel != 3
        && p0->bytes_per_pixel != 4)
      return cudaErrorInvalidValue;
    /* a 1-byte plane's key is the byte: its weights are not used */
    for (int b = 0; p0->bytes_per_pixel > 1 && b < p0->bytes_per_pixel; b++) {
      if (key->weights[b] > 65535)
        return cudaErrorInvalidValue;
      max_key += 255ull * key->weights[b];
    }
    if (max_key >> 16 > 255 || key->black_threshold < 0)
      return cudaErrorInvalidValue;
    /* the publish indexes rows and columns as one int array */
    if ((flags & CF_SUM_PROFILES) && ((publish && (!row_sums || !column_sums))
            || (long long) p0->width + p0->height > INT32_MAX - 8 * kThreads))
      return cudaErrorInvalidValue;
    if ((flags & (CF_SUM_DIFF | CF_SUM_KEEP)) && (!key->previous
            || (uintptr_t) key->previous % 16 || key->previous_pitch % 16
            || (p0->height > 1 && key->previous_pitch < (size_t) p0->width)))
      return cudaErrorInvalidValue;
    args.flags = flags;
    for (int b = 0; b < 4; b++)
      args.weights[b] = b < p0->bytes_per_pixel ? key->weights[b] : 0;
    for (int i = 0; i < 2; i++) {
      args.weight_bytes[i] = 0;
      for (int b = 0; b < 4; b++)
        args.weight_bytes[i] |= ((args.weights[b] >> (8 * i)) & 0xffu) <<
            (8 * b);
    }
    args.black_limit = (uint32_t) (key->black_threshold > 255 ? 256 :
        key->black_threshold + 1) << 16;
    args.previous = key->previous;
    args.previous_pitch = key->previous_pitch;
  }

  args.n_planes = n_planes;
  for (int p = 0; p < n_planes; p++) {
    const CfSamplePlane *in = &planes[p];
    PlaneArgs *pl = &args.plane[p];
    int bpp = in->bytes_per_pixel;
    long long row_bytes = (long long) in->width * bpp;
    int chunk = bpp == 3 ? 48 : 16;
    if (bpp < 1 || bpp > 4 || in->width < 0 || in->height < 0
        || in->height > INT32_MAX - kTileRows || row_bytes > INT32_MAX / 2
        || (in->height > 1 && in->pitch < (size_t) row_bytes)
        || (row_bytes > 0 && in->height > 0 && !in->data))
      return cudaErrorInvalidValue;
    for (int b = 0; b < 4; b++) {
      if (in->channel[b] >= CF_HIST_MAX_CHANNELS)
        return cudaErrorInvalidValue;
      pl->channel[b] = b < bpp ? in->channel[b] : -1;
    }
    pl->data = (const uint8_t *) in->data;
    pl->pitch = in->pitch;
    pl->vectors = cf_is_aligned (in->data, in->pitch, 16);
    pl->row_bytes = (int) row_bytes;
    pl->rows = row_bytes > 0 ? in->height : 0;
    pl->bpp = bpp;
    pl->width = in->width;
    pl->tile_cols = (int) ((row_bytes + 32 * chunk - 1) / (32 * chunk));
  }

  unsigned k = ((flags & CF_SUM_PROFILES) ? 1 : 0) |
      ((flags & CF_SUM_BLACK) ? 2 : 0) |
      ((flags & (CF_SUM_DIFF | CF_SUM_KEEP)) ? 4 : 0);
  long long most_tiles = 0;     /* of a plane */
  for (int p = 0; p < n_planes; p++) {
    PlaneArgs *pl = &args.plane[p];
    pl->tile_rows = (pl->rows + kTileRows - 1) / kTileRows;
    long long tiles = (long long) pl->tile_rows * pl->tile_cols;
    if (tiles > INT32_MAX / 2)
      return cudaErrorInvalidValue;
    most_tiles = tiles > most_tiles ? tiles : most_tiles;
  }
  args.out = stats;
  args.row_out = row_sums;
  args.column_out = column_sums;
  args.publish = publish;
  args.zero_next = (uint32_t *) zero_next;
  args.zero_words = zero_bytes / 4;

  int ws_max_height = n_planes > 0 ? planes[0].height : 0;
  args.key_width = n_planes > 0 ? planes[0].width : 0;
  args.key_height = ws_max_height;

  cf_forget_earlier_errors ();
  /* the statistics alone into the caller's sums: statistics_kernel, where
   * the planes allow it */
  if (k == 0 && !publish && launch_statistics_runs (args,
          (Workspace *) workspace, stream))
    return cudaGetLastError ();

  /* One wave of blocks, each walking every gridDim.x-th tile; more blocks
   * only where a block would count more than kMaxTilesPerBlock tiles of a
   * plane, and then whole waves of them, so that no SM is left with a
   * lone block (8K RGBA: 340 blocks of 12 tiles where 264 fit, 1.3 waves,
   * took 54.5 us on an H100; 528 blocks, two waves of 7 or 8 tiles, 49.6);
   * at least one, which publishes zeros for an empty region. */
  int resident = 0;
  cudaError_t err;
  const int key_bpp = k ? planes[0].bytes_per_pixel : 0;
  if ((err = resident_blocks (k, key_bpp, &resident)) != cudaSuccess)
    return err;
  if (resident < 1)
    resident = 1;
  long long blocks = (most_tiles + kMaxTilesPerBlock - 1) / kMaxTilesPerBlock;
  blocks = (blocks + resident - 1) / resident * resident;
  if (blocks > most_tiles)
    blocks = most_tiles;
  if (blocks < 1)
    blocks = 1;
  kernel_for (k, key_bpp) <<< (int) blocks, kThreads, 0, stream >>> (args,
      (Workspace *) workspace, ws_max_height);
  return cudaGetLastError ();
}

extern "C" CfError
cf_sum_planes (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, CfSumStats * stats, uint32_t * row_sums,
    uint32_t * column_sums, void *workspace, CfStream stream)
{
  if (!stats)
    return cudaErrorInvalidValue;
  return launch_sum (planes, n_planes, key, stats, row_sums, column_sums,
      workspace, nullptr, 0, stream);
}

extern "C" CfError
cf_sum_planes_add (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, void *sums, void *zero_next, size_t zero_bytes,
    CfStream stream)
{
  return launch_sum (planes, n_planes, key, nullptr, nullptr, nullptr, sums,
      zero_next, zero_bytes, stream);
}

extern "C" const uint32_t *
cf_sum_sums_read (const void *sums, CfSumStats * stats)
{
  const Workspace *ws = (const Workspace *) sums;
  for (int c = 0; c < CF_HIST_MAX_CHANNELS; c++) {
    stats->sum[c] = ws->sum[c];
    stats->sum_squares[c] = ws->sum_squares[c];
    stats->min[c] = 255 - ws->inv_min[c];
    stats->max[c] = ws->max[c];
  }
  stats->black = ws->black;
  stats->abs_diff = ws->abs_diff;
  return reinterpret_cast < const uint32_t * >(ws + 1);
}
