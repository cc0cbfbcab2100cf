/* Per-channel histograms: the atomic pattern.  The C API and dispatch;
 * the kernels are in the .cuh files included below.
 *
 * Shared-memory atomics are fast only without conflicts, and a histogram
 * of real video is full of them: on a solid colour every lane of a warp
 * adds to the same counter, and even random bytes put several lanes on
 * one bank.  So each lane counts into counters of its own, laid out in its
 * own bank: the counter of value v for lane l is word v * 32 + l of its
 * channel's counters.  Every atomic of a warp then hits 32 different banks
 * whatever the data, and a solid frame costs what a random one does.  Two
 * layouts of those counters: hist-block-words.cuh (32-bit counters a
 * block, where a block can have 128 KB of shared memory) and
 * hist-warp-bytes.cuh (8-bit counters a warp, elsewhere).
 *
 * At the end a block adds its counts into the global counts, one atomic
 * per non-zero bin, and the last block to finish sums the counts' copies
 * (Workspace), writes them out and zeroes them for the next launch, so a
 * frame is one launch (cf_hist_planes).  Finding the last block and its
 * copying are a fixed cost of every launch, so cf_hist_planes_add leaves
 * the copies in the caller's buffer instead, for the caller to copy out
 * and add up, and zeroes the buffer of a later launch.
 *
 * A warp takes one segment at a time: up to 32 x units_per_lane() units of
 * 16 bytes (48 for 3-byte pixels, so that a unit holds whole pixels), all
 * of a lane's loaded before any is counted (hist-segments.cuh).  A plane
 * is cut row by row: a row's bytes up to the first 16-byte boundary (the
 * head) and after the last whole unit (the tail) one per lane, the body
 * in between in segments.  Where rows are short against a segment
 * (WarpBytes: NV12 1080p has 120 units a row, a segment 256) and whole
 * aligned units, the plane is instead one run of units numbered row after
 * row, and a segment spans rows (cut_plane).  A launch whose rows would
 * leave some warps a segment more than most has every plane cut as one
 * run, in items of as even a size as the grid's warps allow
 * (even_run_item_units).  The items (segments, or a run's items) are
 * dealt to the warps in turn; in a launch of 4 or more a warp, the last
 * ones go to the warps that ask for them first (ItemQueue), so that the
 * blocks finish together.  docs/design/hist.md has the reasons at length.
 *
 * CPU reference: hist-reference.c, the same counts. */
#include "cudafilters-kernels.h"
#include "cudafilters-kernels-testing.h"
#include "kernels-common.cuh"
#include "launch-settings.cuh"
#include "word-planes.cuh"

#include "hist-policy.cuh"
#include "hist-device.cuh"
#include "hist-segments.cuh"
#include "hist-block-words.cuh"
#include "hist-warp-bytes.cuh"
#include "hist-words.cuh"

