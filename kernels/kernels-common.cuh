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

#endif
