/* Gaussian blur of 10- to 16-bit samples in 16-bit words (#48): the C API
 * (cf_blur_plane_words, cf_blur_planes_words, cf_blur_rgb10a2) and the
 * dispatch between the one pass and a frame's planes in one launch
 * (blur-words-tile.cuh), the two passes (blur-words.cuh) and packed
 * 10-bit RGB's one pass (blur-rgb10a2.cuh); the arithmetic is in
 * cudafilters-kernels.h, "High bit depth", the reasons in
 * docs/design/high-bit-depth.md. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"
#include "launch-settings.cuh"

#include "blur-device.cuh"
#include "blur-host.cuh"
#include "blur-words.cuh"
#include "blur-words-tile.cuh"
#include "blur-rgb10a2.cuh"

namespace {

/* t of the words' blur: floats, rows rounded up to 256 bytes */
size_t
word_t_pitch (int width, int channels)
{
  return ((size_t) width * channels + 63) / 64 * 64;
}

template < int C, bool kPacked = false > cudaError_t
launch_words_h (const uint8_t * src, size_t src_pitch, float *t,
    size_t t_pitch, int width, int height, const WordBlurArgs & a,
    cudaStream_t stream)
{
  constexpr int pixels = words_h_block_pixels < C > ();
  const dim3 grid ((width + pixels - 1) / pixels,
      height < kWordsMaxGridY ? height : kWordsMaxGridY);
  const size_t smem = sizeof (float) * (pixels + 2 * a.rx) * C;
  blur_words_h_kernel < C, kPacked > <<< grid, kWordsHThreads, smem,
      stream >>> (src, src_pitch, t, t_pitch, width, height, a);
  return cudaGetLastError ();
}

/* The one pass's radius bucket for radius r, 0 beyond it (two passes) */
int
words_bucket (int r)
{
  return r <= 4 ? 4 : r <= 8 ? 8 : r <= 12 ? 12 :
      r <= kWordsTileMaxRadius ? kWordsTileMaxRadius : 0;
}

/* the bucket of a plane: of the larger of its radii; 0 where the one pass
 * does not take it */
int
words_plane_bucket (const CfBlurPlane * p)
{
  if (p->channels > 2)
    return 0;
  return words_bucket (p->kx->radius > p->ky->radius ? p->kx->radius :
      p->ky->radius);
}

/* A plane's share of a one-pass launch, from block `first_block` on;
 * returns its blocks */
int
words_tile_plane (WordTilePlane * t, const CfBlurPlane * p, int depth,
    int shift, int first_block)
{
  const int pixels = p->channels == 1 ? words_tile_pixels < 1 > () :
      words_tile_pixels < 2 > ();

  t->src = (const uint8_t *) p->src;
  t->dst = (uint8_t *) p->dst;
  t->src_pitch = p->src_pitch;
  t->dst_pitch = p->dst_pitch;
  t->width = p->width;
  t->height = p->height;
  t->tiles_x = (p->width + pixels - 1) / pixels;
  t->first_block = first_block;
  for (int c = 0; c < 4; c++)
    t->border_word[c] = (uint32_t) (p->border_value[c] &
        ((1u << depth) - 1)) << shift;
  /* (every frame: only the weights a tile uses) */
  for (int i = 0; i <= kWordsTileMaxRadius; i++) {
    t->wx[i] = cf_blur_word_weight (p->kx, i);
    t->wy[i] = cf_blur_word_weight (p->ky, i);
  }
  return t->tiles_x * ((p->height + kWordsTileRows - 1) / kWordsTileRows);
}

/* cudaErrorNotSupported where the GPU's blocks cannot have `smem` (sm_75:
 * 64 KB): the caller takes another way */
template < typename K > cudaError_t
launch_tiles (K kernel, size_t smem, int blocks, const WordTileArgs & a,
    cudaStream_t stream)
{
  const DeviceInfo *info;
  cudaError_t e = cf::current_device_info (&info);
  if (e == cudaSuccess && smem > (size_t) info->smem_optin)
    return cudaErrorNotSupported;
  if (e == cudaSuccess && smem > 48 * 1024)
    e = allow_dynamic_smem (kernel, info);
  if (e != cudaSuccess)
    return e;
  kernel <<< blocks, kWordsTileThreads, smem, stream >>> (a);
  return cudaGetLastError ();
}

/* one plane in one pass, bucket R */
template < int R > cudaError_t
launch_words_tile (const CfBlurPlane * p, int depth, int shift,
    CfBorder border, cudaStream_t stream)
{
  WordTileArgs a = { };
  a.n_planes = 1;
  a.depth = depth;
  a.shift = shift;
  a.border = border;
  const int blocks = words_tile_plane (&a.plane[0], p, depth, shift, 0);
  if (p->channels == 1)
    return launch_tiles (blur_words_tile_kernel < R, 1 >,
        words_tile_smem < R, 1 > (), blocks, a, stream);
  return launch_tiles (blur_words_tile_kernel < R, 2 >,
      words_tile_smem < R, 2 > (), blocks, a, stream);
}

