/* What the experiments in this folder share: a CUDA call's check, the
 * time of one launch as kernel-bench takes it (events around each launch,
 * all queued without waiting, so the host runs ahead and only the GPU's
 * time is measured; docs/history/notes.md, "Correction: the read floor
 * ..."), and the waits of sm_90's bulk copies. */
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  std::fprintf (stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorName (e_)); \
  std::exit (2); } } while (0)

static inline float
median (std::vector < float >t)
{
  std::sort (t.begin (), t.end ());
  return t[t.size () / 2];
}

/* The median milliseconds of `runs` launches, launch (warmup) to launch
 * (warmup + runs - 1), each between its own events, after launch (0) to
 * launch (warmup - 1) untimed: one sequence of indices, so that a launch
 * may prepare what the next one uses. */
template < class Launch > static float
queued_ms (int warmup, int runs, Launch launch)
{
  std::vector < cudaEvent_t > ev (2 * runs);
  for (auto & e:ev)
    CHECK (cudaEventCreate (&e));
  for (int r = 0; r < warmup; r++)
    launch (r);
  for (int r = 0; r < runs; r++) {
    CHECK (cudaEventRecord (ev[2 * r]));
    launch (warmup + r);
    CHECK (cudaEventRecord (ev[2 * r + 1]));
  }
  CHECK (cudaDeviceSynchronize ());
  std::vector < float >t;
  for (int r = 0; r < runs; r++) {
    float ms;
    CHECK (cudaEventElapsedTime (&ms, ev[2 * r], ev[2 * r + 1]));
    t.push_back (ms);
  }
  for (auto e:ev)
    CHECK (cudaEventDestroy (e));
  return median (t);
}

/* The bulk copy engine's instructions are sm_90's; an older GPU's build of
 * a kernel using them only traps (the experiments skip those kernels
 * there). */
#if !defined (__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define BULK_ASM(...) asm volatile (__VA_ARGS__)
#else
#define BULK_ASM(...) __trap ()
#endif

__device__ __forceinline__ unsigned
shared_address (const void *p)
{
  return (unsigned) __cvta_generic_to_shared (p);
}

/* Until the phase of parity `parity` of the mbarrier has completed. */
__device__ __forceinline__ void
wait_phase (uint64_t * bar, unsigned parity)
{
  unsigned done = 1;
  do {
    BULK_ASM ("{ .reg .pred p;\n"
        " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p; }"
        : "=r" (done) : "r" (shared_address (bar)), "r" (parity) : "memory");
  } while (!done);
}

/* Thread's part of a bulk copy of `bytes` (a multiple of 16) into shared
 * memory, completing on the mbarrier `bar`. */
__device__ __forceinline__ void
issue_bulk (void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
  BULK_ASM ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
      :: "r" (shared_address (bar)), "r" (bytes) : "memory");
  BULK_ASM ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx"
      "::bytes [%0], [%1], %2, [%3];"
      :: "r" (shared_address (dst)), "l" (src), "r" (bytes),
      "r" (shared_address (bar)) : "memory");
}

/* Adds the block's `sum`s into *out, one atomic a block. */
template < int THREADS > __device__ __forceinline__ void
block_total (unsigned sum, unsigned *out)
{
  __shared__ unsigned warp_sums[THREADS / 32];
  for (int o = 16; o; o >>= 1)
    sum += __shfl_xor_sync (0xffffffffu, sum, o);
  if ((threadIdx.x & 31) == 0)
    warp_sums[threadIdx.x >> 5] = sum;
  __syncthreads ();
  if (threadIdx.x == 0) {
    unsigned total = 0;
    for (int w = 0; w < THREADS / 32; w++)
      total += warp_sums[w];
    atomicAdd (out, total);
  }
}
