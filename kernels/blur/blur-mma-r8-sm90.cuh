/* blur_mma8_kernel for 4 channels on sm_90, without staging: the B
 * operands come straight from the copied rows (a lane's ldmatrix of 4
 * units gets one pixel of each; 4 PRMTs a channel pair make the B
 * registers, taps in unit order).  Copies go 2 steps ahead into a ring of
 * buffers, each with a `full` and an `empty` mbarrier: no block-wide
 * barrier and no round trip through staged planes.  Units outside the
 * frame are not copied: the folded bands weigh them zero.
 * Dispatch (direct_applies): sm_90 on, radius 8 or less, 4 channels,
 * replicate or reflect-101, width a multiple of 4 and at least
 * kFoldMinWidth, 16-byte aligned rows.
 * Tests: test_blur_direct_rows (on sm_90). */
#ifndef CUDAFILTERS_BLUR_MMA_R8_SM90_CUH
#define CUDAFILTERS_BLUR_MMA_R8_SM90_CUH

#include "blur-mma-r8.cuh"
namespace {

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
 * No barrier of the whole block, no staging (in blur_mma8_kernel a few
 * dozen instructions a thread and step, and a round trip through shared
 * memory).  Units left or right of the frame are not copied: the buffer
 * keeps bytes of an earlier step there, which the folded bands weigh
 * zero; rows above and below take the border rule's rows.  The first
 * copies go out before the prologue, with 256-byte L2 prefetches, and the
 * edge strips' in-frame rows take the in-frame path (see
 * docs/design/blur.md). */
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
      mbarrier_wait_parity (&empty[buf], (s / kDirectBuffers - 1) & 1);
    const int top = y0 - HALO + block * kMmaStep;
    const uint32_t slots = buffers + buf * kDirectStep;
    if (top >= 0 && top + kMmaStep <= height) {
      /* rows in the frame (most steps): 32-bit offsets from the step's
       * first row; in the first and last strips only the units in the
       * frame (width is a multiple of 4: a unit is all in or all out).
       * (On the border rule's path below, those strips' steps cost more
       * than the others, and their blocks ended the launch last.) */
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
    cp_async_mbarrier_arrive_noinc (&full[buf]);
  };

  bool more = run.next (x0, y0, rows, n);
  inner = x0 - HALO >= 0 && x0 - HALO + L::span <= width;
  ring_start < kDirectBuffers, S::threads > (more, n, ahead, issue_copies,
      arrive_full, weights, suffix, full, empty, a);
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
    warp_band_fragments < HALO > (weights[0], suffix, a.rx, lane, xw, width,
        a.border, hx_hi, hx_lo, folded, true);
    const int whole_steps = vector_stores && xw + 16 <= width ?
        rows / kMmaStep : 0;
    uint8_t *out_step = dst + (size_t) y0 * dst_pitch + (size_t) x0 * C;
    for (int block = 0; block <= n; block++) {
      const uint32_t s = ring + block, buf = s % kDirectBuffers;
      mbarrier_wait_parity (&full[buf], (s / kDirectBuffers) & 1);
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
            ldsm_x4_at (w, units + 8 * rg * kDirectPitch + 64 * half);
            if (c0 == 0)
              channel_pair < 0 > (w, b[0][2 * rg + half],
                  b[1][2 * rg + half]);
            else
              channel_pair < 2 > (w, b[0][2 * rg + half],
                  b[1][2 * rg + half]);
          }
        if (c0 == 2)
          mbarrier_arrive (&empty[buf]);
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

}                               /* namespace */

#endif