/* a frame's planes in one pass and one launch: luma of bucket RL, then
 * the others of CC channels and bucket RC */
template < int RL, int RC, int CC > cudaError_t
launch_words_planes (const CfBlurPlane * planes, int n_planes, int depth,
    int shift, CfBorder border, cudaStream_t stream)
{
  constexpr size_t smem = words_planes_smem < RL, RC, CC > ();
  WordTileArgs a = { };
  int blocks = 0;
  a.n_planes = n_planes;
  a.depth = depth;
  a.shift = shift;
  a.border = border;
  for (int i = 0; i < n_planes; i++)
    blocks += words_tile_plane (&a.plane[i], &planes[i], depth, shift,
        blocks);
  return launch_tiles (blur_words_planes_kernel < RL, RC, CC >, smem, blocks,
      a, stream);
}

/* The one launch for planes whose buckets have a kernel: (luma, chroma)
 * (4, 4), (8, 4), (12, 8) or (16, 8), as sigma and sigma / 2 give;
 * cudaErrorNotSupported for the others */
template < int CC > cudaError_t
launch_words_planes_of (int luma, int chroma, const CfBlurPlane * planes,
    int n_planes, int depth, int shift, CfBorder border, cudaStream_t st)
{
  if (luma == 4 && chroma == 4)
    return launch_words_planes < 4, 4, CC > (planes, n_planes, depth, shift,
        border, st);
  if (luma == 8 && chroma == 4)
    return launch_words_planes < 8, 4, CC > (planes, n_planes, depth, shift,
        border, st);
  if (luma == 12 && chroma == 8)
    return launch_words_planes < 12, 8, CC > (planes, n_planes, depth, shift,
        border, st);
  if (luma == 16 && chroma == 8)
    return launch_words_planes < 16, 8, CC > (planes, n_planes, depth, shift,
        border, st);
  return cudaErrorNotSupported;
}

/* the two passes through scratch: any radius and channel count; packed:
 * of packed 10-bit RGB, 4 channels */
cudaError_t
launch_words_two_passes (const uint8_t * src, size_t src_pitch,
    uint8_t * dst, size_t dst_pitch, int width, int height, int channels,
    const WordBlurArgs & a, float *t, cudaStream_t st, bool packed = false)
{
  const size_t tp = word_t_pitch (width, channels);
  cudaError_t err;
  switch (packed ? 0 : channels) {
    case 0:
      err = launch_words_h < 4, true > (src, src_pitch, t, tp, width, height,
          a, st);
      break;
    case 1:
      err = launch_words_h < 1 > (src, src_pitch, t, tp, width, height, a, st);
      break;
    case 2:
      err = launch_words_h < 2 > (src, src_pitch, t, tp, width, height, a, st);
      break;
    case 3:
      err = launch_words_h < 3 > (src, src_pitch, t, tp, width, height, a, st);
      break;
    default:
      err = launch_words_h < 4 > (src, src_pitch, t, tp, width, height, a, st);
      break;
  }
  if (err != cudaSuccess)
    return err;
  const int columns = width * channels;
  const int row_blocks = (height + kWordsVRows - 1) / kWordsVRows;
  const dim3 grid ((columns + kWordsVColumns - 1) / kWordsVColumns,
      row_blocks < kWordsMaxGridY ? row_blocks : kWordsMaxGridY);
  const size_t smem = sizeof (float) * (kWordsVRows + 2 * a.ry) *
      kWordsVColumns;
  if (packed)
    blur_words_v_kernel < true > <<< grid, kWordsVThreads, smem, st >>> (t,
        tp, dst, dst_pitch, columns, channels, height, a);
  else
    blur_words_v_kernel < false > <<< grid, kWordsVThreads, smem, st >>> (t,
        tp, dst, dst_pitch, columns, channels, height, a);
  return cudaGetLastError ();
}

}                               /* namespace */

extern "C" size_t
cf_blur_word_scratch_bytes (int width, int height, int channels)
{
  if (width <= 0 || height <= 0 || channels < 1 || channels > 4)
    return 0;
  return word_t_pitch (width, channels) * sizeof (float) * height;
}

