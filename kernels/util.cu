/* Error names, device count and plane helpers of the kernels' C API. */
#include "cudafilters-kernels.h"
#include "kernels-common.cuh"

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

extern "C" CfError
cf_copy_plane (const void *src, size_t src_pitch, void *dst, size_t dst_pitch,
    size_t row_bytes, int rows, CfStream stream)
{
  if (rows <= 0 || row_bytes == 0)
    return cudaSuccess;
  return cudaMemcpy2DAsync (dst, dst_pitch, src, src_pitch, row_bytes,
      (size_t) rows, cudaMemcpyDeviceToDevice, stream);
}

extern "C" CfError
cf_fill_plane (void *dst, size_t pitch, size_t row_bytes, int rows,
    uint8_t value, CfStream stream)
{
  if (rows <= 0 || row_bytes == 0)
    return cudaSuccess;
  return cudaMemset2DAsync (dst, pitch, value, row_bytes, (size_t) rows,
      stream);
}
