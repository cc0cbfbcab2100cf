/* Experiment (not part of the plugin): what does cudablur's radius-8 kernel
 * (blur_mma8_kernel) cost with nothing but its data movement?  Each variant
 * copies an RGBA frame the way that kernel walks it, with no arithmetic:
 * - one wave of blocks of 128 threads (5 an SM unless said), each an equal
 *   run of (strip, step) work, strip after strip (blur.cu's WorkRun);
 * - a strip is STRIP pixels wide, a step STEP rows;
 * - a step's input, the strip and HALO pixels and rows on either side
 *   (edges clamped), goes to shared memory AHEAD steps ahead of its use:
 *   by `cp.async` of 16 bytes a thread (as the kernel), or by one bulk copy
 *   a row (`cp.async.bulk`, sm_90) completing on an mbarrier;
 * - after a barrier, the threads store the step's rows of the strip from
 *   shared memory to the output, STORE bytes a thread (the kernel stores 8).
 * The output is checked against the input (every pixel written once).
 * Timed as kernel-bench times: events around each launch, all queued, the
 * median of 200 after 20 warm-up, 8 frames rotated (>= 265 MB, so the
 * 50 MB L2 holds none).  The device-to-device cudaMemcpyAsync of the frame
 * is timed the same way, as the reference.
 * Results and conclusions: docs/notes.md (cudablur, "the data movement
 * alone").
 *   blur-skeleton */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "experiment.cuh"

constexpr int kThreads = 128;

/* cp.async is sm_80's: an older GPU's build of these kernels only traps
 * (main skips them there) */
#if !defined (__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define ASYNC_ASM(...) asm volatile (__VA_ARGS__)
#else
#define ASYNC_ASM(...) __trap ()
#endif

template < int STRIP, int HALO, int STEP, int AHEAD, int STORE, bool BULK >
__global__ void __launch_bounds__ (kThreads)
skeleton (const uint8_t * __restrict__ src, uint8_t * __restrict__ dst,
    size_t pitch, int width, int height)
{
  constexpr int span = STRIP + 2 * HALO;        /* pixels a staged row */
  constexpr int units_per_row = span / 4;       /* 16-byte units */
  constexpr int units = STEP * units_per_row;
  constexpr int buffers = AHEAD + 1;
  extern __shared__ __align__ (16) uint8_t staged[];
  __shared__ __align__ (8) uint64_t full[buffers];
  const int tid = threadIdx.x;
  unsigned parity = 0;
  if (BULK && tid < buffers)
    BULK_ASM ("mbarrier.init.shared::cta.b64 [%0], 1;"
        :: "r" (shared_address (&full[tid])) : "memory");
  __syncthreads ();

  const int out_steps = (height + STEP - 1) / STEP;
  const int strips = (width + STRIP - 1) / STRIP;
  const long long total = (long long) strips * out_steps;
  long long s0 = total * blockIdx.x / gridDim.x;
  const long long s1 = total * (blockIdx.x + 1) / gridDim.x;
  while (s0 < s1) {
    const int strip = (int) (s0 / out_steps);
    const int first = (int) (s0 - (long long) strip * out_steps);
    const int n = (int) min ((long long) (out_steps - first), s1 - s0);
    s0 += n;
    const int x0 = strip * STRIP, y0 = first * STEP;
    /* a part has n + 1 steps of input: the halo rows make it one longer,
     * as the kernel's lag */
    auto issue = [&](int step) {
      const int top = y0 - HALO + step * STEP;
      uint8_t *buf = staged + (step % buffers) * 16 * units;
      (void) buf;
      if constexpr (BULK) {
        const int left = max (0, x0 - HALO);
        const int right = min (width, x0 - HALO + span);
        const unsigned bytes = (unsigned) (right - left) * 4;
        (void) bytes;
        uint64_t *bar = &full[step % buffers];
        if (tid == 0)
          BULK_ASM ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
              :: "r" (shared_address (bar)), "r" (STEP * bytes) : "memory");
        for (int rr = tid; rr < STEP; rr += kThreads) {
          const int sy = min (max (top + rr, 0), height - 1);
          BULK_ASM ("cp.async.bulk.shared::cluster.global.mbarrier"
              "::complete_tx::bytes [%0], [%1], %2, [%3];"
              :: "r" (shared_address (buf + rr * span * 4 + (left - (x0 -
                              HALO)) * 4)), "l" (src + (size_t) sy * pitch +
                  (size_t) left * 4), "r" (bytes),
              "r" (shared_address (bar)) : "memory");
        }
      } else {
        for (int u = tid; u < units; u += kThreads) {
          const int rr = u / units_per_row;
          const int px = x0 - HALO + 4 * (u - rr * units_per_row);
          const int sy = min (max (top + rr, 0), height - 1);
          const int sx = min (max (px, 0), width - 4);
          ASYNC_ASM ("cp.async.cg.shared.global [%0], [%1], 16;"
              :: "r" (shared_address (buf + 16 * u)),
              "l" (src + (size_t) sy * pitch + (size_t) sx * 4) : "memory");
        }
      }
      ASYNC_ASM ("cp.async.commit_group;":::"memory");
    };
    __syncthreads ();
    for (int k = 0; k < AHEAD; k++)
      if (k <= n)
        issue (k);
      else
        ASYNC_ASM ("cp.async.commit_group;":::"memory");
    for (int step = 0; step <= n; step++) {
      if constexpr (BULK) {
        const int b = step % buffers;
        wait_phase (&full[b], (parity >> b) & 1);
        parity ^= 1u << b;
      } else {
        ASYNC_ASM ("cp.async.wait_group %0;"::"n" (AHEAD - 1):"memory");
      }
      __syncthreads ();
      if (step + AHEAD <= n)
        issue (step + AHEAD);
      else
        ASYNC_ASM ("cp.async.commit_group;":::"memory");
      /* the staged rows of the strip that are output rows of this part */
      const uint8_t *buf = staged + (step % buffers) * 16 * units;
      const int top = y0 - HALO + step * STEP;
      constexpr int px_per_store = STORE / 4;
      for (int i = tid; i < STEP * STRIP / px_per_store; i += kThreads) {
        const int rr = i / (STRIP / px_per_store);
        const int px = px_per_store * (i - rr * (STRIP / px_per_store));
        const int y = top + rr;
        if (y < y0 || y >= y0 + n * STEP || y >= height || x0 + px >= width)
          continue;
        const uint8_t *from = buf + (rr * span + HALO + px) * 4;
        uint8_t *to = dst + (size_t) y * pitch + (size_t) (x0 + px) * 4;
        if constexpr (STORE == 8)
          *reinterpret_cast < uint2 * >(to) =
              *reinterpret_cast < const uint2 * >(from);
        else
          *reinterpret_cast < uint4 * >(to) =
              *reinterpret_cast < const uint4 * >(from);
      }
      __syncthreads ();
    }
  }
}

