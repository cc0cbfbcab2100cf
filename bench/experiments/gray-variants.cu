/* Experiment (not part of the plugin): variants of the grey kernel and of
 * the plane copy, and the element's transfer path without GStreamer, timed
 * side by side on one GPU.  Results and conclusions: docs/history/notes.md.
 *   gray-variants */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>
#include <chrono>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  std::fprintf (stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorName (e_)); \
  std::exit (2); } } while (0)

static float
median_us (const std::function < void (int) > &f, int reps = 300)
{
  std::vector < cudaEvent_t > ev (2 * reps);
  for (auto & e:ev) CHECK (cudaEventCreate (&e));
  for (int i = 0; i < 30; i++) f (i);
  for (int i = 0; i < reps; i++) {
    CHECK (cudaEventRecord (ev[2 * i], 0)); f (i);
    CHECK (cudaEventRecord (ev[2 * i + 1], 0));
  }
  CHECK (cudaDeviceSynchronize ());
  CHECK (cudaGetLastError ());
  std::vector < float >t (reps);
  for (int i = 0; i < reps; i++) CHECK (cudaEventElapsedTime (&t[i], ev[2 * i], ev[2 * i + 1]));
  for (auto & e:ev) cudaEventDestroy (e);
  std::nth_element (t.begin (), t.begin () + reps / 2, t.end ());
  return 1000 * t[reps / 2];
}

struct W { uint32_t w[4]; };
__device__ __forceinline__ uint32_t g4 (uint32_t px, const W & w) {
  return (w.w[0] * (px & 255) + w.w[1] * ((px >> 8) & 255) + w.w[2] * ((px >> 16) & 255) + w.w[3] * (px >> 24) + 32768u) >> 16;
}
__device__ __forceinline__ uint32_t pack4 (uint4 v, const W & w) {
  return g4 (v.x, w) | g4 (v.y, w) << 8 | g4 (v.z, w) << 16 | g4 (v.w, w) << 24;
}

/* A: 16 px per thread, one group per thread (the current kernel) */
__global__ void kA (const uint8_t * __restrict__ s, size_t sp, uint8_t * __restrict__ d, size_t dp, int gpr, int n, W w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  int y = i / gpr, x = (i - y * gpr) * 16;
  const uint4 *src = (const uint4 *) (s + y * sp + x * 4);
  uint4 a = src[0], b = src[1], c = src[2], e = src[3];
  *(uint4 *) (d + y * dp + x) = make_uint4 (pack4 (a, w), pack4 (b, w), pack4 (c, w), pack4 (e, w));
}
/* B: A with a grid-stride loop over a grid that fits on the GPU at once */
__global__ void kB (const uint8_t * __restrict__ s, size_t sp, uint8_t * __restrict__ d, size_t dp, int gpr, int n, W w) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    int y = i / gpr, x = (i - y * gpr) * 16;
    const uint4 *src = (const uint4 *) (s + y * sp + x * 4);
    uint4 a = src[0], b = src[1], c = src[2], e = src[3];
    *(uint4 *) (d + y * dp + x) = make_uint4 (pack4 (a, w), pack4 (b, w), pack4 (c, w), pack4 (e, w));
  }
}
/* C: A with streaming (evict-first) loads and stores */
__global__ void kC (const uint8_t * __restrict__ s, size_t sp, uint8_t * __restrict__ d, size_t dp, int gpr, int n, W w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  int y = i / gpr, x = (i - y * gpr) * 16;
  const uint4 *src = (const uint4 *) (s + y * sp + x * 4);
  uint4 a = __ldcs (src), b = __ldcs (src + 1), c = __ldcs (src + 2), e = __ldcs (src + 3);
  __stcs ((uint4 *) (d + y * dp + x), make_uint4 (pack4 (a, w), pack4 (b, w), pack4 (c, w), pack4 (e, w)));
}
/* D: 4 px per thread (one 16-byte load, one 4-byte store): more threads */
__global__ void kD (const uint8_t * __restrict__ s, size_t sp, uint8_t * __restrict__ d, size_t dp, int gpr, int n, W w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  int y = i / gpr, x = (i - y * gpr) * 4;
  uint4 a = *(const uint4 *) (s + y * sp + x * 4);
  *(uint32_t *) (d + y * dp + x) = pack4 (a, w);
}
/* E: 8 px per thread (two loads, 8-byte store) */
__global__ void kE (const uint8_t * __restrict__ s, size_t sp, uint8_t * __restrict__ d, size_t dp, int gpr, int n, W w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  int y = i / gpr, x = (i - y * gpr) * 8;
  const uint4 *src = (const uint4 *) (s + y * sp + x * 4);
  uint4 a = src[0], b = src[1];
  *(uint2 *) (d + y * dp + x) = make_uint2 (pack4 (a, w), pack4 (b, w));
}
/* copy: 16 bytes per thread, 2D grid of 16-byte columns x rows */
__global__ void kCopy (const uint8_t * __restrict__ s, size_t sp, uint8_t * __restrict__ d, size_t dp, int vec_per_row, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return;
  int y = i / vec_per_row, x = i - y * vec_per_row;
  ((uint4 *) (d + y * dp))[x] = ((const uint4 *) (s + y * sp))[x];
}

