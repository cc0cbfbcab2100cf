/* What blur.cu and blur-words.cu share on the host: the checks of a
 * kernel's weights and of a call's planes, and the shared memory a launch
 * may take.  (inline: not every one is used in both) */
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

/* Whether cf_blur_plane (8 bits) takes these arguments */
inline bool
plane_ok (const void *src, size_t src_pitch, const void *dst,
    size_t dst_pitch, int width, int height, int channels,
    const CfBlurKernel * kx, const CfBlurKernel * ky, CfBorder border)
{
  return src && dst && width > 0 && height > 0 && channels >= 1
      && channels <= 4 && src_pitch >= (size_t) width * channels
      && dst_pitch >= (size_t) width * channels
      && kernel_ok (kx, CF_BLUR_H_BITS) && kernel_ok (ky, CF_BLUR_V_BITS)
      && border >= CF_BORDER_REPLICATE && border <= CF_BORDER_CONSTANT
      && (long long) height * ((width + 511) / 512) <= INT32_MAX / 2;
}

/* Whether two planes' bytes, from the first row's start to the last
 * row's end, at a and b, overlap */
inline bool
ranges_overlap (const void *a, size_t a_pitch, const void *b, size_t b_pitch,
    const CfBlurPlane & pa, const CfBlurPlane & pb, size_t sample_bytes)
{
  const uintptr_t a0 = (uintptr_t) a, b0 = (uintptr_t) b;
  const uintptr_t a1 = a0 + a_pitch * (size_t) (pa.height - 1) +
      (size_t) pa.width * pa.channels * sample_bytes;
  const uintptr_t b1 = b0 + b_pitch * (size_t) (pb.height - 1) +
      (size_t) pb.width * pb.channels * sample_bytes;
  return a0 < b1 && b0 < a1;
}

/* Whether a plane's output overlaps another plane's input or output
 * (the one launch reads and writes them all at once), samples of
 * sample_bytes (1, or 2 for words); planes already checked for their
 * sizes (plane_ok, word_plane_ok) */
inline bool
planes_overlap (const CfBlurPlane * planes, int n, size_t sample_bytes)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      if (i != j && (ranges_overlap (planes[i].dst, planes[i].dst_pitch,
                  planes[j].src, planes[j].src_pitch, planes[i], planes[j],
                  sample_bytes)
              || ranges_overlap (planes[i].dst, planes[i].dst_pitch,
                  planes[j].dst, planes[j].dst_pitch, planes[i], planes[j],
                  sample_bytes)))
        return true;
  return false;
}

}                               /* namespace */

#endif
