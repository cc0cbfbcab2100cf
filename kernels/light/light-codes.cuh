/* light_codes_kernel: each pixel's code of max(R', G', B') counted
 * (docs/design/hdr.md), the same counts as cf_ref_light_codes_add and
 * cf_ref_light_codes_add_rgb10a2 (light-reference.c).  Tests
 * (kernels-light): test_light_codes_equals_reference,
 * test_light_rgb10a2_equals_reference.
 *
 * A thread takes a group of pixels of a row at a time: of Y'CbCr 8
 * (light-reads.cuh), each chroma sample's part of max(R', G', B')
 * computed once for the pixels it covers; of packed RGB 4
 * (light-rgb10a2.cuh).  The counters are 4096 32-bit words a block in shared
 * memory, one wave of large blocks (few blocks, few global atomics at
 * the end, as hist-words.cuh).  A thread adds a run of equal codes with one atomic,
 * and lanes whose last runs are the same (code and length) add theirs
 * with one: on flat content, most of a warp. */
#ifndef CUDAFILTERS_LIGHT_CODES_CUH
#define CUDAFILTERS_LIGHT_CODES_CUH

#include <stdint.h>

#include "light-reads.cuh"
#include "light-rgb10a2.cuh"

namespace {

constexpr int kLightBlockThreads = 1024;

/* Source: YCbCrLight or RgbLight (light-rgb10a2.cuh) */
template < typename Source > __global__ void
__launch_bounds__ (kLightBlockThreads)
light_codes_kernel (Source src, uint32_t * counts)
{
  __shared__ uint32_t local[CF_LIGHT_CODES];
  for (int i = threadIdx.x; i < CF_LIGHT_CODES; i += blockDim.x)
    local[i] = 0;
  __syncthreads ();

  const long long n = src.groups ();
  for (long long g = (long long) blockIdx.x * blockDim.x + threadIdx.x; g < n;
      g += (long long) gridDim.x * blockDim.x) {
    uint32_t run_code = 0, run = 0;
    src.visit_max_codes (g,[&](uint32_t code) {
          if (run && code != run_code) {
            atomicAdd (&local[run_code], run);
            run = 0;
          }
          run_code = code;
          run++;
        });
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
