/* words_stats_kernel: the high-bit statistics (#48).  Planes of 16-bit
 * words, each a sample of `depth` bits at `shift` (CfWordPlane): per
 * channel the sum of the values and of their squares, their min and max;
 * and, for the profiles and detectors, plane 0 written out at 8 bits
 * (cf_sum_word_planes_add in sum.cu, whose comment says why).
 *
 * The planes share one wave of blocks in proportion to their bytes, as
 * the high-bit histogram's do (hist-words.cuh), and are read the same
 * ways: a plane whose rows all start on 16 bytes as one flat run of
 * 16-byte vectors, any other a row per block in turn (visit_row_words,
 * word-rows.cuh).  A thread sums each word of a pixel (at most two: P010's
 * U and V), or each sample of a pixel of packed 10-bit RGB
 * (stats_rgb10a2), in 64-bit totals; in a vector of words it takes two
 * side by side in 16-bit lanes, for min and max of both in one
 * instruction.  After its plane a block reduces its threads (warp
 * shuffles, then shared memory) and adds its totals into the sums with one
 * atomic each.  Min is kept as the max of 2^32 - 1 - v, so that zeroed
 * sums are the start.  The same results as cf_ref_sum_word_planes
 * (sum-reference.c).  Tests (kernels-sum): test_sum_words_equals_reference,
 * test_sum_rgb10a2_equals_reference. */
#ifndef CUDAFILTERS_SUM_WORDS_CUH
#define CUDAFILTERS_SUM_WORDS_CUH

#include <stdint.h>

#include "word-rows.cuh"

namespace {

/* threads of a block: 256, so that five blocks fit an SM's registers */
constexpr int kWordStatsThreads = 256;
constexpr int kWordStatsWarps = kWordStatsThreads / 32;

/* the device sums of a frame */
struct WordSums
{
  unsigned long long sum[CF_HIST_WORD_CHANNELS];
  unsigned long long sum_squares[CF_HIST_WORD_CHANNELS];
  uint32_t min_inverted[CF_HIST_WORD_CHANNELS];
  uint32_t max[CF_HIST_WORD_CHANNELS];
};

struct WordStatsArgs
{
  CfWordPlane plane[CF_HIST_MAX_PLANES];
  /* blocks [first_block[p], first_block[p + 1]) read plane p */
  int first_block[CF_HIST_MAX_PLANES + 1];
  int n_planes;
  uint8_t *key8;
  size_t key8_pitch;
  uint32_t *zero_next;
  size_t zero_words;
};

/* a thread's totals of one word of a pixel */
struct SlotTotals
{
  unsigned long long sum, squares;
  uint32_t min, max;

  __device__ void add (uint32_t v)
  {
    sum += v;
    squares += v * v;           /* v < 2^16: the square fits 32 bits */
    min = v < min ? v : min;
    max = v > max ? v : max;
  }
};

struct WordReader
{
  int shift;
  uint32_t mask;
  int key_shift;                /* depth - 8 */

  __device__ uint32_t value (uint32_t word) const
  {
    return (word >> shift) & mask;
  }
};

/* (the totals of the two words of a pixel are two variables, not an
 * array: an array indexed at run time would live in local memory) */

/* Any plane: a row per block in turn. */
__device__ void
stats_rows (const CfWordPlane & pl, int block, int blocks,
    const WordReader & r, uint8_t * key8, size_t key8_pitch,
    SlotTotals & t0, SlotTotals & t1)
{
  const int wpp = pl.words_per_pixel;
  const int samples = cf_word_plane_row_words (&pl);
  for (int y = block; y < pl.height; y += blocks) {
    const uint8_t *row = (const uint8_t *) pl.data + (size_t) y * pl.pitch;
    visit_row_words (row, samples, threadIdx.x, blockDim.x,
        [&](int i, uint32_t word) {
          uint32_t v = r.value (word);
          if (wpp == 2 && (i & 1))
            t1.add (v);
          else
            t0.add (v);
          if (key8)             /* (plane 0: one word a pixel) */
            key8[(size_t) y * key8_pitch + i] = (uint8_t) (v >> r.key_shift);
        });
  }
}

/* A thread's totals of the words of its vectors by their place in a
 * 32-bit word, the even (lo) and the odd (hi): two samples side by side in
 * 16-bit lanes, whose min and max take one instruction for both. */
struct LaneTotals
{
  unsigned long long sum_lo, sum_hi, squares_lo, squares_hi;
  uint32_t min2, max2;          /* lo in bits 0-15, hi in 16-31 */