struct Frames
{
  int width, height;
  size_t pitch, bytes;
  std::vector < uint8_t * >in, out;
};

template < int STRIP, int HALO, int STEP, int AHEAD, int STORE, bool BULK >
static void
run (const char *name, Frames & f, int blocks_per_sm = 5)
{
  auto kernel = skeleton < STRIP, HALO, STEP, AHEAD, STORE, BULK >;
  const int smem = (AHEAD + 1) * 16 * STEP * (STRIP + 2 * HALO) / 4;
  CHECK (cudaFuncSetAttribute (kernel,
          cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm, sms, dev, major;
  CHECK (cudaGetDevice (&dev));
  CHECK (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          dev));
  if (major < (BULK ? 9 : 8)) {
    std::printf ("%-44s skipped: needs sm_%d0\n", name, BULK ? 9 : 8);
    return;
  }
  CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev));
  CHECK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel,
          kThreads, smem));
  per_sm = std::min (per_sm, blocks_per_sm);
  auto launch = [&](int i) {
    kernel <<< per_sm * sms, kThreads, smem >>> (f.in[i % f.in.size ()],
        f.out[i % f.out.size ()], f.pitch, f.width, f.height);
  };
  CHECK (cudaMemset (f.out[0], 0, f.bytes));
  launch (0);
  CHECK (cudaGetLastError ());
  std::vector < uint8_t > a (f.bytes), b (f.bytes);
  CHECK (cudaMemcpy (a.data (), f.in[0], f.bytes, cudaMemcpyDeviceToHost));
  CHECK (cudaMemcpy (b.data (), f.out[0], f.bytes, cudaMemcpyDeviceToHost));
  const float us = 1000 * queued_ms (20, 200, launch);
  std::printf ("%-44s %4dx%-4d %d blocks/SM %8.2f us%s\n", name, f.width,
      f.height, per_sm, us, a == b ? "" : "  OUTPUT DIFFERS");
}

int
main ()
{
  const int sizes[][2] = { {1920, 1080}, {3840, 2160}, {7680, 4320} };
  for (auto & s:sizes) {
    Frames f { s[0], s[1], (size_t) s[0] * 4, (size_t) s[0] * 4 * s[1] };
    const int n = (int) std::max < size_t > (8, (265u << 20) / f.bytes + 1);
    std::vector < uint8_t > pattern (f.bytes);
    for (size_t i = 0; i < f.bytes; i++)
      pattern[i] = (uint8_t) ((i * 2654435761u) >> 13);
    for (int i = 0; i < n; i++) {
      uint8_t *p;
      CHECK (cudaMalloc (&p, f.bytes));
      CHECK (cudaMemcpy (p, pattern.data (), f.bytes,
              cudaMemcpyHostToDevice));
      f.in.push_back (p);
      CHECK (cudaMalloc (&p, f.bytes));
      f.out.push_back (p);
    }
    const float copy = 1000 * queued_ms (20, 200,[&](int i) {
          CHECK (cudaMemcpyAsync (f.out[i % n], f.in[i % n], f.bytes,
                  cudaMemcpyDeviceToDevice));
        });
    std::printf ("%-44s %4dx%-4d             %8.2f us\n",
        "cudaMemcpyAsync device to device", f.width, f.height, copy);
    /*    strip halo step ahead store bulk */
    run < 64, 8, 16, 1, 8, false > ("blur_mma8_kernel's: 64 px, halo 8", f);
    run < 64, 0, 16, 1, 8, false > ("64 px, no halo", f);
    run < 64, 8, 16, 2, 16, false > ("64 px, halo 8, 2 ahead, 16-byte stores",
        f);
    run < 64, 8, 16, 2, 16, true > ("the same, bulk copies", f);
    run < 64, 8, 32, 1, 16, false > ("64 px, halo 8, 32-row steps, 16 B", f);
    run < 64, 8, 16, 1, 8, false > ("64 px, halo 8, 8 blocks/SM", f, 8);
    run < 128, 8, 16, 1, 8, false > ("128 px, halo 8", f);
    run < 128, 8, 16, 3, 16, true > ("128 px, halo 8, 3 ahead bulk, 16 B", f);
    run < 64, 0, 16, 3, 16, true > ("64 px, no halo, 3 ahead bulk, 16 B", f);
    for (int i = 0; i < n; i++) {
      CHECK (cudaFree (f.in[i]));
      CHECK (cudaFree (f.out[i]));
    }
  }
  return 0;
}
