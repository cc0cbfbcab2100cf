/* The fused pass on the tensor cores for halos 16 to 32: a block walks
 * down strips 16 rows a step; a step's input rows are staged into one
 * plane per channel (StepLoader), the horizontal products write t into a
 * ring in shared memory, and the vertical products read the ring and
 * write 16 output rows.  The frame is read once and written once.
 * Dispatch (try_mma): sm_80 on, the larger radius 9 to kMmaMaxRadius,
 * vertical weights exact in half precision, pitches at most
 * kMmaMaxPitch.
 * Tests: test_blur_whole_unit_edges (every halo, edge strips),
 * test_blur_small_frames and test_blur_large_frames (sigmas 5 to 10). */
#ifndef CUDAFILTERS_BLUR_MMA_CUH
#define CUDAFILTERS_BLUR_MMA_CUH

#include "blur-staging.cuh"
namespace {

/* The smem planes of channel c: its staged input rows, and its t ring */
template < int C, int HALO > __device__ __forceinline__ uint8_t *
mma_in_plane (uint8_t * smem, int c)
{
  return smem + c * MmaLayout < HALO >::channel_bytes;
}

template < int C, int HALO > __device__ __forceinline__ uint32_t *
mma_t_ring (uint8_t * smem, int c)
{
  using L = MmaLayout < HALO >;
  return reinterpret_cast < uint32_t * >(smem + c * L::channel_bytes +
      L::in_bytes);
}

/* t of step `step`'s 16 rows, in tiles of 16 pixels x 8 rows of one
 * channel: warp w takes pixels 16 w on, every channel and both row
 * groups */
template < int C, int HALO > __device__ __forceinline__ void
mma_horizontal (uint8_t * smem, int step, const int &warp, const int &g,
    const int &t,
    const uint32_t (&hx_hi)[MmaLayout < HALO >::chunks][4],
    const uint32_t (&hx_lo)[MmaLayout < HALO >::chunks][4])
{
  using L = MmaLayout < HALO >;
  constexpr int NK = L::chunks;
  const int ring0 = (step * kMmaStep) % L::ring;
#pragma unroll
  for (int k = 0; k < 2 * C; k++) {
    const int c = k >> 1, rg = k & 1;
    int hi[4], lo[4];
    const uint8_t *row = mma_in_plane < C, HALO > (smem, c) +
        (8 * rg + g) * L::in_w + 16 * warp + 4 * t;
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
      mma_t_ring < C, HALO > (smem, c)[L::t_word (16 * warp + g + 8 * half,
              rp)] = horizontal_t_pair (hi, lo, 2 * half);
  }
}

/* The output rows of block step i, in tiles of 16 rows x 8 pixels with
 * every channel: warp w takes pixels 8 w and 8 (w + 4) on; the part's
 * rows from y0 (`rows` of them), its strip from pixel x0 */
template < int C, int HALO > __device__ __forceinline__ void
mma_vertical (uint8_t * smem, int i, const int &warp, const int &g,
    const int &t, const uint32_t (&vy)[MmaLayout < HALO >::vchunks][4],
    uint8_t * __restrict__ const &dst, const size_t & dst_pitch, const int &x0,
    const int &y0, const int &rows, const int &width,
    const bool & vector_stores)
{
  using L = MmaLayout < HALO >;
  constexpr int NV = L::vchunks;
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
      const uint32_t *ring = mma_t_ring < C, HALO > (smem, c);
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
}

/* (blocks per SM: mma_blocks_per_sm) */
template < int C, int HALO > __global__ void
__launch_bounds__ (kMmaThreads, mma_blocks_per_sm (HALO))
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
   * their blocks ended last (the weights tried: docs/design/blur.md) */
  WorkRun < 8 + HALO / 2 > run (width, height);
  int x0 = 0, y0 = 0, rows = 0, n = 0;

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


  constexpr int out_align = C == 4 ? 8 : C == 2 ? 4 : 2;
  const bool vector_stores = ((uintptr_t) dst % out_align) == 0 &&
      dst_pitch % out_align == 0;

  auto horizontal = [&](int step) {
    mma_horizontal < C, HALO > (mma_smem, step, warp, g, t, hx_hi, hx_lo);
  };
  auto vertical = [&](int i) {
    mma_vertical < C, HALO > (mma_smem, i, warp, g, t, vy, dst, dst_pitch,
        x0, y0, rows, width, vector_stores);
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

}                               /* namespace */

#endif
