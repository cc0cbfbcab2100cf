/* Plane copy and fill: a device-to-device 2D memcpy runs well short of
 * the bandwidth a plane allows; this kernel moves 16 bytes per thread and
 * reaches what a 1D copy of the same bytes does.  Misaligned planes fall
 * back to the runtime's 2D copy/set. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

namespace {

constexpr int kBlock = 256;

template < bool FILL > __global__ void
plane_vec16_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, size_t row_bytes,
    int vecs_per_row, int n_vecs, uint8_t value)
{
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n_vecs)
    return;
  int y = idx / vecs_per_row;
  size_t x = (size_t) (idx - y * vecs_per_row) * 16;
  uint8_t *d = dst + (size_t) y * dst_pitch + x;
  const uint8_t *s = FILL ? nullptr : src + (size_t) y * src_pitch + x;

  if (x + 16 <= row_bytes) {
    uint32_t v4 = value * 0x01010101u;
    *reinterpret_cast < uint4 * >(d) = FILL ? make_uint4 (v4, v4, v4, v4) :
        *reinterpret_cast < const uint4 * >(s);
  } else {
    for (size_t i = 0; i < row_bytes - x; i++)
      d[i] = FILL ? value : s[i];
  }
}

template < bool FILL > CfError
launch_plane (const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
    size_t row_bytes, int rows, uint8_t value, cudaStream_t stream)
{
  long long vecs_per_row = (long long) ((row_bytes + 15) / 16);
  if (vecs_per_row * rows > INT32_MAX - kBlock)
    return cudaErrorInvalidValue;
  int n = (int) (vecs_per_row * rows);
  cf_forget_earlier_errors ();
  plane_vec16_kernel < FILL > <<<(n + kBlock - 1) / kBlock, kBlock, 0,
      stream >>> ((const uint8_t *) src, src_pitch, (uint8_t *) dst,
      dst_pitch, row_bytes, (int) vecs_per_row, n, value);
  return cudaGetLastError ();
}

/* a word a thread, a byte at a time: any alignment (#48's chroma; not
 * yet tuned) */
__global__ void
fill16_kernel (uint8_t * __restrict__ dst, size_t pitch, int words_per_row,
    int rows, uint16_t value)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= words_per_row || y >= rows)
    return;
  uint8_t *d = dst + (size_t) y * pitch + (size_t) x * 2;
  d[0] = (uint8_t) value;
  d[1] = (uint8_t) (value >> 8);
}

}                               /* namespace */

extern "C" CfError
cf_fill_plane16 (void *dst, size_t pitch, int words_per_row, int rows,
    uint16_t value, CfStream stream)
{
  if (rows <= 0 || words_per_row <= 0)
    return cudaSuccess;
  if (!dst || pitch < (size_t) words_per_row * 2 || (rows + 7) / 8 > 65535)
    return cudaErrorInvalidValue;
  cf_forget_earlier_errors ();
  fill16_kernel <<<dim3 ((words_per_row + 31) / 32, (rows + 7) / 8),
      dim3 (32, 8), 0, (cudaStream_t) stream >>> ((uint8_t *) dst, pitch,
      words_per_row, rows, value);
  return cudaGetLastError ();
}

extern "C" CfError
cf_copy_plane (const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
    size_t row_bytes, int rows, CfStream stream)
{
  if (rows <= 0 || row_bytes == 0)
    return cudaSuccess;
  if (!src || !dst || src_pitch < row_bytes || dst_pitch < row_bytes)
    return cudaErrorInvalidValue;
  if (cf_is_aligned (src, src_pitch, 16) && cf_is_aligned (dst, dst_pitch, 16))
    return launch_plane < false > (src, src_pitch, dst, dst_pitch, row_bytes,
        rows, 0, stream);
  return cudaMemcpy2DAsync (dst, dst_pitch, src, src_pitch, row_bytes,
      (size_t) rows, cudaMemcpyDeviceToDevice, stream);
}

extern "C" CfError
cf_fill_plane (void *dst, size_t pitch, size_t row_bytes, int rows,
    uint8_t value, CfStream stream)
{
  if (rows <= 0 || row_bytes == 0)
    return cudaSuccess;
  if (!dst || pitch < row_bytes)
    return cudaErrorInvalidValue;
  if (cf_is_aligned (dst, pitch, 16))
    return launch_plane < true > (nullptr, 0, dst, pitch, row_bytes, rows,
        value, stream);
  return cudaMemset2DAsync (dst, pitch, value, row_bytes, (size_t) rows,
      stream);
}