  /* 8 words, word 0 at an even place; their key bytes into @key */
  __device__ void add8 (const uint4 & v, const WordReader & r,
      uint32_t key[2])
  {
    const uint32_t parts[4] = { v.x, v.y, v.z, v.w };
    const uint32_t mask2 = r.mask | r.mask << 16;
    uint32_t lo_sum = 0, hi_sum = 0;
#pragma unroll
    for (int q = 0; q < 4; q++) {
      /* (depth + shift <= 16: the lo sample's bits stay in its lane) */
      const uint32_t two = (parts[q] >> r.shift) & mask2;
      const uint32_t lo = two & 0xffff, hi = two >> 16;
      lo_sum += lo;
      hi_sum += hi;
      squares_lo += (unsigned long long) lo *lo;
      squares_hi += (unsigned long long) hi *hi;
      min2 = __vminu2 (min2, two);
      max2 = __vmaxu2 (max2, two);
      key[q / 2] |= ((lo >> r.key_shift) | (hi >> r.key_shift) << 8)
          << (16 * (q % 2));
    }
    sum_lo += lo_sum;
    sum_hi += hi_sum;
  }

  /* into the totals of the words of a pixel of @wpp words */
  __device__ void fold (int wpp, SlotTotals & t0, SlotTotals & t1) const
  {
    const uint32_t min_lo = min2 & 0xffff, min_hi = min2 >> 16;
    const uint32_t max_lo = max2 & 0xffff, max_hi = max2 >> 16;
    /* (a lane that saw nothing holds 0xffff and 0: min past max) */
    merge (t0, sum_lo, squares_lo, min_lo, max_lo);
    if (wpp == 2)
      merge (t1, sum_hi, squares_hi, min_hi, max_hi);
    else
      merge (t0, sum_hi, squares_hi, min_hi, max_hi);
  }

