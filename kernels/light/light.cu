/* HDR light levels: each pixel's code of max(R', G', B') counted (PQ), or
 * its HLG light summed, the atomics pattern (docs/design/hdr.md), of
 * Y'CbCr words or of packed 10-bit RGB.  The C API and dispatch; the
 * kernels are light-codes.cuh and hlg-light.cuh, templates over how the
 * frame is read (light-reads.cuh, light-rgb10a2.cuh). */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"
#include "launch-settings.cuh"
#include "word-planes.cuh"

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
 * frame's @groups of pixels need fewer. */
static cudaError_t
wave_grid (const void *kernel, int threads, long long groups, int *grid)
{
  const cf::DeviceInfo *dev;
  int resident;
  cudaError_t err = cf::current_device_info (&dev);
  if (err == cudaSuccess)
    err = cf::resident_blocks_per_sm (kernel, threads, 0, &resident);
  if (err != cudaSuccess)
    return err;
  const long long blocks = (groups + threads - 1) / threads;
  const long long wave = (long long) dev->sm_count * (resident > 0 ?
      resident : 1);
  *grid = (int) (blocks < wave ? blocks : wave);
  return cudaSuccess;
}

/* @src's codes of max(R', G', B') counted (light_codes_kernel) */
template < typename Source > static cudaError_t
count_codes (const Source & src, long long groups, uint32_t * counts,
    CfStream stream)
{
  int grid;
  cudaError_t err = wave_grid ((const void *) light_codes_kernel < Source >,
      kLightBlockThreads, groups, &grid);
  if (err != cudaSuccess)
    return err;
  light_codes_kernel < Source > <<< grid, kLightBlockThreads, 0,
      (cudaStream_t) stream >>> (src, counts);
  return cudaGetLastError ();
}

/* @src's HLG light added (hlg_light_kernel) */
template < typename Source > static cudaError_t
add_hlg_light (const Source & src, long long groups,
    const CfHlgTables * tables, CfHlgSums * sums, CfStream stream)
{
  int grid;
  cudaError_t err = wave_grid ((const void *) hlg_light_kernel < Source >,
      kHlgBlockThreads, groups, &grid);
  if (err != cudaSuccess)
    return err;
  hlg_light_kernel < Source > <<< grid, kHlgBlockThreads, 0,
      (cudaStream_t) stream >>> (src, tables, sums);
  return cudaGetLastError ();
}

static bool
counts_valid (const uint32_t * counts)
{
  return counts && !((uintptr_t) counts & 3);
}

static bool
hlg_valid (const CfHlgTables * tables, const CfHlgSums * sums)
{
  return tables && !((uintptr_t) tables & 3) && sums && !((uintptr_t) sums & 7);
}

/* a plane of packed 10-bit RGB, as the histogram takes it */
static bool
rgb10a2_valid (const CfWordPlane * plane)
{
  return cf::word_planes_valid (plane, 1) && plane->rgb10a2;
}

extern "C" CfError
cf_light_codes_add (const CfYCbCrWords * frame, const CfMaxRgb * m,
    uint32_t * counts, CfStream stream)
{
  if (!frame_valid (frame) || !m || !counts_valid (counts))
    return cudaErrorInvalidValue;
  if (frame->width == 0 || frame->height == 0)
    return cudaSuccess;
  cf_forget_earlier_errors ();
  const YCbCrLight src = ycbcr_light (frame, m);
  return count_codes (src, (long long) src.groups_x * frame->height, counts,
      stream);
}

extern "C" CfError
cf_hlg_light_add (const CfYCbCrWords * frame, const CfMaxRgb * m,
    const CfHlgTables * tables, CfHlgSums * sums, CfStream stream)
{
  if (!frame_valid (frame) || !m || !hlg_valid (tables, sums))
    return cudaErrorInvalidValue;
  if (frame->width == 0 || frame->height == 0)
    return cudaSuccess;
  cf_forget_earlier_errors ();
  const YCbCrLight src = ycbcr_light (frame, m);
  return add_hlg_light (src, (long long) src.groups_x * frame->height, tables,
      sums, stream);
}

extern "C" CfError
cf_light_codes_add_rgb10a2 (const CfWordPlane * plane, const CfRgbScale * s,
    uint32_t * counts, CfStream stream)
{
  if (!rgb10a2_valid (plane) || !s || !counts_valid (counts))
    return cudaErrorInvalidValue;
  if (plane->width == 0 || plane->height == 0)
    return cudaSuccess;
  cf_forget_earlier_errors ();
  const RgbLight src = rgb_light (plane, s);
  return count_codes (src, (long long) src.groups_x * plane->height, counts,
      stream);
}

extern "C" CfError
cf_hlg_light_add_rgb10a2 (const CfWordPlane * plane, const CfRgbScale * s,
    const CfHlgTables * tables, CfHlgSums * sums, CfStream stream)
{
  if (!rgb10a2_valid (plane) || !s || !hlg_valid (tables, sums))
    return cudaErrorInvalidValue;
  if (plane->width == 0 || plane->height == 0)
    return cudaSuccess;
  cf_forget_earlier_errors ();
  const RgbLight src = rgb_light (plane, s);
  return add_hlg_light (src, (long long) src.groups_x * plane->height, tables,
      sums, stream);
}
