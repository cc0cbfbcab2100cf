/* luma_copy_kernel: a YUV frame's luma plane copied as it is
 * (cf_gray_copy_luma), 16 bytes a thread as cf_copy_plane's kernel
 * (kernels/common/plane.cu), rows flattened into one index space, a row's
 * last bytes one at a time; the blocks after the plane's set the neutral
 * chroma (gray-neutral.cuh).
 * Dispatch (cf_gray_copy_luma): both planes' data and pitch multiples of
 * 16; otherwise cf_copy_plane () (the runtime's 2D copy) and the fills
 * apart.
 * Tests: test_neutral_planes (the luma rows). */
#ifndef CUDAFILTERS_GRAY_LUMA_CUH
#define CUDAFILTERS_GRAY_LUMA_CUH

#include "gray-neutral.cuh"

namespace {

__global__ void
luma_copy_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, size_t row_bytes,
    int vecs_per_row, int n_vecs, NeutralFill fill)
{
  if (neutral_fill_block (fill))
    return;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= n_vecs)
    return;
  int y = idx / vecs_per_row;
  size_t x = (size_t) (idx - y * vecs_per_row) * 16;
  const uint8_t *s = src + (size_t) y * src_pitch + x;
  uint8_t *d = dst + (size_t) y * dst_pitch + x;

  if (x + 16 <= row_bytes) {
    *reinterpret_cast < uint4 * >(d) = *reinterpret_cast < const uint4 * >(s);
  } else {
    for (size_t i = 0; i < row_bytes - x; i++)
      d[i] = s[i];
  }
}

}                               /* namespace */

#endif
