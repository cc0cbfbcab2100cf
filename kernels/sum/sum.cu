/* Per-channel sums, squares, min and max, and the key's row and column
 * profiles, black count, counts and frame difference, in one pass over
 * the frame: the reduction pattern.  The C API and dispatch; the kernels
 * are in the .cuh files included below.
 *
 * The frame's planes are cut into tiles one warp wide (32 chunks of 16
 * bytes, or 48 for 3-byte pixels, one chunk per lane) and kTileRows rows
 * high.  One wave of blocks walks them (sum_kernel, sum-tiles.cuh), a
 * block taking every gridDim.x-th tile of a plane (neighbouring blocks,
 * neighbouring tiles; with profiles a run of tiles down a column, see
 * count_plane), its warps every kWarps-th row of a tile.  A thread issues
 * the loads of all its rows of the next tile before counting the current
 * one, so the memory is busy while the SM counts: a reduction does little
 * per byte, and its speed is the bytes in flight and how soon the next
 * ones go out.  (docs/design/sum.md has the designs before this one, and
 * why they lost.)
 *
 * Within a tile a thread counts whole 32-bit words of its chunk: the bytes
 * at positions 0 and 2 and those at 1 and 3 are split into two words of
 * 16-bit lanes whose sums, minima and maxima take one instruction each for
 * two samples, and the same words, bytes with zeros between them, give
 * two squares per dp4a (sum-totals.cuh).  The 16-bit sums cannot overflow
 * within a tile (kRowsPerWarp rows of four words per lane) and are added
 * to 32-bit totals after each.  3-byte pixels, whose channels do not line
 * up with word positions, are counted a byte at a time.
 *
 * After each plane a block reduces its threads (warp reductions, then
 * shared memory) and adds its totals to the workspace with a handful of
 * atomics; the last block to finish copies the totals out and zeroes the
 * workspace, so a frame is one launch.  Min is kept as the max of 255 - v
 * so that a zeroed workspace is the starting point of every total.
 *
 * The statistics alone, added into a caller's sums (cf_sum_planes_add),
 * of planes of whole aligned rows have a kernel of their own:
 * statistics_kernel (sum-statistics.cuh), many short-lived blocks over
 * runs of vectors.
 *
 * CPU reference: sum-reference.c, the same results. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"
#include "launch-settings.cuh"
#include "word-planes.cuh"

#include "sum-policy.cuh"
#include "sum-device.cuh"
#include "sum-totals.cuh"
#include "sum-row.cuh"
#include "sum-tile.cuh"
#include "sum-tiles.cuh"
#include "sum-statistics.cuh"
#include "sum-words.cuh"

namespace {

template < int ONLY > void
launch_statistics_kernel (bool flat, int grid, const LaunchArgs & args,
    Workspace * sums, CfStream stream)
{
  if (flat)
    statistics_kernel < ONLY, true > <<< grid, kThreads, 0, stream >>> (args,
        sums);
  else
    statistics_kernel < ONLY, false > <<< grid, kThreads, 0, stream >>> (args,
        sums);
}

/* Launches statistics_kernel where the planes allow it (the statistics
 * alone, added into sums, every plane of rows of 2 or more whole aligned
 * vectors, row_of_vector's condition, and not 3 bytes a pixel); false
 * where not, and nothing is launched. */
