/* HDR light levels: each pixel's code of max(R', G', B') counted, the
 * atomics pattern (docs/design/hdr.md).  The C API and dispatch; the
 * kernel is light-codes.cuh. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"
#include "launch-settings.cuh"

#include <cuda_runtime.h>

#include "light-codes.cuh"

static bool
even (const void *p, size_t pitch)
{
  return (((uintptr_t) p | pitch) & 1) == 0;
}

static bool
frame_valid (const CfYCbCrWords * f)
{
  if (!f || f->width < 0 || f->height < 0 || f->depth < 9 || f->depth > 16
      || f->shift < 0 || f->shift > 16 - f->depth
      || (f->sub_x != 0 && f->sub_x != 1) || (f->sub_y != 0 && f->sub_y != 1)
      || f->phase_x < 0 || f->phase_x > f->sub_x
      || f->phase_y < 0 || f->phase_y > f->sub_y
      || (f->chroma_step != 1 && f->chroma_step != 2))
    return false;
  if (f->width == 0 || f->height == 0)
    return true;
  return f->luma && f->cb && f->cr
      && f->luma_pitch >= 2 * (size_t) f->width
      && f->chroma_pitch >= 2 * (size_t) ((((f->width - 1 + f->phase_x) >>
                  f->sub_x) + 1) * f->chroma_step);
}

extern "C" CfError
cf_light_codes_add (const CfYCbCrWords * frame, const CfMaxRgb * m,
    uint32_t * counts, CfStream stream)
{
  if (!frame_valid (frame) || !m || !counts || ((uintptr_t) counts & 3))
    return cudaErrorInvalidValue;
  if (frame->width == 0 || frame->height == 0)
    return cudaSuccess;
  cf_forget_earlier_errors ();

  const cf::DeviceInfo *dev;
  int resident;
  cudaError_t err = cf::current_device_info (&dev);
  if (err == cudaSuccess)
    err = cf::resident_blocks_per_sm ((const void *) light_codes_kernel,
        kLightBlockThreads, 0, &resident);
  if (err != cudaSuccess)
    return err;
  const long long groups =
      (long long) ((frame->width + kLightGroup - 1) / kLightGroup) *
      frame->height;
  long long grid = (groups + kLightBlockThreads - 1) / kLightBlockThreads;
  const long long wave = (long long) dev->sm_count * (resident > 0 ?
      resident : 1);
  grid = grid < wave ? grid : wave;

  LightReads reads;
  reads.luma_vectors = (((uintptr_t) frame->luma | frame->luma_pitch) & 15)
      == 0;
  reads.luma_words = even (frame->luma, frame->luma_pitch);
  reads.chroma_words = even (frame->cb, frame->chroma_pitch)
      && even (frame->cr, 0);
  light_codes_kernel <<< (int) grid, kLightBlockThreads, 0,
      (cudaStream_t) stream >>> (*frame, *m, reads, counts);
  return cudaGetLastError ();
}
