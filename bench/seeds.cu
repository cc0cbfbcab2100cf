/* The origin articles' kernels, re-run by kernel-bench as baselines: what
 * each step of each article's ladder costs on this GPU.  Kept as close to
 * the articles' shapes (grid, block, what each thread reads, where it adds)
 * as our data allows; the header says what was adapted and why. */
#include "seeds.h"

#include <cuda_runtime.h>

/* ---- seeds/000: summing an image, step by step ----------------------- */

/* The article's THREAD_NUM and BLOCK_NUM */
static const int kSumThreads = 256, kSumBlocks = 16;

static __device__ unsigned
bytes_of (uint32_t v)
{
  return (v & 0xff) + ((v >> 8) & 0xff) + ((v >> 16) & 0xff) + (v >> 24);
}

/* vector_add_gpu_2: the article adds into b[0] in global memory at every
 * step; here the total stays in a register until the end, so this rung
 * can only be faster than the article's. */
__global__ void
sum_one_thread (const uint32_t * __restrict__ words, size_t n,
    unsigned long long *total)
{
  unsigned long long s = 0;
  for (size_t i = 0; i < n; i++)
    s += bytes_of (words[i]);
  *total += s;
}

/* nv_SumOfv2: neighbouring threads read neighbouring words. */
__global__ void
sum_one_block_atomics (const uint32_t * __restrict__ words, size_t n,
    unsigned long long *total)
{
  unsigned long long s = 0;
  for (size_t i = threadIdx.x; i < n; i += blockDim.x)
    s += bytes_of (words[i]);
  atomicAdd (total, s);
}

/* sumOfCuda: gridDim.x * blockDim.x atomics on one address. */
__global__ void
sum_many_blocks_atomics (const uint32_t * __restrict__ words, size_t n,
    unsigned long long *total)
{
  const size_t step = (size_t) gridDim.x * blockDim.x;
  unsigned long long s = 0;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += step)
    s += bytes_of (words[i]);
  atomicAdd (total, s);
}

/* sumOfCuda_v2: each thread's total staged in shared memory, halved by a
 * tree with a barrier per level, one atomic per block. */
__global__ void
sum_block_tree (const uint32_t * __restrict__ words, size_t n,
    unsigned long long *total)
{
  __shared__ unsigned long long part[kSumThreads];
  const size_t step = (size_t) gridDim.x * blockDim.x;
  unsigned long long s = 0;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += step)
    s += bytes_of (words[i]);
  part[threadIdx.x] = s;
  __syncthreads ();
  for (unsigned i = blockDim.x / 2; i != 0; i /= 2) {
    if (threadIdx.x < i)
      part[threadIdx.x] += part[threadIdx.x + i];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    atomicAdd (total, part[0]);
}

int
seed_sum_one_thread (const uint32_t * words, size_t n,
    unsigned long long *total)
{
  sum_one_thread <<< 1, 1 >>> (words, n, total);
  return cudaGetLastError ();
}

int
seed_sum_one_block_atomics (const uint32_t * words, size_t n,
    unsigned long long *total)
{
  sum_one_block_atomics <<< 1, kSumThreads >>> (words, n, total);
  return cudaGetLastError ();
}

int
seed_sum_many_blocks_atomics (const uint32_t * words, size_t n,
    unsigned long long *total)
{
  sum_many_blocks_atomics <<< kSumBlocks, kSumThreads >>> (words, n, total);
  return cudaGetLastError ();
}

int
seed_sum_block_tree (const uint32_t * words, size_t n,
    unsigned long long *total)
{
  sum_block_tree <<< kSumBlocks, kSumThreads >>> (words, n, total);
  return cudaGetLastError ();
}

/* ---- seeds/002: histogram with atomics ------------------------------- */

static const int kHistThreads = 256;

/* The article's first cal_hist: byte i goes straight to a global counter.
 * (The channel count is a template parameter so that i % C is a mask or a
 * multiply, not a 64-bit division the article's kernel never paid.) */
template < int C > __global__ void
hist_global_atomics (const uint8_t * __restrict__ bytes, size_t n,
    uint32_t * counts)
{
  const size_t step = (size_t) gridDim.x * blockDim.x;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += step)
    atomicAdd (&counts[(i % C) * 256 + bytes[i]], 1u);
}

