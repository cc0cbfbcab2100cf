/* Kernel benchmark: each kernel on frames already in device memory, against
 * the memory-bandwidth floor measured in the same run.
 *
 *   kernel-bench [--csv FILE] [--reps N] [--only NAME-PART]
 *
 * Method.  Each kernel is checked against its CPU reference first, then
 * timed after warm-up with its inputs and outputs rotated over enough
 * frames (>= 200 MB, 4x the H100's L2) that the cache cannot hold them:
 * - per launch: CUDA events around every launch, median of --reps (300);
 *   what one frame costs when frames come one at a time;
 * - sustained: events around 20 back-to-back launches, divided by 20,
 *   median of 30 batches; launch latency and ramp-up overlap as they do
 *   when frames queue up.
 * Against:
 * - floor: bytes that must move (each input byte read once, each output
 *   byte written once) over the bandwidth of a 512 MiB device-to-device
 *   copy (bytes read + written over its median time);
 *   (an analysis kernel writes next to nothing: its floor is the frame's
 *   bytes read, at that rate)
 * - copy: a device-to-device cudaMemcpyAsync moving the same bytes (half
 *   read, half written), per launch: the fixed cost any single launch of
 *   this size pays. */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <cmath>
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>

#include "cudafilters-kernels.h"

#define CHECK(call) do {                                                   \
  cudaError_t e_ = (call);                                                 \
  if (e_ != cudaSuccess) {                                                 \
    std::fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
        cudaGetErrorName (e_));                                            \
    std::exit (2);                                                         \
  }                                                                        \
} while (0)

static int g_reps = 300;
static const int kWarmup = 30;
static const size_t kRotateBytes = 200u << 20;

struct Row
{
  std::string op, size, content;
  double bytes, median_us, sustained_us, floor_us, copy_us;
};

/* Median time in microseconds of launch(i), i = 0 .. reps-1, each bracketed
 * by its own pair of events. */
static double
time_median_us (const std::function < void (int) > &launch, int reps)
{
  std::vector < cudaEvent_t > ev (2 * reps);
  for (auto & e:ev)
    CHECK (cudaEventCreate (&e));
  for (int i = 0; i < kWarmup; i++)
    launch (i);
  for (int i = 0; i < reps; i++) {
    CHECK (cudaEventRecord (ev[2 * i], 0));
    launch (i);
    CHECK (cudaEventRecord (ev[2 * i + 1], 0));
  }
  CHECK (cudaDeviceSynchronize ());
  CHECK (cudaGetLastError ());
  std::vector < float >t (reps);
  for (int i = 0; i < reps; i++)
    CHECK (cudaEventElapsedTime (&t[i], ev[2 * i], ev[2 * i + 1]));
  for (auto & e:ev)
    CHECK (cudaEventDestroy (e));
  std::nth_element (t.begin (), t.begin () + reps / 2, t.end ());
  return 1000.0 * t[reps / 2];
}

/* Per-launch time of a batch: launch(i) for 20 consecutive i between one
 * pair of events, divided by 20; median of 30 batches. */
static double
time_sustained_us (const std::function < void (int) > &launch)
{
  const int batches = 30, per_batch = 20;
  std::vector < float >t (batches);
  cudaEvent_t a, b;
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  for (int i = 0; i < kWarmup; i++)
    launch (i);
  for (int k = 0; k < batches; k++) {
    CHECK (cudaEventRecord (a, 0));
    for (int i = 0; i < per_batch; i++)
      launch (k * per_batch + i);
    CHECK (cudaEventRecord (b, 0));
    CHECK (cudaEventSynchronize (b));
    CHECK (cudaEventElapsedTime (&t[k], a, b));
  }
  CHECK (cudaGetLastError ());
  CHECK (cudaEventDestroy (a));
  CHECK (cudaEventDestroy (b));
  std::nth_element (t.begin (), t.begin () + batches / 2, t.end ());
  return 1000.0 * t[batches / 2] / per_batch;
}

/* Device-to-device copy bandwidth, counting bytes read plus written. */
static double
measure_copy_bandwidth (void)
{
  size_t bytes = 512u << 20;
  void *a, *b;
  CHECK (cudaMalloc (&a, bytes));
  CHECK (cudaMalloc (&b, bytes));
  CHECK (cudaMemset (a, 1, bytes));
  double us = time_median_us ([&](int) {
        CHECK (cudaMemcpyAsync (b, a, bytes, cudaMemcpyDeviceToDevice, 0));
      }, 50);
  CHECK (cudaFree (a));
  CHECK (cudaFree (b));
  return 2.0 * bytes / (us * 1e-6);
}

/* A set of pitched device frames to rotate over. */
struct Frames
{
  std::vector < uint8_t * >ptr;
  size_t pitch = 0;

  Frames (int n, size_t row_bytes, int rows)
  {
    pitch = (row_bytes + 255) / 256 * 256;
    ptr.resize (n);
    for (auto & p:ptr)
      CHECK (cudaMalloc (&p, pitch * rows));
  }
  ~Frames ()
  {
    for (auto p:ptr)
      cudaFree (p);
  }
  uint8_t *operator[] (int i) const
  {
    return ptr[i % ptr.size ()];
  }
};

static void
fill_frames (const Frames & f, size_t row_bytes, int rows, bool solid,
    std::mt19937 & rng)
{
  std::vector < uint8_t > host (f.pitch * rows);
  uint32_t colour = rng ();
  for (size_t i = 0; i < host.size (); i++)
    host[i] = solid ? (uint8_t) (colour >> (8 * (i % 4))) : (uint8_t) rng ();
  (void) row_bytes;
  for (auto p:f.ptr)
    CHECK (cudaMemcpy (p, host.data (), host.size (),
            cudaMemcpyHostToDevice));
}

