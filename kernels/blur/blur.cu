/* Gaussian blur: the stencil pattern, separable.
 *
 * Three implementations, all equal to blur-reference.c bit for bit:
 *
 * - On GPUs with integer tensor cores (sm_80 on), radii up to 32 and
 *   vertical weights exact in half precision (cf_blur_kernel_make's are):
 *   one fused pass, both 1-D filters as band-matrix products on the tensor
 *   cores (blur_mma8_kernel, blur-mma-r8.cuh, for radius <= 8;
 *   blur_mma_kernel, blur-mma.cuh, beyond; the shared arithmetic in
 *   blur-bands.cuh; on sm_90, for radius <= 8 where they apply,
 *   blur_mma8_direct_kernel, blur-mma-r8-sm90.cuh, with 4 channels, and
 *   blur_mma8_narrow_kernel, blur-mma-r8-sm90-narrow.cuh, with 1 and 2).
 *   It reads the frame once and writes it once.
 *
 * - The same GPUs and weights, radii 33 to 150 (or rows 64 MiB apart or
 *   more): the same products in two passes through the scratch plane
 *   (blur_wide_h_kernel, blur_wide_v_kernel: blur-wide.cuh).
 *
 * - Otherwise (GPUs before sm_80, vertical weights that are not exact
 *   halves, which only the C API can pass): two passes on the CUDA
 *   cores (blur-simt.cuh).  Horizontal: a block stages a few rows of a
 *   strip (halo included, border rule applied) in shared
 *   memory as floats, each thread filters P consecutive pixels, so each tap
 *   it reads serves up to P outputs, and writes t (see the header) as
 *   16-bit values to a scratch plane.  Vertical: each thread takes two
 *   channel columns of t down a run of rows, keeping the 2R+1 rows a sum
 *   needs, and the next 3 already being loaded, in registers (radius
 *   buckets 4 to 32, every ring index a compile-time constant), or reading
 *   its taps from the cache for larger radii, 8 outputs at a time; it
 *   writes the output bytes.  Beyond radius 32 its cost grows faster than
 *   the radius.
 *
 * The weights travel as a kernel argument (the constant bank): no global
 * state, so elements with different sigmas can run at once.  On the CUDA
 * cores all sums are integers below 2^24 held in floats, hence exact, and
 * the rounding steps add half and round down onto 2^23 (whose ulp is 1);
 * the tensor cores sum the horizontal filter in 32-bit integers, and the
 * vertical one in floats, exact for the same reason.
 *
 * (10 to 16 bits: blur-words.cu.)
 *
 * This file holds the C API and the dispatch (which kernel for which
 * radius, weights, channels and GPU) and sizes the launches; the tuning
 * constants are in blur-policy.cuh, the reasons behind them in
 * docs/design/blur.md. */
#include "cudafilters-kernels.h"
#include "cudafilters-kernels-testing.h"
#include "kernels-common.cuh"
#include "launch-settings.cuh"

#include <cuda_fp16.h>
#include <atomic>
#include <cstdlib>

#include "blur-policy.cuh"
#include "blur-device.cuh"
#include "blur-host.cuh"
#include "blur-simt.cuh"
#include "blur-mma.cuh"
#include "blur-mma-r8.cuh"
#include "blur-mma-r8-sm90.cuh"
#include "blur-mma-r8-sm90-narrow.cuh"
#include "blur-wide.cuh"

