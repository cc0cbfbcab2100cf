/* BlockWords: one 32-bit counter [channel][value][lane] for the whole
 * block, 128 KB (160 KB with the skipped bytes' counters), shared by the
 * same lane of every warp, so that a block of 32 warps has them all and
 * hides the loads' latency.  No counter can overflow, so none is emptied
 * before the end, where the block sums its lanes and adds each bin to the
 * workspace.  hist_block_words_kernel<RGB3, SHARE>: SHARE for launches
 * with items handed out as warps ask (ItemQueue).
 * Dispatch (kernel_shape): a block can have that much shared memory
 * (sm_80, sm_90) and the layout is not forced to WarpBytes.
 * Tests: test_hist_equals_reference, test_hist_regions, test_hist_shapes. */
#ifndef CUDAFILTERS_HIST_BLOCK_WORDS_CUH
#define CUDAFILTERS_HIST_BLOCK_WORDS_CUH

#include "hist-segments.cuh"

namespace {

struct BlockWords
{
  static constexpr int kWarps = kBlockWordsWarps;
  static constexpr uint32_t kChannelBytes = kBins * 32 * 4;
  /* bytes of no counted channel (the x of RGBx) go to a fifth block of
   * counters that nobody reads */
  static constexpr int kSkipped = kChannels;

  uint8_t *counters;
  uint32_t lane4;
  /* a sub-counter's channel's words + lane4, as a byte offset into
   * `counters` whose bits (channel 15-17, lane 2-6) are apart from the
   * value's (7-14): a byte's counter is then `counters + (value_offset |
   * sub_offset[s])`, one LOP3 and an atomic with the counters' base in a
   * uniform register, where adding the value's offset to a pointer a
   * sub-counter takes one more instruction a byte */
  uint32_t sub_offset[4];
  unsigned channels_used;
  bool ready;                   /* counters zeroed, block past its barrier */

  /* Each warp zeroes its 32nd of the counters of the channels counted,
   * then waits for the others: the first time after its first loads are
   * issued, so that the zeroing hides under them (or at the end, for a
   * warp with nothing to count).  Warps arrive here from different places
   * (each count_plane, or the kernel's end), which __syncthreads (the
   * aligned bar.sync) does not allow: the barrier is the unaligned form,
   * which counts the threads wherever they arrive (compute-sanitizer's
   * synccheck reported the aligned one). */
  __device__ void get_ready ()
  {
    constexpr int kVectors = kChannels * kChannelBytes / 16;
    constexpr int kPerWarp = kVectors / kWarps;
    uint4 *v = reinterpret_cast < uint4 * >(counters);
    const int first = (threadIdx.x >> 5) * kPerWarp + (threadIdx.x & 31);
    for (int i = first; i < first + kPerWarp; i += 32) {
      if (channels_used >> (i / (kChannelBytes / 16)) & 1)
        v[i] = make_uint4 (0, 0, 0, 0);
    }
    asm volatile ("barrier.sync 0;":::"memory");
    ready = true;
  }

  __device__ void begin_plane (const PlaneArgs & pl)
  {
#pragma unroll
    for (int s = 0; s < 4; s++) {
      const int c = pl.channel_of_sub[s] < 0 ? kSkipped : pl.channel_of_sub[s];
      sub_offset[s] = c * kChannelBytes | lane4;
    }
  }
  template < int BPP > __device__ __forceinline__ void before_segment ()
  {
    if (!ready)
      get_ready ();
  }
  /* s is a constant once count_body's loops are unrolled */
  __device__ __forceinline__ void add (int s, uint32_t offset)
  {
    atomicAdd (reinterpret_cast < uint32_t * >(counters +
            (offset | sub_offset[s])), 1u);
  }
  __device__ __forceinline__ void add_any (int s, uint32_t offset)
  {
    const uint32_t sub = s == 0 ? sub_offset[0] : s == 1 ? sub_offset[1] :
        s == 2 ? sub_offset[2] : sub_offset[3];
    atomicAdd (reinterpret_cast < uint32_t * >(counters + (offset | sub)),
        1u);
  }
  __device__ void end_plane (bool last_plane)
  {
  }

  /* shared memory a block needs */
  static size_t smem_bytes (bool skips)
  {
    return (size_t) (kChannels + (skips ? 1 : 0)) * kChannelBytes;
  }
};

/* RGB3 (3-byte pixels) needs more registers than the others, so it has a
 * kernel of its own, in either layout.  SHARE: the launch has items that
 * warps ask for (ItemQueue, count_plane); never with RGB3. */
template < bool RGB3, bool SHARE > __global__ void
__launch_bounds__ (32 * BlockWords::kWarps, 1)
hist_block_words_kernel (LaunchArgs args, Workspace * __restrict__ ws,
    uint32_t * __restrict__ out)
{
  extern __shared__ uint4 smem4[];
  uint32_t *smem = reinterpret_cast < uint32_t * >(smem4);

  cf_grid_zero_words (args.zero_next, args.zero_words);
  BlockWords counters;
  counters.counters = reinterpret_cast < uint8_t * >(smem);
  counters.lane4 = 4 * (threadIdx.x & 31);
  counters.channels_used = args.channels_used;
  counters.ready = false;
  count_planes < Layout::kBlockWords, RGB3, SHARE > (args, ws,
      threadIdx.x & 31, counters);
  if (!counters.ready)
    counters.get_ready ();
  __syncthreads ();

  /* bin b = channel * 256 + value sums its 32 lanes' words as 8 vectors
   * of 16 bytes, thread b starting at vector b % 8 so that each quarter
   * of a warp reads 32 banks at once (every block's end waits on this,
   * and 16-byte reads take fewer round trips than 32 word reads) */
  for (int b = threadIdx.x; b < kChannels * kBins; b += blockDim.x) {
    if (!(args.channels_used >> (b / kBins) & 1))
      continue;
    const uint4 *row = smem4 + b * 8;
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) {
      const uint4 q = row[(j + b) & 7];
      sum += q.x + q.y + q.z + q.w;
    }
    if (sum)
      atomicAdd (&ws->counts[blockIdx.x % kCopies][b], sum);
  }
  if (args.publish)
    publish_counts (ws, out);
}

}                               /* namespace */

#endif
