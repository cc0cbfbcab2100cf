/* What launches are sized by, one way for every operation: the current
 * device's attributes, read once per device, and a kernel's resident
 * blocks per SM, computed once per (device, kernel, block, shared memory).
 * Elements launch from several streaming threads, so both are
 * thread-safe; a failed query is returned, never cached.  Host code only;
 * not part of the C API. */
#ifndef CUDAFILTERS_LAUNCH_SETTINGS_CUH
#define CUDAFILTERS_LAUNCH_SETTINGS_CUH

#include <cuda_runtime.h>
#include <stddef.h>

namespace cf {

struct DeviceInfo
{
  int device;
  int sm_count;
  int cc_major;
  int cc_minor;
  int smem_optin;               /* cudaDevAttrMaxSharedMemoryPerBlockOptin */
  int smem_per_sm;              /* cudaDevAttrMaxSharedMemoryPerMultiprocessor */
};

/* The current device's, read once per device; thread-safe.  *info stays
 * valid for the life of the process. */
cudaError_t current_device_info (const DeviceInfo ** info);

/* Resident blocks per SM of @kernel at @block_threads and @dynamic_smem on
 * the current device (cudaOccupancyMaxActiveBlocksPerMultiprocessor),
 * cached per (device, kernel, threads, smem); thread-safe. */
cudaError_t resident_blocks_per_sm (const void *kernel, int block_threads,
    size_t dynamic_smem, int *blocks);

}                               /* namespace cf */

#endif
