/* Gaussian blur: the stencil pattern, separable.
 *
 * Three implementations, all equal to blur-reference.c bit for bit:
 *
 * - On GPUs with integer tensor cores (sm_80 on), radii up to 32 and
 *   vertical weights exact in half precision (cf_blur_kernel_make's are):
 *   one fused pass, both 1-D filters as band-matrix products on the tensor
 *   cores (blur_mma8_kernel for radius <= 8, blur_mma_kernel beyond; see
 *   "fused pass on the tensor cores" below; with 4 channels on sm_90,
 *   blur_mma8_direct_kernel for radius <= 8 where it applies).  It reads
 *   the frame once and writes it once.
 *
 * - The same GPUs and weights, radii 33 to 150 (or rows 64 MiB apart or
 *   more): the same products in two passes through the scratch plane
 *   (blur_wide_h_kernel, blur_wide_v_kernel; "radii 33 to 150" below).
 *
 * - Otherwise (GPUs before sm_80, vertical weights that are not exact
 *   halves, which only the C API can pass): two passes on the CUDA
 *   cores.  Horizontal: a block stages a
 *   few rows of a strip (halo included, border rule applied) in shared
 *   memory as floats, each thread filters P consecutive pixels, so each tap
 *   it reads serves up to P outputs, and writes t (see the header) as
 *   16-bit values to a scratch plane.  Vertical: each thread takes two
 *   channel columns of t down a run of rows, keeping the 2R+1 rows a sum
 *   needs, and the next 3 already being loaded, in registers (radius
 *   buckets 4 to 32, every ring index a compile-time constant), or reading
 *   its taps from the cache for larger radii, 8 outputs at a time; it
 *   writes the output bytes.  Beyond radius 32 its time grows faster than
 *   the radius (4K RGBA sigma 20: 2.6 ms on an H100).
 *
 * The weights travel as a kernel argument (the constant bank): no global
 * state, so elements with different sigmas can run at once.  On the CUDA
 * cores all sums are integers below 2^24 held in floats, hence exact, and
 * the rounding steps add half and round down onto 2^23 (whose ulp is 1);
 * the tensor cores sum the horizontal filter in 32-bit integers, and the
 * vertical one in floats, exact for the same reason. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

#include <cuda_fp16.h>
#include <cstdlib>

namespace {

struct BlurArgs
{
  int rx, ry;
  int border;
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

/* h / 2^(H_BITS - MID_BITS), rounded to nearest, halves up: h + half is an
 * integer below 2^24 (exact), and the multiply-add rounding down onto
 * 2^23 + [0, 2^23) leaves its integer part */
__device__ __forceinline__ float
round_mid (float h)
{
  constexpr int s = CF_BLUR_H_BITS - CF_BLUR_MID_BITS;
  return __fmaf_rd (h + (float) (1 << (s - 1)), 1.0f / (1 << s), kTwo23) -
      kTwo23;
}

/* v / 2^(V_BITS + MID_BITS), rounded to nearest, halves up, as a byte */
__device__ __forceinline__ uint32_t
round_out (float v)
{
  constexpr int s = CF_BLUR_V_BITS + CF_BLUR_MID_BITS;
  float y = __fmaf_rd (v + (float) (1 << (s - 1)), 1.0f / (1 << s), kTwo23);
  return __float_as_uint (y) - 0x4B000000u;
}

/* a small integer (< 2^23) as a float, exactly */
__device__ __forceinline__ float
int_to_float (uint32_t v)
{
  return __uint_as_float (0x4B000000u | v) - kTwo23;
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

/* ---- horizontal pass ------------------------------------------------ */

constexpr int kHThreads = 128;
constexpr int kHRows = 2;       /* rows per block: small blocks, many per SM */
constexpr int kHPix = 4;        /* pixels per thread */

/* A block: kHRows rows of a strip of kHThreads * kHPix pixels.  R is the
 * radius bucket (weights past the real radius are 0), or 0 for a run-time
 * radius (a.rx, loops not unrolled). */
template < int C, int R > __global__ void
__launch_bounds__ (kHThreads)
    blur_h_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint16_t * __restrict__ t, size_t t_pitch, int width, int height,
    const __grid_constant__ BlurArgs a)
{
  extern __shared__ float row_smem[];
  constexpr int TW = kHThreads * kHPix;
  const int r = R ? R : a.rx;
  const int span = (TW + 2 * r) * C;    /* floats of a staged row */
  const int span_p = span + 4 * (span / 16) + 4;
  const int x0 = blockIdx.x * TW;
  const int y0 = blockIdx.y * kHRows;
  const int tid = threadIdx.x;

  /* stage the rows, border-extended, one byte to one float: whole 32-bit
   * words away from the frame's edges, byte by byte at them */
  const bool interior = x0 - r >= 0 && x0 + TW + r <= width &&
      ((uintptr_t) src % 4) == 0 && src_pitch % 4 == 0 && (r * C) % 4 == 0;
  for (int rr = 0; rr < kHRows; rr++) {
    int y = y0 + rr;
    if (y >= height)
      break;
    const uint8_t *srow = src + (size_t) y * src_pitch;
    float *dst_row = row_smem + rr * span_p;
    if (interior) {
      const uint32_t *words = reinterpret_cast < const uint32_t * >(srow +
          (size_t) (x0 - r) * C);
      for (int w = tid; w < span / 4; w += kHThreads) {
        uint32_t v = words[w];
        float4 f = make_float4 (int_to_float (v & 0xff),
            int_to_float ((v >> 8) & 0xff), int_to_float ((v >> 16) & 0xff),
            int_to_float (v >> 24));
        *reinterpret_cast < float4 * >(dst_row + skew (4 * w)) = f;
      }
    } else {
      for (int b = tid; b < span; b += kHThreads) {
        int px = x0 - r + b / C, c = b % C;
        int sx = border_index (px, width, a.border);
        dst_row[skew (b)] = sx >= 0 ?
            int_to_float (srow[(size_t) sx * C + c]) : a.border_value[c];
      }
    }
  }
  __syncthreads ();

  const int xp = x0 + tid * kHPix;      /* first pixel of this thread */
  if (xp >= width)
    return;
  for (int rr = 0; rr < kHRows; rr++) {
    int y = y0 + rr;
    if (y >= height)
      break;
    const float *in = row_smem + rr * span_p;
    const int base = tid * kHPix * C;
    float acc[kHPix][C];
#pragma unroll
    for (int p = 0; p < kHPix; p++)
#pragma unroll
      for (int c = 0; c < C; c++)
        acc[p][c] = 0.0f;
    if (R) {
      /* taps in float4 chunks (kHPix * C is a multiple of 4), each
       * reused by every output it reaches; weights by constant index */
#pragma unroll
      for (int q = 0; q < (kHPix + 2 * R) * C / 4; q++) {
        float4 f4 = *reinterpret_cast < const float4 * >(in + skew (base +
                4 * q));
        const float f[4] = { f4.x, f4.y, f4.z, f4.w };
#pragma unroll
        for (int e = 0; e < 4; e++) {
          const int k = (4 * q + e) / C, c = (4 * q + e) % C;
#pragma unroll
          for (int p = 0; p < kHPix; p++) {
            const int i = k - R - p;
            if (i >= -R && i <= R)
              acc[p][c] = __fmaf_rn (a.wx[i < 0 ? -i : i], f[e], acc[p][c]);
          }
        }
      }
    } else {
      for (int k = 0; k < kHPix + 2 * r; k++) {
#pragma unroll
        for (int c = 0; c < C; c++) {
          float f = in[skew (base + k * C + c)];
#pragma unroll
          for (int p = 0; p < kHPix; p++) {
            int i = k - r - p;
            if (i >= -r && i <= r)
              acc[p][c] = __fmaf_rn (a.wx[abs (i)], f, acc[p][c]);
          }
        }
      }
    }
    uint16_t *out = t + (size_t) y * t_pitch / sizeof (uint16_t) +
        (size_t) xp * C;
    if (xp + kHPix <= width) {
      /* kHPix * C values as C 8-byte stores: a warp's stores then cover
       * whole sectors (xp * C * 2 is a multiple of 8, the pitch of 256) */
#pragma unroll
      for (int q = 0; q < C; q++) {
        uint32_t v[4];
#pragma unroll
        for (int e = 0; e < 4; e++) {
          const int n = 4 * q + e;
          v[e] = (uint32_t) round_mid (acc[n / C][n % C]);
        }
        reinterpret_cast < uint2 * >(out)[q] =
            make_uint2 (v[0] | v[1] << 16, v[2] | v[3] << 16);
      }
    } else {
#pragma unroll
      for (int p = 0; p < kHPix; p++)
#pragma unroll
        for (int c = 0; c < C; c++)
          if (xp + p < width)
            out[p * C + c] = (uint16_t) round_mid (acc[p][c]);
    }
  }
}

/* ---- vertical pass -------------------------------------------------- */

constexpr int kVThreads = 128;
constexpr int kVRowsBuckets = 64;       /* output rows per thread, buckets */
constexpr int kVRowsGeneric = 32;

/* Two channel columns per thread (one 32-bit load of t per row), a run of
 * output rows per thread.  R > 0: the last 2R+1 rows of t in registers,
 * taken in turns of 2R+1 rows so every ring index is a constant.  R == 0:
 * any radius, 2r+1 taps read per output (the cache serves the overlap). */
template < int R > __global__ void
__launch_bounds__ (kVThreads)
    blur_v_kernel (const uint16_t * __restrict__ t, size_t t_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int cols, int height,
    int channels, const __grid_constant__ BlurArgs a)
{
  const int pair = blockIdx.x * kVThreads + threadIdx.x;
  const int col = 2 * pair;     /* first of the two channel columns */
  if (col >= cols)
    return;
  const bool two = col + 1 < cols;
  const int rows = R ? kVRowsBuckets : kVRowsGeneric;
  const int y0 = blockIdx.y * rows;
  const int y1 = min (y0 + rows, height);
  const size_t tp = t_pitch / sizeof (uint16_t);
  /* the constant border's t value, for each of the two columns */
  const float const_t0 = a.border_value[col % channels] *
      (1 << CF_BLUR_MID_BITS);
  const float const_t1 = a.border_value[(col + 1) % channels] *
      (1 << CF_BLUR_MID_BITS);

  /* col is even and the pitch a multiple of 256: the pair is one word */
  const bool word = two && ((uintptr_t) t % 4) == 0;
  auto load = [&](int y, float &v0, float &v1) {
    int sy = (y >= 0 && y < height) ? y : border_index (y, height, a.border);
    if (sy < 0) {
      v0 = const_t0;
      v1 = const_t1;
      return;
    }
    const uint16_t *p = t + (size_t) sy * tp + col;
    if (word) {
      uint32_t w = *reinterpret_cast < const uint32_t * >(p);
      v0 = int_to_float (w & 0xffff);
      v1 = int_to_float (w >> 16);
    } else {
      v0 = int_to_float (p[0]);
      v1 = two ? int_to_float (p[1]) : 0.0f;
    }
  };
  /* both bytes in one 16-bit store where aligned: whole sectors per warp */
  const bool pair_store = two && dst_pitch % 2 == 0 &&
      ((uintptr_t) dst % 2) == 0;
  auto store = [&](int y, float s0, float s1) {
    uint8_t *d = dst + (size_t) y * dst_pitch + col;
    if (pair_store) {
      *reinterpret_cast < uint16_t * >(d) =
          (uint16_t) (round_out (s0) | round_out (s1) << 8);
    } else {
      d[0] = (uint8_t) round_out (s0);
      if (two)
        d[1] = (uint8_t) round_out (s1);
    }
  };

  if (R) {
    /* the ring has room for PF rows beyond the 2R+1 a sum needs: the load
     * of a row is issued PF steps before its first use, so its latency
     * overlaps the sums in between; a turn is M steps, so every slot index
     * is a constant */
    constexpr int PF = 3;
    constexpr int M = 2 * R + 1 + PF;
    float ring0[R ? M : 1], ring1[R ? M : 1];
#pragma unroll
    for (int m = 0; m < M - 1; m++)
      load (y0 - R + m, ring0[m], ring1[m]);
    for (int yb = y0; yb < y1; yb += M) {
#pragma unroll
      for (int k = 0; k < M; k++) {
        const int y = yb + k;
        if (y < y1) {
          /* row y+R+PF goes into the slot of row y-R-1, done with */
          const int slot = (k + M - 1) % M;
          load (y + R + PF, ring0[slot], ring1[slot]);
          /* row y-R+m sits in slot (k+m) % M */
          float s0 = 0.0f, s1 = 0.0f;
#pragma unroll
          for (int j = -R; j <= R; j++) {
            const int sl = (k + j + R) % M;
            const float w = a.wy[j < 0 ? -j : j];
            s0 = __fmaf_rn (w, ring0[sl], s0);
            s1 = __fmaf_rn (w, ring1[sl], s1);
          }
          store (y, s0, s1);
        }
      }
    }
  } else {
    /* any radius: 8 consecutive outputs at a time, so each row of t is
     * loaded once for all 8 it reaches */
    constexpr int OY = 8;
    const int r = a.ry;
    for (int yb = y0; yb < y1; yb += OY) {
      float s0[OY], s1[OY];
#pragma unroll
      for (int o = 0; o < OY; o++)
        s0[o] = s1[o] = 0.0f;
      for (int k = -r; k < r + OY; k++) {
        float v0, v1;
        load (yb + k, v0, v1);
#pragma unroll
        for (int o = 0; o < OY; o++) {
          const int j = k - o;
          if (j >= -r && j <= r) {
            const float w = a.wy[abs (j)];
            s0[o] = __fmaf_rn (w, v0, s0[o]);
            s1[o] = __fmaf_rn (w, v1, s1[o]);
          }
        }
      }
#pragma unroll
      for (int o = 0; o < OY; o++)
        if (yb + o < y1)
          store (yb + o, s0[o], s1[o]);
    }
  }
}

/* ---- fused pass on the tensor cores (sm_80 and later, radius <= 32) ---- */

/* Both 1-D filters are matrix products with a band matrix of weights, and
 * the tensor cores compute them exactly:
 * - horizontal: mma.m16n8k32 multiplies bytes and sums in 32-bit integers;
 *   a 15-bit weight is two bytes (hi, lo), so a sum is two products;
 * - vertical: mma.m16n8k16 multiplies half-precision numbers and sums in
 *   floats; t (10 bits) and ky's weights (13 bits, at most 11 significant)
 *   are exact halves, every product is exact, and every sum an integer
 *   below 2^24, so a sum is one product.  (As four byte products, and the
 *   instructions that combined them, the vertical sums made the kernels
 *   12-19% slower.)
 * Every sum is the reference's integer exactly.
 *
 * A block walks down a strip of kMmaStripPx pixels (or the part of one,
 * or of two, that WorkRun gives it; the radius-8 kernel's strips with 4
 * channels are wider: see Mma8Shape), 16 rows at a time.  Each step stages
 * 16 input rows (halo columns included, border rule applied) in shared
 * memory, one plane per channel (see StepLoader); the horizontal products
 * turn them into 16 rows of t, stored transposed (a column's rows adjacent,
 * as the vertical product's B operand wants them) in a ring of 16 + 2 HALO
 * rows per column; then the vertical products read the ring and write 16
 * output rows.  The next step's input loads are in flight meanwhile.  The frame is
 * read once (plus the halo columns) and the output written once.
 *
 * The band matrix of a 32-wide chunk of taps is the same for every tile,
 * so each thread builds its fragments of them once.  Taps past the radius
 * have zero weights; whatever the rows and columns they meet hold does not
 * count. */

constexpr int kMmaThreads = 128;
constexpr int kMmaWarps = kMmaThreads / 32;
constexpr int kMmaStripPx = 64;
constexpr int kMmaStep = 16;
/* A warp owns 16 pixel columns of a strip: a block has 2 threads a pixel */
__host__ __device__ constexpr int
mma_threads (int strip_px)
{
  return 2 * strip_px;
}

/* The halo, in pixels and rows, for a radius: a multiple of 8 (so that a
 * row of a step is whole 4-pixel units, and the lag whole steps) */
