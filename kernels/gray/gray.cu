/* Grey from packed RGB: the map pattern.  The C API and dispatch; the
 * kernels are in the .cuh files included below.
 *
 * Planes whose rows are aligned for 16-byte vectors take gray_vec_kernel
 * (gray-vec.cuh), whole vectors in and out a thread; the others take a
 * one-pixel-per-thread kernel (gray-scalar.cuh).  The arithmetic is
 * gray-reference.c's, bit for bit (gray-device.cuh).  Each launch also
 * carries the blocks that set the frame's neutral chroma, where it can
 * (gray-neutral.cuh). */
#include "cudafilters-kernels.h"
#include "cudafilters-kernels-testing.h"
#include "kernels-common.cuh"

#include "gray-policy.cuh"
#include "gray-device.cuh"
#include "gray-neutral.cuh"
#include "gray-vec.cuh"
#include "gray-scalar.cuh"
#include "gray-high-bit.cuh"
#include "gray-luma.cuh"

namespace {

/* cf_gray_neutral_fused_launches () (cudafilters-kernels-testing.h) */
std::atomic < unsigned long long >neutral_fused_launches (0);

/* the blocks of the 2D kernels, a thread a pixel or sample */
const dim3 kSampleBlock (32, 8);

/* The launch of a 2D kernel over @width x @height threads, with
 * @neutral's blocks where it can. */
NeutralLaunch
sample_launch (int width, int height, const CfNeutralPlanes * neutral)
{
  return neutral_launch (dim3 ((width + 31) / 32, (height + 7) / 8),
      kSampleBlock.x * kSampleBlock.y, neutral);
}

template < int BPP > NeutralLaunch
launch_gray (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, ByteWeights w,
    const CfNeutralPlanes * neutral, cudaStream_t stream)
{
  constexpr int PX = pixels_per_thread < BPP > ();
  if (cf_is_aligned (src, src_pitch, 16) && cf_is_aligned (dst, dst_pitch, PX)) {
    int groups_per_row = (width + PX - 1) / PX;
    int n_groups = groups_per_row * height;
    NeutralLaunch l = neutral_launch (dim3 ((n_groups + kBlock - 1) / kBlock),
        kBlock, neutral);
    gray_vec_kernel < BPP > <<<l.grid, kBlock, 0, stream >>> (src, src_pitch,
        dst, dst_pitch, width, groups_per_row, n_groups, w, l.fill);
    return l;
  }
  NeutralLaunch l = sample_launch (width, height, neutral);
  gray_scalar_kernel < BPP > <<<l.grid, kSampleBlock, 0, stream >>> (src,
      src_pitch, dst, dst_pitch, width, height, w, l.fill);
  return l;
}

/* The high-bit sample kernels: @TO_8, a byte a sample out (depth 9 to
 * 16), else a 16-bit word (depth 1 to 16). */
template < bool TO_8 > CfError
launch_words (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift,
    const CfNeutralPlanes * neutral, CfStream stream)
{
  if (!src || !dst || width <= 0 || height <= 0 || depth < (TO_8 ? 9 : 1)
      || depth > 16 || shift < 0 || depth + shift > 16
      || src_pitch < (size_t) width * 2
      || dst_pitch < (size_t) width * (TO_8 ? 1 : 2)
      || (height + 7) / 8 > 65535 || !neutral_planes_valid (neutral))
    return cudaErrorInvalidValue;
  cf_forget_earlier_errors ();
  const size_t out_align = TO_8 ? 8 : 16;
  NeutralLaunch l;
  if ((((uintptr_t) src | src_pitch) & 15) == 0
      && (((uintptr_t) dst | dst_pitch) & (out_align - 1)) == 0) {
    l = sample_launch ((width + 7) / 8, height, neutral);
    words8_kernel < TO_8 > <<<l.grid, kSampleBlock, 0,
        (cudaStream_t) stream >>> ((const uint8_t *) src, src_pitch,
        (uint8_t *) dst, dst_pitch, width, height, depth, shift, l.fill);
  } else {
    l = sample_launch (width, height, neutral);
    words_kernel < TO_8 > <<<l.grid, kSampleBlock, 0,
        (cudaStream_t) stream >>> ((const uint8_t *) src, src_pitch,
        (uint8_t *) dst, dst_pitch, width, height, depth, shift, l.fill);
  }
  return neutral_launched (l, neutral, stream, neutral_fused_launches);
}

}                               /* namespace */

extern "C" CfError
cf_plane_to_msb16 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift,
    const CfNeutralPlanes * neutral, CfStream stream)
{
  return launch_words < false > (src, src_pitch, dst, dst_pitch, width,
      height, depth, shift, neutral, stream);
}

extern "C" CfError
cf_plane_to_8 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift,
    const CfNeutralPlanes * neutral, CfStream stream)
{
  return launch_words < true > (src, src_pitch, dst, dst_pitch, width,
      height, depth, shift, neutral, stream);
}

