/* Radii 33 to 150 on the tensor cores: the fused pass's products and
 * arithmetic in two launches through the scratch plane (the band
 * fragments and the t ring of a fused step no longer fit).
 * blur_wide_h_kernel writes t's halves, channels interleaved;
 * blur_wide_v_kernel walks strips of 64 values down the plane, a ring of
 * its rows in shared memory.  The band fragments live in shared memory.
 * Dispatch (launch_blur): sm_80 on, vertical weights exact in half
 * precision, and a radius over kMmaMaxRadius or pitches over
 * kMmaMaxPitch.
 * Tests: test_blur_large_radii. */
#ifndef CUDAFILTERS_BLUR_WIDE_CUH
#define CUDAFILTERS_BLUR_WIDE_CUH

#include "blur-bands.cuh"
namespace {

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
 * (blocks an SM: kWideHBlocksPerSm) */
template < int C > __global__ void
__launch_bounds__ (kWideThreads, kWideHBlocksPerSm)
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
    /* kWideBatch units a thread at a time, all loads issued before any is
     * used: one unit at a time, each waiting for its load, was the
     * kernel's largest stall */
    int r = tid / units_per_row, ux = tid - r * units_per_row;
    for (int u0 = 0; u0 < 16 * units_per_row; u0 += kWideBatch * kWideThreads) {
      uint4 v[kWideBatch];
      int ur[kWideBatch], uxs[kWideBatch];
      bool whole[kWideBatch];
#pragma unroll
      for (int k = 0; k < kWideBatch; k++) {
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
      for (int k = 0; k < kWideBatch; k++) {
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

/* blur_wide_v_kernel's band fragments in shared memory
 * (band_fragments_f16), the weights staged first in the ring (free until
 * the first copies) */
__device__ __forceinline__ void
wide_v_fragments (uint4 * frag, uint8_t * ring, const WideGeometry & geo,
    const BlurArgs & a, int tid)
{
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
}

/* blur_wide_v_kernel's outputs of step s of the strip from value v0 */
__device__ __forceinline__ void
wide_v_store (const float (&sum)[2][2][4], uint8_t * dst, size_t dst_pitch,
    int height, int cols, int v0, int s, int warp, int g, int t, bool pairs)
{
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
    return;
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

/* A run of the (strip, 32-row step) work, strip after strip, for each
 * block (one wave of them), as WorkRun.  The ring holds the window of
 * 32 + 2 hy rows a step's products read, and the 32 rows of the next step
 * being copied; row y lives in slot (y + hy) % ring, its 16-byte chunks
 * XOR-swizzled by the slot, so that the 8 rows an ldmatrix reads are on
 * 8 different groups of banks.  Warp w computes values 16 w .. 16 w + 15
 * of the strip, two 8-value tiles, in two tiles of 16 rows whose taps are
 * one chunk (16 rows) apart: each ldmatrix of a chunk of t serves 4
 * products, the first rows' with chunk q's weights and the second's with
 * chunk q - 1's.  Addresses move by additions: with a modulo a chunk, a
 * step's copies and its products cost about four times the
 * instructions. */
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

  wide_v_fragments (frag, ring, geo, a, tid);
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
      const uint8_t *t_bytes = reinterpret_cast < const uint8_t * >(t_plane);
      cp_async < 16 > ((uint32_t) __cvta_generic_to_shared (to),
          t_bytes + (size_t) sr * t_pitch + 2 * (v0 + 8 * copy_chunk));
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
    cp_async_commit ();
    /* slot: the next step's first new row's (32 + 2 hy rows on);
     * window: the byte offset of the step's first row's slot */
    int window = (kWideStep * s % geo.ring) * kRowBytes;
    for (; s < s_end; s++) {
      cp_async_wait < 0 > ();
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
        cp_async_commit ();
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

      wide_v_store (sum, dst, dst_pitch, height, cols, v0, s, warp, g, t,
          pairs);
    }
  }
}

}                               /* namespace */

#endif
