/* A thread's totals and how samples get into them: whole 32-bit words
 * split into 16-bit lanes (WordAcc: two samples an instruction, squares
 * by dot products), or bytes (ByteAcc, 3-byte pixels); then the block's
 * reduction of its threads' totals into the workspace.  sum.cu includes
 * it; see docs/design/sum.md. */
#ifndef CUDAFILTERS_SUM_TOTALS_CUH
#define CUDAFILTERS_SUM_TOTALS_CUH

#include "sum-device.cuh"

namespace {

/* A thread's running totals per position (positions<BPP>() of them), over
 * the tiles of a plane it counts. */
struct Totals
{
  uint32_t sum[4], sq[4], mn[4], mx[4];
  uint32_t black, diff;
};

__device__ __forceinline__ void
totals_init (Totals & t)
{
#pragma unroll
  for (int p = 0; p < 4; p++) {
    t.sum[p] = t.sq[p] = t.mx[p] = 0;
    t.mn[p] = 255;
  }
  t.black = t.diff = 0;
}

/* A thread's totals per byte position of a word, over a plane's tiles
 * (the 16-bit lane sums over a tile only: see word_acc_fold_sums). */
struct WordAcc
{
  uint32_t s_even, s_odd;       /* 16-bit lanes: positions 0, 2 and 1, 3 */
  uint32_t mn_even, mn_odd, mx_even, mx_odd;
  /* squares: 1 byte per pixel q[0] all; 2 bytes q[0] positions 0 and 2,
   * q[1] 1 and 3; 4 bytes q[0] twice position 0, q[1] twice position 1
   * (word_acc_add_pair), q[2] positions 0 and 2, q[3] 1 and 3 (a dot
   * product squares two samples at once) */
  uint32_t q[4];
};

__device__ __forceinline__ void
word_acc_init (WordAcc & a)
{
  a.s_even = a.s_odd = 0;
  a.mn_even = a.mn_odd = 0x00ff00ffu;
  a.mx_even = a.mx_odd = 0;
#pragma unroll
  for (int p = 0; p < 4; p++)
    a.q[p] = 0;
}

/* w: the word, missing bytes 0; w_min: the same with missing bytes 255 */
template < int BPP > __device__ __forceinline__ void
word_acc_add (WordAcc & a, uint32_t w, uint32_t w_min)
{
  /* the bytes at positions 0, 2 and 1, 3 as 16-bit lanes, which are also
   * bytes with zeros between them */
  uint32_t e = __byte_perm (w, 0, 0x4240);
  uint32_t o = __byte_perm (w, 0, 0x4341);
  a.s_even += e;
  a.s_odd += o;
  a.mx_even = __vmaxu2 (a.mx_even, e);
  a.mx_odd = __vmaxu2 (a.mx_odd, o);
  a.mn_even = __vminu2 (a.mn_even, __byte_perm (w_min, 0, 0x4240));
  a.mn_odd = __vminu2 (a.mn_odd, __byte_perm (w_min, 0, 0x4341));
  if constexpr (BPP == 1) {
    a.q[0] = __dp4a (w, w, a.q[0]);
  } else if constexpr (BPP == 2) {
    a.q[0] = __dp4a (e, e, a.q[0]);
    a.q[1] = __dp4a (o, o, a.q[1]);
  } else {
    a.q[2] = __dp4a (e, e, a.q[2]);
    a.q[3] = __dp4a (o, o, a.q[3]);
  }
}

/* 4-byte pixels: the squares of positions 0 and 1 of two words, twice
 * each, from one byte permutation and one dot product per position
 * (x0 x0 alone took a byte extraction and a multiply per word) */
__device__ __forceinline__ void
word_acc_add_pair (WordAcc & a, uint32_t w0, uint32_t w1)
{
  const uint32_t p0 = __byte_perm (w0, w1, 0x4040);
  const uint32_t p1 = __byte_perm (w0, w1, 0x5151);
  a.q[0] = __dp4a (p0, p0, a.q[0]);
  a.q[1] = __dp4a (p1, p1, a.q[1]);
}

/* Adds a tile's 16-bit lane sums to the running totals and restarts
 * them: they would overflow past a tile (kRowsPerWarp rows of four
 * words).  Byte positions of a word that belong to the same channel are
 * combined. */
template < int BPP > __device__ __forceinline__ void
word_acc_fold_sums (WordAcc & a, Totals & t)
{
  const uint32_t s[4] = { a.s_even & 0xffffu, a.s_odd & 0xffffu,
    a.s_even >> 16, a.s_odd >> 16
  };
  if constexpr (BPP == 1) {
    t.sum[0] += s[0] + s[1] + s[2] + s[3];
  } else if constexpr (BPP == 2) {
#pragma unroll
    for (int p = 0; p < 2; p++)
      t.sum[p] += s[p] + s[p + 2];
  } else {
#pragma unroll
    for (int p = 0; p < 4; p++)
      t.sum[p] += s[p];
  }
  a.s_even = a.s_odd = 0;
}

/* The squares, minima and maxima of a plane's tiles, into the totals
 * (which held none: they are set, not added to). */
template < int BPP > __device__ __forceinline__ void
word_acc_fold_rest (const WordAcc & a, Totals & t)
{
  const uint32_t mn[4] = { a.mn_even & 0xffffu, a.mn_odd & 0xffffu,
    a.mn_even >> 16, a.mn_odd >> 16
  };
  const uint32_t mx[4] = { a.mx_even & 0xffffu, a.mx_odd & 0xffffu,
    a.mx_even >> 16, a.mx_odd >> 16
  };
  if constexpr (BPP == 1) {
    t.sq[0] = a.q[0];
    t.mn[0] = min (min (mn[0], mn[1]), min (mn[2], mn[3]));
    t.mx[0] = max (max (mx[0], mx[1]), max (mx[2], mx[3]));
  } else if constexpr (BPP == 2) {
#pragma unroll
    for (int p = 0; p < 2; p++) {
      t.sq[p] = a.q[p];
      t.mn[p] = min (mn[p], mn[p + 2]);
      t.mx[p] = max (mx[p], mx[p + 2]);
    }
  } else {
    const uint32_t sq[4] = { a.q[0] / 2, a.q[1] / 2, a.q[2] - a.q[0] / 2,
      a.q[3] - a.q[1] / 2
    };
#pragma unroll
    for (int p = 0; p < 4; p++) {
      t.sq[p] = sq[p];
      t.mn[p] = mn[p];
      t.mx[p] = mx[p];
    }
  }
}

/* The bytes of a 3-byte-pixel chunk, a slot per byte of a pixel. */
struct ByteAcc
{
  uint32_t s[3], q[3], mn[3], mx[3];
};

__device__ __forceinline__ uint32_t
byte_of (const uint32_t * words, int i)
{
  return (words[i >> 2] >> (8 * (i & 3))) & 0xffu;
}

/* Adds the block's totals to the workspace: warp reductions, then a
 * thread per total over the warps, and one atomic each.  The u32 warp
 * totals cannot overflow: a thread counts kRowsPerWarp * 16 samples of a
 * position per tile, and at most kMaxTilesPerBlock tiles. */
template < int BPP, bool AFTER_PLANE = true > __device__ __forceinline__ void
add_block_totals (const PlaneArgs & pl, const Totals & t, Workspace * ws,
    SharedTotals & sh)
{
  constexpr int NP = positions < BPP > ();
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if constexpr (AFTER_PLANE)
    __syncthreads ();           /* the previous plane's totals are read */
#pragma unroll
  for (int p = 0; p < NP; p++) {
    uint32_t s = warp_add (t.sum[p]);
    uint32_t q = warp_add (t.sq[p]);
    uint32_t mn = warp_min (t.mn[p]);
    uint32_t mx = warp_max (t.mx[p]);
    if (lane == 0) {
      sh.totals[warp][p] = s;
      sh.totals[warp][4 + p] = q;
      sh.totals[warp][8 + p] = 255 - mn;
      sh.totals[warp][12 + p] = mx;
    }
  }
  const uint32_t black = warp_add (t.black), diff = warp_add (t.diff);
  if (lane == 0) {
    sh.totals[warp][16] = black;
    sh.totals[warp][17] = diff;
  }
  __syncthreads ();

  const int i = threadIdx.x;
  if (i >= kTotals || (i < 16 && (i & 3) >= NP))
    return;
  const int c = i < 16 ? pl.channel[i & 3] : 0;
  if (c < 0)
    return;                     /* a padding byte */
  if (i >= 8 && i < 16) {
    uint32_t v = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++)
      v = max (v, sh.totals[w][i]);
    if (v)
      atomicMax (i < 12 ? &ws->inv_min[c] : &ws->max[c], v);
  } else {
    unsigned long long v = 0;
#pragma unroll
    for (int w = 0; w < kWarps; w++)
      v += sh.totals[w][i];
    unsigned long long *to = i < 4 ? &ws->sum[c] : i < 8 ?
        &ws->sum_squares[c] : i == 16 ? &ws->black : &ws->abs_diff;
    if (v)
      atomicAdd (to, v);
  }
}

}                               /* namespace */

#endif
