/* How the fused tensor-core pass gets its input: the blocks' shares of
 * the work (WorkRun), and the asynchronous copies of a step's rows with
 * the border rule applied, staged into one plane per channel
 * (StepLoader). */
#ifndef CUDAFILTERS_BLUR_STAGING_CUH
#define CUDAFILTERS_BLUR_STAGING_CUH

#include "blur-bands.cuh"
namespace {

/* The work of a launch: the 16-row output steps of every strip, strip
 * after strip.  Each block takes an equal share of them, a run (crossing
 * into the next strip where its run does), so that all blocks finish
 * together; next() gives the run's parts, one strip each.  A step of the
 * first or the last strip counts EDGE_WEIGHT eighths of one of the
 * others: their steps fill the columns outside the frame, behind a
 * barrier of their own (StepLoader::fill_halo()). */
template < int EDGE_WEIGHT, int STRIP = kMmaStripPx > struct WorkRun
{
  int width, height, out_steps, strips;
  long long s0, s1;

  /* the share of block `block` of `blocks` (by default the launch's) */
  __device__ WorkRun (int w, int h, int block = blockIdx.x,
      int blocks = gridDim.x) : width (w), height (h),
      out_steps ((h + kMmaStep - 1) / kMmaStep),
      strips ((w + STRIP - 1) / STRIP)
  {
    if constexpr (EDGE_WEIGHT == 8) {
      const long long total = (long long) strips * out_steps;
      /* (in 32 bits where the products fit, as they do up to 8K and
       * beyond: each block's first copies wait for this, and 64-bit
       * divisions are long instruction sequences) */
      if (total * blocks <= 0xffffffffLL) {
        const uint32_t total32 = (uint32_t) total;
        s0 = total32 * (uint32_t) block / (uint32_t) blocks;
        s1 = total32 * (uint32_t) (block + 1) / (uint32_t) blocks;
      } else {
        s0 = total * block / blocks;
        s1 = total * (block + 1) / blocks;
      }
    } else {
      const long long o = out_steps, inner = strips > 2 ? strips - 2 : 0;
      const long long total = 8 * o * inner + EDGE_WEIGHT * o *
          (strips > 1 ? 2 : 1);
      s0 = step_at (total * block / blocks);
      s1 = step_at (total * (block + 1) / blocks);
    }
  }

  /* the first step that starts at or after `work` eighths */
  __device__ long long step_at (long long work) const
  {
    const long long o = out_steps;
    const long long first_end = EDGE_WEIGHT * o;        /* strip 0's work */
    const long long inner_end = first_end + 8 * o * (strips - 2);
    if (strips == 1 || work <= first_end)
      return (work + EDGE_WEIGHT - 1) / EDGE_WEIGHT;
    if (work <= inner_end)
      return o + (work - first_end + 7) / 8;
    return (strips - 1) * o + (work - inner_end + EDGE_WEIGHT - 1) /
        EDGE_WEIGHT;
  }

  /* the next part: strip pixels from x0, output rows from y0 (rows of
   * them, in n steps); false when the run is done */
  __device__ bool next (int &x0, int &y0, int &rows, int &n)
  {
    if (s0 >= s1)
      return false;
    const int strip = s1 <= 0xffffffffLL ? (int) ((uint32_t) s0 /
        (uint32_t) out_steps) : (int) (s0 / out_steps);
    const int first = (int) (s0 - (long long) strip * out_steps);
    n = (int) min ((long long) (out_steps - first), s1 - s0);
    x0 = strip * STRIP;
    y0 = first * kMmaStep;
    rows = min (n * kMmaStep, height - y0);
    s0 += n;
    return true;
  }
};

/* cp.async of a unit's 4 C bytes (sm_80 on; nothing before).  With
 * PREFETCH_256 (4 channels), L2 fetches the unit's whole 256-byte block
 * from DRAM (.L2::256B): blur_mma8_direct_kernel's rows are 576 bytes a
 * strip and step, so the neighbouring units' sectors are wanted soon. */
template < int C, bool PREFETCH_256 = false > __device__ __forceinline__
    void
copy_unit_async (uint32_t to, const uint8_t * from)
{
  if constexpr (C == 4) {
    cp_async < 16, PREFETCH_256 > (to, from);
  } else if constexpr (C == 2) {
    cp_async < 8 > (to, from);
  } else {
#pragma unroll
    for (int w = 0; w < C; w++)
      cp_async < 4 > (to + 4 * w, from + 4 * w);
  }
}

/* cp.async of one aligned 4-byte word (sm_80 on; nothing before) */
__device__ __forceinline__ void
copy_word_async (uint32_t to, const uint32_t * from)
{
  cp_async < 4 > (to, from);
}

/* The aligned word holding pixel sx of a row of `width` pixels, and the
 * pixel's first byte in it; nullptr where the pixel's C bytes straddle two
 * words, or the word reaches outside the row's pixels (which need not be
 * memory of the frame's). */
template < int C > __device__ __forceinline__ const uint32_t *
pixel_word (const uint8_t * row, int sx, int width, int &offset)
{
  const uintptr_t b = (uintptr_t) (row + (size_t) sx * C);
  offset = (int) (b & 3);
  const uintptr_t w = b - offset;
  if (offset + C > 4 || w < (uintptr_t) row
      || w + 4 > (uintptr_t) (row + (size_t) width * C))
    return nullptr;
  return reinterpret_cast < const uint32_t * >(w);
}

/* The two halves of a unit on a frame row that is neither copied whole nor
 * wholly outside the frame (see StepLoader).  The first issues copies of
 * the words holding its four pixels, the border rule applied, on frame row
 * `row`, to the four words of its slot. */
template < int C > __device__ __forceinline__ void
issue_border_unit (uint32_t slot, const uint8_t * row, int px0, int width,
    int border)
{
#pragma unroll
  for (int p = 0; p < 4; p++) {
    const int sx = border_index (px0 + p, width, border);
    int offset;
    const uint32_t *word = sx >= 0 ?
        pixel_word < C > (row, sx, width, offset) : nullptr;
    if (word)
      copy_word_async (slot + 4 * p, word);
  }
}

/* The second builds the unit from its slot, as its four pixels of C bytes
 * would lie in memory: `constant` (C bytes) where the border rule gives no
 * pixel; a pixel whose word was not copied (see pixel_word) is loaded
 * now. */
template < int C > __device__ __forceinline__ uint4
border_unit (const uint32_t * slot, const uint8_t * row, int px0, int width,
    int border, uint32_t constant)
{
  uint32_t w[4] = { 0, 0, 0, 0 };
#pragma unroll
  for (int p = 0; p < 4; p++) {
    const int sx = border_index (px0 + p, width, border);
    uint32_t v = constant;
    int offset;
    if (sx >= 0) {
      if (pixel_word < C > (row, sx, width, offset)) {
        v = slot[p] >> (8 * offset);
      } else {
        v = 0;
#pragma unroll
        for (int c = 0; c < C; c++)
          v |= (uint32_t) row[(size_t) sx * C + c] << (8 * c);
      }
    }
    if constexpr (C == 4) {
      w[p] = v;
    } else {
#pragma unroll
      for (int c = 0; c < C; c++) {
        const int b = p * C + c;
        w[b / 4] |= ((v >> (8 * c)) & 0xffu) << (8 * (b % 4));
      }
    }
  }
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* Four pixels of C bytes, each `constant` (C bytes), as they would lie in
 * memory: a unit of a constant row */
template < int C > __device__ __forceinline__ uint4
constant_unit (uint32_t constant)
{
  uint32_t w[4] = { 0, 0, 0, 0 };
#pragma unroll
  for (int b = 0; b < 4 * C; b++)
    w[b / 4] |= ((constant >> (8 * (b % C))) & 0xffu) << (8 * (b % 4));
  return make_uint4 (w[0], w[1], w[2], w[3]);
}

/* The input of a step: 16 rows of span pixels from x0 - HALO, unit u (4
 * pixels) at row u / units_per_row.  Every load is asynchronous
 * (cp.async), issued one step ahead (or two) into this thread's 16-byte
 * slot of a raw buffer: the loads stay in flight during the step's
 * products without holding registers.  Staging turns each unit into one
 * word per channel plane.  A thread stages the units it copied, so only
 * cp.async's own wait orders them.
 *
 * - A unit inside the frame, on an aligned row, is one copy.
 * - A unit of a constant row (the border rule's rows above and below the
 *   frame) is the constant.
 * - A unit wholly left or right of the frame is not loaded at all: once the
 *   step's planes are staged (after a barrier), fill_halo() writes those
 *   columns from the frame's columns the border rule names, which the span
 *   holds.  Building them unit by unit instead, each lane with a
 *   different unit, costs the edge strips' blocks about as many
 *   instructions per step as the rest of the step's work, and their
 *   blocks would set the kernel's time.  (The
 *   radius-8 kernel with 4 channels needs no values there for the
 *   replicate and reflect-101 rules: folded_band_fragments.)
 * - Any other unit (on rows that are not aligned, or straddling the frame's
 *   right edge) is built pixel by pixel through the border rule, from the
 *   copied frame words that hold its pixels.
 * Steps of frame rows whose units are all of the first and third kinds
 * (interior(), whole_units()) take paths without the per-unit checks the
 * others need (issue_whole(), stage_whole()). */
template < int C, int HALO, int STRIP = kMmaStripPx > struct StepLoader
{
  using L = MmaLayout < HALO, STRIP >;
  const uint8_t *src;
  size_t src_pitch;
  int width, height, x0, y0;
  bool rows_aligned;
  /* unit u's byte offset from the step's first span pixel of its first
   * row.  A copy's address is then this 32-bit offset added to a base the
   * block shares, where it was a 64-bit multiply-add a unit (src_pitch is
   * below 2^26: see try_mma). */
  __device__ __forceinline__ uint32_t unit_offset (int u) const
  {
    const int rr = u / L::units_per_row;
    return (uint32_t) rr * (uint32_t) src_pitch +
        (uint32_t) (4 * C * (u - rr * L::units_per_row));
  }

  /* the first pixel of unit u (of its row of the span) */
  __device__ __forceinline__ int unit_x (int u) const
  {
    const int rr = u / L::units_per_row;
    return x0 - HALO + 4 * (u - rr * L::units_per_row);
  }

  /* the unit's first pixel and frame row (-1: constant) */
  __device__ __forceinline__ void where (int step, int u, int &px0,
      int &sy, const BlurArgs & a) const
  {
    const int rr = u / L::units_per_row;
    px0 = unit_x (u);
    sy = border_index (y0 - HALO + step * kMmaStep + rr, height, a.border);
  }

  __device__ __forceinline__ bool copied (int px0, int sy) const
  {
    return sy >= 0 && rows_aligned && px0 >= 0 && px0 + 4 <= width;
  }

  /* wholly left or right of the frame: left to fill_halo() */
  __device__ __forceinline__ bool outside (int px0) const
  {
    return px0 + 4 <= 0 || px0 >= width;
  }

  /* whether the step's rows and the span's columns are all frame pixels
   * on aligned rows, so that every unit is one copy (the same for every
   * thread of the block).  Most steps are; they take a path with none of
   * the checks below, which cost more instructions than the copies and the
   * staging themselves. */
  __device__ __forceinline__ bool interior (int step) const
  {
    const int top = y0 - HALO + step * kMmaStep;
    return rows_aligned && x0 - HALO >= 0 && x0 - HALO + L::span <= width
        && top >= 0 && top + kMmaStep <= height;
  }

  /* where unit u lies in a staged plane: its row's start plus 4 bytes a
   * unit (which is 4 u where the rows are exactly the span) */
  __device__ __forceinline__ static int plane_offset (int u)
  {
    if constexpr (L::in_w == 4 * L::units_per_row) {
      return 4 * u;
    } else {
      const int rr = u / L::units_per_row;
      return rr * L::in_w + 4 * (u - rr * L::units_per_row);
    }
  }

  /* whether the step's rows are as interior()'s and the span's units lie
   * each wholly in the frame or wholly outside it (the same for every
   * thread of the block): then every unit is one copy or, outside, left
   * to fill_halo().  The left strip's steps always are (the span starts
   * on a multiple of 4), the right strip's where the width is a multiple
   * of 4.  Through issue_edge() and stage_edge(), the edge strips' steps
   * would cost much more than the others', and the kernel would wait for
   * their blocks. */
  __device__ __forceinline__ bool whole_units (int step) const
  {
    const int top = y0 - HALO + step * kMmaStep;
    return rows_aligned && (width % 4 == 0 || x0 - HALO + L::span <= width)
        && top >= 0 && top + kMmaStep <= height;
  }

  /* whether the span has columns outside the frame (the same for every
   * thread of the block) */
  __device__ __forceinline__ bool has_halo () const
  {
    return x0 - HALO < 0 || x0 - HALO + L::span > width;
  }

  /* f (u, px0, sy) for each unit of the step that is this thread's */
  template < typename F > __device__ __forceinline__ void
  each_unit (int step, int tid, const BlurArgs & a, F f) const
  {
    each_unit_index (tid,[&](int u) {
          int px0, sy;
          where (step, u, px0, sy, a);
          f (u, px0, sy);
        });
  }

  /* f (u) for each unit of a step that is this thread's */
  template < typename F > __device__ __forceinline__ static void
  each_unit_index (int tid, F f)
  {
#pragma unroll
    for (int k = 0; k < L::units_per_thread; k++) {
      const int u = tid + k * L::threads;
      if (L::units % L::threads == 0 || u < L::units)
        f (u);
    }
  }

  __device__ __forceinline__ void issue (uint8_t * raw, int step, int tid,
      const BlurArgs & a) const
  {
    if (interior (step))
      issue_whole < false > (raw, step, tid);
    else if (whole_units (step))
      issue_whole < true > (raw, step, tid);
    else
      issue_edge (raw, step, tid, a);
    cp_async_commit ();
  }

  /* a step that is whole_units(); SOME_OUTSIDE where it is not
   * interior() */
  template < bool SOME_OUTSIDE > __device__ __forceinline__ void
  issue_whole (uint8_t * raw, int step, int tid) const
  {
    const int top = y0 - HALO + step * kMmaStep;
    /* (on the left strip, left of the frame's first pixel: the units there
     * are not copied) */
    const uintptr_t base = (uintptr_t) src + (uintptr_t) ((intptr_t) top *
        (intptr_t) src_pitch + (intptr_t) (x0 - HALO) * C);
    each_unit_index (tid,[&](int u) {
          if constexpr (SOME_OUTSIDE) {
            const int px0 = unit_x (u);
            if (px0 < 0 || px0 >= width)
              return;
          }
          copy_unit_async < C > ((uint32_t) __cvta_generic_to_shared (raw +
                  16 * u), reinterpret_cast < const uint8_t * >(base +
                  unit_offset (u)));
        });
  }

  /* a step that is not whole_units(): unit by unit, as the list above
   * says */
  __device__ __forceinline__ void issue_edge (uint8_t * raw, int step,
      int tid, const BlurArgs & a) const
  {
    each_unit (step, tid, a,[&](int u, int px0, int sy) {
          const uint32_t slot = (uint32_t) __cvta_generic_to_shared (raw +
              16 * u);
          if (copied (px0, sy)) {
            copy_unit_async < C > (slot, src + (size_t) sy * src_pitch +
                (size_t) px0 * C);
          } else if (sy >= 0 && !outside (px0)) {
            issue_border_unit < C > (slot, src + (size_t) sy * src_pitch, px0,
                width, a.border);
          }
        });
  }

  /* into the C planes at `in` (plane stride in_stride), once this
   * thread's copies of the step have landed: all but the PENDING groups
   * it committed last (the steps issued after this one) */
  template < int PENDING = 0 >
  __device__ __forceinline__ void stage (const uint8_t * raw, uint8_t * in,
      int in_stride, int step, int tid, const BlurArgs & a) const
  {
    cp_async_wait < PENDING > ();
    if (interior (step))
      stage_whole < false > (raw, in, in_stride, tid);
    else if (whole_units (step))
      stage_whole < true > (raw, in, in_stride, tid);
    else
      stage_edge (raw, in, in_stride, step, tid, a);
  }

  /* (the same for staging) */
  template < bool SOME_OUTSIDE > __device__ __forceinline__ void
  stage_whole (const uint8_t * raw, uint8_t * in, int in_stride,
      int tid) const
  {
    each_unit_index (tid,[&](int u) {
          if constexpr (SOME_OUTSIDE) {
            const int px0 = unit_x (u);
            if (px0 < 0 || px0 >= width)
              return;
          }
          stage_unit (*reinterpret_cast < const uint4 * >(raw + 16 * u), in,
              in_stride, u);
        });
  }

  /* (the same for staging) */
  __device__ __forceinline__ void stage_edge (const uint8_t * raw,
      uint8_t * in, int in_stride, int step, int tid,
      const BlurArgs & a) const
  {
    uint32_t constant = 0;
#pragma unroll
    for (int c = 0; c < C; c++)
      constant |= (uint32_t) a.border_value[c] << (8 * c);
    each_unit (step, tid, a,[&](int u, int px0, int sy) {
          uint4 unit;
          if (copied (px0, sy))
            unit = *reinterpret_cast < const uint4 * >(raw + 16 * u);
          else if (sy < 0)
            unit = constant_unit < C > (constant);
          else if (outside (px0))
            return;
          else
            unit = border_unit < C > (reinterpret_cast < const uint32_t * >(raw
                    + 16 * u), src + (size_t) sy * src_pitch, px0, width,
                a.border, constant);
          stage_unit (unit, in, in_stride, u);
        });
  }

  /* unit u's four pixels into its word of each channel plane */
  __device__ __forceinline__ static void stage_unit (const uint4 & unit,
      uint8_t * in, int in_stride, int u)
  {
    uint32_t ch[C];
    deinterleave4 < C > (unit, ch);
#pragma unroll
    for (int c = 0; c < C; c++)
      *reinterpret_cast < uint32_t * >(in + c * in_stride + plane_offset (u)) =
          ch[c];
  }

  /* The span's columns outside the frame, in the staged planes: each a
   * copy of the frame column the border rule names, or the constant.  For
   * a column at most HALO pixels past the frame's edge, that column is in
   * the span (the edge column, or a mirror image within HALO pixels of the
   * edge).  Columns further out feed only outputs past the frame's edge,
   * and get zeros. */
  __device__ __forceinline__ void fill_halo (uint8_t * in, int in_stride,
      int tid, const BlurArgs & a) const
  {
    const int left = x0 - HALO;
    const int n_left = max (0, min (L::span, -left));
    const int right_from = max (n_left, min (L::span, width - left));
    const int n = n_left + L::span - right_from;
    for (int i = tid; i < kMmaStep * n; i += L::threads) {
      const int rr = i / n, k = i - rr * n;
      const int j = k < n_left ? k : right_from + (k - n_left);
      const int sx = border_index (left + j, width, a.border);
      const int from = sx - left;
      uint8_t *to = in + rr * L::in_w + j;
#pragma unroll
      for (int c = 0; c < C; c++)
        to[c * in_stride] = sx < 0 ? (uint8_t) a.border_value[c] :
            from >= 0 && from < L::span ? to[c * in_stride + from - j] : 0;
    }
  }
};

}                               /* namespace */

#endif
