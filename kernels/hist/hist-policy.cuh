/* The histogram kernels' tuning: the layouts of counters, how much of a
 * segment a lane loads at once, how the counts are spread and the items
 * handed out.  Every value here changes only how fast the kernels run (or
 * which layout dispatch picks), never the counts; the measurements behind
 * them are in docs/design/hist.md. */
#ifndef CUDAFILTERS_HIST_POLICY_CUH
#define CUDAFILTERS_HIST_POLICY_CUH

#include "cudafilters-kernels.h"

namespace {

constexpr int kBins = CF_HIST_BINS;
constexpr int kChannels = CF_HIST_MAX_CHANNELS;

/* The counters of a block: 32-bit words for the whole block
 * (hist-block-words.cuh) where a block can have 128 KB of shared memory,
 * else 8-bit counters per warp (hist-warp-bytes.cuh). */
enum class Layout
{ kBlockWords, kWarpBytes };

/* warps of a BlockWords block: enough to hide the loads' latency, and
 * their counters are shared, so their number costs no memory */
constexpr int kBlockWordsWarps = 32;
/* warps of a WarpBytes block at most, each with counters of its own */
constexpr int kWarpBytesMaxWarps = 8;

/* Whether a warp issues its next segment's loads before counting one:
 * with WarpBytes a block has too few warps to hide the loads' latency
 * otherwise; with BlockWords its 32 warps hide it, and the second buffer
 * of registers only cost time. */
template < Layout L > __host__ __device__ constexpr bool
prefetch ()
{
  return L == Layout::kWarpBytes;
}

/* Body units each lane loads before counting them.  With BlockWords more
 * than 2 were slower; 3-byte pixels' units are 48 bytes, and 2 of them do
 * not fit the 64 registers a thread of a 1024-thread block has. */
template < Layout L, int BPP > __host__ __device__ constexpr int
units_per_lane ()
{
  if constexpr (L == Layout::kBlockWords)
    return BPP == 3 ? 1 : 2;
  else
    return BPP == 3 ? 3 : 8;
}

/* a unit holds whole pixels: 16 bytes, or 48 for 3-byte pixels */
template < int BPP > __host__ __device__ constexpr int
unit_bytes ()
{
  return BPP == 3 ? 48 : 16;
}

/* a warp's loads of one item: a unit a lane, units_per_lane() times */
template < Layout L, int BPP > __host__ __device__ constexpr int
segment_units ()
{
  return 32 * units_per_lane < L, BPP > ();
}

/* Copies of the counts in the workspace: block b adds into copy
 * b % kCopies, so that fewer blocks' atomics queue on each address; more
 * than 4 were slower, as the last block sums them all. */
constexpr int kCopies = 4;

/* Counters that hand out the shared items (ItemQueue), each on a 128-byte
 * line of its own so that their atomics queue apart. */
constexpr int kQueues = 32;

/* Items dealt to each warp in turn before any is shared: half of its
 * whole rounds, and at least this many, as a warp that asks during the
 * launch's first loads waits behind them for its answer. */
constexpr long long kLeastDealtRounds = 3;

}                               /* namespace */

#endif
