/* blur_mma8_kernel for 1 and 2 channels (NV12's luma and its interleaved
 * chroma) on sm_90, without staging, as blur_mma8_direct_kernel is for 4,
 * and for a frame's planes in one launch (each block blurs one plane):
 * the B operands are read straight from the copied rows, a 32-bit shared
 * load each (1 channel: four taps of one row), or a 64-bit load for the
 * two channels' four taps and two PRMTs; the taps in pixel order.  Copies
 * of 16 bytes go kNarrowAhead steps ahead into a ring of buffers with
 * `full` and `empty` mbarriers.  Units outside the frame are not copied:
 * the folded bands weigh them zero.  The outputs go out through shared
 * memory, whole rows of the strip a store.
 * Dispatch (narrow_applies, try_narrow_planes): sm_90 on, radius 8 or less,
 * 1 or 2 channels, replicate or reflect-101, width at least kFoldMinWidth
 * whose rows are whole 16-byte units, 16-byte aligned rows in and out.
 * Tests: test_blur_direct_planes (on sm_90), test_blur_narrow_edges,
 * test_blur_planes_equals_reference. */
#ifndef CUDAFILTERS_BLUR_MMA_R8_SM90_NARROW_CUH
#define CUDAFILTERS_BLUR_MMA_R8_SM90_NARROW_CUH