/* Per-launch time of a plain device copy moving @bytes in all (half read,
 * half written), rotated over 200 MB like the kernels' frames. */
static double
same_traffic_copy_us (size_t bytes)
{
  size_t half = bytes / 2, slots = std::max < size_t > (2, kRotateBytes / half);
  uint8_t *a, *b;
  CHECK (cudaMalloc (&a, half * slots));
  CHECK (cudaMalloc (&b, half * slots));
  CHECK (cudaMemset (a, 7, half * slots));
  double us = time_median_us ([&](int i) {
        size_t o = (i % slots) * half;
        CHECK (cudaMemcpyAsync (b + o, a + o, half, cudaMemcpyDeviceToDevice,
                0));
      }, g_reps);
  CHECK (cudaFree (a));
  CHECK (cudaFree (b));
  return us;
}

static int
rotation_count (size_t bytes_per_frame)
{
  return (int) std::max < size_t > (2,
      (kRotateBytes + bytes_per_frame - 1) / bytes_per_frame);
}

static Row
bench_gray (int w, int h, CfPackedLayout layout, const char *fmt,
    bool solid, double bandwidth, std::mt19937 & rng)
{
  size_t in_row = (size_t) w * layout.bytes_per_pixel;
  size_t bytes = in_row * h + (size_t) w * h;
  int n = rotation_count (bytes);
  Frames in (n, in_row, h), out (n, w, h);
  fill_frames (in, in_row, h, solid, rng);

  /* correct first: frame 0 against the CPU reference */
  std::vector < uint8_t > src (in.pitch * h), want (out.pitch * h),
      got (out.pitch * h);
  CHECK (cudaMemcpy (src.data (), in[0], src.size (), cudaMemcpyDeviceToHost));
  CHECK (cudaMemset (out[0], 0xa5, out.pitch * h));
  CfError err = cf_gray_from_packed (in[0], in.pitch, out[0], out.pitch, w, h,
      layout, CF_GRAY_MATRIX_BT709, nullptr);
  CHECK ((cudaError_t) err);
  CHECK (cudaMemcpy (got.data (), out[0], got.size (),
          cudaMemcpyDeviceToHost));
  cf_ref_gray_from_packed (src.data (), in.pitch, want.data (), out.pitch, w,
      h, layout, CF_GRAY_MATRIX_BT709);
  for (int y = 0; y < h; y++)
    if (std::memcmp (&got[y * out.pitch], &want[y * out.pitch], w) != 0) {
      std::fprintf (stderr, "gray %s %dx%d: GPU differs from the CPU "
          "reference in row %d\n", fmt, w, h, y);
      std::exit (1);
    }

  auto launch =[&](int i) {
    cf_gray_from_packed (in[i], in.pitch, out[i], out.pitch, w, h, layout,
        CF_GRAY_MATRIX_BT709, nullptr);
  };
  char size[32];
  std::snprintf (size, sizeof size, "%dx%d", w, h);
  return Row { std::string ("gray ") + fmt + "->GRAY8", size,
      solid ? "solid" : "random", (double) bytes,
      time_median_us (launch, g_reps), time_sustained_us (launch),
      bytes / bandwidth * 1e6, same_traffic_copy_us (bytes)};
}

/* The origin article's blur (seeds/001): one thread per output pixel, the
 * 2D weights staged in shared memory, every one of the (2r+1)^2 taps read
 * from global memory, clamp-to-edge borders, float arithmetic.  A timing
 * baseline only: its rounding is not ours. */
__global__ void
direct_stencil_rgba (const uchar4 * __restrict__ src, size_t src_pitch,
    uchar4 * __restrict__ dst, size_t dst_pitch, int w, int h,
    const float *__restrict__ weights, int r)
{
  extern __shared__ float sw[];
  int n = (2 * r + 1) * (2 * r + 1);
  for (int i = threadIdx.y * blockDim.x + threadIdx.x; i < n;
      i += blockDim.x * blockDim.y)
    sw[i] = weights[i];
  __syncthreads ();
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h)
    return;
  float4 acc = make_float4 (0, 0, 0, 0);
  for (int j = -r; j <= r; j++) {
    int yy = min (max (y + j, 0), h - 1);
    const uchar4 *row = (const uchar4 *) ((const char *) src + yy * src_pitch);
    for (int i = -r; i <= r; i++) {
      uchar4 p = row[min (max (x + i, 0), w - 1)];
      float wgt = sw[(j + r) * (2 * r + 1) + i + r];
      acc.x += wgt * p.x;
      acc.y += wgt * p.y;
      acc.z += wgt * p.z;
      acc.w += wgt * p.w;
    }
  }
  ((uchar4 *) ((char *) dst + y * dst_pitch))[x] =
      make_uchar4 (acc.x + 0.5f, acc.y + 0.5f, acc.z + 0.5f, acc.w + 0.5f);
}

