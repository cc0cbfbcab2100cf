/* The fused pass at radius 8 or less, where t never leaves the registers:
 * a horizontal tile's result is exactly the vertical product's B operand,
 * so a warp computes a step's t and at once the outputs of that step and
 * the one before.  The staged input is double-buffered behind one split
 * barrier (an mbarrier) a step; with 4 channels, wider strips (Mma8Shape)
 * and the border rule folded into the edge warps' bands.
 * Dispatch (try_mma): sm_80 on, both radii 8 or less, vertical weights
 * exact in half precision; with 4 channels on sm_90,
 * blur_mma8_direct_kernel instead where direct_applies().
 * Tests: test_blur_folded_edges, test_blur_direct_rows (off sm_90),
 * test_blur_small_frames and test_blur_large_frames (sigmas up to 2.6). */
#ifndef CUDAFILTERS_BLUR_MMA_R8_CUH
#define CUDAFILTERS_BLUR_MMA_R8_CUH

#include "blur-staging.cuh"
namespace {

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
 * mbarrier: see the step loop), the staged input double-buffered.  The
 * block's shape is Mma8Shape's. */
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
   * channels overlaps their stagings; with 4 channels the same code
   * schedules worse, so it is not told.) */
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
   * folded_band_fragments), with 4 channels only: it spares those steps
   * fill_halo() and its barrier; for 1 and 2 channels its code made ptxas
   * spill. */
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
        cp_async_commit ();
    }
    if (first) {
      /* The weights' fragments are built after the first copies have
       * gone out, so that their loads overlap it: every block of the one
       * wave starts at once, and memory would idle until then.  `suffix`
       * is written before stage_weights' barrier. */
      if (C == 4)
        stage_suffix (suffix, a);
      if (tid == 0)
        mbarrier_init (&step_barrier, S::threads);
      stage_weights (weights, a);
      band_fragments < HALO, 1 > (weights[0], a.rx, lane, hx_hi, hx_lo);
      band_fragments_f16 < HALO, 2 > (weights[1], a.ry, lane, vy);
    }
    /* (warp-uniform) */
    if (fold)
      warp_band_fragments < HALO > (weights[0], suffix, a.rx, lane,
          x0 + 16 * warp, width, a.border, hx_hi, hx_lo, folded);
    /* the output steps whose 16 x 16 pixels of this warp are all in the
     * frame (most are), on aligned rows, take four stores with no checks,
     * at out_step + out_lane; out_step moves down a step at a time.
     * Computing the whole address in 64 bits at every step, and a unit's
     * copy address likewise (StepLoader::unit_offset), costs a noticeable
     * share of a step's instructions. */
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
       * this thread staged from.  Unlike a __syncthreads () after the
       * copies, no thread waits for the others before issuing its copies. */
      if constexpr (S::ahead == 1) {
        loader.stage (raw + (block & 1) * raw_bytes, in, L::in_bytes, block,
            tid, a);
        mbarrier_arrive (&step_barrier);
        if (block < n)
          loader.issue (raw + ((block + 1) & 1) * raw_bytes, block + 1, tid,
              a);
      } else {
        /* block + 2 goes to the buffer block - 1 took */
        loader.template stage < 1 > (raw_step, in, L::in_bytes, block, tid,
            a);
        mbarrier_arrive (&step_barrier);
        uint8_t *raw_free = raw_step == raw ? raw + 2 * raw_bytes :
            raw_step - raw_bytes;
        if (block + 2 <= n)
          loader.issue (raw_free, block + 2, tid, a);
        else
          cp_async_commit ();
        raw_step = raw_step == raw + 2 * raw_bytes ? raw : raw_step +
            raw_bytes;
      }
      mbarrier_wait_parity (&step_barrier, phase);
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
       * it spill (with 4 channels). */
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

}                               /* namespace */

#endif
