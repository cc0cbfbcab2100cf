/* The blur kernels' tuning: block sizes, tile shapes, blocks per SM, the
 * radius and pitch limits of each path.  Every value here changes only
 * how fast the kernels run (or which path dispatch picks), never their
 * results; the measurements behind them are in docs/design/blur.md. */
#ifndef CUDAFILTERS_BLUR_POLICY_CUH
#define CUDAFILTERS_BLUR_POLICY_CUH

#include <stddef.h>

#include "cudafilters-kernels.h"

namespace {

/* ---- CUDA cores, two passes (blur-simt.cuh) ----------------------------- */

/* horizontal: a block filters kHRows rows of kHThreads * kHPix pixels */
constexpr int kHThreads = 128;
constexpr int kHRows = 2;       /* rows per block: small blocks, many per SM */
constexpr int kHPix = 4;        /* pixels a thread: a tap serves 4 outputs */

/* vertical: a thread takes two channel columns down a run of rows */
constexpr int kVThreads = 128;
constexpr int kVRowsBuckets = 64;       /* output rows per thread, buckets */
constexpr int kVRowsGeneric = 32;       /* the same, any radius */

/* the largest radius bucket with its taps unrolled; beyond, loops */
constexpr int kSimtMaxBucket = 32;

/* ---- tensor cores, fused pass (blur-mma.cuh, blur-mma-r8*.cuh) ---------- */

/* the largest radius of the fused pass: beyond, the band fragments and the
 * t ring no longer fit (blur-wide.cuh takes over) */
constexpr int kMmaMaxRadius = 32;
/* rows at most this far apart: offsets within a step are 32-bit
 * (StepLoader::unit_offset, blur_mma8_kernel's out_lane) */
constexpr size_t kMmaMaxPitch = (size_t) 1 << 26;

constexpr int kMmaThreads = 128;
constexpr int kMmaWarps = kMmaThreads / 32;
constexpr int kMmaStripPx = 64;         /* pixels of a strip */
constexpr int kMmaStep = 16;            /* rows of a step: one MMA tile high */
/* A warp owns 16 pixel columns of a strip: a block has 2 threads a pixel */
__host__ __device__ constexpr int
mma_threads (int strip_px)
{
  return 2 * strip_px;
}

/* The halo, in pixels and rows, for a radius: a multiple of 8 (so that a
 * row of a step is whole 4-pixel units, and the lag whole steps) */
__host__ __device__ constexpr int
mma_halo (int r)
{
  return 8 * (((r < 1 ? 1 : r) + 7) / 8);
}

/* blur_mma_kernel's blocks per SM: 6 fit in registers (a few bytes
 * spilled) and shared memory up to a halo of 16; beyond, the band
 * fragments need more registers */
__host__ __device__ constexpr int
mma_blocks_per_sm (int halo)
{
  return halo <= 16 ? 6 : 4;
}

/* Radius 8: the strips (pixels), blocks an SM, and steps of input in
 * flight (ahead, in ahead + 1 raw buffers) of blur_mma8_kernel.
 * - 1 to 3 channels: strips of 64 pixels (128 threads), 1 step ahead, 5
 *   blocks an SM; 2 channels (NV12's chroma) 4, where ptxas spills at 5
 *   and not at 4.
 * - 4 channels: strips of 128 pixels (256 threads), 2 blocks an SM with up
 *   to 128 registers a thread, 2 steps ahead: the halo is 12.5% of a strip
 *   instead of 25%.  The same shape did not pay for 1 and 2 channels; 3
 *   channels keep the shape that was measured before. */
template < int C > struct Mma8Shape
{
  static constexpr bool wide = C == 4;
  static constexpr int strip = wide ? 128 : kMmaStripPx;
  static constexpr int threads = mma_threads (strip);
  static constexpr int blocks_per_sm = wide ? 2 : C == 2 ? 4 : 5;
  static constexpr int ahead = wide ? 2 : 1;
};

/* the narrowest frame whose border the radius-8 kernels fold into their
 * bands: every tap outside is then one reflection (or clamp) of a column
 * inside, within a warp's taps */
constexpr int kFoldMinWidth = 32;

/* At radius 8, blocks are trimmed to a whole number a strip where that
 * keeps at least kStripAlignKeep tenths of them: blocks side by side then
 * read the same rows together, and the shared halo columns come from L2 */
constexpr int kStripAlignKeep = 9;

/* ---- radius 8, 4 channels, sm_90 (blur-mma-r8-sm90.cuh) ----------------- */

/* The input of a step: the span's 16 rows (144 pixels, 576 bytes each) as
 * copied, a row every kDirectPitch bytes, in a ring of kDirectBuffers
 * buffers (2 steps copied ahead; the 4th frees a buffer's readers from
 * waiting for the slowest warp).  608, not the 592 that would put the 8
 * rows an ldmatrix reads on 8 different groups of banks: a 16-byte
 * cp.async whose shared address is not in the same place of a 32-byte
 * sector as its global address fetches its sector twice.  At 608 bytes
 * the ldmatrix reads are 2-way bank conflicted, the lesser cost. */
constexpr int kDirectPitch = 608;
constexpr int kDirectStep = kMmaStep * kDirectPitch;
constexpr int kDirectBuffers = 4;

/* ---- radius 8, 1 and 2 channels, sm_90 (blur-mma-r8-sm90-narrow.cuh) -- */

/* Strips of 64 pixels (4 warps, as Mma8Shape < 1 or 2 >), a step's rows
 * copied with 16 bytes either side (the halo's 8 pixels, rounded out to
 * whole 16-byte units), a row every `row_bytes`: 96 bytes for 1 channel,
 * 160 for 2.  Both are 0 modulo 32, so a copy's shared address sits where
 * its global one does in a 32-byte sector (strips start on multiples of
 * 64 bytes); their 8 or 24 words modulo 32 leave the B operands' 32-bit
 * loads 2-way bank conflicted and the 64-bit ones free.  6 and 5 blocks
 * an SM fit in registers (1 and 2 channels) without spilling; 4 are
 * launched (kNarrowLaunchPerSm): each block's part of a strip is then
 * longer, which paid at 1080p and cost nothing measurable at 4K.
 * Strips of 128 pixels, 3 or 6 steps ahead, and 2 steps a warp computed
 * at once did not pay (docs/performance.md). */
template < int C > struct Mma8NarrowShape
{
  static_assert (C == 1 || C == 2, "NV12's planes");
  static constexpr int strip = 64;
  static constexpr int threads = mma_threads (strip);
  static constexpr int blocks_per_sm = C == 1 ? 6 : 5;
  static constexpr int row_bytes = strip * C + 32;
  static constexpr int units_per_row = row_bytes / 16;
  static constexpr int units = kMmaStep * units_per_row;
  static constexpr int step_bytes = kMmaStep * row_bytes;
  /* the output rows of a step: 16-byte chunks, rows out_pitch apart (16 C
   * bytes more than a row, so that the lanes' 4 C-byte writes of 8 rows
   * fall on different banks), two buffers of out_bytes */
  static constexpr int out_chunks = strip * C / 16;
  static constexpr int out_pitch = strip * C + 16 * C;
  static constexpr int out_bytes = kMmaStep * out_pitch;
};
/* steps copied ahead, into a ring of kNarrowBuffers (a power of two: the
 * ring's positions are taken modulo it at every step) */
constexpr int kNarrowAhead = 4;
constexpr int kNarrowBuffers = 8;
constexpr int kNarrowLaunchPerSm = 4;
/* the largest radius its halo of 8 takes */
constexpr int kNarrowMaxRadius = 8;
/* the planes of one launch (cf_blur_planes) */
constexpr int kNarrowMaxPlanes = CF_BLUR_MAX_PLANES;

/* ---- radii 33 to 150, tensor cores, two passes (blur-wide.cuh) ---------- */

constexpr int kWideThreads = 128;
constexpr int kWideHPx = 128;   /* output pixels of a horizontal item */
constexpr int kWideStrip = 64;  /* values (output bytes) of a vertical strip */
constexpr int kWideStep = 32;   /* rows of a vertical step */
/* blur_wide_h_kernel's blocks per SM: more blocks hide more latency, at
 * the cost of a few spilled bytes at 4 channels */
constexpr int kWideHBlocksPerSm = 6;
/* units a thread loads before it uses any: the loads overlap */
constexpr int kWideBatch = 4;

}                               /* namespace */

#endif
