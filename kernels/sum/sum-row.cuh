/* A lane's chunk of one row: its samples into the accumulators
 * (sum-totals.cuh), and with key features the keys of its pixels, their
 * row and column sums, black count, counts, and difference from (and
 * store of) the previous frame's keys.  sum.cu includes it; see
 * docs/design/sum.md. */
#ifndef CUDAFILTERS_SUM_ROW_CUH
#define CUDAFILTERS_SUM_ROW_CUH

#include "sum-totals.cuh"

namespace {

/* The key of pixel k of a chunk, times 65536 plus a fraction:
 * 32768 + sum of weight * byte, under 2^24.  The key is this >> 16. */
template < int BPP > __device__ __forceinline__ uint32_t
key_sum_of (const uint32_t * words, int k, const uint32_t (&wt)[4],
    const uint32_t (&wt_bytes)[2])
{
  if constexpr (BPP == 1) {
    return byte_of (words, k) << 16;
  } else if constexpr (BPP == 4) {
    /* a pixel is a word: two dot products, one per byte of the weights,
     * instead of four byte extractions and multiplies */
    const uint32_t x = words[k];
    return (__dp4a (x, wt_bytes[1], 0u) << 8) +
        __dp4a (x, wt_bytes[0], 32768u);
  } else {
    uint32_t acc = 32768u;
#pragma unroll
    for (int b = 0; b < BPP; b++)
      acc += wt[b] * byte_of (words, k * BPP + b);
    return acc;
  }
}

/* acc + the four bytewise |a - b|.  For 4-byte pixels PTX's vabsdiff4
 * with its .add (one VABSDIFF4.U8.ACC on sm_90), where __vabsdiffu4 and a
 * dp4a are two instructions.  In the kernels of 1- and 3-byte pixels the
 * same made ptxas spill more (3-byte pixels with every feature: 36 bytes
 * of spill stores, none before), so they keep the two. */
template < int BPP > __device__ __forceinline__ uint32_t
absdiff4_add (uint32_t a, uint32_t b, uint32_t acc)
{
  if constexpr (BPP == 4) {
    uint32_t sum;
    asm ("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;":"=r" (sum)
        :"r" (a), "r" (b), "r" (acc));
    return sum;
  } else {
    return __dp4a (__vabsdiffu4 (a, b), 0x01010101u, acc);
  }
}

/* The previous frame's keys of chunk `chunk` of row y, a byte each; null
 * in a kernel without them, where args.previous is null too. */
template < int BPP, unsigned K > __device__ __forceinline__ uint8_t *
previous_keys (const LaunchArgs & args, int y, int chunk)
{
  if constexpr ((K & kPrevious) == 0)
    return nullptr;
  else
    return args.previous + (size_t) y * args.previous_pitch +
        (size_t) chunk * chunk_pixels < BPP > ();
}

/* Loads the keys of a whole chunk, 4 bytes or 16 (aligned as the pitch
 * is), as words. */
template < int BPP > __device__ __forceinline__ void
load_previous_keys (const uint8_t * prev,
    uint32_t (&old)[chunk_pixels < BPP > () / 4])
{
  if constexpr (chunk_pixels < BPP > () == 4) {
    old[0] = *reinterpret_cast < const uint32_t * >(prev);
  } else {
    const uint4 v = *reinterpret_cast < const uint4 * >(prev);
    old[0] = v.x;
    old[1] = v.y;
    old[2] = v.z;
    old[3] = v.w;
  }
}

/* Counts a lane's chunk of a row into the tile's totals; row_key is the
 * sum of its keys.  prev: where the chunk's previous keys are
 * (previous_keys (); unused without kPrevious). */
template < int BPP, unsigned K > __device__ __forceinline__ void
count_row (const LaunchArgs & args, bool keyed,
    const uint32_t (&w)[chunk_bytes < BPP > () / 4], int valid, WordAcc & wa,
    ByteAcc & ba, uint32_t & black, uint32_t & diff,
    uint32_t (&col)[kMaxChunkPixels], uint32_t & row_key, uint8_t * prev,
    const uint32_t * old_keys = nullptr)
{
  constexpr int CHUNK = chunk_bytes < BPP > ();
  constexpr int WORDS = CHUNK / 4;
  constexpr int PX = chunk_pixels < BPP > ();
  const int valid_px = valid / BPP;
  if constexpr (BPP == 3) {
#pragma unroll
    for (int i = 0; i < CHUNK; i++) {
      if (i < valid) {
        uint32_t v = byte_of (w, i);
        ba.s[i % 3] += v;
        ba.q[i % 3] += v * v;
        ba.mn[i % 3] = min (ba.mn[i % 3], v);
        ba.mx[i % 3] = max (ba.mx[i % 3], v);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < WORDS; j++) {
      int in_word = valid - 4 * j;
      uint32_t missing = in_word >= 4 ? 0u :
          in_word <= 0 ? 0xffffffffu : 0xffffffffu << (8 * in_word);
      word_acc_add < BPP > (wa, w[j], w[j] | missing);
    }
    if constexpr (BPP == 4) {
#pragma unroll
      for (int j = 0; j < WORDS; j += 2)
        word_acc_add_pair (wa, w[j], w[j + 1]);
    }
  }

  if (!keyed)
    return;

  uint32_t keys[PX];
  uint32_t row_sum = 0;
#pragma unroll
  for (int k = 0; k < PX; k++) {
    const bool present = k < valid_px;
    const uint32_t key_sum = present ? key_sum_of < BPP > (w, k,
        args.weights, args.weight_bytes) : 0u;
    keys[k] = key_sum >> 16;
    row_sum += keys[k];
    if constexpr ((K & kProfiles) != 0)
      col[k] += keys[k];
    /* key <= threshold: key_sum < black_limit, both under 2^24, so the
     * difference's top bit is the answer (two instructions, where the
     * shifted key's compare and add took three) */
    if constexpr ((K & kBlack) != 0) {
      if (present)
        black += (key_sum - args.black_limit) >> 31;
    }
    if constexpr ((K & kKeyCounts) != 0) {
      if (present)
        count_key (keys[k]);
    }
    if constexpr ((K & kPrevious) != 0) {
      /* the last chunk of a row, a byte at a time */
      if (present && valid_px < PX) {
        if (args.flags & CF_SUM_DIFF)
          diff += (uint32_t) abs ((int) keys[k] - (int) prev[k]);
        if (args.flags & CF_SUM_KEEP)
          prev[k] = (uint8_t) keys[k];
      }
    }
  }
  row_key = row_sum;
  if constexpr ((K & kPrevious) != 0) {
    if (valid_px == PX) {
      /* PX keys: 4 bytes or 16, aligned as the pitch is */
      uint32_t packed[PX / 4], old[PX / 4];
#pragma unroll
      for (int q = 0; q < PX / 4; q++)
        packed[q] = keys[4 * q] | keys[4 * q + 1] << 8 |
            keys[4 * q + 2] << 16 | keys[4 * q + 3] << 24;
      if (args.flags & CF_SUM_DIFF) {
        if (old_keys) {
#pragma unroll
          for (int q = 0; q < PX / 4; q++)
            old[q] = old_keys[q];
        } else {
          load_previous_keys < BPP > (prev, old);
        }
#pragma unroll
        for (int q = 0; q < PX / 4; q++)
          diff = absdiff4_add < BPP > (packed[q], old[q], diff);
      }
      if (args.flags & CF_SUM_KEEP) {
        if constexpr (PX == 4)
          *reinterpret_cast < uint32_t * >(prev) = packed[0];
        else
          *reinterpret_cast < uint4 * >(prev) =
              make_uint4 (packed[0], packed[1], packed[2], packed[3]);
      }
    }
  }
}

}                               /* namespace */

#endif
