/* Per-channel histograms: the atomic pattern.
 *
 * Shared-memory atomics are fast only without conflicts, and a histogram
 * of real video is full of them: on a solid colour every lane of a warp
 * adds to the same counter, and even random bytes put ~3.5 lanes on one
 * bank.  So each lane counts into counters of its own, laid out in its own
 * bank: word [value][lane] of its warp's block of shared memory holds four
 * 8-bit counters, one per sub-counter s (the byte's position in the row,
 * modulo 4, or modulo 3 for 3-byte pixels).  Every atomic of a warp then
 * hits 32 different banks whatever the data, and a solid frame costs what
 * a random one does.
 *
 * 8-bit counters fill up, so a warp empties them into its 32-bit
 * per-channel sub-histogram before any could pass 255: each lane sums one
 * value's word across the 32 lanes (reading them in a skewed order, again
 * one bank per lane).  At the end a block adds its warps' sub-histograms
 * into the global counts, one atomic per non-zero bin, and the last block
 * to finish copies the counts out and zeroes them for the next launch, so a
 * frame is one launch.
 *
 * A warp takes one segment at a time: up to 32 x units_per_lane() units of
 * 16 bytes (48 for 3-byte pixels, so that a unit holds whole pixels),
 * several per lane loaded before any is counted, to keep enough bytes in
 * flight.  A plane is cut row by row: a row's bytes up to the first
 * 16-byte boundary (the head) and after the last whole unit (the tail) one
 * per lane, the body in between in segments.  Where rows are short (NV12
 * 1080p: 120 units a row against a segment's 256) and whole aligned units,
 * the plane is instead one run of units numbered row after row, and a
 * segment spans rows (cut_plane).
 *
 * CPU reference: hist-reference.c, the same counts. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

namespace {

constexpr int kBins = CF_HIST_BINS;
constexpr int kChannels = CF_HIST_MAX_CHANNELS;
/* per warp: 8-bit counters [value][lane], then its 32-bit sub-histogram */
constexpr int kCounterWords = kBins * 32;
constexpr int kWarpWords = kCounterWords + kChannels * kBins;
constexpr int kMaxWarps = 8;

/* body units each lane loads before counting them */
template < int BPP > __host__ __device__ constexpr int
units_per_lane ()
{
  return BPP == 3 ? 3 : 8;
}

template < int BPP > __host__ __device__ constexpr int
unit_bytes ()
{
  return BPP == 3 ? 48 : 16;
}

/* The most any 8-bit counter of a lane grows in one segment: its body units
 * (a quarter, or a third, of their bytes) plus a head and a tail byte or
 * two. */
template < int BPP > __host__ __device__ constexpr int
max_growth_per_segment ()
{
  return units_per_lane < BPP > () * unit_bytes < BPP > () / (BPP == 3 ? 3 : 4)
      + 3;
}

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
  uint64_t row_of_unit;         /* one run of units: ceil (2^64 / units_per_row) */
  int channel_of_sub[4];        /* sub-counter -> channel, -1: not counted */
};

struct LaunchArgs
{
  PlaneArgs plane[CF_HIST_MAX_PLANES];
  int n_planes;
};

/* The workspace: counts being summed, and how many blocks are done. */
struct Workspace
{
  uint32_t counts[kChannels * kBins];
  uint32_t blocks_done;
};

/* A lane's counter word for value v sits at byte offset v * 128 + lane * 4
 * of its warp's counters: two disjoint bit fields, so the offset of a byte
 * taken from a loaded word is one shift and one LOP3 ((x & mask) | lane4),
 * and the atomic adds the warp's base. */
constexpr uint32_t kValueMask = 0xffu << 7;

/* the offset of the counter word of byte K of w */
template < int K > __device__ __forceinline__ uint32_t
byte_offset (uint32_t w, uint32_t lane4)
{
  uint32_t shifted = K == 0 ? w << 7 : w >> (8 * K - 7);
  return (shifted & kValueMask) | lane4;
}

__device__ __forceinline__ void
count_at (uint8_t * warp_counters, uint32_t offset, int sub)
{
  atomicAdd (reinterpret_cast < uint32_t * >(warp_counters + offset),
      1u << (8 * sub));
}

