/* Experiment (not part of the plugin, nor of the build): the statistics of
 * a tight RGBA frame (per channel sum, sum of squares, min and max) by a
 * lean kernel of short-lived blocks, U 16-byte vectors a thread, all loaded
 * before any is counted, the blocks adding into 1 or COPIES sets of totals;
 * against a plain read of the frame (read4) and cf_sum_planes_add, timed as
 * kernel-bench times (events around each launch, all queued; median of 200
 * after 30; frames rotated over >= 256 MB).  Each statistics variant is
 * checked against the host's before it is timed.  It includes
 * kernels/sum.cu for its word-level helpers and kernels.
 *
 * Run as `stats-stream pieces`, it takes the plugin's statistics kernel
 * apart instead: bis<U, F, MINB> is the lean kernel with one piece of the
 * plugin's added per flag of F: ZERO, zeroing a later launch's sums first;
 * TOTALS, the plugin's add_block_totals (with its 17 KB BlockShared); LDG,
 * __ldg loads; LOOKUP, finding the block's plane in LaunchArgs; BIGSH, 16
 * KB more of shared memory that nothing uses; SIZET, 64-bit indices as the
 * lean kernel's own; FAST, blocks wholly in the frame without a check a
 * vector; beside them the plugin's statistics_kernel launched directly.
 *
 * Built by hand, from the project root:
 *   nvcc -O3 -std=c++17 -gencode=arch=compute_90,code=sm_90 -Ikernels \
 *     -o stats-stream bench/experiments/stats-stream.cu
 * Results: docs/history/notes.md, cudasum v8 (the U and copies) and v9
 * (pieces). */
#include "../../kernels/sum/sum.cu"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "experiment.cuh"

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

/* A thread's statistics of its U vectors of the block's run, strided by
 * the block (coalesced), with 64-bit indices: the experiment's lean
 * counting, which `pieces` also times inside the plugin's pieces */
template < int U > __device__ __forceinline__ void
count_lean (const uint4 * frame, size_t vectors, Totals & t)
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
  totals_init (t);
  word_acc_fold_sums < 4 > (wa, t);
  word_acc_fold_rest < 4 > (wa, t);
}

/* A block's totals added to 4 sums, squares, inverted minima and maxima
 * in global memory: warp shuffles, then one atomic a value (the lean
 * kernel's end, lighter than the plugin's add_block_totals) */
__device__ __forceinline__ void
lean_block_totals (const Totals & t, unsigned long long *sum,
    unsigned long long *sq, unsigned int *inv_min, unsigned int *max_)
{
  __shared__ uint32_t sh[kT / 32][16];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int c = 0; c < 4; c++) {
    const uint32_t s = warp_add (t.sum[c]), q = warp_add (t.sq[c]);
    const uint32_t mn = warp_min (t.mn[c]), mx = warp_max (t.mx[c]);
    if (lane == 0) {
      sh[warp][c] = s;
      sh[warp][4 + c] = q;
      sh[warp][8 + c] = 255 - mn;
      sh[warp][12 + c] = mx;
    }
  }
  __syncthreads ();
  const int i = threadIdx.x;
  if (i >= 16)
    return;
  if (i >= 8) {
    uint32_t m = 0;
#pragma unroll
    for (int w = 0; w < kT / 32; w++)
      m = max (m, sh[w][i]);
    atomicMax (i < 12 ? &inv_min[i - 8] : &max_[i - 12], m);
  } else {
    unsigned long long s = 0;
#pragma unroll
    for (int w = 0; w < kT / 32; w++)
      s += sh[w][i];
    atomicAdd (i < 4 ? &sum[i] : &sq[i - 4], s);
  }
}

/* U vectors a thread, strided by the block (coalesced) */
template < int U, int COPIES, int MINB > __global__ void
__launch_bounds__ (kT, MINB)
stats (const uint4 * frame, size_t vectors, Out * out)
{
  Totals t;
  count_lean < U > (frame, vectors, t);

  Out *o = out + blockIdx.x % COPIES;
  lean_block_totals (t, o->sum, o->sq, o->inv_min, o->max);
}

/* U vectors a thread of a tight plane from src (thread's first), counted;
 * with CHECKED, those past total are left out */