__host__ __device__ constexpr int
mma_halo (int r)
{
  return 8 * (((r < 1 ? 1 : r) + 7) / 8);
}

/* Shared memory per channel.  A horizontal tile of 16 outputs reads
 * chunks of 32 taps from 16 * tile to 16 * tile + 32 NK, so input rows
 * hold STRIP - 16 + 32 NK pixels.  The t ring holds the steps from the
 * output's to the one being computed, lag + 1 of them (16 + 2 HALO rows:
 * exactly the taps of NV vertical products of 16), as halves, a column's
 * rows adjacent (the vertical products' B operand), in words of two rows.  Where a
 * column's words would put the 8 columns a fragment load touches on the
 * same banks, the row pairs are XOR-swizzled by the column (t_word), so
 * that loads and stores are free of bank conflicts. */
template < int HALO, int STRIP = kMmaStripPx > struct MmaLayout
{
  static constexpr int threads = mma_threads (STRIP);
  static constexpr int chunks = (16 + 2 * HALO + 31) / 32;
  static constexpr int span = STRIP + 2 * HALO; /* pixels loaded */
  static constexpr int units_per_row = span / 4;
  static constexpr int units = kMmaStep * units_per_row;
  static constexpr int units_per_thread = (units + threads - 1) / threads;
  static constexpr int lag = HALO / 8;  /* steps of t ahead of the output */
  /* the last chunk's taps 16 .. 31 meet zero weights for every output
   * (16 + 2 HALO taps in all): it takes the k = 16 product, on half the
   * operands, for half the tensor work */
  static constexpr bool half_last = (16 + 2 * HALO) % 32 == 16;
  static constexpr int in_w = STRIP - 16 + 32 * chunks;
  static constexpr int ring = kMmaStep * (lag + 1);
  static constexpr int vchunks = ring / 16;     /* vertical products */
  static constexpr int ring_words = ring / 2;   /* words of a column */
  static_assert (ring == 16 + 2 * HALO && 16 * vchunks == ring
      && 2 * ring_words == ring, "t ring");
  static constexpr int in_bytes = kMmaStep * in_w;
  static constexpr int t_bytes = STRIP * ring * 2;
  /* one channel: its input rows, then its t ring */
  static constexpr int channel_bytes = in_bytes + t_bytes;

  /* The word of row pair rp of column px.  rp of a fragment's lanes is a
   * multiple of 4 plus t; the 8 columns are 8 apart in the ring's words
   * times a multiple of 8 (ring_words % 16 == 8: banks g * 8 or g * 24, so
   * columns g and g + 4 collide, unless the second's pairs move by 4) or
   * of 32 (all collide, unless each moves by 4 g). */
  __device__ __forceinline__ static int t_word (int px, int rp)
  {
    static_assert (ring_words % 32 == 0 || ring_words % 16 == 8, "swizzle");
    if constexpr (ring_words % 32 == 0)
      return px * ring_words + (rp ^ ((px & 7) << 2));
    else
      return px * ring_words + (rp ^ (px & 4));
  }
};

/* d = a b + c, in 32-bit integers; c may be d */
__device__ __forceinline__ void
mma_u8 (int (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1,
    const int *c)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=r" (d[0]), "=r" (d[1]), "=r" (d[2]), "=r" (d[3])
      : "r" (a[0]), "r" (a[1]), "r" (a[2]), "r" (a[3]), "r" (b0), "r" (b1),
      "r" (c[0]), "r" (c[1]), "r" (c[2]), "r" (c[3]));
#endif
}

/* The same with k = 16: A's registers 0 and 1 (its columns 0 .. 15) and
 * B's register 0 (rows 0 .. 15), in the same places as k = 32's */
__device__ __forceinline__ void
mma_u8_k16 (int (&d)[4], const uint32_t (&a)[4], uint32_t b0, const int *c)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 "
      "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
      : "=r" (d[0]), "=r" (d[1]), "=r" (d[2]), "=r" (d[3])
      : "r" (a[0]), "r" (a[1]), "r" (b0),
      "r" (c[0]), "r" (c[1]), "r" (c[2]), "r" (c[3]));
#endif
}

/* d = a b + c with half-precision operands, summed in 32-bit floats: the
 * vertical products.  Exact here: a weight and a t are integers of at most
 * 11 significant bits, so every product is exact, and every partial sum
 * is an integer below 2^24 (the operands are not negative). */
__device__ __forceinline__ void
mma_f16 (float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1,
    const float *c)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=f" (d[0]), "=f" (d[1]), "=f" (d[2]), "=f" (d[3])
      : "r" (a[0]), "r" (a[1]), "r" (a[2]), "r" (a[3]), "r" (b0), "r" (b1),
      "f" (c[0]), "f" (c[1]), "f" (c[2]), "f" (c[3]));
#endif
}

/* ldmatrix: 4 matrices of 8 rows of 16 bytes from shared memory.  Lane l
 * gives the address of row l % 8 of matrix l / 8 (16-byte aligned), and
 * receives word t of row g of each: exactly an MMA fragment register. */
__device__ __forceinline__ void
ldsm_x4 (uint32_t (&r)[4], const void *row)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
      "{%0,%1,%2,%3}, [%4];\n"
      : "=r" (r[0]), "=r" (r[1]), "=r" (r[2]), "=r" (r[3])
      : "r" ((uint32_t) __cvta_generic_to_shared (row)));
#else
  r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

/* PRMT selector that puts byte 0 of its second operand at byte J of its
 * first, keeping the others */
template < int J > __host__ __device__ constexpr uint32_t
insert_byte0 ()
{
  return (0x3210u & ~(0xfu << (4 * J))) | (0x4u << (4 * J));
}

/* The tap (of a chunk of 32) that byte b of this thread's fragment
 * register j of a band matrix weighs: column k = 4 t + b (+ 16 for
 * j >= 2) of A, and row k of B.  Where B comes from 16-byte units of four
 * interleaved pixels (blur_mma8_direct_kernel), the B register's four bytes
 * are one channel of pixel t of four units, taps 4 b + t: a product sums
 * over k, so A's columns take the same order and the sum is the same. */
__device__ __forceinline__ int
chunk_tap (int t, int j, int b, bool unit_order)
{
  return (unit_order ? 4 * b + t : 4 * t + b) + (j >> 1) * 16;
}

/* This thread's fragments of the band matrices of chunk q: A[m][k] is the
 * weight of tap k of the chunk for output m, w[|32 q + k - HALO - m|]
 * (zero past the radius), split into its high and low bytes.  Fragment
 * register j holds A[m][kb .. kb + 3], m = g (+ 8 for odd j), kb = 4 t
 * (+ 16 for j >= 2), or the taps chunk_tap names there. */
template < int HALO, int NK > __device__ __forceinline__ void
band_fragments (const uint32_t * w, int r, int lane, uint32_t (&hi)[NK][4],
    uint32_t (&lo)[NK][4], bool unit_order = false)
{
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int q = 0; q < NK; q++)
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const int m = g + (j & 1) * 8;
      uint32_t h = 0, l = 0;
#pragma unroll
      for (int b = 0; b < 4; b++) {
        int d = 32 * q + chunk_tap (t, j, b, unit_order) - HALO - m;
        d = d < 0 ? -d : d;
        uint32_t v = d <= r ? w[d] : 0;
        h |= (v >> 8) << (8 * b);
        l |= (v & 0xff) << (8 * b);
      }
      hi[q][j] = h;
      lo[q][j] = l;
    }
}

/* The same for the vertical products, as half-precision numbers (ky's
 * weights are exact in half precision, see cf_blur_kernel_make), in
 * chunks of 16 taps: A[m][k] = w[|16 q + k - HALO - m|].  Fragment register
 * j holds A[m][kb], A[m][kb + 1], m = g (+ 8 for odd j), kb = 2 t (+ 8 for
 * j >= 2). */
template < int HALO, int NV > __device__ __forceinline__ void
band_fragments_f16 (const uint32_t * w, int r, int lane,
    uint32_t (&a)[NV][4])
{
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int q = 0; q < NV; q++)
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const int m = g + (j & 1) * 8, kb = 2 * t + (j >> 1) * 8;
      uint32_t pair = 0;
#pragma unroll
      for (int b = 0; b < 2; b++) {
        int d = 16 * q + kb + b - HALO - m;
        d = d < 0 ? -d : d;
        const float v = d <= r ? (float) w[d] : 0.0f;
        pair |= (uint32_t) __half_as_ushort (__float2half_rn (v)) << (16 * b);
      }
      a[q][j] = pair;
    }
}

/* The radius-8 kernel's horizontal band fragments (band_fragments) for a
 * warp whose taps, pixels xw - 8 to xw + 23, reach past the frame's edge:
 * a tap outside the frame adds its weight to the frame column the border
 * rule names, so that the columns outside need no values and no
 * fill_halo().  For replicate and reflect-101 on frames at least
 * kFoldMinWidth wide, where every tap outside is one reflection (or
 * clamp) of a column inside, within the warp's taps.  `suffix[a]` is
 * w[a] + ... + w[r] (0 past r). */
constexpr int kFoldMinWidth = 32;
__device__ __forceinline__ void
folded_band_fragments (const uint32_t * w, const uint32_t * suffix, int r,
    int lane, int xw, int width, int border, uint32_t (&hi)[1][4],
    uint32_t (&lo)[1][4], bool unit_order = false)
{
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < 4; j++) {
    const int x = xw + g + (j & 1) * 8;         /* the output */
    uint32_t h = 0, l = 0;
#pragma unroll
    for (int b = 0; b < 4; b++) {
      /* the tap's column */
      const int col = xw - 8 + chunk_tap (t, j, b, unit_order);
      uint32_t v = 0;
      if (col >= 0 && col < width && x < width) {
        const int d = col > x ? col - x : x - col;
        v = d <= r ? w[d] : 0;
        if (border == CF_BORDER_REPLICATE) {
          /* taps left of column 0: |d| from x + 1 to r; right of the last
           * column: from width - x to r */
          if (col == 0)
            v += suffix[min (x + 1, 9)];
          if (col == width - 1)
            v += suffix[min (width - x, 9)];
        } else {
          /* the tap at -col, and the one at 2 (width - 1) - col */
          const int dl = col + x, dr = 2 * (width - 1) - col - x;
          if (col > 0 && dl <= r)
            v += w[dl];
          if (col < width - 1 && dr <= r)
            v += w[dr];
        }
      }
      h |= (v >> 8) << (8 * b);
      l |= (v & 0xff) << (8 * b);
    }
    hi[0][j] = h;
    lo[0][j] = l;
  }
}

/* The weights of both filters, radius 32 at most, copied from the
 * constant bank to shared memory: the fragments read them at a different
 * index in every lane, which the constant cache would serve one at a
 * time, shared memory at once.  Ends with a barrier. */
__device__ __forceinline__ void
stage_weights (uint32_t (&w)[2][33], const BlurArgs & a)
{
  const int i = threadIdx.x;
  if (i < 33) {
    w[0][i] = i <= a.rx ? (uint32_t) a.wx[i] : 0;
    w[1][i] = i <= a.ry ? (uint32_t) a.wy[i] : 0;
  }
  __syncthreads ();
}

/* The folded bands' suffix sums of the horizontal weights, s[k] = wx[k] +
 * ... + wx[rx] (k < 10), by threads 0-9 before a barrier.  Every lane
 * reads the same weight at a time: the constant cache serves one address
 * at a time, and with a lane's own first weight (i from tid) the loop's
 * loads were served ten times over. */
__device__ __forceinline__ void
stage_suffix (uint32_t (&s)[10], const BlurArgs & a)
{
  const int tid = threadIdx.x;
  if (tid < 10) {
    uint32_t sum = 0;
    for (int i = 0; i <= a.rx; i++)
      if (i >= tid)
        sum += (uint32_t) a.wx[i];
    s[tid] = sum;
  }
}

/* Four pixels of C interleaved channels (the first 4 C bytes of `u`) as C
 * words, one per channel, four pixels each. */
template < int C > __device__ __forceinline__ void
deinterleave4 (const uint4 & u, uint32_t (&ch)[C])
{
  if constexpr (C == 1) {
    ch[0] = u.x;
  } else if constexpr (C == 2) {
    ch[0] = __byte_perm (u.x, u.y, 0x6420);
    ch[1] = __byte_perm (u.x, u.y, 0x7531);
  } else if constexpr (C == 3) {
    ch[0] = __byte_perm (__byte_perm (u.x, u.y, 0x0630), u.z, 0x5210);
    ch[1] = __byte_perm (__byte_perm (u.x, u.y, 0x0741), u.z, 0x6210);
    ch[2] = __byte_perm (__byte_perm (u.x, u.y, 0x0052), u.z, 0x7410);
  } else {
    const uint32_t a = __byte_perm (u.x, u.y, 0x5140);
    const uint32_t b = __byte_perm (u.z, u.w, 0x5140);
    const uint32_t c = __byte_perm (u.x, u.y, 0x7362);
    const uint32_t d = __byte_perm (u.z, u.w, 0x7362);
    ch[0] = __byte_perm (a, b, 0x5410);
    ch[1] = __byte_perm (a, b, 0x7632);
    ch[2] = __byte_perm (c, d, 0x5410);
    ch[3] = __byte_perm (c, d, 0x7632);
  }
}

/* Two pixels of C bytes (words[] in memory order) to out: one store where
 * `vector` (aligned, both pixels in the frame), else byte by byte, the
 * second pixel only if `two`. */
template < int C > __device__ __forceinline__ void
store_pair (uint8_t * out, const uint32_t * b, bool vector, bool two)
{
  if (vector) {
    if constexpr (C == 4) {
      *reinterpret_cast < uint2 * >(out) = make_uint2 (b[0], b[1]);
    } else if constexpr (C == 2) {
      *reinterpret_cast < uint32_t * >(out) = b[0];
    } else if constexpr (C == 3) {
      uint16_t *o16 = reinterpret_cast < uint16_t * >(out);
      o16[0] = (uint16_t) b[0];
      o16[1] = (uint16_t) (b[0] >> 16);
      o16[2] = (uint16_t) b[1];
    } else {
      *reinterpret_cast < uint16_t * >(out) = (uint16_t) b[0];
    }
  } else {
    const int n = (two ? 2 : 1) * C;
#pragma unroll
    for (int e = 0; e < 2 * C; e++)
      if (e < n)
        out[e] = (uint8_t) (b[e / 4] >> (8 * (e % 4)));
  }
}

/* t as the vertical products take it: a half-precision number, 1024 + t
 * + 2 (exact: at most 2046), whose bits are 0x6400 + t + 2.
 * - The 1024 makes the bits t's own (no conversion); it adds 1024 * 2^13
 *   = 2^23 to every vertical sum.
 * - The 2 adds 2 * 2^13, half of 2^(V_BITS + MID_BITS), to the vertical
 *   sum: its rounding half.
 * Both go into the low-byte product's accumulator, with the half of t's
 * own rounding: h + kTLowStart = 256 hi + lo, and the bits are that
 * shifted right by H_BITS - MID_BITS. */
constexpr int kTShift = CF_BLUR_H_BITS - CF_BLUR_MID_BITS;
constexpr int kTLowStart = ((0x6400 + (1 << (CF_BLUR_MID_BITS - 1)))
    << kTShift) + (1 << (kTShift - 1));
static_assert (CF_BLUR_V_BITS == 13 && CF_BLUR_MID_BITS == 2,
    "the vertical sums' offset is 2^23 and t is at most 1020");

/* The products of one 32-tap chunk, horizontal: h = 256 hi + lo; the
 * first chunk starts lo at kTLowStart */
__device__ __forceinline__ void
horizontal_chunk (int (&hi)[4], int (&lo)[4], const uint32_t (&a_hi)[4],
    const uint32_t (&a_lo)[4], uint32_t b0, uint32_t b1, bool first,
    bool k16 = false)
{
  const int zero[4] = { 0, 0, 0, 0 };
  const int start[4] = { kTLowStart, kTLowStart, kTLowStart, kTLowStart };
  if (k16) {
    mma_u8_k16 (hi, a_hi, b0, first ? zero : hi);
    mma_u8_k16 (lo, a_lo, b0, first ? start : lo);
  } else {
    mma_u8 (hi, a_hi, b0, b1, first ? zero : hi);
    mma_u8 (lo, a_lo, b0, b1, first ? start : lo);
  }
}