namespace {

/* rows, and samples a row, at most: 2^30; samples a plane: 2^36 */
constexpr int kWordsMaxSamples = 1 << 30;
constexpr long long kWordsMaxPlane = 1LL << 36;

/* cf_blur_plane_words' checks of one plane */
bool
word_plane_ok (const CfBlurPlane * p, int depth, int shift)
{
  const size_t row_bytes = 2 * (size_t) p->width * p->channels;
  return p->src && p->dst && p->width > 0 && p->height > 0
      && p->channels >= 1 && p->channels <= 4 && depth >= 9 && depth <= 16
      && shift >= 0 && shift <= 16 - depth && p->src_pitch >= row_bytes
      && p->dst_pitch >= row_bytes
      && !(((uintptr_t) p->src | (uintptr_t) p->dst | p->src_pitch |
              p->dst_pitch) & 1)
      && kernel_ok (p->kx, CF_BLUR_WORD_BITS)
      && kernel_ok (p->ky, CF_BLUR_WORD_BITS)
      /* sizes whose index arithmetic, and count of tiles, stay far from
       * int's limit */
      && (long long) p->width * p->channels <= kWordsMaxSamples
      && p->height <= kWordsMaxSamples
      && (long long) p->width * p->channels * p->height <= kWordsMaxPlane;
}

/* the two passes' arguments for plane p */
WordBlurArgs
two_pass_args (const CfBlurPlane * p, int depth, int shift,
    CfBorder border)
{
  WordBlurArgs a = { };
  a.rx = p->kx->radius;
  a.ry = p->ky->radius;
  a.border = border;
  a.depth = depth;
  a.shift = shift;
  cf_blur_word_weights (p->kx, a.wx);
  cf_blur_word_weights (p->ky, a.wy);
  for (int c = 0; c < 4; c++) {
    /* t of a row of the value: the taps' sum over 2 rx + 1 copies */
    float row[2 * CF_BLUR_MAX_RADIUS + 1];
    a.border_value[c] = (float) (p->border_value[c] & ((1u << depth) - 1));
    for (int i = 0; i <= 2 * a.rx; i++)
      row[i] = a.border_value[c];
    a.border_t[c] = cf_blur_word_taps (a.wx, a.rx, row + a.rx, 1);
  }
  return a;
}

/* one plane, checked: in one pass where it can, else two through scratch */
cudaError_t
blur_word_plane (const CfBlurPlane * p, int depth, int shift,
    CfBorder border, void *scratch, cudaStream_t st)
{
  cudaError_t err = cudaErrorNotSupported;
  switch (words_plane_bucket (p)) {
    case 4:
      err = launch_words_tile < 4 > (p, depth, shift, border, st);
      break;
    case 8:
      err = launch_words_tile < 8 > (p, depth, shift, border, st);
      break;
    case 12:
      err = launch_words_tile < 12 > (p, depth, shift, border, st);
      break;
    case kWordsTileMaxRadius:
      err = launch_words_tile < kWordsTileMaxRadius > (p, depth, shift,
          border, st);
      break;
    default:
      break;
  }
  if (err != cudaErrorNotSupported)
    return err;

  const WordBlurArgs a = two_pass_args (p, depth, shift, border);
  return launch_words_two_passes ((const uint8_t *) p->src, p->src_pitch,
      (uint8_t *) p->dst, p->dst_pitch, p->width, p->height, p->channels, a,
      (float *) scratch, st);
}

}                               /* namespace */

extern "C" CfError
cf_blur_plane_words (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int channels, int depth,
    int shift, const CfBlurKernel * kx, const CfBlurKernel * ky,
    CfBorder border, const uint16_t border_value[4], void *scratch,
    CfStream stream)
{
  CfBlurPlane p = { src, src_pitch, dst, dst_pitch, width, height,
    channels, kx, ky, {0, 0, 0, 0}
  };
  if (border_value)
    for (int c = 0; c < 4; c++)
      p.border_value[c] = border_value[c];
  return cf_blur_planes_words (&p, 1, depth, shift, border, scratch, stream);
}

/* (the rule of cf_blur_planes too) */
extern "C" int
cf_blur_planes_overlap (const CfBlurPlane * planes, int n_planes,
    int sample_bytes)
{
  if (!planes || n_planes < 1 || n_planes > CF_BLUR_MAX_PLANES
      || sample_bytes < 1)
    return 0;
  for (int i = 0; i < n_planes; i++)
    if (planes[i].width < 1 || planes[i].height < 1 || planes[i].channels < 1)
      return 0;
  return planes_overlap (planes, n_planes, (size_t) sample_bytes);
}