/* Empties the warp's 8-bit counters into its sub-histogram.  Lane l takes
 * values l, l + 32, ...: it sums that value's 32 words (four 8-bit counters
 * each, as two pairs of 16-bit sums; 32 x 255 fits) and adds each
 * sub-counter's total to its channel.  The words are read as 16-byte
 * vectors, lane l starting at vector l % 8 of its row, so the eight lanes
 * of a quarter warp touch eight different bank groups.  The counters are
 * quiescent here (a warp flushes only its own), so plain loads do; `zero`
 * clears them for more counting. */
__device__ void
flush_counters (uint32_t * counters, uint32_t * sub_hist, int lane,
    const int (&channel_of_sub)[4], bool zero)
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

/* What a warp counts of one item: a segment, units [u0, u1) of 16 (or 48)
 * bytes.  Of a row: from `body`, which is 16-byte aligned at row byte
 * index `head`.  Of a run: unit u is unit u % units_per_row of row
 * u / units_per_row from `body`, the plane's first byte. */
struct Segment
{
  const uint8_t *row;
  const uint8_t *body;
  int head;                     /* bytes before the body */
  int tail_from;                /* the row's bytes after the last unit */
  int u0, u1;
  bool first, last;             /* of its row: counts head / tail bytes */
};

template < int BPP, bool RUN > __device__ __forceinline__ Segment
segment_of (const PlaneArgs & pl, int item)
{
  constexpr int UNIT = unit_bytes < BPP > ();
  constexpr int SEGMENT_UNITS = 32 * units_per_lane < BPP > ();
  Segment s;
  int local = item - pl.first_item;
  if constexpr (RUN) {
    s.row = s.body = pl.data;
    s.head = s.tail_from = 0;
    s.u0 = local * SEGMENT_UNITS;
    s.u1 = min (pl.units, s.u0 + SEGMENT_UNITS);
    s.first = s.last = false;
    return s;
  }
  int y = local / pl.segments;
  int seg = local - y * pl.segments;
  s.row = pl.data + (size_t) y * pl.pitch;
  s.head = (int) ((16 - ((uintptr_t) s.row & 15)) & 15);
  if (s.head > pl.row_bytes)
    s.head = pl.row_bytes;
  int units = (pl.row_bytes - s.head) / UNIT;
  s.body = s.row + s.head;
  s.tail_from = s.head + units * UNIT;
  s.u0 = seg * SEGMENT_UNITS;
  s.u1 = min (units, s.u0 + SEGMENT_UNITS);
  s.first = seg == 0;
  s.last = seg == pl.segments - 1;
  return s;
}

template < int BPP > using BodyWords =
    uint32_t[units_per_lane < BPP > ()][unit_bytes < BPP > () / 4];

template < int BPP > __device__ __forceinline__ void
load_unit (const uint8_t * p, uint32_t (&w)[unit_bytes < BPP > () / 4])
{
  const uint4 *v = reinterpret_cast < const uint4 * >(p);
#pragma unroll
  for (int j = 0; j < unit_bytes < BPP > () / 16; j++) {
    uint4 q = __ldg (v + j);
    w[4 * j + 0] = q.x;
    w[4 * j + 1] = q.y;
    w[4 * j + 2] = q.z;
    w[4 * j + 3] = q.w;
  }
}

/* Issues a segment's body loads (lane l: units u0 + l, u0 + l + 32, ...);
 * nothing waits for them until the words are counted. */
