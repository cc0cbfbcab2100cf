/* HDR light levels: each pixel's code of max(R', G', B') counted (PQ), or
 * its HLG light summed, the atomics pattern (docs/design/hdr.md).  The C
 * API and dispatch; the kernels are light-codes.cuh and hlg-light.cuh. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"
#include "launch-settings.cuh"

#include <cuda_runtime.h>

#include "light-codes.cuh"
#include "hlg-light.cuh"

/* the pitch of a plane whose rows hold @words words of 2 bytes */
static bool
holds_words (size_t pitch, long long words)
{
  return pitch >= 2 * (size_t) words;
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
  const long long chroma_words =
      (long long) ((((f->width - 1 + f->phase_x) >> f->sub_x) + 1) *
      f->chroma_step);
  return f->luma && f->cb && f->cr && holds_words (f->luma_pitch, f->width)
      && holds_words (f->cb_pitch, chroma_words)
      && holds_words (f->cr_pitch, chroma_words);
}

/* One wave of @threads-thread blocks of @kernel, or fewer where the
 * frame's groups of pixels need fewer. */
static cudaError_t
wave_grid (const void *kernel, int threads, const CfYCbCrWords * frame,
    int *grid)
{
  const cf::DeviceInfo *dev;
  int resident;
  cudaError_t err = cf::current_device_info (&dev);
  if (err == cudaSuccess)
    err = cf::resident_blocks_per_sm (kernel, threads, 0, &resident);
  if (err != cudaSuccess)
    return err;
  const long long groups =
      (long long) ((frame->width + kLightGroup - 1) / kLightGroup) *
      frame->height;
  const long long blocks = (groups + threads - 1) / threads;
  const long long wave = (long long) dev->sm_count * (resident > 0 ?
      resident : 1);
  *grid = (int) (blocks < wave ? blocks : wave);
  return cudaSuccess;
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

  int grid;
  cudaError_t err = wave_grid ((const void *) light_codes_kernel,
      kLightBlockThreads, frame, &grid);
  if (err != cudaSuccess)
    return err;
  light_codes_kernel <<< grid, kLightBlockThreads, 0,
      (cudaStream_t) stream >>> (*frame, *m, light_reads_of (frame), counts);
  return cudaGetLastError ();
}

extern "C" CfError
cf_hlg_light_add (const CfYCbCrWords * frame, const CfMaxRgb * m,
    const CfHlgTables * tables, CfHlgSums * sums, CfStream stream)
{
  if (!frame_valid (frame) || !m || !tables || ((uintptr_t) tables & 3)
      || !sums || ((uintptr_t) sums & 7))
    return cudaErrorInvalidValue;
  if (frame->width == 0 || frame->height == 0)
    return cudaSuccess;
  cf_forget_earlier_errors ();

  int grid;
  cudaError_t err = wave_grid ((const void *) hlg_light_kernel,
      kHlgBlockThreads, frame, &grid);
  if (err != cudaSuccess)
    return err;
  hlg_light_kernel <<< grid, kHlgBlockThreads, 0,
      (cudaStream_t) stream >>> (*frame, *m, light_reads_of (frame), tables,
      sums);
  return cudaGetLastError ();
}
