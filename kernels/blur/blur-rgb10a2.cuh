/* The high-bit blur of packed 10-bit RGB in one pass (#48,
 * cf_blur_rgb10a2 at radii up to 8; larger radii take blur-words.cuh's
 * two passes): the words' arithmetic (cudafilters-kernels.h, "High bit
 * depth") on four channels a pixel, R, G, B and the 2-bit alpha, each
 * field a sample.  A block stages a tile of 32 x 32 pixels and its halo
 * as float4s in shared memory, filters each row in place, a lane taking
 * one field of a run of 4 pixels, then each field's column, the 4 lanes
 * of a pixel joining their fields into it by shuffles.  Test
 * (kernels-blur): test_blur_rgb10a2_equals_reference. */
#ifndef CUDAFILTERS_BLUR_RGB10A2_CUH
#define CUDAFILTERS_BLUR_RGB10A2_CUH

#include "blur-words.cuh"

namespace {

/* A tile of 32 x 32 pixels */
constexpr int kRgbTilePixels = 32;
constexpr int kRgbTileRows = 32;
constexpr int kRgbTileRun = 4;          /* pixels of one field a lane filters */
constexpr int kRgbTileRowsEach = 16;    /* output rows a thread sums */

/* pixels of a staged row: the tile's and the halo both sides */
template < int R > __host__ __device__ constexpr int
rgb_tile_row_pixels ()
{
  return kRgbTilePixels + 2 * R;
}

/* The float4 that staged pixel p of a row takes: one left empty after
 * every 4, so that the lanes of a warp, each reading one field of a run of
 * 4 pixels (4 fields of 8 runs), find 32 different banks */
__host__ __device__ constexpr int
rgb_tile_slot (int p)
{
  return p + p / kRgbTileRun;
}

/* floats of a staged row */
template < int R > __host__ __device__ constexpr int
rgb_tile_row_floats ()
{
  return 4 * (rgb_tile_slot (rgb_tile_row_pixels < R > () - 1) + 1);
}

template < int R > __host__ __device__ constexpr size_t
rgb_tile_smem ()
{
  return sizeof (float) * (kRgbTileRows + 2 * R) * rgb_tile_row_floats < R >
      ();
}

struct RgbTileArgs
{
  const uint8_t *src;
  uint8_t *dst;
  size_t src_pitch, dst_pitch;
  int width, height, tiles_x, border;
  /* cf_blur_word_weights (); 0 past the radius */
  float wx[kWordsTileMaxRadius + 1];
  float wy[kWordsTileMaxRadius + 1];
};

/* One tile of packed 10-bit RGB a block (R is the radius bucket, 4 or 8):
 * staged with the halo (border rule applied; the constant border 0 in
 * every field), a pixel's four fields as 4 floats; each row filtered in
 * place, a lane taking one field of 4 pixels; then each field's column
 * summed, the 4 lanes of a pixel joining their fields into it. */
template < int R > __global__ void
__launch_bounds__ (kWordsTileThreads)
blur_rgb10a2_tile_kernel (const __grid_constant__ RgbTileArgs a)
{
  extern __shared__ float4 tile4[];
  constexpr int L = rgb_tile_row_pixels < R > ();
  constexpr int LF = rgb_tile_row_floats < R > ();
  constexpr int kRows = kRgbTileRows + 2 * R;
  constexpr int kWarps = kWordsTileThreads / 32;
  float *tile = (float *) tile4;
  const int x0 = blockIdx.x % a.tiles_x * kRgbTilePixels;
  const int y0 = blockIdx.x / a.tiles_x * kRgbTileRows;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  /* a thread's pixels i = threadIdx.x + 256 k: every load issued before
   * the first is converted */
  constexpr int kEach = (kRows * L + kWordsTileThreads - 1) /
      kWordsTileThreads;
  uint32_t px[kEach];
#pragma unroll
  for (int k = 0; k < kEach; k++) {
    const int i = threadIdx.x + k * kWordsTileThreads;
    const int sy = border_index (y0 - R + i / L, a.height, a.border);
    const int sx = border_index (x0 - R + i % L, a.width, a.border);
    px[k] = 0;
    if (i < kRows * L && sy >= 0 && sx >= 0)
      px[k] = __ldg ((const uint32_t *) (a.src + (size_t) sy * a.src_pitch) +
          sx);
  }
#pragma unroll
  for (int k = 0; k < kEach; k++) {
    const int i = threadIdx.x + k * kWordsTileThreads;
    if (i < kRows * L)
      tile4[i / L * (LF / 4) + rgb_tile_slot (i % L)] =
          make_float4 (int_to_float (px[k] & 1023),
          int_to_float ((px[k] >> 10) & 1023),
          int_to_float ((px[k] >> 20) & 1023), int_to_float (px[k] >> 30));
  }
  __syncthreads ();

  /* rows: a warp a row, a lane field c of the run of pixels 4 g to
   * 4 g + 3; t written over the samples once the warp has read its taps */
  constexpr int K = kRgbTileRun;
  static_assert (kRgbTilePixels == 8 * K, "a warp's 8 runs a row");
  const int g = lane / 4, c = lane % 4;
  for (int r = warp; r < kRows; r += kWarps) {
    float *row = tile + r * LF + c;
    float v[K + 2 * R];
#pragma unroll
    for (int j = 0; j < K + 2 * R; j++)
      v[j] = row[4 * rgb_tile_slot (K * g + j)];
    float t[K];
#pragma unroll
    for (int k = 0; k < K; k++)
      t[k] = words_taps_fixed < R > (a.wx,[&](int i) {
            return v[k + R + i];});
    __syncwarp ();
#pragma unroll
    for (int k = 0; k < K; k++)
      row[4 * rgb_tile_slot (R + K * g + k)] = t[k];
  }
  __syncthreads ();

  /* columns: a thread kRgbTileRowsEach outputs of one field's column
   * (every thread the same number of items: one) */
  constexpr int KY = kRgbTileRowsEach;
  constexpr int kColumns = 4 * kRgbTilePixels;
  static_assert (kColumns * (kRgbTileRows / KY) % kWordsTileThreads == 0,
      "every lane of a warp takes part in the shuffles");
  const int columns = 4 * (a.width - x0 < kRgbTilePixels ? a.width - x0 :
      kRgbTilePixels);
  for (int it = threadIdx.x; it < kColumns * (kRgbTileRows / KY);
      it += kWordsTileThreads) {
    const int col = it % kColumns, gy = it / kColumns, f = col % 4;
    const float *column = tile + gy * KY * LF +
        4 * rgb_tile_slot (R + col / 4) + f;
    float q[KY + 2 * R];
#pragma unroll
    for (int j = 0; j < KY + 2 * R; j++)
      q[j] = column[j * LF];
#pragma unroll
    for (int k = 0; k < KY; k++) {
      const int y = y0 + gy * KY + k;
      const float v = words_taps_fixed < R > (a.wy,[&](int i) {
            return q[k + R + i];});
      uint32_t pixel = (uint32_t) word_out (v, f == 3 ? 3u : 1023u, 0) <<
          (10 * f);
      pixel |= __shfl_xor_sync (0xffffffffu, pixel, 1);
      pixel |= __shfl_xor_sync (0xffffffffu, pixel, 2);
      if (f == 0 && col < columns && y < a.height)
        ((uint32_t *) (a.dst + (size_t) y * a.dst_pitch))[x0 + col / 4] =
            pixel;
    }
  }
}

}                               /* namespace */

#endif