int main () {
  cudaDeviceProp p; CHECK (cudaGetDeviceProperties (&p, 0));
  const int w = 3840, h = 2160, K = 6;
  size_t sp = w * 4, dp = w;
  std::vector < uint8_t * >in (K), out (K);
  for (int k = 0; k < K; k++) { CHECK (cudaMalloc (&in[k], sp * h)); CHECK (cudaMalloc (&out[k], dp * h)); CHECK (cudaMemset (in[k], 0x37 + k, sp * h)); }
  W wt = { {13933, 46871, 4732, 0} };
  double bw;
  {
    size_t b = 512u << 20; void *a, *c; CHECK (cudaMalloc (&a, b)); CHECK (cudaMalloc (&c, b));
    bw = 2.0 * b / (median_us ([&](int) { cudaMemcpyAsync (c, a, b, cudaMemcpyDeviceToDevice); }, 50) * 1e-6);
    cudaFree (a); cudaFree (c);
  }
  double floor_us = (sp * h + dp * h) / bw * 1e6;
  std::printf ("%s: copy %.0f GB/s; 4K RGBA->GRAY8 floor %.2f us\n", p.name, bw / 1e9, floor_us);
  auto run = [&](const char *name, void (*k) (const uint8_t *, size_t, uint8_t *, size_t, int, int, W), int px, int grid_cap) {
    int gpr = w / px, n = gpr * h, blocks = (n + 255) / 256;
    if (grid_cap) blocks = std::min (blocks, grid_cap);
    float us = median_us ([&](int i) { k <<<blocks, 256 >>> (in[i % K], sp, out[i % K], dp, gpr, n, wt); });
    std::printf ("  %-34s %8.2f us  %5.2fx floor\n", name, us, us / floor_us);
  };
  run ("A 16px/thread", kA, 16, 0);
  run ("A 16px/thread (again)", kA, 16, 0);
  run ("B 16px grid-stride, 1 wave", kB, 16, p.multiProcessorCount * 8);
  run ("B 16px grid-stride, 2 blocks/SM", kB, 16, p.multiProcessorCount * 2);
  run ("C 16px streaming hints", kC, 16, 0);
  run ("D 4px/thread", kD, 4, 0);
  run ("E 8px/thread", kE, 8, 0);
  for (int bs : {128, 512}) {
    int gpr = w / 16, n = gpr * h;
    float us = median_us ([&](int i) { kA <<<(n + bs - 1) / bs, bs >>> (in[i % K], sp, out[i % K], dp, gpr, n, wt); });
    std::printf ("  A 16px block %-21d %8.2f us  %5.2fx floor\n", bs, us, us / floor_us);
  }
  /* plane copy, 4K luma */
  double cfloor = 2.0 * w * h / bw * 1e6;
  float us = median_us ([&](int i) { cudaMemcpy2DAsync (out[i % K], dp, out[(i + 1) % K], dp, w, h, cudaMemcpyDeviceToDevice); });
  std::printf ("  luma copy cudaMemcpy2DAsync       %8.2f us  %5.2fx floor (%.2f)\n", us, us / cfloor, cfloor);
  us = median_us ([&](int i) { cudaMemcpyAsync (out[i % K], out[(i + 1) % K], (size_t) w * h, cudaMemcpyDeviceToDevice); });
  std::printf ("  luma copy cudaMemcpyAsync 1D      %8.2f us  %5.2fx floor\n", us, us / cfloor);
  { int vpr = w / 16, n = vpr * h;
    us = median_us ([&](int i) { kCopy <<<(n + 255) / 256, 256 >>> (out[(i + 1) % K], dp, out[i % K], dp, vpr, n); });
    std::printf ("  luma copy kernel 16B/thread       %8.2f us  %5.2fx floor\n", us, us / cfloor); }

  /* the element's per-frame transfer path, no GStreamer: pinned upload,
   * kernel, pinned download, synchronise */
  /* the element's per-frame transfer path, no GStreamer: upload, kernel,
   * pinned download, synchronise; host input rotated over 8 frames */
  const int H = 8;
  std::vector < uint8_t * >hin (H);
  uint8_t *hout;
  CHECK (cudaMallocHost (&hout, dp * h));
  cudaStream_t st; CHECK (cudaStreamCreate (&st));
  for (int pinned = 1; pinned >= 0; pinned--) {
    for (auto & p:hin) {
      if (pinned) CHECK (cudaMallocHost (&p, sp * h)); else p = (uint8_t *) malloc (sp * h);
      std::memset (p, 3, sp * h);
    }
    for (int mode = 0; mode < 2; mode++) {
      std::vector < double >t;
      for (int i = 0; i < 130; i++) {
        auto t0 = std::chrono::steady_clock::now ();
        if (mode == 0) CHECK (cudaMemcpy2DAsync (in[0], sp, hin[i % H], sp, sp, h, cudaMemcpyHostToDevice, st));
        else CHECK (cudaMemcpyAsync (in[0], hin[i % H], sp * h, cudaMemcpyHostToDevice, st));
        int gpr = w / 16, n = gpr * h;
        kA <<<(n + 255) / 256, 256, 0, st >>> (in[0], sp, out[0], dp, gpr, n, wt);
        CHECK (cudaMemcpy2DAsync (hout, dp, out[0], dp, dp, h, cudaMemcpyDeviceToHost, st));
        CHECK (cudaStreamSynchronize (st));
        if (i >= 30) t.push_back (std::chrono::duration < double, std::micro > (std::chrono::steady_clock::now () - t0).count ());
      }
      std::nth_element (t.begin (), t.begin () + t.size () / 2, t.end ());
      std::printf ("  frame path, %s input, %s upload: %.0f us/frame (%.0f fps)\n", pinned ? "pinned" : "pageable", mode ? "1D" : "2D", t[t.size () / 2], 1e6 / t[t.size () / 2]);
    }
    for (auto p:hin) { if (pinned) cudaFreeHost (p); else free (p); }
  }
  return 0;
}