extern "C" CfError
cf_blur_planes_words (const CfBlurPlane * planes, int n_planes,
    int depth, int shift, CfBorder border, void *scratch, CfStream stream)
{
  if (!planes || n_planes < 1 || n_planes > CF_BLUR_MAX_PLANES || !scratch
      || ((uintptr_t) scratch & 3)
      || border < CF_BORDER_REPLICATE || border > CF_BORDER_CONSTANT)
    return cudaErrorInvalidValue;
  for (int i = 0; i < n_planes; i++)
    if (!word_plane_ok (&planes[i], depth, shift))
      return cudaErrorInvalidValue;
  if (planes_overlap (planes, n_planes, 2))
    return cudaErrorInvalidValue;

  cf_forget_earlier_errors ();
  cudaStream_t st = (cudaStream_t) stream;
  /* one launch: luma of one channel, the others alike */
  if (n_planes > 1 && planes[0].channels == 1) {
    const int luma = words_plane_bucket (&planes[0]);
    const int chroma = words_plane_bucket (&planes[1]);
    bool alike = luma && chroma;
    for (int i = 2; i < n_planes; i++)
      alike = alike && planes[i].channels == planes[1].channels
          && words_plane_bucket (&planes[i]) == chroma;
    if (alike) {
      cudaError_t err = planes[1].channels == 1 ?
          launch_words_planes_of < 1 > (luma, chroma, planes, n_planes, depth,
          shift, border, st) :
          launch_words_planes_of < 2 > (luma, chroma, planes, n_planes, depth,
          shift, border, st);
      if (err != cudaErrorNotSupported)
        return err;
    }
  }
  /* otherwise plane by plane, on the one stream (scratch in turn) */
  for (int i = 0; i < n_planes; i++) {
    cudaError_t err = blur_word_plane (&planes[i], depth, shift, border,
        scratch, st);
    if (err != cudaSuccess)
      return err;
  }
  return cudaSuccess;
}

namespace {

/* packed 10-bit RGB in one pass, bucket R (4 or 8) */
template < int R > cudaError_t
launch_rgb10a2_tile (const CfBlurPlane * p, CfBorder border,
    cudaStream_t stream)
{
  RgbTileArgs a = { };
  a.src = (const uint8_t *) p->src;
  a.dst = (uint8_t *) p->dst;
  /* (p's pitches are twice the frame's: checked as 16-bit words) */
  a.src_pitch = p->src_pitch / 2;
  a.dst_pitch = p->dst_pitch / 2;
  a.width = p->width;
  a.height = p->height;
  a.border = border;
  a.tiles_x = (p->width + kRgbTilePixels - 1) / kRgbTilePixels;
  for (int i = 0; i <= kWordsTileMaxRadius; i++) {
    a.wx[i] = cf_blur_word_weight (p->kx, i);
    a.wy[i] = cf_blur_word_weight (p->ky, i);
  }
  /* (under 2^24 tiles: a plane holds at most 2^36 samples, 2^34 pixels) */
  const int blocks = a.tiles_x * ((p->height + kRgbTileRows - 1) /
      kRgbTileRows);
  blur_rgb10a2_tile_kernel < R > <<< blocks, kWordsTileThreads,
      rgb_tile_smem < R > (), stream >>> (a);
  return cudaGetLastError ();
}

}                               /* namespace */

extern "C" int
cf_blur_rgb10a2_one_pass (const CfBlurKernel * kx, const CfBlurKernel * ky)
{
  return kx && ky && kx->radius <= 8 && ky->radius <= 8;
}

extern "C" CfError
cf_blur_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const CfBlurKernel * kx,
    const CfBlurKernel * ky, CfBorder border, void *scratch, CfStream stream)
{
  /* as a plane of 4 channels of 10-bit samples (the alpha's below 4),
   * whose rows are half as long in bytes: checked as one */
  const CfBlurPlane p = { src, 2 * src_pitch, dst, 2 * dst_pitch, width,
    height, 4, kx, ky, {0, 0, 0, 0}
  };
  if (src_pitch > SIZE_MAX / 2 || dst_pitch > SIZE_MAX / 2
      || ((uintptr_t) scratch & 3)
      || border < CF_BORDER_REPLICATE || border > CF_BORDER_CONSTANT
      || ((uintptr_t) src | (uintptr_t) dst | src_pitch | dst_pitch) & 3
      || !word_plane_ok (&p, 10, 0))
    return cudaErrorInvalidValue;
  const bool one_pass = cf_blur_rgb10a2_one_pass (kx, ky);
  if (!one_pass && !scratch)
    return cudaErrorInvalidValue;

  cf_forget_earlier_errors ();
  /* one pass at radii up to 8 (its tile's float4s fit the default shared
   * memory), two passes beyond */
  if (one_pass && words_bucket (kx->radius > ky->radius ? kx->radius :
          ky->radius) == 4)
    return launch_rgb10a2_tile < 4 > (&p, border, (cudaStream_t) stream);
  if (one_pass)
    return launch_rgb10a2_tile < 8 > (&p, border, (cudaStream_t) stream);
  const WordBlurArgs a = two_pass_args (&p, 10, 0, border);
  return launch_words_two_passes ((const uint8_t *) src, src_pitch,
      (uint8_t *) dst, dst_pitch, width, height, 4, a, (float *) scratch,
      (cudaStream_t) stream, true);
}