namespace {

/* The kernel a launch takes, its block and its shared memory, by the
 * device and by whether it counts 3-byte pixels and skips bytes. */
typedef void (*HistKernel) (LaunchArgs, Workspace *, uint32_t *);

struct Shape
{
  Layout layout;
  HistKernel kernel;
  HistKernel sharing_kernel;    /* for launches that share items, or null */
  int warps, blocks;
  size_t smem;
  /* the kernels' limit of dynamic shared memory: the most any of their
   * launches asks, whether or not this one skips bytes (a limit lowered
   * for one shape would fail another thread's launch of the other) */
  size_t smem_limit;
};

/* Lets the shape's kernels have its shared memory.  Set at every launch,
 * not once per device: with CUDA 12.4's runtime (Debian 13's toolkit) the
 * limit belongs to the kernel in the current context, and each element may
 * have a context of its own (the second element's launches failed with
 * cudaErrorInvalidValue). */
cudaError_t
allow_shared_memory (const Shape & shape)
{
  cudaError_t err = cudaFuncSetAttribute (shape.kernel,
      cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shape.smem_limit);
  if (err == cudaSuccess && shape.sharing_kernel)
    err = cudaFuncSetAttribute (shape.sharing_kernel,
        cudaFuncAttributeMaxDynamicSharedMemorySize, (int) shape.smem_limit);
  return err;
}

CfHistLayout forced_layout = CF_HIST_LAYOUT_AUTO;

/* The shape for the current device (launch-settings.cuh), by whether the
 * launch counts 3-byte pixels and skips bytes. */
template < bool RGB3 > cudaError_t
kernel_shape (bool skips, Shape * shape)
{
  const bool warp_bytes = forced_layout == CF_HIST_LAYOUT_WARP_BYTES;
  const cf::DeviceInfo *dev;
  cudaError_t err;

  if ((err = cf::current_device_info (&dev)) != cudaSuccess)
    return err;
  /* what static shared memory and the system take per block */
  const int smem = dev->smem_optin - (1024 + 16);
  shape->blocks = dev->sm_count;
  if (!warp_bytes && smem >= 0
      && (size_t) smem >= BlockWords::smem_bytes (skips)) {
    shape->layout = Layout::kBlockWords;
    shape->warps = BlockWords::kWarps;
    shape->smem = BlockWords::smem_bytes (skips);
    shape->kernel = hist_block_words_kernel < RGB3, false >;
    /* <false, true>: the kernel of 3-byte pixels never shares, and no
     * sharing build of it is made */
    shape->sharing_kernel = RGB3 ? nullptr :
        hist_block_words_kernel < RGB3, !RGB3 >;
    shape->smem_limit = (size_t) smem >= BlockWords::smem_bytes (true) ?
        BlockWords::smem_bytes (true) : BlockWords::smem_bytes (false);
  } else {
    shape->layout = Layout::kWarpBytes;
    shape->warps = smem / (int) (WarpBytes::kWarpWords * sizeof (uint32_t));
    if (shape->warps > WarpBytes::kMaxWarps)
      shape->warps = WarpBytes::kMaxWarps;
    if (shape->warps < 1)
      return cudaErrorInvalidConfiguration;
    shape->smem = (size_t) shape->warps * WarpBytes::kWarpWords *
        sizeof (uint32_t);
    shape->kernel = hist_warp_bytes_kernel < RGB3 >;
    shape->sharing_kernel = nullptr;
    shape->smem_limit = shape->smem;
  }
  return allow_shared_memory (*shape);
}

/* Whether a plane can be counted as one run of units: every row whole,
 * aligned units of 16 bytes, at least 2 of them (row_of_unit). */
bool
can_be_run (const PlaneArgs & pl)
{
  return pl.row_bytes % 16 == 0 && pl.row_bytes / 16 >= 2
      && ((uintptr_t) pl.data & 15) == 0 && pl.pitch % 16 == 0;
}

/* Cuts a plane into items and returns how many: segments of rows, or, if
 * `runs`, one run of units where every row is whole aligned units and that
 * at least halves the items; or, if run_item_units > 0, one run in items
 * of that many units (the caller has checked can_be_run; never for 3-byte
 * pixels).  A run costs a division per unit for its address, where a
 * row's units are at fixed offsets: worth it only where rows are short
 * against a segment (NV12), as halving the items shows.  The kernel that
 * counts 3-byte pixels has no runs: their code slowed it. */
template < Layout L, int BPP > long long
cut_plane (PlaneArgs * pl, bool runs, int run_item_units)
{
  constexpr long long UNIT = unit_bytes < BPP > ();
  constexpr long long SEGMENT_UNITS = segment_units < L, BPP > ();
  const long long units_per_row = pl->row_bytes / UNIT;
  const long long units = units_per_row * pl->rows;
  const long long run_items = (units + SEGMENT_UNITS - 1) / SEGMENT_UNITS;
  pl->segments = units_per_row > SEGMENT_UNITS ?
      (int) ((units_per_row + SEGMENT_UNITS - 1) / SEGMENT_UNITS) : 1;
  const long long row_items = (long long) pl->segments * pl->rows;
  pl->units = 0;
  pl->units_per_row = 1;
  pl->row_of_unit = 0;
  pl->run_item_units = (int) SEGMENT_UNITS;
  if (run_item_units > 0 || (runs && can_be_run (*pl)
          && units <= INT32_MAX - SEGMENT_UNITS
          && 2 * run_items <= row_items)) {
    pl->segments = 0;
    pl->units = (int) units;
    pl->units_per_row = (int) units_per_row;
    pl->row_of_unit = UINT64_MAX / (uint64_t) units_per_row + 1;
    if (run_item_units > 0) {
      pl->run_item_units = run_item_units;
      return (units + run_item_units - 1) / run_item_units;
    }
    return run_items;
  }
  return row_items;
}

template < Layout L > long long
cut_plane_as (PlaneArgs * pl, bool runs, int run_item_units = 0)
{
  switch (pl->bpp) {
    case 1:
      return cut_plane < L, 1 > (pl, runs, run_item_units);
    case 2:
      return cut_plane < L, 2 > (pl, runs, run_item_units);
    case 3:
      return cut_plane < L, 3 > (pl, runs, run_item_units);
    default:
      return cut_plane < L, 4 > (pl, runs, run_item_units);
  }
}

/* Units an item of the BlockWords kernel when every plane is cut as one
 * run, in items as even as the grid's warps allow: each warp then counts
 * as many segments as any other, give or take one, where cutting by rows
 * can leave a few warps a whole segment more than the rest (1080p RGBA:
 * 3 segments for some warps, 2 for most).  0 where not every plane can be
 * one run, or where the warp with the most items would not have at least
 * a quarter fewer than with the planes cut as they are (`items_now`):
 * runs cost more a segment than rows (an address a unit), which one
 * segment fewer in a dozen does not repay, and one in three does. */
int
even_run_item_units (const PlaneArgs * planes, int n_planes, int warps,
    long long items_now)
{
  constexpr long long SEGMENT_UNITS = segment_units < Layout::kBlockWords,
      4 > ();
  long long units = 0;
  for (int p = 0; p < n_planes; p++) {
    if (planes[p].bpp == 3 || !can_be_run (planes[p]))
      return 0;
    units += (long long) (planes[p].row_bytes / 16) * planes[p].rows;
  }
  if (n_planes == 0 || units > INT32_MAX / 2)
    return 0;
  const long long rounds = (units + warps * SEGMENT_UNITS - 1) /
      (warps * SEGMENT_UNITS);
  /* whole 128-byte lines an item, so that no line is split between warps */
  long long per_item = (units + warps * rounds - 1) / (warps * rounds);
  per_item = (per_item + 7) / 8 * 8;
  long long items = 0;
  for (int p = 0; p < n_planes; p++)
    items += ((long long) (planes[p].row_bytes / 16) * planes[p].rows +
        per_item - 1) / per_item;
  const long long most = (items + warps - 1) / warps;
  const long long most_now = (items_now + warps - 1) / warps;
  return 4 * most <= 3 * most_now ? (int) per_item : 0;
}

/* Where the items that warps ask for (ItemQueue) begin: after half of
 * each warp's whole rounds, and at least kLeastDealtRounds. */
long long
shared_from (long long items, long long warps)
{
  long long dealt = items / warps / 2;
  if (dealt < kLeastDealtRounds)
    dealt = kLeastDealtRounds;
  return dealt * warps < items ? dealt * warps : items;
}

}                               /* namespace */

