/* Experiment (not part of the plugin): how fast can a kernel count a 4K
 * RGBA frame into cudahist's counters, and can the copy engine hide the
 * counting under the frame's read?  Every variant uses the plugin's
 * counters (32-bit words [channel][value][lane], 128 KB a block, one block
 * of 1024 threads an SM) and its end (each bin's 32 lane words summed, one
 * global atomic a bin).  A tightly pitched RGBA frame; the counts are
 * checked against the host's before timing.
 *   read 4          the read floor: 4 16-byte loads a thread, summed
 *   direct U        the counting alone: warp g loads U 16-byte vectors a
 *                   lane of segments g, g + W, ... (W warps in the grid),
 *                   then counts them; no rows, regions or planes
 *   direct 2 ldg / copies / F1-F8 / big
 *                   direct 2 with one of the plugin's other ways at a time
 *                   (see hist_direct and hist_direct_big)
 *   direct 2 even   each warp one contiguous share of the frame
 *   direct 2 share  the second half of the rounds handed to the warps that
 *                   ask first, as the plugin's ItemQueue does
 *   bulk S C        one warp issues bulk copies (`cp.async.bulk`) of the
 *                   block's share into S shared stages of C bytes, the
 *                   other 31 count them: a warp busy with its atomics then
 *                   holds no load back
 *   bulk S C nocount  the same, the stages summed instead of counted (the
 *                   read through this path)
 *   plugin          cf_hist_planes_add, as kernel-bench's "ours" row calls it
 *                   (3 sums buffers in turn)
 * Per launch as kernel-bench times it (events around each launch, queued
 * without waiting), median of 200 after 30 warm-up, frames rotated over
 * >= 256 MB; sustained: 20 launches between one pair of events, / 20.
 * Results and conclusions: docs/history/notes.md (cudahist v11).
 *   hist-bulk [ROUNDS [VARIANT-PART [SIZE-PART]]] */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <type_traits>
#include <cuda_runtime.h>

#include "cudafilters-kernels.h"
#include "experiment.cuh"


static const int kBins = 256, kChannels = 4;
static const int kCounterBytes = kChannels * kBins * 32 * 4;    /* 128 KB */
static const int kBlock = 1024;

__device__ __forceinline__ size_t
smaller (size_t a, size_t b)
{
  return a < b ? a : b;
}

/* byte K of w, as the offset of its value's counter: value * 32 lanes * 4 */
template < int K > __device__ __forceinline__ uint32_t
value_offset (uint32_t w)
{
  const uint32_t shifted = K == 0 ? w << 7 : w >> (8 * K - 7);
  return shifted & (0xffu << 7);
}

/* the 4 bytes of w are channels 0-3 (4-byte pixels, 4-byte aligned) */
__device__ __forceinline__ void
count_word (uint8_t * lane_counters, uint32_t w)
{
  constexpr uint32_t kChannelBytes = kBins * 32 * 4;
  atomicAdd ((uint32_t *) (lane_counters + value_offset < 0 > (w)), 1u);
  atomicAdd ((uint32_t *) (lane_counters + kChannelBytes +
          value_offset < 1 > (w)), 1u);
  atomicAdd ((uint32_t *) (lane_counters + 2 * kChannelBytes +
          value_offset < 2 > (w)), 1u);
  atomicAdd ((uint32_t *) (lane_counters + 3 * kChannelBytes +
          value_offset < 3 > (w)), 1u);
}

__device__ __forceinline__ void
count_vector (uint8_t * lane_counters, uint4 v)
{
  count_word (lane_counters, v.x);
  count_word (lane_counters, v.y);
  count_word (lane_counters, v.z);
  count_word (lane_counters, v.w);
}

__device__ __forceinline__ void
zero_counters (uint4 * counters)
{
  for (int i = threadIdx.x; i < kCounterBytes / 16; i += blockDim.x)
    counters[i] = make_uint4 (0, 0, 0, 0);
}

/* bin b sums its 32 lanes' words, thread b starting at vector b % 8 */
__device__ __forceinline__ void
publish_bins (const uint4 * counters, uint32_t * out)
{
  for (int b = threadIdx.x; b < kChannels * kBins; b += blockDim.x) {
    const uint4 *row = counters + b * 8;
    uint32_t sum = 0;
#pragma unroll
    for (int j = 0; j < 8; j++) {
      const uint4 q = row[(j + b) & 7];
      sum += q.x + q.y + q.z + q.w;
    }
    if (sum)
      atomicAdd (&out[b], sum);
  }
}

