/* Helpers shared by the .cu files; not part of the C API. */
#ifndef CUDAFILTERS_KERNELS_COMMON_CUH
#define CUDAFILTERS_KERNELS_COMMON_CUH

#include <cuda_runtime.h>
#include <stdint.h>

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

#endif
