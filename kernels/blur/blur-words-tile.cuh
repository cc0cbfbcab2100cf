/* The high-bit blur's one pass (#48; the arithmetic and what the
 * kernels share: blur-words.cuh): one channel or two (the planes of every
 * word format), both radii up to 16 (words_tile).  A block stages a tile
 * of samples and its halo (border rule applied) in shared memory as
 * floats, filters each row in place, so that t never leaves shared
 * memory, then each column into the output words.  The radius is a
 * template bucket (4, 8, 12, 16) and the weights past the true radius are
 * 0: the sum then starts with fma (0, p, 0) = 0 for each missing pair, so
 * no bit changes.  A plane alone: blur_words_tile_kernel; a frame's planes
 * in one launch, a block taking the plane its index falls in:
 * blur_words_planes_kernel.
 * Tests (kernels-blur): test_blur_words_equals_reference,
 * test_blur_planes_words_equals_reference. */
#ifndef CUDAFILTERS_BLUR_WORDS_TILE_CUH
#define CUDAFILTERS_BLUR_WORDS_TILE_CUH

#include "blur-words.cuh"

namespace {

constexpr int kWordsTileRows = 32;      /* output rows of a tile */
constexpr int kWordsTileRowsEach = 8;   /* of them, a thread's in a column */
constexpr int kWordsTilePairRows = 4;   /* the same, in a pair of columns */
constexpr int kWordsTilePairsMaxRadius = 8;     /* of the pairs' column pass */

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

/* rows of a pair of columns a thread sums: 8 for two channels up to
 * radius 4, whose 8 + 2 R pairs of t fit the registers of 4 blocks an SM
 * (at radius 4, 16 loads for 16 outputs where 4 rows take 12 for 8, and
 * half the index work an output), otherwise kWordsTilePairRows (8 spill
 * at one channel, at radius 4 in a frame's launch too) */
template < int R, int C > __host__ __device__ constexpr int
words_tile_pair_rows ()
{
  return R <= 4 && C == 2 ? 8 : kWordsTilePairRows;
}

/* The column sums of a pair of columns around its output row: q[R] holds
 * the output row's pair, q[0] and q[2 R] the ends of its taps */
template < int R > __device__ __forceinline__ float2
words_pair_taps (const float *wy, const float2 * q)
{
  return make_float2 (words_taps_fixed < R > (wy, [&](int i) {
          return q[R + i].x;}), words_taps_fixed < R > (wy, [&](int i) {
          return q[R + i].y;}));
}

/* The same a pair of neighbouring columns at a time (8 bytes of t a
 * load, 4 bytes of words a store where the rows are on 4 bytes), a
 * thread words_tile_pair_rows () outputs of each: fewer instructions an
 * output, and at radii up to kWordsTilePairsMaxRadius the registers
 * 4 blocks an SM allow.  kFull: the tile lies inside the plane and its
 * rows are on 4 bytes, so no store needs a check. */
template < int R, int C, bool kFull > __device__ __forceinline__ void
words_tile_column_pairs (const WordTilePlane & p, int x0, int y0,
    uint32_t mask, int shift, const float *tile)
{
  constexpr int KY = words_tile_pair_rows < R, C > ();
  constexpr int W = words_tile_pixels < C > ();
  constexpr int L = words_tile_row_floats < R, C > ();
  constexpr int kPairs = W * C / 2;
  static_assert ((W * C) % 2 == 0 && (R * C) % 2 == 0 && L % 2 == 0,
      "pairs of columns on 8-byte addresses of the tile");
  static_assert (kWordsTileRows % KY == 0, "whole groups of rows");
  const size_t dst_pitch = p.dst_pitch;
  const int columns = (p.width - x0 < W ? p.width - x0 : W) * C;
  /* (x0 C is even: a pair's first word is on 4 bytes where the rows are) */
  const bool pairs_aligned = kFull ||
      (((uintptr_t) p.dst | dst_pitch) & 3) == 0;
  for (int it = threadIdx.x; it < kPairs * (kWordsTileRows / KY);
      it += kWordsTileThreads) {
    const int col = 2 * (it % kPairs), g = it / kPairs;
    if (!kFull && col >= columns)
      continue;
    const float2 *column =
        reinterpret_cast < const float2 * >(tile + g * KY * L + R * C + col);
    float2 q[KY + 2 * R];
#pragma unroll
    for (int j = 0; j < KY + 2 * R; j++)
      q[j] = column[j * (L / 2)];
    uint8_t *out = p.dst + (size_t) (y0 + g * KY) * dst_pitch +
        2 * ((size_t) x0 * C + col);
    const int rows = kFull ? KY : p.height - (y0 + g * KY);
    if (pairs_aligned && (kFull || col + 1 < columns)) {
#pragma unroll
      for (int k = 0; k < KY; k++, out += dst_pitch) {
        const float2 v = words_pair_taps < R > (p.wy, q + k);
        if (kFull || k < rows)
          *(uint32_t *) out = word_pair_out (v.x, v.y, mask, shift);
      }
    } else {
      /* rows off 4 bytes, or the last column alone */
      const bool second = col + 1 < columns;
#pragma unroll
      for (int k = 0; k < KY; k++, out += dst_pitch) {
        const float2 v = words_pair_taps < R > (p.wy, q + k);
        if (k < rows) {
          *(uint16_t *) out = word_out (v.x, mask, shift);
          if (second)
            *(uint16_t *) (out + 2) = word_out (v.y, mask, shift);
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
  /* (launch bounds hold blocks to kWordsTileThreads: the rows' guards
   * fold where kRows is a multiple of kWarps) */
  __builtin_assume (warp < kWarps);
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
  /* A word's sample as a float without shifting it down: its bits left
   * in place (the sample times 2^shift, under 2^16) under the exponent
   * of 2^23 make 2^23 + sample 2^shift exactly, and one fma scales that
   * by 2^-shift and takes 2^(23 - shift) away.  The exact result is the
   * sample, so the fma's one rounding leaves it as it is: the value of
   * int_to_float ((word >> shift) & mask), an instruction less for each
   * low word. */
  const uint32_t in_place = mask << shift;
  const float unscale = __int_as_float ((127 - shift) << 23);
  const float offset = kTwo23 * unscale;
#pragma unroll
  for (int i = 0; i < kRowsWarp; i++) {
    const int r = warp + i * kWarps;
#pragma unroll
    for (int k = 0; k < kUnitsLane; k++) {
      if (r >= kRows || lane + 32 * k >= kUnitsRow)
        continue;
      const uint32_t w0 = raw[i][k][0], w1 = raw[i][k][1];
      float4 f;
      f.x = __fmaf_rn (__uint_as_float (0x4B000000u | (w0 & in_place)),
          unscale, -offset);
      f.y = __fmaf_rn (__uint_as_float (0x4B000000u | ((w0 >> 16) &
                  in_place)), unscale, -offset);
      f.z = __fmaf_rn (__uint_as_float (0x4B000000u | (w1 & in_place)),
          unscale, -offset);
      f.w = __fmaf_rn (__uint_as_float (0x4B000000u | ((w1 >> 16) &
                  in_place)), unscale, -offset);
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
  if (R <= kWordsTilePairsMaxRadius) {
    if (x0 + W <= width && y0 + kWordsTileRows <= height &&
        (((uintptr_t) p.dst | p.dst_pitch) & 3) == 0)
      words_tile_column_pairs < R, C, true > (p, x0, y0, mask, shift, tile);
    else
      words_tile_column_pairs < R, C, false > (p, x0, y0, mask, shift, tile);
  } else
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

}                               /* namespace */

#endif