__global__ void
__launch_bounds__ (256)
read_regs4 (const uint4 * frame, size_t vectors, uint32_t * out)
{
  const size_t base = (size_t) blockIdx.x * 256 * 4 + threadIdx.x;
  uint4 v[4];
#pragma unroll
  for (int u = 0; u < 4; u++) {
    const size_t i = base + (size_t) u * 256;
    v[u] = i < vectors ? frame[i] : make_uint4 (0, 0, 0, 0);
  }
  uint32_t sum = 0;
#pragma unroll
  for (int u = 0; u < 4; u++)
    sum += v[u].x + v[u].y + v[u].z + v[u].w;
  block_total < 256 > (sum, out);
}

/* each warp: U vectors a lane loaded, then counted; grid-stride.  LDG:
 * through the read-only path (__ldg), as the plugin loads; COPIES: block b
 * adds into copy b % 4 of the counts, as the plugin does (timing only).
 * F, the plugin's other ways, one bit each: 1 the launch zeroes 5121 words
 * of a later launch's buffer first; 2 each warp zeroes its 32nd of the
 * counters and the block waits at `barrier.sync 0`; 4 32-bit indices; 8
 * the counters 16 bytes into the shared memory, where the plugin's kernels
 * have 16 bytes of static shared memory before them. */
template < int U, bool LDG = false, bool COPIES = false, int F = 0 >
    __device__ __forceinline__ void
direct_body (const uint4 * frame, size_t vectors, uint32_t * out)
{
  auto load =[&](size_t j) {
    return j < vectors ? (LDG ? __ldg (frame + j) : frame[j]) :
        make_uint4 (0, 0, 0, 0);
  };
  extern __shared__ uint4 smem_all[];
  uint4 *smem = smem_all + ((F & 8) ? 1 : 0);
  if (F & 1)
    for (int z = blockIdx.x * blockDim.x + threadIdx.x; z < 5121;
        z += gridDim.x * blockDim.x)
      out[8192 + z] = 0;
  uint8_t *lane_counters = (uint8_t *) smem + 4 * (threadIdx.x & 31);
  typedef typename std::conditional < (F & 4) != 0, int, size_t >::type Index;
  const Index n = (Index) vectors;
  const Index stride = (Index) gridDim.x * kBlock * U;
  Index i = ((Index) blockIdx.x * (kBlock / 32) + threadIdx.x / 32) * 32 *
      U + (threadIdx.x & 31);
  uint4 v[U];
#pragma unroll
  for (int u = 0; u < U; u++)
    v[u] = load (i + 32 * u);
  if (F & 2) {
    const int first = (threadIdx.x >> 5) * (kCounterBytes / 16 / 32) +
        (threadIdx.x & 31);
    for (int z = first; z < first + kCounterBytes / 16 / 32; z += 32)
      smem[z] = make_uint4 (0, 0, 0, 0);
    asm volatile ("barrier.sync 0;":::"memory");
  } else {
    zero_counters (smem);
    __syncthreads ();
  }
  for (;;) {
#pragma unroll
    for (int u = 0; u < U; u++)
      if (i + 32 * u < n)
        count_vector (lane_counters, v[u]);
    i += stride;
    if (i >= n)
      break;
#pragma unroll
    for (int u = 0; u < U; u++)
      v[u] = load (i + 32 * u);
  }
  __syncthreads ();
  publish_bins (smem, COPIES ? out + 1024 * (blockIdx.x % 4) : out);
}

template < int U, bool LDG = false, bool COPIES = false, int F = 0 >
    __global__ void
__launch_bounds__ (kBlock, 1)
hist_direct (const uint4 * frame, size_t vectors, uint32_t * out)
{
  direct_body < U, LDG, COPIES, F > (frame, vectors, out);
}

/* the same with the plugin's parameter block (LaunchArgs, ~330 bytes) */
struct BigArgs
{
  const uint4 *frame;
  size_t vectors;
  uint32_t *out;
  uint32_t pad[78];
};

__global__ void
__launch_bounds__ (kBlock, 1)
hist_direct_big (BigArgs a)
{
  direct_body < 2 > (a.frame, a.vectors, a.out);
}

/* direct 2, each warp a contiguous share of the frame, as even as whole
 * 128-byte lines allow: no warp has a segment more than another */