bool
launch_statistics_runs (LaunchArgs & args, Workspace * sums, CfStream stream)
{
  long long vectors = 0, blocks = 0;
  bool all4 = args.n_planes > 0, flat = true;
  for (int p = 0; p < args.n_planes; p++) {
    const PlaneArgs & pl = args.plane[p];
    if (pl.bpp == 3 || (pl.rows > 0 && (!pl.vectors || pl.row_bytes % 16
                || pl.row_bytes < 32)))
      return false;
    vectors += (long long) (pl.row_bytes / 16) * pl.rows;
    all4 = all4 && pl.bpp == 4;
    flat = flat && (pl.rows <= 1 || pl.pitch == (size_t) pl.row_bytes);
  }
  if (vectors >= INT32_MAX / 2)
    return false;
  for (int p = 0; p < args.n_planes; p++) {
    PlaneArgs & pl = args.plane[p];
    const long long n = (long long) (pl.row_bytes / 16) * pl.rows;
    pl.first_block = (int) blocks;
    pl.row_of_vector = pl.row_bytes >= 32 ?
        UINT64_MAX / (uint64_t) (pl.row_bytes / 16) + 1 : 0;
    blocks += (n + kRunVectors * kThreads - 1) / (kRunVectors * kThreads);
  }
  args.blocks = (int) blocks;
  const int grid = blocks > 0 ? (int) blocks : 1;
  if (all4)
    launch_statistics_kernel < 4 > (flat, grid, args, sums, stream);
  else
    launch_statistics_kernel < 0 > (flat, grid, args, sums, stream);
  return true;
}

typedef void (*SumKernel) (LaunchArgs, Workspace *, int);

template < unsigned K > SumKernel
kernel_for_key (int key_bpp)
{
  return key_bpp == 1 ? sum_kernel < K, 1 > : key_bpp == 3 ?
      sum_kernel < K, 3 > : sum_kernel < K, 4 >;
}

/* The kernel for key features k (bits: profiles, black, previous, key
 * counts) and a key plane of key_bpp bytes per pixel (1, 3 or 4; any
 * where k is 0). */
SumKernel
kernel_for (unsigned k, int key_bpp)
{
  switch (k) {
    case 0:
      return sum_kernel < 0, 0 >;
    case 1:
      return kernel_for_key < 1 > (key_bpp);
    case 2:
      return kernel_for_key < 2 > (key_bpp);
    case 3:
      return kernel_for_key < 3 > (key_bpp);
    case 4:
      return kernel_for_key < 4 > (key_bpp);
    case 5:
      return kernel_for_key < 5 > (key_bpp);
    case 6:
      return kernel_for_key < 6 > (key_bpp);
    case 7:
      return kernel_for_key < 7 > (key_bpp);
    case 8:
      return kernel_for_key < 8 > (key_bpp);
    case 9:
      return kernel_for_key < 9 > (key_bpp);
    case 10:
      return kernel_for_key < 10 > (key_bpp);
    case 11:
      return kernel_for_key < 11 > (key_bpp);
    case 12:
      return kernel_for_key < 12 > (key_bpp);
    case 13:
      return kernel_for_key < 13 > (key_bpp);
    case 14:
      return kernel_for_key < 14 > (key_bpp);
    default:
      return kernel_for_key < 15 > (key_bpp);
  }
}

/* the dynamic shared memory of kernel k: the key counts' */
size_t
shared_bytes (unsigned k)
{
  return (k & kKeyCounts) ? kKeyCountBytes : 0;
}

/* Blocks resident on the whole device (launch-settings.cuh). */
cudaError_t
resident_blocks (unsigned k, int key_bpp, int *blocks)
{
  const cf::DeviceInfo *dev;
  int per_sm = 0;
  cudaError_t err;

  if ((err = cf::current_device_info (&dev)) != cudaSuccess
      || (err = cf::resident_blocks_per_sm ((const void *) kernel_for (k,
                  key_bpp), kThreads, shared_bytes (k), &per_sm))
      != cudaSuccess)
    return err;
  *blocks = dev->sm_count * (per_sm > 0 ? per_sm : 1);
  return cudaSuccess;
}

}                               /* namespace */

extern "C" size_t
cf_sum_workspace_bytes (int max_width, int max_height)
{
  if (max_width < 0 || max_height < 0)
    return 0;
  return sizeof (Workspace) + sizeof (uint32_t) *
      ((size_t) max_width + (size_t) max_height);
}

/* Both entry points: the blocks add into `workspace`; with `stats` the
 * last block publishes the totals (and row and column sums) there and
 * zeroes the workspace, without (cf_sum_planes_add) they stay where they
 * are, and `zero_bytes` of `zero_next`, if any, are zeroed. */