static Row
bench_blur (int w, int h, double sigma, double bandwidth, std::mt19937 & rng,
    bool direct)
{
  const int C = 4;
  size_t row = (size_t) w * C, bytes = 2 * row * h;
  int n = rotation_count (bytes);
  Frames in (n, row, h), out (n, row, h);
  fill_frames (in, row, h, false, rng);
  int r = cf_blur_radius_for_sigma (sigma);
  CfBlurKernel kx, ky;
  cf_blur_kernel_make (sigma, r, CF_BLUR_H_BITS, &kx);
  cf_blur_kernel_make (sigma, r, CF_BLUR_V_BITS, &ky);
  const uint8_t bv[4] = { 0, 0, 0, 0 };
  void *scratch = nullptr;
  CHECK (cudaMalloc (&scratch, cf_blur_scratch_bytes (w, h, C)));
  char size[32], op[64];
  std::snprintf (size, sizeof size, "%dx%d", w, h);

  if (direct) {
    int k = 2 * r + 1;
    std::vector < float >wt (k * k);
    double g[2 * CF_BLUR_MAX_RADIUS + 1], sum = 0;
    for (int i = -r; i <= r; i++)
      sum += g[i + r] = std::exp (-i * i / (2 * sigma * sigma));
    for (int j = 0; j < k; j++)
      for (int i = 0; i < k; i++)
        wt[j * k + i] = (float) (g[j] * g[i] / (sum * sum));
    float *d_w;
    CHECK (cudaMalloc (&d_w, wt.size () * sizeof (float)));
    CHECK (cudaMemcpy (d_w, wt.data (), wt.size () * sizeof (float),
            cudaMemcpyHostToDevice));
    dim3 block (32, 8), grid ((w + 31) / 32, (h + 7) / 8);
    size_t smem = wt.size () * sizeof (float);
    auto launch =[&](int i) {
      direct_stencil_rgba <<<grid, block, smem >>> ((const uchar4 *) in[i],
          in.pitch, (uchar4 *) out[i], out.pitch, w, h, d_w, r);
    };
    std::snprintf (op, sizeof op, "blur direct 2D s%.1f r%d", sigma, r);
    Row row_out { op, size, "random", (double) bytes,
        time_median_us (launch, std::min (g_reps, 50)), 0,
        bytes / bandwidth * 1e6, 0 };
    row_out.sustained_us = row_out.median_us;
    CHECK (cudaFree (d_w));
    CHECK (cudaFree (scratch));
    return row_out;
  }

  /* correct first: frame 0 against the CPU reference */
  std::vector < uint8_t > src (in.pitch * h), want (out.pitch * h),
      got (out.pitch * h);
  CHECK (cudaMemcpy (src.data (), in[0], src.size (), cudaMemcpyDeviceToHost));
  CHECK ((cudaError_t) cf_blur_plane (in[0], in.pitch, out[0], out.pitch, w,
          h, C, &kx, &ky, CF_BORDER_REPLICATE, bv, scratch, nullptr));
  CHECK (cudaMemcpy (got.data (), out[0], got.size (),
          cudaMemcpyDeviceToHost));
  cf_ref_blur_plane (src.data (), in.pitch, want.data (), out.pitch, w, h, C,
      &kx, &ky, CF_BORDER_REPLICATE, bv);
  for (int y = 0; y < h; y++)
    if (std::memcmp (&got[y * out.pitch], &want[y * out.pitch], row) != 0) {
      std::fprintf (stderr, "blur sigma %g %dx%d: GPU differs from the CPU "
          "reference in row %d\n", sigma, w, h, y);
      std::exit (1);
    }

  auto launch =[&](int i) {
    cf_blur_plane (in[i], in.pitch, out[i], out.pitch, w, h, C, &kx, &ky,
        CF_BORDER_REPLICATE, bv, scratch, nullptr);
  };
  std::snprintf (op, sizeof op, "blur RGBA s%.1f r%d", sigma, r);
  Row res { op, size, "random", (double) bytes,
      time_median_us (launch, g_reps), time_sustained_us (launch),
      bytes / bandwidth * 1e6, same_traffic_copy_us (bytes)};
  CHECK (cudaFree (scratch));
  return res;
}

static Row
bench_luma_copy (int w, int h, double bandwidth, std::mt19937 & rng)
{
  size_t bytes = 2 * (size_t) w * h;
  int n = rotation_count (bytes);
  Frames in (n, w, h), out (n, w, h);
  fill_frames (in, w, h, false, rng);
  auto launch =[&](int i) {
    cf_copy_plane (in[i], in.pitch, out[i], out.pitch, w, h, nullptr);
  };
  char size[32];
  std::snprintf (size, sizeof size, "%dx%d", w, h);
  return Row { "gray NV12->GRAY8 (luma copy)", size, "random", (double) bytes,
      time_median_us (launch, g_reps), time_sustained_us (launch),
      bytes / bandwidth * 1e6, same_traffic_copy_us (bytes)};
}

/* Histograms of every channel; planes = 1 (packed, bpp bytes per pixel) or
 * NV12 (luma plane + interleaved chroma plane).  With cub, times CUB's
 * DeviceHistogram::MultiHistogramEven on the same packed frames instead. */