__global__ void
__launch_bounds__ (kBlock, 1)
hist_even (const uint4 * frame, size_t vectors, uint32_t * out)
{
  extern __shared__ uint4 smem[];
  uint8_t *lane_counters = (uint8_t *) smem + 4 * (threadIdx.x & 31);
  const size_t warps = (size_t) gridDim.x * (kBlock / 32);
  const size_t per = ((vectors + warps - 1) / warps + 7) & ~(size_t) 7;
  const size_t warp = (size_t) blockIdx.x * (kBlock / 32) + threadIdx.x / 32;
  const size_t begin = smaller (vectors, warp * per);
  const size_t end = smaller (vectors, begin + per);
  const int lane = threadIdx.x & 31;
  size_t i = begin + lane;
  uint4 v0 = i < end ? frame[i] : make_uint4 (0, 0, 0, 0);
  uint4 v1 = i + 32 < end ? frame[i + 32] : make_uint4 (0, 0, 0, 0);
  zero_counters (smem);
  __syncthreads ();
  while (begin < end) {
    if (i < end)
      count_vector (lane_counters, v0);
    if (i + 32 < end)
      count_vector (lane_counters, v1);
    i += 64;
    if (i - lane >= end)
      break;
    v0 = i < end ? frame[i] : make_uint4 (0, 0, 0, 0);
    v1 = i + 32 < end ? frame[i + 32] : make_uint4 (0, 0, 0, 0);
  }
  __syncthreads ();
  publish_bins (smem, out);
}

/* direct 2, the segments of the first half of each warp's whole rounds
 * (at least 3) dealt, the rest asked for: warp w of every block asks
 * queue w (its own 128-byte line), which hands out segments
 * shared_from + w + 32 n.  A warp asks once its current segment's loads
 * are out and reads the answer after counting it.  The launch zeroes the
 * queues of the next (zero_next). */
__global__ void
__launch_bounds__ (kBlock, 1)
hist_share (const uint4 * frame, size_t vectors, uint32_t * out,
    uint32_t * queues, uint32_t * zero_next)
{
  extern __shared__ uint4 smem[];
  uint8_t *lane_counters = (uint8_t *) smem + 4 * (threadIdx.x & 31);
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  if (blockIdx.x == 0)
    zero_next[threadIdx.x] = 0;
  const long long W = (long long) gridDim.x * (kBlock / 32);
  const long long segments = (long long) ((vectors + 63) / 64);
  long long dealt = segments / W / 2;
  if (dealt < 3)
    dealt = 3;
  const long long shared_from = dealt * W < segments ? dealt * W : segments;
  long long seg = (long long) blockIdx.x * (kBlock / 32) + w;
  uint32_t *queue = queues + 32 * w;
  auto load2 =[&](long long sg, uint4 & a, uint4 & b) {
    const size_t i = (size_t) sg * 64 + lane;
    a = i < vectors ? frame[i] : make_uint4 (0, 0, 0, 0);
    b = i + 32 < vectors ? frame[i + 32] : make_uint4 (0, 0, 0, 0);
  };
  uint4 v0 = make_uint4 (0, 0, 0, 0), v1 = v0;
  if (seg < segments)
    load2 (seg, v0, v1);
  zero_counters (smem);
  __syncthreads ();
  while (seg < segments) {
    long long next = seg + W;
    uint32_t ticket = 0;
    const bool ask = next >= shared_from;
    if (ask && lane == 0)
      ticket = atomicAdd (queue, 1u);
    const size_t i = (size_t) seg * 64 + lane;
    if (i < vectors)
      count_vector (lane_counters, v0);
    if (i + 32 < vectors)
      count_vector (lane_counters, v1);
    if (ask)
      next = shared_from + w + 32LL * __shfl_sync (0xffffffffu, ticket, 0);
    seg = next;
    if (seg < segments)
      load2 (seg, v0, v1);
  }
  __syncthreads ();
  publish_bins (smem, out);
}

/* Block b reads bytes [b * share, (b + 1) * share) of the frame in chunks
 * of CHUNK, through STAGES stages.  Warp 31, lane 0 issues the copies;
 * warps 0-30 count (or, NOCOUNT, sum) each stage and free it. */
