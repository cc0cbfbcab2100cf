/* sum_kernel: one wave of blocks walks the frame's tiles, every
 * statistic and key feature in one pass, the next tile's loads in flight
 * while a tile is counted; the last block out publishes the totals and
 * the row and column sums.  A kernel per key layout and feature set
 * (sum_kernel<K, KEY_BPP>).
 * Dispatch (launch_sum): every launch of cf_sum_planes, and those of
 * cf_sum_planes_add that statistics_kernel does not take (key features,
 * 3-byte pixels, planes not of whole aligned vectors).
 * Tests: test_sum_equals_reference, test_sum_regions. */
#ifndef CUDAFILTERS_SUM_TILES_CUH
#define CUDAFILTERS_SUM_TILES_CUH

#include "sum-tile.cuh"

namespace {

/* Column sums of the key: the block's warps add theirs in shared memory,
 * then one atomic per column goes to the workspace. */
template < int BPP > __device__ void
flush_columns (uint32_t (&col)[kMaxChunkPixels], int tile_col, int width,
    uint32_t * ws_columns, uint32_t * smem)
{
  constexpr int PX = chunk_pixels < BPP > ();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < PX; k++) {
    smem[warp * 32 * PX + lane * PX + k] = col[k];
    col[k] = 0;
  }
  __syncthreads ();
  for (int i = threadIdx.x; i < 32 * PX; i += kThreads) {
    uint32_t s = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++)
      s += smem[w * 32 * PX + i];
    int x = tile_col * 32 * PX + i;
    if (x < width && s)
      atomicAdd (&ws_columns[x], s);
  }
  __syncthreads ();
}

/* The block's key counts added to the launch's, an atomic per key value
 * that has any.  Thread v adds up value v's counters, starting each at
 * its own lane so that a warp's loads take 32 banks. */
__device__ __forceinline__ void
flush_key_counts (uint32_t * key_counts)
{
  static_assert (kThreads == CF_HIST_BINS, "a thread per key value");
  const uint32_t *counts = block_key_counts ();
  const int v = threadIdx.x;
  __syncthreads ();
  uint32_t n = 0;
#pragma unroll 8
  for (int l = 0; l < 32; l++)
    n += (counts[(v >> 1) * 32 + ((l + v) & 31)] >> ((v & 1) * 16)) & 0xffffu;
  if (n)
    atomicAdd (&key_counts[v], n);
}

/* A block's walk over a plane's tiles, as (major, minor) coordinates:
 * (tile row, tile column) when it takes every stride-th tile in row-major
 * order, (tile column, tile row) when it takes a run down the columns.
 * Each step adds the stride without dividing: a division per tile, in the
 * loop, was about a seventh of a tile's instructions with profiles. */
struct TileWalk
{
  int major, minor;
  int minors;                   /* per major */
  int step_major, step_minor;   /* the stride, split */
  bool column_major;

  __device__ TileWalk (int first, int stride, int n_minors, bool by_columns)
  {
    minors = n_minors > 0 ? n_minors : 1;       /* (an empty plane) */
    column_major = by_columns;
    major = first / minors;
    minor = first - major * minors;
    step_major = stride / minors;
    step_minor = stride - step_major * minors;
  }
  __device__ int row () const { return column_major ? minor : major; }
  __device__ int col () const { return column_major ? major : minor; }
  /* whether the next step starts a new column of tiles (runs only) */
  __device__ bool column_ends () const { return minor + 1 == minors; }
  __device__ void advance ()
  {
    major += step_major;
    minor += step_minor;
    if (minor >= minors) {
      minor -= minors;
      major++;
    }
  }
};

/* The block's share of a plane's tiles, added to the workspace.  While a
 * tile is counted the loads of the block's next tile are in flight (but
 * for 3-byte pixels), so the memory stays busy through the counting.
 *
 * Which tiles: tile blockIdx.x, then every gridDim.x-th, so that
 * neighbouring blocks read neighbouring tiles; but with profiles of this
 * plane, where a block has two tiles or more, a run of consecutive tiles
 * down the columns of tiles, so that a thread keeps its column sums in
 * registers from one tile to the next and the block adds them to the
 * workspace once per column of tiles it visits (one or two) rather than
 * once a tile.  (With about one tile a block the runs save nothing and
 * cost time.) */