static Row
bench_hist (int w, int h, int bpp, bool nv12, bool solid, bool cub,
    double bandwidth, std::mt19937 & rng)
{
  size_t row = (size_t) w * (nv12 ? 1 : bpp);
  int rows = nv12 ? h + (h + 1) / 2 : h;
  size_t bytes = row * (size_t) rows;
  int n = rotation_count (bytes);
  Frames in (n, row, rows);
  fill_frames (in, row, rows, solid, rng);
  if (nv12 && solid) {
    /* a solid NV12 frame: one luma value, one chroma pair (U = V here) */
    uint8_t y = (uint8_t) rng (), c = (uint8_t) rng ();
    for (auto p:in.ptr) {
      CHECK (cudaMemset2D (p, in.pitch, y, row, h));
      CHECK (cudaMemset2D (p + in.pitch * h, in.pitch, c, row, rows - h));
    }
  }
  uint32_t *counts;
  void *ws;
  CHECK (cudaMalloc (&counts, sizeof (uint32_t) * CF_HIST_MAX_CHANNELS *
          CF_HIST_BINS));
  CHECK (cudaMalloc (&ws, cf_hist_workspace_bytes ()));
  CHECK ((cudaError_t) cf_hist_workspace_init (ws, nullptr));

  auto planes_of =[&](const uint8_t * frame, CfSamplePlane * pl) {
    int np = 1;
    pl[0] = CfSamplePlane { frame, in.pitch, w, h, nv12 ? 1 : bpp, {0, 1, 2, 3} };
    if (nv12) {
      pl[1] = CfSamplePlane { frame + in.pitch * h, in.pitch, (w + 1) / 2,
          (h + 1) / 2, 2, {1, 2, -1, -1} };
      np = 2;
    }
    return np;
  };

  /* correct first: frame 0 against the CPU reference */
  std::vector < uint8_t > src (in.pitch * rows);
  CHECK (cudaMemcpy (src.data (), in[0], src.size (), cudaMemcpyDeviceToHost));
  const int nc = CF_HIST_MAX_CHANNELS * CF_HIST_BINS;
  std::vector < uint32_t > want (nc), got (nc);
  CfSamplePlane pl[CF_HIST_MAX_PLANES];
  int np = planes_of (src.data (), pl);
  cf_ref_hist_planes (pl, np, want.data ());
  np = planes_of (in[0], pl);
  CHECK (cudaMemset (counts, 0xa5, sizeof (uint32_t) * nc));
  CHECK ((cudaError_t) cf_hist_planes (pl, np, counts, ws, nullptr));
  CHECK (cudaMemcpy (got.data (), counts, sizeof (uint32_t) * nc,
          cudaMemcpyDeviceToHost));
  if (got != want) {
    std::fprintf (stderr, "hist %dx%d: GPU differs from the CPU reference\n",
        w, h);
    std::exit (1);
  }

  char size[32], op[64];
  std::snprintf (size, sizeof size, "%dx%d", w, h);
  std::snprintf (op, sizeof op, "hist %s%s", nv12 ? "NV12" : bpp == 4 ?
      "RGBA" : bpp == 3 ? "RGB" : "GRAY8", cub ? " (CUB)" : "");
  std::function < void (int) > launch;
  void *temp = nullptr;
  size_t temp_bytes = 0;
  /* 256 bins of width 1 from 0: our bins */
  ::cuda::std::array < int *, 4 > cub_hist;
  ::cuda::std::array < int, 4 > levels = { 257, 257, 257, 257 },
      lower = { 0, 0, 0, 0 }, upper = { 256, 256, 256, 256 };
  if (cub) {
    for (auto & c:cub_hist)
      CHECK (cudaMalloc (&c, 256 * sizeof (int)));
    CHECK ((cub::DeviceHistogram::MultiHistogramEven < 4, 4 > (nullptr,
                temp_bytes, in[0], cub_hist, levels, lower, upper, w, h,
                in.pitch)));
    CHECK (cudaMalloc (&temp, temp_bytes));
    launch =[&](int i) {
      cub::DeviceHistogram::MultiHistogramEven < 4, 4 > (temp, temp_bytes,
          in[i], cub_hist, levels, lower, upper, w, h, in.pitch);
    };
    /* the same counts as ours, or the comparison means nothing */
    launch (0);
    for (int c = 0; c < 4; c++) {
      std::vector < int >ch (256);
      CHECK (cudaMemcpy (ch.data (), cub_hist[c], 256 * sizeof (int),
              cudaMemcpyDeviceToHost));
      for (int b = 0; b < 256; b++)
        if ((uint32_t) ch[b] != want[c * 256 + b]) {
          std::fprintf (stderr, "CUB's histogram differs from ours\n");
          std::exit (1);
        }
    }
  } else {
    launch =[&](int i) {
      CfSamplePlane p[CF_HIST_MAX_PLANES];
      int k = planes_of (in[i], p);
      cf_hist_planes (p, k, counts, ws, nullptr);
    };
  }
  Row res { op, size, solid ? "solid" : "random", (double) bytes,
      time_median_us (launch, g_reps), time_sustained_us (launch),
      bytes / bandwidth * 1e6, same_traffic_copy_us (bytes)};
  if (cub) {
    for (auto c:cub_hist)
      CHECK (cudaFree (c));
    CHECK (cudaFree (temp));
  }
  CHECK (cudaFree (counts));
  CHECK (cudaFree (ws));
  return res;
}

/* What a sum row times: cf_sum_planes, or a baseline adding up all of a
 * packed frame's bytes into one total (not per channel, no key). */
enum SumImpl
{
  SUM_OURS,
  SUM_CUB,                      /* cub::DeviceReduce::Sum */
  SUM_ORIGIN,                   /* origin_sum_bytes */
};

/* The origin article's fastest sum (seeds/000, sumOfCuda_v2): 16 blocks of
 * 256 threads, a grid-stride loop, each thread's total staged in shared
 * memory, a tree reduction per block, one atomicAdd per block.  Here the
 * frame is read as 32-bit words whose four bytes a thread adds to a 64-bit
 * total (the article adds floats into a double), so nothing overflows.  It
 * adds to *total: zero it first for a result.  A timing baseline only. */
static const int kOriginBlocks = 16, kOriginThreads = 256;

