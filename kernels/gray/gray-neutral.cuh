/* The neutral chroma of a grey frame (CfNeutralPlanes), written by blocks
 * of the launch that writes the grey plane, so that a frame costs one
 * launch rather than one a plane (#47).  The fill's blocks come after the
 * grey plane's in the grid's block order, blockIdx.y * gridDim.x +
 * blockIdx.x: a grid of one row grows in x, a grid of several rows by
 * rows of blocks in y.  Each grey kernel starts with
 *   if (neutral_fill_block (fill)) return;
 * and each fill thread sets 16 bytes of a plane (the row's last bytes one
 * at a time), so the planes' data and pitches must be multiples of 16;
 * where they are not, or where the grown grid would pass its limits, the
 * grey kernel runs alone and cf_fill_plane () or cf_fill_plane16 ()
 * follow it.
 * Tests (kernels-gray): test_neutral_planes, test_neutral_grid_limit,
 * test_neutral_invalid_arguments. */
#ifndef CUDAFILTERS_GRAY_NEUTRAL_CUH
#define CUDAFILTERS_GRAY_NEUTRAL_CUH

#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

#include <stdint.h>

#include <atomic>

namespace {

/* What the fill's blocks write, passed by value to the grey kernels.
 * Vectors (16 bytes, the last of a row maybe fewer) are numbered plane by
 * plane, row by row; [0, plane1_vec) are plane 0's, [plane1_vec, n_vecs)
 * plane 1's.  n_vecs 0: the launch has no fill. */
struct NeutralFill
{
  uint8_t *data[CF_NEUTRAL_MAX_PLANES];
  size_t pitch[CF_NEUTRAL_MAX_PLANES];
  size_t row_bytes[CF_NEUTRAL_MAX_PLANES];
  int vecs_per_row[CF_NEUTRAL_MAX_PLANES];
  int plane1_vec, n_vecs;
  /* the first block that fills */
  int first_block;
  /* 4 bytes of the value as they lie in memory: 128 128 128 128, or
   * 0x8000 0x8000 little-endian */
  uint32_t pattern;
};

/* True in the fill's blocks, which have then done their part of it. */
__device__ __forceinline__ bool
neutral_fill_block (const NeutralFill & f)
{
  if (f.n_vecs == 0)
    return false;
  /* (neutral_launch keeps every block's number and every fill thread's
   * in an int) */
  const int block = blockIdx.y * gridDim.x + blockIdx.x;
  if (block < f.first_block)
    return false;
  int i = (block - f.first_block) * (blockDim.x * blockDim.y)
      + threadIdx.y * blockDim.x + threadIdx.x;
  if (i >= f.n_vecs)
    return true;
  /* the plane's fields picked, not indexed: an index into the parameters
   * would copy them to local memory */
  const bool second = i >= f.plane1_vec;
  if (second)
    i -= f.plane1_vec;
  const int vecs_per_row = second ? f.vecs_per_row[1] : f.vecs_per_row[0];
  const size_t row_bytes = second ? f.row_bytes[1] : f.row_bytes[0];
  const int y = i / vecs_per_row;
  const size_t x = (size_t) (i - y * vecs_per_row) * 16;
  uint8_t *d = (second ? f.data[1] : f.data[0])
      + (size_t) y * (second ? f.pitch[1] : f.pitch[0]) + x;
  if (x + 16 <= row_bytes) {
    *reinterpret_cast < uint4 * >(d) = make_uint4 (f.pattern, f.pattern,
        f.pattern, f.pattern);
  } else {
    for (size_t k = 0; k < row_bytes - x; k++)
      d[k] = (uint8_t) (f.pattern >> (8 * (k & 3)));
  }
  return true;
}

/* ---- host side ---- */

/* a plane that nothing is written to */
static inline bool
neutral_plane_empty (const CfNeutralPlanes * n, int p)
{
  return n->rows[p] == 0 || n->row_bytes[p] == 0;
}

/* the 16-byte vectors of plane @p */
static inline long long
neutral_plane_vecs (const CfNeutralPlanes * n, int p)
{
  return neutral_plane_empty (n, p) ? 0 :
      (long long) ((n->row_bytes[p] + 15) / 16) * n->rows[p];
}

/* Whether @n (NULL: none) is what CfNeutralPlanes allows, each plane
 * within what cf_fill_plane () and cf_fill_plane16 () take. */
static inline bool
neutral_planes_valid (const CfNeutralPlanes * n)
{
  if (!n)
    return true;
  if (n->n_planes < 0 || n->n_planes > CF_NEUTRAL_MAX_PLANES)
    return false;
  for (int p = 0; p < n->n_planes; p++) {
    if (n->rows[p] < 0)
      return false;
    if (neutral_plane_empty (n, p))
      continue;
    if (!n->data[p] || n->pitch[p] < n->row_bytes[p]
        || n->row_bytes[p] > INT32_MAX
        || (n->words && (n->row_bytes[p] % 2 != 0
                || n->rows[p] > 8 * 65535))
        || neutral_plane_vecs (n, p) > INT32_MAX - 256)
      return false;
  }
  return true;
}

/* A grey launch and the fill it carries (fill.n_vecs 0: none). */
struct NeutralLaunch
{
  dim3 grid;
  NeutralFill fill;
};

/* The launch of @grid blocks of @threads that writes the grey plane,
 * grown by the blocks that fill @n (valid, or NULL) where it can be;
 * otherwise @grid as it is, without the fill. */
static inline NeutralLaunch
neutral_launch (dim3 grid, int threads, const CfNeutralPlanes * n)
{
  NeutralLaunch l = { grid, NeutralFill () };
  if (!n)
    return l;

  long long vecs = 0, plane0_vecs = 0;
  for (int p = 0; p < n->n_planes; p++) {
    if (!neutral_plane_empty (n, p)
        && !cf_is_aligned (n->data[p], n->pitch[p], 16))
      return l;
    vecs += neutral_plane_vecs (n, p);
    if (p == 0)
      plane0_vecs = vecs;
  }
  if (vecs == 0 || vecs > INT32_MAX)
    return l;
  const long long grey_blocks = (long long) grid.x * grid.y;
  const long long fill_blocks = (vecs + threads - 1) / threads;
  long long grid_x = grid.x, grid_y = grid.y;
  if (grid_y == 1)
    grid_x += fill_blocks;
  else
    grid_y += (fill_blocks + grid_x - 1) / grid_x;
  /* every block's number, and every fill thread's, in an int */
  if (grid_y > 65535 || grid_x * grid_y * threads > INT32_MAX)
    return l;
  grid.x = (unsigned) grid_x;
  grid.y = (unsigned) grid_y;

  NeutralFill & f = l.fill;
  for (int p = 0; p < n->n_planes; p++) {
    f.data[p] = (uint8_t *) n->data[p];
    f.pitch[p] = n->pitch[p];
    f.row_bytes[p] = n->row_bytes[p];
    f.vecs_per_row[p] = (int) ((n->row_bytes[p] + 15) / 16);
  }
  f.plane1_vec = (int) plane0_vecs;
  f.n_vecs = (int) vecs;
  f.first_block = (int) grey_blocks;
  f.pattern = n->words ? 0x80008000u : 0x80808080u;
  l.grid = grid;
  return l;
}

/* The planes of @n (valid, or NULL) filled by launches of their own. */
static inline CfError
neutral_fill_apart (const CfNeutralPlanes * n, CfStream stream)
{
  CfError err = cudaSuccess;
  for (int p = 0; n && err == cudaSuccess && p < n->n_planes; p++) {
    if (neutral_plane_empty (n, p))
      continue;
    if (n->words)
      err = cf_fill_plane16 (n->data[p], n->pitch[p],
          (int) (n->row_bytes[p] / 2), n->rows[p], 0x8000, stream);
    else
      err = cf_fill_plane (n->data[p], n->pitch[p], n->row_bytes[p],
          n->rows[p], 128, stream);
  }
  return err;
}

/* After the grey kernel's launch @l: its error, else the planes of @n
 * that it did not fill, filled apart; @fused counts the launches that
 * filled them. */
static inline CfError
neutral_launched (const NeutralLaunch & l, const CfNeutralPlanes * n,
    CfStream stream, std::atomic < unsigned long long >&fused)
{
  CfError err = cudaGetLastError ();
  if (err != cudaSuccess)
    return err;
  if (l.fill.n_vecs != 0) {
    fused.fetch_add (1, std::memory_order_relaxed);
    return err;
  }
  return neutral_fill_apart (n, stream);
}

}                               /* namespace */

#endif
