/* The statistics kernels' tuning: block and tile shapes, the loads a
 * thread keeps in flight, the limits that keep 16- and 32-bit sums from
 * overflowing.  Every value here changes only how fast the kernels run,
 * never their results (the static_asserts guard the sums); the
 * measurements behind them are in docs/design/sum.md. */
#ifndef CUDAFILTERS_SUM_POLICY_CUH
#define CUDAFILTERS_SUM_POLICY_CUH

#include "cudafilters-kernels.h"

namespace {

/* warps of a block: a tile's rows are dealt to them in turn, so a tile
 * is kWarps x kRowsPerWarp rows */
constexpr int kWarps = 8;
constexpr int kThreads = 32 * kWarps;
/* rows of a tile a warp counts; the 16-bit lane sums take up to 64 rows
 * of four words */
constexpr int kRowsPerWarp = 8;
constexpr int kTileRows = kWarps * kRowsPerWarp;
/* tiles of a plane a block counts at most, so that a warp's sum of
 * squares fits 32 bits: 32 * 12 * kRowsPerWarp * 16 * 255^2 < 2^32 */
constexpr int kMaxTilesPerBlock = 12;
static_assert (32ull * kMaxTilesPerBlock * kRowsPerWarp * 16 * 255 * 255
    < (1ull << 32), "squares overflow");
/* pixels of a chunk at most (16 bytes of 1-byte pixels) */
constexpr int kMaxChunkPixels = 16;
static_assert (kRowsPerWarp * 4 <= 256, "16-bit lane sums overflow");

/* a lane's chunk of a row: 16 bytes, or 48 for 3-byte pixels (whole
 * pixels) */
template < int BPP > __host__ __device__ constexpr int
chunk_bytes ()
{
  return BPP == 3 ? 48 : 16;
}

template < int BPP > __host__ __device__ constexpr int
chunk_pixels ()
{
  return chunk_bytes < BPP > () / BPP;
}

/* Rows of a tile whose loads a thread issues together.  A tile's rows
 * take 32 registers a buffer, and the next tile's are loaded while this
 * one is counted, but for 3-byte pixels: their 48-byte chunks would take
 * 96 a buffer, so they are loaded two rows at a time within the tile. */
template < int BPP > __host__ __device__ constexpr int
rows_in_flight ()
{
  return BPP == 3 ? 2 : kRowsPerWarp;
}

/* The byte positions of a word whose samples belong to different channels
 * (BPP 1: one; BPP 2: the pairs 0, 2 and 1, 3; 3 bytes per pixel: a slot
 * per byte of a pixel). */
template < int BPP > __host__ __device__ constexpr int
positions ()
{
  return BPP == 1 ? 1 : BPP == 2 ? 2 : BPP == 3 ? 3 : 4;
}

/* statistics_kernel: vectors a thread loads before counting any, so that
 * a block's 32 KB are in flight at once */
constexpr int kRunVectors = 8;
/* 16-bit lane sums: kRunVectors vectors of 4 words, 255 each at most */
static_assert (kRunVectors * 4 * 255 < 65536, "16-bit lane sums overflow");

/* sum_kernel, 1-byte pixels with the previous keys: rows whose previous
 * keys are loaded together, so that a tile waits for them twice rather
 * than once a row (no registers to load them a tile ahead) */
constexpr int kPreviousKeyRows = 4;

/* the last block's copy of the row and column sums: 16-byte loads in
 * flight per thread, so that the copy is one or two L2 round trips */
constexpr int kPublishLoads = 8;

}                               /* namespace */

#endif
