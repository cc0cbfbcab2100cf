/* words_hist_kernel: the high-bit histogram (#48).  Planes of 16-bit
 * words, each a sample of `depth` bits at `shift`, counted at
 * 2^min(depth, 12) levels per channel (docs/design/high-bit-depth.md,
 * "cudahist").
 *
 * The planes share the blocks in proportion to their bytes.  A block
 * counts its plane's words into counters of its own in shared memory: one
 * 32-bit word a level and word of a pixel (a plane holds at most two
 * channels, P010's U and V, so 2 x 4096 x 4 = 32 KB at most), or a level
 * and sample of a pixel of packed 10-bit RGB (3 x 1024 x 4 = 12 KB).
 * Then it adds the non-zero ones into the sums, which hold zeros before
 * the launch: the fewer the blocks, the fewer those global atomics, so a
 * block is large and there is one wave of them.
 *
 * A plane whose rows all start on 16 bytes (a decoder's or cudaupload's
 * frame) is read as one flat run of 16-byte vectors, a lane's two at a
 * time, whatever the rows' length, then the last words of each row that
 * make no whole vector.  Any other plane (a region of interest starting
 * mid-row, rows padded by an odd count) is read a row per block in turn,
 * from the row's first 16-byte boundary on, words before it one at a time
 * (a row at an odd address: two at a time, visit_row_words in
 * word-rows.cuh).  The same counts as
 * cf_ref_hist_word_planes (hist-reference.c).  Tests (kernels-hist):
 * test_hist_words_equals_reference. */
#ifndef CUDAFILTERS_HIST_WORDS_CUH
#define CUDAFILTERS_HIST_WORDS_CUH

#include <stdint.h>

#include "word-rows.cuh"

namespace {

/* threads of a block: as large as can be, for few blocks (at least 8:
 * count_rows gives each word before a row's first 16-byte boundary, at
 * most 7, a thread of its own) */
constexpr int kWordsBlockThreads = 1024;
static_assert (kWordsBlockThreads >= 8, "count_rows: a thread a head word");

struct WordPlanes
{
  CfWordPlane plane[CF_HIST_MAX_PLANES];
  /* blocks [first_block[p], first_block[p + 1]) count plane p */
  int first_block[CF_HIST_MAX_PLANES + 1];
  int n_planes;
};

struct WordCounter
{
  uint32_t *local;              /* words_per_pixel x levels */
  int levels;
  int shift;
  uint32_t mask;
  int level_shift;

  /* a word of the pixel's word @slot */
  __device__ void count (uint32_t word, int slot) const
  {
    uint32_t level = ((word >> shift) & mask) >> level_shift;
    atomicAdd (&local[slot * levels + level], 1u);
  }

  /* a pixel of packed 10-bit RGB: its samples from bit 0 up into slots
   * 0, 1 and 2 (depth 10: the level is the value) */
  __device__ void count_rgb10a2 (uint32_t pixel) const
  {
    atomicAdd (&local[pixel & 0x3ff], 1u);
    atomicAdd (&local[levels + (pixel >> 10 & 0x3ff)], 1u);
    atomicAdd (&local[2 * levels + (pixel >> 20 & 0x3ff)], 1u);
  }

  /* a vector of 8 words starting at word 0 of a pixel (of a plane of
   * packed 10-bit RGB with @rgb10a2) */
  __device__ void count8 (const uint4 & v, int wpp, bool rgb10a2) const
  {
    const uint32_t parts[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int k = 0; k < 4; k++) {
      if (rgb10a2) {
        count_rgb10a2 (parts[k]);
      } else {
        count (parts[k] & 0xffff, 0);
        count (parts[k] >> 16, wpp - 1);
      }
    }
  }

