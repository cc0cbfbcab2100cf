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

extern "C" CfError
cf_event_create (CfEvent * event)
{
  cf_forget_earlier_errors ();
  /* not blocking-sync: no host thread blocks on one, they are asked
   * (cf_event_done) */
  return cudaEventCreateWithFlags ((cudaEvent_t *) event,
      cudaEventDisableTiming);
}

extern "C" CfError
cf_event_record (CfEvent event, CfStream stream)
{
  return cudaEventRecord ((cudaEvent_t) event, (cudaStream_t) stream);
}

extern "C" int
cf_event_done (CfEvent event)
{
  cudaError_t err = cudaEventQuery ((cudaEvent_t) event);
  if (err == cudaSuccess)
    return 1;
  if (err == cudaErrorNotReady)
    return 0;
  return -(int) err;
}

extern "C" void
cf_event_destroy (CfEvent event)
{
  if (event)
    (void) cudaEventDestroy ((cudaEvent_t) event);
}

extern "C" CfError
cf_event_wait_on (CfStream stream, CfEvent event)
{
  return cudaStreamWaitEvent ((cudaStream_t) stream, (cudaEvent_t) event, 0);
}

extern "C" CfError
cf_copy_to_host (void *host, const void *device, size_t bytes,
    CfStream stream)
{
  return cudaMemcpyAsync (host, device, bytes, cudaMemcpyDeviceToHost,
      (cudaStream_t) stream);
}

extern "C" CfError
cf_copy_to_device (void *device, const void *host, size_t bytes,
    CfStream stream)
{
  /* (the wait: the caller may change its host memory as soon as this
   * returns, whatever the memory) */
  cudaError_t err = cudaMemcpyAsync (device, host, bytes,
      cudaMemcpyHostToDevice, (cudaStream_t) stream);
  if (err == cudaSuccess)
    err = cudaStreamSynchronize ((cudaStream_t) stream);
  return err;
}