template < int BPP, unsigned K > __device__ void
count_plane (const LaunchArgs & args, const PlaneArgs & pl, bool key_plane,
    Workspace * ws, uint32_t * ws_columns, SharedOf < K > &sh)
{
  constexpr int WORDS = chunk_bytes < BPP > () / 4;
  const bool keyed = K != 0 && key_plane;
  const int n = pl.tile_rows * pl.tile_cols;
  const bool runs = (K & kProfiles) != 0 && keyed &&
      n >= 2 * (int) gridDim.x;
  int first = blockIdx.x, end = n, stride = gridDim.x;
  if (runs) {
    first = (int) ((long long) n * blockIdx.x / gridDim.x);
    end = (int) ((long long) n * (blockIdx.x + 1) / gridDim.x);
    stride = 1;
  }
  TileWalk at (first, stride, runs ? pl.tile_rows : pl.tile_cols, runs);
  Totals t;
  totals_init (t);
  WordAcc wa;
  if constexpr (BPP != 3)
    word_acc_init (wa);
  uint32_t col[kMaxChunkPixels];
#pragma unroll
  for (int k = 0; k < kMaxChunkPixels; k++)
    col[k] = 0;

  /* the next tile's loads are in flight while this one is counted */
  const bool old_keys = keyed && (K & kPrevious) != 0 &&
      (args.flags & CF_SUM_DIFF);
  uint32_t next[kRowsPerWarp][WORDS], next_old[kRowsPerWarp];
  zero_rows < BPP > (next);
#pragma unroll
  for (int r = 0; r < kRowsPerWarp; r++)
    next_old[r] = 0;
  if constexpr (BPP != 3) {
    if (first < end)
      load_rows < BPP > (args, pl, spot_of < BPP > (pl, at.row (),
              at.col ()), old_keys, next, next_old);
  }
  for (int i = first; i < end; i += stride) {
    uint32_t cur[kRowsPerWarp][WORDS], cur_old[kRowsPerWarp];
#pragma unroll
    for (int r = 0; r < kRowsPerWarp; r++) {
      cur_old[r] = next_old[r];
#pragma unroll
      for (int j = 0; j < WORDS; j++)
        cur[r][j] = next[r][j];
    }
    const Spot s = spot_of < BPP > (pl, at.row (), at.col ());
    const bool column_ends = at.column_ends ();
    at.advance ();
    if constexpr (BPP != 3) {
      if (i + stride < end)
        load_rows < BPP > (args, pl, spot_of < BPP > (pl, at.row (),
                at.col ()), old_keys, next, next_old);
    }
    count_tile < BPP, K > (args, pl, keyed, s, cur, cur_old, wa, t, col,
        ws);
    if constexpr ((K & kProfiles) != 0) {
      /* block-uniform: every tile, or in a run where its column of tiles
       * ends */
      if (keyed && (!runs || i + 1 == end || column_ends))
        flush_columns < BPP > (col, s.tile_col, pl.width, ws_columns,
            sh.columns);
    }
  }
  if constexpr (BPP != 3)
    word_acc_fold_rest < BPP > (wa, t);
  add_block_totals < BPP > (pl, t, ws, sh);
}

/* A plane without key features, of any bytes per pixel. */
__device__ __forceinline__ void
count_plain_plane (const LaunchArgs & args, const PlaneArgs & pl,
    Workspace * ws, uint32_t * ws_columns, SharedTotals & sh)
{
  switch (pl.bpp) {
    case 1:
      count_plane < 1, 0 > (args, pl, false, ws, ws_columns, sh);
      break;
    case 2:
      count_plane < 2, 0 > (args, pl, false, ws, ws_columns, sh);
      break;
    case 3:
      count_plane < 3, 0 > (args, pl, false, ws, ws_columns, sh);
      break;
    default:
      count_plane < 4, 0 > (args, pl, false, ws, ws_columns, sh);
      break;
  }
}

/* K: the key features; KEY_BPP: plane 0's bytes per pixel where K is not
 * 0 (1, 3 or 4).  A kernel per key layout, rather than one choosing the
 * key plane's code at run time: ptxas allocates registers for a kernel as
 * a whole, and the kernel with every feature for all layouts spilled 424
 * bytes a thread where each layout alone spilled none. */
