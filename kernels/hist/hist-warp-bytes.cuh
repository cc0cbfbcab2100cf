/* WarpBytes: every warp has its own words [value][lane], each holding
 * four 8-bit counters, one per sub-counter s (the byte's position in the
 * row, modulo 4, or modulo 3 for 3-byte pixels), 32 KB a warp.  8-bit
 * counters fill up, so a warp empties them into its 32-bit per-channel
 * sub-histogram (4 KB more) before any could pass 255; at the end the
 * block sums its warps' sub-histograms into the workspace.
 * Dispatch (kernel_shape): GPUs where a block cannot have BlockWords'
 * 128 KB of shared memory (sm_75, sm_86, sm_89), or the layout forced by
 * cf_hist_set_layout (cudafilters-kernels-testing.h).
 * Tests: test_hist_warp_bytes_equals_reference. */
#ifndef CUDAFILTERS_HIST_WARP_BYTES_CUH
#define CUDAFILTERS_HIST_WARP_BYTES_CUH

#include "hist-segments.cuh"

namespace {

/* The most any 8-bit counter of a lane grows in one segment: its body units
 * (a quarter, or a third, of their bytes) plus a head and a tail byte or
 * two. */
template < int BPP > __host__ __device__ constexpr int
max_growth_per_segment ()
{
  return units_per_lane < Layout::kWarpBytes, BPP > () * unit_bytes < BPP > ()
      / (BPP == 3 ? 3 : 4) + 3;
}

struct WarpBytes
{
  static constexpr int kMaxWarps = kWarpBytesMaxWarps;
  /* per warp: 8-bit counters [value][lane], then its 32-bit sub-histogram */
  static constexpr int kCounterWords = kBins * 32;
  static constexpr int kWarpWords = kCounterWords + kChannels * kBins;

  uint32_t *counters;           /* this warp's */
  uint32_t *sub_hist;
  uint32_t lane4;
  int lane;
  int growth;
  bool cleared;
  const int *channel_of_sub;

  __device__ void clear ()
  {
    for (int i = lane; i < kWarpWords / 4; i += 32)
      reinterpret_cast < uint4 * >(counters)[i] = make_uint4 (0, 0, 0, 0);
    __syncwarp ();
    cleared = true;
  }

  /* Empties the warp's 8-bit counters into its sub-histogram.  Lane l
   * takes values l, l + 32, ...: it sums that value's 32 words (four 8-bit
   * counters each, as two pairs of 16-bit sums; 32 x 255 fits) and adds
   * each sub-counter's total to its channel.  The words are read as
   * 16-byte vectors, lane l starting at vector l % 8 of its row, so the
   * eight lanes of a quarter warp touch eight different bank groups.  The
   * counters are quiescent here (a warp flushes only its own), so plain
   * loads do; `zero` clears them for more counting. */
  __device__ void flush (bool zero)
  {
    __syncwarp ();
#pragma unroll 2
    for (int v = lane; v < kBins; v += 32) {
      uint4 *row = reinterpret_cast < uint4 * >(counters + v * 32);
      uint32_t even = 0, odd = 0;
#pragma unroll
      for (int j = 0; j < 8; j++) {
        uint4 q = row[(j + lane) & 7];
        even += (q.x & 0x00ff00ffu) + (q.y & 0x00ff00ffu) +
            (q.z & 0x00ff00ffu) + (q.w & 0x00ff00ffu);
        odd += ((q.x >> 8) & 0x00ff00ffu) + ((q.y >> 8) & 0x00ff00ffu) +
            ((q.z >> 8) & 0x00ff00ffu) + ((q.w >> 8) & 0x00ff00ffu);
      }
      if (zero) {
#pragma unroll
        for (int j = 0; j < 8; j++)
          row[(j + lane) & 7] = make_uint4 (0, 0, 0, 0);
      }
      const uint32_t sums[4] = { even & 0xffffu, odd & 0xffffu, even >> 16,
        odd >> 16
      };
#pragma unroll
      for (int s = 0; s < 4; s++) {
        if (channel_of_sub[s] >= 0 && sums[s])
          sub_hist[channel_of_sub[s] * kBins + v] += sums[s];
      }
    }
    __syncwarp ();
  }

  __device__ void begin_plane (const PlaneArgs & pl)
  {
    channel_of_sub = pl.channel_of_sub;
    growth = 0;
  }
  /* the counters are cleared while the first segments' loads are in
   * flight, and emptied before they could overflow */
  template < int BPP > __device__ __forceinline__ void before_segment ()
  {
    constexpr int GROWTH = max_growth_per_segment < BPP > ();
    if (!cleared)
      clear ();
    if (growth + GROWTH > 255) {
      flush (true);
      growth = 0;
    }
    growth += GROWTH;
  }
  __device__ __forceinline__ void add (int s, uint32_t offset)
  {
    atomicAdd (reinterpret_cast < uint32_t * >(reinterpret_cast < uint8_t *
            >(counters) + (offset | lane4)), 1u << (8 * s));
  }
  __device__ __forceinline__ void add_any (int s, uint32_t offset)
  {
    add (s, offset);
  }
  /* the next plane needs zeros; after the last nothing reads them */
  __device__ void end_plane (bool last_plane)
  {
    flush (!last_plane);
  }
};

template < bool RGB3 > __global__ void
hist_warp_bytes_kernel (LaunchArgs args, Workspace * __restrict__ ws,
    uint32_t * __restrict__ out)
{
  extern __shared__ uint32_t smem[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int n_warps = blockDim.x >> 5;

  cf_grid_zero_words (args.zero_next, args.zero_words);
  WarpBytes counters;
  counters.counters = smem + warp * WarpBytes::kWarpWords;
  counters.sub_hist = counters.counters + WarpBytes::kCounterWords;
  counters.lane = lane;
  counters.lane4 = 4 * lane;
  counters.cleared = false;
  count_planes < Layout::kWarpBytes, RGB3, false > (args, ws, lane,
      counters);
  /* a warp with nothing to count still adds its (zero) sub-histogram */
  if (!counters.cleared)
    counters.clear ();
  __syncthreads ();

  /* the block's sum of its warps, one atomic per non-zero bin (summing
   * all of a thread's bins before any atomic goes out, which Nsight
   * Compute suggested, helped small frames and slowed large ones) */
  for (int b = threadIdx.x; b < kChannels * kBins; b += blockDim.x) {
    uint32_t sum = 0;
    for (int w = 0; w < n_warps; w++)
      sum += smem[w * WarpBytes::kWarpWords + WarpBytes::kCounterWords + b];
    if (sum)
      atomicAdd (&ws->counts[blockIdx.x % kCopies][b], sum);
  }
  if (args.publish)
    publish_counts (ws, out);
}

}                               /* namespace */

#endif