__global__ void
origin_sum_bytes (const uint32_t * __restrict__ words, size_t n,
    unsigned long long *total)
{
  __shared__ unsigned long long part[kOriginThreads];
  const size_t step = (size_t) gridDim.x * blockDim.x;
  unsigned long long s = 0;
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n;
      i += step) {
    uint32_t v = words[i];
    s += (v & 0xff) + ((v >> 8) & 0xff) + ((v >> 16) & 0xff) + (v >> 24);
  }
  part[threadIdx.x] = s;
  __syncthreads ();
  for (unsigned i = blockDim.x / 2; i != 0; i /= 2) {
    if (threadIdx.x < i)
      part[threadIdx.x] += part[threadIdx.x + i];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    atomicAdd (total, part[0]);
}

/* Prints every field where got differs from want; true when none does. */
static bool
sum_stats_equal (const char *what, const CfSumStats & got,
    const CfSumStats & want)
{
  bool ok = true;
  auto cmp =[&](const char *field, int c, unsigned long long g,
      unsigned long long r) {
    if (g != r) {
      std::fprintf (stderr, "%s: %s[%d] is %llu, the CPU reference %llu\n",
          what, field, c, g, r);
      ok = false;
    }
  };
  for (int c = 0; c < CF_HIST_MAX_CHANNELS; c++) {
    cmp ("sum", c, got.sum[c], want.sum[c]);
    cmp ("sum_squares", c, got.sum_squares[c], want.sum_squares[c]);
    cmp ("min", c, got.min[c], want.min[c]);
    cmp ("max", c, got.max[c], want.max[c]);
  }
  cmp ("black", 0, got.black, want.black);
  cmp ("abs_diff", 0, got.abs_diff, want.abs_diff);
  return ok;
}

/* Fails loudly where the first w bytes of a row of two pitched host planes
 * differ. */
static void
check_rows_equal (const char *what, const uint8_t * got, const uint8_t * want,
    size_t pitch, size_t w, int h)
{
  for (int y = 0; y < h; y++)
    if (std::memcmp (got + y * pitch, want + y * pitch, w) != 0) {
      std::fprintf (stderr, "%s: GPU differs from the CPU reference in "
          "row %d\n", what, y);
      std::exit (1);
    }
}

/* Fails loudly where two arrays of key sums differ. */
static void
check_sums_equal (const char *what, const char *which,
    const std::vector < uint32_t > &got, const std::vector < uint32_t > &want)
{
  for (size_t i = 0; i < got.size (); i++)
    if (got[i] != want[i]) {
      std::fprintf (stderr, "%s: %s[%zu] is %u, the CPU reference %u\n",
          what, which, i, got[i], want[i]);
      std::exit (1);
    }
}

/* Sums, squares, min and max of every channel, and the key statistics
 * `flags` ask for (BT.601 grey of RGB(A), the luma byte of NV12; black
 * threshold 24); planes = 1 (packed, bpp bytes per pixel) or NV12 (luma
 * plane + interleaved chroma plane).  The previous-keys buffers of DIFF and
 * KEEP rotate with the frames.  With impl SUM_CUB or SUM_ORIGIN, times a
 * one-total byte sum over the same packed frames instead. */
