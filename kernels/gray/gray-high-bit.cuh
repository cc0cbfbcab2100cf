/* High-bit-depth grey (#48): a sample or a pixel a thread, a 2D grid, any
 * alignment (a word is read and written a byte at a time).
 *   words_kernel<TO_8>   d-bit samples of 16-bit words, MSB-aligned into
 *                        16-bit words or rounded to bytes
 *                        (cf_ref_plane_to_msb16, cf_ref_plane_to_8);
 *   rgb10a2_kernel<TO_8> grey of RGB10A2_LE or BGR10A2_LE words, MSB-aligned
 *                        (cf_ref_gray16_from_rgb10a2) or to 8 bits (that,
 *                        then cf_ref_plane_to_8 at depth 16).
 * The arithmetic is gray-reference.c's, bit for bit.  Tests (kernels-gray):
 * test_high_bit_equals_reference, test_rgb10a2_equals_reference.  Not yet
 * tuned: their floors are still to be measured. */
#ifndef CUDAFILTERS_GRAY_HIGH_BIT_CUH
#define CUDAFILTERS_GRAY_HIGH_BIT_CUH

#include <stdint.h>

namespace {

__device__ __forceinline__ uint32_t
load16 (const uint8_t * p)
{
  return p[0] | (uint32_t) p[1] << 8;
}

__device__ __forceinline__ void
store16 (uint8_t * p, uint32_t v)
{
  p[0] = (uint8_t) v;
  p[1] = (uint8_t) (v >> 8);
}

template < bool TO_8 > __global__ void
words_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    int depth, int shift)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  uint32_t v = (load16 (src + (size_t) y * src_pitch + (size_t) x * 2)
      >> shift) & ((1u << depth) - 1);
  if (TO_8) {
    v = (v + (1u << (depth - 9))) >> (depth - 8);
    dst[(size_t) y * dst_pitch + x] = (uint8_t) min (v, 255u);
  } else {
    store16 (dst + (size_t) y * dst_pitch + (size_t) x * 2, v << (16 - depth));
  }
}

template < bool TO_8 > __global__ void
rgb10a2_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    uint32_t kr, uint32_t kg, uint32_t kb, bool swap_rb)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const uint8_t *p = src + (size_t) y * src_pitch + (size_t) x * 4;
  uint32_t word = load16 (p) | load16 (p + 2) << 16;
  uint32_t lo = word & 1023u, g = (word >> 10) & 1023u;
  uint32_t hi = (word >> 20) & 1023u;
  uint32_t r = swap_rb ? hi : lo, b = swap_rb ? lo : hi;
  uint32_t luma10 = (kr * r + kg * g + kb * b + 32768u) >> 16;
  if (TO_8)                     /* words_kernel's rounding at depth 10 */
    dst[(size_t) y * dst_pitch + x] = (uint8_t) min ((luma10 + 2) >> 2, 255u);
  else
    store16 (dst + (size_t) y * dst_pitch + (size_t) x * 2, luma10 << 6);
}

}                               /* namespace */

#endif