template < int STAGES, int CHUNK, bool NOCOUNT > __global__ void
__launch_bounds__ (kBlock, 1)
hist_bulk (const uint4 * frame, size_t vectors, uint32_t * out)
{
  extern __shared__ uint4 smem[];
  __shared__ __align__ (8) uint64_t full[STAGES], empty[STAGES];
  constexpr int kCounters = 31 * 32;
  uint8_t *staged = (uint8_t *) smem + kCounterBytes;
  const size_t bytes = vectors * 16;
  const size_t share = ((bytes + gridDim.x - 1) / gridDim.x + 127) & ~(size_t)
      127;
  const size_t begin = smaller (bytes, (size_t) blockIdx.x * share);
  const size_t end = smaller (bytes, begin + share);
  const int chunks = (int) ((end - begin + CHUNK - 1) / CHUNK);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; s++) {
      BULK_ASM ("mbarrier.init.shared::cta.b64 [%0], 1;"
          :: "r" (shared_address (&full[s])));
      BULK_ASM ("mbarrier.init.shared::cta.b64 [%0], 31;"
          :: "r" (shared_address (&empty[s])));
    }
    BULK_ASM ("fence.mbarrier_init.release.cluster;":::"memory");
  }
  __syncthreads ();
  if (warp == 31) {
    /* the first STAGES copies before the block's barrier, the others as
     * the counting warps free their stages */
    const uint8_t *src = (const uint8_t *) frame + begin;
    auto issue =[&](int k) {
      const size_t off = (size_t) k * CHUNK;
      issue_bulk (staged + k % STAGES * CHUNK, src + off,
          (unsigned) smaller (CHUNK, end - begin - off), &full[k % STAGES]);
    };
    if (lane == 0)
      for (int k = 0; k < chunks && k < STAGES; k++)
        issue (k);
    zero_counters (smem);       /* its share, with the others */
    __syncthreads ();
    if (lane == 0)
      for (int k = STAGES; k < chunks; k++) {
        wait_phase (&empty[k % STAGES], (k / STAGES - 1) & 1);
        issue (k);
      }
    __syncwarp ();
    __syncthreads ();
    publish_bins (smem, out);
    return;
  }
  zero_counters (smem);
  __syncthreads ();
  uint8_t *lane_counters = (uint8_t *) smem + 4 * lane;
  uint32_t sum = 0;
  for (int k = 0; k < chunks; k++) {
    const int s = k % STAGES;
    wait_phase (&full[s], (k / STAGES) & 1);
    const int n = (int) smaller (CHUNK,
        end - begin - (size_t) k * CHUNK) / 16;
    const uint4 *stage = (const uint4 *) (staged + s * CHUNK);
#pragma unroll 2
    for (int i = threadIdx.x; i < n; i += kCounters) {
      const uint4 v = stage[i];
      if (NOCOUNT)
        sum += v.x ^ v.y ^ v.z ^ v.w;
      else
        count_vector (lane_counters, v);
    }
    __syncwarp ();
    if (lane == 0)
      BULK_ASM ("mbarrier.arrive.shared::cta.b64 _, [%0];"
          :: "r" (shared_address (&empty[s])) : "memory");
  }
  if (NOCOUNT && sum == 0x12345678u)
    atomicAdd (out + 1023, 1u);  /* keeps the loads; never in practice */
  __syncthreads ();
  publish_bins (smem, out);
}

struct Variant
{
  const char *name;
  void (*kernel) (const uint4 *, size_t, uint32_t *);
  int kind;                     /* 0 read (grid by size), 1 one block an SM,
                                 * 2 the plugin's (kernel unused), 3
                                 * hist_share, 4 hist_direct_big (kernel
                                 * unused) */
  size_t shared;
  bool counts;                  /* check the histogram */
};

template < class Launch > static float
sustained_ms (Launch launch)
{
  cudaEvent_t e0, e1;
  CHECK (cudaEventCreate (&e0));
  CHECK (cudaEventCreate (&e1));
  std::vector < float >t;
  for (int r = 0; r < 12; r++) {
    CHECK (cudaEventRecord (e0));
    for (int k = 0; k < 20; k++)
      launch (r * 20 + k);
    CHECK (cudaEventRecord (e1));
    CHECK (cudaEventSynchronize (e1));
    float ms;
    CHECK (cudaEventElapsedTime (&ms, e0, e1));
    if (r >= 2)
      t.push_back (ms / 20);
  }
  CHECK (cudaEventDestroy (e0));
  CHECK (cudaEventDestroy (e1));
  return median (t);
}