namespace {

template < bool TO_8 > CfError
launch_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int swap_rb, CfGrayMatrix matrix,
    const CfNeutralPlanes * neutral, CfStream stream)
{
  if (!src || !dst || width <= 0 || height <= 0
      || src_pitch < (size_t) width * 4
      || dst_pitch < (size_t) width * (TO_8 ? 1 : 2)
      || (height + 7) / 8 > 65535 || !neutral_planes_valid (neutral))
    return cudaErrorInvalidValue;
  cf_forget_earlier_errors ();
  CfGrayWeights k = cf_gray_weights (matrix);
  NeutralLaunch l = sample_launch (width, height, neutral);
  rgb10a2_kernel < TO_8 > <<<l.grid, kSampleBlock, 0,
      (cudaStream_t) stream >>> ((const uint8_t *) src, src_pitch,
      (uint8_t *) dst, dst_pitch, width, height, k.kr, k.kg, k.kb,
      swap_rb != 0, l.fill);
  return neutral_launched (l, neutral, stream, neutral_fused_launches);
}

}                               /* namespace */

extern "C" CfError
cf_gray16_from_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int swap_rb, CfGrayMatrix matrix,
    const CfNeutralPlanes * neutral, CfStream stream)
{
  return launch_rgb10a2 < false > (src, src_pitch, dst, dst_pitch, width,
      height, swap_rb, matrix, neutral, stream);
}

extern "C" CfError
cf_gray8_from_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int swap_rb, CfGrayMatrix matrix,
    const CfNeutralPlanes * neutral, CfStream stream)
{
  return launch_rgb10a2 < true > (src, src_pitch, dst, dst_pitch, width,
      height, swap_rb, matrix, neutral, stream);
}

extern "C" CfError
cf_gray_from_packed (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, CfPackedLayout layout,
    CfGrayMatrix matrix, const CfNeutralPlanes * neutral, CfStream stream)
{
  int bpp = layout.bytes_per_pixel;
  if (!src || !dst || width <= 0 || height <= 0 || (bpp != 3 && bpp != 4)
      || layout.r < 0 || layout.r >= bpp || layout.g < 0 || layout.g >= bpp
      || layout.b < 0 || layout.b >= bpp
      || src_pitch < (size_t) width * bpp || dst_pitch < (size_t) width
      || !neutral_planes_valid (neutral))
    return cudaErrorInvalidValue;
  /* thread indices are ints: every grid this launches stays below 2^31 */
  if (((long long) width + 15) / 8 * height > INT32_MAX - kBlock
      || (long long) width * bpp > INT32_MAX)
    return cudaErrorInvalidValue;

  cf_forget_earlier_errors ();
  CfGrayWeights k = cf_gray_weights (matrix);
  ByteWeights w = { {0, 0, 0, 0} };
  w.w[layout.r] = k.kr;
  w.w[layout.g] = k.kg;
  w.w[layout.b] = k.kb;

  NeutralLaunch l = bpp == 4 ?
      launch_gray < 4 > ((const uint8_t *) src, src_pitch, (uint8_t *) dst,
      dst_pitch, width, height, w, neutral, stream) :
      launch_gray < 3 > ((const uint8_t *) src, src_pitch, (uint8_t *) dst,
      dst_pitch, width, height, w, neutral, stream);
  return neutral_launched (l, neutral, stream, neutral_fused_launches);
}

extern "C" CfError
cf_gray_copy_luma (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, size_t row_bytes, int rows,
    const CfNeutralPlanes * neutral, CfStream stream)
{
  if (!src || !dst || row_bytes == 0 || rows <= 0 || src_pitch < row_bytes
      || dst_pitch < row_bytes || !neutral_planes_valid (neutral))
    return cudaErrorInvalidValue;
  if (!cf_is_aligned (src, src_pitch, 16)
      || !cf_is_aligned (dst, dst_pitch, 16)) {
    CfError err = cf_copy_plane (src, src_pitch, dst, dst_pitch, row_bytes,
        rows, stream);
    return err != cudaSuccess ? err : neutral_fill_apart (neutral, stream);
  }
  /* thread indices are ints (as cf_copy_plane's) */
  long long vecs_per_row = (long long) ((row_bytes + 15) / 16);
  if (vecs_per_row * rows > INT32_MAX - kBlock)
    return cudaErrorInvalidValue;
  int n_vecs = (int) (vecs_per_row * rows);

  cf_forget_earlier_errors ();
  NeutralLaunch l = neutral_launch (dim3 ((n_vecs + kBlock - 1) / kBlock),
      kBlock, neutral);
  luma_copy_kernel <<<l.grid, kBlock, 0, (cudaStream_t) stream >>> (
      (const uint8_t *) src, src_pitch, (uint8_t *) dst, dst_pitch, row_bytes,
      (int) vecs_per_row, n_vecs, l.fill);
  return neutral_launched (l, neutral, stream, neutral_fused_launches);
}

extern "C" unsigned long long
cf_gray_neutral_fused_launches (void)
{
  return neutral_fused_launches.load (std::memory_order_relaxed);
}
