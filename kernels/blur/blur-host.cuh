/* What blur.cu and blur-words.cu share on the host: the check of a
 * kernel's weights and the shared memory a launch may take. */
#ifndef CUDAFILTERS_BLUR_HOST_CUH
#define CUDAFILTERS_BLUR_HOST_CUH

#include "cudafilters-kernels.h"
#include "launch-settings.cuh"

#include <stdint.h>
namespace {

using cf::DeviceInfo;

/* Lets `kernel` take the device's opt-in shared memory beyond its static
 * share.  The attribute belongs to the context, and elements launch from
 * several threads with different needs: one value for every launch never
 * lowers it under another thread's launch, as each launch's own need
 * would. */
template < typename K > cudaError_t
allow_dynamic_smem (K kernel, const DeviceInfo * info)
{
  cudaFuncAttributes fa;
  cudaError_t e = cudaFuncGetAttributes (&fa, kernel);

  if (e == cudaSuccess)
    e = cudaFuncSetAttribute (kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize,
        info->smem_optin - (int) fa.sharedSizeBytes);
  return e;
}

/* A kernel of 2^bits: radius in range, weights summing to 2^bits */
bool
kernel_ok (const CfBlurKernel * k, int bits)
{
  if (!k || k->radius < 0 || k->radius > CF_BLUR_MAX_RADIUS)
    return false;
  uint64_t sum = k->w[0];
  for (int i = 1; i <= k->radius; i++)
    sum += 2 * (uint64_t) k->w[i];
  return sum == ((uint64_t) 1 << bits);
}

}                               /* namespace */

#endif