/* Outputs d and d + 1 of a horizontal tile (two rows of one pixel) as a
 * pair of t's halves (see kTLowStart), d's in the low half */
__device__ __forceinline__ uint32_t
horizontal_t_pair (const int (&hi)[4], const int (&lo)[4], int d)
{
  const uint32_t e0 = ((uint32_t) hi[d] * 256u + (uint32_t) lo[d]) >> kTShift;
  const uint32_t e1 =
      ((uint32_t) hi[d + 1] * 256u + (uint32_t) lo[d + 1]) >> kTShift;
  return __byte_perm (e0, e1, 0x5410);
}

/* The output byte of a vertical sum s = 2^23 + sum ky (t + 2), as byte 0
 * of the result: s / 2^15 is 256 + (v + half) / 2^(V_BITS + MID_BITS), so
 * adding 2^23 - 256 and rounding down leaves 2^23 + the output, whose
 * bits are 0x4B000000 + the output. */
__device__ __forceinline__ uint32_t
output_bits (float s)
{
  static_assert (CF_BLUR_V_BITS + CF_BLUR_MID_BITS == 15, "scale");
  return __float_as_uint (__fmaf_rd (s, 1.0f / (1 << 15), kTwo23 - 256.0f));
}

/* Output d (d0, d1: row g, pixels 2t and 2t + 1; d2, d3: row g + 8) of
 * channel c of a vertical tile, into its place in the words of two
 * pixels of C bytes for rows g and g + 8: one PRMT. */
template < int C > __device__ __forceinline__ void
place_output (uint32_t (&rows)[2][(2 * C + 3) / 4], const float (&sum)[4],
    int c)
{
#pragma unroll
  for (int d = 0; d < 4; d++) {
    const uint32_t v = output_bits (sum[d]);
    const int at = (d & 1) * C + c;     /* byte in the row's pair */
    uint32_t & w = rows[d >> 1][at / 4];
    switch (at % 4) {
      /* byte 0 is a word's first (c = 0 comes first, and d = 0 before 1):
       * v as it is, whose bytes 1 to 3 the others replace, or which are
       * not stored */
      case 0: w = v; break;
      case 1: w = __byte_perm (w, v, insert_byte0 < 1 > ()); break;
      case 2: w = __byte_perm (w, v, insert_byte0 < 2 > ()); break;
      default: w = __byte_perm (w, v, insert_byte0 < 3 > ()); break;
    }
  }
}

/* The work of a launch: the 16-row output steps of every strip, strip
 * after strip.  Each block takes an equal share of them, a run (crossing
 * into the next strip where its run does), so that all blocks finish
 * together; next() gives the run's parts, one strip each.  A step of the
 * first or the last strip counts EDGE_WEIGHT eighths of one of the
 * others: their steps fill the columns outside the frame, behind a
 * barrier of their own (StepLoader::fill_halo()). */
template < int EDGE_WEIGHT, int STRIP = kMmaStripPx > struct WorkRun
{
  int width, height, out_steps, strips;
  long long s0, s1;

  __device__ WorkRun (int w, int h) : width (w), height (h),
      out_steps ((h + kMmaStep - 1) / kMmaStep),
      strips ((w + STRIP - 1) / STRIP)
  {
    if constexpr (EDGE_WEIGHT == 8) {
      const long long total = (long long) strips * out_steps;
      /* (in 32 bits where the products fit, as they do up to 8K and
       * beyond: each block's first copies wait for this, and the 64-bit
       * divisions delayed them by ~0.2 us on the H100) */
      if (total * gridDim.x <= 0xffffffffLL) {
        const uint32_t total32 = (uint32_t) total;
        s0 = total32 * blockIdx.x / gridDim.x;
        s1 = total32 * (blockIdx.x + 1) / gridDim.x;
      } else {
        s0 = total * blockIdx.x / gridDim.x;
        s1 = total * (blockIdx.x + 1) / gridDim.x;
      }
    } else {
      const long long o = out_steps, inner = strips > 2 ? strips - 2 : 0;
      const long long total = 8 * o * inner + EDGE_WEIGHT * o *
          (strips > 1 ? 2 : 1);
      s0 = step_at (total * blockIdx.x / gridDim.x);
      s1 = step_at (total * (blockIdx.x + 1) / gridDim.x);
    }
  }

  /* the first step that starts at or after `work` eighths */
  __device__ long long step_at (long long work) const
  {
    const long long o = out_steps;
    const long long first_end = EDGE_WEIGHT * o;        /* strip 0's work */
    const long long inner_end = first_end + 8 * o * (strips - 2);
    if (strips == 1 || work <= first_end)
      return (work + EDGE_WEIGHT - 1) / EDGE_WEIGHT;
    if (work <= inner_end)
      return o + (work - first_end + 7) / 8;
    return (strips - 1) * o + (work - inner_end + EDGE_WEIGHT - 1) /
        EDGE_WEIGHT;
  }

  /* the next part: strip pixels from x0, output rows from y0 (rows of
   * them, in n steps); false when the run is done */
  __device__ bool next (int &x0, int &y0, int &rows, int &n)
  {
    if (s0 >= s1)
      return false;
    const int strip = s1 <= 0xffffffffLL ? (int) ((uint32_t) s0 /
        (uint32_t) out_steps) : (int) (s0 / out_steps);
    const int first = (int) (s0 - (long long) strip * out_steps);
    n = (int) min ((long long) (out_steps - first), s1 - s0);
    x0 = strip * STRIP;
    y0 = first * kMmaStep;
    rows = min (n * kMmaStep, height - y0);
    s0 += n;
    return true;
  }
};

/* cp.async of a unit's 4 C bytes (sm_80 on; nothing before).  With
 * PREFETCH_256 (4 channels), L2 fetches the unit's whole 256-byte block
 * from DRAM (.L2::256B): blur_mma8_direct_kernel's rows are 576 bytes a
 * strip and step, and 4K RGBA sigma 2.6 took 31.8-32.0 us with it against
 * 32.1-32.5 on the H100. */
template < int C, bool PREFETCH_256 = false > __device__ __forceinline__
    void
copy_unit_async (uint32_t to, const uint8_t * from)
{
#if __CUDA_ARCH__ >= 800
  if constexpr (C == 4 && PREFETCH_256) {
    asm volatile ("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n"
        ::"r" (to), "l" (from) : "memory");
  } else if constexpr (C == 4) {
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;\n"
        ::"r" (to), "l" (from) : "memory");
  } else if constexpr (C == 2) {
    asm volatile ("cp.async.ca.shared.global [%0], [%1], 8;\n"
        ::"r" (to), "l" (from) : "memory");
  } else {
#pragma unroll
    for (int w = 0; w < C; w++)
      asm volatile ("cp.async.ca.shared.global [%0], [%1], 4;\n"
          ::"r" (to + 4 * w), "l" (from + 4 * w) : "memory");
  }
#else
  (void) to;
  (void) from;
#endif
}

/* cp.async of one aligned 4-byte word (sm_80 on; nothing before) */
__device__ __forceinline__ void
copy_word_async (uint32_t to, const uint32_t * from)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.ca.shared.global [%0], [%1], 4;\n"
      ::"r" (to), "l" (from) : "memory");
#else
  (void) to;
  (void) from;
#endif
}

/* The aligned word holding pixel sx of a row of `width` pixels, and the
 * pixel's first byte in it; nullptr where the pixel's C bytes straddle two
 * words, or the word reaches outside the row's pixels (which need not be
 * memory of the frame's). */
template < int C > __device__ __forceinline__ const uint32_t *
pixel_word (const uint8_t * row, int sx, int width, int &offset)
{
  const uintptr_t b = (uintptr_t) (row + (size_t) sx * C);
  offset = (int) (b & 3);
  const uintptr_t w = b - offset;
  if (offset + C > 4 || w < (uintptr_t) row
      || w + 4 > (uintptr_t) (row + (size_t) width * C))
    return nullptr;
  return reinterpret_cast < const uint32_t * >(w);
}

/* The two halves of a unit on a frame row that is neither copied whole nor
 * wholly outside the frame (see StepLoader).  The first issues copies of
 * the words holding its four pixels, the border rule applied, on frame row
 * `row`, to the four words of its slot. */
template < int C > __device__ __forceinline__ void
issue_border_unit (uint32_t slot, const uint8_t * row, int px0, int width,
    int border)
{
#pragma unroll
  for (int p = 0; p < 4; p++) {
    const int sx = border_index (px0 + p, width, border);
    int offset;
    const uint32_t *word = sx >= 0 ?
        pixel_word < C > (row, sx, width, offset) : nullptr;
    if (word)
      copy_word_async (slot + 4 * p, word);
  }
}

/* The second builds the unit from its slot, as its four pixels of C bytes
 * would lie in memory: `constant` (C bytes) where the border rule gives no
 * pixel; a pixel whose word was not copied (see pixel_word) is loaded
 * now. */
