/* gray_vec_kernel: each thread reads whole 16-byte vectors and writes one
 * vector of grey (pixels_per_thread()), so every warp moves whole cache
 * lines and each thread has independent loads in flight.  Rows are
 * flattened into one index space so no thread idles at the end of a row;
 * a row's ragged end, where the width is not a multiple of the pixels a
 * thread, is done a pixel at a time.
 * The blocks after the plane's set the neutral chroma (gray-neutral.cuh).
 * Dispatch (launch_gray): the source's base and pitch multiples of 16,
 * the destination's of the pixels a thread.
 * Tests: test_gpu_equals_reference (tight and padded pitches),
 * test_gpu_solid_colour, test_neutral_planes. */
#ifndef CUDAFILTERS_GRAY_VEC_CUH
#define CUDAFILTERS_GRAY_VEC_CUH

#include "gray-policy.cuh"
#include "gray-device.cuh"
#include "gray-neutral.cuh"

namespace {

template < int BPP > __global__ void
gray_vec_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width,
    int groups_per_row, int n_groups, ByteWeights w, NeutralFill fill)
{
  constexpr int PX = pixels_per_thread < BPP > ();
  constexpr int LOADS = PX * BPP / 16;
  if (neutral_fill_block (fill))
    return;
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

}                               /* namespace */

#endif
