/* High-bit-depth grey (#48): a sample or a pixel a thread, a 2D grid, any
 * alignment (a word is read and written a byte at a time).
 *   words_kernel<TO_8>   d-bit samples of 16-bit words, MSB-aligned into
 *                        16-bit words or rounded to bytes
 *                        (cf_ref_plane_to_msb16, cf_ref_plane_to_8);
 *   words8_kernel<TO_8>  the same, 8 samples a thread in vectors, for
 *                        planes whose rows start on 16 bytes;
 *   rgb10a2_kernel<TO_8> grey of RGB10A2_LE or BGR10A2_LE words, MSB-aligned
 *                        (cf_ref_gray16_from_rgb10a2) or to 8 bits (that,
 *                        then cf_ref_plane_to_8 at depth 16).
 * The blocks after the plane's set the neutral chroma
 * (gray-neutral.cuh).  The arithmetic is gray-reference.c's, bit for
 * bit.  Tests (kernels-gray): test_high_bit_equals_reference,
 * test_rgb10a2_equals_reference, test_neutral_planes.  Their speed
 * against the floor is in docs/performance.md. */
#ifndef CUDAFILTERS_GRAY_HIGH_BIT_CUH
#define CUDAFILTERS_GRAY_HIGH_BIT_CUH

#include <stdint.h>

#include "gray-neutral.cuh"

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

/* a word's sample, MSB-aligned in 16 bits or rounded to 8 */
template < bool TO_8 > __device__ __forceinline__ uint32_t
convert_word (uint32_t word, int depth, int shift)
{
  uint32_t v = (word >> shift) & ((1u << depth) - 1);
  if (TO_8)
    return min ((v + (1u << (depth - 9))) >> (depth - 8), 255u);
  return v << (16 - depth);
}

template < bool TO_8 > __global__ void
words_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    int depth, int shift, NeutralFill fill)
{
  if (neutral_fill_block (fill))
    return;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  uint32_t v = convert_word < TO_8 >
      (load16 (src + (size_t) y * src_pitch + (size_t) x * 2), depth, shift);
  if (TO_8)
    dst[(size_t) y * dst_pitch + x] = (uint8_t) v;
  else
    store16 (dst + (size_t) y * dst_pitch + (size_t) x * 2, v);
}

/* words_kernel for planes whose rows start on 16 bytes (and the output's
 * on 16, or 8 for bytes): 8 samples a thread, read as one vector, the
 * row's last ones one at a time. */
template < bool TO_8 > __global__ void
words8_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    int depth, int shift, NeutralFill fill)
{
  if (neutral_fill_block (fill))
    return;
  int x = 8 * (blockIdx.x * blockDim.x + threadIdx.x);
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const uint8_t *in = src + (size_t) y * src_pitch + (size_t) x * 2;
  uint8_t *out = dst + (size_t) y * dst_pitch + (size_t) x * (TO_8 ? 1 : 2);
  if (x + 8 > width) {
    for (int i = 0; i < width - x; i++) {
      uint32_t v = convert_word < TO_8 > (load16 (in + 2 * i), depth, shift);
      if (TO_8)
        out[i] = (uint8_t) v;
      else
        store16 (out + 2 * i, v);
    }
    return;
  }
  const uint4 w = *(const uint4 *) in;
  const uint32_t parts[4] = { w.x, w.y, w.z, w.w };
  uint32_t packed[4];
#pragma unroll
  for (int k = 0; k < 4; k++) {
    uint32_t lo = convert_word < TO_8 > (parts[k] & 0xffff, depth, shift);
    uint32_t hi = convert_word < TO_8 > (parts[k] >> 16, depth, shift);
    packed[k] = TO_8 ? lo | hi << 8 : lo | hi << 16;
  }
  if (TO_8)
    *(uint2 *) out = make_uint2 (packed[0] | packed[1] << 16,
        packed[2] | packed[3] << 16);
  else
    *(uint4 *) out = make_uint4 (packed[0], packed[1], packed[2], packed[3]);
}

template < bool TO_8 > __global__ void
rgb10a2_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    uint32_t kr, uint32_t kg, uint32_t kb, bool swap_rb, NeutralFill fill)
{
  if (neutral_fill_block (fill))
    return;
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