static CfError
launch_sum (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, CfSumStats * stats, uint32_t * row_sums,
    uint32_t * column_sums, void *workspace, void *zero_next,
    size_t zero_bytes, CfStream stream)
{
  LaunchArgs args = { };
  unsigned flags = key ? key->flags : 0;
  const bool publish = stats != nullptr;

  /* the buffer zeroed for a later launch may not overlap this one's */
  const uintptr_t ws_at = (uintptr_t) workspace, zero_at = (uintptr_t) zero_next;
  const size_t ws_bytes = n_planes > 0 && planes ?
      cf_sum_workspace_bytes (planes[0].width, planes[0].height) :
      sizeof (Workspace);
  if (n_planes < 0 || n_planes > CF_HIST_MAX_PLANES || !workspace
      || (n_planes > 0 && !planes) || zero_next == workspace
      || ws_at % 8 || zero_at % 4
      || zero_bytes % 4 || (zero_bytes && !zero_next)
      || (zero_bytes && zero_at < ws_at + ws_bytes
          && ws_at < zero_at + zero_bytes)
      || (flags & ~(unsigned) (CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF |
                  CF_SUM_KEEP | CF_SUM_HIST)))
    return cudaErrorInvalidValue;
  if (flags && n_planes == 0)
    flags = 0;
  if (flags) {
    const CfSamplePlane *p0 = &planes[0];
    uint64_t max_key = 32768;
    if (p0->bytes_per_pixel != 1 && p0->bytes_per_pixel != 3
        && p0->bytes_per_pixel != 4)
      return cudaErrorInvalidValue;
    /* a 1-byte plane's key is the byte: its weights are not used */
    for (int b = 0; p0->bytes_per_pixel > 1 && b < p0->bytes_per_pixel; b++) {
      if (key->weights[b] > 65535)
        return cudaErrorInvalidValue;
      max_key += 255ull * key->weights[b];
    }
    if (max_key >> 16 > 255 || key->black_threshold < 0)
      return cudaErrorInvalidValue;
    /* the publish indexes rows and columns as one int array */
    if ((flags & CF_SUM_PROFILES) && ((publish && (!row_sums || !column_sums))
            || (long long) p0->width + p0->height > INT32_MAX - 8 * kThreads))
      return cudaErrorInvalidValue;
    if ((flags & (CF_SUM_DIFF | CF_SUM_KEEP)) && (!key->previous
            || (uintptr_t) key->previous % 16 || key->previous_pitch % 16
            || (p0->height > 1 && key->previous_pitch < (size_t) p0->width)))
      return cudaErrorInvalidValue;
    /* the key counts: aligned, and not in the sums a launch adds into */
    const uintptr_t counts_at = (uintptr_t) key->key_counts;
    if ((flags & CF_SUM_HIST) && (!key->key_counts || counts_at % 4
            || (counts_at < ws_at + ws_bytes
                && ws_at < counts_at + 4 * CF_HIST_BINS)))
      return cudaErrorInvalidValue;
    args.flags = flags;
    for (int b = 0; b < 4; b++)
      args.weights[b] = b < p0->bytes_per_pixel ? key->weights[b] : 0;
    for (int i = 0; i < 2; i++) {
      args.weight_bytes[i] = 0;
      for (int b = 0; b < 4; b++)
        args.weight_bytes[i] |= ((args.weights[b] >> (8 * i)) & 0xffu) <<
            (8 * b);
    }
    args.black_limit = (uint32_t) (key->black_threshold > 255 ? 256 :
        key->black_threshold + 1) << 16;
    args.previous = key->previous;
    args.previous_pitch = key->previous_pitch;
    args.key_counts = (flags & CF_SUM_HIST) ? key->key_counts : nullptr;
  }

  args.n_planes = n_planes;
  for (int p = 0; p < n_planes; p++) {
    const CfSamplePlane *in = &planes[p];
    PlaneArgs *pl = &args.plane[p];
    int bpp = in->bytes_per_pixel;
    long long row_bytes = (long long) in->width * bpp;
    int chunk = bpp == 3 ? 48 : 16;
    if (bpp < 1 || bpp > 4 || in->width < 0 || in->height < 0
        || in->height > INT32_MAX - kTileRows || row_bytes > INT32_MAX / 2
        || (in->height > 1 && in->pitch < (size_t) row_bytes)
        || (row_bytes > 0 && in->height > 0 && !in->data))
      return cudaErrorInvalidValue;
    for (int b = 0; b < 4; b++) {
      if (in->channel[b] >= CF_HIST_MAX_CHANNELS)
        return cudaErrorInvalidValue;
      pl->channel[b] = b < bpp ? in->channel[b] : -1;
    }
    pl->data = (const uint8_t *) in->data;
    pl->pitch = in->pitch;
    pl->vectors = cf_is_aligned (in->data, in->pitch, 16);
    pl->row_bytes = (int) row_bytes;
    pl->rows = row_bytes > 0 ? in->height : 0;
    pl->bpp = bpp;
    pl->width = in->width;
    pl->tile_cols = (int) ((row_bytes + 32 * chunk - 1) / (32 * chunk));
  }

  unsigned k = ((flags & CF_SUM_PROFILES) ? 1 : 0) |
      ((flags & CF_SUM_BLACK) ? 2 : 0) |
      ((flags & (CF_SUM_DIFF | CF_SUM_KEEP)) ? 4 : 0) |
      ((flags & CF_SUM_HIST) ? 8 : 0);
  long long most_tiles = 0;     /* of a plane */
  for (int p = 0; p < n_planes; p++) {
    PlaneArgs *pl = &args.plane[p];
    pl->tile_rows = (pl->rows + kTileRows - 1) / kTileRows;
    long long tiles = (long long) pl->tile_rows * pl->tile_cols;
    if (tiles > INT32_MAX / 2)
      return cudaErrorInvalidValue;
    most_tiles = tiles > most_tiles ? tiles : most_tiles;
  }
  args.out = stats;
  args.row_out = row_sums;
  args.column_out = column_sums;
  args.publish = publish;
  args.zero_next = (uint32_t *) zero_next;
  args.zero_words = zero_bytes / 4;

  int ws_max_height = n_planes > 0 ? planes[0].height : 0;
  args.key_width = n_planes > 0 ? planes[0].width : 0;
  args.key_height = ws_max_height;

  cf_forget_earlier_errors ();
  /* the statistics alone into the caller's sums: statistics_kernel, where
   * the planes allow it */
  if (k == 0 && !publish && launch_statistics_runs (args,
          (Workspace *) workspace, stream))
    return cudaGetLastError ();

  /* One wave of blocks, each walking every gridDim.x-th tile; more blocks
   * only where a block would count more than kMaxTilesPerBlock tiles of a
   * plane, and then whole waves of them, so that no SM is left with a
   * lone block (8K RGBA: two waves of 7 or 8 tiles a block rather than
   * 1.3 waves of 12); at least one, which publishes zeros for an empty
   * region. */
  int resident = 0;
  cudaError_t err;
  const int key_bpp = k ? planes[0].bytes_per_pixel : 0;
  if ((err = resident_blocks (k, key_bpp, &resident)) != cudaSuccess)
    return err;
  if (resident < 1)
    resident = 1;
  long long blocks = (most_tiles + kMaxTilesPerBlock - 1) / kMaxTilesPerBlock;
  blocks = (blocks + resident - 1) / resident * resident;
  if (blocks > most_tiles)
    blocks = most_tiles;
  if (blocks < 1)
    blocks = 1;
  kernel_for (k, key_bpp) <<< (int) blocks, kThreads, shared_bytes (k),
      stream >>> (args, (Workspace *) workspace, ws_max_height);
  return cudaGetLastError ();
}

