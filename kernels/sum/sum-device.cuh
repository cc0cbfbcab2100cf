/* What the statistics kernels share with their launch, and the device
 * code every kernel uses: the launch's arguments, the workspace, the
 * chunk loads, warp reductions and the block's shared totals.  sum.cu
 * includes it; see docs/design/sum.md. */
#ifndef CUDAFILTERS_SUM_DEVICE_CUH
#define CUDAFILTERS_SUM_DEVICE_CUH

#include "sum-policy.cuh"
#include "kernels-common.cuh"

#include <type_traits>

namespace {

/* the key features a kernel is built with */
constexpr unsigned kProfiles = CF_SUM_PROFILES;
constexpr unsigned kBlack = CF_SUM_BLACK;
constexpr unsigned kPrevious = CF_SUM_DIFF;     /* DIFF or KEEP */
constexpr unsigned kKeyCounts = 8;      /* CF_SUM_HIST */

struct PlaneArgs
{
  const uint8_t *data;
  size_t pitch;
  int row_bytes;
  int rows;
  int bpp;
  int width;                    /* pixels */
  int tile_cols;                /* tiles across a row */
  int tile_rows;                /* tiles down the plane */
  bool vectors;                 /* base and pitch multiples of 16 */
  int channel[4];               /* byte of a pixel -> channel, or -1 */
  int first_block;              /* statistics_kernel: the plane's first */
  uint64_t row_of_vector;       /* statistics_kernel: 2^64 / (row_bytes / 16),
                                 * rounded up (row_bytes >= 32: for 16, 2^64
                                 * itself would not fit) */
};

struct LaunchArgs
{
  PlaneArgs plane[CF_HIST_MAX_PLANES];
  int n_planes;
  unsigned flags;
  uint32_t weights[4];
  /* byte i of every weight, packed a byte per pixel byte (weights are
   * under 2^16: two bytes), for keys by dot products */
  uint32_t weight_bytes[2];
  uint32_t black_limit;         /* (threshold + 1) << 16, at most 2^24 */
  uint8_t *previous;
  size_t previous_pitch;
  uint32_t *key_counts;         /* CF_SUM_HIST's, or null */
  int key_width, key_height;    /* of plane 0, for the profiles */
  CfSumStats *out;
  uint32_t *row_out;
  uint32_t *column_out;
  /* false: the blocks add into the caller's zeroed sums and nobody
   * publishes (cf_sum_planes_add) */
  bool publish;
  uint32_t *zero_next;          /* words the launch zeroes, or null */
  size_t zero_words;
  int blocks;                   /* statistics_kernel: blocks with vectors */
};

struct Workspace
{
  unsigned long long sum[CF_HIST_MAX_CHANNELS];
  unsigned long long sum_squares[CF_HIST_MAX_CHANNELS];
  unsigned long long black, abs_diff;
  unsigned int inv_min[CF_HIST_MAX_CHANNELS];   /* max of 255 - v */
  unsigned int max[CF_HIST_MAX_CHANNELS];
  unsigned int blocks_done;
  unsigned int pad[3];
  /* then the row sums (max_height words), then the column sums */
};

__host__ __device__ inline uint32_t *
ws_rows (Workspace * ws)
{
  return reinterpret_cast < uint32_t * >(ws + 1);
}

/* The frame's bytes are read once: its loads (__ldcs) mark their lines
 * first to go from L2, so that a 4K frame streaming through does not push
 * out the previous frame's keys, which this kernel wrote a frame ago and
 * reads now (`cut`). */

/* Loads a whole chunk in 16-byte vectors (the plane is aligned). */
template < int BPP > __device__ __forceinline__ void
load_chunk_vector (const uint8_t * __restrict__ src,
    uint32_t (&w)[chunk_bytes < BPP > () / 4])
{
#pragma unroll
  for (int j = 0; j < chunk_bytes < BPP > () / 16; j++) {
    uint4 v = __ldcs (reinterpret_cast < const uint4 * >(src) + j);
    w[4 * j + 0] = v.x;
    w[4 * j + 1] = v.y;
    w[4 * j + 2] = v.z;
    w[4 * j + 3] = v.w;
  }
}

/* Loads `valid` bytes of a chunk from `src`, zeros after them: whole
 * words with 4-byte loads where the address allows, else a byte at a
 * time. */
template < int BPP > __device__ __forceinline__ void
load_chunk_any (const uint8_t * __restrict__ src, int valid,
    uint32_t (&w)[chunk_bytes < BPP > () / 4])
{
  const bool words = ((uintptr_t) src & 3) == 0;
#pragma unroll
  for (int j = 0; j < chunk_bytes < BPP > () / 4; j++) {
    if (words && 4 * j + 4 <= valid) {
      w[j] = __ldcs (reinterpret_cast < const unsigned int * >(src) + j);
    } else {
      uint32_t word = 0;
#pragma unroll
      for (int b = 0; b < 4; b++) {
        if (4 * j + b < valid)
          word |= (uint32_t) __ldcs (src + 4 * j + b) << (8 * b);
      }
      w[j] = word;
    }
  }
}

/* Warp reductions: one instruction from sm_80 on, shuffles before. */
__device__ __forceinline__ uint32_t
warp_add (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync (0xffffffffu, v);
#else
  for (int d = 16; d > 0; d >>= 1)
    v += __shfl_xor_sync (0xffffffffu, v, d);
  return v;
#endif
}

__device__ __forceinline__ uint32_t
warp_min (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync (0xffffffffu, v);
#else
  for (int d = 16; d > 0; d >>= 1)
    v = min (v, __shfl_xor_sync (0xffffffffu, v, d));
  return v;
#endif
}

__device__ __forceinline__ uint32_t
warp_max (uint32_t v)
{
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync (0xffffffffu, v);
#else
  for (int d = 16; d > 0; d >>= 1)
    v = max (v, __shfl_xor_sync (0xffffffffu, v, d));
  return v;
#endif
}

/* A block's shared memory: each warp's totals (sums, squares, 255 - min,
 * max by position, black, diff), and with profiles its warps' column sums
 * of the key.  Kernels without profiles declare the totals alone (0.6 KB
 * rather than 17): shared memory that nothing uses still counts against
 * the blocks an SM holds. */
constexpr int kTotals = 18;
struct SharedTotals
{
  uint32_t totals[kWarps][kTotals];
};
struct BlockShared:SharedTotals
{
  uint32_t columns[kWarps * 32 * kMaxChunkPixels];
};
template < unsigned K > using SharedOf =
    typename std::conditional < (K & kProfiles) != 0, BlockShared,
    SharedTotals >::type;

/* The key's counts of a block (kKeyCounts), in the kernel's dynamic
 * shared memory: as in cudahist (kernels/hist/hist.cu), each lane counts
 * into counters of its own bank, so that a warp's adds never conflict,
 * whatever the picture: the counter of key v for lane l is half v % 2 of
 * word (v / 2) * 32 + l, 16 bits.  A lane's counters take the keys of
 * that lane of every warp of the block, kTileRows rows of a chunk a tile,
 * which they hold for the tiles a block counts at most. */
constexpr int kKeyCountWords = CF_HIST_BINS / 2 * 32;
constexpr size_t kKeyCountBytes = sizeof (uint32_t) * kKeyCountWords;
static_assert ((long long) kMaxTilesPerBlock * kTileRows * kMaxChunkPixels
    < 65536, "16-bit key counters overflow");

__device__ __forceinline__ uint32_t *
block_key_counts ()
{
  extern __shared__ uint32_t key_count_words[];
  return key_count_words;
}

__device__ __forceinline__ void
count_key (uint32_t key)
{
  atomicAdd (&block_key_counts ()[(key >> 1) * 32 + (threadIdx.x & 31)],
      1u << ((key & 1) * 16));
}

}                               /* namespace */

#endif
