/* What every blur kernel shares: the launch arguments, the border rule,
 * and the exact float rounding steps of the CUDA-core path. */
#ifndef CUDAFILTERS_BLUR_DEVICE_CUH
#define CUDAFILTERS_BLUR_DEVICE_CUH

#include "cudafilters-kernels.h"
#include "kernels-common.cuh"
#include "ptx.cuh"

#include <cuda_fp16.h>
#include <stdint.h>
namespace {

/* the PTX wrappers the kernels use */
using cf::cp_async;
using cf::cp_async_commit;
using cf::cp_async_mbarrier_arrive_noinc;
using cf::cp_async_wait;
using cf::ldsm_x2;
using cf::ldsm_x4;
using cf::ldsm_x4_at;
using cf::ldsm_x4_trans;
using cf::lds_u32_at;
using cf::lds_u64_at;
using cf::bar_sync_named;
using cf::mbarrier_arrive;
using cf::mbarrier_init;
using cf::mbarrier_wait_parity;
using cf::mma_f16;
using cf::mma_u8;
using cf::mma_u8_k16;

struct BlurArgs
{
  int rx, ry;
  int border;
  float border_value[4];
  float wx[CF_BLUR_MAX_RADIUS + 1];
  float wy[CF_BLUR_MAX_RADIUS + 1];
};

constexpr float kTwo23 = 8388608.0f;

__device__ __forceinline__ int
border_index (int i, int n, int border)
{
  if (i >= 0 && i < n)
    return i;
  if (border == CF_BORDER_REPLICATE)
    return i < 0 ? 0 : n - 1;
  if (border == CF_BORDER_REFLECT_101) {
    if (n == 1)
      return 0;
    int period = 2 * (n - 1);
    i %= period;
    if (i < 0)
      i += period;
    return i < n ? i : period - i;
  }
  return -1;
}

/* h / 2^(H_BITS - MID_BITS), rounded to nearest, halves up: h + half is an
 * integer below 2^24 (exact), and the multiply-add rounding down onto
 * 2^23 + [0, 2^23) leaves its integer part */
__device__ __forceinline__ float
round_mid (float h)
{
  constexpr int s = CF_BLUR_H_BITS - CF_BLUR_MID_BITS;
  return __fmaf_rd (h + (float) (1 << (s - 1)), 1.0f / (1 << s), kTwo23) -
      kTwo23;
}

/* v / 2^(V_BITS + MID_BITS), rounded to nearest, halves up, as a byte */
__device__ __forceinline__ uint32_t
round_out (float v)
{
  constexpr int s = CF_BLUR_V_BITS + CF_BLUR_MID_BITS;
  float y = __fmaf_rd (v + (float) (1 << (s - 1)), 1.0f / (1 << s), kTwo23);
  return __float_as_uint (y) - 0x4B000000u;
}

/* a small integer (< 2^23) as a float, exactly */
__device__ __forceinline__ float
int_to_float (uint32_t v)
{
  return __uint_as_float (0x4B000000u | v) - kTwo23;
}

}                               /* namespace */

#endif
