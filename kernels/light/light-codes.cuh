/* light_codes_kernel: each pixel's code of max(R', G', B') counted
 * (docs/design/hdr.md), the same counts as cf_ref_light_codes_add
 * (light-reference.c).  Tests (kernels-light):
 * test_light_codes_equals_reference.
 *
 * A thread takes 8 pixels of a row at a time: their luma as one 16-byte
 * vector where the row allows, and each chroma sample once, its part of
 * max(R', G', B') computed once for the pixels it covers.  The counters
 * are 4096 32-bit words a block in shared memory, one wave of large
 * blocks (few blocks, few global atomics at the end, as
 * hist-words.cuh).  A thread adds a run of equal codes with one atomic,
 * and lanes whose last runs are the same (code and length) add theirs
 * with one: on flat content, most of a warp. */
#ifndef CUDAFILTERS_LIGHT_CODES_CUH
#define CUDAFILTERS_LIGHT_CODES_CUH

#include <stdint.h>

namespace {

constexpr int kLightBlockThreads = 1024;
constexpr int kLightGroup = 8;          /* pixels a thread takes at once */

/* how the launch reads the frame, the same for every thread */
struct LightReads
{
  bool luma_vectors;            /* rows and luma on 16 bytes */
  bool luma_words;              /* rows and luma on 2 bytes */
  bool chroma_words;            /* cb, cr and chroma rows on 2 bytes */
};

__device__ __forceinline__ uint32_t
word_at (const uint8_t * row, int index, bool aligned)
{
  if (aligned)
    return ((const uint16_t *) row)[index];
  const uint8_t *p = row + 2 * index;
  return p[0] | (uint32_t) p[1] << 8;
}

__global__ void
__launch_bounds__ (kLightBlockThreads)
light_codes_kernel (CfYCbCrWords f, CfMaxRgb m, LightReads reads,
    uint32_t * counts)
{
  __shared__ uint32_t local[CF_LIGHT_CODES];
  for (int i = threadIdx.x; i < CF_LIGHT_CODES; i += blockDim.x)
    local[i] = 0;
  __syncthreads ();

  const uint32_t mask = (uint32_t) ((1u << f.depth) - 1);
  const int groups_x = (f.width + kLightGroup - 1) / kLightGroup;
  const long long n = (long long) groups_x * f.height;
  for (long long g = (long long) blockIdx.x * blockDim.x + threadIdx.x; g < n;
      g += (long long) gridDim.x * blockDim.x) {
    const int y = (int) (g / groups_x);
    const int x0 = (int) (g % groups_x) * kLightGroup;
    const uint8_t *luma = (const uint8_t *) f.luma + (size_t) y * f.luma_pitch;
    const size_t chroma_row = (size_t) ((y + f.phase_y) >> f.sub_y) *
        f.chroma_pitch;
    const uint8_t *cb_row = (const uint8_t *) f.cb + chroma_row;
    const uint8_t *cr_row = (const uint8_t *) f.cr + chroma_row;

    uint32_t words[kLightGroup];
    if (reads.luma_vectors && x0 + kLightGroup <= f.width) {
      const uint4 v = *(const uint4 *) (luma + 2 * x0);
      const uint32_t parts[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
      for (int k = 0; k < 4; k++) {
        words[2 * k] = parts[k] & 0xffff;
        words[2 * k + 1] = parts[k] >> 16;
      }
    } else {
#pragma unroll
      for (int k = 0; k < kLightGroup; k++)
        words[k] = x0 + k < f.width ?
            word_at (luma, x0 + k, reads.luma_words) : 0;
    }

    int chroma_index = -1;
    int64_t chroma = 0;
    uint32_t run_code = 0, run = 0;
#pragma unroll
    for (int k = 0; k < kLightGroup; k++) {
      if (x0 + k < f.width) {
        const int ci = ((x0 + k + f.phase_x) >> f.sub_x) * f.chroma_step;
        if (ci != chroma_index) {
          const uint32_t cb = word_at (cb_row, ci, reads.chroma_words);
          const uint32_t cr = word_at (cr_row, ci, reads.chroma_words);
          chroma = cf_max_rgb_chroma (&m, (int32_t) ((cb >> f.shift) & mask),
              (int32_t) ((cr >> f.shift) & mask));
          chroma_index = ci;
        }
        const uint32_t code = cf_max_rgb_code_of (&m,
            (int32_t) ((words[k] >> f.shift) & mask), chroma);
        if (run && code != run_code) {
          atomicAdd (&local[run_code], run);
          run = 0;
        }
        run_code = code;
        run++;
      }
    }
    /* (every lane has a run: a group holds at least one pixel) */
    const unsigned peers = __match_any_sync (__activemask (),
        run_code << 4 | run);
    if ((int) (threadIdx.x & 31) == __ffs (peers) - 1)
      atomicAdd (&local[run_code], run * __popc (peers));
  }
  __syncthreads ();

  for (int i = threadIdx.x; i < CF_LIGHT_CODES; i += blockDim.x)
    if (local[i])
      atomicAdd (&counts[i], local[i]);
}

}                               /* namespace */

#endif