extern "C" CfError
cf_sum_planes (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, CfSumStats * stats, uint32_t * row_sums,
    uint32_t * column_sums, void *workspace, CfStream stream)
{
  if (!stats)
    return cudaErrorInvalidValue;
  return launch_sum (planes, n_planes, key, stats, row_sums, column_sums,
      workspace, nullptr, 0, stream);
}

extern "C" CfError
cf_sum_planes_add (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, void *sums, void *zero_next, size_t zero_bytes,
    CfStream stream)
{
  return launch_sum (planes, n_planes, key, nullptr, nullptr, nullptr, sums,
      zero_next, zero_bytes, stream);
}

extern "C" const uint32_t *
cf_sum_sums_read (const void *sums, CfSumStats * stats)
{
  const Workspace *ws = (const Workspace *) sums;
  for (int c = 0; c < CF_HIST_MAX_CHANNELS; c++) {
    stats->sum[c] = ws->sum[c];
    stats->sum_squares[c] = ws->sum_squares[c];
    stats->min[c] = 255 - ws->inv_min[c];
    stats->max[c] = ws->max[c];
  }
  stats->black = ws->black;
  stats->abs_diff = ws->abs_diff;
  return reinterpret_cast < const uint32_t * >(ws + 1);
}

/* ---- high bit depth (#48) -------------------------------------------- */