  /* word @i of a row of @pl's words (of packed 10-bit RGB: its pixel at
   * even i, nothing at odd) */
  __device__ void count_word (const CfWordPlane & pl, const uint16_t * words,
      int i) const
  {
    if (!pl.rgb10a2)
      count (words[i], i % pl.words_per_pixel);
    else if (!(i & 1))
      count_rgb10a2 (*(const uint32_t *) (words + i));
  }
};

/* Any plane: a row per block in turn (blocks @block of @blocks). */
__device__ void
count_rows (const CfWordPlane & pl, int block, int blocks,
    const WordCounter & c)
{
  const int wpp = pl.words_per_pixel;
  const int samples = cf_word_plane_row_words (&pl);
  for (int y = block; y < pl.height; y += blocks) {
    const uint8_t *row = (const uint8_t *) pl.data + (size_t) y * pl.pitch;
    if ((uintptr_t) row & 1) {
      visit_row_words (row, samples, threadIdx.x, blockDim.x,
          [&](int i, uint32_t word) {
            c.count (word, i % wpp);
          });
      continue;
    }
    const uint16_t *words = (const uint16_t *) row;
    int head = (int) ((16 - ((uintptr_t) row & 15)) & 15) / 2;
    head = head < samples ? head : samples;
    const int n_vec = (samples - head) / 8;
    if ((int) threadIdx.x < head)
      c.count_word (pl, words, threadIdx.x);
    const uint4 *vec = (const uint4 *) (words + head);
    /* a vector's words start at an index of head's parity (packed 10-bit
     * RGB: rows on 4 bytes, so at a pixel) */
    const int first = head % wpp;
    for (int j = threadIdx.x; j < n_vec; j += blockDim.x) {
      const uint4 v = vec[j];
      if (pl.rgb10a2) {
        c.count8 (v, wpp, true);
        continue;
      }
      const uint32_t parts[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
      for (int k = 0; k < 4; k++) {
        c.count (parts[k] & 0xffff, first);
        c.count (parts[k] >> 16, (first + 1) % wpp);
      }
    }
    for (int i = head + 8 * n_vec + threadIdx.x; i < samples; i += blockDim.x)
      c.count_word (pl, words, i);
  }
}

/* A plane of rows on 16 bytes: its vectors as one flat run, thread @t of
 * @threads; then each row's last words. */
__device__ void
count_flat (const CfWordPlane & pl, int t, int threads, const WordCounter & c)
{
  const int wpp = pl.words_per_pixel;
  const int samples = cf_word_plane_row_words (&pl);
  const int row_vecs = samples / 8;
  const uint8_t *base = (const uint8_t *) pl.data;

  if (row_vecs > 0) {
    const long long n = (long long) row_vecs * pl.height;
    /* (y, j): vector j of row y, stepped by `threads` vectors */
    const int dy = threads / row_vecs, dj = threads % row_vecs;
    int y = t / row_vecs, j = t % row_vecs;
    for (long long k = t; k < n; k += 2 * (long long) threads) {
      const uint4 a = *(const uint4 *) (base + (size_t) y * pl.pitch + 16 * j);
      y += dy;
      j += dj;
      if (j >= row_vecs) {
        j -= row_vecs;
        y++;
      }
      const bool has_b = k + threads < n;
      uint4 b = make_uint4 (0, 0, 0, 0);
      if (has_b)
        b = *(const uint4 *) (base + (size_t) y * pl.pitch + 16 * j);
      y += dy;
      j += dj;
      if (j >= row_vecs) {
        j -= row_vecs;
        y++;
      }
      c.count8 (a, wpp, pl.rgb10a2);
      if (has_b)
        c.count8 (b, wpp, pl.rgb10a2);
    }
  }
  const int tail = samples - 8 * row_vecs;
  if (tail > 0) {
    const long long n = (long long) tail * pl.height;
    for (long long k = t; k < n; k += threads) {
      const int y = (int) (k / tail), i = 8 * row_vecs + (int) (k % tail);
      c.count_word (pl, (const uint16_t *) (base + (size_t) y * pl.pitch),
          i);
    }
  }
}

__global__ void
__launch_bounds__ (kWordsBlockThreads)
words_hist_kernel (WordPlanes planes, int levels, uint32_t * sums,
    uint32_t * zero_next)
{
  extern __shared__ uint32_t local[];
  int p = 0;
  while (p + 1 < planes.n_planes
      && (int) blockIdx.x >= planes.first_block[p + 1])
    p++;
  const CfWordPlane & pl = planes.plane[p];
  const int block = blockIdx.x - planes.first_block[p];
  const int blocks = planes.first_block[p + 1] - planes.first_block[p];
  /* a slot a word of the pixel, or a sample of packed 10-bit RGB */
  const int slots = pl.rgb10a2 ? 3 : pl.words_per_pixel;
  const int n_local = slots * levels;
  const WordCounter counter = { local, levels, pl.shift,
    (1u << pl.depth) - 1, pl.depth > 12 ? pl.depth - 12 : 0
  };

  for (int i = threadIdx.x; i < n_local; i += blockDim.x)
    local[i] = 0;
  /* the next frame's sums */
  if (zero_next)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x;
        i < CF_HIST_WORD_CHANNELS * levels; i += gridDim.x * blockDim.x)
      zero_next[i] = 0;
  __syncthreads ();

  if (pl.width > 0 && pl.height > 0) {
    if (((uintptr_t) pl.data & 15) == 0 && (pl.pitch & 15) == 0)
      count_flat (pl, block * blockDim.x + threadIdx.x, blocks * blockDim.x,
          counter);
    else
      count_rows (pl, block, blocks, counter);
  }
  __syncthreads ();

  for (int i = threadIdx.x; i < n_local; i += blockDim.x) {
    const int channel = pl.rgb10a2 ? cf_rgb10a2_channel (&pl, i / levels) :
        pl.channel[i / levels];
    if (local[i] && channel >= 0)
      atomicAdd (&sums[channel * levels + i % levels], local[i]);
  }
}

}                               /* namespace */

#endif
