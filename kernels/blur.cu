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

/* ---- the fast path: radius buckets 4, 8, 12, 16 ------------------------
 *
 * The same arithmetic, shaped for throughput (docs/notes.md):
 * - a block owns a strip of TW pixels (NCOL = TW * C channel columns) and a
 *   run of rows, which it takes in steps of OY = 2R+1 input rows;
 * - each step: the rows, loaded a step ahead as 32-bit words, go to shared
 *   memory as floats; the horizontal pass gives P consecutive pixels per
 *   thread, so each tap read from shared memory serves up to P outputs; the
 *   vertical pass gives one channel column per thread from a ring of the
 *   last 2R+1 horizontal results kept in registers: a step is exactly one
 *   turn of the ring, so every ring index is a compile-time constant;
 * - R is a compile-time bucket and the kernel's weights beyond the real
 *   radius are 0, which changes nothing in exact arithmetic. */

template < int C > __host__ __device__ constexpr int
strip_pixels ()
{
  /* 256 channel columns; RGB takes 84 pixels so rows stay word-aligned */
  return C == 3 ? 84 : 256 / C;
}

/* pixels per thread in the horizontal pass: OY * TW / P threads should be
 * close to (and at least) the NCOL the vertical pass needs */
template < int C, int R > __host__ __device__ constexpr int
h_pixels_per_thread ()
{
  /* P * C must be a multiple of 4 (whole float4 chunks) */
  return C == 3 ? 4 : (R <= 4 ? 8 : R <= 8 ? 16 : 32) / C;
}

/* Shared-memory index of element i of a row: 4 pad floats after every 16.
 * Threads of a quarter warp read 16-byte chunks 64 bytes apart (one pixel
 * group each); the pad turns that stride into 80 bytes, which spreads the
 * 8 chunks over all 32 banks instead of 4-way conflicts. */
__device__ __forceinline__ int
skew (int i)
{
  return i + 4 * (i >> 4);
}

template < int C, int R > struct Tiled
{
  static constexpr int TW = strip_pixels < C > ();
  static constexpr int NCOL = TW * C;
  static constexpr int OY = 2 * R + 1;
  static constexpr int P = h_pixels_per_thread < C, R > ();
  static constexpr int G = TW / P;      /* pixel groups per row */
  static constexpr int SPAN_B = (TW + 2 * R) * C;       /* bytes of a row */
  static constexpr int SPAN_BP = SPAN_B + 4 * (SPAN_B / 16) + 4;       /* skewed */
  static constexpr int NCOLP = NCOL + 4 * (NCOL / 16) + 4;
  static constexpr int SPAN_W = SPAN_B / 4;
  static constexpr int WORDS = OY * SPAN_W;
  static constexpr int THREADS_RAW = OY * G > NCOL ? OY * G : NCOL;
  static constexpr int THREADS = (THREADS_RAW + 31) / 32 * 32;
  static constexpr int WPT = (WORDS + THREADS - 1) / THREADS;
  static constexpr size_t SMEM = sizeof (float) * (OY * SPAN_BP + OY * NCOLP);
  static_assert (TW % P == 0, "pixel groups must tile the strip");
  static_assert (SPAN_B % 4 == 0, "rows must be whole words");
};

/* byte b of a word as a float, exactly (the 2^23 trick) */
__device__ __forceinline__ float
byte_to_float (uint32_t word, int b)
{
  return __uint_as_float (__byte_perm (word, 0x4B000000u, 0x7440 + b)) -
      kTwo23;
}

template < int C, int R > __device__ __forceinline__ uint32_t
load_word (const uint8_t * __restrict__ src, size_t src_pitch, int width,
    int height, int x0, int y, int wb, bool aligned, const BlurArgs & a)
{
  int sy = border_index (y, height, a.border);
  int first_px = x0 - R + (wb * 4) / C;
  int last_px = x0 - R + (wb * 4 + 3) / C;
  if (sy >= 0 && aligned && first_px >= 0 && last_px < width)
    return *reinterpret_cast < const uint32_t * >(src + (size_t) sy *
        src_pitch + (size_t) (x0 - R) * C + wb * 4);
  /* at the frame's edges, or unaligned: byte by byte, border rule */
  uint32_t word = 0;
#pragma unroll
  for (int b = 0; b < 4; b++) {
    int gb = wb * 4 + b;
    int sx = border_index (x0 - R + gb / C, width, a.border);
    uint32_t v = (sy >= 0 && sx >= 0) ?
        src[(size_t) sy * src_pitch + (size_t) sx * C + gb % C] :
        (uint32_t) a.border_value[gb % C];
    word |= v << (8 * b);
  }
  return word;
}

