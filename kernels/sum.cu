/* Per-channel sums, squares, min and max, and the key's row and column
 * profiles, black count and frame difference, in one pass over the frame:
 * the reduction pattern.
 *
 * The frame's planes are cut into tiles one warp wide (32 chunks of 16
 * bytes, or 48 for 3-byte pixels, one chunk per lane) and kWarps *
 * rows_per_warp rows high.  A block takes a contiguous range of tiles, its
 * warps interleaving the rows of each, so consecutive tiles of a block lie
 * one under the other and a thread keeps its columns' key sums in
 * registers until the block moves to another column of tiles.
 *
 * Within a tile a thread counts whole 32-bit words of its chunk: the bytes
 * at positions 0 and 2 and those at 1 and 3 are split into two words of
 * 16-bit lanes whose sums, minima and maxima take one instruction each for
 * two samples; squares use dp4a where a pixel's bytes allow.  The 16-bit
 * sums cannot overflow within a tile (at most 64 rows of 4 words per lane)
 * and are folded into 64-bit per-channel sums after each tile.  3-byte
 * pixels, whose channels do not line up with word positions, are counted
 * a byte at a time.
 *
 * At the end each block reduces its threads (warp reductions, then shared
 * memory) and adds its totals to the workspace with a handful of atomics;
 * the last block to finish copies the totals out and zeroes the workspace,
 * so a frame is one launch.  Min is kept as the max of 255 - v so that a
 * zeroed workspace is the starting point of every total.
 *
 * CPU reference: sum-reference.c, the same results. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

namespace {

constexpr int kWarps = 8;
constexpr int kThreads = 32 * kWarps;
/* rows a warp takes of one tile at most: 64 rows of four words keep the
 * 16-bit lane sums below 65536 */
constexpr int kMaxRowsPerWarp = 64;
constexpr int kMaxChunkPixels = 16;

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
  int first_tile;               /* of this plane in the launch's tiles */
  int channel[4];               /* byte of a pixel -> channel, or -1 */
};

struct LaunchArgs
{
  PlaneArgs plane[CF_HIST_MAX_PLANES];
  int n_planes;
  int n_tiles;
  int rows_per_warp;
  unsigned flags;
  uint32_t weights[4];
  uint32_t black_threshold;
  uint8_t *previous;
  size_t previous_pitch;
  int key_width, key_height;    /* of plane 0, for the profiles */
  CfSumStats *out;
  uint32_t *row_out;
  uint32_t *column_out;
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

/* A thread's totals per channel. */
struct ChannelAcc
{
  unsigned long long sum[4], sq[4];
  uint32_t mn[4], mx[4];
  unsigned long long black, diff;
};

/* A thread's totals per byte position of a word, within a tile. */
struct WordAcc
{
  uint32_t s_even, s_odd;       /* 16-bit lanes: positions 0, 2 and 1, 3 */
  uint32_t mn_even, mn_odd, mx_even, mx_odd;
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
    uint32_t x0 = e & 0xffffu, x1 = o & 0xffffu, x2 = e >> 16, x3 = o >> 16;
    a.q[0] += x0 * x0;
    a.q[1] += x1 * x1;
    a.q[2] += x2 * x2;
    a.q[3] += x3 * x3;
  }
}

/* adds v to channel c of a thread's totals, c known only at run time */
__device__ __forceinline__ void
channel_add (ChannelAcc & acc, int c, uint32_t sum, uint32_t sq, uint32_t mn,
    uint32_t mx)
{
#pragma unroll
  for (int k = 0; k < 4; k++) {
    if (c == k) {
      acc.sum[k] += sum;
      acc.sq[k] += sq;
      acc.mn[k] = min (acc.mn[k], mn);
      acc.mx[k] = max (acc.mx[k], mx);
    }
  }
}

