/* The grey kernels' tuning.  Every value here changes only how fast they
 * run, never their results; the measurements behind them are in
 * docs/design/gray.md. */
#ifndef CUDAFILTERS_GRAY_POLICY_CUH
#define CUDAFILTERS_GRAY_POLICY_CUH

namespace {

/* threads a block of the vector kernel, a multiple of the warp */
constexpr int kBlock = 256;

/* Pixels per thread: whole 16-byte input vectors and a vector of output,
 * 8 RGBA-type pixels (two loads, an 8-byte store) or 16 RGB pixels (three
 * loads, a 16-byte store: 16 are the fewest that fill whole vectors).  For
 * RGBA, 8 did better than 4 or 16. */
template < int BPP > __host__ __device__ constexpr int
pixels_per_thread ()
{
  return BPP == 4 ? 8 : 16;
}

}                               /* namespace */

#endif
