/* statistics_kernel: the statistics alone, without a last block, of
 * planes of 1, 2 or 4 bytes a pixel whose rows are whole aligned 16-byte
 * vectors.  Each plane is one run of vectors, row after row; a block
 * takes kRunVectors * kThreads consecutive ones (32 KB), thread i the
 * vectors i, i + kThreads, ..., all loaded before any is counted.  As many
 * short-lived blocks as that makes, which the GPU hands to its SMs as
 * they free up, where sum_kernel's wave of persistent blocks keeps a tile
 * in flight a block while it counts another.
 * Dispatch (launch_statistics_runs): cf_sum_planes_add without key
 * features, every plane of rows of 2 or more whole aligned vectors.
 * Tests: test_sum_equals_reference (the widths 4 to 32 and the planes of
 * whole blocks are its edges), test_sum_regions. */
#ifndef CUDAFILTERS_SUM_STATISTICS_CUH
#define CUDAFILTERS_SUM_STATISTICS_CUH

#include "sum-totals.cuh"

namespace {

/* Loads a thread's vectors of its block's run: with CHECKED, those in the
 * plane (the others zero); FLAT: a tight plane, vector i at data + 16 i,
 * where otherwise each vector's row comes from a multiply-high.  Plain
 * loads: neither __ldg nor loads with no line in L1 and a 256-byte L2
 * fetch (ld.global.nc.L1::no_allocate.L2::256B) did better. */
template < bool FLAT, bool CHECKED > __device__ __forceinline__ void
load_run (const PlaneArgs & pl, int first, int total,
    uint4 (&v)[kRunVectors])
{
  if constexpr (FLAT) {
    const uint4 *src = reinterpret_cast < const uint4 * >(pl.data) + first;
#pragma unroll
    for (int u = 0; u < kRunVectors; u++)
      v[u] = !CHECKED || first + u * kThreads < total ? src[u * kThreads] :
          make_uint4 (0, 0, 0, 0);
  } else {
    const int vectors_per_row = pl.row_bytes / 16;
#pragma unroll
    for (int u = 0; u < kRunVectors; u++) {
      const int i = first + u * kThreads;
      v[u] = make_uint4 (0, 0, 0, 0);
      if (!CHECKED || i < total) {
        /* exact for i < 2^31 (the launch checks) */
        const int y = (int) __umul64hi ((uint64_t) i, pl.row_of_vector);
        const int x = i - y * vectors_per_row;
        v[u] = reinterpret_cast < const uint4 * >(pl.data +
            (size_t) y * pl.pitch)[x];
      }
    }
  }
}

template < int BPP, bool FLAT, bool CHECKED > __device__ __forceinline__ void
count_run (const PlaneArgs & pl, int first, int total, Totals & t)
{
  uint4 v[kRunVectors];
  load_run < FLAT, CHECKED > (pl, first, total, v);
  WordAcc wa;
  word_acc_init (wa);
#pragma unroll
  for (int u = 0; u < kRunVectors; u++) {
    const uint32_t w[4] = { v[u].x, v[u].y, v[u].z, v[u].w };
    /* a vector past the plane: zeros for the sums, none for the minima */
    const uint32_t missing = !CHECKED || first + u * kThreads < total ?
        0u : 0xffffffffu;
#pragma unroll
    for (int j = 0; j < 4; j++)
      word_acc_add < BPP > (wa, w[j], w[j] | missing);
    if constexpr (BPP == 4) {
      word_acc_add_pair (wa, w[0], w[1]);
      word_acc_add_pair (wa, w[2], w[3]);
    }
  }
  totals_init (t);
  word_acc_fold_sums < BPP > (wa, t);
  word_acc_fold_rest < BPP > (wa, t);
}

/* A block's run of a plane.  A block whose vectors all lie in a tight
 * plane (every block but a plane's partial last one) takes them without a
 * check each.  Each case loads and counts in one branch: the loads of
 * both cases in one if/else and the counting in another cost time. */
template < int BPP, bool FLAT > __device__ __forceinline__ void
statistics_of_run (const PlaneArgs & pl, Workspace * ws, SharedTotals & sh)
{
  const int total = pl.row_bytes / 16 * pl.rows;
  const int block_first = ((int) blockIdx.x - pl.first_block) * kThreads *
      kRunVectors;
  const int first = block_first + (int) threadIdx.x;
  Totals t;
  if (FLAT && block_first + kThreads * kRunVectors <= total)
    count_run < BPP, FLAT, false > (pl, first, total, t);
  else
    count_run < BPP, FLAT, true > (pl, first, total, t);
  /* a block counts one plane: no barrier before its totals */
  add_block_totals < BPP, false > (pl, t, ws, sh);
}

/* ONLY: the bytes a pixel of every plane, or 0 for planes of 1, 2 and 4
 * in one launch (NV12, I420); FLAT: every plane tight.  With every
 * layout's code in one kernel it took 72 registers, 3 blocks an SM; each
 * of these fits 64 registers without spills: 4 blocks an SM. */
template < int ONLY, bool FLAT > __global__ void
__launch_bounds__ (kThreads, 4)
statistics_kernel (LaunchArgs args, Workspace * __restrict__ ws)
{
  __shared__ SharedTotals sh;

  cf_grid_zero_words (args.zero_next, args.zero_words);
  if ((int) blockIdx.x >= args.blocks)
    return;                     /* the one block of an empty region */
  if constexpr (ONLY != 0) {
    /* one plane: its arguments at fixed offsets rather than indexed */
    if (args.n_planes == 1) {
      statistics_of_run < ONLY, FLAT > (args.plane[0], ws, sh);
      return;
    }
  }
  int p = 0;
  while (p + 1 < args.n_planes && (int) blockIdx.x >=
      args.plane[p + 1].first_block)
    p++;
  const PlaneArgs & pl = args.plane[p];
  if constexpr (ONLY != 0) {
    statistics_of_run < ONLY, FLAT > (pl, ws, sh);
  } else {
    switch (pl.bpp) {
      case 1:
        statistics_of_run < 1, FLAT > (pl, ws, sh);
        break;
      case 2:
        statistics_of_run < 2, FLAT > (pl, ws, sh);
        break;
      default:
        statistics_of_run < 4, FLAT > (pl, ws, sh);
        break;
    }
  }
}

}                               /* namespace */

#endif
