/* gray_scalar_kernel: a pixel a thread, a 2D grid, any alignment; the
 * blocks after the plane's set the neutral chroma (gray-neutral.cuh).
 * Dispatch (launch_gray): planes not aligned for gray_vec_kernel's
 * vectors.
 * Tests: test_gpu_equals_reference (misaligned pitches),
 * test_neutral_planes. */
#ifndef CUDAFILTERS_GRAY_SCALAR_CUH
#define CUDAFILTERS_GRAY_SCALAR_CUH

#include "gray-device.cuh"
#include "gray-neutral.cuh"

namespace {

template < int BPP > __global__ void
gray_scalar_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    ByteWeights w, NeutralFill fill)
{
  if (neutral_fill_block (fill))
    return;
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height)
    return;
  const uint8_t *p = src + (size_t) y * src_pitch + (size_t) x * BPP;
  dst[(size_t) y * dst_pitch + x] =
      (uint8_t) gray_of (p[0], p[1], p[2], BPP == 4 ? p[3] : 0u, w);
}

}                               /* namespace */

#endif
