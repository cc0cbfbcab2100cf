/* Experiment (not part of the plugin): what does cudablur's radius-8 kernel
 * (blur_mma8_kernel) cost with nothing but its data movement, and which
 * walks over a frame move it as fast as a copy?  Each variant copies an
 * RGBA frame, with no arithmetic; the output is checked against the input
 * (every pixel written once).
 *
 * `skeleton`: the kernel's walk.
 * - one wave of blocks of THREADS threads (128: 5 an SM unless said), each
 *   an equal run of (strip, step) work, strip after strip (blur.cu's
 *   WorkRun), a whole number of blocks a strip where that keeps 9 in 10
 *   of them (as launch_mma);
 * - a strip is STRIP pixels wide, a step STEP rows;
 * - a step's input, the strip and HALO pixels and rows on either side
 *   (edges clamped), goes to shared memory AHEAD steps ahead of its use:
 *   by `cp.async` of 16 bytes a thread (as the kernel), or by one bulk copy
 *   a row (`cp.async.bulk`, sm_90) completing on an mbarrier;
 * - after a barrier, the threads store the step's rows of the strip from
 *   shared memory to the output, STORE bytes a thread (8 or 16, in rows),
 *   or (STORE 0) as the kernel's lanes store (8 bytes, 8 rows a warp
 *   instruction: see skeleton's comment).
 * Other walks, each described at its kernel: `copy_wave` (a plain copy),
 * `strip_direct` (the strip order without shared memory), `ws_walk` (a
 * warp that copies, warps that store) and `warp_walk` (each warp its own
 * window, no block barrier).
 *
 * Timed as kernel-bench times: events around each launch, all queued, the
 * median of 200 after 20 warm-up, frames rotated (>= 265 MB, so the
 * 50 MB L2 holds none).  The device-to-device cudaMemcpyAsync of the frame
 * is timed the same way, as the reference.
 * Results and conclusions: docs/history/notes.md (cudablur, "the data movement
 * alone" and "wider strips").
 *   blur-skeleton */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

#include "experiment.cuh"


/* cp.async is sm_80's: an older GPU's build of these kernels only traps
 * (main skips them there) */
#if !defined (__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
#define ASYNC_ASM(...) asm volatile (__VA_ARGS__)
#else
#define ASYNC_ASM(...) __trap ()
#endif

/* cp.async of 16 bytes: .cg (through L2 only) or, CA, .ca (L1 too) */
template < bool CA = false > __device__ __forceinline__ void
copy16_async (void *to, const uint8_t * from)
{
  if constexpr (CA)
    ASYNC_ASM ("cp.async.ca.shared.global [%0], [%1], 16;"
        :: "r" (shared_address (to)), "l" (from) : "memory");
  else
    ASYNC_ASM ("cp.async.cg.shared.global [%0], [%1], 16;"
        :: "r" (shared_address (to)), "l" (from) : "memory");
}

__device__ __forceinline__ void
commit_async ()
{
  ASYNC_ASM ("cp.async.commit_group;":::"memory");
}

/* The copies of a part's first AHEAD steps (of n + 1), a group each, an
 * empty one past the part's end: the waits count groups */
template < int AHEAD, class Issue > __device__ __forceinline__ void
issue_first (int n, Issue issue)
{
  for (int k = 0; k < AHEAD; k++)
    if (k <= n)
      issue (k);
    else
      commit_async ();
}

/* One arrival on the mbarrier `bar`, which is to wait for `bytes` more of
 * bulk copies */
__device__ __forceinline__ void
arrive_expecting (uint64_t * bar, unsigned bytes)
{
  BULK_ASM ("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
      :: "r" (shared_address (bar)), "r" (bytes) : "memory");
}

/* A bulk copy of `bytes` (a multiple of 16) into shared memory, completing
 * on `bar` */
__device__ __forceinline__ void
bulk_copy (void *to, const uint8_t * from, unsigned bytes, uint64_t * bar)
{
  BULK_ASM ("cp.async.bulk.shared::cluster.global.mbarrier"
      "::complete_tx::bytes [%0], [%1], %2, [%3];"
      :: "r" (shared_address (to)), "l" (from), "r" (bytes),
      "r" (shared_address (bar)) : "memory");
}