template < int U, bool CHECKED, bool LDG_ > __device__ __forceinline__ void
count_vectors (const uint4 * src, int first, int total, Totals & t)
{
  uint4 v[U];
#pragma unroll
  for (int u = 0; u < U; u++) {
    if (CHECKED && first + u * kT >= total)
      v[u] = make_uint4 (0, 0, 0, 0);
    else if (LDG_)
      v[u] = __ldg (src + u * kT);
    else
      v[u] = src[u * kT];
  }
  WordAcc wa;
  word_acc_init (wa);
#pragma unroll
  for (int u = 0; u < U; u++) {
    const uint32_t w[4] = { v[u].x, v[u].y, v[u].z, v[u].w };
    const uint32_t missing = !CHECKED || first + u * kT < total ? 0u :
        0xffffffffu;
#pragma unroll
    for (int j = 0; j < 4; j++)
      word_acc_add < 4 > (wa, w[j], w[j] | missing);
    word_acc_add_pair (wa, w[0], w[1]);
    word_acc_add_pair (wa, w[2], w[3]);
  }
  totals_init (t);
  word_acc_fold_sums < 4 > (wa, t);
  word_acc_fold_rest < 4 > (wa, t);
}

enum { ZERO = 1, TOTALS = 2, LDG = 4, LOOKUP = 8, BIGSH = 16, SIZET = 32,
  FAST = 64 };

/* the lean kernel with the pieces F names (see the head of the file) */
template < int U, int F, int MINB > __global__ void
__launch_bounds__ (kT, MINB)
bis (LaunchArgs args, Workspace * ws)
{
  if constexpr ((F & ZERO) != 0)
    cf_grid_zero_words (args.zero_next, args.zero_words);
  int p = 0;
  if constexpr ((F & LOOKUP) != 0) {
    if ((int) blockIdx.x >= args.blocks)
      return;
    while (p + 1 < args.n_planes && (int) blockIdx.x >=
        args.plane[p + 1].first_block)
      p++;
  }
  const PlaneArgs & pl = args.plane[p];
  const int vectors_per_row = pl.row_bytes / 16;
  const int total = vectors_per_row * pl.rows;
  const int first = ((int) blockIdx.x - pl.first_block) * kT * U +
      (int) threadIdx.x;
  Totals t;
  if constexpr ((F & SIZET) != 0) {
    /* the experiment's own kernel: 64-bit indices */
    count_lean < U > (reinterpret_cast < const uint4 * >(pl.data),
        (size_t) total, t);
  } else if constexpr ((F & FAST) != 0) {
    const int block_first = ((int) blockIdx.x - pl.first_block) * kT * U;
    const uint4 *src = reinterpret_cast < const uint4 * >(pl.data) + first;
    if (block_first + kT * U <= total)
      count_vectors < U, false, (F & LDG) != 0 > (src, first, total, t);
    else
      count_vectors < U, true, (F & LDG) != 0 > (src, first, total, t);
  } else {
    const uint4 *src = reinterpret_cast < const uint4 * >(pl.data) + first;
    count_vectors < U, true, (F & LDG) != 0 > (src, first, total, t);
  }
  if constexpr ((F & TOTALS) != 0) {
    __shared__ BlockShared sh;
    add_block_totals < 4, false > (pl, t, ws, sh);
  } else {
    if constexpr ((F & BIGSH) != 0) {
      /* used only where the arguments never are, so that it is kept */
      __shared__ uint32_t pad[4096];
      if (args.n_planes == 77) {
        pad[threadIdx.x] = t.sum[0];
        __syncthreads ();
        t.sum[0] = pad[(threadIdx.x + 1) & 255];
      }
    }
    lean_block_totals (t, ws->sum, ws->sum_squares, ws->inv_min, ws->max);
  }
}

template < class L > float
queued_us (L launch)
{
  return queued_ms (30, 200, launch) * 1e3f;
}
}