namespace {

/* Blocks of `kernel` (`threads` each, `smem` bytes of dynamic shared
 * memory) resident on the whole device at once, at least 1 a SM, with the
 * shared memory it needs allowed first */
template < typename K > cudaError_t
one_wave (K kernel, int threads, size_t smem, const DeviceInfo * info,
    long long *blocks)
{
  int per_sm = 0;
  cudaError_t e = cudaSuccess;

  if (smem > 48 * 1024)
    e = allow_dynamic_smem (kernel, info);
  if (e == cudaSuccess)
    e = cf::resident_blocks_per_sm (reinterpret_cast < const void *>(kernel),
        threads, smem, &per_sm);
  *blocks = (long long) per_sm * info->sm_count;
  return e;
}

/* One wave of blocks of `kernel` with `smem` bytes each, at most `work` */
template < typename K > cudaError_t
wide_blocks (K kernel, int smem, long long work, const DeviceInfo * info,
    int *blocks)
{
  long long wave = 0;
  cudaError_t e = one_wave (kernel, kWideThreads, smem, info, &wave);
  if (e == cudaSuccess && wave < 1)
    e = cudaErrorInvalidConfiguration;
  *blocks = (int) min (wave, max (work, 1LL));
  return e;
}

template < int C > cudaError_t
launch_wide (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, uint16_t * t, size_t t_pitch,
    const BlurArgs & a, const DeviceInfo * info, cudaStream_t stream)
{
  const WideGeometry geo (a);
  int blocks;
  const int h_smem = geo.h_smem < C > ();
  cudaError_t e = wide_blocks (blur_wide_h_kernel < C >, h_smem,
      (long long) ((width + kWideHPx - 1) / kWideHPx) * ((height + 15) / 16),
      info, &blocks);
  if (e != cudaSuccess)
    return e;
  blur_wide_h_kernel < C > <<<blocks, kWideThreads, h_smem, stream >>> (src,
      src_pitch, t, t_pitch, width, height, a);
  if ((e = cudaGetLastError ()) != cudaSuccess)
    return e;
  e = wide_blocks (blur_wide_v_kernel < C >, geo.v_smem (),
      (long long) ((width * C + kWideStrip - 1) / kWideStrip) *
      ((height + kWideStep - 1) / kWideStep), info, &blocks);
  if (e != cudaSuccess)
    return e;
  blur_wide_v_kernel < C > <<<blocks, kWideThreads, geo.v_smem (),
      stream >>> (t, t_pitch, dst, dst_pitch, width, height, a);
  return cudaGetLastError ();
}

template < int C, int R > cudaError_t
launch_h (const uint8_t * src, size_t src_pitch, uint16_t * t, size_t t_pitch,
    int width, int height, const BlurArgs & a, const DeviceInfo * info,
    cudaStream_t stream)
{
  const int r = R ? R : a.rx;
  const int span = (kHThreads * kHPix + 2 * r) * C;
  size_t smem = sizeof (float) * kHRows * (span + 4 * (span / 16) + 4);
  if (smem > (size_t) info->smem_optin)
    return cudaErrorInvalidConfiguration;
  if (smem > 48 * 1024) {
    cudaError_t e = allow_dynamic_smem (blur_h_kernel < C, R >, info);
    if (e != cudaSuccess)
      return e;
  }
  dim3 grid ((width + kHThreads * kHPix - 1) / (kHThreads * kHPix),
      (height + kHRows - 1) / kHRows);
  blur_h_kernel < C, R > <<<grid, kHThreads, smem, stream >>> (src, src_pitch,
      t, t_pitch, width, height, a);
  return cudaGetLastError ();
}

template < int R > cudaError_t
launch_v (const uint16_t * t, size_t t_pitch, uint8_t * dst, size_t dst_pitch,
    int width, int height, int channels, const BlurArgs & a,
    cudaStream_t stream)
{
  int cols = width * channels;
  int rows = R ? kVRowsBuckets : kVRowsGeneric;
  dim3 grid ((cols / 2 + kVThreads) / kVThreads, (height + rows - 1) / rows);
  blur_v_kernel < R > <<<grid, kVThreads, 0, stream >>> (t, t_pitch, dst,
      dst_pitch, cols, height, channels, a);
  return cudaGetLastError ();
}

/* Whether blur_mma8_direct_kernel takes a frame of 4 channels at radius 8
 * or less: on sm_90 on (the only GPU it was tuned and tested on), where
 * the border folds (blur_mma8_kernel's `fold`), on 16-byte aligned rows of
 * whole units */
bool
direct_applies (const uint8_t * src, size_t src_pitch, int width,
    const BlurArgs & a, const DeviceInfo * info)
{
  return info->cc_major >= 9 && a.border != CF_BORDER_CONSTANT
      && width >= kFoldMinWidth && width % 4 == 0
      && (uintptr_t) src % 16 == 0 && src_pitch % 16 == 0;
}

/* At radius 8 (equal shares, WorkRun < 8 >), a whole number of blocks a
 * strip, where that leaves at least kStripAlignKeep in 10 of them: then
 * every strip's runs start on the same rows, so that blocks side by side
 * read the same rows at about the same time, and the halo columns a strip
 * shares with its neighbours come from L2 for the second reader.
 * Otherwise the runs drift out of step from strip to strip on large
 * frames (docs/design/blur.md). */
int
strip_aligned_blocks (int blocks, int strips)
{
  if (blocks > strips && 10 * (blocks - blocks % strips) >=
      kStripAlignKeep * blocks)
    return blocks - blocks % strips;
  return blocks;
}

template < int C, int HALO > cudaError_t
launch_mma (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, const BlurArgs & a,
    const DeviceInfo * info, cudaStream_t stream)
{
  /* radius 8 or less: t stays in registers, two input buffers and
   * Mma8Shape's raw buffers only (blur_mma8_direct_kernel: its ring of
   * rows); larger: the channels' input rows and t rings, and one raw
   * buffer */
  constexpr int strip_px = HALO == 8 ? Mma8Shape < C >::strip : kMmaStripPx;
  constexpr int threads = mma_threads (strip_px);
  using L = MmaLayout < HALO, strip_px >;
  size_t smem = HALO == 8 ? 2 * C * L::in_bytes +
      (Mma8Shape < C >::ahead + 1) * 16 * L::units
      : C * L::channel_bytes + 16 * L::units;
  void (*kernel) (const uint8_t *, size_t, uint8_t *, size_t, int, int,
      BlurArgs);
  if constexpr (HALO == 8)
    kernel = blur_mma8_kernel < C >;
  else
    kernel = blur_mma_kernel < C, HALO >;
  if constexpr (HALO == 8 && C == 4) {
    if (direct_applies (src, src_pitch, width, a, info)) {
      kernel = blur_mma8_direct_kernel;
      smem = kDirectBuffers * kDirectStep;
    }
  }
  long long wave = 0;
  cudaError_t e = one_wave (kernel, threads, smem, info, &wave);
  if (e != cudaSuccess)
    return e;

  /* as many blocks as fit at once, each with an equal share of the work:
   * one wave, so no SM idles through a second, partial one (each part of
   * a strip a block takes costs its lag steps again: the top halo) */
  const int strips = (width + strip_px - 1) / strip_px;
  const long long work = (long long) strips * ((height + kMmaStep - 1) /
      kMmaStep);
  int blocks = (int) min (max ((long long) info->sm_count, wave), work);
  if (HALO == 8)
    blocks = strip_aligned_blocks (blocks, strips);
  kernel <<< blocks, threads, smem, stream >>> (src, src_pitch, dst,
      dst_pitch, width, height, a);
  return cudaGetLastError ();
}

/* Whether every vertical weight is exact in half precision, as the
 * vertical products take them (cf_blur_kernel_make's are) */
bool
half_exact (const BlurArgs & a)
{
  for (int i = 0; i <= a.ry; i++)
    if (__half2float (__float2half_rn (a.wy[i])) != a.wy[i])
      return false;
  return true;
}

/* Whether the device has integer MMA (sm_80 on) */
bool
has_integer_mma (const DeviceInfo * info)
{
  return info->cc_major >= 8;
}

/* Whether blur_mma8_narrow_kernel takes a plane: on sm_90 on (the only
 * GPU it was tuned and tested on), 1 or 2 channels, radius 8 or less with
 * the vertical weights exact in half precision (as try_mma), where the
 * border folds (blur_mma8_kernel's `fold`), on rows of whole 16-byte
 * units, 16-byte aligned in and out (its stores are 16 bytes) */
bool
narrow_applies (const uint8_t * src, size_t src_pitch, const uint8_t * dst,
    size_t dst_pitch, int width, int channels, const BlurArgs & a,
    const DeviceInfo * info)
{
  return info->cc_major >= 9 && (channels == 1 || channels == 2)
      && max (a.rx, a.ry) <= kNarrowMaxRadius && half_exact (a)
      && src_pitch <= kMmaMaxPitch && dst_pitch <= kMmaMaxPitch
      && a.border != CF_BORDER_CONSTANT && width >= kFoldMinWidth
      && (long long) width * channels % 16 == 0
      && (uintptr_t) src % 16 == 0 && src_pitch % 16 == 0
      && (uintptr_t) dst % 16 == 0 && dst_pitch % 16 == 0;
}

/* A plane of blur_mma8_narrow_kernel, its blocks not yet shared out */
NarrowPlane
narrow_plane_of (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, const BlurArgs & a)
{
  NarrowPlane p = { };
  p.src = src;
  p.src_pitch = src_pitch;
  p.dst = dst;
  p.dst_pitch = dst_pitch;
  p.width = width;
  p.height = height;
  p.rx = a.rx;
  p.ry = a.ry;
  p.border = a.border;
  for (int i = 0; i <= kNarrowMaxRadius; i++) {
    p.wx[i] = i <= a.rx ? a.wx[i] : 0;
    p.wy[i] = i <= a.ry ? a.wy[i] : 0;
  }
  return p;
}

/* cf_blur_planes_one_launches () (cudafilters-kernels-testing.h) */
std::atomic < unsigned long long >planes_one_launches (0);

/* blur_mma8_narrow_kernel on `np`'s planes, plane 0 of C0 channels, the
 * others of C1 (0: plane 0 alone).  One wave of at most
 * kNarrowLaunchPerSm blocks an SM, shared among the planes by their
 * bytes (a step of 2 channels copies and multiplies twice a step of 1),
 * each plane's run as launch_mma's. */
template < int C0, int C1 > cudaError_t
launch_narrow (NarrowPlanes & np, const DeviceInfo * info,
    cudaStream_t stream)
{
  using S0 = Mma8NarrowShape < C0 >;
  using S1 = Mma8NarrowShape < (C1 ? C1 : C0) >;
  static_assert (S0::strip == S1::strip, "one strip for the planes' shares");
  constexpr int threads = S0::threads;
  /* (the kernel without C1 blurs plane 0 alone) */
  if ((C1 == 0 && np.n != 1) || np.n < 1 || np.n > kNarrowMaxPlanes)
    return cudaErrorInvalidValue;
  const size_t smem = kNarrowBuffers * max (S0::step_bytes, S1::step_bytes)
      + 2 * max (S0::out_bytes, S1::out_bytes);
  const auto kernel = blur_mma8_narrow_kernel < C0, C1 >;
  long long wave = 0;
  cudaError_t e = one_wave (kernel, threads, smem, info, &wave);
  if (e != cudaSuccess)
    return e;
  wave = min (wave, (long long) kNarrowLaunchPerSm * info->sm_count);

  long long items[kNarrowMaxPlanes], bytes[kNarrowMaxPlanes];
  long long all_items = 0, all_bytes = 0;
  for (int i = 0; i < np.n; i++) {
    const long long strips = (np.plane[i].width + S0::strip - 1) / S0::strip;
    items[i] = strips * ((np.plane[i].height + kMmaStep - 1) / kMmaStep);
    bytes[i] = items[i] * (i ? C1 : C0);
    all_items += items[i];
    all_bytes += bytes[i];
  }
  const long long blocks = min (max ((long long) info->sm_count, wave),
      all_items);
  int grid = 0;
  for (int i = np.n - 1; i >= 0; i--) {
    /* plane 0 (the luma) takes what the others' roundings leave, and
     * each plane at least one block (a plane's 0 share raised to 1 is
     * taken from the next ones': the launch stays one wave) */
    long long b = i ? blocks * bytes[i] / all_bytes : blocks - grid;
    b = max (1LL, min (b, min (items[i], blocks - grid - i)));
    const int strips = (np.plane[i].width + S0::strip - 1) / S0::strip;
    np.plane[i].blocks = strip_aligned_blocks ((int) b, strips);
    grid += np.plane[i].blocks;
  }
  kernel <<< grid, threads, smem, stream >>> (np);
  if ((e = cudaGetLastError ()) == cudaSuccess && np.n > 1)
    planes_one_launches.fetch_add (1, std::memory_order_relaxed);
  return e;
}

/* The tensor-core pass, where the device has integer MMA (sm_80 on), the
 * radius is at most kMmaMaxRadius, the rows are at most kMmaMaxPitch
 * apart (any video's are) and the vertical weights are exact in half
 * precision; false where it does not apply. */
template < int C > bool
try_mma (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, const BlurArgs & a,
    const DeviceInfo * info, cudaStream_t stream, cudaError_t * e)
{
  const int r = max (a.rx, a.ry);
  /* (offsets within a step are 32-bit: StepLoader, blur_mma8_kernel) */
  if (r > kMmaMaxRadius || !half_exact (a) || src_pitch > kMmaMaxPitch
      || dst_pitch > kMmaMaxPitch || !has_integer_mma (info))
    return false;
  switch (mma_halo (r)) {
    case 8:
      *e = launch_mma < C, 8 > (src, src_pitch, dst, dst_pitch, width,
          height, a, info, stream);
      break;
    case 16:
      *e = launch_mma < C, 16 > (src, src_pitch, dst, dst_pitch, width,
          height, a, info, stream);
      break;
    case 24:
      *e = launch_mma < C, 24 > (src, src_pitch, dst, dst_pitch, width,
          height, a, info, stream);
      break;
    default:
      *e = launch_mma < C, 32 > (src, src_pitch, dst, dst_pitch, width,
          height, a, info, stream);
      break;
  }
  return true;
}

template < int C > cudaError_t
launch_blur (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, uint16_t * t, size_t t_pitch,
    const BlurArgs & a, cudaStream_t stream)
{
  const DeviceInfo *info;
  cudaError_t e = cf::current_device_info (&info);
  if (e != cudaSuccess)
    return e;
  if constexpr (C <= 2) {
    if (narrow_applies (src, src_pitch, dst, dst_pitch, width, C, a, info)) {
      NarrowPlanes np = { };
      np.plane[0] = narrow_plane_of (src, src_pitch, dst, dst_pitch, width,
          height, a);
      np.n = 1;
      return launch_narrow < C, 0 > (np, info, stream);
    }
  }
  if (try_mma < C > (src, src_pitch, dst, dst_pitch, width, height, a,
          info, stream, &e))
    return e;
  if (has_integer_mma (info) && half_exact (a))
    return launch_wide < C > (src, src_pitch, dst, dst_pitch, width, height,
        t, t_pitch, a, info, stream);

  static_assert (kSimtMaxBucket == 32, "the buckets below");
  if (a.rx <= 4)
    e = launch_h < C, 4 > (src, src_pitch, t, t_pitch, width, height, a,
        info, stream);
  else if (a.rx <= 8)
    e = launch_h < C, 8 > (src, src_pitch, t, t_pitch, width, height, a,
        info, stream);
  else if (a.rx <= 16)
    e = launch_h < C, 16 > (src, src_pitch, t, t_pitch, width, height, a,
        info, stream);
  else if (a.rx <= 32)
    e = launch_h < C, 32 > (src, src_pitch, t, t_pitch, width, height, a,
        info, stream);
  else
    e = launch_h < C, 0 > (src, src_pitch, t, t_pitch, width, height, a,
        info, stream);
  if (e != cudaSuccess)
    return e;

  if (a.ry <= 4)
    return launch_v < 4 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
        stream);
  if (a.ry <= 8)
    return launch_v < 8 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
        stream);
  if (a.ry <= 16)
    return launch_v < 16 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
        stream);
  if (a.ry <= 32)
    return launch_v < 32 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
        stream);
  return launch_v < 0 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
      stream);
}

}                               /* namespace */

