/* The high-bit blur (#48): planes of 16-bit words, in IEEE single
 * precision, every operation in the order the header defines
 * (cudafilters-kernels.h, "High bit depth"; the same as
 * cf_ref_blur_plane_words, blur-reference.c): an output's taps summed
 * outermost pair first, each pair added before its weight multiplies it,
 * every step rounded to nearest (__fadd_rn, __fmaf_rn, which the compiler
 * never contracts or reorders).
 *
 * One channel or two (the planes of every word format), both radii up to
 * 16: one pass (words_tile).  A block stages a tile of samples and its
 * halo (border rule applied) in shared memory as floats, filters each row
 * in place, so that t never leaves shared memory, then each column into
 * the output words.  The radius is a template bucket (4, 8, 12, 16) and
 * the weights past the true radius are 0: the sum then starts with
 * fma (0, p, 0) = 0 for each missing pair, so no bit changes.  A plane
 * alone: blur_words_tile_kernel; a frame's planes in one launch, a block
 * taking the plane its index falls in: blur_words_planes_kernel.
 *
 * Otherwise, two passes through a scratch plane of float t:
 * blur_words_h_kernel stages one row's samples and halo and each thread
 * filters 4 (3) samples 128 apart; blur_words_v_kernel stages a strip of
 * t rows (any radius: (16 + 2 x 150) x 32 floats is under 48 KB) and each
 * thread sums 4 rows of one column.
 *
 * Packed 10-bit RGB (cf_blur_rgb10a2): 4 channels (R, G, B, alpha) a
 * pixel, at radii up to 8 in one pass (blur-rgb10a2.cuh), otherwise the
 * two passes (kPacked).
 * Tests (kernels-blur): test_blur_words_equals_reference,
 * test_blur_planes_words_equals_reference,
 * test_blur_rgb10a2_equals_reference. */
#ifndef CUDAFILTERS_BLUR_WORDS_CUH
#define CUDAFILTERS_BLUR_WORDS_CUH

#include "blur-device.cuh"