extern "C" size_t
cf_sum_word_sums_bytes (void)
{
  return sizeof (WordSums);
}

/* Why plane 0 at 8 bits: the profiles and detectors (cudasum's black,
 * crop, cut and freeze) keep their 8-bit thresholds at every depth
 * (docs/design/high-bit-depth.md, "cudasum"), so cf_sum_planes_add reads
 * it as it reads a GRAY8 frame: one kernel of them for every depth. */
extern "C" CfError
cf_sum_word_planes_add (const CfWordPlane * planes, int n_planes,
    void *sums, uint8_t * key8, size_t key8_pitch, void *zero_next,
    size_t zero_bytes, CfStream stream)
{
  if (!cf::word_planes_valid (planes, n_planes) || !sums
      || ((uintptr_t) sums & 7) || ((uintptr_t) zero_next & 3)
      || zero_bytes % 4 || (zero_bytes && !zero_next)
      || cf::buffers_overlap (sums, sizeof (WordSums),
          zero_bytes ? zero_next : nullptr, zero_bytes))
    return cudaErrorInvalidValue;
  if (key8 && (planes[0].words_per_pixel != 1 || ((uintptr_t) key8 & 15)
          || key8_pitch % 16 || key8_pitch < (size_t) planes[0].width))
    return cudaErrorInvalidValue;
  cf_forget_earlier_errors ();
  cf::WordLaunch launch;
  cudaError_t err = cf::share_word_blocks (planes, n_planes,
      (const void *) words_stats_kernel, kWordStatsThreads, 0, &launch);
  if (err != cudaSuccess)
    return err;
  WordStatsArgs args;
  for (int p = 0; p < n_planes; p++)
    args.plane[p] = planes[p];
  for (int p = 0; p <= n_planes; p++)
    args.first_block[p] = launch.first_block[p];
  args.n_planes = n_planes;
  args.key8 = key8;
  args.key8_pitch = key8_pitch;
  args.zero_next = (uint32_t *) zero_next;
  args.zero_words = zero_bytes / 4;
  words_stats_kernel <<< launch.grid, kWordStatsThreads, 0,
      (cudaStream_t) stream >>> (args, (WordSums *) sums);
  return cudaGetLastError ();
}

extern "C" void
cf_sum_word_sums_read (const void *sums, CfWordStats * stats)
{
  const WordSums *ws = (const WordSums *) sums;
  for (int c = 0; c < CF_HIST_WORD_CHANNELS; c++) {
    stats->sum[c] = ws->sum[c];
    stats->sum_squares[c] = ws->sum_squares[c];
    stats->min[c] = UINT32_MAX - ws->min_inverted[c];
    stats->max[c] = ws->max[c];
  }
}