extern "C" size_t
cf_blur_scratch_bytes (int width, int height, int channels)
{
  if (width <= 0 || height <= 0 || channels < 1 || channels > 4)
    return 0;
  return cf_blur_scratch_pitch (width, channels) * (size_t) height;
}

extern "C" size_t
cf_blur_scratch_pitch (int width, int channels)
{
  /* 16-bit values, rows rounded up to 256 bytes */
  return ((size_t) width * channels * 2 + 255) / 256 * 256;
}

namespace {

BlurArgs
blur_args_of (const CfBlurKernel * kx, const CfBlurKernel * ky,
    CfBorder border, const uint8_t border_value[4])
{
  BlurArgs a = { };
  a.rx = kx->radius;
  a.ry = ky->radius;
  a.border = border;
  for (int c = 0; c < 4; c++)
    a.border_value[c] = border_value ? border_value[c] : 0;
  for (int i = 0; i <= a.rx; i++)
    a.wx[i] = (float) kx->w[i];
  for (int i = 0; i <= a.ry; i++)
    a.wy[i] = (float) ky->w[i];
  return a;
}

/* A frame's planes in one launch of blur_mma8_narrow_kernel, where it
 * takes every plane and their channels are one of its pairs (1; 2; 1 and
 * 1, as I420's and Y444's; 1 and 2, as NV12's); false where not */
bool
try_narrow_planes (const CfBlurPlane * planes, int n, CfBorder border,
    const DeviceInfo * info, cudaStream_t stream, cudaError_t * e)
{
  NarrowPlanes np = { };
  const int c0 = planes[0].channels, c1 = n > 1 ? planes[1].channels : 0;

  /* (its pairs, checked before anything is worked out for the planes:
   * RGBA's frames come this way too) */
  if (!(n == 1 ? c0 <= 2 : c0 == 1 && c1 <= 2))
    return false;
  for (int i = 0; i < n; i++) {
    const CfBlurPlane & p = planes[i];
    /* (the border value does not matter: the narrow kernel takes no
     * constant border) */
    const BlurArgs a = blur_args_of (p.kx, p.ky, border, nullptr);
    if ((i > 1 && p.channels != c1)
        || !narrow_applies ((const uint8_t *) p.src, p.src_pitch,
            (const uint8_t *) p.dst, p.dst_pitch, p.width, p.channels, a,
            info))
      return false;
    np.plane[i] = narrow_plane_of ((const uint8_t *) p.src, p.src_pitch,
        (uint8_t *) p.dst, p.dst_pitch, p.width, p.height, a);
  }
  np.n = n;
  if (n == 1)
    *e = c0 == 1 ? launch_narrow < 1, 0 > (np, info, stream) :
        launch_narrow < 2, 0 > (np, info, stream);
  else
    *e = c1 == 1 ? launch_narrow < 1, 1 > (np, info, stream) :
        launch_narrow < 1, 2 > (np, info, stream);
  return true;
}

}                               /* namespace */