/* The block's equal share of the launch's (strip, step) work, strip after
 * strip, in parts of one strip each (blur.cu's WorkRun) */
struct Runs
{
  int out_steps;
  long long s0, s1;

  __device__ Runs (int width, int height, int strip_px, int step_rows)
  {
    out_steps = (height + step_rows - 1) / step_rows;
    const long long total = (long long) ((width + strip_px - 1) / strip_px)
        * out_steps;
    s0 = total * blockIdx.x / gridDim.x;
    s1 = total * (blockIdx.x + 1) / gridDim.x;
  }

  /* the next part: its strip, first step and n steps; false when done */
  __device__ bool next (int &strip, int &first, int &n)
  {
    if (s0 >= s1)
      return false;
    strip = (int) (s0 / out_steps);
    first = (int) (s0 - (long long) strip * out_steps);
    n = (int) min ((long long) (out_steps - first), s1 - s0);
    s0 += n;
    return true;
  }
};

template < int STRIP, int HALO, int STEP, int AHEAD, int STORE, bool BULK,
    int THREADS > __global__ void __launch_bounds__ (THREADS)
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

  Runs runs (width, height, STRIP, STEP);
  int strip, first, n;
  while (runs.next (strip, first, n)) {
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
          arrive_expecting (bar, STEP * bytes);
        for (int rr = tid; rr < STEP; rr += THREADS) {
          const int sy = min (max (top + rr, 0), height - 1);
          bulk_copy (buf + rr * span * 4 + (left - (x0 - HALO)) * 4,
              src + (size_t) sy * pitch + (size_t) left * 4, bytes, bar);
        }
      } else {
        for (int u = tid; u < units; u += THREADS) {
          const int rr = u / units_per_row;
          const int px = x0 - HALO + 4 * (u - rr * units_per_row);
          const int sy = min (max (top + rr, 0), height - 1);
          const int sx = min (max (px, 0), width - 4);
          copy16_async (buf + 16 * u, src + (size_t) sy * pitch +
              (size_t) sx * 4);
        }
      }
      commit_async ();
    };
    __syncthreads ();
    issue_first < AHEAD > (n, issue);
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
        commit_async ();
      /* the staged rows of the strip that are output rows of this part */
      const uint8_t *buf = staged + (step % buffers) * 16 * units;
      const int top = y0 - HALO + step * STEP;
      if constexpr (STORE == 0) {
        /* blur_mma8_kernel's lanes: warp w pixels 16 w on (and 16 THREADS
         * / 32 on, ...); lane g, t rows g and g + 8, pixels 2t, 2t + 1 and
         * 8 + 2t, 9 + 2t: a warp's instruction writes 32 bytes of 8 rows */
        const int w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
        for (int ws = w; ws < STRIP / 16; ws += THREADS / 32)
#pragma unroll
          for (int p = 0; p < 2; p++)
#pragma unroll
            for (int half = 0; half < 2; half++) {
              const int rr = g + 8 * half, px = 16 * ws + 8 * p + 2 * t;
              const int y = top + rr;
              if (y < y0 || y >= y0 + n * STEP || y >= height
                  || x0 + px >= width)
                continue;
              *reinterpret_cast < uint2 * >(dst + (size_t) y * pitch +
                  (size_t) (x0 + px) * 4) =
                  *reinterpret_cast < const uint2 * >(buf + (rr * span +
                      HALO + px) * 4);
            }
      } else {
        constexpr int px_per_store = STORE / 4;
        for (int i = tid; i < STEP * STRIP / px_per_store; i += THREADS) {
          const int rr = i / (STRIP / px_per_store);
          const int px = px_per_store * (i - rr * (STRIP / px_per_store));
          const int y = top + rr;
          if (y < y0 || y >= y0 + n * STEP || y >= height
              || x0 + px >= width)
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
      }
      __syncthreads ();
    }
  }
}

/* copy_wave: a plain copy, one wave of 256-thread blocks, a grid-stride
 * loop of U 16-byte vectors a thread, all loaded before any is stored */
