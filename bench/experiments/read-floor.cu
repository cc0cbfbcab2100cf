/* Experiment (not part of the plugin): how fast can one launch read a frame
 * and reduce it, on this GPU?  cudasum and cudahist only read their frame,
 * so this is their floor, measured rather than taken from the copy.  Each
 * variant adds every 32-bit word of a tightly pitched RGBA frame into one
 * total (checked against the host's before timing), so no load can be
 * dropped:
 *   regs U        a thread loads U 16-byte vectors, all issued before the
 *                 first is used; one thread per U vectors
 *   stride U B    one wave (B blocks per SM), a grid-stride loop of U vectors
 *   l2hint U      regs U with `ld.global.nc.L2::256B` (prefetch the sector
 *                 group into L2)
 *   bulk S C B    the copy engine (`cp.async.bulk`) fills S shared stages of
 *                 C bytes per block, completing on mbarriers; B blocks per
 *                 SM, chunks handed out round-robin; the threads sum the
 *                 staged words
 *   memcpy        cudaMemcpyAsync device to device of the same bytes (reads
 *                 and writes them: twice the traffic)
 * Per launch, three ways, each the median of 200 after 30 warm-up, frames
 * rotated over >= 256 MB so the 50 MB L2 cannot hold them:
 *   launch    events around one launch, the host waiting for the second
 *             before it records the next: the GPU is idle when the first
 *             is recorded, so this includes the host's launch latency
 *   queued    the same events, all 200 launches queued without waiting (as
 *             kernel-bench times): the host runs ahead of the GPU
 *   held      as queued, behind a kernel that spins until all of a batch
 *             of 50 is queued: only the GPU's own time
 * Sustained: 20 launches between one pair of events, divided by 20.
 * An empty kernel (one block, no work) is timed the same ways.
 * Results and conclusions: docs/history/notes.md (cudasum).
 *   read-floor */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>

#include "experiment.cuh"

static const int kThreads = 256;

__device__ __forceinline__ unsigned
vector_sum (uint4 v)
{
  return v.x + v.y + v.z + v.w;
}

__device__ __forceinline__ uint4
load_l2_256 (const uint4 *p)
{
#if __CUDA_ARCH__ >= 800
  uint4 v;
  asm volatile ("ld.global.nc.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];"
      : "=r" (v.x), "=r" (v.y), "=r" (v.z), "=r" (v.w) : "l" (p));
  return v;
#else
  return __ldg (p);             /* the hint needs sm_80 */
#endif
}

template < int U, bool HINT > __global__ void
__launch_bounds__ (kThreads)
read_regs (const uint4 *frame, size_t vectors, unsigned *out)
{
  const size_t base = (size_t) blockIdx.x * kThreads * U + threadIdx.x;
  uint4 v[U];
#pragma unroll
  for (int u = 0; u < U; u++) {
    const size_t i = base + (size_t) u * kThreads;
    v[u] = i < vectors ? (HINT ? load_l2_256 (frame + i) : frame[i]) :
        make_uint4 (0, 0, 0, 0);
  }
  unsigned sum = 0;
#pragma unroll
  for (int u = 0; u < U; u++)
    sum += vector_sum (v[u]);
  block_total < kThreads > (sum, out);
}

template < int U > __global__ void
__launch_bounds__ (kThreads)
read_stride (const uint4 *frame, size_t vectors, unsigned *out)
{
  const size_t step = (size_t) gridDim.x * kThreads;
  unsigned sum = 0;
  for (size_t i = (size_t) blockIdx.x * kThreads + threadIdx.x; i < vectors;
      i += step * U) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; u++) {
      const size_t j = i + u * step;
      v[u] = j < vectors ? frame[j] : make_uint4 (0, 0, 0, 0);
    }
#pragma unroll
    for (int u = 0; u < U; u++)
      sum += vector_sum (v[u]);
  }
  block_total < kThreads > (sum, out);
}