extern "C" void
cf_hist_set_layout (CfHistLayout layout)
{
  forced_layout = layout;
}

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

/* Both entry points: the blocks add into `workspace`'s counts; with
 * `counts` the last block publishes them there and zeroes the workspace,
 * without (cf_hist_planes_add) they stay where they are, and `zero_next`,
 * if any, is zeroed. */
static CfError
launch_hist (const CfSamplePlane * planes, int n_planes, uint32_t * counts,
    void *workspace, void *zero_next, CfStream stream)
{
  LaunchArgs args = { };
  long long items = 0;
  bool rgb3 = false, skips = false;

  /* the buffer zeroed for a later launch may not overlap this one's */
  const uintptr_t ws_at = (uintptr_t) workspace, zero_at = (uintptr_t) zero_next;
  if (n_planes < 0 || n_planes > CF_HIST_MAX_PLANES || !workspace
      || (n_planes > 0 && !planes) || ws_at % 4 || zero_at % 4
      || (zero_next && (zero_at > ws_at ? zero_at - ws_at : ws_at - zero_at)
          < sizeof (Workspace)))
    return cudaErrorInvalidValue;
  args.publish = counts != nullptr;
  args.zero_next = (uint32_t *) zero_next;
  args.zero_words = (int) (sizeof (Workspace) / 4);
  for (int p = 0; p < n_planes; p++) {
    const CfSamplePlane *in = &planes[p];
    if (in->bytes_per_pixel < 1 || in->bytes_per_pixel > 4 || in->width < 0
        || in->height < 0)
      return cudaErrorInvalidValue;
    /* only the planes counted choose the kernel: an empty 3-byte plane
     * beside 4-byte ones once chose the 3-byte kernel, which has no runs,
     * for planes then cut as runs (a division by zero a segment) */
    const bool counted = in->width > 0 && in->height > 0;
    for (int b = 0; b < 4; b++) {
      if (in->channel[b] >= CF_HIST_MAX_CHANNELS)
        return cudaErrorInvalidValue;
      if (counted && b < in->bytes_per_pixel && in->channel[b] < 0)
        skips = true;
    }
    rgb3 |= counted && in->bytes_per_pixel == 3;
  }

  Shape shape;
  cudaError_t err;
  cf_forget_earlier_errors ();
  err = rgb3 ? kernel_shape < true > (skips, &shape) :
      kernel_shape < false > (skips, &shape);
  if (err != cudaSuccess)
    return err;

  for (int p = 0; p < n_planes; p++) {
    const CfSamplePlane *in = &planes[p];
    PlaneArgs *pl = &args.plane[args.n_planes];
    int bpp = in->bytes_per_pixel;
    long long row_bytes = (long long) in->width * bpp;
    /* a row's last bytes are counted a lane each, at int offsets up to
     * row_bytes + 31 */
    if (row_bytes > INT32_MAX - 64
        || (in->height > 1 && in->pitch < (size_t) row_bytes))
      return cudaErrorInvalidValue;
    if (row_bytes == 0 || in->height == 0)
      continue;
    if (!in->data)
      return cudaErrorInvalidValue;
    pl->data = (const uint8_t *) in->data;
    pl->pitch = in->pitch;
    pl->row_bytes = (int) row_bytes;
    pl->rows = in->height;
    pl->bpp = bpp;
    long long plane_items = shape.layout == Layout::kBlockWords ?
        cut_plane_as < Layout::kBlockWords > (pl, !rgb3) :
        cut_plane_as < Layout::kWarpBytes > (pl, !rgb3);
    pl->first_item = (int) items;
    /* sub-counter s counts the bytes at row index i with i % 4 == s (i % 3
     * for 3-byte pixels): their channel is that of byte s % bpp */
    for (int s = 0; s < 4; s++) {
      pl->channel_of_sub[s] = bpp == 3 ? (s < 3 ? in->channel[s] : -1) :
          in->channel[s % bpp];
      if (pl->channel_of_sub[s] >= 0)
        args.channels_used |= 1u << pl->channel_of_sub[s];
    }
    items += plane_items;
    if (items > INT32_MAX / 2)
      return cudaErrorInvalidValue;
    pl->items = (int) plane_items;
    args.n_planes++;
  }

  if (shape.layout == Layout::kBlockWords) {
    const int per_item = even_run_item_units (args.plane, args.n_planes,
        shape.blocks * shape.warps, items);
    if (per_item > 0) {
      items = 0;
      for (int p = 0; p < args.n_planes; p++) {
        PlaneArgs *pl = &args.plane[p];
        pl->first_item = (int) items;
        pl->items = (int) cut_plane_as < Layout::kBlockWords > (pl, true,
            per_item);
        items += pl->items;
      }
    }
  }

  /* one block per SM at most; an empty region still needs one block to
   * publish its zeros */
  long long blocks = (items + shape.warps - 1) / shape.warps;
  if (blocks > shape.blocks)
    blocks = shape.blocks;
  if (blocks < 1)
    blocks = 1;
  args.items = (int) items;
  args.shared_from = (int) items;
  if (shape.sharing_kernel)
    args.shared_from = (int) shared_from (items, blocks * shape.warps);
  const HistKernel kernel = args.shared_from < args.items ?
      shape.sharing_kernel : shape.kernel;
  kernel <<< (int) blocks, 32 * shape.warps, shape.smem, stream >>>
      (args, (Workspace *) workspace, counts);
  return cudaGetLastError ();
}