#include "blur-mma-r8.cuh"
namespace {

/* A step's outputs as rows of 4 pixels.  Lane t holds pixel pairs t and
 * t + 4 of rows g and g + 8 (pair_products' out_rows: pair p of the
 * warp's 8 is pixels 2p, 2p + 1); lanes 2k and 2k + 1 of a quad swap one
 * pair (a shuffle), so that each holds two pairs side by side: pairs t,
 * t + 1 (even t) or t + 3, t + 4 (odd t), i.e. pixels 2t on or 2t + 6 on,
 * of rows g (row0) and g + 8 (row8).  4 bytes a row with 1 channel (both
 * rows' pairs go in one shuffle), 8 with 2. */
template < int C > __device__ __forceinline__ void
quad_rows (int t, const uint32_t (&out_rows)[2][2][(2 * C + 3) / 4],
    uint32_t (&row0)[C], uint32_t (&row8)[C])
{
  const bool odd = t & 1;
  if constexpr (C == 1) {
    /* rows g and g + 8 in one word: the low 2 bytes of each pair's */
    const uint32_t p0 = __byte_perm (out_rows[0][0][0], out_rows[0][1][0],
        0x5410);
    const uint32_t p1 = __byte_perm (out_rows[1][0][0], out_rows[1][1][0],
        0x5410);
    const uint32_t r = __shfl_xor_sync (0xffffffffu, odd ? p0 : p1, 1);
    row0[0] = odd ? __byte_perm (r, p1, 0x5410) : __byte_perm (p0, r, 0x5410);
    row8[0] = odd ? __byte_perm (r, p1, 0x7632) : __byte_perm (p0, r, 0x7632);
  } else {
    /* a pair is a word: each row its own shuffle */
    const uint32_t r0 = __shfl_xor_sync (0xffffffffu,
        odd ? out_rows[0][0][0] : out_rows[1][0][0], 1);
    const uint32_t r8 = __shfl_xor_sync (0xffffffffu,
        odd ? out_rows[0][1][0] : out_rows[1][1][0], 1);
    row0[0] = odd ? r0 : out_rows[0][0][0];
    row0[1] = odd ? out_rows[1][0][0] : r0;
    row8[0] = odd ? r8 : out_rows[0][1][0];
    row8[1] = odd ? out_rows[1][1][0] : r8;
  }
}

/* A plane of blur_mma8_narrow_kernel: its rows, its filters (radius 8 or
 * less) and how many of the launch's blocks blur it (those after the
 * planes' before it) */
struct NarrowPlane
{
  const uint8_t *src;
  uint8_t *dst;
  size_t src_pitch, dst_pitch;
  int width, height;
  int blocks;
  int rx, ry, border;
  float wx[kNarrowMaxRadius + 1];
  float wy[kNarrowMaxRadius + 1];
};

/* A launch's planes: the first of C0 channels, the others of C1 */
struct NarrowPlanes
{
  NarrowPlane plane[kNarrowMaxPlanes];
  int n;
};

/* blur_mma8_kernel's products and stores for 1 or 2 channels where the
 * border folds and the rows are 16-byte aligned whole units, without
 * staging.  A strip's step is its 16 input rows from 16 bytes left of the
 * strip to 16 bytes right of it, as copied (Mma8NarrowShape): a warp's
 * taps, pixels xw - 8 to xw + 23, start 8 bytes into its 16 bytes (1
 * channel) or at them (2), so that a lane's B registers are 4-byte (1
 * channel) or 8-byte words of the rows.  Per step, each thread:
 * - waits for the step's buffer to be full (every thread's copies landed,
 *   cp.async.mbarrier.arrive.noinc);
 * - issues the copies kNarrowAhead steps ahead, into the buffer of a step
 *   every thread is done reading (`empty`);
 * - reads its B registers, arrives on `empty`, and computes as
 *   blur_mma8_kernel does;
 * - puts the previous step's outputs, 4 pixels a row (quad_rows), in the
 *   block's output rows in shared memory, and after a barrier of the
 *   block stores its share of them, 16 bytes a thread: a warp's store
 *   covers whole rows of the strip (64 or 128 bytes), whole sectors.
 *   Where each lane stored its own pixel pairs, a warp's store wrote 8
 *   bytes of each row it touched (16 with 2 channels), and L2's partial
 *   sector writes were what the luma's kernel waited on (profiled:
 *   docs/performance.md).
 * Units left or right of the frame are not copied (the buffer keeps bytes
 * of an earlier step there, which the folded bands weigh zero); rows above
 * and below take the border rule's rows. */
template < int C > __device__ __forceinline__ void
narrow_plane (const NarrowPlane & a, int block_of_plane)
{
  constexpr int HALO = 8;
  constexpr int ahead = kNarrowAhead;   /* steps copied ahead */
  using S = Mma8NarrowShape < C >;
  static_assert (ahead + 2 <= kNarrowBuffers
      && (kNarrowBuffers & (kNarrowBuffers - 1)) == 0, "row slots");
  static_assert (S::row_bytes % 32 == 0, "sectors");
  static_assert (kMmaStep * S::out_chunks <= S::threads, "a chunk a thread");
  extern __shared__ __align__ (128) uint8_t narrow_smem[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const uint8_t *const __restrict__ src = a.src;
  uint8_t *const __restrict__ dst = a.dst;
  const size_t src_pitch = a.src_pitch, dst_pitch = a.dst_pitch;
  const int width = a.width, height = a.height;
  WorkRun < 8, S::strip > run (width, height, block_of_plane, a.blocks);
  int x0 = 0, y0 = 0, rows = 0, n = 0;
  const int row_end = width * C;        /* bytes: a multiple of 16 */

  __shared__ uint32_t weights[2][33];
  __shared__ uint32_t suffix[10];
  __shared__ uint64_t full[kNarrowBuffers], empty[kNarrowBuffers];
  const uint32_t buffers = (uint32_t) __cvta_generic_to_shared (narrow_smem);
  /* this lane's first B word: row g, taps 4 t on of the warp's (pixel
   * 16 warp - 8 of the strip, 16 bytes after the row's first) */
  const uint32_t lane_word = buffers + g * S::row_bytes +
      16 + (16 * warp - HALO) * C + 4 * C * t;
  /* the output rows, two of them after the ring: this lane's 4 pixels of
   * row g, and this thread's chunk (of row out_row) */
  uint8_t *const out_rows_smem = narrow_smem + kNarrowBuffers * S::step_bytes;
  const int lane_out = g * S::out_pitch +
      (16 * warp + 2 * t + (t & 1) * 6) * C;
  const int out_row = tid / S::out_chunks;
  const int out_chunk = tid - out_row * S::out_chunks;
  uint32_t prev[C][2][2];
  uint32_t ring = 0;            /* the ring position of the part's first step */
  bool inner = false;           /* the part's copied columns are all in the frame */

  /* step `block`'s units that are this thread's, copied into its buffer */
  auto issue_copies = [&](int block) {
    const uint32_t s = ring + block, buf = s % kNarrowBuffers;
    if (s >= kNarrowBuffers)
      mbarrier_wait_parity (&empty[buf], (s / kNarrowBuffers - 1) & 1);
    const int top = y0 - HALO + block * kMmaStep;
    const uint32_t slots = buffers + buf * S::step_bytes;
    const int row_first = x0 * C - 16;  /* the copied rows' first byte */
    const bool rows_in = top >= 0 && top + kMmaStep <= height;
    const uint8_t *row0 = src + (size_t) max (top, 0) * src_pitch;
#pragma unroll
    for (int k = 0; k < (S::units + S::threads - 1) / S::threads; k++) {
      const int u = tid + k * S::threads;
      if (S::units % S::threads != 0 && u >= S::units)
        break;
      const int rr = u / S::units_per_row;
      const int b = row_first + 16 * (u - rr * S::units_per_row);
      if (!inner && (unsigned) b >= (unsigned) row_end)
        continue;
      const uint32_t to = slots + rr * S::row_bytes + 16 * (u - rr *
          S::units_per_row);
      /* rows in the frame (most steps): 32-bit offsets from the step's
       * first row */
      if (rows_in)
        cp_async < 16, true > (to, row0 + ((uint32_t) rr *
                (uint32_t) src_pitch + (uint32_t) b));
      else
        cp_async < 16, true > (to, src + (size_t) border_index (top + rr,
                height, a.border) * src_pitch + (size_t) b);
    }
  };
  /* the copies this thread has issued arrive on the buffer of step
   * `block` as they land */
  auto arrive_full = [&](int block) {
    const uint32_t buf = (ring + block) % kNarrowBuffers;
    cp_async_mbarrier_arrive_noinc (&full[buf]);
  };

  bool more = run.next (x0, y0, rows, n);
  inner = x0 * C - 16 >= 0 && x0 * C - 16 + S::row_bytes <= row_end;
  ring_start < kNarrowBuffers, S::threads > (more, n, ahead, issue_copies,
      arrive_full, weights, suffix, full, empty, a);
  uint32_t hx_hi[1][4], hx_lo[1][4], vy[2][4];
  band_fragments < HALO, 1 > (weights[0], a.rx, lane, hx_hi, hx_lo);
  band_fragments_f16 < HALO, 2 > (weights[1], a.ry, lane, vy);
  bool folded = false;
  int out_buf = 0;              /* which of the two output rows' buffers */

  for (bool first = true; more; first = false,
      more = run.next (x0, y0, rows, n)) {
    if (!first) {
      inner = x0 * C - 16 >= 0 && x0 * C - 16 + S::row_bytes <= row_end;
      for (int k = 0; k < ahead && k <= n; k++) {
        issue_copies (k);
        arrive_full (k);
      }
    }
    warp_band_fragments < HALO > (weights[0], suffix, a.rx, lane,
        x0 + 16 * warp, width, a.border, hx_hi, hx_lo, folded);
    /* this thread's chunk: its byte in the rows, and whether it is in the
     * frame (width * C is a multiple of 16: a chunk is all in or all out) */
    const int chunk_x = x0 * C + 16 * out_chunk;
    const bool chunk_in = out_row < kMmaStep && chunk_x < row_end;
    uint8_t *out_step = dst + (size_t) y0 * dst_pitch;
    for (int block = 0; block <= n; block++) {
      const uint32_t s = ring + block, buf = s % kNarrowBuffers;
      mbarrier_wait_parity (&full[buf], (s / kNarrowBuffers) & 1);
      if (block + ahead <= n) {
        issue_copies (block + ahead);
        arrive_full (block + ahead);
      }
      const uint32_t words = lane_word + buf * S::step_bytes;

      /* b[k]: rows 0-7 taps 0-15, rows 0-7 taps 16-31, then rows 8-15
       * likewise (pair_products' order); taps 16 on are 16 C bytes on */
      uint32_t b[C][4];
#pragma unroll
      for (int rg = 0; rg < 2; rg++)
#pragma unroll
        for (int half = 0; half < 2; half++) {
          const uint32_t at = words + 8 * rg * S::row_bytes + 16 * C * half;
          if constexpr (C == 1) {
            b[0][2 * rg + half] = lds_u32_at (at);
          } else {
            uint32_t lo, hi;
            lds_u64_at (lo, hi, at);
            b[0][2 * rg + half] = __byte_perm (lo, hi, 0x6420);
            b[1][2 * rg + half] = __byte_perm (lo, hi, 0x7531);
          }
        }
      mbarrier_arrive (&empty[buf]);

      uint32_t out_rows[2][2][(2 * C + 3) / 4];
      pair_products < C, C > (b, 0, block > 0, hx_hi[0], hx_lo[0], vy, prev,
          out_rows);
      if (block == 0)
        continue;
      const int yr0 = (block - 1) * kMmaStep;   /* the step's first row */
      /* The rows of the step in shared memory, then the block's stores.
       * Two buffers: one is written while the other may still be read,
       * and the barrier of each step orders the reads of the step before
       * the writes of the step after. */
      uint8_t *at = out_rows_smem + out_buf * S::out_bytes;
      uint32_t row0[C], row8[C];
      quad_rows < C > (t, out_rows, row0, row8);
      if constexpr (C == 1) {
        *reinterpret_cast < uint32_t * >(at + lane_out) = row0[0];
        *reinterpret_cast < uint32_t * >(at + lane_out + 8 * S::out_pitch) =
            row8[0];
      } else {
        *reinterpret_cast < uint2 * >(at + lane_out) =
            make_uint2 (row0[0], row0[1]);
        *reinterpret_cast < uint2 * >(at + lane_out + 8 * S::out_pitch) =
            make_uint2 (row8[0], row8[1]);
      }
      bar_sync_named < 1, S::threads > ();
      if (chunk_in && yr0 + out_row < rows)
        *reinterpret_cast < uint4 * >(out_step + (size_t) out_row *
            dst_pitch + chunk_x) =
            *reinterpret_cast < const uint4 * >(at + out_row * S::out_pitch +
            16 * out_chunk);
      out_buf ^= 1;
      out_step += kMmaStep * dst_pitch;
    }
    ring += n + 1;
  }
}

/* The planes' blurs in one launch: a block blurs the plane its index
 * falls in (block-uniform, so the barriers hold), plane 0 with C0
 * channels, the others with C1 (0: one plane).  With more than one
 * plane, 2 channels' blocks an SM bound the registers: a plane's fields
 * at a runtime index take registers that 1 channel's bound spills (the
 * launch has kNarrowLaunchPerSm, fewer than either). */
template < int C0, int C1 > __global__ void
__launch_bounds__ (Mma8NarrowShape < C0 >::threads,
    Mma8NarrowShape < (C1 ? 2 : C0) >::blocks_per_sm)
    blur_mma8_narrow_kernel (const __grid_constant__ NarrowPlanes planes)
{
  static_assert (Mma8NarrowShape < C0 >::threads ==
      Mma8NarrowShape < (C1 ? C1 : C0) >::threads, "one block size");
  /* (built for every architecture, launched on sm_90 on only) */
#if __CUDA_ARCH__ >= 900
  int block = blockIdx.x;
  if constexpr (C1 == 0) {
    narrow_plane < C0 > (planes.plane[0], block);
  } else if constexpr (C1 == C0) {
    int p = 0;
    while (p + 1 < planes.n && block >= planes.plane[p].blocks)
      block -= planes.plane[p++].blocks;
    narrow_plane < C0 > (planes.plane[p], block);
  } else if (block < planes.plane[0].blocks) {
    narrow_plane < C0 > (planes.plane[0], block);
  } else {
    int p = 1;
    block -= planes.plane[0].blocks;
    while (p + 1 < planes.n && block >= planes.plane[p].blocks)
      block -= planes.plane[p++].blocks;
    narrow_plane < C1 > (planes.plane[p], block);
  }
#endif
}

}                               /* namespace */

#endif