template < unsigned K, int KEY_BPP > __global__ void
__launch_bounds__ (kThreads, 2)
sum_kernel (LaunchArgs args, Workspace * __restrict__ ws, int ws_max_height)
{
  __shared__ SharedOf < K > sh;
  uint32_t *ws_columns = ws_rows (ws) + ws_max_height;

  if constexpr ((K & kKeyCounts) != 0) {
    uint32_t *counts = block_key_counts ();
    for (int i = threadIdx.x; i < kKeyCountWords; i += kThreads)
      counts[i] = 0;
    __syncthreads ();
  }

  cf_grid_zero_words (args.zero_next, args.zero_words);

  int p = 0;
  if constexpr (K != 0) {
    if (args.n_planes > 0)
      count_plane < KEY_BPP, K > (args, args.plane[0], true, ws, ws_columns,
          sh);
    p = 1;
  }
  if constexpr ((K & kKeyCounts) != 0)
    flush_key_counts (args.key_counts);
  for (; p < args.n_planes; p++)
    count_plain_plane (args, args.plane[p], ws, ws_columns, sh);

  /* The last block out publishes the totals and leaves zeros behind
   * (cf_sum_planes; cf_sum_planes_add leaves the sums where they are). */
  if (!args.publish || !cf_block_is_last (&ws->blocks_done))
    return;
  /* every load before any store, L2 (where the atomics are) to L2 */
  if (threadIdx.x < 4) {
    const int c = threadIdx.x;
    const unsigned long long sum = __ldcg (&ws->sum[c]);
    const unsigned long long squares = __ldcg (&ws->sum_squares[c]);
    const unsigned int inv_min = __ldcg (&ws->inv_min[c]);
    const unsigned int max = __ldcg (&ws->max[c]);
    args.out->sum[c] = sum;
    args.out->sum_squares[c] = squares;
    args.out->min[c] = 255 - inv_min;
    args.out->max[c] = max;
    __stcg (&ws->sum[c], 0ull);
    __stcg (&ws->sum_squares[c], 0ull);
    __stcg (&ws->inv_min[c], 0u);
    __stcg (&ws->max[c], 0u);
  } else if (threadIdx.x == 4) {
    const unsigned long long black = __ldcg (&ws->black);
    const unsigned long long abs_diff = __ldcg (&ws->abs_diff);
    args.out->black = black;
    args.out->abs_diff = abs_diff;
    __stcg (&ws->black, 0ull);
    __stcg (&ws->abs_diff, 0ull);
    __stcg (&ws->blocks_done, 0u);
  }
  if constexpr ((K & kProfiles) != 0) {
    /* the row sums and then the column sums, one array of words in the
     * workspace: 16-byte loads, eight in flight per thread, so that this
     * single block's copy is one or two L2 round trips (4K: 6000 words)
     * rather than a chain of them */
    uint32_t *sums = ws_rows (ws);
    const int n = args.key_height + args.key_width;
    const int n_vectors = ((uintptr_t) sums & 15) == 0 ? n / 4 : 0;
    constexpr int kLoads = kPublishLoads;
    auto put =[&](int i, uint32_t v) {
      if (i < args.key_height)
        args.row_out[i] = v;
      else
        args.column_out[i - args.key_height] = v;
    };
    for (int base = threadIdx.x; base < n_vectors;
        base += kLoads * kThreads) {
      uint4 v[kLoads];
#pragma unroll
      for (int j = 0; j < kLoads; j++) {
        const int i = base + j * kThreads;
        v[j] = i < n_vectors ?
            __ldcg (reinterpret_cast < const uint4 * >(sums) + i) :
            make_uint4 (0, 0, 0, 0);
      }
#pragma unroll
      for (int j = 0; j < kLoads; j++) {
        const int i = base + j * kThreads;
        if (i < n_vectors) {
          put (4 * i, v[j].x);
          put (4 * i + 1, v[j].y);
          put (4 * i + 2, v[j].z);
          put (4 * i + 3, v[j].w);
          __stcg (reinterpret_cast < uint4 * >(sums) + i,
              make_uint4 (0, 0, 0, 0));
        }
      }
    }
    for (int i = 4 * n_vectors + threadIdx.x; i < n; i += kThreads) {
      put (i, __ldcg (sums + i));
      __stcg (sums + i, 0u);
    }
  }
}

}                               /* namespace */

#endif