__device__ __forceinline__ unsigned
chunk_bytes (size_t total, size_t chunk, size_t c)
{
  const size_t rest = total - c * chunk;
  return (unsigned) (rest < chunk ? rest : chunk);
}

template < int STAGES, int CHUNK > __global__ void
__launch_bounds__ (kThreads)
read_bulk (const uint4 *frame, size_t vectors, unsigned *out)
{
  extern __shared__ __align__ (128) unsigned char staged[];
  __shared__ __align__ (8) uint64_t full[STAGES];
  const size_t bytes = vectors * 16;
  const size_t chunks = (bytes + CHUNK - 1) / CHUNK;
  const unsigned char *src = (const unsigned char *) frame;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++)
      BULK_ASM ("mbarrier.init.shared::cta.b64 [%0], 1;"
          :: "r" (shared_address (&full[s])));
    BULK_ASM ("fence.mbarrier_init.release.cluster;" ::: "memory");
    for (int s = 0; s < STAGES; s++) {
      const size_t c = blockIdx.x + (size_t) s * gridDim.x;
      if (c < chunks)
        issue_bulk (staged + s * CHUNK, src + c * CHUNK,
            chunk_bytes (bytes, CHUNK, c),
            &full[s]);
    }
  }
  __syncthreads ();
  unsigned sum = 0;
  for (int k = 0;; k++) {
    const size_t c = blockIdx.x + (size_t) k * gridDim.x;
    if (c >= chunks)
      break;
    const int s = k % STAGES;
    wait_phase (&full[s], (k / STAGES) & 1);
    const int n = (int) chunk_bytes (bytes, CHUNK, c) / 16;
    const uint4 *stage = (const uint4 *) (staged + s * CHUNK);
#pragma unroll 4
    for (int i = threadIdx.x; i < n; i += kThreads)
      sum += vector_sum (stage[i]);
    __syncthreads ();
    const size_t next = c + (size_t) STAGES * gridDim.x;
    if (threadIdx.x == 0 && next < chunks)
      issue_bulk (staged + s * CHUNK, src + next * CHUNK,
          chunk_bytes (bytes, CHUNK, next),
          &full[s]);
  }
  block_total < kThreads > (sum, out);
}

struct Variant
{
  const char *name;
  void (*kernel) (const uint4 *, size_t, unsigned *);
  int per_thread;               /* vectors per thread (regs), else 0 */
  int blocks_per_sm;            /* one wave of this many (stride, bulk) */
  size_t shared;                /* dynamic shared memory (bulk) */
};

static int g_sms;

static int
grid_of (const Variant & v, size_t vectors)
{
  if (v.per_thread)
    return (int) ((vectors + (size_t) kThreads * v.per_thread - 1) /
        ((size_t) kThreads * v.per_thread));
  return g_sms * v.blocks_per_sm;
}

/* The median milliseconds of `runs` timings, after `warmup` more, of
 * what launch (r) enqueues between two events. */
template < class Launch > static float
median_ms (int warmup, int runs, Launch launch)
{
  static cudaEvent_t e0, e1;
  if (!e0) {
    CHECK (cudaEventCreate (&e0));
    CHECK (cudaEventCreate (&e1));
  }
  std::vector < float >t;
  for (int r = 0; r < warmup + runs; r++) {
    CHECK (cudaEventRecord (e0));
    launch (r);
    CHECK (cudaEventRecord (e1));
    CHECK (cudaEventSynchronize (e1));
    float ms;
    CHECK (cudaEventElapsedTime (&ms, e0, e1));
    if (r >= warmup)
      t.push_back (ms);
  }
  return median (t);
}

/* A kernel that holds its stream until the host sets *flag (mapped host
 * memory), so that everything behind it is queued before any of it runs. */
__global__ void
hold_stream (const volatile int *flag)
{
  while (!*flag)
    __nanosleep (1000);
}

__global__ void
empty_kernel (const uint4 *, size_t, unsigned *)
{
}

/* Per-launch medians over `runs` launches, each between its own events,
 * queued without waiting; `held`: in batches of 50 behind hold_stream. */