template < int C, int R > __global__ void
__launch_bounds__ (Tiled < C, R >::THREADS)
    blur_tiled_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    bool aligned, const __grid_constant__ BlurArgs a)
{
  using T = Tiled < C, R >;
  extern __shared__ float smem[];
  float *irow = smem;           /* OY rows of SPAN_B floats, skewed */
  float *hbuf = smem + T::OY * T::SPAN_BP;      /* OY rows of NCOL, skewed */
  const int tid = threadIdx.x;
  const int x0 = blockIdx.x * T::TW;
  const int y0 = blockIdx.y * a.rows_per_block;
  if (y0 >= height)
    return;
  const int y1 = min (y0 + a.rows_per_block, height);
  const int steps = (y1 - y0 + 2 * R + T::OY - 1) / T::OY;

  uint32_t pf[T::WPT];
#pragma unroll
  for (int q = 0; q < T::WPT; q++) {
    int word = tid + q * T::THREADS;
    if (word < T::WORDS)
      pf[q] = load_word < C, R > (src, src_pitch, width, height, x0,
          y0 - R + word / T::SPAN_W, word % T::SPAN_W, aligned, a);
  }

  float ring[T::OY];
  for (int s = 0; s < steps; s++) {
    const int ybase = y0 - R + s * T::OY;

    /* A: this step's rows into shared memory, as floats */
#pragma unroll
    for (int q = 0; q < T::WPT; q++) {
      int word = tid + q * T::THREADS;
      if (word < T::WORDS) {
        float4 f = make_float4 (byte_to_float (pf[q], 0),
            byte_to_float (pf[q], 1), byte_to_float (pf[q], 2),
            byte_to_float (pf[q], 3));
        *reinterpret_cast < float4 * >(irow + (word / T::SPAN_W) * T::SPAN_BP +
            skew ((word % T::SPAN_W) * 4)) = f;
      }
    }
    __syncthreads ();

    /* the next step's rows, in flight during B and C */
    if (s + 1 < steps) {
#pragma unroll
      for (int q = 0; q < T::WPT; q++) {
        int word = tid + q * T::THREADS;
        if (word < T::WORDS)
          pf[q] = load_word < C, R > (src, src_pitch, width, height, x0,
              ybase + T::OY + word / T::SPAN_W, word % T::SPAN_W, aligned, a);
      }
    }

    /* B: horizontal pass, P pixels x C channels per thread; the taps come
     * in float4 chunks, each reused by every output it reaches */
    if (tid < T::OY * T::G) {
      const int r = tid / T::G, g = tid % T::G;
      const float *in = irow + r * T::SPAN_BP;
      const int base = g * T::P * C;
      float acc[T::P][C];
#pragma unroll
      for (int p = 0; p < T::P; p++)
#pragma unroll
        for (int c = 0; c < C; c++)
          acc[p][c] = 0.0f;
#pragma unroll
      for (int q = 0; q < (T::P + 2 * R) * C / 4; q++) {
        float4 f4 = *reinterpret_cast < const float4 * >(in + skew (base +
                4 * q));
        const float f[4] = { f4.x, f4.y, f4.z, f4.w };
#pragma unroll
        for (int e = 0; e < 4; e++) {
          const int k = (4 * q + e) / C, c = (4 * q + e) % C;
#pragma unroll
          for (int p = 0; p < T::P; p++) {
            const int i = k - R - p;
            if (i >= -R && i <= R)
              acc[p][c] = __fmaf_rn (a.wx[i < 0 ? -i : i], f[e], acc[p][c]);
          }
        }
      }
      float *out = hbuf + r * T::NCOLP;
#pragma unroll
      for (int q = 0; q < T::P * C / 4; q++) {
        float4 o;
        o.x = round_mid (acc[(4 * q + 0) / C][(4 * q + 0) % C]);
        o.y = round_mid (acc[(4 * q + 1) / C][(4 * q + 1) % C]);
        o.z = round_mid (acc[(4 * q + 2) / C][(4 * q + 2) % C]);
        o.w = round_mid (acc[(4 * q + 3) / C][(4 * q + 3) % C]);
        *reinterpret_cast < float4 * >(out + skew (base + 4 * q)) = o;
      }
    }
    __syncthreads ();

    /* C: vertical pass down the register ring, one channel column each */
    if (tid < T::NCOL) {
      const int xb = x0 * C + tid;
#pragma unroll
      for (int r = 0; r < T::OY; r++) {
        ring[r] = hbuf[r * T::NCOLP + skew (tid)];
        const int yout = ybase + r - R;
        if (yout >= y0 && yout < y1 && xb < width * C) {
          float v = 0.0f;
#pragma unroll
          for (int j = -R; j <= R; j++)
            v = __fmaf_rn (a.wy[j < 0 ? -j : j],
                ring[(r + 1 + R + j) % T::OY], v);
          dst[(size_t) yout * dst_pitch + xb] = round_out (v);
        }
      }
    }
    /* the next A writes irow, last read by B, and the next B writes hbuf
     * after the next barrier: no barrier needed here */
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

template < int C, int R > cudaError_t
launch_tiled (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, BlurArgs a,
    const DeviceLimits & lim, cudaStream_t stream)
{
  using T = Tiled < C, R >;
  int strips = (width + T::TW - 1) / T::TW;
  /* runs of rows: a few blocks per SM, each run at least 8 steps long so
   * the 2R rows of ramp-up stay small */
  int runs = max (1, (4 * lim.sms + strips - 1) / strips);
  int rows = (height + runs - 1) / runs;
  rows = max (rows, min (height, 8 * T::OY));
  a.rows_per_block = rows;
  dim3 grid (strips, (height + rows - 1) / rows);
  bool aligned = ((uintptr_t) src % 4) == 0 && src_pitch % 4 == 0;

  if (T::SMEM > 48 * 1024) {
    cudaError_t e = cudaFuncSetAttribute (blur_tiled_kernel < C, R >,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) T::SMEM);
    if (e != cudaSuccess)
      return e;
  }
  blur_tiled_kernel < C, R > <<<grid, T::THREADS, T::SMEM, stream >>> (src,
      src_pitch, dst, dst_pitch, width, height, aligned, a);
  return cudaGetLastError ();
}

template < int C > cudaError_t
launch_blur (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, const BlurArgs & args_in,
    cudaStream_t stream)
{
  BlurArgs a = args_in;
  DeviceLimits lim;
  cudaError_t e = device_limits (&lim);
  if (e != cudaSuccess)
    return e;

  /* the fast path for radii up to 16 (sigma up to ~5.3), when its shared
   * memory fits the device */
  int r = max (a.rx, a.ry);
  if (r <= 4 && Tiled < C, 4 >::SMEM <= (size_t) lim.smem_optin)
    return launch_tiled < C, 4 > (src, src_pitch, dst, dst_pitch, width,
        height, a, lim, stream);
  if (r <= 8 && Tiled < C, 8 >::SMEM <= (size_t) lim.smem_optin)
    return launch_tiled < C, 8 > (src, src_pitch, dst, dst_pitch, width,
        height, a, lim, stream);
  if (r <= 12 && Tiled < C, 12 >::SMEM <= (size_t) lim.smem_optin)
    return launch_tiled < C, 12 > (src, src_pitch, dst, dst_pitch, width,
        height, a, lim, stream);
  if (r <= 16 && Tiled < C, 16 >::SMEM <= (size_t) lim.smem_optin)
    return launch_tiled < C, 16 > (src, src_pitch, dst, dst_pitch, width,
        height, a, lim, stream);

  /* any radius: the rolling kernel, the widest strip (up to 128 columns)
   * whose row and ring fit in shared memory */
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
