/* Experiment (not part of the plugin, nor of the build): the statistics of
 * a tight RGBA frame (per channel sum, sum of squares, min and max) by a
 * lean kernel of short-lived blocks, U 16-byte vectors a thread, all loaded
 * before any is counted, the blocks adding into 1 or COPIES sets of totals;
 * against a plain read of the frame (read4) and cf_sum_planes_add, timed as
 * kernel-bench times (events around each launch, all queued; median of 200
 * after 30; frames rotated over >= 256 MB).  Each statistics variant is
 * checked against the host's before it is timed.  It includes
 * kernels/sum.cu for its word-level helpers.  Built by hand, from the
 * project root:
 *   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Ikernels \
 *     -o stats-stream bench/experiments/stats-stream.cu
 * Results: docs/notes.md, cudasum v8. */
#include "../../kernels/sum.cu"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
  std::fprintf (stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorName (e_)); \
  std::exit (2); } } while (0)

namespace {
constexpr int kT = 256;

struct Out
{
  unsigned long long sum[4], sq[4];
  unsigned int inv_min[4], max[4];
  unsigned int pad[24];         /* 256 bytes a copy */
};

__global__ void
__launch_bounds__ (kT)
read4 (const uint4 * frame, size_t vectors, unsigned *out)
{
  const size_t base = (size_t) blockIdx.x * kT * 4 + threadIdx.x;
  uint4 v[4];
#pragma unroll
  for (int u = 0; u < 4; u++) {
    const size_t i = base + (size_t) u * kT;
    v[u] = i < vectors ? frame[i] : make_uint4 (0, 0, 0, 0);
  }
  unsigned s = 0;
#pragma unroll
  for (int u = 0; u < 4; u++)
    s += v[u].x + v[u].y + v[u].z + v[u].w;
  __shared__ unsigned ws[kT / 32];
  s = warp_add (s);
  if ((threadIdx.x & 31) == 0)
    ws[threadIdx.x >> 5] = s;
  __syncthreads ();
  if (threadIdx.x == 0) {
    unsigned t = 0;
    for (int w = 0; w < kT / 32; w++)
      t += ws[w];
    atomicAdd (out, t);
  }
}

/* U vectors a thread, strided by the block (coalesced) */
template < int U, int COPIES, int MINB > __global__ void
__launch_bounds__ (kT, MINB)
stats (const uint4 * frame, size_t vectors, Out * out)
{
  const size_t base = (size_t) blockIdx.x * kT * U + threadIdx.x;
  uint4 v[U];
#pragma unroll
  for (int u = 0; u < U; u++) {
    const size_t i = base + (size_t) u * kT;
    v[u] = i < vectors ? frame[i] : make_uint4 (0, 0, 0, 0);
  }
  WordAcc wa;
  word_acc_init (wa);
  bool any[U];
#pragma unroll
  for (int u = 0; u < U; u++)
    any[u] = base + (size_t) u * kT < vectors;
#pragma unroll
  for (int u = 0; u < U; u++) {
    const uint32_t w[4] = { v[u].x, v[u].y, v[u].z, v[u].w };
    const uint32_t missing = any[u] ? 0u : 0xffffffffu;
#pragma unroll
    for (int j = 0; j < 4; j++)
      word_acc_add < 4 > (wa, w[j], w[j] | missing);
    word_acc_add_pair (wa, w[0], w[1]);
    word_acc_add_pair (wa, w[2], w[3]);
  }
  Totals t;
  totals_init (t);
  word_acc_fold_sums < 4 > (wa, t);
  word_acc_fold_rest < 4 > (wa, t);

  __shared__ uint32_t sh[kT / 32][16];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int p = 0; p < 4; p++) {
    const uint32_t s = warp_add (t.sum[p]), q = warp_add (t.sq[p]);
    const uint32_t mn = warp_min (t.mn[p]), mx = warp_max (t.mx[p]);
    if (lane == 0) {
      sh[warp][p] = s;
      sh[warp][4 + p] = q;
      sh[warp][8 + p] = 255 - mn;
      sh[warp][12 + p] = mx;
    }
  }
  __syncthreads ();
  const int i = threadIdx.x;
  if (i >= 16)
    return;
  Out *o = out + blockIdx.x % COPIES;
  if (i >= 8) {
    uint32_t m = 0;
#pragma unroll
    for (int w = 0; w < kT / 32; w++)
      m = max (m, sh[w][i]);
    atomicMax (i < 12 ? &o->inv_min[i - 8] : &o->max[i - 12], m);
  } else {
    unsigned long long s = 0;
#pragma unroll
    for (int w = 0; w < kT / 32; w++)
      s += sh[w][i];
    atomicAdd (i < 4 ? &o->sum[i] : &o->sq[i - 4], s);
  }
}

float
median (std::vector < float >t)
{
  std::sort (t.begin (), t.end ());
  return t[t.size () / 2];
}

template < class L > float
queued_us (L launch)
{
  const int warm = 30, runs = 200;
  std::vector < cudaEvent_t > ev (2 * runs);
  for (auto & e:ev)
    CHECK (cudaEventCreate (&e));
  for (int r = 0; r < warm; r++)
    launch (r);
  for (int r = 0; r < runs; r++) {
    CHECK (cudaEventRecord (ev[2 * r]));
    launch (warm + r);
    CHECK (cudaEventRecord (ev[2 * r + 1]));
  }
  CHECK (cudaDeviceSynchronize ());
  std::vector < float >t;
  for (int r = 0; r < runs; r++) {
    float ms;
    CHECK (cudaEventElapsedTime (&ms, ev[2 * r], ev[2 * r + 1]));
    t.push_back (ms * 1e3f);
  }
  for (auto e:ev)
    CHECK (cudaEventDestroy (e));
  return median (t);
}
}