extern "C" CfError
cf_blur_plane (const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
    int width, int height, int channels, const CfBlurKernel * kx,
    const CfBlurKernel * ky, CfBorder border, const uint8_t border_value[4],
    void *scratch, CfStream stream)
{
  if (!scratch || !plane_ok (src, src_pitch, dst, dst_pitch, width, height,
          channels, kx, ky, border))
    return cudaErrorInvalidValue;

  const BlurArgs a = blur_args_of (kx, ky, border, border_value);
  cf_forget_earlier_errors ();
  const uint8_t *s = (const uint8_t *) src;
  uint8_t *d = (uint8_t *) dst;
  uint16_t *t = (uint16_t *) scratch;
  size_t tp = cf_blur_scratch_pitch (width, channels);
  cudaStream_t st = (cudaStream_t) stream;
  switch (channels) {
    case 1:
      return launch_blur < 1 > (s, src_pitch, d, dst_pitch, width, height, t,
          tp, a, st);
    case 2:
      return launch_blur < 2 > (s, src_pitch, d, dst_pitch, width, height, t,
          tp, a, st);
    case 3:
      return launch_blur < 3 > (s, src_pitch, d, dst_pitch, width, height, t,
          tp, a, st);
    default:
      return launch_blur < 4 > (s, src_pitch, d, dst_pitch, width, height, t,
          tp, a, st);
  }
}