extern "C" CfError
cf_hist_planes (const CfSamplePlane * planes, int n_planes, uint32_t * counts,
    void *workspace, CfStream stream)
{
  if (!counts)
    return cudaErrorInvalidValue;
  return launch_hist (planes, n_planes, counts, workspace, nullptr, stream);
}

extern "C" size_t
cf_hist_sums_bytes (void)
{
  return sizeof (Workspace);
}

extern "C" CfError
cf_hist_planes_add (const CfSamplePlane * planes, int n_planes, void *sums,
    void *zero_next, CfStream stream)
{
  return launch_hist (planes, n_planes, nullptr, sums, zero_next, stream);
}

extern "C" void
cf_hist_sums_counts (const void *sums, uint32_t * counts)
{
  const Workspace *ws = (const Workspace *) sums;
  for (int b = 0; b < kCounts; b++) {
    uint32_t sum = 0;
    for (int c = 0; c < kCopies; c++)
      sum += ws->counts[c][b];
    counts[b] = sum;
  }
}

extern "C" size_t
cf_hist_word_sums_bytes (int depth)
{
  if (depth < 9 || depth > 16)
    return 0;
  return sizeof (uint32_t) * CF_HIST_WORD_CHANNELS * CF_HIST_LEVELS (depth);
}

extern "C" CfError
cf_hist_word_planes_add (const CfWordPlane * planes, int n_planes,
    void *sums, void *zero_next, CfStream stream)
{
  if (!cf::word_planes_valid (planes, n_planes) || !sums
      || ((uintptr_t) sums & 3) || ((uintptr_t) zero_next & 3))
    return cudaErrorInvalidValue;
  const int depth = planes[0].depth;
  const size_t bytes = cf_hist_word_sums_bytes (depth);
  if (cf::buffers_overlap (sums, bytes, zero_next, bytes))
    return cudaErrorInvalidValue;
  cf_forget_earlier_errors ();
  const int levels = CF_HIST_LEVELS (depth);
  const size_t smem = sizeof (uint32_t) * levels *
      cf::max_samples_per_pixel (planes, n_planes);
  cf::WordLaunch launch;
  cudaError_t err = cf::share_word_blocks (planes, n_planes,
      (const void *) words_hist_kernel, kWordsBlockThreads, smem, &launch);
  if (err != cudaSuccess)
    return err;
  WordPlanes args;
  for (int p = 0; p < n_planes; p++)
    args.plane[p] = planes[p];
  for (int p = 0; p <= n_planes; p++)
    args.first_block[p] = launch.first_block[p];
  args.n_planes = n_planes;
  words_hist_kernel <<< launch.grid, kWordsBlockThreads, smem,
      (cudaStream_t) stream >>> (args, levels, (uint32_t *) sums,
      (uint32_t *) zero_next);
  return cudaGetLastError ();
}

extern "C" CfError
cf_hist_word_planes (const CfWordPlane * planes, int n_planes,
    uint32_t * counts, CfStream stream)
{
  if (!planes || !counts || n_planes < 1)
    return cudaErrorInvalidValue;
  const size_t bytes = cf_hist_word_sums_bytes (planes[0].depth);
  if (!bytes)
    return cudaErrorInvalidValue;
  cf_forget_earlier_errors ();
  cudaError_t err = cudaMemsetAsync (counts, 0, bytes, (cudaStream_t) stream);
  if (err != cudaSuccess)
    return err;
  return cf_hist_word_planes_add (planes, n_planes, counts, nullptr, stream);
}
