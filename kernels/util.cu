/* Error names and device count of the kernels' C API. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

static_assert (CF_ERROR_MEMORY_ALLOCATION == cudaErrorMemoryAllocation,
    "the header's copy of the CUDA error code");

extern "C" const char *
cf_error_name (CfError err)
{
  return cudaGetErrorName ((cudaError_t) err);
}

extern "C" int
cf_device_count (void)
{
  int n = 0;
  if (cudaGetDeviceCount (&n) != cudaSuccess) {
    (void) cudaGetLastError ();   /* clear the sticky "no device" error */
    return 0;
  }
  return n;
}