template < int U > __global__ void __launch_bounds__ (256)
copy_wave (const uint4 * __restrict__ src, uint4 * __restrict__ dst,
    size_t n)
{
  const size_t stride = (size_t) gridDim.x * blockDim.x;
  size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++)
      v[u] = __ldcs (src + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; u++)
      __stcs (dst + i + u * stride, v[u]);
  }
  for (; i < n; i += stride)
    dst[i] = src[i];
}

/* strip_direct: the skeleton's runs of (strip, step) (128 threads, strips
 * of STRIP pixels, steps of STEP rows), without shared memory: each thread
 * loads its 16-byte vectors of U steps, then stores them.  With HALO, each
 * step's 2 HALO halo columns are loaded too (and dropped). */
template < int STRIP, int HALO, int STEP, int U > __global__ void
__launch_bounds__ (128)
strip_direct (const uint8_t * __restrict__ src, uint8_t * __restrict__ dst,
    size_t pitch, int width, int height, unsigned *sink)
{
  constexpr int vectors_per_row = STRIP / 4;
  constexpr int per_thread = STEP * vectors_per_row / 128;
  const int out_steps = (height + STEP - 1) / STEP;
  const int strips = width / STRIP;
  const long long total = (long long) strips * out_steps;
  const long long s0 = total * blockIdx.x / gridDim.x;
  const long long s1 = total * (blockIdx.x + 1) / gridDim.x;
  unsigned halo_bits = 0;
  for (long long s = s0; s < s1; s += U) {
    uint4 v[U][per_thread];
    int ys[U], xs[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      const long long su = min (s + u, s1 - 1);
      const int strip = (int) (su / out_steps);
      xs[u] = strip * STRIP;
      ys[u] = (int) (su - (long long) strip * out_steps) * STEP;
#pragma unroll
      for (int k = 0; k < per_thread; k++) {
        const int i = threadIdx.x + 128 * k;
        const int r = i / vectors_per_row, c = i - r * vectors_per_row;
        const int y = min (ys[u] + r, height - 1);
        v[u][k] = __ldcs (reinterpret_cast < const uint4 * >(src +
                (size_t) y * pitch) + xs[u] / 4 + c);
      }
      if constexpr (HALO > 0) {
        constexpr int halo_vectors = 2 * HALO / 4;      /* a row's */
        const int i = threadIdx.x;
        if (i < STEP * halo_vectors) {
          const int r = i / halo_vectors, c = i % halo_vectors;
          int x = c < HALO / 4 ? xs[u] - HALO + 4 * c :
              xs[u] + STRIP + 4 * (c - HALO / 4);
          x = min (max (x, 0), width - 4);
          const int y = min (ys[u] + r, height - 1);
          halo_bits ^= __ldcs (reinterpret_cast < const uint4 * >(src +
                  (size_t) y * pitch + (size_t) x * 4)).x;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < U; u++) {
      if (s + u >= s1)
        break;
#pragma unroll
      for (int k = 0; k < per_thread; k++) {
        const int i = threadIdx.x + 128 * k;
        const int r = i / vectors_per_row, c = i - r * vectors_per_row;
        if (ys[u] + r < height)
          __stcs (reinterpret_cast < uint4 * >(dst + (size_t) (ys[u] + r) *
                  pitch) + xs[u] / 4 + c, v[u][k]);
      }
    }
  }
  /* (so that the halo loads are not dropped) */
  if (halo_bits == 0x12345678u)
    *sink = halo_bits;
}

/* ws_walk: warp-specialised.  The skeleton's runs and steps (64-pixel
 * strips, halo 8, a part's n steps with n + 1 of input), a ring of STAGES
 * buffers with an mbarrier each for full and for empty: warp 0 waits for
 * a buffer to be empty and loads a step's rows into it by bulk copies
 * (lanes 0 .. STEP - 1, a row each); warps 1 .. C wait for it to be full,
 * store the strip's rows with 16-byte stores, and free it. */
template < int STRIP, int HALO, int STEP, int STAGES, int C > __global__ void
__launch_bounds__ (32 * (C + 1))
ws_walk (const uint8_t * __restrict__ src, uint8_t * __restrict__ dst,
    size_t pitch, int width, int height)
{
  constexpr int span = STRIP + 2 * HALO;
  constexpr int stage_bytes = STEP * span * 4;
  extern __shared__ __align__ (128) uint8_t ring[];
  __shared__ __align__ (8) uint64_t full[STAGES], empty[STAGES];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x < STAGES) {
    BULK_ASM ("mbarrier.init.shared::cta.b64 [%0], 1;"
        :: "r" (shared_address (&full[threadIdx.x])) : "memory");
    BULK_ASM ("mbarrier.init.shared::cta.b64 [%0], %1;"
        :: "r" (shared_address (&empty[threadIdx.x])), "r" (C) : "memory");
  }
  BULK_ASM ("fence.mbarrier_init.release.cluster;":::"memory");
  __syncthreads ();
  Runs runs (width, height, STRIP, STEP);
  int strip, first, n;
  unsigned used = 0;            /* buffers filled so far */
  while (runs.next (strip, first, n)) {
    const int x0 = strip * STRIP, y0 = first * STEP;
    for (int step = 0; step <= n; step++, used++) {
      const int b = used % STAGES;
      const unsigned phase = (used / STAGES) & 1;
      uint8_t *buf = ring + b * stage_bytes;
      const int top = y0 - HALO + step * STEP;
      if (warp == 0) {
        if (used >= STAGES)
          wait_phase (&empty[b], phase ^ 1);
        const int left = max (0, x0 - HALO);
        const int right = min (width, x0 - HALO + span);
        const unsigned bytes = (unsigned) (right - left) * 4;
        (void) bytes;
        if (lane == 0)
          arrive_expecting (&full[b], STEP * bytes);
        __syncwarp ();
        if (lane < STEP) {
          const int sy = min (max (top + lane, 0), height - 1);
          bulk_copy (buf + lane * span * 4 + (left - (x0 - HALO)) * 4,
              src + (size_t) sy * pitch + (size_t) left * 4, bytes,
              &full[b]);
        }
      } else {
        wait_phase (&full[b], phase);
        for (int i = threadIdx.x - 32; i < STEP * STRIP / 4; i += 32 * C) {
          const int rr = i / (STRIP / 4);
          const int px = 4 * (i - rr * (STRIP / 4));
          const int y = top + rr;
          if (y < y0 || y >= y0 + n * STEP || y >= height || x0 + px >= width)
            continue;
          __stcs (reinterpret_cast < uint4 * >(dst + (size_t) y * pitch +
                  (size_t) (x0 + px) * 4),
              *reinterpret_cast < const uint4 * >(buf + (rr * span + HALO +
                      px) * 4));
        }
        __syncwarp ();
        if (lane == 0)
          BULK_ASM ("mbarrier.arrive.shared::cta.b64 _, [%0];"
              :: "r" (shared_address (&empty[b])) : "memory");
      }
    }
  }
}

/* warp_walk: the skeleton's runs (128 threads, 64-pixel strips, 16-row
 * steps), but each warp copies its own window (its 16 columns and 8 of halo
 * on either side, 16 rows: 2 KB) AHEAD steps ahead into its own buffers
 * (`cp.async.ca` where CA, else `.cg`), waits for its own copies (no block
 * barrier), and stores its 16 x 16 pixels: as the kernel's lanes where
 * KSTORE, else 16 bytes a lane in rows. */
template < int AHEAD, bool CA, bool KSTORE > __global__ void
__launch_bounds__ (128)
warp_walk (const uint8_t * __restrict__ src, uint8_t * __restrict__ dst,
    size_t pitch, int width, int height)
{
  constexpr int STEP = 16, HALO = 8, STRIP = 64;
  constexpr int window_bytes = STEP * 32 * 4;
  extern __shared__ __align__ (16) uint8_t windows[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint8_t *mine = windows + warp * (AHEAD + 1) * window_bytes;
  Runs runs (width, height, STRIP, STEP);
  int strip, first, n;
  while (runs.next (strip, first, n)) {
    const int x0 = strip * STRIP + 16 * warp, y0 = first * STEP;
    auto issue = [&](int step) {
      const int top = y0 - HALO + step * STEP;
      uint8_t *buf = mine + (step % (AHEAD + 1)) * window_bytes;
#pragma unroll
      for (int k = 0; k < 4; k++) {
        const int u = lane + 32 * k, rr = u / 8;
        const int sy = min (max (top + rr, 0), height - 1);
        const int sx = min (max (x0 - HALO + 4 * (u % 8), 0), width - 4);
        copy16_async < CA > (buf + 16 * u, src + (size_t) sy * pitch +
            (size_t) sx * 4);
      }
      commit_async ();
    };
    __syncwarp ();
    issue_first < AHEAD > (n, issue);
    for (int step = 0; step <= n; step++) {
      ASYNC_ASM ("cp.async.wait_group %0;"::"n" (AHEAD - 1):"memory");
      __syncwarp ();
      const uint8_t *buf = mine + (step % (AHEAD + 1)) * window_bytes;
      const int top = y0 - HALO + step * STEP;
      if (x0 < width) {
        if constexpr (KSTORE) {
          const int g = lane / 4, t = lane % 4;
#pragma unroll
          for (int p = 0; p < 2; p++)
#pragma unroll
            for (int half = 0; half < 2; half++) {
              const int rr = g + 8 * half, px = 8 * p + 2 * t;
              const int y = top + rr;
              if (y < y0 || y >= y0 + n * STEP || y >= height)
                continue;
              *reinterpret_cast < uint2 * >(dst + (size_t) y * pitch +
                  (size_t) (x0 + px) * 4) =
                  *reinterpret_cast < const uint2 * >(buf + (rr * 32 + HALO +
                      px) * 4);
            }
        } else {
#pragma unroll
          for (int k = 0; k < 2; k++) {
            const int i = lane + 32 * k, rr = i / 4, px = 4 * (i % 4);
            const int y = top + rr;
            if (y < y0 || y >= y0 + n * STEP || y >= height)
              continue;
            *reinterpret_cast < uint4 * >(dst + (size_t) y * pitch +
                (size_t) (x0 + px) * 4) =
                *reinterpret_cast < const uint4 * >(buf + (rr * 32 + HALO +
                    px) * 4);
          }
        }
      }
      __syncwarp ();
      if (step + AHEAD <= n)
        issue (step + AHEAD);
      else
        commit_async ();
    }
  }
}

struct Frames
{
  int width, height;
  size_t pitch, bytes;
  std::vector < uint8_t * >in, out;
};

/* Times launch (i) (i: the frames' rotation) after checking that launch (0)
 * copies frame 0 exactly */
template < class Launch > static void
report (const char *name, const char *shape, Frames & f, Launch launch)
{
  CHECK (cudaMemset (f.out[0], 0, f.bytes));
  launch (0);
  CHECK (cudaGetLastError ());
  std::vector < uint8_t > a (f.bytes), b (f.bytes);
  CHECK (cudaMemcpy (a.data (), f.in[0], f.bytes, cudaMemcpyDeviceToHost));
  CHECK (cudaMemcpy (b.data (), f.out[0], f.bytes, cudaMemcpyDeviceToHost));
  const float us = 1000 * queued_ms (20, 200, launch);
  std::printf ("%-46s %4dx%-4d %-16s %8.2f us%s\n", name, f.width, f.height,
      shape, us, a == b ? "" : "  OUTPUT DIFFERS");
}

static int
sm_count (int *major)
{
  int dev, sms;
  CHECK (cudaGetDevice (&dev));
  CHECK (cudaDeviceGetAttribute (major, cudaDevAttrComputeCapabilityMajor,
          dev));
  CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

/* One wave of at most blocks_per_sm blocks an SM, a whole number of
 * blocks a strip where that keeps 9 in 10 of them (as launch_mma) */
template < class Kernel > static int
wave_blocks (Kernel kernel, int threads, int smem, int blocks_per_sm,
    int strips, int *per_sm)
{
  int major;
  const int sms = sm_count (&major);
  CHECK (cudaFuncSetAttribute (kernel,
          cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CHECK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (per_sm, kernel,
          threads, smem));
  *per_sm = std::min (*per_sm, blocks_per_sm);
  int blocks = *per_sm * sms;
  if (blocks > strips && blocks / strips * strips * 10 >= blocks * 9)
    blocks = blocks / strips * strips;
  return blocks;
}

template < int STRIP, int HALO, int STEP, int AHEAD, int STORE, bool BULK,
    int THREADS = 128 > static void
run (const char *name, Frames & f, int blocks_per_sm = 5)
{
  auto kernel = skeleton < STRIP, HALO, STEP, AHEAD, STORE, BULK, THREADS >;
  const int smem = (AHEAD + 1) * 16 * STEP * (STRIP + 2 * HALO) / 4;
  int major;
  sm_count (&major);
  if (major < (BULK ? 9 : 8)) {
    std::printf ("%-46s skipped: needs sm_%d0\n", name, BULK ? 9 : 8);
    return;
  }
  int per_sm;
  const int blocks = wave_blocks (kernel, THREADS, smem, blocks_per_sm,
      (f.width + STRIP - 1) / STRIP, &per_sm);
  char shape[32];
  std::snprintf (shape, sizeof shape, "%dx%d %d/SM", blocks, THREADS,
      per_sm);
  report (name, shape, f,[&](int i) {
        kernel <<< blocks, THREADS, smem >>> (f.in[i % f.in.size ()],
            f.out[i % f.out.size ()], f.pitch, f.width, f.height);
      });
}

template < int STAGES, int C > static void
run_ws (Frames & f, int blocks_per_sm)
{
  auto kernel = ws_walk < 64, 8, 16, STAGES, C >;
  const int smem = STAGES * 16 * 80 * 4;
  int major;
  sm_count (&major);
  if (major < 9) {
    std::printf ("ws_walk skipped: needs sm_90\n");
    return;
  }
  int per_sm;
  const int blocks = wave_blocks (kernel, 32 * (C + 1), smem, blocks_per_sm,
      1, &per_sm);
  char name[64], shape[32];
  std::snprintf (name, sizeof name, "ws_walk: %d stages, %d storing warps",
      STAGES, C);
  std::snprintf (shape, sizeof shape, "%dx%d %d/SM", blocks, 32 * (C + 1),
      per_sm);
  report (name, shape, f,[&](int i) {
        kernel <<< blocks, 32 * (C + 1), smem >>> (f.in[i % f.in.size ()],
            f.out[i % f.out.size ()], f.pitch, f.width, f.height);
      });
}

template < int AHEAD, bool CA, bool KSTORE > static void
run_warp (Frames & f, int blocks_per_sm = 5)
{
  auto kernel = warp_walk < AHEAD, CA, KSTORE >;
  const int smem = 4 * (AHEAD + 1) * 2048;
  int per_sm;
  const int blocks = wave_blocks (kernel, 128, smem, blocks_per_sm,
      (f.width + 63) / 64, &per_sm);
  char name[64], shape[32];
  std::snprintf (name, sizeof name, "warp_walk: %d ahead, %s, %s", AHEAD,
      CA ? ".ca" : ".cg", KSTORE ? "the kernel's stores" : "16 B rows");
  std::snprintf (shape, sizeof shape, "%dx128 %d/SM", blocks, per_sm);
  report (name, shape, f,[&](int i) {
        kernel <<< blocks, 128, smem >>> (f.in[i % f.in.size ()],
            f.out[i % f.out.size ()], f.pitch, f.width, f.height);
      });
}

int
main ()
{
  int major;
  const int sms = sm_count (&major);
  if (major < 8) {
    std::printf ("needs sm_80\n");
    return 0;
  }
  unsigned *sink;
  CHECK (cudaMalloc (&sink, sizeof *sink));
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
    report ("cudaMemcpyAsync device to device", "", f,[&](int i) {
          CHECK (cudaMemcpyAsync (f.out[i % n], f.in[i % n], f.bytes,
                  cudaMemcpyDeviceToDevice));
        });
    const size_t vectors = f.bytes / 16;
    for (int u:{1, 4}) {
      char name[64];
      std::snprintf (name, sizeof name, "copy_wave: %d vector%s a thread", u,
          u > 1 ? "s" : "");
      report (name, "8x256/SM", f,[&](int i) {
            auto in = reinterpret_cast < const uint4 * >(f.in[i % n]);
            auto out = reinterpret_cast < uint4 * >(f.out[i % n]);
            if (u == 1)
              copy_wave < 1 > <<< 8 * sms, 256 >>> (in, out, vectors);
            else
              copy_wave < 4 > <<< 8 * sms, 256 >>> (in, out, vectors);
          });
    }
    /*    strip halo step ahead store bulk threads */
    run < 64, 8, 16, 1, 8, false > ("skeleton: blur_mma8_kernel's until b3acca3",
        f);
    run < 64, 8, 16, 1, 0, false > ("the same, the kernel's stores", f);
    run < 64, 0, 16, 1, 8, false > ("64 px, no halo", f);
    run < 64, 8, 16, 2, 16, false > ("64 px, 2 ahead, 16 B", f);
    run < 64, 8, 16, 2, 16, true > ("the same, bulk copies", f);
    run < 64, 8, 32, 1, 16, false > ("64 px, 32-row steps, 16 B", f);
    run < 64, 8, 16, 1, 8, false > ("64 px, 8 blocks an SM", f, 8);
    run < 64, 8, 16, 2, 8, false > ("64 px, 2 ahead", f, 4);
    run < 64, 8, 16, 2, 0, false > ("the same, the kernel's stores", f, 4);
    run < 128, 8, 16, 1, 8, false > ("128 px, 128 threads", f);
    run < 128, 8, 16, 3, 16, true > ("128 px, 128 threads, 3 ahead bulk, 16 B",
        f);
    run < 64, 0, 16, 3, 16, true > ("64 px, no halo, 3 ahead bulk, 16 B", f);
    run < 128, 8, 16, 1, 8, false, 256 > ("128 px", f, 2);
    run < 128, 8, 16, 2, 8, false, 256 > ("128 px, 2 ahead", f, 2);
    run < 128, 8, 16, 2, 0, false, 256 > ("128 px, 2 ahead, the kernel's "
        "stores (b3acca3)", f, 2);
    run < 128, 8, 16, 2, 16, false, 256 > ("128 px, 2 ahead, 16 B", f, 2);
    run < 128, 8, 16, 3, 16, false, 256 > ("128 px, 3 ahead, 16 B", f, 2);
    run < 160, 8, 16, 2, 16, false, 320 > ("160 px, 2 ahead, 16 B", f, 2);
    run < 256, 8, 16, 2, 16, false, 512 > ("256 px, 2 ahead, 16 B", f, 1);
    run < 320, 8, 16, 2, 16, false, 640 > ("320 px, 2 ahead, 16 B", f, 1);
    run < 320, 0, 16, 2, 16, false, 640 > ("320 px, no halo, 2 ahead, 16 B",
        f, 1);
    const int strips = f.width / 64;
    for (int u:{1, 2}) {
      char name[64];
      std::snprintf (name, sizeof name, "strip_direct: 64 px, no halo, %d "
          "ahead", u);
      const int blocks = 5 * sms / strips * strips;
      report (name, "", f,[&](int i) {
            if (u == 1)
              strip_direct < 64, 0, 16, 1 > <<< blocks, 128 >>> (f.in[i % n],
                  f.out[i % n], f.pitch, f.width, f.height, sink);
            else
              strip_direct < 64, 0, 16, 2 > <<< blocks, 128 >>> (f.in[i % n],
                  f.out[i % n], f.pitch, f.width, f.height, sink);
          });
    }
    report ("strip_direct: 64 px, halo 8, 2 ahead", "", f,[&](int i) {
          strip_direct < 64, 8, 16, 2 > <<< 5 * sms / strips * strips,
              128 >>> (f.in[i % n], f.out[i % n], f.pitch, f.width,
              f.height, sink);
        });
    run_ws < 2, 4 > (f, 5);
    run_ws < 4, 4 > (f, 5);
    run_ws < 6, 4 > (f, 5);
    run_ws < 8, 4 > (f, 4);
    run_warp < 1, false, true > (f);
    run_warp < 2, false, true > (f);
    run_warp < 2, true, true > (f);
    run_warp < 2, false, false > (f);
    for (int i = 0; i < n; i++) {
      CHECK (cudaFree (f.in[i]));
      CHECK (cudaFree (f.out[i]));
    }
  }
  CHECK (cudaFree (sink));
  return 0;
}