template < class Launch > static float
median_queued_ms (int warmup, int runs, bool held, Launch launch)
{
  static int *flag;
  if (!flag)
    CHECK (cudaHostAlloc (&flag, sizeof *flag, cudaHostAllocMapped));
  const int batch = held ? 50 : runs;
  std::vector < cudaEvent_t > ev (2 * batch);
  for (auto & e:ev)
    CHECK (cudaEventCreate (&e));
  for (int r = 0; r < warmup; r++)
    launch (r);
  std::vector < float >t;
  for (int done = 0; done < runs; done += batch) {
    *(volatile int *) flag = 0;
    if (held)
      hold_stream <<< 1, 1 >>> (flag);
    for (int r = 0; r < batch; r++) {
      CHECK (cudaEventRecord (ev[2 * r]));
      launch (done + r);
      CHECK (cudaEventRecord (ev[2 * r + 1]));
    }
    *(volatile int *) flag = 1;
    CHECK (cudaDeviceSynchronize ());
    for (int r = 0; r < batch; r++) {
      float ms;
      CHECK (cudaEventElapsedTime (&ms, ev[2 * r], ev[2 * r + 1]));
      t.push_back (ms);
    }
  }
  for (auto e:ev)
    CHECK (cudaEventDestroy (e));
  return median (t);
}