namespace {

struct WordBlurArgs
{
  int rx, ry;
  int border;
  int depth, shift;
  float border_value[4];
  /* t of a row of border_value, for the two passes' rows past the frame */
  float border_t[4];
  /* cf_blur_word_weights (); 0 past the radius */
  float wx[CF_BLUR_MAX_RADIUS + 1];
  float wy[CF_BLUR_MAX_RADIUS + 1];
};

/* The taps' sum of the arithmetic over radius r: p (i) is the value at
 * distance i (negative: before the centre) */
template < typename P > __device__ __forceinline__ float
words_taps (const float *w, int r, P p)
{
  float a = 0.0f;
  for (int i = r; i >= 1; i--)
    a = __fmaf_rn (w[i], __fadd_rn (p (-i), p (i)), a);
  return __fmaf_rn (w[0], p (0), a);
}

/* the same over the compile-time radius R (weights past the true radius 0) */
template < int R, typename P > __device__ __forceinline__ float
words_taps_fixed (const float *w, P p)
{
  float a = 0.0f;
#pragma unroll
  for (int i = R; i >= 1; i--)
    a = __fmaf_rn (w[i], __fadd_rn (p (-i), p (i)), a);
  return __fmaf_rn (w[0], p (0), a);
}

/* a word's sample as a float */
__device__ __forceinline__ float
word_sample (const uint8_t * src, size_t pitch, int y, int index,
    uint32_t mask, int shift)
{
  const uint16_t word = ((const uint16_t *) (src + (size_t) y * pitch))[index];
  return int_to_float ((word >> shift) & mask);
}

/* Sample `index` of row y of the two passes' source: a word's (above),
 * or, kPacked, of packed 10-bit RGB (4 samples a pixel: bits 0-9, 10-19
 * and 20-29, and the 2-bit alpha at 30) */
template < bool kPacked > __device__ __forceinline__ float
two_pass_sample (const uint8_t * src, size_t pitch, int y, int index,
    uint32_t mask, int shift)
{
  if (!kPacked)
    return word_sample (src, pitch, y, index, mask, shift);
  const uint32_t pixel =
      ((const uint32_t *) (src + (size_t) y * pitch))[index / 4];
  const int c = index % 4;
  return int_to_float ((pixel >> (10 * c)) & (c == 3 ? 3u : 1023u));
}

/* v rounded to the nearest integer, ties to even (v + 2^23 rounds so, and
 * v is below 2^17), at most mask, in its place in the word */
__device__ __forceinline__ uint16_t
word_out (float v, uint32_t mask, int shift)
{
  const uint32_t out = __float_as_uint (__fadd_rn (v, kTwo23)) - 0x4B000000u;
  return (uint16_t) ((out < mask ? out : mask) << shift);
}

/* ---- one pass: blur_words_tile_kernel ---- */

constexpr int kWordsTileThreads = 256;
constexpr int kWordsTileRows = 32;      /* output rows of a tile */
constexpr int kWordsTileRowsEach = 8;   /* of them, a thread's in a column */
constexpr int kWordsTilePairRows = 4;   /* the same, in a pair of columns */
constexpr int kWordsTilePairsMaxRadius = 8;     /* of the pairs' column pass */
constexpr int kWordsTileMaxRadius = 16;

/* pixels of a row a lane filters: 6 of one channel, 5 of two, so that a
 * lane's run is an odd number of 64-bit words (3 or 5) and the 16 lanes
 * of a 64-bit load hit different banks; 6 also makes the common widths
 * (3840, 1920, 7680) whole tiles of 192 pixels */
template < int C > __host__ __device__ constexpr int
words_tile_run ()
{
  return C == 1 ? 6 : 5;
}

/* pixels of a tile's row: a warp's runs */
template < int C > __host__ __device__ constexpr int
words_tile_pixels ()
{
  return 32 * words_tile_run < C > ();
}

/* floats of a staged row: the tile's samples and the halo both sides */
template < int R, int C > __host__ __device__ constexpr int
words_tile_row_floats ()
{
  return (words_tile_pixels < C > () + 2 * R) * C;
}

template < int R, int C > __host__ __device__ constexpr size_t
words_tile_smem ()
{
  return sizeof (float) * (kWordsTileRows + 2 * R) *
      words_tile_row_floats < R, C > ();
}

/* A plane of a one-pass launch: its tiles are blocks first_block to
 * first_block + tiles_x x tiles_y - 1 of the grid, row by row */
struct WordTilePlane
{
  const uint8_t *src;
  uint8_t *dst;
  size_t src_pitch, dst_pitch;
  int width, height;
  int tiles_x, first_block;
  uint32_t border_word[4];      /* the constant border's, in its place */
  /* cf_blur_word_weights (); 0 past the radius */
  float wx[kWordsTileMaxRadius + 1];
  float wy[kWordsTileMaxRadius + 1];
};

struct WordTileArgs
{
  int n_planes;
  int depth, shift, border;
  WordTilePlane plane[3];
};

/* The column pass of a tile, from the t of its rows and their halo in
 * tile[] (L floats a row): a thread kWordsTileRowsEach outputs of one
 * column */
template < int R, int C > __device__ __forceinline__ void
words_tile_columns (const WordTilePlane & p, int x0, int y0, uint32_t mask,
    int shift, const float *tile)
{
  constexpr int KY = kWordsTileRowsEach;
  constexpr int W = words_tile_pixels < C > ();
  constexpr int L = words_tile_row_floats < R, C > ();
  constexpr int kColumns = W * C;
  const size_t dst_pitch = p.dst_pitch;
  const int columns = (p.width - x0 < W ? p.width - x0 : W) * C;
  for (int it = threadIdx.x; it < kColumns * (kWordsTileRows / KY);
      it += kWordsTileThreads) {
    const int col = it % kColumns, g = it / kColumns;
    if (col >= columns)
      continue;
    const float *column = tile + g * KY * L + R * C + col;
    float q[KY + 2 * R];
#pragma unroll
    for (int j = 0; j < KY + 2 * R; j++)
      q[j] = column[j * L];
    uint16_t *out = (uint16_t *) (p.dst + (size_t) (y0 + g * KY) * dst_pitch) +
        (size_t) x0 *C + col;
#pragma unroll
    for (int k = 0; k < KY; k++) {
      const float v = words_taps_fixed < R > (p.wy, [&](int i) {
            return q[k + R + i];});
      if (y0 + g * KY + k < p.height)
        *(uint16_t *) ((uint8_t *) out + (size_t) k * dst_pitch) =
            word_out (v, mask, shift);
    }
  }
}

/* The same a pair of neighbouring columns at a time (8 bytes of t a
 * load, 4 bytes of words a store where the rows are on 4 bytes), a
 * thread kWordsTilePairRows outputs of each: fewer instructions an
 * output, and at radii up to kWordsTilePairsMaxRadius the registers
 * 4 blocks an SM allow */
template < int R, int C > __device__ __forceinline__ void
words_tile_column_pairs (const WordTilePlane & p, int x0, int y0,
    uint32_t mask, int shift, const float *tile)
{
  constexpr int KY = kWordsTilePairRows;
  constexpr int W = words_tile_pixels < C > ();
  constexpr int L = words_tile_row_floats < R, C > ();
  constexpr int kPairs = W * C / 2;
  static_assert ((W * C) % 2 == 0 && (R * C) % 2 == 0 && L % 2 == 0,
      "pairs of columns on 8-byte addresses of the tile");
  const size_t dst_pitch = p.dst_pitch;
  const int columns = (p.width - x0 < W ? p.width - x0 : W) * C;
  /* (x0 C is even: a pair's first word is on 4 bytes where the rows are) */
  const bool pairs_aligned = (((uintptr_t) p.dst | dst_pitch) & 3) == 0;
  for (int it = threadIdx.x; it < kPairs * (kWordsTileRows / KY);
      it += kWordsTileThreads) {
    const int col = 2 * (it % kPairs), g = it / kPairs;
    if (col >= columns)
      continue;
    const float2 *column =
        reinterpret_cast < const float2 * >(tile + g * KY * L + R * C + col);
    float2 q[KY + 2 * R];
#pragma unroll
    for (int j = 0; j < KY + 2 * R; j++)
      q[j] = column[j * (L / 2)];
    uint8_t *out = p.dst + (size_t) (y0 + g * KY) * dst_pitch +
        2 * ((size_t) x0 * C + col);
    const int rows = p.height - (y0 + g * KY);
    if (pairs_aligned && col + 1 < columns) {
#pragma unroll
      for (int k = 0; k < KY; k++, out += dst_pitch) {
        const float v0 = words_taps_fixed < R > (p.wy, [&](int i) {
              return q[k + R + i].x;});
        const float v1 = words_taps_fixed < R > (p.wy, [&](int i) {
              return q[k + R + i].y;});
        if (k < rows)
          *(uint32_t *) out = word_out (v0, mask, shift) |
              (uint32_t) word_out (v1, mask, shift) << 16;
      }
    } else {
      /* rows off 4 bytes, or the last column alone */
      const bool second = col + 1 < columns;
#pragma unroll
      for (int k = 0; k < KY; k++, out += dst_pitch) {
        const float v0 = words_taps_fixed < R > (p.wy, [&](int i) {
              return q[k + R + i].x;});
        const float v1 = words_taps_fixed < R > (p.wy, [&](int i) {
              return q[k + R + i].y;});
        if (k < rows) {
          *(uint16_t *) out = word_out (v0, mask, shift);
          if (second)
            *(uint16_t *) (out + 2) = word_out (v1, mask, shift);
        }
      }
    }
  }
}

/* One tile of plane p: R its radius bucket, C its channels; tile[] the
 * block's shared memory */
template < int R, int C > __device__ __forceinline__ void
words_tile (const WordTilePlane & p, int index, int depth, int shift,
    int border, float *tile)
{
  constexpr int K = words_tile_run < C > ();
  constexpr int W = words_tile_pixels < C > ();
  constexpr int L = words_tile_row_floats < R, C > ();
  constexpr int kRows = kWordsTileRows + 2 * R;
  constexpr int kWarps = kWordsTileThreads / 32;
  /* tile: kRows x L floats, the samples, then t */
  const uint32_t mask = (1u << depth) - 1;
  const uint8_t *src = p.src;
  const size_t src_pitch = p.src_pitch;
  const int width = p.width, height = p.height;
  const int x0 = index % p.tiles_x * W;
  const int y0 = index / p.tiles_x * kWordsTileRows;

  /* the samples of the tile and its halo, the border rule applied, in
   * units of 4 samples (L is a multiple of 4): a warp stages rows warp,
   * warp + kWarps, ..., a lane the units lane, lane + 32, ... of each.
   * Every load of the warp's rows is issued before the first is
   * converted. */
  constexpr int kUnitsRow = L / 4;
  constexpr int kUnitsLane = (kUnitsRow + 31) / 32;
  constexpr int kRowsWarp = (kRows + kWarps - 1) / kWarps;
  static_assert (L % 4 == 0 && (W - R) % (4 / C) == 0,
      "whole units, 8-byte aligned in aligned rows");
  static_assert ((K * C) % 2 == 0 && (R * C) % 2 == 0,
      "a lane's run and its t on 8-byte words");
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const bool rows_aligned = (((uintptr_t) src | src_pitch) & 7) == 0;
  uint32_t raw[kRowsWarp][kUnitsLane][2];
  if (rows_aligned && x0 >= R && x0 - R + L / C <= width && y0 >= R
      && y0 - R + kRows <= height) {
    /* The tile and its halo inside the frame (most tiles of a large
     * one), on 8-byte addresses: each unit one 8-byte load, from rows
     * kWarps apart, 32 units apart in a row */
    const uint8_t *at = src + (size_t) (y0 - R + warp) * src_pitch +
        2 * ((size_t) (x0 - R) * C + 4 * lane);
    const size_t step = (size_t) kWarps * src_pitch;
#pragma unroll
    for (int i = 0; i < kRowsWarp; i++, at += step) {
#pragma unroll
      for (int k = 0; k < kUnitsLane; k++) {
        raw[i][k][0] = raw[i][k][1] = 0;
        if (warp + i * kWarps >= kRows || lane + 32 * k >= kUnitsRow)
          continue;
        const uint2 v = __ldg ((const uint2 *) (at + 256 * k));
        raw[i][k][0] = v.x;
        raw[i][k][1] = v.y;
      }
    }
  } else {
    /* Elsewhere: where a unit lies in the frame (and the rows on 8-byte
     * addresses), one 8-byte load fetches it; otherwise its 4 words, at
     * the columns the border rule gives, the same for every row */
    int first[kUnitsLane];      /* the unit's first word; -1: word by word */
    int column[kUnitsLane][4];  /* each word's; -1: the constant border */
#pragma unroll
    for (int k = 0; k < kUnitsLane; k++) {
      const int j = 4 * (lane + 32 * k);
      const int x = x0 - R + j / C;
      first[k] = rows_aligned && x >= 0 && x + 4 / C <= width ? x * C : -1;
#pragma unroll
      for (int q = 0; q < 4; q++) {
        /* (j is a multiple of 4, and C 1 or 2: the channel is q's) */
        const int sx = border_index (x0 - R + (j + q) / C, width, border);
        column[k][q] = sx < 0 ? -1 : sx * C + q % C;
      }
    }
#pragma unroll
    for (int i = 0; i < kRowsWarp; i++) {
      const int r = warp + i * kWarps;
      const int sy = border_index (y0 - R + r, height, border);
      const uint16_t *row = (const uint16_t *) (src + (size_t) (sy < 0 ? 0 :
              sy) * src_pitch);
#pragma unroll
      for (int k = 0; k < kUnitsLane; k++) {
        raw[i][k][0] = raw[i][k][1] = 0;
        if (r >= kRows || lane + 32 * k >= kUnitsRow)
          continue;
        if (sy >= 0 && first[k] >= 0) {
          const uint2 v = __ldg ((const uint2 *) (row + first[k]));
          raw[i][k][0] = v.x;
          raw[i][k][1] = v.y;
        } else {
#pragma unroll
          for (int q = 0; q < 4; q++) {
            const uint32_t word = (sy < 0 || column[k][q] < 0) ?
                p.border_word[q % C] : __ldg (row + column[k][q]);
            raw[i][k][q / 2] |= word << (q % 2 * 16);
          }
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kRowsWarp; i++) {
    const int r = warp + i * kWarps;
#pragma unroll
    for (int k = 0; k < kUnitsLane; k++) {
      if (r >= kRows || lane + 32 * k >= kUnitsRow)
        continue;
      float4 f;
      f.x = int_to_float ((raw[i][k][0] >> shift) & mask);
      f.y = int_to_float ((raw[i][k][0] >> (16 + shift)) & mask);
      f.z = int_to_float ((raw[i][k][1] >> shift) & mask);
      f.w = int_to_float ((raw[i][k][1] >> (16 + shift)) & mask);
      reinterpret_cast < float4 * >(tile + r * L)[lane + 32 * k] = f;
    }
  }
  __syncthreads ();

  /* rows: a warp a row, a lane K pixels of it, t written over the samples
   * once the whole warp has read its taps */
  for (int r = warp; r < kRows; r += kWarps) {
    float *row = tile + r * L;
    /* (K C and R C even: a lane's samples and its t on 8-byte words) */
    const float2 *in = reinterpret_cast < const float2 * >(row) +
        lane * (K * C / 2);
    float v[(K + 2 * R) * C];
#pragma unroll
    for (int j = 0; j < (K + 2 * R) * C / 2; j++) {
      const float2 pair = in[j];
      v[2 * j] = pair.x;
      v[2 * j + 1] = pair.y;
    }
    float t[K * C];
#pragma unroll
    for (int k = 0; k < K; k++)
#pragma unroll
      for (int c = 0; c < C; c++)
        t[k * C + c] = words_taps_fixed < R > (p.wx, [&](int i) {
              return v[(k + R + i) * C + c];});
    __syncwarp ();
    float2 *out = reinterpret_cast < float2 * >(row + R * C) +
        lane * (K * C / 2);
#pragma unroll
    for (int j = 0; j < K * C / 2; j++)
      out[j] = make_float2 (t[2 * j], t[2 * j + 1]);
  }
  __syncthreads ();

  /* columns */
  if (R <= kWordsTilePairsMaxRadius)
    words_tile_column_pairs < R, C > (p, x0, y0, mask, shift, tile);
  else
    words_tile_columns < R, C > (p, x0, y0, mask, shift, tile);
}

/* blocks an SM should hold at once of a kernel whose blocks have `smem`
 * bytes of shared memory, at radius bucket r (the larger): as many as
 * sm_90's 227 KB hold, at most 4 (3 at radius 16, whose one-channel tiles
 * fit 4 times but then spill registers), which caps the registers to
 * match (64 a thread for 4, 80 for 3, 128 for 2): 4 tiles of one channel
 * up to radius 12, of two at radius 4, or of a frame's launch (8, 4); 3
 * of one channel at 16, of two at 8, or of a launch (12, 8) or (16, 8)
 * with two; 2 of two channels at 12 and 16.  (5 at radius 8 would fit
 * the shared memory, but the 48 registers spill.) */
__host__ __device__ constexpr int
words_tile_blocks_sm (size_t smem, int r)
{
  return r < 16 && 227 * 1024 / smem >= 4 ? 4 :
      227 * 1024 / smem >= 3 ? 3 : 227 * 1024 / smem >= 2 ? 2 : 1;
}

/* the shared memory of a frame's launch: its larger tile */
template < int RL, int RC, int CC > __host__ __device__ constexpr size_t
words_planes_smem ()
{
  return words_tile_smem < RL, 1 > () > words_tile_smem < RC, CC > ()?
      words_tile_smem < RL, 1 > () : words_tile_smem < RC, CC > ();
}

template < int R, int C > __global__ void
__launch_bounds__ (kWordsTileThreads,
    words_tile_blocks_sm (words_tile_smem < R, C > (), R))
blur_words_tile_kernel (const __grid_constant__ WordTileArgs a)
{
  extern __shared__ float tile[];
  words_tile < R, C > (a.plane[0], blockIdx.x, a.depth, a.shift, a.border,
      tile);
}

/* Planes of a frame in one launch: the first (luma) of one channel and
 * radius bucket RL, then 1 or 2 more of CC channels and bucket RC; a
 * block tiles the plane its index falls in */
template < int RL, int RC, int CC > __global__ void
__launch_bounds__ (kWordsTileThreads,
    words_tile_blocks_sm (words_planes_smem < RL, RC, CC > (), RL))
blur_words_planes_kernel (const __grid_constant__ WordTileArgs a)
{
  extern __shared__ float tile[];
  const int b = blockIdx.x;
  if (b < a.plane[1].first_block) {
    words_tile < RL, 1 > (a.plane[0], b, a.depth, a.shift, a.border, tile);
  } else {
    const WordTilePlane & p = a.plane[a.n_planes > 2
        && b >= a.plane[2].first_block ? 2 : 1];
    words_tile < RC, CC > (p, b - p.first_block, a.depth, a.shift, a.border,
        tile);
  }
}

/* ---- two passes, any radius and channel count ---- */

constexpr int kWordsHThreads = 128;     /* threads of a horizontal block */
constexpr int kWordsVRows = 16;         /* output rows of a vertical block */
constexpr int kWordsVColumns = 32;      /* t columns of a vertical block */
constexpr int kWordsVRowsEach = 4;      /* output rows a vertical thread sums */
constexpr int kWordsVThreads = kWordsVColumns * kWordsVRows / kWordsVRowsEach;
/* the grid's rows, which blocks then step over */
constexpr int kWordsMaxGridY = 65535;

/* samples of a row a horizontal thread filters: 4, or for 3 channels 3,
 * so that a block covers whole pixels */
template < int C > __host__ __device__ constexpr int
words_h_samples ()
{
  return C == 3 ? 3 : 4;
}

/* pixels of a row a horizontal block covers */
template < int C > __host__ __device__ constexpr int
words_h_block_pixels ()
{
  return kWordsHThreads * words_h_samples < C > () / C;
}

/* kPacked: packed 10-bit RGB, C 4 (two_pass_sample) */
template < int C, bool kPacked > __global__ void
__launch_bounds__ (kWordsHThreads)
blur_words_h_kernel (const uint8_t * src, size_t src_pitch, float *t,
    size_t t_pitch, int width, int height, WordBlurArgs a)
{
  constexpr int K = words_h_samples < C > ();
  constexpr int kPixels = words_h_block_pixels < C > ();
  extern __shared__ float staged[];     /* (kPixels + 2 rx) x C */
  const uint32_t mask = (1u << a.depth) - 1;
  const int x0 = blockIdx.x * kPixels;
  const int n = (kPixels + 2 * a.rx) * C;
  /* this thread's samples: threadIdx.x + k x kWordsHThreads of the
   * block's kPixels x C */
  const int samples = (width - x0 < kPixels ? width - x0 : kPixels) * C;

  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    __syncthreads ();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const int c = i % C;
      const int sx = border_index (x0 - a.rx + i / C, width, a.border);
      staged[i] = sx < 0 ? a.border_value[c] :
          two_pass_sample < kPacked > (src, src_pitch, y, sx * C + c, mask,
          a.shift);
    }
    __syncthreads ();
    const float *centre = staged + a.rx * C + threadIdx.x;
    float *out = t + (size_t) y * t_pitch + (size_t) x0 * C;
#pragma unroll
    for (int k = 0; k < K; k++) {
      const int sample = threadIdx.x + k * kWordsHThreads;
      const float h = words_taps (a.wx, a.rx, [&](int i) {
            return centre[k * kWordsHThreads + i * C];});
      if (sample < samples)
        out[sample] = h;
    }
  }
}

/* the vertical pass: a block stages the t rows of a strip of
 * kWordsVRows output rows and kWordsVColumns columns, halo included
 * (border rule applied), and a thread sums kWordsVRowsEach output rows of
 * one column.  kPacked: packed 10-bit RGB, whose pixel's 4 columns are 4
 * neighbouring lanes of a warp, which join their samples into the pixel
 * (R, G, B at most 1023, alpha at most 3) */
template < bool kPacked > __global__ void
__launch_bounds__ (kWordsVThreads)
blur_words_v_kernel (const float *t, size_t t_pitch, uint8_t * dst,
    size_t dst_pitch, int columns, int channels, int height, WordBlurArgs a)
{
  extern __shared__ float strip[];      /* (16 + 2 ry) x 32 */
  const uint32_t mask = (1u << a.depth) - 1;
  const int cx = threadIdx.x % kWordsVColumns;
  const int rg = threadIdx.x / kWordsVColumns;
  const int col0 = blockIdx.x * kWordsVColumns;
  const int col = col0 + cx;
  const int rows = kWordsVRows + 2 * a.ry;

  for (int y0 = blockIdx.y * kWordsVRows; y0 < height;
      y0 += gridDim.y * kWordsVRows) {
    __syncthreads ();
    for (int i = threadIdx.x; i < rows * kWordsVColumns; i += blockDim.x) {
      const int r = i / kWordsVColumns, c = col0 + i % kWordsVColumns;
      const int sy = border_index (y0 - a.ry + r, height, a.border);
      float v = 0.0f;
      /* a constant border's rows: t of a row of the value, as the
       * horizontal pass makes it (not always the value itself) */
      if (c < columns)
        v = sy < 0 ? a.border_t[c % channels] :
            __ldg (t + (size_t) sy * t_pitch + c);
      strip[i] = v;
    }
    __syncthreads ();
    /* (packed: every lane sums, for the shuffles; the strip holds 0 past
     * the columns) */
    if (!kPacked && col >= columns)
      continue;

    const float *centre = strip + (kWordsVRowsEach * rg + a.ry) *
        kWordsVColumns + cx;
#pragma unroll
    for (int k = 0; k < kWordsVRowsEach; k++) {
      const int y = y0 + kWordsVRowsEach * rg + k;
      const float v = words_taps (a.wy, a.ry, [&](int i) {
            return centre[(k + i) * kWordsVColumns];});
      if (kPacked) {
        const int c = cx % 4;
        uint32_t pixel = (uint32_t) word_out (v, c == 3 ? 3u : 1023u, 0) <<
            (10 * c);
        pixel |= __shfl_xor_sync (0xffffffffu, pixel, 1);
        pixel |= __shfl_xor_sync (0xffffffffu, pixel, 2);
        if (c == 0 && col < columns && y < height)
          ((uint32_t *) (dst + (size_t) y * dst_pitch))[col / 4] = pixel;
      } else if (y < height) {
        ((uint16_t *) (dst + (size_t) y * dst_pitch))[col] =
            word_out (v, mask, a.shift);
      }
    }
  }
}

}                               /* namespace */

#endif