static Row
bench_sum (int w, int h, int bpp, bool nv12, bool solid, unsigned flags,
    SumImpl impl, double bandwidth, std::mt19937 & rng)
{
  const unsigned all = CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF |
      CF_SUM_KEEP;
  size_t row = (size_t) w * (nv12 ? 1 : bpp);
  int rows = nv12 ? h + (h + 1) / 2 : h;
  size_t frame_bytes = row * (size_t) rows;
  bool prev = (flags & (CF_SUM_DIFF | CF_SUM_KEEP)) != 0;
  size_t prev_pitch = ((size_t) w + 15) / 16 * 16;
  /* floor: the frame read, the previous keys read (DIFF) and the new ones
   * written (KEEP), the profiles written */
  size_t bytes = frame_bytes +
      ((flags & CF_SUM_DIFF) ? (size_t) w * h : 0) +
      ((flags & CF_SUM_KEEP) ? (size_t) w * h : 0) +
      ((flags & CF_SUM_PROFILES) ? sizeof (uint32_t) * ((size_t) w + h) : 0);
  int n = rotation_count (frame_bytes + (prev ? prev_pitch * h : 0));
  Frames in (n, row, rows);
  fill_frames (in, row, rows, solid, rng);
  if (nv12 && solid) {
    /* a solid NV12 frame: one luma value, one chroma pair (U = V here) */
    uint8_t y = (uint8_t) rng (), c = (uint8_t) rng ();
    for (auto p:in.ptr) {
      CHECK (cudaMemset2D (p, in.pitch, y, row, h));
      CHECK (cudaMemset2D (p + in.pitch * h, in.pitch, c, row, rows - h));
    }
  }

  char size[32], op[64], what[96];
  std::string fl;
  if (flags == all)
    fl = " all";
  else {
    const char *names[] = { "profiles", "black", "diff", "keep" };
    for (int b = 0; b < 4; b++)
      if (flags & (1u << b))
        fl += std::string (fl.empty ()? " " : "+") + names[b];
  }
  std::snprintf (size, sizeof size, "%dx%d", w, h);
  std::snprintf (op, sizeof op, "sum %s%s%s", nv12 ? "NV12" : bpp == 4 ?
      "RGBA" : bpp == 3 ? "RGB" : "GRAY8", impl == SUM_CUB ? " bytes (CUB)" :
      impl == SUM_ORIGIN ? " bytes (origin)" : "", fl.c_str ());
  std::snprintf (what, sizeof what, "%s %s", op, size);

  /* frame 0 on the host, for the CPU references */
  std::vector < uint8_t > src (in.pitch * rows);
  CHECK (cudaMemcpy (src.data (), in[0], src.size (), cudaMemcpyDeviceToHost));
  std::function < void (int) > launch;

  if (impl != SUM_OURS) {
    /* one run of bytes: the rows must be contiguous */
    if (nv12 || flags || in.pitch != row) {
      std::fprintf (stderr, "%s: the byte-sum baselines take packed frames "
          "without padding and no key\n", what);
      std::exit (1);
    }
    unsigned long long want = 0, got = 0, *total;
    for (uint8_t b:src)
      want += b;
    CHECK (cudaMalloc (&total, sizeof *total));
    void *temp = nullptr;
    size_t temp_bytes = 0;
    if (impl == SUM_CUB) {
      CHECK (cub::DeviceReduce::Sum (nullptr, temp_bytes,
              (const uint8_t *) in[0], total, (int) frame_bytes));
      CHECK (cudaMalloc (&temp, temp_bytes));
      launch =[&](int i) {
        cub::DeviceReduce::Sum (temp, temp_bytes, (const uint8_t *) in[i],
            total, (int) frame_bytes);
      };
    } else {
      /* adds to the total, launch after launch: zeroed for the check only */
      launch =[&](int i) {
        origin_sum_bytes <<<kOriginBlocks, kOriginThreads >>> ((const
                uint32_t *) in[i], frame_bytes / 4, total);
      };
    }
    /* the same total as the CPU's, or the comparison means nothing */
    CHECK (cudaMemset (total, 0xa5, sizeof *total));
    if (impl == SUM_ORIGIN)
      CHECK (cudaMemset (total, 0, sizeof *total));
    launch (0);
    CHECK (cudaGetLastError ());
    CHECK (cudaMemcpy (&got, total, sizeof got, cudaMemcpyDeviceToHost));
    if (got != want) {
      std::fprintf (stderr, "%s: the total is %llu, the CPU's %llu\n", what,
          got, want);
      std::exit (1);
    }
    Row res { op, size, solid ? "solid" : "random", (double) bytes,
        time_median_us (launch, g_reps), time_sustained_us (launch),
        bytes / bandwidth * 1e6, same_traffic_copy_us (bytes)};
    if (temp)
      CHECK (cudaFree (temp));
    CHECK (cudaFree (total));
    return res;
  }

  std::vector < uint8_t * >previous (prev ? n : 0);
  for (auto & p:previous) {
    CHECK (cudaMalloc (&p, prev_pitch * h));
    CHECK (cudaMemset (p, 0, prev_pitch * h));
  }
  CfSumStats *stats;
  uint32_t *row_sums, *column_sums;
  void *ws;
  size_t ws_bytes = cf_sum_workspace_bytes (w, h);
  CHECK (cudaMalloc (&stats, sizeof (CfSumStats)));
  CHECK (cudaMalloc (&row_sums, sizeof (uint32_t) * h));
  CHECK (cudaMalloc (&column_sums, sizeof (uint32_t) * w));
  CHECK (cudaMalloc (&ws, ws_bytes));
  CHECK (cudaMemset (ws, 0, ws_bytes));

  CfGrayWeights gw = cf_gray_weights (CF_GRAY_MATRIX_BT601);
  CfSumKey key = { flags, {gw.kr, gw.kg, gw.kb, 0}, 24, nullptr, prev_pitch };
  if (nv12) {
    /* one byte per pixel: the key is the luma, the weights unused */
    key.weights[0] = 65536;
    key.weights[1] = key.weights[2] = 0;
  }

  auto planes_of =[&](const uint8_t * frame, CfSamplePlane * pl) {
    int np = 1;
    pl[0] = CfSamplePlane { frame, in.pitch, w, h, nv12 ? 1 : bpp,
        {0, nv12 ? -1 : 1, nv12 ? -1 : 2, nv12 || bpp == 3 ? -1 : 3} };
    if (nv12) {
      pl[1] = CfSamplePlane { frame + in.pitch * h, in.pitch, (w + 1) / 2,
          (h + 1) / 2, 2, {1, 2, -1, -1} };
      np = 2;
    }
    return np;
  };

  /* correct first: frame 0 against the CPU reference */
  CfSamplePlane hp[CF_HIST_MAX_PLANES], dp[CF_HIST_MAX_PLANES];
  int np = planes_of (src.data (), hp);
  planes_of (in[0], dp);
  CfSumStats want, got;
  std::vector < uint8_t > prev_want, prev_got;
  if (prev) {
    /* `previous` holds keys: KEEP those of another frame first, so that
     * DIFF has something to differ from */
    std::vector < uint8_t > other (src.size ());
    for (auto & b:other)
      b = (uint8_t) rng ();
    uint8_t *d_other;
    CHECK (cudaMalloc (&d_other, other.size ()));
    CHECK (cudaMemcpy (d_other, other.data (), other.size (),
            cudaMemcpyHostToDevice));
    prev_want.assign (prev_pitch * h, 0);
    prev_got.resize (prev_pitch * h);
    CfSumKey keep = key;
    keep.flags = CF_SUM_KEEP;
    keep.previous = prev_want.data ();
    CfSamplePlane other_pl[CF_HIST_MAX_PLANES];
    planes_of (other.data (), other_pl);
    cf_ref_sum_planes (other_pl, np, &keep, &want, nullptr, nullptr);
    keep.previous = previous[0];
    planes_of (d_other, other_pl);
    CHECK (cudaMemset (stats, 0xa5, sizeof (CfSumStats)));
    CHECK ((cudaError_t) cf_sum_planes (other_pl, np, &keep, stats, nullptr,
            nullptr, ws, nullptr));
    CHECK (cudaMemcpy (&got, stats, sizeof got, cudaMemcpyDeviceToHost));
    CHECK (cudaMemcpy (prev_got.data (), previous[0], prev_got.size (),
            cudaMemcpyDeviceToHost));
    if (!sum_stats_equal (what, got, want))
      std::exit (1);
    check_rows_equal (what, prev_got.data (), prev_want.data (), prev_pitch,
        w, h);
    CHECK (cudaFree (d_other));
  }
  std::vector < uint32_t > rows_want (h), cols_want (w), rows_got (h),
      cols_got (w);
  CfSumKey hkey = key;
  hkey.previous = prev ? prev_want.data () : nullptr;
  cf_ref_sum_planes (hp, np, &hkey, &want, rows_want.data (),
      cols_want.data ());
  CfSumKey dkey = key;
  dkey.previous = prev ? previous[0] : nullptr;
  /* twice where the result does not change, so a workspace not left zeroed
   * shows */
  for (int run = 0; run < ((flags & CF_SUM_KEEP) ? 1 : 2); run++) {
    CHECK (cudaMemset (stats, 0xa5, sizeof (CfSumStats)));
    CHECK (cudaMemset (row_sums, 0xa5, sizeof (uint32_t) * h));
    CHECK (cudaMemset (column_sums, 0xa5, sizeof (uint32_t) * w));
    CHECK ((cudaError_t) cf_sum_planes (dp, np, &dkey, stats, row_sums,
            column_sums, ws, nullptr));
    CHECK (cudaMemcpy (&got, stats, sizeof got, cudaMemcpyDeviceToHost));
    if (!sum_stats_equal (what, got, want))
      std::exit (1);
    if (flags & CF_SUM_PROFILES) {
      CHECK (cudaMemcpy (rows_got.data (), row_sums, sizeof (uint32_t) * h,
              cudaMemcpyDeviceToHost));
      CHECK (cudaMemcpy (cols_got.data (), column_sums,
              sizeof (uint32_t) * w, cudaMemcpyDeviceToHost));
      check_sums_equal (what, "row_sums", rows_got, rows_want);
      check_sums_equal (what, "column_sums", cols_got, cols_want);
    }
    if (flags & CF_SUM_KEEP) {
      CHECK (cudaMemcpy (prev_got.data (), previous[0], prev_got.size (),
              cudaMemcpyDeviceToHost));
      check_rows_equal (what, prev_got.data (), prev_want.data (),
          prev_pitch, w, h);
    }
  }

  launch =[&](int i) {
    CfSamplePlane p[CF_HIST_MAX_PLANES];
    int k = planes_of (in[i], p);
    CfSumKey kk = key;
    if (prev)
      kk.previous = previous[i % previous.size ()];
    cf_sum_planes (p, k, &kk, stats, row_sums, column_sums, ws, nullptr);
  };
  Row res { op, size, solid ? "solid" : "random", (double) bytes,
      time_median_us (launch, g_reps), time_sustained_us (launch),
      bytes / bandwidth * 1e6, same_traffic_copy_us (bytes)};
  for (auto p:previous)
    CHECK (cudaFree (p));
  CHECK (cudaFree (stats));
  CHECK (cudaFree (row_sums));
  CHECK (cudaFree (column_sums));
  CHECK (cudaFree (ws));
  return res;
}