  __device__ static void merge (SlotTotals & t, unsigned long long sum,
      unsigned long long squares, uint32_t least, uint32_t most)
  {
    t.sum += sum;
    t.squares += squares;
    if (least <= most) {
      t.min = min (t.min, least);
      t.max = max (t.max, most);
    }
  }
};

/* vectors a lane loads at once, in flight while it counts the previous
 * ones */
constexpr int kStatsVectors = 2;

/* A plane of rows on 16 bytes: its vectors as one flat run, thread @t of
 * @threads, a lane loading its next two while it adds two; then each
 * row's last words. */
__device__ void
stats_flat (const CfWordPlane & pl, int t, int threads, const WordReader & r,
    uint8_t * key8, size_t key8_pitch, SlotTotals & t0, SlotTotals & t1)
{
  const int wpp = pl.words_per_pixel;
  const int samples = cf_word_plane_row_words (&pl);
  const int row_vecs = samples / 8;
  const uint8_t *base = (const uint8_t *) pl.data;

  if (row_vecs > 0) {
    const long long n = (long long) row_vecs * pl.height;
    LaneTotals lanes = { 0, 0, 0, 0, 0xffffffffu, 0 };
    /* (y, j): the lane's next vector, j of row y, stepped by `threads`
     * vectors; k: its index in the run */
    const int dy = threads / row_vecs, dj = threads % row_vecs;
    int y = t / row_vecs, j = t % row_vecs;
    long long k = t;
    auto load =[&](int &vy, int &vj) {
      uint4 v = make_uint4 (0, 0, 0, 0);
      vy = y;
      vj = j;
      if (k < n)
        v = *(const uint4 *) (base + (size_t) y * pl.pitch + 16 * j);
      k += threads;
      y += dy;
      j += dj;
      if (j >= row_vecs) {
        j -= row_vecs;
        y++;
      }
      return v;
    };
    uint4 v[kStatsVectors];
    int vy[kStatsVectors], vj[kStatsVectors];
#pragma unroll
    for (int u = 0; u < kStatsVectors; u++)
      v[u] = load (vy[u], vj[u]);
    for (long long first = t; first < n;
        first += kStatsVectors * (long long) threads) {
      uint4 next[kStatsVectors];
      int ny[kStatsVectors], nj[kStatsVectors];
#pragma unroll
      for (int u = 0; u < kStatsVectors; u++)
        next[u] = load (ny[u], nj[u]);
#pragma unroll
      for (int u = 0; u < kStatsVectors; u++) {
        if (first + u * (long long) threads < n) {
          uint32_t key[2] = { 0, 0 };
          lanes.add8 (v[u], r, key);
          if (key8)
            *(uint2 *) (key8 + (size_t) vy[u] * key8_pitch + 8 * vj[u]) =
                make_uint2 (key[0], key[1]);
        }
        v[u] = next[u];
        vy[u] = ny[u];
        vj[u] = nj[u];
      }
    }
    lanes.fold (wpp, t0, t1);
  }
  const int tail = samples - 8 * row_vecs;
  if (tail > 0) {
    const long long n = (long long) tail * pl.height;
    for (long long k = t; k < n; k += threads) {
      const int y = (int) (k / tail), i = 8 * row_vecs + (int) (k % tail);
      uint32_t v = r.value (((const uint16_t *) (base +
                  (size_t) y * pl.pitch))[i]);
      if (wpp == 2 && (i & 1))
        t1.add (v);
      else
        t0.add (v);
      if (key8)
        key8[(size_t) y * key8_pitch + i] = (uint8_t) (v >> r.key_shift);
    }
  }
}

/* A plane of packed 10-bit RGB (rows on 4 bytes): the samples of each
 * pixel, from bit 0 up, into @t0, @t1 and @t2.  Rows on 16 bytes as one
 * flat run of 16-byte vectors, thread @t of @threads, then each row's last
 * pixels; any other plane a row per block in turn, a pixel a thread. */
__device__ void
stats_rgb10a2 (const CfWordPlane & pl, int block, int blocks,
    SlotTotals & t0, SlotTotals & t1, SlotTotals & t2)
{
  const uint8_t *base = (const uint8_t *) pl.data;
  auto add =[&](uint32_t pixel) {
    t0.add (pixel & 0x3ff);
    t1.add (pixel >> 10 & 0x3ff);
    t2.add (pixel >> 20 & 0x3ff);
  };
  if (((uintptr_t) base & 15) || (pl.pitch & 15)) {
    for (int y = block; y < pl.height; y += blocks) {
      const uint32_t *row = (const uint32_t *) (base + (size_t) y * pl.pitch);
      for (int x = threadIdx.x; x < pl.width; x += blockDim.x)
        add (row[x]);
    }
    return;
  }
  const int t = block * blockDim.x + threadIdx.x, threads = blocks * blockDim.x;
  const int row_vecs = pl.width / 4;
  if (row_vecs > 0) {
    const long long n = (long long) row_vecs * pl.height;
    /* (y, j): vector j of row y, stepped by `threads` vectors */
    const int dy = threads / row_vecs, dj = threads % row_vecs;
    int y = t / row_vecs, j = t % row_vecs;
    for (long long k = t; k < n; k += threads) {
      const uint4 v = *(const uint4 *) (base + (size_t) y * pl.pitch + 16 * j);
      add (v.x);
      add (v.y);
      add (v.z);
      add (v.w);
      y += dy;
      j += dj;
      if (j >= row_vecs) {
        j -= row_vecs;
        y++;
      }
    }
  }
  const int tail = pl.width - 4 * row_vecs;
  if (tail > 0) {
    const long long n = (long long) tail * pl.height;
    for (long long k = t; k < n; k += threads) {
      const int y = (int) (k / tail), x = 4 * row_vecs + (int) (k % tail);
      add (((const uint32_t *) (base + (size_t) y * pl.pitch))[x]);
    }
  }
}

/* (warp_min and warp_max: sum-device.cuh) */
__device__ unsigned long long
warp_sum (unsigned long long v)
{
  for (int d = 16; d > 0; d /= 2)
    v += __shfl_down_sync (0xffffffffu, v, d);
  return v;
}

__global__ void
__launch_bounds__ (kWordStatsThreads)
words_stats_kernel (WordStatsArgs args, WordSums * sums)
{
  __shared__ SlotTotals warp_totals[3][kWordStatsWarps];
  int p = 0;
  while (p + 1 < args.n_planes && (int) blockIdx.x >= args.first_block[p + 1])
    p++;
  const CfWordPlane & pl = args.plane[p];
  const int block = blockIdx.x - args.first_block[p];
  const int blocks = args.first_block[p + 1] - args.first_block[p];
  const WordReader reader = { pl.shift, (1u << pl.depth) - 1, pl.depth - 8 };
  uint8_t *key8 = p == 0 ? args.key8 : nullptr;
  SlotTotals t0 = { 0, 0, UINT32_MAX, 0 }, t1 = t0, t2 = t0;
  /* a slot a word of the pixel, or a sample of packed 10-bit RGB */
  const int slots = pl.rgb10a2 ? 3 : pl.words_per_pixel;

  if (args.zero_next)
    for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
        i < args.zero_words; i += (size_t) gridDim.x * blockDim.x)
      args.zero_next[i] = 0;

