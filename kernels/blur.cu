/* Gaussian blur: the stencil pattern, separable and fused into one pass.
 *
 * A block owns a strip of columns and walks down a run of its rows.  Each
 * input row it meets (border rows included) is loaded once into shared
 * memory, filtered horizontally, and the result (t, see the header) is kept
 * in a ring of the last 2r+1 rows; once the ring is full, each new row
 * completes one output row by the vertical filter down the ring.  So every
 * input byte is read from device memory about once (plus the strip's
 * horizontal halo, mostly served by L2), and nothing goes back to memory
 * between the passes.
 *
 * The weights travel as a kernel argument (the constant bank): no global
 * state, so elements with different sigmas can run at once.  All sums are
 * integers below 2^24 held in floats, hence exact, and the rounding steps
 * use the 2^23 trick (x + 2^23 rounds x to the nearest integer, ties to
 * even), so the result equals blur-reference.c bit for bit. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

#include <cstdlib>

namespace {

struct BlurArgs
{
  int rx, ry;
  int border;
  int rows_per_block;
  float border_value[4];
  float wx[CF_BLUR_MAX_RADIUS + 1];
  float wy[CF_BLUR_MAX_RADIUS + 1];
};

constexpr float kTwo23 = 8388608.0f;

__device__ __forceinline__ int
border_index (int i, int n, int border)
{
  if (i >= 0 && i < n)
    return i;
  if (border == CF_BORDER_REPLICATE)
    return i < 0 ? 0 : n - 1;
  if (border == CF_BORDER_REFLECT_101) {
    if (n == 1)
      return 0;
    int period = 2 * (n - 1);
    i %= period;
    if (i < 0)
      i += period;
    return i < n ? i : period - i;
  }
  return -1;
}

/* h / 2^(H_BITS - MID_BITS), rounded to nearest even: exact for h < 2^24 */
__device__ __forceinline__ float
round_mid (float h)
{
  return __fmaf_rn (h, 1.0f / (1 << (CF_BLUR_H_BITS - CF_BLUR_MID_BITS)),
      kTwo23) - kTwo23;
}

/* v / 2^(V_BITS + MID_BITS), rounded to nearest even, as a byte */
__device__ __forceinline__ uint8_t
round_out (float v)
{
  float y = __fmaf_rn (v, 1.0f / (1 << (CF_BLUR_V_BITS + CF_BLUR_MID_BITS)),
      kTwo23);
  return (uint8_t) (__float_as_uint (y) - 0x4B000000u);
}

template < int C > __global__ void
blur_rolling_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    const __grid_constant__ BlurArgs a)
{
  extern __shared__ float smem[];
  const int tile_w = blockDim.x;
  const int tid = threadIdx.x;
  const int rx = a.rx, ry = a.ry;
  const int span = tile_w + 2 * rx;
  const int n_ring = 2 * ry + 1;
  float *row = smem;            /* span pixels of C floats */
  float *ring = smem + span * C;        /* n_ring rows of tile_w pixels */
  const int x0 = blockIdx.x * tile_w;
  const int y0 = blockIdx.y * a.rows_per_block;
  if (y0 >= height)
    return;
  const int y1 = min (y0 + a.rows_per_block, height);
  int slot = 0;

  for (int yi = y0 - ry; yi < y1 + ry; yi++) {
    /* 1. the input row, border-extended, into shared memory */
    int sy = border_index (yi, height, a.border);
    const uint8_t *srow = sy >= 0 ? src + (size_t) sy * src_pitch : nullptr;
    for (int j = tid; j < span; j += tile_w) {
      int sx = border_index (x0 - rx + j, width, a.border);
      if (srow && sx >= 0) {
        const uint8_t *p = srow + (size_t) sx * C;
#pragma unroll
        for (int c = 0; c < C; c++)
          row[j * C + c] = p[c];
      } else {
#pragma unroll
        for (int c = 0; c < C; c++)
          row[j * C + c] = a.border_value[c];
      }
    }
    __syncthreads ();

    /* 2. horizontal filter of this thread's column into the ring */
    float h[C];
#pragma unroll
    for (int c = 0; c < C; c++)
      h[c] = 0.0f;
    for (int i = -rx; i <= rx; i++) {
      float w = a.wx[abs (i)];
      const float *p = row + (tid + rx + i) * C;
#pragma unroll
      for (int c = 0; c < C; c++)
        h[c] = __fmaf_rn (w, p[c], h[c]);
    }
    float *r = ring + (slot * tile_w + tid) * C;
#pragma unroll
    for (int c = 0; c < C; c++)
      r[c] = round_mid (h[c]);
    __syncthreads ();

    /* 3. with 2r+1 rows in the ring, the vertical filter gives the output
     * row in its middle; the oldest row sits in the slot after this one */
    if (yi >= y0 + ry) {
      float v[C];
#pragma unroll
      for (int c = 0; c < C; c++)
        v[c] = 0.0f;
      int s = slot + 1 == n_ring ? 0 : slot + 1;
      for (int j = -ry; j <= ry; j++) {
        float w = a.wy[abs (j)];
        const float *p = ring + (s * tile_w + tid) * C;
#pragma unroll
        for (int c = 0; c < C; c++)
          v[c] = __fmaf_rn (w, p[c], v[c]);
        s = s + 1 == n_ring ? 0 : s + 1;
      }
      int x = x0 + tid;
      if (x < width) {
        uint8_t *d = dst + (size_t) (yi - ry) * dst_pitch + (size_t) x * C;
#pragma unroll
        for (int c = 0; c < C; c++)
          d[c] = round_out (v[c]);
      }
    }
    slot = slot + 1 == n_ring ? 0 : slot + 1;
  }
}

