/* One tile of a plane, a warp's rows and a lane's chunk of each: where
 * the chunk lies, the loads of a whole tile's rows (issued a tile ahead
 * by count_plane), and count_tile, which counts them row by row
 * (sum-row.cuh) and adds the row sums of the key.  sum.cu includes it;
 * see docs/design/sum.md. */
#ifndef CUDAFILTERS_SUM_TILE_CUH
#define CUDAFILTERS_SUM_TILE_CUH

#include "sum-row.cuh"

namespace {

/* Where this thread's chunk of a tile lies. */
struct Spot
{
  int tile_col;
  int chunk;                    /* of the row, this lane's */
  int rest;                     /* bytes of the row from the chunk on */
  int y0, y1;                   /* this warp's first row, the tile's end */
  const uint8_t *src;           /* the chunk in row y0 */
};

template < int BPP > __device__ __forceinline__ Spot
spot_of (const PlaneArgs & pl, int tile_row, int tile_col)
{
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  Spot s;
  s.tile_col = tile_col;
  s.chunk = tile_col * 32 + lane;
  const int byte0 = s.chunk * chunk_bytes < BPP > ();
  s.rest = pl.row_bytes - byte0;
  s.y0 = tile_row * kTileRows + warp;
  s.y1 = min (pl.rows, (tile_row + 1) * kTileRows);
  s.src = pl.data + (size_t) s.y0 * pl.pitch + byte0;
  return s;
}

/* A whole chunk in an aligned plane: loaded in vectors, all rows at once.
 * (Tested as rest >= CHUNK.  Written as max (0, min (CHUNK, rest)) ==
 * CHUNK, this kernel built with CUDA 13.0 took the branch for any rest
 * >= 0 on the H100, though its PTX was right.) */
template < int BPP > __device__ __forceinline__ bool
is_whole (const PlaneArgs & pl, const Spot & s)
{
  return pl.vectors && s.rest >= chunk_bytes < BPP > ();
}

/* Issues the loads of this thread's rows of a tile (whole chunks only),
 * and for 4-byte pixels, where old_keys, the previous frame's keys of
 * them, a word a row: loaded a tile ahead like the rows, they are there
 * when the tile is counted.  (Loaded just before their rows were counted,
 * they queued behind the next tile's loads, and waiting for them was over
 * a quarter of the stalls of the kernel with every feature; 1-byte pixels
 * would need 32 registers for them, which that kernel does not have.) */
template < int BPP > __device__ __forceinline__ void
load_rows (const LaunchArgs & args, const PlaneArgs & pl, const Spot & s,
    bool old_keys, uint32_t (&w)[kRowsPerWarp][chunk_bytes < BPP > () / 4],
    uint32_t (&old)[kRowsPerWarp])
{
  if (!is_whole < BPP > (pl, s))
    return;
  const size_t step = (size_t) kWarps * pl.pitch;
  const uint8_t *row = s.src;
  if constexpr (BPP == 4) {
    if (old_keys) {
      /* the address by additions: recomputed each row it took 8 SASS
       * instructions (a 64-bit multiply-add), and its store's in
       * count_tile () as many */
      const uint8_t *prev = previous_keys < BPP, kPrevious > (args, s.y0,
          s.chunk);
      const size_t prev_step = (size_t) kWarps * args.previous_pitch;
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; i++, prev += prev_step) {
        if (s.y0 + i * kWarps < s.y1)
          old[i] = *reinterpret_cast < const uint32_t * >(prev);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; i++, row += step) {
    if (s.y0 + i * kWarps < s.y1)
      load_chunk_vector < BPP > (row, w[i]);
  }
}

/* row_key[i] = key for a row index i known only at run time, without
 * taking the array out of registers */
__device__ __forceinline__ void
set_row_key (uint32_t (&row_key)[kRowsPerWarp], int i, uint32_t key)
{
#pragma unroll
  for (int j = 0; j < kRowsPerWarp; j++) {
    if (j == i)
      row_key[j] = key;
  }
}

/* One tile of a plane: this warp's rows, this lane's chunk of each, added
 * to the thread's running totals.  `loaded` holds the rows of a whole
 * chunk (load_rows) but for 3-byte pixels, whose 48-byte chunks are
 * loaded here, rows_in_flight() at a time; `loaded_old` the previous keys
 * of those rows for 4-byte pixels. */
template < int BPP, unsigned K > __device__ __forceinline__ void
count_tile (const LaunchArgs & args, const PlaneArgs & pl, bool keyed,
    const Spot & s,
    const uint32_t (&loaded)[kRowsPerWarp][chunk_bytes < BPP > () / 4],
    const uint32_t (&loaded_old)[kRowsPerWarp], WordAcc & wa, Totals & t,
    uint32_t (&col)[kMaxChunkPixels], Workspace * ws)
{
  constexpr int CHUNK = chunk_bytes < BPP > ();
  constexpr int WORDS = CHUNK / 4;
  constexpr int BATCH = rows_in_flight < BPP > ();
  const int lane = threadIdx.x & 31;
  const size_t step = (size_t) kWarps * pl.pitch;

  ByteAcc ba;
  if constexpr (BPP == 3) {
#pragma unroll
    for (int b = 0; b < 3; b++) {
      ba.s[b] = ba.q[b] = ba.mx[b] = 0;
      ba.mn[b] = 255;
    }
  }
  uint32_t &black = t.black, &diff = t.diff;
  uint32_t row_key[kRowsPerWarp];
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; i++)
    row_key[i] = 0;

  /* row i of this warp is y0 + i * kWarps, the same for every lane */
  if (is_whole < BPP > (pl, s)) {
    if constexpr (BPP == 4 && (K & kPrevious) != 0) {
      /* the keys' address by additions, as in load_rows () */
      uint8_t *prev = previous_keys < BPP, K > (args, s.y0, s.chunk);
      const size_t prev_step = (size_t) kWarps * args.previous_pitch;
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; i++, prev += prev_step) {
        if (s.y0 + i * kWarps < s.y1)
          count_row < BPP, K > (args, keyed, loaded[i], CHUNK, wa, ba, black,
              diff, col, row_key[i], prev, &loaded_old[i]);
      }
    } else if constexpr (BPP == 1 && (K & kPrevious) != 0) {
      /* the previous keys of PREV_ROWS rows, loaded together before any
       * is used, so that a tile waits for them twice rather than once a
       * row (which had made the difference cost as much as the rest of
       * the statistics); the kernel has no registers to load them a tile
       * ahead as for 4-byte pixels */
      constexpr int PW = chunk_pixels < BPP > () / 4;
      constexpr int PREV_ROWS = kPreviousKeyRows;
      const bool load_old = keyed && (args.flags & CF_SUM_DIFF);
#pragma unroll
      for (int ib = 0; ib < kRowsPerWarp; ib += PREV_ROWS) {
        uint32_t old[PREV_ROWS][PW];
#pragma unroll
        for (int i = 0; i < PREV_ROWS; i++) {
          const int y = s.y0 + (ib + i) * kWarps;
          if (load_old && y < s.y1) {
            load_previous_keys < BPP > (previous_keys < BPP, K > (args, y,
                    s.chunk), old[i]);
          } else {
#pragma unroll
            for (int q = 0; q < PW; q++)
              old[i][q] = 0;
          }
        }
#pragma unroll
        for (int i = 0; i < PREV_ROWS; i++) {
          const int y = s.y0 + (ib + i) * kWarps;
          if (y < s.y1)
            count_row < BPP, K > (args, keyed, loaded[ib + i], CHUNK, wa,
                ba, black, diff, col, row_key[ib + i],
                previous_keys < BPP, K > (args, y, s.chunk), old[i]);
        }
      }
    } else if constexpr (BPP != 3) {
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; i++) {
        const int y = s.y0 + i * kWarps;
        if (y < s.y1)
          count_row < BPP, K > (args, keyed, loaded[i], CHUNK, wa, ba, black,
              diff, col, row_key[i], previous_keys < BPP, K > (args, y,
                  s.chunk));
      }
    } else {
      /* not unrolled: the code of a 48-byte chunk is long, and what
       * matters here is the loads in flight, BATCH rows' worth (unrolled,
       * this and the loop below made the file take minutes to compile
       * and each kernel three times as long, for no speed) */
#pragma unroll 1
      for (int ib = 0; ib < kRowsPerWarp; ib += BATCH) {
        uint32_t w[BATCH][WORDS];
#pragma unroll
        for (int i = 0; i < BATCH; i++) {
          if (s.y0 + (ib + i) * kWarps < s.y1)
            load_chunk_vector < BPP > (s.src + (ib + i) * step, w[i]);
        }
#pragma unroll
        for (int i = 0; i < BATCH; i++) {
          const int y = s.y0 + (ib + i) * kWarps;
          uint32_t key = 0;
          if (y < s.y1)
            count_row < BPP, K > (args, keyed, w[i], CHUNK, wa, ba, black,
                diff, col, key, previous_keys < BPP, K > (args, y, s.chunk));
          set_row_key (row_key, ib + i, key);
        }
      }
    }
  } else if (s.rest > 0) {
    /* the last chunk of a row, or a plane not aligned for vectors: a row
     * at a time (byte loads would take too many registers in flight),
     * and not unrolled: in an aligned plane one lane in 32 at most is
     * here */
    const int valid = min (CHUNK, s.rest);
#pragma unroll 1
    for (int i = 0; i < kRowsPerWarp; i++) {
      const int y = s.y0 + i * kWarps;
      if (y < s.y1) {
        uint32_t w[WORDS], key = 0;
        load_chunk_any < BPP > (s.src + i * step, valid, w);
        count_row < BPP, K > (args, keyed, w, valid, wa, ba, black, diff,
            col, key, previous_keys < BPP, K > (args, y, s.chunk));
        set_row_key (row_key, i, key);
      }
    }
  }

  /* the row sums: every lane of the warp is here again */
  if constexpr ((K & kProfiles) != 0) {
    if (keyed) {
#pragma unroll
      for (int i = 0; i < kRowsPerWarp; i++) {
        const int y = s.y0 + i * kWarps;
        const uint32_t r = warp_add (row_key[i]);
        if (lane == 0 && y < s.y1 && r)
          atomicAdd (&ws_rows (ws)[y], r);
      }
    }
  }

  if constexpr (BPP == 3) {
#pragma unroll
    for (int b = 0; b < 3; b++) {
      t.sum[b] += ba.s[b];
      t.sq[b] += ba.q[b];
      t.mn[b] = min (t.mn[b], ba.mn[b]);
      t.mx[b] = max (t.mx[b], ba.mx[b]);
    }
  } else {
    word_acc_fold_sums < BPP > (wa, t);
  }
}

template < int BPP > __device__ __forceinline__ void
zero_rows (uint32_t (&w)[kRowsPerWarp][chunk_bytes < BPP > () / 4])
{
#pragma unroll
  for (int i = 0; i < kRowsPerWarp; i++) {
#pragma unroll
    for (int j = 0; j < chunk_bytes < BPP > () / 4; j++)
      w[i][j] = 0;
  }
}

}                               /* namespace */

#endif