int
main (int argc, char **argv)
{
  int sms;
  CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  std::printf ("# %s, %d SMs\n", prop.name, sms);
  if (prop.major < 9) {
    std::printf ("# needs sm_90 (the bulk copy engine)\n");
    return 0;
  }
  const int rounds = argc > 1 ? std::atoi (argv[1]) : 2;
  /* optional: only the variants and sizes whose names hold these */
  const char *only_variant = argc > 2 ? argv[2] : "";
  const char *only_size = argc > 3 ? argv[3] : "";

  const Variant variants[] = {
    {"read 4", read_regs4, 0, 0, false},
    {"direct 1", hist_direct < 1 >, 1, kCounterBytes, true},
    {"direct 2", hist_direct < 2 >, 1, kCounterBytes, true},
    {"direct 4", hist_direct < 4 >, 1, kCounterBytes, true},
    {"direct 2 ldg", hist_direct < 2, true >, 1, kCounterBytes, true},
    {"direct 2 even", hist_even, 1, kCounterBytes, true},
    {"direct 2 F1 zero-next", hist_direct < 2, false, false, 1 >, 1,
        kCounterBytes, true},
    {"direct 2 F2 warp-zero", hist_direct < 2, false, false, 2 >, 1,
        kCounterBytes, true},
    {"direct 2 F4 int", hist_direct < 2, false, false, 4 >, 1,
        kCounterBytes, true},
    {"direct 2 F7 all", hist_direct < 2, true, true, 7 >, 1,
        kCounterBytes, false},
    {"direct 2 big", nullptr, 4, kCounterBytes, true},
    {"direct 2 F8 at 16", hist_direct < 2, false, false, 8 >, 1,
        kCounterBytes + 16, true},
    {"direct 2 share", nullptr, 3, kCounterBytes, true},
    {"direct 2 copies", hist_direct < 2, false, true >, 1, kCounterBytes,
        false},
    {"bulk 6 16K", hist_bulk < 6, 16384, false >, 1,
        kCounterBytes + 6 * 16384, true},
    {"bulk 12 8K", hist_bulk < 12, 8192, false >, 1,
        kCounterBytes + 12 * 8192, true},
    {"bulk 24 4K", hist_bulk < 24, 4096, false >, 1,
        kCounterBytes + 24 * 4096, true},
    {"bulk 3 32K", hist_bulk < 3, 32768, false >, 1,
        kCounterBytes + 3 * 32768, true},
    {"bulk 12 8K nocount", hist_bulk < 12, 8192, true >, 1,
        kCounterBytes + 12 * 8192, false},
    {"plugin", nullptr, 2, 0, true},
  };

  uint32_t *out;
  CHECK (cudaMalloc (&out, 4 * 16384));
  void *sums[3];
  for (auto & b:sums) {
    CHECK (cudaMalloc (&b, cf_hist_sums_bytes ()));
    CHECK (cudaMemset (b, 0, cf_hist_sums_bytes ()));
  }
  std::vector < uint8_t > host_sums (cf_hist_sums_bytes ());
  uint32_t *queues;             /* hist_share's: 3 sets of 32 lines */
  CHECK (cudaMalloc (&queues, 3 * 4096));
  CHECK (cudaMemset (queues, 0, 3 * 4096));
  const struct { const char *name; int w, h; } sizes[] = {
    {"1080p", 1920, 1080}, {"4K", 3840, 2160}, {"8K", 7680, 4320},
  };
  std::printf ("round,size,variant,queued_us,sustained_us\n");
  for (int round = 0; round < rounds; round++)
    for (const auto & size:sizes) {
      if (!std::strstr (size.name, only_size))
        continue;
      const size_t bytes = (size_t) size.w * size.h * 4, vectors = bytes / 16;
      const int frames = (int) std::max < size_t > (3, ((256u << 20) + bytes -
              1) / bytes);
      std::vector < uint4 * >frame (frames);
      std::vector < std::vector < uint32_t >> expected (2,
          std::vector < uint32_t > (1024));
      std::vector < uint32_t > host (bytes / 4);
      uint32_t x = 12345 + round;
      for (int f = 0; f < frames; f++) {
        for (auto & word:host) {
          x ^= x << 13;
          x ^= x >> 17;
          x ^= x << 5;
          word = x;
          if (f < 2)
            for (int c = 0; c < 4; c++)
              expected[f][c * 256 + (word >> (8 * c) & 255)]++;
        }
        CHECK (cudaMalloc (&frame[f], bytes));
        CHECK (cudaMemcpy (frame[f], host.data (), bytes,
                cudaMemcpyHostToDevice));
      }
      for (const auto & v:variants) {
        if (!std::strstr (v.name, only_variant))
          continue;
        if (v.kernel && v.shared)
          CHECK (cudaFuncSetAttribute (v.kernel,
                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                  (int) v.shared));
        if (v.kind == 4)
          CHECK (cudaFuncSetAttribute (hist_direct_big,
                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                  (int) v.shared));
        if (v.kind == 3)
          CHECK (cudaFuncSetAttribute (hist_share,
                  cudaFuncAttributeMaxDynamicSharedMemorySize,
                  (int) v.shared));
        const int threads = v.kind ? kBlock : 256;
        const int grid = v.kind ? sms : (int) ((vectors + 1023) / 1024);
        auto plane_of =[&](int f) {
          CfSamplePlane pl = { frame[f], (size_t) size.w * 4, size.w, size.h,
            4, {0, 1, 2, 3}
          };
          return pl;
        };
        bool ok = true;
        for (int f = 0; f < 2 && v.counts; f++) {
          std::vector < uint32_t > got (1024);
          if (v.kind == 2) {
            const CfSamplePlane pl = plane_of (f);
            CHECK (cudaMemset (sums[0], 0, cf_hist_sums_bytes ()));
            CHECK ((cudaError_t) cf_hist_planes_add (&pl, 1, sums[0], sums[1], 0));
            CHECK (cudaMemcpy (host_sums.data (), sums[0],
                    host_sums.size (), cudaMemcpyDeviceToHost));
            cf_hist_sums_counts (host_sums.data (), got.data ());
          } else if (v.kind == 4) {
            CHECK (cudaMemset (out, 0, 4096));
            BigArgs a = { frame[f], vectors, out, {0} };
            hist_direct_big <<< grid, threads, v.shared >>> (a);
            CHECK (cudaGetLastError ());
            CHECK (cudaMemcpy (got.data (), out, 4096,
                    cudaMemcpyDeviceToHost));
          } else if (v.kind == 3) {
            CHECK (cudaMemset (out, 0, 4096));
            hist_share <<< grid, threads, v.shared >>> (frame[f], vectors,
                out, queues, queues + 1024);
            CHECK (cudaGetLastError ());
            CHECK (cudaMemcpy (got.data (), out, 4096,
                    cudaMemcpyDeviceToHost));
            CHECK (cudaMemset (queues, 0, 3 * 4096));
          } else {
            CHECK (cudaMemset (out, 0, 4096));
            v.kernel <<< grid, threads, v.shared >>> (frame[f], vectors,
                out);
            CHECK (cudaGetLastError ());
            CHECK (cudaMemcpy (got.data (), out, 4096,
                    cudaMemcpyDeviceToHost));
          }
          ok = ok && got == expected[f];
        }
        if (!ok) {
          std::printf ("%d,%s,%s,WRONG COUNTS\n", round, size.name, v.name);
          continue;
        }
        auto one =[&](int r) {
          if (v.kind == 2) {
            const CfSamplePlane pl = plane_of (r % frames);
            CHECK ((cudaError_t) cf_hist_planes_add (&pl, 1, sums[r % 3],
                    sums[(r + 1) % 3], 0));
          } else if (v.kind == 4) {
            BigArgs a = { frame[r % frames], vectors, out, {0} };
            hist_direct_big <<< grid, threads, v.shared >>> (a);
          } else if (v.kind == 3)
            hist_share <<< grid, threads, v.shared >>> (frame[r % frames],
                vectors, out, queues + 1024 * (r % 3),
                queues + 1024 * ((r + 1) % 3));
          else
            v.kernel <<< grid, threads, v.shared >>> (frame[r % frames],
                vectors, out);
        };
        /* each timing starts its launches at 0: hist_share's first
         * queues must be zeros */
        CHECK (cudaMemset (queues, 0, 3 * 4096));
        const float q = queued_ms (30, 200, one);
        CHECK (cudaMemset (queues, 0, 3 * 4096));
        const float s = sustained_ms (one);
        std::printf ("%d,%s,%s,%.2f,%.2f\n", round, size.name, v.name,
            q * 1e3, s * 1e3);
        std::fflush (stdout);
      }
      for (auto f:frame)
        CHECK (cudaFree (f));
    }
  return 0;
}