template < int C > __device__ __forceinline__ uint4
border_unit (const uint32_t * slot, const uint8_t * row, int px0, int width,
    int border, uint32_t constant)
{
  uint32_t w[4] = { 0, 0, 0, 0 };
#pragma unroll
  for (int p = 0; p < 4; p++) {
    const int sx = border_index (px0 + p, width, border);
    uint32_t v = constant;
    int offset;
    if (sx >= 0) {
      if (pixel_word < C > (row, sx, width, offset)) {
        v = slot[p] >> (8 * offset);
      } else {
        v = 0;
#pragma unroll
        for (int c = 0; c < C; c++)
          v |= (uint32_t) row[(size_t) sx * C + c] << (8 * c);
      }
    }
    if constexpr (C == 4) {
      w[p] = v;
    } else {
#pragma unroll
      for (int c = 0; c < C; c++) {
        const int b = p * C + c;
        w[b / 4] |= ((v >> (8 * c)) & 0xffu) << (8 * (b % 4));
      }
    }
  }
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* Four pixels of C bytes, each `constant` (C bytes), as they would lie in
 * memory: a unit of a constant row */
template < int C > __device__ __forceinline__ uint4
constant_unit (uint32_t constant)
{
  uint32_t w[4] = { 0, 0, 0, 0 };
#pragma unroll
  for (int b = 0; b < 4 * C; b++)
    w[b / 4] |= ((constant >> (8 * (b % C))) & 0xffu) << (8 * (b % 4));
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* The input of a step: 16 rows of span pixels from x0 - HALO, unit u (4
 * pixels) at row u / units_per_row.  Every load is asynchronous
 * (cp.async), issued one step ahead (or two) into this thread's 16-byte
 * slot of a raw buffer: the loads stay in flight during the step's
 * products without holding registers.  Staging turns each unit into one
 * word per channel plane.  A thread stages the units it copied, so only cp.async's own wait
 * orders them.
 *
 * - A unit inside the frame, on an aligned row, is one copy.
 * - A unit of a constant row (the border rule's rows above and below the
 *   frame) is the constant.
 * - A unit wholly left or right of the frame is not loaded at all: once the
 *   step's planes are staged (after a barrier), fill_halo() writes those
 *   columns from the frame's columns the border rule names, which the span
 *   holds.  Building them unit by unit instead, each lane with a
 *   different unit, cost the edge strips' blocks about as many
 *   instructions per step as the rest of the step's work: they ran 1.5
 *   times as long as the others, and set the kernel's time.  (The
 *   radius-8 kernel with 4 channels needs no values there for the
 *   replicate and reflect-101 rules: folded_band_fragments.)
 * - Any other unit (on rows that are not aligned, or straddling the frame's
 *   right edge) is built pixel by pixel through the border rule, from the
 *   copied frame words that hold its pixels.
 * Steps of frame rows whose units are all of the first and third kinds
 * (interior(), whole_units()) take paths without the per-unit checks the
 * others need (issue_whole(), stage_whole()). */
template < int C, int HALO, int STRIP = kMmaStripPx > struct StepLoader
{
  using L = MmaLayout < HALO, STRIP >;
  const uint8_t *src;
  size_t src_pitch;
  int width, height, x0, y0;
  bool rows_aligned;
  /* unit u's byte offset from the step's first span pixel of its first
   * row.  A copy's address is then this 32-bit offset added to a base the
   * block shares, where it was a 64-bit multiply-add a unit (src_pitch is
   * below 2^26: see try_mma). */
  __device__ __forceinline__ uint32_t unit_offset (int u) const
  {
    const int rr = u / L::units_per_row;
    return (uint32_t) rr * (uint32_t) src_pitch +
        (uint32_t) (4 * C * (u - rr * L::units_per_row));
  }

  /* the first pixel of unit u (of its row of the span) */
  __device__ __forceinline__ int unit_x (int u) const
  {
    const int rr = u / L::units_per_row;
    return x0 - HALO + 4 * (u - rr * L::units_per_row);
  }

  /* the unit's first pixel and frame row (-1: constant) */
  __device__ __forceinline__ void where (int step, int u, int &px0,
      int &sy, const BlurArgs & a) const
  {
    const int rr = u / L::units_per_row;
    px0 = unit_x (u);
    sy = border_index (y0 - HALO + step * kMmaStep + rr, height, a.border);
  }

  __device__ __forceinline__ bool copied (int px0, int sy) const
  {
    return sy >= 0 && rows_aligned && px0 >= 0 && px0 + 4 <= width;
  }

  /* wholly left or right of the frame: left to fill_halo() */
  __device__ __forceinline__ bool outside (int px0) const
  {
    return px0 + 4 <= 0 || px0 >= width;
  }

  /* whether the step's rows and the span's columns are all frame pixels
   * on aligned rows, so that every unit is one copy (the same for every
   * thread of the block).  Most steps are; they take a path with none of
   * the checks below, which cost more instructions than the copies and the
   * staging themselves. */
  __device__ __forceinline__ bool interior (int step) const
  {
    const int top = y0 - HALO + step * kMmaStep;
    return rows_aligned && x0 - HALO >= 0 && x0 - HALO + L::span <= width
        && top >= 0 && top + kMmaStep <= height;
  }

  /* where unit u lies in a staged plane: its row's start plus 4 bytes a
   * unit (which is 4 u where the rows are exactly the span) */
  __device__ __forceinline__ static int plane_offset (int u)
  {
    if constexpr (L::in_w == 4 * L::units_per_row) {
      return 4 * u;
    } else {
      const int rr = u / L::units_per_row;
      return rr * L::in_w + 4 * (u - rr * L::units_per_row);
    }
  }

  /* whether the step's rows are as interior()'s and the span's units lie
   * each wholly in the frame or wholly outside it (the same for every
   * thread of the block): then every unit is one copy or, outside, left
   * to fill_halo().  The left strip's steps always are (the span starts
   * on a multiple of 4), the right strip's where the width is a multiple
   * of 4.  Through issue_edge() and stage_edge(), the edge strips' steps
   * took ~1.5 times as long as the others' and the kernel waited for
   * their blocks (docs/notes.md, cudablur v9). */
  __device__ __forceinline__ bool whole_units (int step) const
  {
    const int top = y0 - HALO + step * kMmaStep;
    return rows_aligned && (width % 4 == 0 || x0 - HALO + L::span <= width)
        && top >= 0 && top + kMmaStep <= height;
  }

  /* whether the span has columns outside the frame (the same for every
   * thread of the block) */
  __device__ __forceinline__ bool has_halo () const
  {
    return x0 - HALO < 0 || x0 - HALO + L::span > width;
  }

  /* f (u, px0, sy) for each unit of the step that is this thread's */
  template < typename F > __device__ __forceinline__ void
  each_unit (int step, int tid, const BlurArgs & a, F f) const
  {
    each_unit_index (tid,[&](int u) {
          int px0, sy;
          where (step, u, px0, sy, a);
          f (u, px0, sy);
        });
  }

  /* f (u) for each unit of a step that is this thread's */
  template < typename F > __device__ __forceinline__ static void
  each_unit_index (int tid, F f)
  {
#pragma unroll
    for (int k = 0; k < L::units_per_thread; k++) {
      const int u = tid + k * L::threads;
      if (L::units % L::threads == 0 || u < L::units)
        f (u);
    }
  }

  __device__ __forceinline__ void issue (uint8_t * raw, int step, int tid,
      const BlurArgs & a) const
  {
    if (interior (step))
      issue_whole < false > (raw, step, tid);
    else if (whole_units (step))
      issue_whole < true > (raw, step, tid);
    else
      issue_edge (raw, step, tid, a);
#if __CUDA_ARCH__ >= 800
    asm volatile ("cp.async.commit_group;\n"::: "memory");
#endif
  }

  /* a step that is whole_units(); SOME_OUTSIDE where it is not
   * interior() */
  template < bool SOME_OUTSIDE > __device__ __forceinline__ void
  issue_whole (uint8_t * raw, int step, int tid) const
  {
    const int top = y0 - HALO + step * kMmaStep;
    /* (on the left strip, left of the frame's first pixel: the units there
     * are not copied) */
    const uintptr_t base = (uintptr_t) src + (uintptr_t) ((intptr_t) top *
        (intptr_t) src_pitch + (intptr_t) (x0 - HALO) * C);
    each_unit_index (tid,[&](int u) {
          if constexpr (SOME_OUTSIDE) {
            const int px0 = unit_x (u);
            if (px0 < 0 || px0 >= width)
              return;
          }
          copy_unit_async < C > ((uint32_t) __cvta_generic_to_shared (raw +
                  16 * u), reinterpret_cast < const uint8_t * >(base +
                  unit_offset (u)));
        });
  }

  /* a step that is not whole_units(): unit by unit, as the list above
   * says */
  __device__ __forceinline__ void issue_edge (uint8_t * raw, int step,
      int tid, const BlurArgs & a) const
  {
    each_unit (step, tid, a,[&](int u, int px0, int sy) {
          const uint32_t slot = (uint32_t) __cvta_generic_to_shared (raw +
              16 * u);
          if (copied (px0, sy)) {
            copy_unit_async < C > (slot, src + (size_t) sy * src_pitch +
                (size_t) px0 * C);
          } else if (sy >= 0 && !outside (px0)) {
            issue_border_unit < C > (slot, src + (size_t) sy * src_pitch, px0,
                width, a.border);
          }
        });
  }

  /* into the C planes at `in` (plane stride in_stride), once this
   * thread's copies of the step have landed: all but the PENDING groups
   * it committed last (the steps issued after this one) */
  template < int PENDING = 0 >
  __device__ __forceinline__ void stage (const uint8_t * raw, uint8_t * in,
      int in_stride, int step, int tid, const BlurArgs & a) const
  {
#if __CUDA_ARCH__ >= 800
    asm volatile ("cp.async.wait_group %0;\n"::"n" (PENDING):"memory");
#endif
    if (interior (step))
      stage_whole < false > (raw, in, in_stride, tid);
    else if (whole_units (step))
      stage_whole < true > (raw, in, in_stride, tid);
    else
      stage_edge (raw, in, in_stride, step, tid, a);
  }

  /* (the same for staging) */
  template < bool SOME_OUTSIDE > __device__ __forceinline__ void
  stage_whole (const uint8_t * raw, uint8_t * in, int in_stride,
      int tid) const
  {
    each_unit_index (tid,[&](int u) {
          if constexpr (SOME_OUTSIDE) {
            const int px0 = unit_x (u);
            if (px0 < 0 || px0 >= width)
              return;
          }
          stage_unit (*reinterpret_cast < const uint4 * >(raw + 16 * u), in,
              in_stride, u);
        });
  }

  /* (the same for staging) */
  __device__ __forceinline__ void stage_edge (const uint8_t * raw,
      uint8_t * in, int in_stride, int step, int tid,
      const BlurArgs & a) const
  {
    uint32_t constant = 0;
#pragma unroll
    for (int c = 0; c < C; c++)
      constant |= (uint32_t) a.border_value[c] << (8 * c);
    each_unit (step, tid, a,[&](int u, int px0, int sy) {
          uint4 unit;
          if (copied (px0, sy))
            unit = *reinterpret_cast < const uint4 * >(raw + 16 * u);
          else if (sy < 0)
            unit = constant_unit < C > (constant);
          else if (outside (px0))
            return;
          else
            unit = border_unit < C > (reinterpret_cast < const uint32_t * >(raw
                    + 16 * u), src + (size_t) sy * src_pitch, px0, width,
                a.border, constant);
          stage_unit (unit, in, in_stride, u);
        });
  }

  /* unit u's four pixels into its word of each channel plane */
  __device__ __forceinline__ static void stage_unit (const uint4 & unit,
      uint8_t * in, int in_stride, int u)
  {
    uint32_t ch[C];
    deinterleave4 < C > (unit, ch);
#pragma unroll
    for (int c = 0; c < C; c++)
      *reinterpret_cast < uint32_t * >(in + c * in_stride + plane_offset (u)) =
          ch[c];
  }

  /* The span's columns outside the frame, in the staged planes: each a
   * copy of the frame column the border rule names, or the constant.  For
   * a column at most HALO pixels past the frame's edge, that column is in
   * the span (the edge column, or a mirror image within HALO pixels of the
   * edge).  Columns further out feed only outputs past the frame's edge,
   * and get zeros. */
  __device__ __forceinline__ void fill_halo (uint8_t * in, int in_stride,
      int tid, const BlurArgs & a) const
  {
    const int left = x0 - HALO;
    const int n_left = max (0, min (L::span, -left));
    const int right_from = max (n_left, min (L::span, width - left));
    const int n = n_left + L::span - right_from;
    for (int i = tid; i < kMmaStep * n; i += L::threads) {
      const int rr = i / n, k = i - rr * n;
      const int j = k < n_left ? k : right_from + (k - n_left);
      const int sx = border_index (left + j, width, a.border);
      const int from = sx - left;
      uint8_t *to = in + rr * L::in_w + j;
#pragma unroll
      for (int c = 0; c < C; c++)
        to[c * in_stride] = sx < 0 ? (uint8_t) a.border_value[c] :
            from >= 0 && from < L::span ? to[c * in_stride + from - j] : 0;
    }
  }
};

/* 6 blocks per SM fit in registers (80 each, a few bytes spilled) up to a
 * halo of 16, and in shared memory (37 KB each at 4 channels, with one raw
 * buffer and the weights in it); beyond, the band fragments need more
 * registers */
template < int C, int HALO > __global__ void
__launch_bounds__ (kMmaThreads, HALO <= 16 ? 6 : 4)
    blur_mma_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    const __grid_constant__ BlurArgs a)
{
  /* (built for every architecture, but launched on sm_80 on only: below,
   * the products and copies compile to nothing) */
  using L = MmaLayout < HALO >;
  constexpr int NK = L::chunks;
  extern __shared__ __align__ (16) uint8_t mma_smem[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  /* the part of a strip being worked on (see WorkRun), an edge strip's
   * step counted as 1 + HALO / 16 of the others (2 at a halo of 16, 3 at
   * 32): they fill more columns outside the frame, and with no weight
   * their blocks ended last.  On the H100 this took 4K sigma 5 from 57.6
   * to 50.1 us and sigma 10 from 97.4 to 74.5 (other weights:
   * docs/notes.md, cudablur v9) */
  WorkRun < 8 + HALO / 2 > run (width, height);
  int x0 = 0, y0 = 0, rows = 0, n = 0;

  auto in_plane = [&](int c) { return mma_smem + c * L::channel_bytes; };
  auto t_ring = [&](int c) {
    return reinterpret_cast < uint32_t * >(mma_smem + c * L::channel_bytes +
        L::in_bytes);
  };

  /* every row of the ring is written before a vertical product reads it,
   * but start it defined all the same: a half that meets a zero weight
   * must not be a NaN */
  for (int i = tid; i < C * L::channel_bytes / 16; i += kMmaThreads)
    reinterpret_cast < uint4 * >(mma_smem)[i] = make_uint4 (0, 0, 0, 0);

  /* raw copies of a step's units, after the channels; until the first
   * copies, the weights (static shared memory of their own would leave room
   * for one block fewer per SM at a halo of 16) */
  uint8_t *raw = mma_smem + C * L::channel_bytes;
  static_assert (16 * L::units >= sizeof (uint32_t[2][33]), "weights");
  uint32_t (&weights)[2][33] = *reinterpret_cast < uint32_t (*)[2][33] >(raw);
  stage_weights (weights, a);
  constexpr int NV = L::vchunks;
  uint32_t hx_hi[NK][4], hx_lo[NK][4], vy[NV][4];
  band_fragments < HALO, NK > (weights[0], a.rx, lane, hx_hi, hx_lo);
  band_fragments_f16 < HALO, NV > (weights[1], a.ry, lane, vy);

  constexpr int unit_align = C == 4 ? 16 : C == 2 ? 8 : 4;
  const bool rows_aligned = ((uintptr_t) src % unit_align) == 0 &&
      src_pitch % unit_align == 0;

  StepLoader < C, HALO > loader { src, src_pitch, width, height, 0, 0,
    rows_aligned };

  /* t of a step's 16 rows, in tiles of 16 pixels x 8 rows of one channel:
   * warp w takes pixels 16 w on, every channel and both row groups */
  auto horizontal = [&](int step) {
    const int ring0 = (step * kMmaStep) % L::ring;
#pragma unroll
    for (int k = 0; k < 2 * C; k++) {
      const int c = k >> 1, rg = k & 1;
      int hi[4], lo[4];
      const uint8_t *row = in_plane (c) + (8 * rg + g) * L::in_w +
          16 * warp + 4 * t;
#pragma unroll
      for (int q = 0; q < NK; q++) {
        const bool k16 = L::half_last && q == NK - 1;
        const uint32_t b0 = *reinterpret_cast < const uint32_t * >(row +
            32 * q);
        const uint32_t b1 = k16 ? 0 : *reinterpret_cast < const uint32_t *
            >(row + 32 * q + 16);
        horizontal_chunk (hi, lo, hx_hi[q], hx_lo[q], b0, b1, q == 0, k16);
      }
      /* d0, d1: pixel g, rows 2t and 2t + 1; d2, d3: pixel g + 8 */
      const int rp = (ring0 + 8 * rg) / 2 + t;
#pragma unroll
      for (int half = 0; half < 2; half++)
        t_ring (c)[L::t_word (16 * warp + g + 8 * half, rp)] =
            horizontal_t_pair (hi, lo, 2 * half);
    }
  };

  /* output rows of block step i, in tiles of 16 rows x 8 pixels with every
   * channel: warp w takes pixels 8 w and 8 (w + 4) on */
  constexpr int out_align = C == 4 ? 8 : C == 2 ? 4 : 2;
  const bool vector_stores = ((uintptr_t) dst % out_align) == 0 &&
      dst_pitch % out_align == 0;
  auto vertical = [&](int i) {
    const int ring0 = (i * kMmaStep) % L::ring;
#pragma unroll
    for (int k = 0; k < 2; k++) {
      const int tile = warp + kMmaWarps * k;
      const int px = 8 * tile + g;      /* the column this lane loads */
      /* rows g and g + 8: two pixels each */
      uint32_t out_rows[2][(2 * C + 3) / 4] = { };
#pragma unroll
      for (int c = 0; c < C; c++) {
        const float zero[4] = { 0, 0, 0, 0 };
        float sum[4];
        const uint32_t *ring = t_ring (c);
#pragma unroll
        for (int q = 0; q < NV; q++) {
          /* taps 2t, 2t + 1 and 2t + 8, 2t + 9 of the chunk: row pairs
           * from (ring0 + 16 q) / 2, a multiple of 4 */
          const int rp0 = (ring0 / 2 + 8 * q) % L::ring_words;
          const int rp1 = (ring0 / 2 + 8 * q + 4) % L::ring_words;
          const uint32_t b0 = ring[L::t_word (px, rp0 + t)];
          const uint32_t b1 = ring[L::t_word (px, rp1 + t)];
          mma_f16 (sum, vy[q], b0, b1, q == 0 ? zero : sum);
        }
        place_output < C > (out_rows, sum, c);
      }
      const int x = x0 + 8 * tile + 2 * t;
      if (vector_stores && (i + 1) * kMmaStep <= rows
          && x0 + 8 * tile + 8 <= width) {
        /* the tile's 16 x 8 pixels are all in the frame (most are) */
        uint8_t *out = dst + (size_t) (y0 + i * kMmaStep + g) * dst_pitch +
            (size_t) x * C;
#pragma unroll
        for (int half = 0; half < 2; half++)
          store_pair < C > (out + 8 * half * dst_pitch, out_rows[half], true,
              true);
        continue;
      }
#pragma unroll
      for (int half = 0; half < 2; half++) {
        const int yr = i * kMmaStep + g + 8 * half;
        if (yr >= rows || x >= width)
          continue;
        uint8_t *out = dst + (size_t) (y0 + yr) * dst_pitch + (size_t) x * C;
        store_pair < C > (out, out_rows[half],
            vector_stores && x + 1 < width, x + 1 < width);
      }
    }
  };

  __syncthreads ();
  while (run.next (x0, y0, rows, n)) {
    const int steps = n + L::lag;
    /* (the barriers below also keep a part's first writes of shared
     * memory after the previous part's last reads) */
    loader.x0 = x0;
    loader.y0 = y0;
    loader.issue (raw, 0, tid, a);
    for (int step = 0; step < steps; step++) {
      loader.stage (raw, mma_smem, L::channel_bytes, step, tid, a);
      __syncthreads ();
      /* the next step's copies overwrite the units just staged: after the
       * barrier, which orders them after every read of them */
      if (step + 1 < steps)
        loader.issue (raw, step + 1, tid, a);
      if (loader.has_halo ()) {
        loader.fill_halo (mma_smem, L::channel_bytes, tid, a);
        __syncthreads ();
      }
      horizontal (step);
      __syncthreads ();
      if (step >= L::lag)
        vertical (step - L::lag);
    }
  }
}

/* The radius-8 kernel's strips (pixels), blocks an SM, and steps of input
 * in flight (ahead, in ahead + 1 raw buffers).
 * - 1 to 3 channels: strips of 64 pixels (128 threads), 1 step ahead, 5
 *   blocks an SM (measured 1% faster than 6: 80 registers, spills); 2
 *   channels (NV12's chroma) 4, where ptxas spilled 40 bytes at 5 (96
 *   registers) and spills none (120): on the H100 4K NV12 sigma 2.6 took
 *   38.6-39.7 us against 40.5-40.7, 1080p and 8K the same.
 * - 4 channels: strips of 128 pixels (256 threads), 2 blocks an SM with up
 *   to 128 registers a thread, 2 steps ahead.  Against the 64-pixel shape,
 *   on the H100: 4K RGBA sigma 2.6 36.5-36.8 -> 35.6-36.1 us, 1080p
 *   16.0-16.2 -> 15.3, 8K the same (117.5-119.1 both); the halo is 12.5%
 *   of a strip instead of 25%, and the copies of the strip-walk skeleton
 *   (bench/experiments) take 29.2-29.5 us at 4K in this shape, 32.0-32.4
 *   in the other.  The same shape for 1 and 2 channels made 4K NV12 3%
 *   slower (docs/notes.md, cudablur: wider strips); 3 channels (RGB, BGR)
 *   have no benchmark row and keep the shape that was measured before. */
template < int C > struct Mma8Shape
{
  static constexpr bool wide = C == 4;
  static constexpr int strip = wide ? 128 : kMmaStripPx;
  static constexpr int threads = mma_threads (strip);
  static constexpr int blocks_per_sm = wide ? 2 : C == 2 ? 4 : 5;
  static constexpr int ahead = wide ? 2 : 1;
};

/* A group of no copies: stage < PENDING > counts groups, so each step
 * past a part's end still commits one */
__device__ __forceinline__ void
commit_empty_group ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.commit_group;\n":::"memory");
#endif
}

