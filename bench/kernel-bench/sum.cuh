/* The sum rows' bench, which profiles.cu also runs for our "profiles"
 * rows (cf_sum_planes with CF_SUM_PROFILES alone). */
#ifndef CUDAFILTERS_BENCH_KERNEL_BENCH_SUM_CUH
#define CUDAFILTERS_BENCH_KERNEL_BENCH_SUM_CUH

#include "harness.cuh"

/* What a sum row times: cf_sum_planes, or a baseline adding up all the
 * bytes of a frame without row padding into one total (not per channel, no
 * key). */
enum SumImpl
{
  SUM_OURS,                     /* cf_sum_planes_add, as cudasum runs it */
  SUM_OURS_LAST_BLOCK,          /* cf_sum_planes */
  SUM_CUB,                      /* DeviceReduce::Sum */
  SUM_SEED_ONE_THREAD,
  SUM_SEED_ONE_BLOCK,
  SUM_SEED_MANY_BLOCKS,
  SUM_SEED_BLOCK_TREE,
};

/* Sums, squares, min and max of every channel, and the key statistics
 * `flags` ask for (BT.601 grey of RGB(A), the byte itself of NV12's luma
 * or GRAY8; black threshold 24).  The previous keys of DIFF and KEEP are
 * one buffer, read and rewritten by every launch, as cudasum keeps them,
 * so what of them L2 still holds from the launch before counts as it does
 * in the element; with cold_keys they rotate with the frames instead, and
 * are never in L2.  A baseline (CUB, seeds) times one total of all the
 * bytes of the same frames instead.  op: the row's op, when not the one
 * the flags name.  percentiles: cudahist's pass over the frame first, as
 * cudasum percentiles=true runs it.  luma_hist: cudahist's kernel over
 * the keys just kept after the statistics, as cudasum detect=cut counts
 * the luma histogram (flags must KEEP). */
Row bench_sum (int w, int h, const Format & fmt, bool solid, unsigned flags,
    SumImpl impl, const char *op = nullptr, bool cold_keys = false,
    bool percentiles = false, bool luma_hist = false);

#endif /* CUDAFILTERS_BENCH_KERNEL_BENCH_SUM_CUH */