/* The article's second cal_hist: the block's own counters in shared
 * memory, zeroed, filled by shared atomics, then every bin added to the
 * global one (all of them, as the article does, zero or not). */
template < int C > __global__ void
hist_shared_atomics (const uint8_t * __restrict__ bytes, size_t n,
    uint32_t * counts)
{
  __shared__ uint32_t block_counts[C * 256];
  const int bins = C * 256;
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    block_counts[b] = 0;
  __syncthreads ();
  const size_t step = (size_t) gridDim.x * blockDim.x;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += step)
    atomicAdd (&block_counts[(i % C) * 256 + bytes[i]], 1u);
  __syncthreads ();
  for (int b = threadIdx.x; b < bins; b += blockDim.x)
    atomicAdd (&counts[b], block_counts[b]);
}

/* Twice the SM count, as the article's text and the seeds' README say
 * (its listing passes the SM count itself). */
static int
hist_blocks (void)
{
  static int sms = 0;
  if (!sms && cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount,
          0) != cudaSuccess)
    sms = 1;
  return 2 * sms;
}

typedef void (*HistKernel) (const uint8_t *, size_t, uint32_t *);

/* one of the article's two kernels, for 1 or 4 channels */
static int
launch_hist (HistKernel one, HistKernel four, const uint8_t * bytes,
    size_t n, int channels, uint32_t * counts)
{
  if (channels != 1 && channels != 4)
    return cudaErrorInvalidValue;
  (channels == 1 ? one : four) <<< hist_blocks (), kHistThreads >>> (bytes,
      n, counts);
  return cudaGetLastError ();
}

int
seed_hist_global_atomics (const uint8_t * bytes, size_t n, int channels,
    uint32_t * counts)
{
  return launch_hist (hist_global_atomics < 1 >, hist_global_atomics < 4 >,
      bytes, n, channels, counts);
}

int
seed_hist_shared_atomics (const uint8_t * bytes, size_t n, int channels,
    uint32_t * counts)
{
  return launch_hist (hist_shared_atomics < 1 >, hist_shared_atomics < 4 >,
      bytes, n, channels, counts);
}

/* ---- seeds/001: Gaussian blur as a direct 2D stencil ----------------- */

/* The article's gaussian_blur, with all four channels blurred and rounded
 * (it truncates and sets alpha to 255), 32 x 8 threads per block (it uses
 * 32 x 32) and the weights loaded by all of a block's threads before any
 * thread may leave (it lets out-of-frame threads return before its
 * barrier).  docs/performance.md's seed rows use this shape. */
__global__ void
blur_direct_rgba (const uchar4 * __restrict__ src, size_t src_pitch,
    uchar4 * __restrict__ dst, size_t dst_pitch, int w, int h,
    const float *__restrict__ weights, int r)
{
  extern __shared__ float sw[];
  int n = (2 * r + 1) * (2 * r + 1);
  for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < n;
      i += blockDim.x * blockDim.y)
    sw[i] = weights[i];
  __syncthreads ();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float4 acc = make_float4 (0, 0, 0, 0);
  for (int j = -r; j <= r; j++) {
    int yy = min (max (y + j, 0), h - 1);
    const uchar4 *row = (const uchar4 *) ((const char *) src + yy * src_pitch);
    for (int i = -r; i <= r; i++) {
      uchar4 p = row[min (max (x + i, 0), w - 1)];
      float wgt = sw[(j + r) * (2 * r + 1) + i + r];
      acc.x += wgt * p.x;
      acc.y += wgt * p.y;
      acc.z += wgt * p.z;
      acc.w += wgt * p.w;
    }
  }
  ((uchar4 *) ((char *) dst + y * dst_pitch))[x] =
      make_uchar4 (acc.x + 0.5f, acc.y + 0.5f, acc.z + 0.5f, acc.w + 0.5f);
}