/* A barrier in two halves, on an mbarrier in shared memory that expects
 * every thread of the block: arrive() without waiting, then wait() for the
 * phase of that parity to complete (the arrivals release, the wait
 * acquires, what each thread wrote to shared memory before it arrived) */
__device__ __forceinline__ void
split_barrier_init (uint64_t * bar, int threads)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], %1;\n"::"r" ((uint32_t)
          __cvta_generic_to_shared (bar)), "r" (threads):"memory");
#endif
}

__device__ __forceinline__ void
split_barrier_arrive (uint64_t * bar)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mbarrier.arrive.shared::cta.b64 _, [%0];\n"::"r" ((uint32_t)
          __cvta_generic_to_shared (bar)):"memory");
#endif
}

/* (try_wait, which may suspend the thread a while, is sm_90's; test_wait,
 * sm_80's, only tests) */
#if __CUDA_ARCH__ >= 900
#define CF_MBARRIER_WAIT "mbarrier.try_wait.parity"
#else
#define CF_MBARRIER_WAIT "mbarrier.test_wait.parity"
#endif
__device__ __forceinline__ void
split_barrier_wait (uint64_t * bar, uint32_t parity)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("{\n.reg .pred done;\nWAIT_%=:\n"
      CF_MBARRIER_WAIT ".shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n"::"r" ((uint32_t)
          __cvta_generic_to_shared (bar)), "r" (parity):"memory");
#endif
}

/* A radius-8 step's products for channels c0 to c0 + G - 1 (at most C - 1)
 * of a warp's 16 pixel columns, from their B operands (b[k]: rows 0-7
 * taps 0-15, rows 0-7 taps 16-31, then rows 8-15 likewise): t of the
 * step's 16 rows; where `vertical` (every step but a part's first), the
 * vertical products of the previous step's t and this one, into their
 * bytes of out_rows; then t kept in prev.  One stretch of code for the G
 * channels, so that their chains of products and conversions overlap. */
template < int C, int G > __device__ __forceinline__ void
pair_products (const uint32_t (&b)[G][4], int c0, bool vertical,
    const uint32_t (&hx_hi)[4], const uint32_t (&hx_lo)[4],
    const uint32_t (&vy)[2][4], uint32_t (&prev)[C][2][2],
    uint32_t (&out_rows)[2][2][(2 * C + 3) / 4])
{
  /* a horizontal tile's d0, d1 (pixel g, rows 8 rg + 2t and + 1) and
   * d2, d3 (pixel g + 8) are the B operand's registers of the vertical
   * product of the block's 16 rows, for columns g and g + 8 */
  uint32_t cur[G][2][2];
#pragma unroll
  for (int k = 0; k < G && c0 + k < C; k++) {
    /* t: two tiles of 16 pixels x 8 rows (rg: rows 8 rg on) */
    int hi[2][4], lo[2][4];
#pragma unroll
    for (int rg = 0; rg < 2; rg++)
      horizontal_chunk (hi[rg], lo[rg], hx_hi, hx_lo, b[k][2 * rg],
          b[k][2 * rg + 1], true);
#pragma unroll
    for (int p = 0; p < 2; p++)
#pragma unroll
      for (int rg = 0; rg < 2; rg++)
        cur[k][p][rg] = horizontal_t_pair (hi[rg], lo[rg], 2 * p);
  }
  if (vertical) {
    /* the window is the previous block then this one */
#pragma unroll
    for (int k = 0; k < G && c0 + k < C; k++)
#pragma unroll
      for (int p = 0; p < 2; p++) {
        const float zero[4] = { 0, 0, 0, 0 };
        float sum[4];
        mma_f16 (sum, vy[0], prev[c0 + k][p][0], prev[c0 + k][p][1], zero);
        mma_f16 (sum, vy[1], cur[k][p][0], cur[k][p][1], sum);
        place_output < C > (out_rows[p], sum, c0 + k);
      }
  }
#pragma unroll
  for (int k = 0; k < G && c0 + k < C; k++)
#pragma unroll
    for (int p = 0; p < 2; p++)
#pragma unroll
      for (int rg = 0; rg < 2; rg++)
        prev[c0 + k][p][rg] = cur[k][p][rg];
}

/* A radius-8 step's outputs, this lane's words of two pixels (rows g and
 * g + 8 of pixel pairs 2t and 8 + 2t, output rows yr0 on of the part):
 * where `whole` (the warp's 16 x 16 pixels all in the frame, on aligned
 * rows), four stores from `out` (the lane's first byte); elsewhere pixel
 * pair by pair, within the frame. */
template < int C > __device__ __forceinline__ void
store_step (bool whole, uint8_t * out, uint8_t * dst, size_t dst_pitch,
    int y0, int xw, int rows, int width, int yr0, int g, int t,
    bool vector_stores, const uint32_t (&out_rows)[2][2][(2 * C + 3) / 4])
{
  if (whole) {
#pragma unroll
    for (int p = 0; p < 2; p++)
#pragma unroll
      for (int half = 0; half < 2; half++)
        store_pair < C > (out + 8 * half * dst_pitch + 8 * p * C,
            out_rows[p][half], true, true);
    return;
  }
#pragma unroll
  for (int p = 0; p < 2; p++) {
    const int x = xw + 8 * p + 2 * t;
#pragma unroll
    for (int half = 0; half < 2; half++) {
      const int yr = yr0 + g + 8 * half;
      if (yr >= rows || x >= width)
        continue;
      uint8_t *at = dst + (size_t) (y0 + yr) * dst_pitch + (size_t) x * C;
      store_pair < C > (at, out_rows[p][half],
          vector_stores && x + 1 < width, x + 1 < width);
    }
  }
}

/* Radius 8 or less: t never leaves the registers.  The 32 rows of t a
 * vertical tile of 16 outputs needs are two blocks of 16 rows (halo 8 on
 * either side), and a horizontal tile's result (rows 2t and 2t + 1 of
 * pixel columns g and g + 8 in each lane, for each group of 8 rows) is
 * exactly the vertical product's B operand for those columns.
 * So a warp owns 16 pixel columns of the strip: per 16-row block it
 * computes t (from the input rows staged in shared memory, the only data
 * the warps share) and at once the 16 output rows that the block and the
 * one before it cover.  One barrier per block, in two halves (an
 * mbarrier: see the step loop), the staged input double-buffered.  The block's shape is Mma8Shape's. */
