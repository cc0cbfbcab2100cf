/* Grey from packed RGB: the map pattern.  The C API and dispatch; the
 * kernels are in the .cuh files included below.
 *
 * Planes whose rows are aligned for 16-byte vectors take gray_vec_kernel
 * (gray-vec.cuh), whole vectors in and out a thread; the others take a
 * one-pixel-per-thread kernel (gray-scalar.cuh).  The arithmetic is
 * gray-reference.c's, bit for bit (gray-device.cuh). */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

#include "gray-policy.cuh"
#include "gray-device.cuh"
#include "gray-vec.cuh"
#include "gray-scalar.cuh"
#include "gray-high-bit.cuh"

namespace {

template < int BPP > void
launch_gray (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, ByteWeights w,
    cudaStream_t stream)
{
  constexpr int PX = pixels_per_thread < BPP > ();
  if (cf_is_aligned (src, src_pitch, 16) && cf_is_aligned (dst, dst_pitch, PX)) {
    int groups_per_row = (width + PX - 1) / PX;
    int n_groups = groups_per_row * height;
    gray_vec_kernel < BPP > <<<(n_groups + kBlock - 1) / kBlock, kBlock, 0,
        stream >>> (src, src_pitch, dst, dst_pitch, width, groups_per_row,
        n_groups, w);
  } else {
    dim3 block (32, 8);
    dim3 grid ((width + 31) / 32, (height + 7) / 8);
    gray_scalar_kernel < BPP > <<<grid, block, 0, stream >>> (src, src_pitch,
        dst, dst_pitch, width, height, w);
  }
}

/* the grid of a thread a sample (high-bit kernels) */
dim3
sample_grid (int width, int height)
{
  return dim3 ((width + 31) / 32, (height + 7) / 8);
}

/* The high-bit sample kernels: @TO_8, a byte a sample out (depth 9 to
 * 16), else a 16-bit word (depth 1 to 16). */
template < bool TO_8 > CfError
launch_words (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift,
    CfStream stream)
{
  if (!src || !dst || width <= 0 || height <= 0 || depth < (TO_8 ? 9 : 1)
      || depth > 16 || shift < 0 || depth + shift > 16
      || src_pitch < (size_t) width * 2
      || dst_pitch < (size_t) width * (TO_8 ? 1 : 2)
      || (height + 7) / 8 > 65535)
    return cudaErrorInvalidValue;
  cf_forget_earlier_errors ();
  const size_t out_align = TO_8 ? 8 : 16;
  if ((((uintptr_t) src | src_pitch) & 15) == 0
      && (((uintptr_t) dst | dst_pitch) & (out_align - 1)) == 0)
    words8_kernel < TO_8 > <<<sample_grid ((width + 7) / 8, height),
        dim3 (32, 8), 0, (cudaStream_t) stream >>> ((const uint8_t *) src,
        src_pitch, (uint8_t *) dst, dst_pitch, width, height, depth, shift);
  else
    words_kernel < TO_8 > <<<sample_grid (width, height), dim3 (32, 8), 0,
        (cudaStream_t) stream >>> ((const uint8_t *) src, src_pitch,
        (uint8_t *) dst, dst_pitch, width, height, depth, shift);
  return cudaGetLastError ();
}

}                               /* namespace */

extern "C" CfError
cf_plane_to_msb16 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift,
    CfStream stream)
{
  return launch_words < false > (src, src_pitch, dst, dst_pitch, width,
      height, depth, shift, stream);
}

extern "C" CfError
cf_plane_to_8 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift,
    CfStream stream)
{
  return launch_words < true > (src, src_pitch, dst, dst_pitch, width,
      height, depth, shift, stream);
}

namespace {

template < bool TO_8 > CfError
launch_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int swap_rb, CfGrayMatrix matrix,
    CfStream stream)
{
  if (!src || !dst || width <= 0 || height <= 0
      || src_pitch < (size_t) width * 4
      || dst_pitch < (size_t) width * (TO_8 ? 1 : 2)
      || (height + 7) / 8 > 65535)
    return cudaErrorInvalidValue;
  cf_forget_earlier_errors ();
  CfGrayWeights k = cf_gray_weights (matrix);
  rgb10a2_kernel < TO_8 > <<<sample_grid (width, height), dim3 (32, 8), 0,
      (cudaStream_t) stream >>> ((const uint8_t *) src, src_pitch,
      (uint8_t *) dst, dst_pitch, width, height, k.kr, k.kg, k.kb,
      swap_rb != 0);
  return cudaGetLastError ();
}

}                               /* namespace */

extern "C" CfError
cf_gray16_from_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int swap_rb, CfGrayMatrix matrix,
    CfStream stream)
{
  return launch_rgb10a2 < false > (src, src_pitch, dst, dst_pitch, width,
      height, swap_rb, matrix, stream);
}

extern "C" CfError
cf_gray8_from_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int swap_rb, CfGrayMatrix matrix,
    CfStream stream)
{
  return launch_rgb10a2 < true > (src, src_pitch, dst, dst_pitch, width,
      height, swap_rb, matrix, stream);
}

extern "C" CfError
cf_gray_from_packed (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, CfPackedLayout layout,
    CfGrayMatrix matrix, CfStream stream)
{
  int bpp = layout.bytes_per_pixel;
  if (!src || !dst || width <= 0 || height <= 0 || (bpp != 3 && bpp != 4)
      || layout.r < 0 || layout.r >= bpp || layout.g < 0 || layout.g >= bpp
      || layout.b < 0 || layout.b >= bpp
      || src_pitch < (size_t) width * bpp || dst_pitch < (size_t) width)
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

  if (bpp == 4)
    launch_gray < 4 > ((const uint8_t *) src, src_pitch, (uint8_t *) dst,
        dst_pitch, width, height, w, stream);
  else
    launch_gray < 3 > ((const uint8_t *) src, src_pitch, (uint8_t *) dst,
        dst_pitch, width, height, w, stream);
  return cudaGetLastError ();
}