  if (pl.width > 0 && pl.height > 0) {
    if (pl.rgb10a2)
      stats_rgb10a2 (pl, block, blocks, t0, t1, t2);
    else if (((uintptr_t) pl.data & 15) == 0 && (pl.pitch & 15) == 0)
      stats_flat (pl, block * blockDim.x + threadIdx.x, blocks * blockDim.x,
          reader, key8, args.key8_pitch, t0, t1);
    else
      stats_rows (pl, block, blocks, reader, key8, args.key8_pitch, t0, t1);
  }

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  auto reduce_warp =[&](const SlotTotals & mine, int s) {
    SlotTotals w = { warp_sum (mine.sum), warp_sum (mine.squares),
      warp_min (mine.min), warp_max (mine.max)
    };
    if (lane == 0)
      warp_totals[s][warp] = w;
  };
  reduce_warp (t0, 0);
  if (slots > 1)
    reduce_warp (t1, 1);
  if (slots > 2)
    reduce_warp (t2, 2);
  __syncthreads ();
  if (warp == 0) {
    for (int s = 0; s < slots; s++) {
      SlotTotals w = lane < kWordStatsWarps ? warp_totals[s][lane] :
          SlotTotals { 0, 0, UINT32_MAX, 0 };
      w.sum = warp_sum (w.sum);
      w.squares = warp_sum (w.squares);
      w.min = warp_min (w.min);
      w.max = warp_max (w.max);
      const int c = pl.rgb10a2 ? cf_rgb10a2_channel (&pl, s) : pl.channel[s];
      if (lane == 0 && c >= 0 && w.max >= w.min) {
        atomicAdd (&sums->sum[c], w.sum);
        atomicAdd (&sums->sum_squares[c], w.squares);
        atomicMax (&sums->min_inverted[c], UINT32_MAX - w.min);
        atomicMax (&sums->max[c], w.max);
      }
    }
  }
}

}                               /* namespace */

#endif
