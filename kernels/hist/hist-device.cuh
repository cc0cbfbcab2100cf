/* What the histogram kernels share with their launch, and the device
 * code both layouts use around the counting: the launch's arguments, the
 * workspace, the queue that hands out items, the last block's publishing.
 * hist.cu includes it; see docs/design/hist.md. */
#ifndef CUDAFILTERS_HIST_DEVICE_CUH
#define CUDAFILTERS_HIST_DEVICE_CUH

#include "hist-policy.cuh"
#include "kernels-common.cuh"

namespace {

struct PlaneArgs
{
  const uint8_t *data;
  size_t pitch;
  int row_bytes;
  int rows;
  int bpp;
  int segments;                 /* per row; 0: the plane is one run of units */
  int first_item;               /* of this plane in the launch's items */
  int items;                    /* of this plane */
  int units;                    /* one run of units: how many */
  int units_per_row;            /* one run of units: per row, at least 2 */
  int run_item_units;           /* one run of units: units an item, at most
                                 * a segment */
  uint64_t row_of_unit;         /* one run of units: ceil (2^64 / units_per_row) */
  int channel_of_sub[4];        /* sub-counter -> channel, -1: not counted */
};

struct LaunchArgs
{
  PlaneArgs plane[CF_HIST_MAX_PLANES];
  int n_planes;
  unsigned channels_used;       /* bit c: some plane counts into channel c */
  int items;                    /* of all planes */
  int shared_from;              /* items from here on are handed out as
                                 * warps ask (ItemQueue); items: none */
  /* false: the blocks add into the caller's zeroed sums and nobody
   * publishes (cf_hist_planes_add) */
  bool publish;
  uint32_t *zero_next;          /* words the launch zeroes, or null */
  int zero_words;
};

constexpr int kCounts = kChannels * kBins;

/* The workspace: counts being summed (kCopies copies, the last block
 * sums them), the item queues, and how many blocks are done. */
struct Workspace
{
  uint32_t counts[kCopies][kCounts];
  uint32_t queue_next[kQueues][32];
  uint32_t blocks_done;
};

/* The items a warp counts.  Those below `shared_from` are dealt out in
 * turn: warp g of the grid's W takes items g, g + W, g + 2W, ...  The
 * rest go to whichever warps ask first, so that the SMs whose loads come
 * back sooner count more of them and the blocks finish together (dealt
 * alone, the blocks of a large frame finish far apart).  Warp w of every block asks queue w, a counter that
 * hands out the shared items shared_from + w + kQueues * n, n counting
 * up, so that each counter serves one warp an SM.  A warp asks for its
 * next item once the current one's loads are out and reads the answer
 * after counting it.  A thread's atomics on one address take effect in
 * its order, so a warp's items only grow and its planes come in order. */
struct ItemQueue
{
  int item;                     /* the warp's current item; >= items: none */
  int stride;                   /* W */
  int shared_from, items;
  int queue;
  uint32_t *counter;            /* the queue's */
  uint32_t ticket;              /* lane 0: the queue's answer */
  bool asked;

  __device__ void start (const LaunchArgs & args, Workspace * ws)
  {
    const int warp = threadIdx.x >> 5;
    const int n_warps = blockDim.x >> 5;
    item = blockIdx.x * n_warps + warp;
    stride = gridDim.x * n_warps;
    shared_from = args.shared_from;
    items = args.items;
    queue = warp % kQueues;
    counter = &ws->queue_next[queue][0];
    ticket = 0;
    asked = false;
    if (item >= shared_from)
      item = items;
  }
  /* A dealt item's loads are out, and the warp's next dealt one would be
   * `next`: if that is past the dealt ones, ask for a shared one. */
  __device__ __forceinline__ void ask_after_dealt (int next, int lane)
  {
    asked = shared_from < items && next >= shared_from;
    if (asked && lane == 0)
      ticket = atomicAdd (counter, 1u);
  }
  /* a shared item's loads are out: ask for the next one */
  __device__ __forceinline__ void ask (int lane)
  {
    asked = true;
    if (lane == 0)
      ticket = atomicAdd (counter, 1u);
  }
  /* the current item is counted: the answer, if the warp asked, becomes
   * the current one */
  __device__ __forceinline__ void take_answer ()
  {
    if (!asked)
      return;
    asked = false;
    const uint32_t n = __shfl_sync (0xffffffffu, ticket, 0);
    const long long shared = shared_from + queue + (long long) kQueues * n;
    item = shared < items ? (int) shared : items;
  }
};

/* The counter word of value v sits at byte offset v * 128 (+ lane * 4) of
 * its lane's counters; byte K of a loaded word w gives that offset in a
 * shift and a mask. */
constexpr uint32_t kValueMask = 0xffu << 7;

template < int K > __device__ __forceinline__ uint32_t
value_offset (uint32_t w)
{
  uint32_t shifted = K == 0 ? w << 7 : w >> (8 * K - 7);
  return shifted & kValueMask;
}

/* The last block out publishes the counts and leaves zeros behind. */
__device__ __forceinline__ void
publish_counts (Workspace * __restrict__ ws, uint32_t * __restrict__ out)
{
  if (!cf_block_is_last (&ws->blocks_done))
    return;
  /* a bin's copies loaded together, from L2 (where the atomics are) */
#pragma unroll 2
  for (int b = threadIdx.x; b < kCounts; b += blockDim.x) {
    uint32_t count[kCopies];
#pragma unroll
    for (int c = 0; c < kCopies; c++)
      count[c] = __ldcg (&ws->counts[c][b]);
    uint32_t sum = 0;
#pragma unroll
    for (int c = 0; c < kCopies; c++) {
      sum += count[c];
      __stcg (&ws->counts[c][b], 0u);
    }
    out[b] = sum;
  }
  if (threadIdx.x < kQueues)
    __stcg (&ws->queue_next[threadIdx.x][0], 0u);
  if (threadIdx.x == 0)
    __stcg (&ws->blocks_done, 0u);
}

}                               /* namespace */

#endif