int
main (int argc, char **argv)
{
  const char *csv = nullptr, *only = nullptr;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp (argv[i], "--csv") && i + 1 < argc)
      csv = argv[++i];
    else if (!std::strcmp (argv[i], "--only") && i + 1 < argc)
      only = argv[++i];
    else if (!std::strcmp (argv[i], "--reps") && i + 1 < argc)
      g_reps = std::max (1, std::atoi (argv[++i]));
    else {
      std::fprintf (stderr, "usage: %s [--csv FILE] [--reps N] [--only NAME-PART]\n", argv[0]);
      return 2;
    }
  }
  if (cf_device_count () == 0) {
    std::fprintf (stderr, "kernel-bench: no CUDA device\n");
    return 1;
  }

  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  double bw = measure_copy_bandwidth ();
  std::printf ("GPU: %s, %d SMs, L2 %d MB; device-to-device copy: %.0f GB/s "
      "(read + write)\n", prop.name, prop.multiProcessorCount,
      prop.l2CacheSize >> 20, bw / 1e9);

  std::mt19937 rng (std::random_device {} ());
  const CfPackedLayout rgba = { 4, 0, 1, 2 }, rgb = { 3, 0, 1, 2 };
  /* each row by name, so --only can pick some (e.g. for a profiler) */
  std::vector < std::pair < std::string, std::function < Row () > > > cases = {
    {"gray RGBA 720p", [&] { return bench_gray (1280, 720, rgba, "RGBA", false, bw, rng); }},
    {"gray RGBA 1080p", [&] { return bench_gray (1920, 1080, rgba, "RGBA", false, bw, rng); }},
    {"gray RGBA 4K", [&] { return bench_gray (3840, 2160, rgba, "RGBA", false, bw, rng); }},
    {"gray RGBA 4K solid", [&] { return bench_gray (3840, 2160, rgba, "RGBA", true, bw, rng); }},
    {"gray RGBA 8K", [&] { return bench_gray (7680, 4320, rgba, "RGBA", false, bw, rng); }},
    {"gray RGB 4K", [&] { return bench_gray (3840, 2160, rgb, "RGB", false, bw, rng); }},
    {"gray NV12 4K", [&] { return bench_luma_copy (3840, 2160, bw, rng); }},
  };
  for (double sigma : {1.0, 2.0, 2.6, 5.0, 10.0, 20.0}) {
    char name[64];
    std::snprintf (name, sizeof name, "blur RGBA 4K s%.1f", sigma);
    cases.push_back ({name, [&, sigma] { return bench_blur (3840, 2160, sigma, bw, rng, false); }});
  }
  cases.push_back ({"blur RGBA 1080p s2.6", [&] { return bench_blur (1920, 1080, 2.6, bw, rng, false); }});
  cases.push_back ({"blur RGBA 1080p s5.0", [&] { return bench_blur (1920, 1080, 5.0, bw, rng, false); }});
  cases.push_back ({"blur direct 4K s2.0", [&] { return bench_blur (3840, 2160, 2.0, bw, rng, true); }});
  cases.push_back ({"blur direct 4K s2.6", [&] { return bench_blur (3840, 2160, 2.6, bw, rng, true); }});

  cases.push_back ({"hist RGBA 720p", [&] { return bench_hist (1280, 720, 4, false, false, false, bw, rng); }});
  cases.push_back ({"hist RGBA 1080p", [&] { return bench_hist (1920, 1080, 4, false, false, false, bw, rng); }});
  cases.push_back ({"hist RGBA 4K", [&] { return bench_hist (3840, 2160, 4, false, false, false, bw, rng); }});
  cases.push_back ({"hist RGBA 4K solid", [&] { return bench_hist (3840, 2160, 4, false, true, false, bw, rng); }});
  cases.push_back ({"hist RGBA 4K CUB", [&] { return bench_hist (3840, 2160, 4, false, false, true, bw, rng); }});
  cases.push_back ({"hist RGBA 4K CUB solid", [&] { return bench_hist (3840, 2160, 4, false, true, true, bw, rng); }});
  cases.push_back ({"hist RGBA 8K", [&] { return bench_hist (7680, 4320, 4, false, false, false, bw, rng); }});
  cases.push_back ({"hist RGB 4K", [&] { return bench_hist (3840, 2160, 3, false, false, false, bw, rng); }});
  cases.push_back ({"hist NV12 4K", [&] { return bench_hist (3840, 2160, 1, true, false, false, bw, rng); }});
  cases.push_back ({"hist NV12 4K solid", [&] { return bench_hist (3840, 2160, 1, true, true, false, bw, rng); }});

  const unsigned all = CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF | CF_SUM_KEEP;
  cases.push_back ({"sum RGBA 720p", [&] { return bench_sum (1280, 720, 4, false, false, 0, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum RGBA 1080p", [&] { return bench_sum (1920, 1080, 4, false, false, 0, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum RGBA 4K", [&] { return bench_sum (3840, 2160, 4, false, false, 0, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum RGBA 4K solid", [&] { return bench_sum (3840, 2160, 4, false, true, 0, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum NV12 4K", [&] { return bench_sum (3840, 2160, 1, true, false, 0, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum RGB 4K", [&] { return bench_sum (3840, 2160, 3, false, false, 0, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum RGBA 4K profiles", [&] { return bench_sum (3840, 2160, 4, false, false, CF_SUM_PROFILES, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum RGBA 4K profiles+black", [&] { return bench_sum (3840, 2160, 4, false, false, CF_SUM_PROFILES | CF_SUM_BLACK, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum RGBA 4K all", [&] { return bench_sum (3840, 2160, 4, false, false, all, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum NV12 4K all", [&] { return bench_sum (3840, 2160, 1, true, false, all, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum RGBA 1080p all", [&] { return bench_sum (1920, 1080, 4, false, false, all, SUM_OURS, bw, rng); }});
  cases.push_back ({"sum RGBA 4K CUB DeviceReduce::Sum", [&] { return bench_sum (3840, 2160, 4, false, false, 0, SUM_CUB, bw, rng); }});
  cases.push_back ({"sum RGBA 4K origin article", [&] { return bench_sum (3840, 2160, 4, false, false, 0, SUM_ORIGIN, bw, rng); }});

  std::vector < Row > rows;
  for (auto & c:cases)
    if (!only || c.first.find (only) != std::string::npos)
      rows.push_back (c.second ());

  FILE *f = csv ? std::fopen (csv, "w") : nullptr;
  if (f)
    std::fprintf (f, "gpu,op,size,content,bytes,launch_us,sustained_us,"
        "floor_us,copy_us\n");
  std::printf ("\n%-29s %-9s %-6s %6s | %8s %6s | %9s %6s | %8s | %8s %6s\n",
      "op", "size", "data", "MB", "launch", "xfloor", "sustained", "xfloor",
      "floor", "copy", "xcopy");
  for (auto & r:rows) {
    std::printf ("%-29s %-9s %-6s %6.1f | %8.2f %6.2f | %9.2f %6.2f | "
        "%8.2f | %8.2f %6.2f\n", r.op.c_str (), r.size.c_str (),
        r.content.c_str (), r.bytes / 1e6, r.median_us,
        r.median_us / r.floor_us, r.sustained_us, r.sustained_us / r.floor_us,
        r.floor_us, r.copy_us, r.median_us / r.copy_us);
    if (f)
      std::fprintf (f, "\"%s\",\"%s\",%s,%s,%.0f,%.3f,%.3f,%.3f,%.3f\n",
          prop.name, r.op.c_str (), r.size.c_str (), r.content.c_str (),
          r.bytes, r.median_us, r.sustained_us, r.floor_us, r.copy_us);
  }
  std::printf ("(times in microseconds; launch = one launch between events, "
      "sustained = back-to-back launches; floor = bytes / copy bandwidth; "
      "copy = a device copy moving the same bytes, per launch)\n");
  if (f)
    std::fclose (f);
  return 0;
}
