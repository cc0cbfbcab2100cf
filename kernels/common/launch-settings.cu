/* The launch-settings cache (launch-settings.cuh).
 *
 * Both tables are read without a lock: an entry is written once, under
 * the lock, before the release store that makes it visible, and never
 * changes after.  A reader that misses takes the lock, looks again (another
 * thread may have filled it meanwhile), queries the runtime and publishes
 * only a success.  Devices past kDevices, and settings past kSettings,
 * are kept in a map under the lock (device info, whose pointer must stay
 * valid) or queried at every call (resident blocks). */
#include "launch-settings.cuh"

#include <atomic>
#include <map>
#include <mutex>

namespace cf {

namespace {

constexpr int kDevices = 64;
/* every kernel of every operation, at the few block sizes each uses */
constexpr int kSettings = 256;

struct DeviceSlot
{
  std::atomic < bool > ready;
  DeviceInfo info;
};

struct Setting
{
  const void *kernel;
  int device;
  int block_threads;
  size_t dynamic_smem;
  int blocks;
};

std::mutex lock;
DeviceSlot devices[kDevices];
std::map < int, DeviceInfo > more_devices;      /* under `lock` */
Setting settings[kSettings];
std::atomic < int > n_settings;

cudaError_t
query_device (int dev, DeviceInfo * info)
{
  cudaError_t err;
  info->device = dev;
  if ((err = cudaDeviceGetAttribute (&info->sm_count,
              cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess
      || (err = cudaDeviceGetAttribute (&info->cc_major,
              cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess
      || (err = cudaDeviceGetAttribute (&info->cc_minor,
              cudaDevAttrComputeCapabilityMinor, dev)) != cudaSuccess
      || (err = cudaDeviceGetAttribute (&info->smem_optin,
              cudaDevAttrMaxSharedMemoryPerBlockOptin, dev)) != cudaSuccess
      || (err = cudaDeviceGetAttribute (&info->smem_per_sm,
              cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev))
      != cudaSuccess)
    return err;
  return cudaSuccess;
}

/* the published entry of these settings, or null */
const Setting *
find_setting (const void *kernel, int dev, int block_threads,
    size_t dynamic_smem)
{
  const int n = n_settings.load (std::memory_order_acquire);
  for (int i = 0; i < n; i++) {
    const Setting & s = settings[i];
    if (s.kernel == kernel && s.device == dev
        && s.block_threads == block_threads && s.dynamic_smem == dynamic_smem)
      return &s;
  }
  return nullptr;
}

}                               /* namespace */

cudaError_t
current_device_info (const DeviceInfo ** info)
{
  int dev = 0;
  cudaError_t err;

  if ((err = cudaGetDevice (&dev)) != cudaSuccess)
    return err;
  if (dev >= 0 && dev < kDevices
      && devices[dev].ready.load (std::memory_order_acquire)) {
    *info = &devices[dev].info;
    return cudaSuccess;
  }

  std::lock_guard < std::mutex > hold (lock);
  if (dev >= 0 && dev < kDevices) {
    DeviceSlot & slot = devices[dev];
    if (!slot.ready.load (std::memory_order_relaxed)) {
      if ((err = query_device (dev, &slot.info)) != cudaSuccess)
        return err;
      slot.ready.store (true, std::memory_order_release);
    }
    *info = &slot.info;
    return cudaSuccess;
  }
  auto known = more_devices.find (dev);
  if (known == more_devices.end ()) {
    DeviceInfo fresh;
    if ((err = query_device (dev, &fresh)) != cudaSuccess)
      return err;
    known = more_devices.emplace (dev, fresh).first;
  }
  *info = &known->second;
  return cudaSuccess;
}

cudaError_t
resident_blocks_per_sm (const void *kernel, int block_threads,
    size_t dynamic_smem, int *blocks)
{
  int dev = 0;
  cudaError_t err;

  if ((err = cudaGetDevice (&dev)) != cudaSuccess)
    return err;
  const Setting *known = find_setting (kernel, dev, block_threads,
      dynamic_smem);
  if (known) {
    *blocks = known->blocks;
    return cudaSuccess;
  }

  std::lock_guard < std::mutex > hold (lock);
  if ((known = find_setting (kernel, dev, block_threads, dynamic_smem))) {
    *blocks = known->blocks;
    return cudaSuccess;
  }
  int per_sm = 0;
  if ((err = cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel,
              block_threads, dynamic_smem)) != cudaSuccess)
    return err;
  *blocks = per_sm;
  /* only writers append, all under the lock */
  const int n = n_settings.load (std::memory_order_relaxed);
  if (n < kSettings) {
    settings[n] = Setting { kernel, dev, block_threads, dynamic_smem,
      per_sm };
    n_settings.store (n + 1, std::memory_order_release);
  }
  return cudaSuccess;
}

}                               /* namespace cf */