template < int BPP, bool RUN > __device__ __forceinline__ void
load_body (const PlaneArgs & pl, const Segment & s, int lane,
    BodyWords < BPP > &words)
{
  constexpr int U = units_per_lane < BPP > ();
  constexpr size_t UNIT = unit_bytes < BPP > ();
  if constexpr (!RUN) {
    /* one row: the units at fixed offsets, no arithmetic per unit */
#pragma unroll
    for (int i = 0; i < U; i++) {
      const int u = s.u0 + lane + 32 * i;
      if (u < s.u1)
        load_unit < BPP > (s.body + u * UNIT, words[i]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < U; i++) {
      const int u = s.u0 + lane + 32 * i;
      if (u < s.u1) {
        /* exact for any u < 2^31: the rounding up of row_of_unit adds
         * less than 1 / units_per_row to the quotient */
        const int y = (int) __umul64hi ((uint64_t) u, pl.row_of_unit);
        const int x = u - y * pl.units_per_row;
        load_unit < BPP > (s.body + (size_t) y * pl.pitch + x * UNIT,
            words[i]);
      }
    }
  }
}

/* Counts loaded body words; Q = head % 4 (or % 3) gives each byte's
 * sub-counter. */
template < int BPP, int Q > __device__ __forceinline__ void
count_body (const Segment & s, int lane, uint8_t * warp_counters,
    const BodyWords < BPP > &words)
{
  constexpr int U = units_per_lane < BPP > ();
  constexpr int WORDS = unit_bytes < BPP > () / 4;
  constexpr int M = BPP == 3 ? 3 : 4;
  const uint32_t lane4 = 4 * lane;
#pragma unroll
  for (int i = 0; i < U; i++) {
    if (s.u0 + lane + 32 * i < s.u1) {
#pragma unroll
      for (int k = 0; k < WORDS; k++) {
        const uint32_t w = words[i][k];
        count_at (warp_counters, byte_offset < 0 > (w, lane4), (Q + 4 * k) % M);
        count_at (warp_counters, byte_offset < 1 > (w, lane4),
            (Q + 4 * k + 1) % M);
        count_at (warp_counters, byte_offset < 2 > (w, lane4),
            (Q + 4 * k + 2) % M);
        count_at (warp_counters, byte_offset < 3 > (w, lane4),
            (Q + 4 * k + 3) % M);
      }
    }
  }
}

/* Head and tail bytes [from, to) of a row, one per lane. */
template < int BPP > __device__ __forceinline__ void
count_bytes (const uint8_t * row, int from, int to, int lane,
    uint8_t * warp_counters)
{
  for (int i = from + lane; i < to; i += 32)
    count_at (warp_counters, (uint32_t) row[i] << 7 | 4 * lane,
        BPP == 3 ? i % 3 : i & 3);
}

/* Counts a segment whose body words are loaded. */
template < int BPP, bool RUN > __device__ __forceinline__ void
count_segment (const Segment & s, const PlaneArgs & pl, int lane,
    uint8_t * warp_counters, const BodyWords < BPP > &words)
{
  if constexpr (RUN) {
    /* aligned rows of whole units: no head, no tail */
    count_body < BPP, 0 > (s, lane, warp_counters, words);
    return;
  }
  if (s.first)
    count_bytes < BPP > (s.row, 0, s.head, lane, warp_counters);
  if (s.u0 < s.u1) {
    /* warp-uniform: the whole warp works on one row */
    switch (BPP == 3 ? s.head % 3 : s.head & 3) {
      case 0:
        count_body < BPP, 0 > (s, lane, warp_counters, words);
        break;
      case 1:
        count_body < BPP, 1 > (s, lane, warp_counters, words);
        break;
      case 2:
        count_body < BPP, 2 > (s, lane, warp_counters, words);
        break;
      default:
        if constexpr (BPP != 3)
          count_body < BPP, 3 > (s, lane, warp_counters, words);
        break;
    }
  }
  if (s.last)
    count_bytes < BPP > (s.row, s.tail_from, pl.row_bytes, lane,
        warp_counters);
}

/* A warp clears its own counters and sub-histogram: no block barrier, so
 * it starts counting as soon as it is done. */
__device__ __forceinline__ void
clear_warp_words (uint32_t * counters, int lane)
{
  for (int i = lane; i < kWarpWords / 4; i += 32)
    reinterpret_cast < uint4 * >(counters)[i] = make_uint4 (0, 0, 0, 0);
  __syncwarp ();
}

/* This warp's items of one plane, from `item` on.  The next item's loads
 * are issued before the current item is counted, so a warp's memory
 * requests stay in flight while it counts; its words move over when they
 * have arrived, by then long since.  RUN: the plane is one run of units
 * (cut_plane); the two ways have code of their own, as sharing it made
 * the rows' way 6-9% slower on the H100. */
template < int BPP, bool RUN > __device__ void
count_plane (const PlaneArgs & pl, int plane_end, int &item, int item_stride,
    int lane, uint32_t * counters, uint32_t * sub_hist, bool last_plane,
    bool &cleared)
{
  constexpr int GROWTH = max_growth_per_segment < BPP > ();
  uint8_t *warp_counters = reinterpret_cast < uint8_t * >(counters);
  int growth = 0;
  BodyWords < BPP > words, next_words;

  if (item < plane_end) {
    Segment s = segment_of < BPP, RUN > (pl, item);
    load_body < BPP, RUN > (pl, s, lane, words);
    /* the counters are cleared while the first loads are in flight */
    if (!cleared) {
      clear_warp_words (counters, lane);
      cleared = true;
    }
    for (;;) {
      item += item_stride;
      const bool more = item < plane_end;
      Segment next = s;
      if (more) {
        next = segment_of < BPP, RUN > (pl, item);
        load_body < BPP, RUN > (pl, next, lane, next_words);
      }
      if (growth + GROWTH > 255) {
        flush_counters (counters, sub_hist, lane, pl.channel_of_sub, true);
        growth = 0;
      }
      growth += GROWTH;
      count_segment < BPP, RUN > (s, pl, lane, warp_counters, words);
      if (!more)
        break;
      s = next;
#pragma unroll
      for (int i = 0; i < units_per_lane < BPP > (); i++)
#pragma unroll
        for (int j = 0; j < unit_bytes < BPP > () / 4; j++)
          words[i][j] = next_words[i][j];
    }
  }
  /* the next plane needs zeros; after the last nothing reads them */
  flush_counters (counters, sub_hist, lane, pl.channel_of_sub, !last_plane);
}

/* The kernel for 3-byte pixels has no runs (see cut_plane). */
template < int BPP, bool RUNS > __device__ __forceinline__ void
count_plane_as (bool run, const PlaneArgs & pl, int plane_end, int &item,
    int item_stride, int lane, uint32_t * counters, uint32_t * sub_hist,
    bool last_plane, bool &cleared)
{
  if (RUNS && run)
    count_plane < BPP, RUNS > (pl, plane_end, item, item_stride, lane,
        counters, sub_hist, last_plane, cleared);
  else
    count_plane < BPP, false > (pl, plane_end, item, item_stride, lane,
        counters, sub_hist, last_plane, cleared);
}

/* RGB3 (3-byte pixels) needs more registers than the others, so it has a
 * kernel of its own. */
template < bool RGB3 > __global__ void
hist_kernel (LaunchArgs args, Workspace * __restrict__ ws,
    uint32_t * __restrict__ out)
{
  extern __shared__ uint32_t smem[];
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int n_warps = blockDim.x >> 5;
  uint32_t *counters = smem + warp * kWarpWords;
  uint32_t *sub_hist = counters + kCounterWords;

  bool cleared = false;
  int item = blockIdx.x * n_warps + warp;
  const int item_stride = gridDim.x * n_warps;
  for (int p = 0; p < args.n_planes; p++) {
    const PlaneArgs & pl = args.plane[p];
    int end = pl.first_item + pl.items;
    if (item >= end)
      continue;
    const bool last_plane = p == args.n_planes - 1;
    const bool run = pl.segments == 0;
    switch (pl.bpp) {
      case 1:
        count_plane_as < 1, !RGB3 > (run, pl, end, item, item_stride, lane,
            counters, sub_hist, last_plane, cleared);
        break;
      case 2:
        count_plane_as < 2, !RGB3 > (run, pl, end, item, item_stride, lane,
            counters, sub_hist, last_plane, cleared);
        break;
      case 3:
        if constexpr (RGB3)
          count_plane_as < 3, !RGB3 > (run, pl, end, item, item_stride, lane,
              counters, sub_hist, last_plane, cleared);
        break;
      default:
        count_plane_as < 4, !RGB3 > (run, pl, end, item, item_stride, lane,
            counters, sub_hist, last_plane, cleared);
        break;
    }
  }
  /* a warp with nothing to count still adds its (zero) sub-histogram */
  if (!cleared)
    clear_warp_words (counters, lane);
  __syncthreads ();

  /* the block's sum of its warps, one atomic per non-zero bin (summing
   * all of a thread's bins before any atomic goes out, which Nsight
   * Compute suggested, was faster at 720p and slower at 4K and 8K) */
  for (int b = threadIdx.x; b < kChannels * kBins; b += blockDim.x) {
    uint32_t sum = 0;
    for (int w = 0; w < n_warps; w++)
      sum += smem[w * kWarpWords + kCounterWords + b];
    if (sum)
      atomicAdd (&ws->counts[b], sum);
  }
  constexpr int kCounts = kChannels * kBins;

  /* The last block out publishes the counts and leaves zeros behind. */
  if (!cf_block_is_last (&ws->blocks_done))
    return;
  /* every load before any store, from L2 (where the atomics are): one
   * round trip for the whole copy, not one per bin */
  constexpr int kLoads = 8;
  for (int base = threadIdx.x; base < kCounts; base += kLoads * blockDim.x) {
    uint32_t count[kLoads];
#pragma unroll
    for (int j = 0; j < kLoads; j++) {
      const int b = base + j * blockDim.x;
      count[j] = b < kCounts ? __ldcg (&ws->counts[b]) : 0u;
    }
#pragma unroll
    for (int j = 0; j < kLoads; j++) {
      const int b = base + j * blockDim.x;
      if (b < kCounts) {
        out[b] = count[j];
        __stcg (&ws->counts[b], 0u);
      }
    }
  }
  if (threadIdx.x == 0)
    __stcg (&ws->blocks_done, 0u);
}

/* Warps per block (as many as shared memory holds, one block per SM) and
 * blocks, per device and kernel. */
struct Shape
{
  int warps, blocks;
};

template < bool RGB3 > cudaError_t
kernel_shape (Shape * shape)
{
  static Shape cached[64];
  int dev = 0, smem = 0, sms = 0;
  cudaError_t err;

  if ((err = cudaGetDevice (&dev)) != cudaSuccess)
    return err;
  if (dev >= 0 && dev < 64 && cached[dev].warps) {
    *shape = cached[dev];
    return cudaSuccess;
  }
  if ((err = cudaDeviceGetAttribute (&smem,
              cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess
      || (err = cudaDeviceGetAttribute (&sms,
              cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
    return err;
  /* what static shared memory and the system take per block */
  smem -= 1024 + 16;
  shape->warps = smem / (int) (kWarpWords * sizeof (uint32_t));
  if (shape->warps > kMaxWarps)
    shape->warps = kMaxWarps;
  if (shape->warps < 1)
    return cudaErrorInvalidConfiguration;
  shape->blocks = sms;
  if ((err = cudaFuncSetAttribute (hist_kernel < RGB3 >,
              cudaFuncAttributeMaxDynamicSharedMemorySize,
              shape->warps * kWarpWords * (int) sizeof (uint32_t)))
      != cudaSuccess)
    return err;
  if (dev >= 0 && dev < 64)
    cached[dev] = *shape;
  return cudaSuccess;
}

/* Cuts a plane into items and returns how many: segments of rows, or, if
 * `runs`, one run of units where every row is whole aligned units and that
 * at least halves the items.  A run costs a division per unit for its
 * address, where a row's units are at fixed offsets: on the H100 runs
 * made 4K and 8K RGBA 13% and 10% slower, and NV12 1080p, whose rows are
 * under half a segment, 29% faster (docs/notes.md).  The kernel that
 * counts 3-byte pixels has no runs: their code made it 20% slower. */
template < int BPP > long long
cut_plane (PlaneArgs * pl, bool runs)
{
  constexpr long long UNIT = unit_bytes < BPP > ();
  constexpr long long SEGMENT_UNITS = 32 * units_per_lane < BPP > ();
  const long long units_per_row = pl->row_bytes / UNIT;
  const long long units = units_per_row * pl->rows;
  const long long run_items = (units + SEGMENT_UNITS - 1) / SEGMENT_UNITS;
  pl->segments = units_per_row > SEGMENT_UNITS ?
      (int) ((units_per_row + SEGMENT_UNITS - 1) / SEGMENT_UNITS) : 1;
  const long long row_items = (long long) pl->segments * pl->rows;
  pl->units = 0;
  pl->units_per_row = 1;
  pl->row_of_unit = 0;
  if (runs && pl->row_bytes % UNIT == 0 && units_per_row >= 2
      && units <= INT32_MAX - SEGMENT_UNITS
      && ((uintptr_t) pl->data & 15) == 0
      && pl->pitch % 16 == 0
      && 2 * run_items <= row_items) {
    pl->segments = 0;
    pl->units = (int) units;
    pl->units_per_row = (int) units_per_row;
    pl->row_of_unit = UINT64_MAX / (uint64_t) units_per_row + 1;
    return run_items;
  }
  return row_items;
}

}                               /* namespace */

extern "C" size_t
cf_hist_workspace_bytes (void)
{
  return sizeof (Workspace);
}

extern "C" CfError
cf_hist_workspace_init (void *workspace, CfStream stream)
{
  cf_forget_earlier_errors ();
  return cudaMemsetAsync (workspace, 0, sizeof (Workspace), stream);
}

extern "C" CfError
cf_hist_planes (const CfSamplePlane * planes, int n_planes, uint32_t * counts,
    void *workspace, CfStream stream)
{
  LaunchArgs args = { };
  long long items = 0;
  bool rgb3 = false;

  if (n_planes < 0 || n_planes > CF_HIST_MAX_PLANES || !counts || !workspace
      || (n_planes > 0 && !planes))
    return cudaErrorInvalidValue;
  for (int p = 0; p < n_planes; p++)
    rgb3 |= planes[p].bytes_per_pixel == 3;
  for (int p = 0; p < n_planes; p++) {
    const CfSamplePlane *in = &planes[p];
    PlaneArgs *pl = &args.plane[args.n_planes];
    int bpp = in->bytes_per_pixel;
    long long row_bytes = (long long) in->width * bpp;
    if (bpp < 1 || bpp > 4 || in->width < 0 || in->height < 0
        || row_bytes > INT32_MAX
        || (in->height > 1 && in->pitch < (size_t) row_bytes))
      return cudaErrorInvalidValue;
    for (int b = 0; b < 4; b++) {
      if (in->channel[b] >= CF_HIST_MAX_CHANNELS)
        return cudaErrorInvalidValue;
    }
    if (row_bytes == 0 || in->height == 0)
      continue;
    if (!in->data)
      return cudaErrorInvalidValue;
    pl->data = (const uint8_t *) in->data;
    pl->pitch = in->pitch;
    pl->row_bytes = (int) row_bytes;
    pl->rows = in->height;
    pl->bpp = bpp;
    long long plane_items;
    switch (bpp) {
      case 1:
        plane_items = cut_plane < 1 > (pl, !rgb3);
        break;
      case 2:
        plane_items = cut_plane < 2 > (pl, !rgb3);
        break;
      case 3:
        plane_items = cut_plane < 3 > (pl, !rgb3);
        break;
      default:
        plane_items = cut_plane < 4 > (pl, !rgb3);
        break;
    }
    pl->first_item = (int) items;
    /* sub-counter s counts the bytes at row index i with i % 4 == s (i % 3
     * for 3-byte pixels): their channel is that of byte s % bpp */
    for (int s = 0; s < 4; s++)
      pl->channel_of_sub[s] = bpp == 3 ? (s < 3 ? in->channel[s] : -1) :
          in->channel[s % bpp];
    items += plane_items;
    if (items > INT32_MAX / 2)
      return cudaErrorInvalidValue;
    pl->items = (int) plane_items;
    args.n_planes++;
  }

  Shape shape;
  cudaError_t err;
  cf_forget_earlier_errors ();
  err = rgb3 ? kernel_shape < true > (&shape) : kernel_shape < false > (&shape);
  if (err != cudaSuccess)
    return err;
  /* one block per SM at most; an empty region still needs one block to
   * publish its zeros */
  long long blocks = (items + shape.warps - 1) / shape.warps;
  if (blocks > shape.blocks)
    blocks = shape.blocks;
  if (blocks < 1)
    blocks = 1;
  size_t smem = (size_t) shape.warps * kWarpWords * sizeof (uint32_t);
  if (rgb3)
    hist_kernel < true > <<< (int) blocks, 32 * shape.warps, smem, stream >>>
        (args, (Workspace *) workspace, counts);
  else
    hist_kernel < false > <<< (int) blocks, 32 * shape.warps, smem, stream >>>
        (args, (Workspace *) workspace, counts);
  return cudaGetLastError ();
}