int
main (int argc, char **argv)
{
  /* "pieces": the plugin's kernel taken apart instead of U and copies */
  const bool pieces = argc > 1 && std::string (argv[1]) == "pieces";
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
    if (pieces) {
      run_stats ("stats U8 c1", stats < 8, 1, 4 >, 8, 1);
      run_stats ("stats U16 c1", stats < 16, 1, 2 >, 16, 1);
    } else {
      run_stats ("stats U2 c1", stats < 2, 1, 8 >, 2, 1);
      run_stats ("stats U4 c1", stats < 4, 1, 8 >, 4, 1);
      run_stats ("stats U4 c8", stats < 4, 8, 8 >, 4, 8);
      run_stats ("stats U8 c8", stats < 8, 8, 4 >, 8, 8);
      run_stats ("stats U12 c8", stats < 12, 8, 2 >, 12, 8);
      run_stats ("stats U16 c1", stats < 16, 1, 2 >, 16, 1);
      run_stats ("stats U16 c8", stats < 16, 8, 2 >, 16, 8);
      run_stats ("stats U16 c16", stats < 16, 16, 2 >, 16, 16);
    }

    /* the pieces, each launched directly with the plugin's arguments */
    if (pieces) {
      const size_t wsb = (cf_sum_workspace_bytes (sz.w, sz.h) + 255) / 256 *
          256;
      uint8_t *wsm;
      CHECK (cudaMalloc (&wsm, 3 * wsb));
      auto args_for =[&](int f, int u) {
        LaunchArgs a = { };
        a.n_planes = 1;
        PlaneArgs & pl = a.plane[0];
        pl.data = frame[f];
        pl.pitch = (size_t) sz.w * 4;
        pl.row_bytes = sz.w * 4;
        pl.rows = sz.h;
        pl.bpp = 4;
        for (int b = 0; b < 4; b++)
          pl.channel[b] = b;
        pl.first_block = 0;
        pl.vectors = true;
        pl.row_of_vector = UINT64_MAX / (uint64_t) (pl.row_bytes / 16) + 1;
        a.blocks = (int) ((vectors + (size_t) kT * u - 1) / ((size_t) kT * u));
        a.zero_next = (uint32_t *) (wsm + 2 * wsb);
        a.zero_words = wsb / 4;
        return a;
      };
      auto run_bis =[&](const char *name, auto kernel, int u) {
        const int grid = (int) ((vectors + (size_t) kT * u - 1) /
            ((size_t) kT * u));
        CHECK (cudaMemset (wsm, 0, 3 * wsb));
        kernel <<< grid, kT >>> (args_for (last, u), (Workspace *) wsm);
        CHECK (cudaGetLastError ());
        Workspace got;
        CHECK (cudaMemcpy (&got, wsm, sizeof got, cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int c = 0; c < 4; c++)
          ok = ok && got.sum[c] == want_sum[c] && got.sum_squares[c] ==
              want_sq[c] && 255 - got.inv_min[c] == want_min[c] &&
              got.max[c] == want_max[c];
        const float us = queued_us ([&](int r) {
              kernel <<< grid, kT >>> (args_for (r % frames, u),
                  (Workspace *) (wsm + (r % 2) * wsb));});
        int per_sm = 0;
        CHECK (cudaOccupancyMaxActiveBlocksPerMultiprocessor (&per_sm, kernel,
                kT, 0));
        std::printf ("%s %s: %.2f us (%d blocks, %d per SM)%s\n", sz.name,
            name, us, grid, per_sm, ok ? "" : "  WRONG");
      };
      /* the plugin's kernel (kRunVectors a thread), tight rows and rows a
       * vector at a time, and its kernel for mixed planes */
      run_bis ("intree statistics_kernel<4,flat>", statistics_kernel < 4,
          true >, kRunVectors);
      run_bis ("intree statistics_kernel<4,rows>", statistics_kernel < 4,
          false >, kRunVectors);
      run_bis ("intree statistics_kernel<0,flat>", statistics_kernel < 0,
          true >, kRunVectors);
      run_bis ("bis16 sizet", bis < 16, SIZET, 2 >, 16);
      run_bis ("bis16 plain", bis < 16, 0, 2 >, 16);
      run_bis ("bis16 fast", bis < 16, FAST, 2 >, 16);
      run_bis ("bis16 bigsh", bis < 16, BIGSH, 2 >, 16);
      run_bis ("bis16 ldg", bis < 16, LDG, 2 >, 16);
      run_bis ("bis16 totals", bis < 16, TOTALS, 2 >, 16);
      run_bis ("bis16 zero", bis < 16, ZERO, 2 >, 16);
      run_bis ("bis16 lookup", bis < 16, LOOKUP, 2 >, 16);
      run_bis ("bis16 all", bis < 16, ZERO | TOTALS | LDG | LOOKUP, 2 >, 16);
      run_bis ("bis8 sizet", bis < 8, SIZET, 4 >, 8);
      run_bis ("bis8 plain", bis < 8, 0, 4 >, 8);
      run_bis ("bis8 fast", bis < 8, FAST, 4 >, 8);
      run_bis ("bis8 fast+zero", bis < 8, FAST | ZERO, 4 >, 8);
      run_bis ("bis8 fast+totals", bis < 8, FAST | TOTALS, 4 >, 8);
      run_bis ("bis8 fast+lookup", bis < 8, FAST | LOOKUP, 4 >, 8);
      run_bis ("bis8 fast+zero+totals+lookup", bis < 8,
          FAST | ZERO | TOTALS | LOOKUP, 4 >, 8);
      run_bis ("bis8 fast+bigsh", bis < 8, FAST | BIGSH, 4 >, 8);
      CHECK (cudaFree (wsm));
    }
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