struct DeviceLimits
{
  int sms, smem_optin;
};

cudaError_t
device_limits (DeviceLimits * l)
{
  int dev;
  cudaError_t e = cudaGetDevice (&dev);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute (&l->sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute (&l->smem_optin,
        cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  return e;
}

template < int C > CfError
launch_blur (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, const BlurArgs & args_in,
    cudaStream_t stream)
{
  BlurArgs a = args_in;
  DeviceLimits lim;
  cudaError_t e = device_limits (&lim);
  if (e != cudaSuccess)
    return e;

  /* the widest strip (up to 128 columns) whose row and ring fit in shared
   * memory: large radii take narrower strips */
  int tile_w = 128;
  size_t smem = 0;
  for (; tile_w >= 1; tile_w /= 2) {
    smem = sizeof (float) * C * ((size_t) (tile_w + 2 * a.rx) +
        (size_t) (2 * a.ry + 1) * tile_w);
    if (smem <= (size_t) lim.smem_optin)
      break;
  }
  if (tile_w < 1)
    return cudaErrorInvalidConfiguration;

  /* enough blocks to fill the GPU a few times over; a run of rows long
   * enough that the 2r rows of ramp-up stay a small part of it */
  int strips = (width + tile_w - 1) / tile_w;
  int runs = (4 * lim.sms + strips - 1) / strips;
  int rows = (height + runs - 1) / runs;
  rows = max (rows, min (height, 8 * a.ry));
  a.rows_per_block = max (rows, 1);
  dim3 grid (strips, (height + a.rows_per_block - 1) / a.rows_per_block);

  if (smem > 48 * 1024) {
    e = cudaFuncSetAttribute (blur_rolling_kernel < C >,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) smem);
    if (e != cudaSuccess)
      return e;
  }
  blur_rolling_kernel < C > <<<grid, tile_w, smem, stream >>> (src, src_pitch,
      dst, dst_pitch, width, height, a);
  return cudaGetLastError ();
}

bool
kernel_ok (const CfBlurKernel * k, int bits)
{
  if (!k || k->radius < 0 || k->radius > CF_BLUR_MAX_RADIUS)
    return false;
  uint64_t sum = k->w[0];
  for (int i = 1; i <= k->radius; i++)
    sum += 2 * (uint64_t) k->w[i];
  return sum == ((uint64_t) 1 << bits);
}

}                               /* namespace */

extern "C" CfError
cf_blur_plane (const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
    int width, int height, int channels, const CfBlurKernel * kx,
    const CfBlurKernel * ky, CfBorder border, const uint8_t border_value[4],
    CfStream stream)
{
  if (!src || !dst || width <= 0 || height <= 0 || channels < 1
      || channels > 4 || src_pitch < (size_t) width * channels
      || dst_pitch < (size_t) width * channels
      || !kernel_ok (kx, CF_BLUR_H_BITS) || !kernel_ok (ky, CF_BLUR_V_BITS)
      || border < CF_BORDER_REPLICATE || border > CF_BORDER_CONSTANT)
    return cudaErrorInvalidValue;

  BlurArgs a = { };
  a.rx = kx->radius;
  a.ry = ky->radius;
  a.border = border;
  for (int c = 0; c < 4; c++)
    a.border_value[c] = border_value ? border_value[c] : 0;
  for (int i = 0; i <= a.rx; i++)
    a.wx[i] = (float) kx->w[i];
  for (int i = 0; i <= a.ry; i++)
    a.wy[i] = (float) ky->w[i];

  cf_forget_earlier_errors ();
  const uint8_t *s = (const uint8_t *) src;
  uint8_t *d = (uint8_t *) dst;
  cudaStream_t st = (cudaStream_t) stream;
  switch (channels) {
    case 1:
      return launch_blur < 1 > (s, src_pitch, d, dst_pitch, width, height, a,
          st);
    case 2:
      return launch_blur < 2 > (s, src_pitch, d, dst_pitch, width, height, a,
          st);
    case 3:
      return launch_blur < 3 > (s, src_pitch, d, dst_pitch, width, height, a,
          st);
    default:
      return launch_blur < 4 > (s, src_pitch, d, dst_pitch, width, height, a,
          st);
  }
}