extern "C" CfError
cf_blur_planes (const CfBlurPlane * planes, int n_planes, CfBorder border,
    void *scratch, CfStream stream)
{
  if (!planes || n_planes < 1 || n_planes > CF_BLUR_MAX_PLANES || !scratch)
    return cudaErrorInvalidValue;
  for (int i = 0; i < n_planes; i++) {
    const CfBlurPlane & p = planes[i];
    if (!plane_ok (p.src, p.src_pitch, p.dst, p.dst_pitch, p.width, p.height,
            p.channels, p.kx, p.ky, border))
      return cudaErrorInvalidValue;
    for (int c = 0; c < 4; c++)
      if (p.border_value[c] > 255)
        return cudaErrorInvalidValue;
  }
  if (planes_overlap (planes, n_planes, 1))
    return cudaErrorInvalidValue;

  const DeviceInfo *info;
  cudaError_t e = cf::current_device_info (&info);
  if (e != cudaSuccess)
    return e;
  cf_forget_earlier_errors ();
  if (try_narrow_planes (planes, n_planes, border, info,
          (cudaStream_t) stream, &e))
    return e;
  CfError err = cudaSuccess;
  for (int i = 0; i < n_planes && err == cudaSuccess; i++) {
    const CfBlurPlane & p = planes[i];
    uint8_t border_value[4];
    for (int c = 0; c < 4; c++)
      border_value[c] = (uint8_t) p.border_value[c];
    err = cf_blur_plane (p.src, p.src_pitch, p.dst, p.dst_pitch, p.width,
        p.height, p.channels, p.kx, p.ky, border, border_value, scratch,
        stream);
  }
  return err;
}

extern "C" unsigned long long
cf_blur_planes_one_launches (void)
{
  return planes_one_launches.load (std::memory_order_relaxed);
}