int
main ()
{
  CHECK (cudaDeviceGetAttribute (&g_sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  std::printf ("# %s, %d SMs, L2 %d MB\n", prop.name, g_sms,
      prop.l2CacheSize >> 20);

  const Variant variants[] = {
    {"regs 1", read_regs < 1, false >, 1, 0, 0},
    {"regs 2", read_regs < 2, false >, 2, 0, 0},
    {"regs 4", read_regs < 4, false >, 4, 0, 0},
    {"regs 8", read_regs < 8, false >, 8, 0, 0},
    {"l2hint 4", read_regs < 4, true >, 4, 0, 0},
    {"stride 4 x8", read_stride < 4 >, 0, 8, 0},
    {"stride 8 x4", read_stride < 8 >, 0, 4, 0},
    {"stride 8 x8", read_stride < 8 >, 0, 8, 0},
    {"bulk 4 16K x2", read_bulk < 4, 16384 >, 0, 2, 4 * 16384},
    {"bulk 8 8K x2", read_bulk < 8, 8192 >, 0, 2, 8 * 8192},
    {"bulk 4 8K x4", read_bulk < 4, 8192 >, 0, 4, 4 * 8192},
    {"bulk 6 32K x1", read_bulk < 6, 32768 >, 0, 1, 6 * 32768},
    {"bulk 3 32K x2", read_bulk < 3, 32768 >, 0, 2, 3 * 32768},
    {"bulk 4 4K x8", read_bulk < 4, 4096 >, 0, 8, 4 * 4096},
  };

  /* The copy bandwidth, as kernel-bench measures it: 512 MiB device to
   * device, bytes read plus bytes written. */
  double copy_gbs;
  {
    const size_t big = 512u << 20;
    void *a, *b;
    CHECK (cudaMalloc (&a, big));
    CHECK (cudaMalloc (&b, big));
    copy_gbs = 2.0 * big / (median_ms (2, 10,[&](int) {
              CHECK (cudaMemcpyAsync (b, a, big, cudaMemcpyDeviceToDevice));}
        ) * 1e6);
    CHECK (cudaFree (a));
    CHECK (cudaFree (b));
  }
  std::printf ("# copy bandwidth %.0f GB/s (512 MiB, read + write)\n",
      copy_gbs);
  std::printf ("size,variant,MB,launch_us,queued_us,held_us,sustained_us,"
      "floor_us,x_floor\n");

  unsigned *out;
  CHECK (cudaMalloc (&out, 4));
  {
    auto empty =[&](int) {
      empty_kernel <<< 1, 32 >>> (nullptr, 0, out);
    };
    std::printf ("-,empty kernel,0,%.2f,%.2f,%.2f,,,\n",
        median_ms (30, 200, empty) * 1e3,
        median_queued_ms (30, 200, false, empty) * 1e3,
        median_queued_ms (30, 200, true, empty) * 1e3);
  }

  const struct { const char *name; int w, h; } sizes[] = {
    {"720p", 1280, 720}, {"1080p", 1920, 1080}, {"4K", 3840, 2160},
    {"8K", 7680, 4320},
  };
  for (const auto & size:sizes) {
    const size_t bytes = (size_t) size.w * size.h * 4, vectors = bytes / 16;
    const int frames = (int) std::max < size_t > (3, ((256u << 20) + bytes -
            1) / bytes);
    std::vector < uint4 * >frame (frames);
    std::vector < unsigned >expected (frames);
    std::vector < unsigned >host (bytes / 4);
    uint32_t x = 12345;
    for (int f = 0; f < frames; f++) {
      unsigned total = 0;
      for (auto & word:host) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        word = x;
        total += x;
      }
      expected[f] = total;
      CHECK (cudaMalloc (&frame[f], bytes));
      CHECK (cudaMemcpy (frame[f], host.data (), bytes,
              cudaMemcpyHostToDevice));
    }
    void *scratch;
    CHECK (cudaMalloc (&scratch, bytes));
    const double floor_us = bytes / (copy_gbs * 1e3);

    for (const auto & v:variants) {
      if (v.shared && prop.major < 9)
        continue;               /* the bulk copy engine is sm_90's */
      if (v.shared)
        CHECK (cudaFuncSetAttribute (v.kernel,
                cudaFuncAttributeMaxDynamicSharedMemorySize, (int) v.shared));
      const int grid = grid_of (v, vectors);
      bool ok = true;
      for (int f = 0; f < std::min (frames, 2); f++) {
        unsigned got;
        CHECK (cudaMemset (out, 0, 4));
        v.kernel <<< grid, kThreads, v.shared >>> (frame[f], vectors, out);
        CHECK (cudaGetLastError ());
        CHECK (cudaMemcpy (&got, out, 4, cudaMemcpyDeviceToHost));
        ok = ok && got == expected[f];
      }
      if (!ok) {
        std::printf ("%s,%s,WRONG TOTAL\n", size.name, v.name);
        continue;
      }
      auto one =[&](int r) {
        v.kernel <<< grid, kThreads, v.shared >>> (frame[r % frames],
            vectors, out);
      };
      const float launch_ms = median_ms (30, 200, one);
      const float queued_ms = median_queued_ms (30, 200, false, one);
      const float held_ms = median_queued_ms (30, 200, true, one);
      const float sustained_ms = median_ms (2, 10,[&](int r) {
            for (int k = 0; k < 20; k++)
              v.kernel <<< grid, kThreads, v.shared >>> (frame[(r * 20 + k) %
                      frames], vectors, out);}
      ) / 20;
      const double us = launch_ms * 1e3;
      std::printf ("%s,%s,%.1f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", size.name,
          v.name, bytes / 1e6, us, queued_ms * 1e3, held_ms * 1e3,
          sustained_ms * 1e3, floor_us, us / floor_us);
    }
    {
      auto copy =[&](int r) {
        CHECK (cudaMemcpyAsync (scratch, frame[r % frames], bytes,
                cudaMemcpyDeviceToDevice));
      };
      const double us = median_ms (30, 200, copy) * 1e3;
      std::printf ("%s,memcpy (2x traffic),%.1f,%.2f,%.2f,%.2f,,%.2f,%.2f\n",
          size.name, bytes / 1e6, us,
          median_queued_ms (30, 200, false, copy) * 1e3,
          median_queued_ms (30, 200, true, copy) * 1e3, 2 * floor_us,
          us / (2 * floor_us));
    }
    for (auto f:frame)
      CHECK (cudaFree (f));
    CHECK (cudaFree (scratch));
  }
  return 0;
}
