/* The separable blur on the CUDA cores, two passes through the scratch
 * plane.  blur_h_kernel stages a few rows of a strip in shared memory as
 * floats, each thread filters kHPix consecutive pixels and writes t as
 * 16-bit values; blur_v_kernel takes two channel columns a thread down a
 * run of rows, its taps in a ring of registers (radius buckets 4 to 32)
 * or read from the cache (any radius).  Every sum is an integer below
 * 2^24 held in a float, hence exact.
 * Dispatch (launch_blur): GPUs before sm_80, or vertical weights that are
 * not exact in half precision (only the C API can pass those).
 * Tests: test_blur_extreme_weights (weights that are not exact halves,
 * on any GPU); on GPUs before sm_80, every blur test. */
#ifndef CUDAFILTERS_BLUR_SIMT_CUH
#define CUDAFILTERS_BLUR_SIMT_CUH

#include "blur-device.cuh"
#include "blur-policy.cuh"
namespace {

/* Shared-memory index of element i of a row: 4 pad floats after every 16.
 * Threads of a quarter warp read 16-byte chunks 64 bytes apart (one pixel
 * group each); the pad turns that stride into 80 bytes, which spreads the
 * 8 chunks over all 32 banks instead of 4-way conflicts. */
__device__ __forceinline__ int
skew (int i)
{
  return i + 4 * (i >> 4);
}

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

}                               /* namespace */

#endif