int
seed_blur_direct_rgba (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const float *weights,
    int radius)
{
  dim3 block (32, 8), grid ((width + 31) / 32, (height + 7) / 8);
  size_t smem = sizeof (float) * (2 * radius + 1) * (2 * radius + 1);
  blur_direct_rgba <<< grid, block, smem >>> ((const uchar4 *) src,
      src_pitch, (uchar4 *) dst, dst_pitch, width, height, weights, radius);
  return cudaGetLastError ();
}

/* ---- seeds/003: matrix-vector product, as frame profiles ------------- */

static const int kProfileThreads = 256;

/* mxvNaive: thread y sums row y. */
__global__ void
row_sums_thread_per_row (const uint8_t * __restrict__ plane, size_t pitch,
    int w, int h, uint32_t * row_sums)
{
  int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= h)
    return;
  const uint8_t *row = plane + (size_t) y * pitch;
  uint32_t s = 0;
#pragma unroll 4
  for (int x = 0; x < w; x++)
    s += row[x];
  row_sums[y] = s;
}

/* mxvNaiveTranspose: thread x sums column x. */
__global__ void
column_sums_thread_per_column (const uint8_t * __restrict__ plane,
    size_t pitch, int w, int h, uint32_t * column_sums)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w)
    return;
  uint32_t s = 0;
#pragma unroll 4
  for (int y = 0; y < h; y++)
    s += plane[(size_t) y * pitch + x];
  column_sums[x] = s;
}

/* mxvBlock: block y sums row y. */
__global__ void
row_sums_block_per_row (const uint8_t * __restrict__ plane, size_t pitch,
    int w, uint32_t * row_sums)
{
  __shared__ uint32_t part[kProfileThreads];
  const uint8_t *row = plane + (size_t) blockIdx.x * pitch;
  uint32_t s = 0;
  for (int x = threadIdx.x; x < w; x += blockDim.x)
    s += row[x];
  part[threadIdx.x] = s;
  __syncthreads ();
  for (unsigned i = blockDim.x / 2; i != 0; i /= 2) {
    if (threadIdx.x < i)
      part[threadIdx.x] += part[threadIdx.x + i];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    row_sums[blockIdx.x] = part[0];
}

/* One warp per row (the article's text breaks off before this kernel: it
 * is written from its description, with shuffles for the reduction). */
__global__ void
row_sums_warp_per_row (const uint8_t * __restrict__ plane, size_t pitch,
    int w, int h, uint32_t * row_sums)
{
  int y = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (y >= h)                   /* the whole warp leaves together */
    return;
  const uint8_t *row = plane + (size_t) y * pitch;
  uint32_t s = 0;
  for (int x = lane; x < w; x += 32)
    s += row[x];
  for (int d = 16; d != 0; d /= 2)
    s += __shfl_down_sync (0xffffffffu, s, d);
  if (lane == 0)
    row_sums[y] = s;
}

int
seed_row_sums_thread_per_row (const uint8_t * plane, size_t pitch, int width,
    int height, uint32_t * row_sums)
{
  row_sums_thread_per_row <<< (height + kProfileThreads - 1) /
      kProfileThreads, kProfileThreads >>> (plane, pitch, width, height,
      row_sums);
  return cudaGetLastError ();
}

int
seed_column_sums_thread_per_column (const uint8_t * plane, size_t pitch,
    int width, int height, uint32_t * column_sums)
{
  column_sums_thread_per_column <<< (width + kProfileThreads - 1) /
      kProfileThreads, kProfileThreads >>> (plane, pitch, width, height,
      column_sums);
  return cudaGetLastError ();
}

int
seed_row_sums_block_per_row (const uint8_t * plane, size_t pitch, int width,
    int height, uint32_t * row_sums)
{
  row_sums_block_per_row <<< height, kProfileThreads >>> (plane, pitch,
      width, row_sums);
  return cudaGetLastError ();
}

int
seed_row_sums_warp_per_row (const uint8_t * plane, size_t pitch, int width,
    int height, uint32_t * row_sums)
{
  const int warps_per_block = kProfileThreads / 32;
  row_sums_warp_per_row <<< (height + warps_per_block - 1) / warps_per_block,
      kProfileThreads >>> (plane, pitch, width, height, row_sums);
  return cudaGetLastError ();
}
