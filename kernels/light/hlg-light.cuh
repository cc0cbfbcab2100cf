/* hlg_light_kernel: each pixel's HLG display light (cf_hlg_light), the
 * frame's largest and their sum (docs/design/hdr.md), the same as
 * cf_ref_hlg_light_add and cf_ref_hlg_light_add_rgb10a2
 * (light-reference.c).  Tests (kernels-light):
 * test_light_codes_equals_reference and
 * test_light_rgb10a2_equals_reference, which check both kernels on each
 * frame.
 *
 * A thread takes a group of pixels of a row at a time, as
 * light_codes_kernel does (of Y'CbCr, each chroma sample's parts of R',
 * G' and B' computed once for the pixels it covers).  The scene light of the 4096 codes (16 KB) is copied into each
 * block's shared memory, which the three lookups of every pixel read;
 * the gain (256 KB, too large for it) is read from global memory through
 * the read-only cache, where neighbouring pixels of near luminance find
 * the same lines.  A thread keeps its largest light and its sum, a warp combines
 * them by shuffles, a block in shared memory, and one wave of blocks adds
 * one maximum and one sum each to the frame's. */
#ifndef CUDAFILTERS_HLG_LIGHT_CUH
#define CUDAFILTERS_HLG_LIGHT_CUH

#include <stdint.h>

#include "light-reads.cuh"
#include "light-rgb10a2.cuh"

namespace {

/* (3 blocks an SM: at most 40 registers, YCbCrLight's, none spilled) */
constexpr int kHlgBlockThreads = 512;

/* Source: YCbCrLight or RgbLight (light-rgb10a2.cuh) */
template < typename Source > __global__ void
__launch_bounds__ (kHlgBlockThreads, 3)
hlg_light_kernel (Source src, const CfHlgTables * __restrict__ tables,
    CfHlgSums * sums)
{
  __shared__ uint32_t scene[CF_LIGHT_CODES];
  __shared__ uint32_t block_max;
  __shared__ unsigned long long block_sum;
  for (int i = threadIdx.x; i < CF_LIGHT_CODES; i += blockDim.x)
    scene[i] = tables->scene[i];
  if (threadIdx.x == 0) {
    block_max = 0;
    block_sum = 0;
  }
  const uint32_t weights[3] = { tables->weights[0], tables->weights[1],
    tables->weights[2]
  };
  const uint32_t *__restrict__ gain = tables->gain;
  __syncthreads ();

  const long long n = src.groups ();
  uint32_t top = 0;
  unsigned long long sum = 0;
  for (long long g = (long long) blockIdx.x * blockDim.x + threadIdx.x; g < n;
      g += (long long) gridDim.x * blockDim.x) {
    src.visit_rgb_codes (g,[&](const uint32_t codes[3]) {
          const uint32_t light = cf_hlg_light_of_scene (weights, gain,
              scene[codes[0]], scene[codes[1]], scene[codes[2]]);
          top = light > top ? light : top;
          sum += light;
        });
  }

#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const uint32_t other = __shfl_xor_sync (0xffffffffu, top, offset);
    top = other > top ? other : top;
    sum += __shfl_xor_sync (0xffffffffu, sum, offset);
  }
  if ((threadIdx.x & 31) == 0) {
    atomicMax (&block_max, top);
    atomicAdd (&block_sum, sum);
  }
  __syncthreads ();
  if (threadIdx.x == 0 && (block_max || block_sum)) {
    atomicMax (&sums->max, block_max);
    atomicAdd ((unsigned long long *) &sums->sum, block_sum);
  }
}

}                               /* namespace */

#endif