template < int C > __global__ void
__launch_bounds__ (Mma8Shape < C >::threads, Mma8Shape < C >::blocks_per_sm)
    blur_mma8_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    const __grid_constant__ BlurArgs a)
{
  /* (built for every architecture, but launched on sm_80 on only: below,
   * the products and copies compile to nothing) */
  constexpr int HALO = 8;
  using S = Mma8Shape < C >;
  using L = MmaLayout < HALO, S::strip >;
  static_assert (L::chunks == 1 && L::lag == 1 && !L::half_last,
      "one whole chunk, one block");
  static_assert (S::ahead == 1 || S::ahead == 2, "raw buffers");
  constexpr int in_bytes = C * L::in_bytes;     /* one buffer, all planes */
  extern __shared__ __align__ (16) uint8_t mma_smem[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  /* (launched with S::threads.  Told so, the compiler drops the checks of
   * the units that every thread copies and stages, and with 1 and 2
   * channels overlaps their stagings: 4K NV12 sigma 2.6 took 37.1-37.3 us
   * on the H100 against 37.8-38.2.  With 4 channels the same took 4K RGBA
   * from 34.7-35.0 to 35.6-35.7.) */
  if (C < 4)
    __builtin_assume (tid < S::threads);
  const int g = lane >> 2, t = lane & 3;
  WorkRun < 8, S::strip > run (width, height);
  int x0 = 0, y0 = 0, rows = 0, n = 0;

  constexpr int unit_align = C == 4 ? 16 : C == 2 ? 8 : 4;
  const bool rows_aligned = ((uintptr_t) src % unit_align) == 0 &&
      src_pitch % unit_align == 0;
  constexpr int out_align = C == 4 ? 8 : C == 2 ? 4 : 2;
  const bool vector_stores = ((uintptr_t) dst % out_align) == 0 &&
      dst_pitch % out_align == 0;

  StepLoader < C, HALO, S::strip > loader { src, src_pitch, width, height,
    0, 0, rows_aligned };
  /* two input buffers, then raw copies of S::ahead + 1 blocks' units */
  uint8_t *raw = mma_smem + 2 * in_bytes;
  constexpr int raw_bytes = 16 * L::units;

  __shared__ uint32_t weights[2][33];
  __shared__ uint32_t suffix[10];
  __shared__ uint64_t step_barrier;
  uint32_t phase = 0;           /* the parity of step_barrier's phase */
  /* The edge strips' warps fold the border rule into their band (see
   * folded_band_fragments), with 4 channels: there it took 4K sigma 2.6
   * from 37.5 to 36.6 us and 1080p from 17.3 to 16.1 on the H100 (8K
   * about 1% slower), and for 1 and 2 channels its code made ptxas spill
   * and 4K NV12 slower (39.6 to 41.3 us; docs/notes.md, cudablur v10). */
  const bool fold = C == 4 && a.border != CF_BORDER_CONSTANT
      && width >= kFoldMinWidth;
  bool folded = false;
  uint32_t hx_hi[1][4], hx_lo[1][4], vy[2][4];

  /* this lane's first output byte in its warp's 16 x 16 output pixels of
   * a step, from the step's first (see whole_steps below; dst_pitch is
   * below 2^26: see try_mma) */
  const uint32_t out_lane = (uint32_t) g * (uint32_t) dst_pitch +
      (uint32_t) ((16 * warp + 2 * t) * C);

  /* t of the previous block, as the vertical products' B operand: pixel
   * columns g and g + 8 (p), rows 2t, 2t + 1 and 2t + 8, 2t + 9 */
  uint32_t prev[C][2][2];

  for (bool first = true; run.next (x0, y0, rows, n); first = false) {
    /* the last part's readers are done with the buffers */
    if (!first)
      __syncthreads ();
    /* the part's first copies: its first S::ahead steps' units */
    loader.x0 = x0;
    loader.y0 = y0;
    loader.issue (raw, 0, tid, a);
    if constexpr (S::ahead == 2) {
      if (n >= 1)
        loader.issue (raw + raw_bytes, 1, tid, a);
      else
        commit_empty_group ();
    }
    if (first) {
      /* The weights' fragments are built after the first copies have
       * gone out, so that their loads overlap it: every block of the one
       * wave starts at once, and memory would idle until then.  `suffix`
       * is written before stage_weights' barrier. */
      if (C == 4)
        stage_suffix (suffix, a);
      if (tid == 0)
        split_barrier_init (&step_barrier, S::threads);
      stage_weights (weights, a);
      band_fragments < HALO, 1 > (weights[0], a.rx, lane, hx_hi, hx_lo);
      band_fragments_f16 < HALO, 2 > (weights[1], a.ry, lane, vy);
    }
    if (fold) {
      /* (warp-uniform) */
      const int xw = x0 + 16 * warp;
      const bool edge = xw == 0 || xw + 16 + HALO > width;
      if (edge)
        folded_band_fragments (weights[0], suffix, a.rx, lane, xw, width,
            a.border, hx_hi, hx_lo);
      else if (folded)
        band_fragments < HALO, 1 > (weights[0], a.rx, lane, hx_hi, hx_lo);
      folded = edge;
    }
    /* the output steps whose 16 x 16 pixels of this warp are all in the
     * frame (most are), on aligned rows, take four stores with no checks,
     * at out_step + out_lane; out_step moves down a step at a time.
     * Computing the whole address in 64 bits at every step, and a unit's
     * copy address likewise (StepLoader::unit_offset), cost ~55 of a
     * step's ~450 instructions (docs/notes.md, cudablur v10). */
    const int xw = x0 + 16 * warp;
    const int whole_steps = vector_stores && xw + 16 <= width ?
        rows / kMmaStep : 0;
    uint8_t *out_step = dst + (size_t) y0 * dst_pitch + (size_t) x0 * C;
    uint8_t *raw_step = raw;    /* the raw buffer of this block's input */
    for (int block = 0; block <= n; block++) {
      uint8_t *in = mma_smem + (block & 1) * in_bytes;
      /* The step's barrier in two halves: each thread arrives once it has
       * staged its units, issues the next copies, and then waits for the
       * others' stagings.  A thread arrives after its products of the
       * step before, so the planes `in` will take are free once the
       * barrier is passed; the raw buffer the copies go to is one only
       * this thread staged from.  Against __syncthreads () after the
       * copies, on the H100: 4K RGBA sigma 2.6 34.8-35.1 -> 32.8-33.0 us,
       * 8K 115.2-115.9 -> 105.9-106.9, 1080p 14.9-15.2 -> 14.7-15.0. */
      if constexpr (S::ahead == 1) {
        loader.stage (raw + (block & 1) * raw_bytes, in, L::in_bytes, block,
            tid, a);
        split_barrier_arrive (&step_barrier);
        if (block < n)
          loader.issue (raw + ((block + 1) & 1) * raw_bytes, block + 1, tid,
              a);
      } else {
        /* block + 2 goes to the buffer block - 1 took */
        loader.template stage < 1 > (raw_step, in, L::in_bytes, block, tid,
            a);
        split_barrier_arrive (&step_barrier);
        uint8_t *raw_free = raw_step == raw ? raw + 2 * raw_bytes :
            raw_step - raw_bytes;
        if (block + 2 <= n)
          loader.issue (raw_free, block + 2, tid, a);
        else
          commit_empty_group ();
        raw_step = raw_step == raw + 2 * raw_bytes ? raw : raw_step +
            raw_bytes;
      }
      split_barrier_wait (&step_barrier, phase);
      phase ^= 1;
      if (!fold && loader.has_halo ()) {
        loader.fill_halo (in, L::in_bytes, tid, a);
        __syncthreads ();
      }

      /* the outputs of rows 16 (block - 1) on: two tiles of 8 pixels */
      uint32_t out_rows[2][2][(2 * C + 3) / 4];
      /* The channels two at a time: each pair's products in one stretch of
       * code with no branch, so that the two chains of loads, products and
       * conversions overlap.  One channel at a time, the vertical products'
       * branch (block > 0) cut the code between every two channels, and
       * ptxas scheduled each channel's chain alone; all four at once made
       * it spill (62 bytes with 4 channels).  Pairs took 4K RGBA sigma 2.6
       * from 35.6-36.0 to 35.0-35.4 us on the H100, 1080p 15.4-15.7 to
       * 14.9-15.2. */
      constexpr int G = C >= 2 ? 2 : 1;
#pragma unroll
      for (int c0 = 0; c0 < C; c0 += G) {
        /* B operands of both row groups in one load: matrix m is rows
         * 8 (m / 2) on, bytes 16 (m % 2) on of the warp's taps */
        uint32_t b[G][4];
#pragma unroll
        for (int k = 0; k < G && c0 + k < C; k++)
          ldsm_x4 (b[k], in + (c0 + k) * L::in_bytes + (8 * (lane >> 4) +
                  (lane & 7)) * L::in_w + 16 * warp + 16 * ((lane >> 3) & 1));
        pair_products < C, G > (b, c0, block > 0, hx_hi[0], hx_lo[0], vy,
            prev, out_rows);
      }
      if (block > 0) {
        store_step < C > (block <= whole_steps, out_step + out_lane, dst,
            dst_pitch, y0, xw, rows, width, (block - 1) * kMmaStep, g, t,
            vector_stores, out_rows);
        out_step += kMmaStep * dst_pitch;
      }
    }
  }
}

/* ---- radius 8, 4 channels, sm_90: the products read the copied rows --- */

/* blur_mma8_direct_kernel's input of a step: the span's 16 rows (144
 * pixels, 576 bytes each) as copied, a row every 608 bytes, in a ring of 4
 * buffers (2 steps copied ahead; the 4th frees a buffer's readers from
 * waiting for the slowest warp).  608, not the 592 that would put the 8
 * rows an ldmatrix reads on 8 different groups of banks: a 16-byte
 * cp.async whose shared address is not in the same place of a 32-byte
 * sector as its global address fetched its sector twice (every odd row
 * at 592 bytes: 1.5 times the L2 reads, and 4K RGBA sigma 2.6 took 33.3-
 * 33.6 us against 32.5).  At 608 bytes the ldmatrix reads are 2-way bank
 * conflicted. */
constexpr int kDirectPitch = 608;
constexpr int kDirectStep = kMmaStep * kDirectPitch;
constexpr int kDirectBuffers = 4;

/* Channels C0 and C0 + 1 of the four pixels in words w[0..3] (one pixel
 * each), as two words of four bytes in pixel order (deinterleave4's first
 * or second half) */
template < int C0 > __device__ __forceinline__ void
channel_pair (const uint32_t (&w)[4], uint32_t & first, uint32_t & second)
{
  constexpr uint32_t sel = C0 == 0 ? 0x5140 : 0x7362;
  const uint32_t a = __byte_perm (w[0], w[1], sel);
  const uint32_t b = __byte_perm (w[2], w[3], sel);
  first = __byte_perm (a, b, 0x5410);
  second = __byte_perm (a, b, 0x7632);
}

/* blur_mma8_kernel's products and stores for 4 channels where the border
 * folds (replicate and reflect-101, frames at least kFoldMinWidth wide)
 * and the rows are 16-byte aligned and whole units (widths a multiple of
 * 4), without staging: the B operands come straight from the copied
 * rows.  A lane's ldmatrix of 4 units gets one pixel (4 channels) of each,
 * and 4 PRMTs a channel pair make the B registers: the taps in unit order
 * (chunk_tap).  Per step, each thread:
 * - waits for the step's buffer to be full: its `full` mbarrier expects
 *   every thread once, and each thread's arrival is its copies landing
 *   (cp.async.mbarrier.arrive.noinc);
 * - issues the copies 2 steps ahead, into the buffer of the step 2 before
 *   this one, once every thread is done reading it (`empty`, which every
 *   thread arrives on after its last ldmatrix of a step);
 * - reads its taps, arrives on `empty`, and computes and stores as
 *   blur_mma8_kernel does.
 * No barrier of the whole block, no staging (in blur_mma8_kernel ~38
 * instructions a thread and step, and a round trip through shared
 * memory).  Units left or right of the frame are not
 * copied: the buffer keeps bytes of an earlier step there, which the
 * folded bands weigh zero; rows above and below take the border rule's
 * rows.  Against blur_mma8_kernel on the H100, 4K RGBA sigma 2.6
 * (docs/notes.md, cudablur: the products read the copied rows): 9% fewer
 * instructions, and in kernel-bench 32.5-32.6 us against 33.0-33.1.  With
 * its first copies issued before the prologue, 256-byte L2 prefetches and
 * the edge strips' rows on the in-frame path (notes.md, cudablur: where
 * the back-to-back launches lost their time): 30.5-30.6 us, 1.37 times the
 * copy floor (1080p 12.8-12.9, 8K 98.8-99.3). */
__global__ void
__launch_bounds__ (Mma8Shape < 4 >::threads, Mma8Shape < 4 >::blocks_per_sm)
    blur_mma8_direct_kernel (const uint8_t * __restrict__ src,
    size_t src_pitch, uint8_t * __restrict__ dst, size_t dst_pitch,
    int width, int height, const __grid_constant__ BlurArgs a)
{
  /* (built for every architecture, launched on sm_90 on only) */
#if __CUDA_ARCH__ >= 900
  constexpr int C = 4, HALO = 8;
  constexpr int ahead = 2;      /* steps copied ahead */
  using S = Mma8Shape < C >;
  using L = MmaLayout < HALO, S::strip >;
  using Loader = StepLoader < C, HALO, S::strip >;     /* (its unit order) */
  static_assert (L::span * C <= kDirectPitch && kDirectPitch % 32 == 0
      && ahead + 2 <= kDirectBuffers, "row slots");
  extern __shared__ __align__ (128) uint8_t direct_smem[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  WorkRun < 8, S::strip > run (width, height);
  int x0 = 0, y0 = 0, rows = 0, n = 0;
  const bool vector_stores = ((uintptr_t) dst % 8) == 0 && dst_pitch % 8 == 0;

  __shared__ uint32_t weights[2][33];
  __shared__ uint32_t suffix[10];
  __shared__ uint64_t full[kDirectBuffers], empty[kDirectBuffers];
  const uint32_t out_lane = (uint32_t) g * (uint32_t) dst_pitch +
      (uint32_t) ((16 * warp + 2 * t) * C);
  const uint32_t buffers = (uint32_t) __cvta_generic_to_shared (direct_smem);
  /* this lane's row and unit in an ldmatrix of its warp's first 4 units */
  const uint32_t lane_unit = buffers + (lane & 7) * kDirectPitch +
      16 * (4 * warp + (lane >> 3));
  uint32_t prev[C][2][2];
  uint32_t ring = 0;            /* the ring position of the part's first step */
  bool inner = false;           /* the part's span is all in the frame */

  /* step `block`'s units that are this thread's, copied into its buffer */
  auto issue_copies = [&](int block) {
    const uint32_t s = ring + block, buf = s % kDirectBuffers;
    if (s >= kDirectBuffers)
      split_barrier_wait (&empty[buf], (s / kDirectBuffers - 1) & 1);
    const int top = y0 - HALO + block * kMmaStep;
    const uint32_t slots = buffers + buf * kDirectStep;
    if (top >= 0 && top + kMmaStep <= height) {
      /* rows in the frame (most steps): 32-bit offsets from the step's
       * first row; in the first and last strips only the units in the
       * frame (width is a multiple of 4: a unit is all in or all out).
       * Those strips' steps used to take the border rule's path below,
       * ~1.3 times as long as other steps, and at 4K RGBA their blocks
       * ended the launch ~3 us after the median block on the H100. */
      const uint8_t *row0 = src + (size_t) top * src_pitch;
      Loader::each_unit_index (tid,[&](int u) {
            const int rr = u / L::units_per_row;
            const int col = u - rr * L::units_per_row;
            const int px0 = x0 - HALO + 4 * col;
            if (inner || (unsigned) px0 < (unsigned) width)
              copy_unit_async < C, true > (slots + rr * kDirectPitch +
                  16 * col, row0 + ((uint32_t) rr * (uint32_t) src_pitch +
                      (uint32_t) px0 * C));
          });
    } else {
      Loader::each_unit_index (tid,[&](int u) {
            const int rr = u / L::units_per_row;
            const int col = u - rr * L::units_per_row;
            const int px0 = x0 - HALO + 4 * col;
            if (px0 < 0 || px0 >= width)
              return;
            const int sy = border_index (top + rr, height, a.border);
            copy_unit_async < C, true > (slots + rr * kDirectPitch +
                16 * col, src + (size_t) sy * src_pitch + (size_t) px0 * C);
          });
    }
  };
  /* the copies this thread has issued arrive on the buffer of step
   * `block` as they land */
  auto arrive_full = [&](int block) {
    const uint32_t buf = (ring + block) % kDirectBuffers;
    asm volatile ("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n"
        ::"r" ((uint32_t) __cvta_generic_to_shared (&full[buf])):"memory");
  };

  /* The first part's first copies go out first: every block of the one
   * wave starts at once, and memory would idle through the prologue.
   * Their arrivals wait for the barriers' initialisation (stage_weights'
   * barrier); an arrival counts every copy the thread issued before it. */
  bool more = run.next (x0, y0, rows, n);
  inner = x0 - HALO >= 0 && x0 - HALO + L::span <= width;
  if (more)
    for (int k = 0; k < ahead && k <= n; k++)
      issue_copies (k);
  stage_suffix (suffix, a);
  if (tid < kDirectBuffers) {
    split_barrier_init (&full[tid], S::threads);
    split_barrier_init (&empty[tid], S::threads);
  }
  stage_weights (weights, a);
  if (more)
    for (int k = 0; k < ahead && k <= n; k++)
      arrive_full (k);
  uint32_t hx_hi[1][4], hx_lo[1][4], vy[2][4];
  band_fragments < HALO, 1 > (weights[0], a.rx, lane, hx_hi, hx_lo, true);
  band_fragments_f16 < HALO, 2 > (weights[1], a.ry, lane, vy);
  bool folded = false;

  for (bool first = true; more; first = false,
      more = run.next (x0, y0, rows, n)) {
    if (!first) {
      inner = x0 - HALO >= 0 && x0 - HALO + L::span <= width;
      for (int k = 0; k < ahead && k <= n; k++) {
        issue_copies (k);
        arrive_full (k);
      }
    }
    const int xw = x0 + 16 * warp;
    {
      const bool edge = xw == 0 || xw + 16 + HALO > width;
      if (edge)
        folded_band_fragments (weights[0], suffix, a.rx, lane, xw, width,
            a.border, hx_hi, hx_lo, true);
      else if (folded)
        band_fragments < HALO, 1 > (weights[0], a.rx, lane, hx_hi, hx_lo,
            true);
      folded = edge;
    }
    const int whole_steps = vector_stores && xw + 16 <= width ?
        rows / kMmaStep : 0;
    uint8_t *out_step = dst + (size_t) y0 * dst_pitch + (size_t) x0 * C;
    for (int block = 0; block <= n; block++) {
      const uint32_t s = ring + block, buf = s % kDirectBuffers;
      split_barrier_wait (&full[buf], (s / kDirectBuffers) & 1);
      if (block + ahead <= n) {
        issue_copies (block + ahead);
        arrive_full (block + ahead);
      }
      const uint32_t units = lane_unit + buf * kDirectStep;

      /* as in blur_mma8_kernel, but for the B operands */
      uint32_t out_rows[2][2][2];
#pragma unroll
      for (int c0 = 0; c0 < C; c0 += 2) {
        /* channels c0 and c0 + 1 (k) of both row groups (rg): units 0-3
         * of the warp's taps (half 0), then 4-7 */
        uint32_t b[2][4];
#pragma unroll
        for (int rg = 0; rg < 2; rg++)
#pragma unroll
          for (int half = 0; half < 2; half++) {
            uint32_t w[4];
            asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                "{%0,%1,%2,%3}, [%4];\n"
                : "=r" (w[0]), "=r" (w[1]), "=r" (w[2]), "=r" (w[3])
                : "r" (units + 8 * rg * kDirectPitch + 64 * half));
            if (c0 == 0)
              channel_pair < 0 > (w, b[0][2 * rg + half],
                  b[1][2 * rg + half]);
            else
              channel_pair < 2 > (w, b[0][2 * rg + half],
                  b[1][2 * rg + half]);
          }
        if (c0 == 2)
          split_barrier_arrive (&empty[buf]);
        pair_products < C, 2 > (b, c0, block > 0, hx_hi[0], hx_lo[0], vy,
            prev, out_rows);
      }
      if (block > 0) {
        store_step < C > (block <= whole_steps, out_step + out_lane, dst,
            dst_pitch, y0, xw, rows, width, (block - 1) * kMmaStep, g, t,
            vector_stores, out_rows);
        out_step += kMmaStep * dst_pitch;
      }
    }
    ring += n + 1;
  }
#endif
}

/* ---- radii 33 to 150 on the tensor cores: two passes ------------------ */

/* Beyond radius 32 a fused step's band fragments and t ring no longer fit
 * (at radius 150, 80 registers of fragments a filter and a 160 KB ring a
 * 64-pixel strip), so the two filters run as two launches through the
 * scratch plane, with the same products and the same arithmetic as the
 * fused pass:
 * - blur_wide_h_kernel: the horizontal products (bytes, 32-tap chunks),
 *   written as t's halves (0x6400 + t + 2, see kTLowStart), channels
 *   interleaved as in the frame;
 * - blur_wide_v_kernel: the vertical products (halves, 16-tap chunks) down
 *   strips of 64 values of the scratch plane, whose rows a ring in shared
 *   memory holds, each read once a strip.
 * Their band fragments live in shared memory, built once a block.  The
 * products of a launch grow linearly with the radius; the bytes moved do
 * not (the frame read once and written once, the plane written once and
 * read once, plus the halos). */

constexpr int kWideThreads = 128;
constexpr int kWideHPx = 128;   /* output pixels of a horizontal item */
constexpr int kWideStrip = 64;  /* values (bytes of output) of a vertical strip */
constexpr int kWideStep = 32;   /* rows of a vertical step */

/* A filter's halo (a multiple of 8, as mma_halo), its products, and what
 * the horizontal item's input rows span (the last tile's chunks included):
 * 112 + 32 chunks pixels, an odd number of 16-byte units, so that the 8
 * rows an ldmatrix reads are on 8 different groups of banks. */
struct WideGeometry
{
  int hx, chunks, span;         /* horizontal */
  int hy, vchunks, ring;        /* vertical: ring rows, a step's window
                                 * (16 vchunks + 16) and the next step's */

  __host__ __device__ explicit WideGeometry (const BlurArgs & a)
  {
    hx = mma_halo (a.rx);
    chunks = (16 + 2 * hx + 31) / 32;
    span = kWideHPx - 16 + 32 * chunks;
    hy = mma_halo (a.ry);
    vchunks = (16 + 2 * hy) / 16;
    ring = 16 * vchunks + 16 + kWideStep;
  }
  __host__ __device__ int h_frag_bytes () const
  {
    return chunks * 2 * 32 * 16;
  }
  template < int C > __host__ __device__ int h_smem () const
  {
    return h_frag_bytes () + C * 16 * span;
  }
  __host__ __device__ int v_frag_bytes () const
  {
    return vchunks * 32 * 16;
  }
  __host__ __device__ int v_smem () const
  {
    return v_frag_bytes () + ring * 2 * kWideStrip;
  }
};

/* ldmatrix of 2 (B operands of a byte product) or 4 matrices, transposed
 * (B operands of half products: lane l gets rows 2t, 2t + 1 of column g) */
__device__ __forceinline__ void
ldsm_x2 (uint32_t & r0, uint32_t & r1, const void *row)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
      : "=r" (r0), "=r" (r1)
      : "r" ((uint32_t) __cvta_generic_to_shared (row)));
#else
  r0 = r1 = 0;
#endif
}

__device__ __forceinline__ void
ldsm_x4_trans (uint32_t (&r)[4], const void *row)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
      "{%0,%1,%2,%3}, [%4];\n"
      : "=r" (r[0]), "=r" (r[1]), "=r" (r[2]), "=r" (r[3])
      : "r" ((uint32_t) __cvta_generic_to_shared (row)));
#else
  r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

/* Four pixels of a row from pixel x on (a multiple of 4), one word per
 * channel (byte i: pixel x + i), pixel by pixel with the border rule: the
 * units across the frame's edge, or on unaligned rows */
template < int C > __device__ __forceinline__ void
border_unit_words (const uint8_t * row, int x, int width, const BlurArgs & a,
    uint32_t (&ch)[C])
{
#pragma unroll
  for (int c = 0; c < C; c++)
    ch[c] = 0;
#pragma unroll
  for (int i = 0; i < 4; i++) {
    const int sx = border_index (x + i, width, a.border);
#pragma unroll
    for (int c = 0; c < C; c++) {
      const uint32_t v = sx < 0 ? (uint32_t) a.border_value[c] :
          row[sx * C + c];
      ch[c] |= v << (8 * i);
    }
  }
}

/* Items of 16 rows x kWideHPx pixels, a block taking every gridDim-th.
 * Warp w computes pixels 32 w .. 32 w + 31 of both 8-row groups, every
 * channel: tiles of 16 pixels x 8 rows, NP positions (pixel group, row
 * group) at a time, so that each fragment load serves 4 (3) tiles.
 * 6 blocks an SM (80 registers, a few bytes spilled at 4 channels): 4K
 * RGBA sigma 20 took 143 us, against 155 with 5 blocks and no spills. */
