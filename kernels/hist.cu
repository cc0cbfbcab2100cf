/* Per-channel histograms: the atomic pattern.
 *
 * Every warp counts into its own 4 x 256 sub-histogram in shared memory
 * (privatised per warp, so warps never contend), and a block adds its
 * sub-histograms into the global counts with one atomic per non-zero bin.
 * The last block to finish copies the counts out and zeroes them for the
 * next launch, so a frame is one launch, with no memset before it.
 *
 * A warp takes one segment of a row at a time: the row's bytes up to the
 * first 16-byte boundary (the head) and after the last whole unit (the tail)
 * are read one byte per lane; the body in between in 16-byte vectors (48
 * for 3-byte pixels, so that a unit holds whole pixels), several per lane
 * before counting, to keep loads in flight.  The byte's position within its
 * pixel (its channel) is then a compile-time constant in the body.
 *
 * Solid colour is the worst case for atomics: all 32 lanes of a warp add to
 * the same word, which the hardware serialises.  So each lane keeps, per
 * byte position, the run of equal values it is counting and adds the run's
 * length when the value changes: on a solid frame a lane adds once per
 * channel at the very end, on random data once per byte, as a plain
 * histogram would.  CPU reference: hist-reference.c, the same counts. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kBins = CF_HIST_BINS;
constexpr int kChannels = CF_HIST_MAX_CHANNELS;
/* body units each lane loads before counting them */
constexpr int kUnitsPerLane = 4;
constexpr int kSegmentUnits = 32 * kUnitsPerLane;

struct PlaneArgs
{
  const uint8_t *data;
  size_t pitch;
  int row_bytes;
  int rows;
  int bpp;
  int segments;                 /* per row */
  int first_item;               /* of this plane in the launch's item space */
  int channel[4];               /* per byte position; -1: not counted */
};

struct LaunchArgs
{
  PlaneArgs plane[CF_HIST_MAX_PLANES];
  int n_planes;
  int n_items;
};

/* The workspace: counts being summed, and how many blocks are done. */
struct Workspace
{
  uint32_t counts[kChannels * kBins];
  uint32_t blocks_done;
};

/* A lane's run of equal values at one byte position of the pixel. */
struct Run
{
  uint32_t value;
  uint32_t length;
};

__device__ __forceinline__ void
run_flush (Run & run, uint32_t * hist)
{
  if (hist && run.length)
    atomicAdd (&hist[run.value], run.length);
  run.length = 0;
}

__device__ __forceinline__ void
run_add (Run & run, uint32_t value, uint32_t * hist)
{
  if (value != run.value) {
    run_flush (run, hist);
    run.value = value;
  }
  run.length++;
}

/* Counts one body unit: UNIT_BYTES bytes starting at pixel byte position P. */
template < int BPP, int P, int UNIT_WORDS > __device__ __forceinline__ void
count_unit (const uint32_t (&words)[UNIT_WORDS], Run (&runs)[BPP],
    uint32_t * const (&hist)[BPP])
{
#pragma unroll
  for (int k = 0; k < UNIT_WORDS * 4; k++) {
    const int pos = (P + k) % BPP;
    uint32_t value = (words[k >> 2] >> (8 * (k & 3))) & 0xffu;
    run_add (runs[pos], value, hist[pos]);
  }
}

/* The body of one segment: units [u0, u1) of a row whose body starts at
 * `body` (16-byte aligned) with pixel byte position P. */