template < int BPP > __device__ __forceinline__ void
word_acc_fold (const WordAcc & a, const PlaneArgs & pl, ChannelAcc & acc)
{
  const uint32_t s[4] = { a.s_even & 0xffffu, a.s_odd & 0xffffu,
    a.s_even >> 16, a.s_odd >> 16
  };
  const uint32_t mn[4] = { a.mn_even & 0xffffu, a.mn_odd & 0xffffu,
    a.mn_even >> 16, a.mn_odd >> 16
  };
  const uint32_t mx[4] = { a.mx_even & 0xffffu, a.mx_odd & 0xffffu,
    a.mx_even >> 16, a.mx_odd >> 16
  };
#pragma unroll
  for (int p = 0; p < 4; p++) {
    /* squares: all in q[0] for 1 byte per pixel, q[byte] otherwise */
    uint32_t sq = BPP == 1 ? (p == 0 ? a.q[0] : 0) :
        BPP == 2 ? (p < 2 ? a.q[p] : 0) : a.q[p];
    channel_add (acc, pl.channel[p % BPP], s[p], sq, mn[p], mx[p]);
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

/* The key of pixel k of a chunk. */
template < int BPP > __device__ __forceinline__ uint32_t
key_of (const uint32_t * words, int k, const uint32_t (&wt)[4])
{
  if constexpr (BPP == 1) {
    return byte_of (words, k);
  } else {
    uint32_t acc = 32768u;
#pragma unroll
    for (int b = 0; b < BPP; b++)
      acc += wt[b] * byte_of (words, k * BPP + b);
    return acc >> 16;
  }
}

/* Loads a chunk: `valid` bytes from `src` (all of them in vectors when
 * `vector`), zeros after them. */
template < int BPP > __device__ __forceinline__ void
load_chunk (const uint8_t * __restrict__ src, int valid, bool vector,
    uint32_t (&w)[chunk_bytes < BPP > () / 4])
{
  constexpr int WORDS = chunk_bytes < BPP > () / 4;
  if (vector) {
#pragma unroll
    for (int j = 0; j < WORDS / 4; j++) {
      uint4 v = __ldg (reinterpret_cast < const uint4 * >(src) + j);
      w[4 * j + 0] = v.x;
      w[4 * j + 1] = v.y;
      w[4 * j + 2] = v.z;
      w[4 * j + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int j = 0; j < WORDS; j++) {
      uint32_t word = 0;
#pragma unroll
      for (int b = 0; b < 4; b++) {
        if (4 * j + b < valid)
          word |= (uint32_t) __ldg (src + 4 * j + b) << (8 * b);
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

/* Row y's chunk of this lane, `valid` bytes of it in the row. */
template < int BPP > __device__ __forceinline__ void
load_row (const PlaneArgs & pl, int y, int byte0, int valid,
    uint32_t (&w)[chunk_bytes < BPP > () / 4])
{
  constexpr int CHUNK = chunk_bytes < BPP > ();
  const uint8_t *row = pl.data + (size_t) y * pl.pitch;
  /* whole rows are aligned or not, so this is warp-uniform but for the
   * last chunk of a row */
  bool vector = valid == CHUNK && (((uintptr_t) row & 15) == 0);
  if (valid > 0) {
    load_chunk < BPP > (row + byte0, valid, vector, w);
  } else {
#pragma unroll
    for (int j = 0; j < CHUNK / 4; j++)
      w[j] = 0;
  }
}

/* Counts a lane's chunk of row y into the tile's totals. */
template < int BPP, unsigned K > __device__ __forceinline__ void
count_row (const LaunchArgs & args, bool keyed,
    const uint32_t (&w)[chunk_bytes < BPP > () / 4], int y, int valid,
    int chunk, WordAcc & wa, ByteAcc & ba, uint32_t & black, uint32_t & diff,
    uint32_t (&col)[kMaxChunkPixels], Workspace * ws)
{
  constexpr int CHUNK = chunk_bytes < BPP > ();
  constexpr int WORDS = CHUNK / 4;
  constexpr int PX = chunk_pixels < BPP > ();
  const int lane = threadIdx.x & 31;
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
  }

  if (!keyed)
    return;

  uint32_t keys[PX];
  uint32_t row_sum = 0;
  uint8_t *prev = nullptr;
  if constexpr ((K & kPrevious) != 0)
    prev = args.previous + (size_t) y * args.previous_pitch +
        (size_t) chunk * PX;
#pragma unroll
  for (int k = 0; k < PX; k++) {
    const bool present = k < valid_px;
    keys[k] = present ? key_of < BPP > (w, k, args.weights) : 0u;
    row_sum += keys[k];
    if constexpr ((K & kProfiles) != 0)
      col[k] += keys[k];
    if constexpr ((K & kBlack) != 0)
      black += present && keys[k] <= args.black_threshold;
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
  if constexpr ((K & kProfiles) != 0) {
    row_sum = warp_add (row_sum);
    if (lane == 0 && row_sum)
      atomicAdd (&ws_rows (ws)[y], row_sum);
  }
  if constexpr ((K & kPrevious) != 0) {
    if (valid_px == PX) {
      /* PX keys: 4 bytes or 16, aligned as the pitch is */
      uint32_t packed[PX / 4], old[PX / 4];
#pragma unroll
      for (int q = 0; q < PX / 4; q++)
        packed[q] = keys[4 * q] | keys[4 * q + 1] << 8 |
            keys[4 * q + 2] << 16 | keys[4 * q + 3] << 24;
      if (args.flags & CF_SUM_DIFF) {
        if constexpr (PX == 4) {
          old[0] = *reinterpret_cast < uint32_t * >(prev);
        } else {
          uint4 v = *reinterpret_cast < uint4 * >(prev);
          old[0] = v.x;
          old[1] = v.y;
          old[2] = v.z;
          old[3] = v.w;
        }
#pragma unroll
        for (int q = 0; q < PX / 4; q++)
          diff = __dp4a (__vabsdiffu4 (packed[q], old[q]), 0x01010101u,
              diff);
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

/* One tile of a plane: this warp's rows, this lane's chunk of each. */
template < int BPP, unsigned K > __device__ void
count_tile (const LaunchArgs & args, const PlaneArgs & pl, bool key_plane,
    int tile_col, int tile_row, ChannelAcc & acc,
    uint32_t (&col)[kMaxChunkPixels], Workspace * ws)
{
  constexpr int CHUNK = chunk_bytes < BPP > ();
  constexpr int WORDS = CHUNK / 4;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int chunk = tile_col * 32 + lane;
  const int byte0 = chunk * CHUNK;
  const int valid = max (0, min (CHUNK, pl.row_bytes - byte0));
  const int y0 = tile_row * kWarps * args.rows_per_warp + warp;
  const int y1 = min (pl.rows, (tile_row + 1) * kWarps * args.rows_per_warp);
  const bool keyed = K != 0 && key_plane;

  WordAcc wa;
  ByteAcc ba;
  if constexpr (BPP == 3) {
#pragma unroll
    for (int b = 0; b < 3; b++) {
      ba.s[b] = ba.q[b] = ba.mx[b] = 0;
      ba.mn[b] = 255;
    }
  } else {
    word_acc_init (wa);
  }
  uint32_t black = 0, diff = 0;

  /* two rows' loads in flight before either is counted (four measured
   * slower on an H200: the registers halve the blocks per SM) */
  for (int y = y0; y < y1; y += 2 * kWarps) {
    const int y_next = y + kWarps;
    uint32_t w0[WORDS], w1[WORDS];
    load_row < BPP > (pl, y, byte0, valid, w0);
    if (y_next < y1)
      load_row < BPP > (pl, y_next, byte0, valid, w1);
    count_row < BPP, K > (args, keyed, w0, y, valid, chunk, wa, ba, black,
        diff, col, ws);
    if (y_next < y1)
      count_row < BPP, K > (args, keyed, w1, y_next, valid, chunk, wa, ba,
          black, diff, col, ws);
  }

  if constexpr (BPP == 3) {
#pragma unroll
    for (int b = 0; b < 3; b++)
      channel_add (acc, pl.channel[b], ba.s[b], ba.q[b], ba.mn[b], ba.mx[b]);
  } else {
    word_acc_fold < BPP > (wa, pl, acc);
  }
  acc.black += black;
  acc.diff += diff;
}

template < unsigned K > __device__ __forceinline__ void
count_tile_any (const LaunchArgs & args, const PlaneArgs & pl, bool key_plane,
    int tile_col, int tile_row, ChannelAcc & acc,
    uint32_t (&col)[kMaxChunkPixels], Workspace * ws)
{
  switch (pl.bpp) {
    case 1:
      count_tile < 1, K > (args, pl, key_plane, tile_col, tile_row, acc, col,
          ws);
      break;
    case 2:
      /* never the key plane (checked by the launcher) */
      count_tile < 2, 0 > (args, pl, false, tile_col, tile_row, acc, col, ws);
      break;
    case 3:
      count_tile < 3, K > (args, pl, key_plane, tile_col, tile_row, acc, col,
          ws);
      break;
    default:
      count_tile < 4, K > (args, pl, key_plane, tile_col, tile_row, acc, col,
          ws);
      break;
  }
}

__device__ __forceinline__ unsigned long long
warp_sum64 (unsigned long long v)
{
#pragma unroll
  for (int d = 16; d > 0; d >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, d);
  return v;
}

template < unsigned K > __global__ void __launch_bounds__ (kThreads)
sum_kernel (LaunchArgs args, Workspace * __restrict__ ws, int ws_max_height)
{
  __shared__ uint32_t smem[kWarps * 32 * kMaxChunkPixels];
  __shared__ unsigned long long block_u64[kWarps][10];
  __shared__ uint32_t block_u32[kWarps][8];
  __shared__ bool last_block;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  uint32_t *ws_columns = ws_rows (ws) + ws_max_height;

  ChannelAcc acc;
#pragma unroll
  for (int c = 0; c < 4; c++) {
    acc.sum[c] = acc.sq[c] = 0;
    acc.mn[c] = 255;
    acc.mx[c] = 0;
  }
  acc.black = acc.diff = 0;
  uint32_t col[kMaxChunkPixels];
#pragma unroll
  for (int k = 0; k < kMaxChunkPixels; k++)
    col[k] = 0;

  /* this block's contiguous range of tiles */
  const int t0 = (int) ((long long) args.n_tiles * blockIdx.x / gridDim.x);
  const int t1 = (int) ((long long) args.n_tiles * (blockIdx.x + 1) /
      gridDim.x);
  int col_tile = -1;            /* the key plane's tile column in `col` */
  for (int t = t0; t < t1; t++) {
    int p = 0;
    while (p + 1 < args.n_planes && t >= args.plane[p + 1].first_tile)
      p++;
    const PlaneArgs & pl = args.plane[p];
    int local = t - pl.first_tile;
    int tile_col = local / pl.tile_rows;
    int tile_row = local - tile_col * pl.tile_rows;

    if constexpr ((K & kProfiles) != 0) {
      /* block-uniform: every warp is on the same tile */
      if (col_tile >= 0 && (p != 0 || tile_col != col_tile)) {
        if (args.plane[0].bpp == 1)
          flush_columns < 1 > (col, col_tile, args.plane[0].width, ws_columns,
              smem);
        else if (args.plane[0].bpp == 3)
          flush_columns < 3 > (col, col_tile, args.plane[0].width, ws_columns,
              smem);
        else
          flush_columns < 4 > (col, col_tile, args.plane[0].width, ws_columns,
              smem);
        col_tile = -1;
      }
      if (p == 0)
        col_tile = tile_col;
    }
    count_tile_any < K > (args, pl, p == 0, tile_col, tile_row, acc, col, ws);
  }
  if constexpr ((K & kProfiles) != 0) {
    if (col_tile >= 0) {
      if (args.plane[0].bpp == 1)
        flush_columns < 1 > (col, col_tile, args.plane[0].width, ws_columns,
            smem);
      else if (args.plane[0].bpp == 3)
        flush_columns < 3 > (col, col_tile, args.plane[0].width, ws_columns,
            smem);
      else
        flush_columns < 4 > (col, col_tile, args.plane[0].width, ws_columns,
            smem);
    }
  }

  /* the block's totals: warps, then the block, then one atomic each */
#pragma unroll
  for (int c = 0; c < 4; c++) {
    unsigned long long s = warp_sum64 (acc.sum[c]);
    unsigned long long q = warp_sum64 (acc.sq[c]);
    uint32_t mn = warp_min (acc.mn[c]);
    uint32_t mx = warp_max (acc.mx[c]);
    if (lane == 0) {
      block_u64[warp][c] = s;
      block_u64[warp][4 + c] = q;
      block_u32[warp][c] = 255 - mn;
      block_u32[warp][4 + c] = mx;
    }
  }
  {
    unsigned long long b = warp_sum64 (acc.black);
    unsigned long long d = warp_sum64 (acc.diff);
    if (lane == 0) {
      block_u64[warp][8] = b;
      block_u64[warp][9] = d;
    }
  }
  __syncthreads ();
  if (threadIdx.x < 10) {
    unsigned long long v = 0;
    for (int w = 0; w < kWarps; w++)
      v += block_u64[w][threadIdx.x];
    /* sum[4], sum_squares[4], black, abs_diff: in that order */
    if (v)
      atomicAdd (&ws->sum[0] + threadIdx.x, v);
  } else if (threadIdx.x >= 32 && threadIdx.x < 40) {
    int i = threadIdx.x - 32;
    uint32_t v = 0;
    for (int w = 0; w < kWarps; w++)
      v = max (v, block_u32[w][i]);
    /* inv_min[4], max[4] */
    if (v)
      atomicMax (&ws->inv_min[0] + i, v);
  }

  /* the last block out publishes the totals and leaves zeros behind */
  __threadfence ();
  __syncthreads ();
  if (threadIdx.x == 0)
    last_block = atomicAdd (&ws->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads ();
  if (!last_block)
    return;
  __threadfence ();
  volatile Workspace *v = ws;
  if (threadIdx.x < 4) {
    int c = threadIdx.x;
    args.out->sum[c] = v->sum[c];
    args.out->sum_squares[c] = v->sum_squares[c];
    args.out->min[c] = 255 - v->inv_min[c];
    args.out->max[c] = v->max[c];
    v->sum[c] = v->sum_squares[c] = 0;
    v->inv_min[c] = v->max[c] = 0;
  } else if (threadIdx.x == 4) {
    args.out->black = v->black;
    args.out->abs_diff = v->abs_diff;
    v->black = v->abs_diff = 0;
    v->blocks_done = 0;
  }
  if constexpr ((K & kProfiles) != 0) {
    volatile uint32_t *rows = ws_rows (ws);
    volatile uint32_t *cols = ws_columns;
    for (int y = threadIdx.x; y < args.key_height; y += kThreads) {
      args.row_out[y] = rows[y];
      rows[y] = 0;
    }
    for (int x = threadIdx.x; x < args.key_width; x += kThreads) {
      args.column_out[x] = cols[x];
      cols[x] = 0;
    }
  }
}

typedef void (*SumKernel) (LaunchArgs, Workspace *, int);

template < unsigned K > SumKernel
kernel_for ()
{
  return sum_kernel < K >;
}

/* kernels by key features: profiles, black, previous */
const SumKernel kKernels[8] = {
  kernel_for < 0 > (), kernel_for < 1 > (), kernel_for < 2 > (),
  kernel_for < 3 > (), kernel_for < 4 > (), kernel_for < 5 > (),
  kernel_for < 6 > (), kernel_for < 7 > (),
};

/* Blocks resident on the whole device, per device and kernel. */
cudaError_t
resident_blocks (unsigned k, int *blocks)
{
  static int cached[64][8];
  int dev = 0, sms = 0, per_sm = 0;
  cudaError_t err;

  if ((err = cudaGetDevice (&dev)) != cudaSuccess)
    return err;
  if (dev >= 0 && dev < 64 && cached[dev][k]) {
    *blocks = cached[dev][k];
    return cudaSuccess;
  }
  if ((err = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
              dev)) != cudaSuccess
      || (err = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm,
              kKernels[k], kThreads, 0)) != cudaSuccess)
    return err;
  *blocks = sms * (per_sm > 0 ? per_sm : 1);
  if (dev >= 0 && dev < 64)
    cached[dev][k] = *blocks;
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

extern "C" CfError
cf_sum_planes (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, CfSumStats * stats, uint32_t * row_sums,
    uint32_t * column_sums, void *workspace, CfStream stream)
{
  LaunchArgs args = { };
  unsigned flags = key ? key->flags : 0;
  long long tile_columns = 0;

  if (n_planes < 0 || n_planes > CF_HIST_MAX_PLANES || !stats || !workspace
      || (n_planes > 0 && !planes)
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
    for (int b = 0; b < p0->bytes_per_pixel; b++)
      max_key += 255ull * key->weights[b];
    if (max_key >> 16 > 255 || max_key > UINT32_MAX
        || key->black_threshold < 0)
      return cudaErrorInvalidValue;
    if ((flags & CF_SUM_PROFILES) && (!row_sums || !column_sums))
      return cudaErrorInvalidValue;
    if ((flags & (CF_SUM_DIFF | CF_SUM_KEEP)) && (!key->previous
            || (uintptr_t) key->previous % 16 || key->previous_pitch % 16
            || (p0->height > 1 && key->previous_pitch < (size_t) p0->width)))
      return cudaErrorInvalidValue;
    args.flags = flags;
    for (int b = 0; b < 4; b++)
      args.weights[b] = b < p0->bytes_per_pixel ? key->weights[b] : 0;
    args.black_threshold = (uint32_t) key->black_threshold;
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
        || row_bytes > INT32_MAX / 2
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
    pl->row_bytes = (int) row_bytes;
    pl->rows = row_bytes > 0 ? in->height : 0;
    pl->bpp = bpp;
    pl->width = in->width;
    pl->tile_cols = (int) ((row_bytes + 32 * chunk - 1) / (32 * chunk));
    tile_columns += (long long) pl->tile_cols * pl->rows;
  }

  int resident = 0;
  unsigned k = ((flags & CF_SUM_PROFILES) ? 1 : 0) |
      ((flags & CF_SUM_BLACK) ? 2 : 0) |
      ((flags & (CF_SUM_DIFF | CF_SUM_KEEP)) ? 4 : 0);
  cudaError_t err;
  cf_forget_earlier_errors ();
  if ((err = resident_blocks (k, &resident)) != cudaSuccess)
    return err;

  /* Tiles: about four per resident block, so the blocks' ranges come out
   * even, but no lower than 8 rows (one per warp) nor higher than the
   * 16-bit sums allow.  tile_columns is the rows of all tile columns. */
  long long per_warp = (tile_columns + (long long) kWarps * 4 * resident - 1)
      / ((long long) kWarps * 4 * resident);
  if (per_warp < 1)
    per_warp = 1;
  if (per_warp > kMaxRowsPerWarp)
    per_warp = kMaxRowsPerWarp;
  args.rows_per_warp = (int) per_warp;
  long long tiles = 0;
  for (int p = 0; p < n_planes; p++) {
    PlaneArgs *pl = &args.plane[p];
    int tile_height = kWarps * args.rows_per_warp;
    pl->tile_rows = (pl->rows + tile_height - 1) / tile_height;
    pl->first_tile = (int) tiles;
    tiles += (long long) pl->tile_rows * pl->tile_cols;
    if (tiles > INT32_MAX)
      return cudaErrorInvalidValue;
  }
  args.n_tiles = (int) tiles;
  args.out = stats;
  args.row_out = row_sums;
  args.column_out = column_sums;

  int ws_max_height = n_planes > 0 ? planes[0].height : 0;
  args.key_width = n_planes > 0 ? planes[0].width : 0;
  args.key_height = ws_max_height;
  long long blocks = tiles < resident ? tiles : resident;
  if (blocks < 1)
    blocks = 1;                 /* an empty region still publishes zeros */
  kKernels[k] <<< (int) blocks, kThreads, 0, stream >>> (args,
      (Workspace *) workspace, ws_max_height);
  return cudaGetLastError ();
}