template < int C > __global__ void
__launch_bounds__ (kWideThreads, 6)
    blur_wide_h_kernel (const uint8_t * __restrict__ src, size_t src_pitch,
    uint16_t * __restrict__ t_plane, size_t t_pitch, int width, int height,
    const __grid_constant__ BlurArgs a)
{
  extern __shared__ __align__ (16) uint8_t wide_smem[];
  const WideGeometry geo (a);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  uint4 *frag = reinterpret_cast < uint4 * >(wide_smem);
  uint8_t *planes = wide_smem + geo.h_frag_bytes ();

  /* the weights, then this block's fragments of the band matrices: word j
   * of lane l of chunk q, high bytes (part 0) or low (part 1), as
   * band_fragments */
  uint32_t *w = reinterpret_cast < uint32_t * >(planes);
  for (int i = tid; i <= CF_BLUR_MAX_RADIUS; i += kWideThreads)
    w[i] = i <= a.rx ? (uint32_t) a.wx[i] : 0;
  __syncthreads ();
  for (int i = tid; i < geo.chunks * 2 * 32 * 4; i += kWideThreads) {
    const int j = i & 3, l = (i >> 2) & 31, part = (i >> 7) & 1, q = i >> 8;
    const int m = (l >> 2) + (j & 1) * 8, kb = 4 * (l & 3) + (j >> 1) * 16;
    uint32_t word = 0;
    for (int b = 0; b < 4; b++) {
      int d = 32 * q + kb + b - geo.hx - m;
      d = d < 0 ? -d : d;
      const uint32_t v = d <= a.rx ? w[d] : 0;
      word |= (part ? v & 0xff : v >> 8) << (8 * b);
    }
    reinterpret_cast < uint32_t * >(frag)[i] = word;
  }

  const bool aligned = (((uintptr_t) src | src_pitch) % (C == 4 ? 16 : 4))
      == 0;
  const int units_per_row = geo.span / 4;
  const int items_x = (width + kWideHPx - 1) / kWideHPx;
  const long long items = (long long) items_x * ((height + 15) / 16);
  constexpr int NP = C == 1 ? 4 : C == 2 ? 2 : 1;

  for (long long item = blockIdx.x; item < items; item += gridDim.x) {
    const int x0 = (int) (item % items_x) * kWideHPx;
    const int y0 = (int) (item / items_x) * 16;

    /* the input rows, a plane per channel (the barrier first: the last
     * item's products, or the fragments, read this memory) */
    __syncthreads ();
    /* kBatch units a thread at a time, all loads issued before any is
     * used: one unit at a time, each waiting for its load, was the
     * kernel's largest stall (radius 60, 4K RGBA, H100), though the
     * batches did not change its time measurably (docs/notes.md) */
    constexpr int kBatch = 4;
    int r = tid / units_per_row, ux = tid - r * units_per_row;
    for (int u0 = 0; u0 < 16 * units_per_row; u0 += kBatch * kWideThreads) {
      uint4 v[kBatch];
      int ur[kBatch], uxs[kBatch];
      bool whole[kBatch];
#pragma unroll
      for (int k = 0; k < kBatch; k++) {
        ur[k] = r;
        uxs[k] = ux;
        const int x = x0 - geo.hx + 4 * ux;
        const uint32_t *wp = reinterpret_cast < const uint32_t * >(src +
            (size_t) min (y0 + r, height - 1) * src_pitch + (size_t) x * C);
        whole[k] = r < 16 && aligned && x >= 0 && x + 3 < width;
        if (whole[k]) {
          if constexpr (C == 4)
            v[k] = *reinterpret_cast < const uint4 * >(wp);
          else if constexpr (C == 3)
            v[k] = make_uint4 (wp[0], wp[1], wp[2], 0);
          else if constexpr (C == 2)
            v[k] = make_uint4 (wp[0], wp[1], 0, 0);
          else
            v[k] = make_uint4 (wp[0], 0, 0, 0);
        }
        /* the thread's next unit, kWideThreads on */
        ux += kWideThreads;
        while (ux >= units_per_row) {
          ux -= units_per_row;
          r++;
        }
      }
#pragma unroll
      for (int k = 0; k < kBatch; k++) {
        if (ur[k] >= 16)
          break;
        uint32_t ch[C];
        if (whole[k])
          deinterleave4 < C > (v[k], ch);
        else
          border_unit_words < C > (src + (size_t) min (y0 + ur[k],
                  height - 1) * src_pitch, x0 - geo.hx + 4 * uxs[k], width,
              a, ch);
#pragma unroll
        for (int c = 0; c < C; c++)
          reinterpret_cast < uint32_t * >(planes + (c * 16 + ur[k]) *
              geo.span)[uxs[k]] = ch[c];
      }
    }
    __syncthreads ();

#pragma unroll
    for (int p0 = 0; p0 < 4; p0 += NP) {
      int hi[NP][C][4], lo[NP][C][4];
#pragma unroll
      for (int p = 0; p < NP; p++)
#pragma unroll
        for (int c = 0; c < C; c++)
#pragma unroll
          for (int j = 0; j < 4; j++) {
            hi[p][c][j] = 0;
            lo[p][c][j] = kTLowStart;
          }
      for (int q = 0; q < geo.chunks; q++) {
        const uint4 fh = frag[(2 * q) * 32 + lane];
        const uint4 fl = frag[(2 * q + 1) * 32 + lane];
        const uint32_t ah[4] = { fh.x, fh.y, fh.z, fh.w };
        const uint32_t al[4] = { fl.x, fl.y, fl.z, fl.w };
#pragma unroll
        for (int p = 0; p < NP; p++) {
          const int pos = p0 + p, pg = 2 * warp + (pos & 1), rg = pos >> 1;
#pragma unroll
          for (int c = 0; c < C; c++) {
            /* lanes 0-7: rows of taps 0-15, lanes 8-15: taps 16-31 */
            const uint8_t *row = planes + (c * 16 + 8 * rg + (lane & 7)) *
                geo.span + 16 * pg + 32 * q + 16 * ((lane >> 3) & 1);
            uint32_t b0, b1;
            ldsm_x2 (b0, b1, row);
            mma_u8 (hi[p][c], ah, b0, b1, hi[p][c]);
            mma_u8 (lo[p][c], al, b0, b1, lo[p][c]);
          }
        }
      }
      /* d = 2 half + odd: pixel g + 8 half, row 2t + odd of the group */
      const bool inside = x0 + kWideHPx <= width && y0 + 16 <= height;
#pragma unroll
      for (int p = 0; p < NP; p++) {
        const int pos = p0 + p, pg = 2 * warp + (pos & 1), rg = pos >> 1;
        const int xb = x0 + 16 * pg + g, yb = y0 + 8 * rg + 2 * t;
        uint8_t *base = reinterpret_cast < uint8_t * >(t_plane) +
            (size_t) yb * t_pitch + (size_t) xb * 2 * C;
#pragma unroll
        for (int d = 0; d < 4; d++) {
          if (!inside && (xb + 8 * (d >> 1) >= width
                  || yb + (d & 1) >= height))
            continue;
          uint32_t e[C];
#pragma unroll
          for (int c = 0; c < C; c++)
            e[c] = ((uint32_t) hi[p][c][d] * 256u + (uint32_t) lo[p][c][d])
                >> kTShift;
          uint16_t *out = reinterpret_cast < uint16_t * >(base +
              (d & 1 ? t_pitch : 0) + 16 * C * (d >> 1));
          if constexpr (C == 4)
            *reinterpret_cast < uint2 * >(out) =
                make_uint2 (__byte_perm (e[0], e[1], 0x5410),
                __byte_perm (e[2], e[3], 0x5410));
          else if constexpr (C == 2)
            *reinterpret_cast < uint32_t * >(out) =
                __byte_perm (e[0], e[1], 0x5410);
          else
#pragma unroll
            for (int c = 0; c < C; c++)
              out[c] = (uint16_t) e[c];
        }
      }
    }
  }
}

/* A run of the (strip, 32-row step) work, strip after strip, for each
 * block (one wave of them), as WorkRun.  The ring holds the window of
 * 32 + 2 hy rows a step's products read, and the 32 rows of the next step
 * being copied; row y lives in slot (y + hy) % ring, its 16-byte chunks
 * XOR-swizzled by the slot, so that the 8 rows an ldmatrix reads are on
 * 8 different groups of banks.  Warp w computes values 16 w .. 16 w + 15
 * of the strip, two 8-value tiles, in two tiles of 16 rows whose taps are
 * one chunk (16 rows) apart: each ldmatrix of a chunk of t serves 4
 * products, the first rows' with chunk q's weights and the second's with
 * chunk q - 1's.  Addresses move by additions: a step's copies and its
 * products cost about a quarter of the instructions they did with a
 * modulo a chunk (radius 60, 4K RGBA, H100: 51.7 M warp instructions,
 * 95 us, with 16-row steps; docs/notes.md). */
template < int C > __global__ void
__launch_bounds__ (kWideThreads)
    blur_wide_v_kernel (const uint16_t * __restrict__ t_plane, size_t t_pitch,
    uint8_t * __restrict__ dst, size_t dst_pitch, int width, int height,
    const __grid_constant__ BlurArgs a)
{
  extern __shared__ __align__ (16) uint8_t wide_smem[];
  const WideGeometry geo (a);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  constexpr int kRowBytes = 2 * kWideStrip;
  uint4 *frag = reinterpret_cast < uint4 * >(wide_smem);
  uint8_t *ring = wide_smem + geo.v_frag_bytes ();
  const int ring_bytes = geo.ring * kRowBytes;

  /* the weights, then the fragments (band_fragments_f16) */
  float *w = reinterpret_cast < float *>(ring);
  for (int i = tid; i <= CF_BLUR_MAX_RADIUS; i += kWideThreads)
    w[i] = i <= a.ry ? a.wy[i] : 0.0f;
  __syncthreads ();
  for (int i = tid; i < geo.vchunks * 32 * 4; i += kWideThreads) {
    const int j = i & 3, l = (i >> 2) & 31, q = i >> 7;
    const int m = (l >> 2) + (j & 1) * 8, kb = 2 * (l & 3) + (j >> 1) * 8;
    uint32_t pair = 0;
    for (int b = 0; b < 2; b++) {
      int d = 16 * q + kb + b - geo.hy - m;
      d = d < 0 ? -d : d;
      const float v = d <= a.ry ? w[d] : 0.0f;
      pair |= (uint32_t) __half_as_ushort (__float2half_rn (v)) << (16 * b);
    }
    reinterpret_cast < uint32_t * >(frag)[i] = pair;
  }
  __syncthreads ();

  const int cols = width * C;
  const int strips = (cols + kWideStrip - 1) / kWideStrip;
  const int steps = (height + kWideStep - 1) / kWideStep;
  const long long work = (long long) strips * steps;
  long long u = work * blockIdx.x / gridDim.x;
  const long long end = work * (blockIdx.x + 1) / gridDim.x;
  const bool pairs = (((uintptr_t) dst | dst_pitch) & 1) == 0;

  /* This thread copies chunk copy_chunk of rows copy_row and copy_row + 16
   * of every 32; rows outside the frame by the border rule (a constant
   * border's t is 4 times the constant) */
  const int copy_row = tid >> 3, copy_chunk = tid & 7;
  auto copy_chunk_of_row = [&](int v0, int y, int slot) {
    uint8_t *to = ring + slot * kRowBytes + 16 * (copy_chunk ^ (slot & 7));
    const int sr = (unsigned) y < (unsigned) height ? y :
        border_index (y, height, a.border);
    if (sr >= 0) {
#if __CUDA_ARCH__ >= 800
      const uint8_t *t_bytes = reinterpret_cast < const uint8_t * >(t_plane);
      asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;\n"
          ::"r" ((uint32_t) __cvta_generic_to_shared (to)),
          "l" (t_bytes + (size_t) sr * t_pitch + 2 * (v0 + 8 * copy_chunk))
          : "memory");
#endif
    } else {
      uint32_t h[4];
#pragma unroll
      for (int e = 0; e < 4; e++) {
        const int v = v0 + 8 * copy_chunk + 2 * e;
        const uint32_t lo = 0x6400u + 2u +
            4u * (uint32_t) a.border_value[v % C];
        const uint32_t hi = 0x6400u + 2u +
            4u * (uint32_t) a.border_value[(v + 1) % C];
        h[e] = lo | hi << 16;
      }
      *reinterpret_cast < uint4 * >(to) = make_uint4 (h[0], h[1], h[2], h[3]);
    }
  };
  auto commit = [] {
#if __CUDA_ARCH__ >= 800
    asm volatile ("cp.async.commit_group;\n"::: "memory");
#endif
  };

  /* this lane's ldmatrix row: row l % 8 of matrix l / 8, taps 0-7 or 8-15
   * of a chunk (bit 0), values 0-7 or 8-15 of the warp's (bit 1); a
   * chunk's first row has a slot that is a multiple of 16, so the lane's
   * swizzle is the same in every chunk */
  const int krow = 8 * ((lane >> 3) & 1) + (lane & 7);
  const uint8_t *lds_lane = ring + krow * kRowBytes +
      16 * ((2 * warp + (lane >> 4)) ^ (krow & 7));

  while (u < end) {
    const int strip = (int) (u / steps);
    int s = (int) (u % steps);
    const int s_end = (int) min ((long long) steps, s + (end - u));
    const int v0 = strip * kWideStrip;
    u += s_end - s;

    /* the first step's window (the barrier: the last part's products read
     * the slots these overwrite) */
    __syncthreads ();
    int slot = (kWideStep * s + copy_row) % geo.ring;
    for (int i = 0; i < 16 * (geo.vchunks + 1); i += 16) {
      copy_chunk_of_row (v0, kWideStep * s - geo.hy + i + copy_row, slot);
      slot += 16;
      slot -= slot >= geo.ring ? geo.ring : 0;
    }
    commit ();
    /* slot: the next step's first new row's (32 + 2 hy rows on);
     * window: the byte offset of the step's first row's slot */
    int window = (kWideStep * s % geo.ring) * kRowBytes;
    for (; s < s_end; s++) {
#if __CUDA_ARCH__ >= 800
      asm volatile ("cp.async.wait_group 0;\n"::: "memory");
#endif
      /* every copy of this window is in; every product of the last step,
       * which read the slots the next copies take, is done */
      __syncthreads ();
      if (s + 1 < s_end) {
        /* the next window's last 32 rows */
        const int y = kWideStep * s + 16 * geo.vchunks + 16 - geo.hy +
            copy_row;
        copy_chunk_of_row (v0, y, slot);
        slot += 16;
        slot -= slot >= geo.ring ? geo.ring : 0;
        copy_chunk_of_row (v0, y + 16, slot);
        slot += 16;
        slot -= slot >= geo.ring ? geo.ring : 0;
        commit ();
      }

      float sum[2][2][4] = { };
      int off = window;
      auto next_chunk = [&](uint32_t (&b)[4]) {
        ldsm_x4_trans (b, lds_lane + off);
        off += 16 * kRowBytes;
        off -= off >= ring_bytes ? ring_bytes : 0;
      };
      auto weights = [&](int q, uint32_t (&av)[4]) {
        const uint4 f = frag[q * 32 + lane];
        av[0] = f.x;
        av[1] = f.y;
        av[2] = f.z;
        av[3] = f.w;
      };
      /* chunk q + 1's t and weights are loaded before chunk q's products
       * (vchunks is at least 2) */
      uint32_t av[4], an[4], b[4], bn[4];
      next_chunk (b);
      weights (0, av);
      next_chunk (bn);
      mma_f16 (sum[0][0], av, b[0], b[1], sum[0][0]);
      mma_f16 (sum[0][1], av, b[2], b[3], sum[0][1]);
#pragma unroll 2
      for (int q = 1; q < geo.vchunks; q++) {
#pragma unroll
        for (int i = 0; i < 4; i++)
          b[i] = bn[i];
        weights (q, an);
        next_chunk (bn);
        mma_f16 (sum[1][0], av, b[0], b[1], sum[1][0]);
        mma_f16 (sum[1][1], av, b[2], b[3], sum[1][1]);
        mma_f16 (sum[0][0], an, b[0], b[1], sum[0][0]);
        mma_f16 (sum[0][1], an, b[2], b[3], sum[0][1]);
#pragma unroll
        for (int i = 0; i < 4; i++)
          av[i] = an[i];
      }
      mma_f16 (sum[1][0], av, bn[0], bn[1], sum[1][0]);
      mma_f16 (sum[1][1], av, bn[2], bn[3], sum[1][1]);
      window += kWideStep * kRowBytes;
      window -= window >= ring_bytes ? ring_bytes : 0;

      /* sum[m][k][2 half + odd]: row 16 m + 8 half + g of the step, value
       * 8 k + 2t + odd of the warp's */
      const int y0 = kWideStep * s, vw = v0 + 16 * warp + 2 * t;
      if (pairs && y0 + kWideStep <= height && v0 + kWideStrip <= cols) {
        uint8_t *out = dst + (size_t) (y0 + g) * dst_pitch + vw;
#pragma unroll
        for (int m = 0; m < 2; m++)
#pragma unroll
          for (int half = 0; half < 2; half++)
#pragma unroll
            for (int k = 0; k < 2; k++)
              *reinterpret_cast < uint16_t * >(out + (size_t) (16 * m +
                      8 * half) * dst_pitch + 8 * k) =
                  (uint16_t) __byte_perm (output_bits (sum[m][k][2 * half]),
                  output_bits (sum[m][k][2 * half + 1]), 0x0040);
        continue;
      }
#pragma unroll
      for (int m = 0; m < 2; m++)
#pragma unroll
        for (int half = 0; half < 2; half++)
#pragma unroll
          for (int k = 0; k < 2; k++) {
            const int y = y0 + 16 * m + 8 * half + g, v = vw + 8 * k;
            if (y >= height || v >= cols)
              continue;
            const uint32_t b0 = output_bits (sum[m][k][2 * half]);
            const uint32_t b1 = output_bits (sum[m][k][2 * half + 1]);
            uint8_t *out = dst + (size_t) y * dst_pitch + v;
            if (pairs && v + 1 < cols) {
              *reinterpret_cast < uint16_t * >(out) =
                  (uint16_t) __byte_perm (b0, b1, 0x0040);
            } else {
              out[0] = (uint8_t) b0;
              if (v + 1 < cols)
                out[1] = (uint8_t) b1;
            }
          }
    }
  }
}

