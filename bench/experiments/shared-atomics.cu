/* Experiment (not part of the plugin): the rate of shared-memory atomic
 * adds on this GPU, and how it grows with the warps an SM holds.  Each
 * lane adds to counters of its own, word [value][lane] of its warp's block
 * (the layout of kernels/hist.cu: no two lanes of a warp on one bank), at
 * pseudo-random values; no global loads.  The fewer values, the smaller a
 * warp's block, the more warps fit.  Mode 1 does a plain load, add and store
 * instead of the atomic; mode 2 adds to one block-wide set of counters (the
 * layout of CUB's histogram), where lanes may collide.  Prints, per
 * configuration, the time per warp-wide atomic per SM.  Results and
 * conclusions: docs/history/notes.md (cudahist).
 *   shared-atomics */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  std::fprintf (stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorName (e_)); \
  std::exit (2); } } while (0)

template < int MODE > __global__ void
count_random (int iters, int values_log2, unsigned *out)
{
  extern __shared__ unsigned counters[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int words = 32 << values_log2;
  unsigned *mine = counters + warp * words;
  for (int i = lane; i < words; i += 32)
    mine[i] = 0;
  __syncthreads ();
  unsigned x = 0x9e3779b9u * (threadIdx.x + 1 + blockIdx.x * 977);
  const unsigned mask = (1u << values_log2) - 1;
  for (int it = 0; it < iters; it++) {
    x ^= x << 13;               /* xorshift32 */
    x ^= x >> 17;
    x ^= x << 5;
#pragma unroll
    for (int b = 0; b < 4; b++) {
      const unsigned v = (x >> (8 * b)) & mask;
      unsigned *p = mine + v * 32 + lane;
      if (MODE == 0)
        atomicAdd (p, 1u << (8 * b));
      else if (MODE == 1)
        *(volatile unsigned *) p += 1u << (8 * b);
      else
        atomicAdd (counters + ((v + 64 * b) & (words - 1)), 1u);
    }
  }
  __syncthreads ();
  unsigned sum = 0;
  for (int i = lane; i < words; i += 32)
    sum += mine[i];
  if (sum == 12345)             /* keeps the counting; never true in practice */
    out[0] = sum;
}

int
main ()
{
  int sms, clock_khz;
  CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK (cudaDeviceGetAttribute (&clock_khz, cudaDevAttrClockRate, 0));
  unsigned *out;
  CHECK (cudaMalloc (&out, 4));
  cudaEvent_t e0, e1;
  CHECK (cudaEventCreate (&e0));
  CHECK (cudaEventCreate (&e1));
  std::printf ("mode,values,warps_per_block,blocks_per_sm,warps_per_sm,"
      "ns_per_warp_atomic_per_sm,cycles_at_%dMHz\n", clock_khz / 1000);
  const int iters = 4096;
  for (int mode = 0; mode < 3; mode++)
    for (int values_log2 = 8; values_log2 >= 5; values_log2--)
      for (int warps = 1; warps <= 32; warps *= 2) {
        const size_t smem = (size_t) warps * (32u << values_log2) * 4;
        if (smem > 227 * 1024)
          continue;
        void (*kernel) (int, int, unsigned *) = mode == 0 ?
            count_random < 0 > : mode == 1 ? count_random < 1 > :
            count_random < 2 >;
        CHECK (cudaFuncSetAttribute (kernel,
                cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024));
        int per_sm = 0;
        CHECK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel,
                32 * warps, smem));
        if (!per_sm)
          continue;
        float best = 1e9f;
        for (int rep = 0; rep < 5; rep++) {
          CHECK (cudaEventRecord (e0));
          kernel <<< per_sm * sms, 32 * warps, smem >>> (iters, values_log2,
              out);
          CHECK (cudaEventRecord (e1));
          CHECK (cudaEventSynchronize (e1));
          float ms;
          CHECK (cudaEventElapsedTime (&ms, e0, e1));
          best = ms < best ? ms : best;
        }
        const double per_sm_atomics = (double) per_sm * warps * iters * 4;
        const double ns = best * 1e6 / per_sm_atomics;
        std::printf ("%d,%d,%d,%d,%d,%.3f,%.2f\n", mode, 1 << values_log2,
            warps, per_sm, per_sm * warps, ns, ns * clock_khz / 1e6);
      }
  CHECK (cudaGetLastError ());
  return 0;
}