template < int BPP, int P > __device__ __forceinline__ void
count_body (const uint8_t * __restrict__ body, int u0, int u1, int lane,
    Run (&runs)[BPP], uint32_t * const (&hist)[BPP])
{
  constexpr int UNIT_WORDS = BPP == 3 ? 12 : 4;
  uint32_t words[kUnitsPerLane][UNIT_WORDS];
  bool have[kUnitsPerLane];

#pragma unroll
  for (int i = 0; i < kUnitsPerLane; i++) {
    int u = u0 + lane + 32 * i;
    have[i] = u < u1;
    if (have[i]) {
      const uint4 *v =
          reinterpret_cast < const uint4 * >(body + (size_t) u * UNIT_WORDS * 4);
#pragma unroll
      for (int j = 0; j < UNIT_WORDS / 4; j++) {
        uint4 q = __ldg (v + j);
        words[i][4 * j + 0] = q.x;
        words[i][4 * j + 1] = q.y;
        words[i][4 * j + 2] = q.z;
        words[i][4 * j + 3] = q.w;
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kUnitsPerLane; i++) {
    if (have[i])
      count_unit < BPP, P, UNIT_WORDS > (words[i], runs, hist);
  }
}

template < int BPP > __device__ void
count_body_at (int phase, const uint8_t * body, int u0, int u1, int lane,
    Run (&runs)[BPP], uint32_t * const (&hist)[BPP])
{
  /* warp-uniform: the whole warp works on one row */
  switch (phase) {
    case 0:
      count_body < BPP, 0 > (body, u0, u1, lane, runs, hist);
      break;
    case 1:
      if constexpr (BPP > 1)
        count_body < BPP, 1 % BPP > (body, u0, u1, lane, runs, hist);
      break;
    case 2:
      if constexpr (BPP > 2)
        count_body < BPP, 2 % BPP > (body, u0, u1, lane, runs, hist);
      break;
    default:
      if constexpr (BPP > 3)
        count_body < BPP, 3 % BPP > (body, u0, u1, lane, runs, hist);
      break;
  }
}

/* Head and tail bytes: one per lane, straight into the sub-histogram. */
__device__ __forceinline__ void
count_bytes (const uint8_t * row, int from, int to, int lane, int bpp,
    uint32_t * warp_hist, const int (&channel)[4])
{
  for (int i = from + lane; i < to; i += 32) {
    int c = channel[i % bpp];
    if (c >= 0)
      atomicAdd (&warp_hist[c * kBins + row[i]], 1u);
  }
}

template < int BPP > __device__ void
count_items (const PlaneArgs & pl, int plane_item_end, int &item,
    int item_stride, int lane, uint32_t * warp_hist)
{
  constexpr int UNIT = BPP == 3 ? 48 : 16;
  uint32_t *hist[BPP];
  Run runs[BPP];

#pragma unroll
  for (int p = 0; p < BPP; p++) {
    hist[p] = pl.channel[p] >= 0 ? warp_hist + pl.channel[p] * kBins : nullptr;
    runs[p].value = 0;
    runs[p].length = 0;
  }

  for (; item < plane_item_end; item += item_stride) {
    int local = item - pl.first_item;
    int y = local / pl.segments;
    int seg = local - y * pl.segments;
    const uint8_t *row = pl.data + (size_t) y * pl.pitch;
    int head = (int) ((16 - ((uintptr_t) row & 15)) & 15);
    if (head > pl.row_bytes)
      head = pl.row_bytes;
    int units = (pl.row_bytes - head) / UNIT;
    int body_end = head + units * UNIT;
    int u0 = seg * kSegmentUnits;
    int u1 = min (units, u0 + kSegmentUnits);

    if (seg == 0)
      count_bytes (row, 0, head, lane, BPP, warp_hist, pl.channel);
    if (u0 < u1)
      count_body_at < BPP > (head % BPP, row + head, u0, u1, lane, runs, hist);
    if (seg == pl.segments - 1)
      count_bytes (row, body_end, pl.row_bytes, lane, BPP, warp_hist,
          pl.channel);
  }

#pragma unroll
  for (int p = 0; p < BPP; p++)
    run_flush (runs[p], hist[p]);
}

/* RGB3 (3-byte pixels) needs 48-byte units and three times the registers
 * of the others, so it has a kernel of its own: the others then keep more
 * warps resident. */
template < bool RGB3 > __global__ void __launch_bounds__ (kThreads)
hist_kernel (LaunchArgs args, Workspace * __restrict__ ws,
    uint32_t * __restrict__ out)
{
  __shared__ uint32_t sub[kWarps][kChannels * kBins];
  __shared__ bool last_block;
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;

  for (int i = threadIdx.x; i < kWarps * kChannels * kBins; i += kThreads)
    (&sub[0][0])[i] = 0;
  __syncthreads ();

  int item = blockIdx.x * kWarps + warp;
  const int item_stride = gridDim.x * kWarps;
  for (int p = 0; p < args.n_planes; p++) {
    const PlaneArgs & pl = args.plane[p];
    int end = pl.first_item + pl.rows * pl.segments;
    if (item >= end)
      continue;
    switch (pl.bpp) {
      case 1:
        count_items < 1 > (pl, end, item, item_stride, lane, sub[warp]);
        break;
      case 2:
        count_items < 2 > (pl, end, item, item_stride, lane, sub[warp]);
        break;
      case 3:
        if constexpr (RGB3)
          count_items < 3 > (pl, end, item, item_stride, lane, sub[warp]);
        break;
      default:
        count_items < 4 > (pl, end, item, item_stride, lane, sub[warp]);
        break;
    }
  }
  __syncthreads ();

  /* the block's sum of its warps, one atomic per non-zero bin */
  for (int b = threadIdx.x; b < kChannels * kBins; b += kThreads) {
    uint32_t sum = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++)
      sum += sub[w][b];
    if (sum)
      atomicAdd (&ws->counts[b], sum);
  }

  /* the last block out publishes the counts and leaves zeros behind */
  __threadfence ();
  __syncthreads ();
  if (threadIdx.x == 0)
    last_block = atomicAdd (&ws->blocks_done, 1u) == gridDim.x - 1;
  __syncthreads ();
  if (!last_block)
    return;
  __threadfence ();
  for (int b = threadIdx.x; b < kChannels * kBins; b += kThreads) {
    volatile uint32_t *counts = ws->counts;
    out[b] = counts[b];
    counts[b] = 0;
  }
  if (threadIdx.x == 0)
    ws->blocks_done = 0;
}

/* Blocks of a kernel that fit on the whole GPU at once, per device. */
template < bool RGB3 > int
resident_blocks ()
{
  static int cached[64];
  int dev = 0;
  if (cudaGetDevice (&dev) != cudaSuccess || dev < 0 || dev >= 64)
    return 1;
  if (!cached[dev]) {
    int n = 0, sms = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&n,
            hist_kernel < RGB3 >, kThreads, 0) != cudaSuccess || n < 1)
      n = 1;
    if (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
            dev) != cudaSuccess || sms < 1)
      sms = 1;
    cached[dev] = n * sms;
  }
  return cached[dev];
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

  if (n_planes < 0 || n_planes > CF_HIST_MAX_PLANES || !counts || !workspace)
    return cudaErrorInvalidValue;
  for (int p = 0; p < n_planes; p++) {
    const CfSamplePlane *in = &planes[p];
    PlaneArgs *pl = &args.plane[args.n_planes];
    long long row_bytes = (long long) in->width * in->bytes_per_pixel;
    if (in->bytes_per_pixel < 1 || in->bytes_per_pixel > 4 || in->width < 0
        || in->height < 0 || row_bytes > INT32_MAX
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
    int unit = in->bytes_per_pixel == 3 ? 48 : 16;
    rgb3 |= in->bytes_per_pixel == 3;
    long long units = row_bytes / unit;
    pl->data = (const uint8_t *) in->data;
    pl->pitch = in->pitch;
    pl->row_bytes = (int) row_bytes;
    pl->rows = in->height;
    pl->bpp = in->bytes_per_pixel;
    pl->segments = units > kSegmentUnits ?
        (int) ((units + kSegmentUnits - 1) / kSegmentUnits) : 1;
    pl->first_item = (int) items;
    for (int b = 0; b < 4; b++)
      pl->channel[b] = b < in->bytes_per_pixel ? in->channel[b] : -1;
    items += (long long) pl->segments * in->height;
    if (items > INT32_MAX / 2)
      return cudaErrorInvalidValue;
    args.n_planes++;
  }
  args.n_items = (int) items;

  /* one resident wave at most; an empty region still needs a block to
   * publish its zeros */
  long long blocks = (items + kWarps - 1) / kWarps;
  long long resident = rgb3 ? resident_blocks < true > () :
      resident_blocks < false > ();
  if (blocks > resident)
    blocks = resident;
  if (blocks < 1)
    blocks = 1;
  cf_forget_earlier_errors ();
  if (rgb3)
    hist_kernel < true > <<< (int) blocks, kThreads, 0, stream >>> (args,
        (Workspace *) workspace, counts);
  else
    hist_kernel < false > <<< (int) blocks, kThreads, 0, stream >>> (args,
        (Workspace *) workspace, counts);
  return cudaGetLastError ();
}