/* Lets `kernel` take the device's opt-in shared memory beyond its static
 * share.  The attribute belongs to the context, and elements launch from
 * several threads with different needs: one value for every launch never
 * lowers it under another thread's launch, as each launch's own need
 * would. */
template < typename K > cudaError_t
allow_dynamic_smem (K kernel)
{
  int dev, optin;
  cudaFuncAttributes fa;
  cudaError_t e = cudaGetDevice (&dev);

  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute (&optin,
        cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
  if (e == cudaSuccess)
    e = cudaFuncGetAttributes (&fa, kernel);
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute (kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize,
        optin - (int) fa.sharedSizeBytes);
  return e;
}

/* One wave of blocks of `kernel` with `smem` bytes each, at most `work` */
template < typename K > cudaError_t
wide_blocks (K kernel, int smem, long long work, int *blocks)
{
  int dev, sms, per_sm;
  cudaError_t e = cudaSuccess;
  if (smem > 48 * 1024)
    e = allow_dynamic_smem (kernel);
  if (e == cudaSuccess)
    e = cudaGetDevice (&dev);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel,
        kWideThreads, smem);
  if (e == cudaSuccess && per_sm < 1)
    e = cudaErrorInvalidConfiguration;
  *blocks = (int) min ((long long) per_sm * sms, max (work, 1LL));
  return e;
}

template < int C > cudaError_t
launch_wide (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, uint16_t * t, size_t t_pitch,
    const BlurArgs & a, cudaStream_t stream)
{
  const WideGeometry geo (a);
  int blocks;
  const int h_smem = geo.h_smem < C > ();
  cudaError_t e = wide_blocks (blur_wide_h_kernel < C >, h_smem,
      (long long) ((width + kWideHPx - 1) / kWideHPx) * ((height + 15) / 16),
      &blocks);
  if (e != cudaSuccess)
    return e;
  blur_wide_h_kernel < C > <<<blocks, kWideThreads, h_smem, stream >>> (src,
      src_pitch, t, t_pitch, width, height, a);
  if ((e = cudaGetLastError ()) != cudaSuccess)
    return e;
  e = wide_blocks (blur_wide_v_kernel < C >, geo.v_smem (),
      (long long) ((width * C + kWideStrip - 1) / kWideStrip) *
      ((height + kWideStep - 1) / kWideStep), &blocks);
  if (e != cudaSuccess)
    return e;
  blur_wide_v_kernel < C > <<<blocks, kWideThreads, geo.v_smem (),
      stream >>> (t, t_pitch, dst, dst_pitch, width, height, a);
  return cudaGetLastError ();
}

/* The most shared memory a block of this device may have */
cudaError_t
smem_limit (int *bytes)
{
  int dev;
  cudaError_t e = cudaGetDevice (&dev);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute (bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin,
        dev);
  return e;
}

template < int C, int R > cudaError_t
launch_h (const uint8_t * src, size_t src_pitch, uint16_t * t, size_t t_pitch,
    int width, int height, const BlurArgs & a, int smem_max,
    cudaStream_t stream)
{
  const int r = R ? R : a.rx;
  const int span = (kHThreads * kHPix + 2 * r) * C;
  size_t smem = sizeof (float) * kHRows * (span + 4 * (span / 16) + 4);
  if (smem > (size_t) smem_max)
    return cudaErrorInvalidConfiguration;
  if (smem > 48 * 1024) {
    cudaError_t e = allow_dynamic_smem (blur_h_kernel < C, R >);
    if (e != cudaSuccess)
      return e;
  }
  dim3 grid ((width + kHThreads * kHPix - 1) / (kHThreads * kHPix),
      (height + kHRows - 1) / kHRows);
  blur_h_kernel < C, R > <<<grid, kHThreads, smem, stream >>> (src, src_pitch,
      t, t_pitch, width, height, a);
  return cudaGetLastError ();
}

template < int R > cudaError_t
launch_v (const uint16_t * t, size_t t_pitch, uint8_t * dst, size_t dst_pitch,
    int width, int height, int channels, const BlurArgs & a,
    cudaStream_t stream)
{
  int cols = width * channels;
  int rows = R ? kVRowsBuckets : kVRowsGeneric;
  dim3 grid ((cols / 2 + kVThreads) / kVThreads, (height + rows - 1) / rows);
  blur_v_kernel < R > <<<grid, kVThreads, 0, stream >>> (t, t_pitch, dst,
      dst_pitch, cols, height, channels, a);
  return cudaGetLastError ();
}

/* Whether blur_mma8_direct_kernel takes a frame of 4 channels at radius 8
 * or less: on sm_90 on (the only GPU it was measured and tested on), where
 * the border folds (blur_mma8_kernel's `fold`), on 16-byte aligned rows of
 * whole units */
bool
direct_applies (const uint8_t * src, size_t src_pitch, int width,
    const BlurArgs & a)
{
  int dev, major;
  if (cudaGetDevice (&dev) != cudaSuccess
      || cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          dev) != cudaSuccess)
    return false;
  return major >= 9 && a.border != CF_BORDER_CONSTANT
      && width >= kFoldMinWidth && width % 4 == 0
      && (uintptr_t) src % 16 == 0 && src_pitch % 16 == 0;
}

template < int C, int HALO > cudaError_t
launch_mma (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, const BlurArgs & a,
    cudaStream_t stream)
{
  /* radius 8 or less: t stays in registers, two input buffers and
   * Mma8Shape's raw buffers only (blur_mma8_direct_kernel: its ring of
   * rows); larger: the channels' input rows and t rings, and one raw
   * buffer */
  constexpr int strip_px = HALO == 8 ? Mma8Shape < C >::strip : kMmaStripPx;
  constexpr int threads = mma_threads (strip_px);
  using L = MmaLayout < HALO, strip_px >;
  size_t smem = HALO == 8 ? 2 * C * L::in_bytes +
      (Mma8Shape < C >::ahead + 1) * 16 * L::units
      : C * L::channel_bytes + 16 * L::units;
  void (*kernel) (const uint8_t *, size_t, uint8_t *, size_t, int, int,
      BlurArgs);
  if constexpr (HALO == 8)
    kernel = blur_mma8_kernel < C >;
  else
    kernel = blur_mma_kernel < C, HALO >;
  if constexpr (HALO == 8 && C == 4) {
    if (direct_applies (src, src_pitch, width, a)) {
      kernel = blur_mma8_direct_kernel;
      smem = kDirectBuffers * kDirectStep;
    }
  }
  cudaError_t e = cudaSuccess;
  int dev, sms, per_sm;

  if (smem > 48 * 1024)
    e = allow_dynamic_smem (kernel);
  if (e == cudaSuccess)
    e = cudaGetDevice (&dev);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev);
  if (e == cudaSuccess)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel,
        threads, smem);
  if (e != cudaSuccess)
    return e;

  /* as many blocks as fit at once, each with an equal share of the work:
   * one wave, so no SM idles through a second, partial one (each part of
   * a strip a block takes costs its lag steps again: the top halo) */
  const int strips = (width + strip_px - 1) / strip_px;
  const long long work = (long long) strips * ((height + kMmaStep - 1) /
      kMmaStep);
  int blocks = (int) min ((long long) max (1, per_sm) * sms, work);
  /* At radius 8 (equal shares, WorkRun < 8 >), a whole number of blocks a
   * strip, where that leaves at least 9 in 10 of them: then every strip's
   * runs start on the same rows, so that blocks side by side read the same
   * rows at about the same time, and the halo columns a strip shares with
   * its neighbours come from L2 for the second reader.  At 8K (120 strips,
   * 660 blocks) the runs were out of step from strip to strip; 600 blocks
   * took 8K RGBA sigma 2.6 from 135.6 to 118.2 us on the H100.  At 4K and
   * 1080p the 660 blocks already were 11 and 22 a strip (docs/notes.md,
   * cudablur: the data movement alone).  (128-pixel strips, 2 blocks an
   * SM: 240 blocks at 4K and 8K, 255 at 1080p.) */
  if (HALO == 8 && blocks > strips && 10 * (blocks - blocks % strips) >=
      9 * blocks)
    blocks -= blocks % strips;
  kernel <<< blocks, threads, smem, stream >>> (src, src_pitch, dst,
      dst_pitch, width, height, a);
  return cudaGetLastError ();
}

/* Whether every vertical weight is exact in half precision, as the
 * vertical products take them (cf_blur_kernel_make's are) */
bool
half_exact (const BlurArgs & a)
{
  for (int i = 0; i <= a.ry; i++)
    if (__half2float (__float2half_rn (a.wy[i])) != a.wy[i])
      return false;
  return true;
}

/* Whether the current device has integer MMA (sm_80 on) */
bool
has_integer_mma ()
{
  int dev, major;
  return cudaGetDevice (&dev) == cudaSuccess
      && cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
      dev) == cudaSuccess && major >= 8;
}

/* The tensor-core pass, where the device has integer MMA (sm_80 on), the
 * radius is at most 32, the rows are at most 64 MiB apart (any video's
 * are) and the vertical weights are exact in half precision; false where
 * it does not apply. */
template < int C > bool
try_mma (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, const BlurArgs & a,
    cudaStream_t stream, cudaError_t * e)
{
  const int r = max (a.rx, a.ry);
  /* (offsets within a step are 32-bit: StepLoader, blur_mma8_kernel) */
  if (r > 32 || !half_exact (a) || src_pitch > (1u << 26)
      || dst_pitch > (1u << 26) || !has_integer_mma ())
    return false;
  switch (mma_halo (r)) {
    case 8:
      *e = launch_mma < C, 8 > (src, src_pitch, dst, dst_pitch, width,
          height, a, stream);
      break;
    case 16:
      *e = launch_mma < C, 16 > (src, src_pitch, dst, dst_pitch, width,
          height, a, stream);
      break;
    case 24:
      *e = launch_mma < C, 24 > (src, src_pitch, dst, dst_pitch, width,
          height, a, stream);
      break;
    default:
      *e = launch_mma < C, 32 > (src, src_pitch, dst, dst_pitch, width,
          height, a, stream);
      break;
  }
  return true;
}

template < int C > cudaError_t
launch_blur (const uint8_t * src, size_t src_pitch, uint8_t * dst,
    size_t dst_pitch, int width, int height, uint16_t * t, size_t t_pitch,
    const BlurArgs & a, cudaStream_t stream)
{
  int smem_max;
  cudaError_t e;
  if (try_mma < C > (src, src_pitch, dst, dst_pitch, width, height, a,
          stream, &e))
    return e;
  if (has_integer_mma () && half_exact (a))
    return launch_wide < C > (src, src_pitch, dst, dst_pitch, width, height,
        t, t_pitch, a, stream);
  e = smem_limit (&smem_max);
  if (e != cudaSuccess)
    return e;

  if (a.rx <= 4)
    e = launch_h < C, 4 > (src, src_pitch, t, t_pitch, width, height, a,
        smem_max, stream);
  else if (a.rx <= 8)
    e = launch_h < C, 8 > (src, src_pitch, t, t_pitch, width, height, a,
        smem_max, stream);
  else if (a.rx <= 16)
    e = launch_h < C, 16 > (src, src_pitch, t, t_pitch, width, height, a,
        smem_max, stream);
  else if (a.rx <= 32)
    e = launch_h < C, 32 > (src, src_pitch, t, t_pitch, width, height, a,
        smem_max, stream);
  else
    e = launch_h < C, 0 > (src, src_pitch, t, t_pitch, width, height, a,
        smem_max, stream);
  if (e != cudaSuccess)
    return e;

  if (a.ry <= 4)
    return launch_v < 4 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
        stream);
  if (a.ry <= 8)
    return launch_v < 8 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
        stream);
  if (a.ry <= 16)
    return launch_v < 16 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
        stream);
  if (a.ry <= 32)
    return launch_v < 32 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
        stream);
  return launch_v < 0 > (t, t_pitch, dst, dst_pitch, width, height, C, a,
      stream);
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

extern "C" size_t
cf_blur_scratch_bytes (int width, int height, int channels)
{
  if (width <= 0 || height <= 0 || channels < 1 || channels > 4)
    return 0;
  return cf_blur_scratch_pitch (width, channels) * (size_t) height;
}

extern "C" size_t
cf_blur_scratch_pitch (int width, int channels)
{
  /* 16-bit values, rows rounded up to 256 bytes */
  return ((size_t) width * channels * 2 + 255) / 256 * 256;
}

extern "C" CfError
cf_blur_plane (const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
    int width, int height, int channels, const CfBlurKernel * kx,
    const CfBlurKernel * ky, CfBorder border, const uint8_t border_value[4],
    void *scratch, CfStream stream)
{
  if (!src || !dst || !scratch || width <= 0 || height <= 0 || channels < 1
      || channels > 4 || src_pitch < (size_t) width * channels
      || dst_pitch < (size_t) width * channels
      || !kernel_ok (kx, CF_BLUR_H_BITS) || !kernel_ok (ky, CF_BLUR_V_BITS)
      || border < CF_BORDER_REPLICATE || border > CF_BORDER_CONSTANT
      || (long long) height * ((width + 511) / 512) > INT32_MAX / 2)
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
  uint16_t *t = (uint16_t *) scratch;
  size_t tp = cf_blur_scratch_pitch (width, channels);
  cudaStream_t st = (cudaStream_t) stream;
  switch (channels) {
    case 1:
      return launch_blur < 1 > (s, src_pitch, d, dst_pitch, width, height, t,
          tp, a, st);
    case 2:
      return launch_blur < 2 > (s, src_pitch, d, dst_pitch, width, height, t,
          tp, a, st);
    case 3:
      return launch_blur < 3 > (s, src_pitch, d, dst_pitch, width, height, t,
          tp, a, st);
    default:
      return launch_blur < 4 > (s, src_pitch, d, dst_pitch, width, height, t,
          tp, a, st);
  }
}
