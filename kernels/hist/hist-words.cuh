/* words_hist_kernel: the high-bit histogram (#48).  Planes of 16-bit
 * words, each a sample of `depth` bits at `shift`, counted at
 * 2^min(depth, 12) levels per channel (docs/design/high-bit-depth.md,
 * "cudahist").
 *
 * A block counts rows of one plane (blockIdx.y) into counters of its own
 * in shared memory: one 32-bit word a level and word of a pixel (a plane
 * holds at most two channels, P010's U and V, so 2 x 4096 x 4 = 32 KB at
 * most).  Then it adds the non-zero ones into the sums, which hold zeros
 * before the launch.  A row is read 16 bytes a lane from its first
 * 16-byte boundary on, the words before it and after the last whole 16
 * bytes one at a time; a row at an odd address (a region of a plane
 * mapped at one) is read a byte at a time.  The same counts as
 * cf_ref_hist_word_planes (hist-reference.c).  Tests (kernels-hist):
 * test_hist_words_equals_reference. */
#ifndef CUDAFILTERS_HIST_WORDS_CUH
#define CUDAFILTERS_HIST_WORDS_CUH

#include <stdint.h>

namespace {

struct WordPlanes
{
  CfWordPlane plane[CF_HIST_MAX_PLANES];
};

/* threads of a block: 8 warps keep several blocks resident next to their
 * counters */
constexpr int kWordsBlockThreads = 256;

struct WordCounter
{
  uint32_t *local;              /* words_per_pixel x levels */
  int levels;
  int shift;
  uint32_t mask;
  int level_shift;

  /* word @i of a row (its pixel's word i % wpp) */
  __device__ void count (uint32_t word, int slot) const
  {
    uint32_t level = ((word >> shift) & mask) >> level_shift;
    atomicAdd (&local[slot * levels + level], 1u);
  }
};

/* Counts the @samples words of @row, whose first word is word 0 of a
 * pixel of @wpp words. */
__device__ void
count_row (const uint8_t * row, int samples, int wpp, const WordCounter & c)
{
  if ((uintptr_t) row & 1) {
    for (int i = threadIdx.x; i < samples; i += blockDim.x)
      c.count (row[2 * i] | (uint32_t) row[2 * i + 1] << 8, i % wpp);
    return;
  }
  const uint16_t *words = (const uint16_t *) row;
  int head = (int) ((16 - ((uintptr_t) row & 15)) & 15) / 2;
  head = head < samples ? head : samples;
  const int n_vec = (samples - head) / 8;
  const int tail = head + 8 * n_vec;

  if ((int) threadIdx.x < head)
    c.count (words[threadIdx.x], threadIdx.x % wpp);
  const uint4 *vec = (const uint4 *) (words + head);
  /* the 8 words of a vector start at an index of head's parity */
  const int first_slot = head % wpp;
  for (int j = threadIdx.x; j < n_vec; j += blockDim.x) {
    const uint4 v = vec[j];
    const uint32_t parts[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int k = 0; k < 4; k++) {
      c.count (parts[k] & 0xffff, first_slot);
      c.count (parts[k] >> 16, wpp == 2 ? first_slot ^ 1 : 0);
    }
  }
  for (int i = tail + threadIdx.x; i < samples; i += blockDim.x)
    c.count (words[i], i % wpp);
}

__global__ void
__launch_bounds__ (kWordsBlockThreads)
words_hist_kernel (WordPlanes planes, int levels, uint32_t * sums,
    uint32_t * zero_next)
{
  extern __shared__ uint32_t local[];
  const CfWordPlane & pl = planes.plane[blockIdx.y];
  const int wpp = pl.words_per_pixel;
  const int n_local = wpp * levels;
  const WordCounter counter = { local, levels, pl.shift,
    (1u << pl.depth) - 1, pl.depth > 12 ? pl.depth - 12 : 0
  };

  for (int i = threadIdx.x; i < n_local; i += blockDim.x)
    local[i] = 0;
  /* the next frame's sums, zeroed by the first plane's blocks */
  if (zero_next && blockIdx.y == 0)
    for (int i = blockIdx.x * blockDim.x + threadIdx.x;
        i < CF_HIST_WORD_CHANNELS * levels; i += gridDim.x * blockDim.x)
      zero_next[i] = 0;
  __syncthreads ();

  const int samples = pl.width * wpp;
  for (int y = blockIdx.x; y < pl.height; y += gridDim.x)
    count_row ((const uint8_t *) pl.data + (size_t) y * pl.pitch, samples,
        wpp, counter);
  __syncthreads ();

  for (int i = threadIdx.x; i < n_local; i += blockDim.x) {
    const int channel = pl.channel[i / levels];
    if (local[i] && channel >= 0)
      atomicAdd (&sums[channel * levels + i % levels], local[i]);
  }
}

}                               /* namespace */

#endif