int
main ()
{
  int sms;
  CHECK (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, 0));
  const struct { const char *name; int w, h; } sizes[] = {
    {"1080p", 1920, 1080}, {"4K", 3840, 2160}, {"8K", 7680, 4320},
  };
  for (auto & sz:sizes) {
    const size_t bytes = (size_t) sz.w * sz.h * 4, vectors = bytes / 16;
    const int frames = (int) std::max < size_t > (3, ((256u << 20) + bytes -
            1) / bytes);
    std::vector < uint8_t * >frame (frames);
    std::vector < uint8_t > host (bytes);
    uint32_t x = 777;
    for (int f = 0; f < frames; f++) {
      for (auto & b:host) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b = (uint8_t) x;
      }
      CHECK (cudaMalloc (&frame[f], bytes));
      CHECK (cudaMemcpy (frame[f], host.data (), bytes,
              cudaMemcpyHostToDevice));
    }
    /* the reference of the last frame filled */
    unsigned long long want_sum[4] = { 0 }, want_sq[4] = { 0 };
    unsigned want_min[4] = { 255, 255, 255, 255 }, want_max[4] = { 0 };
    for (size_t i = 0; i < bytes; i++) {
      const unsigned v = host[i], c = i & 3;
      want_sum[c] += v;
      want_sq[c] += v * v;
      want_min[c] = std::min (want_min[c], v);
      want_max[c] = std::max (want_max[c], v);
    }
    const int last = frames - 1;
    unsigned *total;
    CHECK (cudaMalloc (&total, 4));
    Out *outs;
    CHECK (cudaMalloc (&outs, 32 * sizeof (Out)));

    std::printf ("%s read4: %.2f us\n", sz.name, queued_us ([&](int r) {
              read4 <<< (int) ((vectors + kT * 4 - 1) / (kT * 4)), kT >>>
              ((const uint4 *) frame[r % frames], vectors, total);}));

    auto run_stats =[&](const char *name, auto kernel, int u, int copies) {
      const int grid = (int) ((vectors + (size_t) kT * u - 1) / ((size_t) kT * u));
      CHECK (cudaMemset (outs, 0, 32 * sizeof (Out)));
      kernel <<< grid, kT >>> ((const uint4 *) frame[last], vectors, outs);
      CHECK (cudaGetLastError ());
      std::vector < Out > got (16);
      CHECK (cudaMemcpy (got.data (), outs, 16 * sizeof (Out),
              cudaMemcpyDeviceToHost));
      bool ok = true;
      for (int c = 0; c < 4; c++) {
        unsigned long long s = 0, q = 0;
        unsigned mn = 0, mx = 0;
        for (int k = 0; k < copies; k++) {
          s += got[k].sum[c];
          q += got[k].sq[c];
          mn = std::max (mn, got[k].inv_min[c]);
          mx = std::max (mx, got[k].max[c]);
        }
        ok = ok && s == want_sum[c] && q == want_sq[c] && 255 - mn ==
            want_min[c] && mx == want_max[c];
      }
      const float us = queued_us ([&](int r) {
            kernel <<< grid, kT >>> ((const uint4 *) frame[r % frames],
                vectors, outs + (r % 2) * 16);});
      int per_sm = 0;
      CHECK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel,
              kT, 0));
      std::printf ("%s %s: %.2f us (%d blocks, %d per SM)%s\n", sz.name, name,
          us, grid, per_sm, ok ? "" : "  WRONG");
    };
    run_stats ("stats U2 c1", stats < 2, 1, 8 >, 2, 1);
    run_stats ("stats U4 c1", stats < 4, 1, 8 >, 4, 1);
    run_stats ("stats U4 c8", stats < 4, 8, 8 >, 4, 8);
    run_stats ("stats U8 c8", stats < 8, 8, 4 >, 8, 8);
    run_stats ("stats U12 c8", stats < 12, 8, 2 >, 12, 8);
    run_stats ("stats U16 c1", stats < 16, 1, 2 >, 16, 1);
    run_stats ("stats U16 c8", stats < 16, 8, 2 >, 16, 8);
    run_stats ("stats U16 c16", stats < 16, 16, 2 >, 16, 16);

    /* ours, as kernel-bench's "ours" row */
    {
      CfSamplePlane p = { };
      p.data = frame[0];
      p.pitch = (size_t) sz.w * 4;
      p.width = sz.w;
      p.height = sz.h;
      p.bytes_per_pixel = 4;
      for (int b = 0; b < 4; b++)
        p.channel[b] = b;
      const size_t sb = (cf_sum_workspace_bytes (sz.w, sz.h) + 255) / 256 * 256;
      uint8_t *sums;
      CHECK (cudaMalloc (&sums, 3 * sb));
      CHECK (cudaMemset (sums, 0, 3 * sb));
      std::printf ("%s cf_sum_planes_add: %.2f us\n", sz.name,
          queued_us ([&](int r) {
                p.data = frame[r % frames];
                CHECK ((cudaError_t) cf_sum_planes_add (&p, 1, nullptr, sums + (r % 3) * sb,
                        sums + ((r + 1) % 3) * sb, sb, nullptr));}));
      CHECK (cudaFree (sums));
    }
    for (auto f:frame)
      CHECK (cudaFree (f));
    CHECK (cudaFree (total));
    CHECK (cudaFree (outs));
  }
  return 0;
}
