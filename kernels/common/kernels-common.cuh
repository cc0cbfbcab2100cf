/* Helpers shared by the .cu files; not part of the C API. */
#ifndef CUDAFILTERS_KERNELS_COMMON_CUH
#define CUDAFILTERS_KERNELS_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#ifdef __CUDACC__
#include <cuda/atomic>
#endif

/* A pitched plane is usable with vector accesses of `bytes` when both its
 * base and its pitch are multiples of `bytes`: then every row is. */
static inline bool
cf_is_aligned (const void *base, size_t pitch, size_t bytes)
{
  return ((uintptr_t) base % bytes) == 0 && (pitch % bytes) == 0;
}

/* The runtime keeps the last error per thread until someone reads it, so an
 * earlier failure (ours or any other code's on this thread) would be
 * reported by the next launch's check.  Launchers call this first, so what
 * they return after launching is their own launch's error.  A sticky error
 * (a broken context) still shows: the launch itself fails again. */
static inline void
cf_forget_earlier_errors (void)
{
  (void) cudaGetLastError ();
}

#ifdef __CUDACC__
/* Zeroes words [0, n) of `words`, a word per thread of the grid at a time:
 * the sums a later launch of an _add entry point adds into (nothing when
 * `words` is null). */
static __device__ __forceinline__ void
cf_grid_zero_words (uint32_t * words, size_t n)
{
  if (!words)
    return;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
      i += (size_t) gridDim.x * blockDim.x)
    words[i] = 0;
}

/* Called by every thread of a block once it is done adding its results to
 * global memory with atomics: true, in every thread, for the last block of
 * the grid to get here, which may then read everything the others added.
 * The block's atomics are ordered before its count by the barrier and
 * thread 0's acquire-release count (cumulative through the barrier),
 * rather than by a fence in every thread of every block; the count's
 * acquire orders the last block's loads after every other block's
 * atomics.  (A full fence on either side of a relaxed count cost every
 * launch more.) */
static __device__ __forceinline__ bool
cf_block_is_last (unsigned int *blocks_done)
{
  __shared__ bool last;
  __syncthreads ();
  if (threadIdx.x == 0) {
    cuda::atomic_ref < unsigned int, cuda::thread_scope_device >
        count (*blocks_done);
    last = count.fetch_add (1u, cuda::memory_order_acq_rel) ==
        gridDim.x - 1;
  }
  __syncthreads ();
  return last;
}
#endif

#endif
