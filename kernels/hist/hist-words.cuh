/* words_hist_kernel: the high-bit histogram (#48), not yet tuned.
 * Planes of 16-bit words, each a sample of `depth` bits at `shift`,
 * counted at 2^min(depth, 12) levels per channel (docs/design/
 * high-bit-depth.md, "cudahist").  A block counts its rows of one plane
 * (blockIdx.y) into counters of its own in shared memory, one 32-bit word
 * a level and channel (3 x 4096 x 4 = 48 KB at most), then adds the
 * non-zero ones into the global counts, which the launch zeroed first.
 * Words are read a byte at a time: any alignment.  The same counts as
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

__global__ void
words_hist_kernel (WordPlanes planes, int levels, uint32_t * counts)
{
  extern __shared__ uint32_t local[];   /* CF_HIST_WORD_CHANNELS x levels */
  const CfWordPlane & pl = planes.plane[blockIdx.y];
  const int n_local = CF_HIST_WORD_CHANNELS * levels;
  const int level_shift = pl.depth > 12 ? pl.depth - 12 : 0;
  const uint32_t mask = (1u << pl.depth) - 1;

  for (int i = threadIdx.x; i < n_local; i += blockDim.x)
    local[i] = 0;
  __syncthreads ();

  const int samples = pl.width * pl.words_per_pixel;
  for (int y = blockIdx.x; y < pl.height; y += gridDim.x) {
    const uint8_t *row = (const uint8_t *) pl.data + (size_t) y * pl.pitch;
    for (int i = threadIdx.x; i < samples; i += blockDim.x) {
      int channel = pl.channel[i % pl.words_per_pixel];
      if (channel < 0)
        continue;
      uint32_t word = row[2 * i] | (uint32_t) row[2 * i + 1] << 8;
      uint32_t level = ((word >> pl.shift) & mask) >> level_shift;
      atomicAdd (&local[channel * levels + level], 1u);
    }
  }
  __syncthreads ();

  for (int i = threadIdx.x; i < n_local; i += blockDim.x)
    if (local[i])
      atomicAdd (&counts[(i / levels) * CF_HIST_MAX_LEVELS + i % levels],
          local[i]);
}

}                               /* namespace */

#endif
