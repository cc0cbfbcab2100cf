/* Grey from packed RGB: the map pattern.
 *
 * Each thread reads whole 16-byte vectors and writes one vector of grey:
 * 8 RGBA-type pixels (two loads, an 8-byte store) or 16 RGB pixels (three
 * loads, a 16-byte store, as 16 pixels are the fewest that fill whole
 * vectors).  Every warp moves whole cache lines and each thread has
 * independent loads in flight; 8 pixels measured ~3% faster than 4 or 16
 * for RGBA at 4K on an H100 (docs/notes.md).  Rows are flattened into one
 * index space so no thread idles at the end of a row.  Planes whose rows are
 * not aligned for those vectors take a one-pixel-per-thread kernel.  The
 * arithmetic is gray-reference.c's, bit for bit. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

namespace {

constexpr int kBlock = 256;

/* pixels per thread: whole 16-byte input vectors, a vector of output */
template < int BPP > __host__ __device__ constexpr int
pixels_per_thread ()
{
  return BPP == 4 ? 8 : 16;
}

/* Weights per byte position within a pixel; the alpha/padding byte has 0, so
 * one formula serves every channel order. */
struct ByteWeights
{
  uint32_t w[4];
};

__device__ __forceinline__ uint32_t
gray_of (uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3,
    const ByteWeights & w)
{
  return (w.w[0] * b0 + w.w[1] * b1 + w.w[2] * b2 + w.w[3] * b3 + 32768u) >> 16;
}

__device__ __forceinline__ uint32_t
byte_at (const uint32_t * words, int i)
{
  return (words[i >> 2] >> (8 * (i & 3))) & 0xffu;
}

template < int BPP > __global__ void
gray_vec_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width,
    int groups_per_row, int n_groups, ByteWeights w)
{
  constexpr int PX = pixels_per_thread < BPP > ();
  constexpr int LOADS = PX * BPP / 16;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n_groups)
    return;
  int y = idx / groups_per_row;
  int x0 = (idx - y * groups_per_row) * PX;
  const uint8_t *s = src + (size_t) y * src_pitch + (size_t) x0 * BPP;
  uint8_t *d = dst + (size_t) y * dst_pitch + x0;

  if (x0 + PX <= width) {
    uint32_t words[4 * LOADS];
#pragma unroll
    for (int i = 0; i < LOADS; i++) {
      uint4 v = reinterpret_cast < const uint4 * >(s)[i];
      words[4 * i + 0] = v.x;
      words[4 * i + 1] = v.y;
      words[4 * i + 2] = v.z;
      words[4 * i + 3] = v.w;
    }
    uint32_t out[PX / 4];
#pragma unroll
    for (int q = 0; q < PX / 4; q++) {
      uint32_t packed = 0;
#pragma unroll
      for (int k = 0; k < 4; k++) {
        int p = (4 * q + k) * BPP;
        uint32_t g = gray_of (byte_at (words, p), byte_at (words, p + 1),
            byte_at (words, p + 2), BPP == 4 ? byte_at (words, p + 3) : 0u, w);
        packed |= g << (8 * k);
      }
      out[q] = packed;
    }
    if constexpr (PX == 8)
      *reinterpret_cast < uint2 * >(d) = make_uint2 (out[0], out[1]);
    else
      *reinterpret_cast < uint4 * >(d) = make_uint4 (out[0], out[1], out[2],
          out[3]);
  } else {
    /* the ragged end of a row whose width is not a multiple of PX */
    for (int x = 0; x < width - x0; x++) {
      const uint8_t *p = s + x * BPP;
      d[x] = (uint8_t) gray_of (p[0], p[1], p[2], BPP == 4 ? p[3] : 0u, w);
    }
  }
}

template < int BPP > __global__ void
gray_scalar_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    ByteWeights w)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const uint8_t *p = src + (size_t) y * src_pitch + (size_t) x * BPP;
  dst[(size_t) y * dst_pitch + x] =
      (uint8_t) gray_of (p[0], p[1], p[2], BPP == 4 ? p[3] : 0u, w);
}

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

}                               /* namespace */

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
