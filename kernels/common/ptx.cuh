/* Inline-PTX wrappers: tensor-core products (mma), ldmatrix, cp.async and
 * mbarrier.  Generic, for any kernel of the plugin.  Each compiles to the
 * one instruction (or loop) it names on the architectures that have it,
 * and to nothing (or zeros) before: a kernel that uses them is built for
 * every architecture but launched only where the instructions exist. */
#ifndef CUDAFILTERS_PTX_CUH
#define CUDAFILTERS_PTX_CUH

#include <stdint.h>

namespace cf {

/* ---- tensor-core products --------------------------------------------- */

/* d = a b + c, in 32-bit integers (m16n8k32, unsigned bytes); c may be d */
__device__ __forceinline__ void
mma_u8 (int (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1,
    const int *c)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=r" (d[0]), "=r" (d[1]), "=r" (d[2]), "=r" (d[3])
      : "r" (a[0]), "r" (a[1]), "r" (a[2]), "r" (a[3]), "r" (b0), "r" (b1),
      "r" (c[0]), "r" (c[1]), "r" (c[2]), "r" (c[3]));
#endif
}

/* The same with k = 16: A's registers 0 and 1 (its columns 0 .. 15) and
 * B's register 0 (rows 0 .. 15), in the same places as k = 32's */
__device__ __forceinline__ void
mma_u8_k16 (int (&d)[4], const uint32_t (&a)[4], uint32_t b0, const int *c)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mma.sync.aligned.m16n8k16.row.col.s32.u8.u8.s32 "
      "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};\n"
      : "=r" (d[0]), "=r" (d[1]), "=r" (d[2]), "=r" (d[3])
      : "r" (a[0]), "r" (a[1]), "r" (b0),
      "r" (c[0]), "r" (c[1]), "r" (c[2]), "r" (c[3]));
#endif
}

/* d = a b + c with half-precision operands, summed in 32-bit floats
 * (m16n8k16); c may be d */
__device__ __forceinline__ void
mma_f16 (float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1,
    const float *c)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=f" (d[0]), "=f" (d[1]), "=f" (d[2]), "=f" (d[3])
      : "r" (a[0]), "r" (a[1]), "r" (a[2]), "r" (a[3]), "r" (b0), "r" (b1),
      "f" (c[0]), "f" (c[1]), "f" (c[2]), "f" (c[3]));
#endif
}

/* ---- ldmatrix ---------------------------------------------------------- */

/* 4 matrices of 8 rows of 16 bytes from shared memory.  Lane l gives the
 * address of row l % 8 of matrix l / 8 (16-byte aligned), and receives
 * word t of row g of each: exactly an MMA fragment register. */
__device__ __forceinline__ void
ldsm_x4 (uint32_t (&r)[4], const void *row)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
      "{%0,%1,%2,%3}, [%4];\n"
      : "=r" (r[0]), "=r" (r[1]), "=r" (r[2]), "=r" (r[3])
      : "r" ((uint32_t) __cvta_generic_to_shared (row)));
#else
  r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

/* The same from a shared-memory address (a 32-bit shared window offset) */
__device__ __forceinline__ void
ldsm_x4_at (uint32_t (&r)[4], uint32_t row)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
      "{%0,%1,%2,%3}, [%4];\n"
      : "=r" (r[0]), "=r" (r[1]), "=r" (r[2]), "=r" (r[3])
      : "r" (row));
#else
  r[0] = r[1] = r[2] = r[3] = 0;
  (void) row;
#endif
}

/* 2 matrices (the B operands of a byte product) */
__device__ __forceinline__ void
ldsm_x2 (uint32_t & r0, uint32_t & r1, const void *row)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
      : "=r" (r0), "=r" (r1)
      : "r" ((uint32_t) __cvta_generic_to_shared (row)));
#else
  r0 = r1 = 0;
#endif
}

/* 4 matrices, transposed (the B operands of half products: lane l gets
 * rows 2t, 2t + 1 of column g) */
__device__ __forceinline__ void
ldsm_x4_trans (uint32_t (&r)[4], const void *row)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
      "{%0,%1,%2,%3}, [%4];\n"
      : "=r" (r[0]), "=r" (r[1]), "=r" (r[2]), "=r" (r[3])
      : "r" ((uint32_t) __cvta_generic_to_shared (row)));
#else
  r[0] = r[1] = r[2] = r[3] = 0;
#endif
}

/* ---- cp.async ---------------------------------------------------------- */

/* One aligned word, or two, from a shared-memory address.  (volatile,
 * as ldsm_x4_at: they read what copies tracked by an mbarrier wrote, and
 * must stay after its wait, itself volatile.) */
__device__ __forceinline__ uint32_t
lds_u32_at (uint32_t at)
{
  uint32_t v = 0;
#if __CUDA_ARCH__ >= 800
  asm volatile ("ld.shared.u32 %0, [%1];\n":"=r" (v):"r" (at));
#else
  (void) at;
#endif
  return v;
}

__device__ __forceinline__ void
lds_u64_at (uint32_t & lo, uint32_t & hi, uint32_t at)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("ld.shared.v2.u32 {%0,%1}, [%2];\n":"=r" (lo), "=r" (hi)
      :"r" (at));
#else
  lo = hi = 0;
  (void) at;
#endif
}

/* Named barrier `id` (1 to 15; 0 is __syncthreads') for `threads`
 * threads (a multiple of 32): shared-memory writes before it are seen by
 * the reads after it */
template < int ID, int THREADS > __device__ __forceinline__ void
bar_sync_named ()
{
  static_assert (ID > 0 && ID < 16 && THREADS % 32 == 0, "named barrier");
#if __CUDA_ARCH__ >= 700
  asm volatile ("bar.sync %0, %1;\n"::"n" (ID), "n" (THREADS):"memory");
#endif
}

/* BYTES (4, 8 or 16) from global `from` to shared address `to`: .cg (L2
 * only) for 16 bytes, .ca otherwise; with L2_256, L2 fetches the whole
 * 256-byte block around the source from DRAM (16 bytes only) */
template < int BYTES, bool L2_256 = false > __device__ __forceinline__ void
cp_async (uint32_t to, const void *from)
{
#if __CUDA_ARCH__ >= 800
  static_assert (BYTES == 16 || ((BYTES == 4 || BYTES == 8) && !L2_256),
      "cp.async size");
  if constexpr (BYTES == 16 && L2_256)
    asm volatile ("cp.async.cg.shared.global.L2::256B [%0], [%1], 16;\n"
        ::"r" (to), "l" (from) : "memory");
  else if constexpr (BYTES == 16)
    asm volatile ("cp.async.cg.shared.global [%0], [%1], 16;\n"
        ::"r" (to), "l" (from) : "memory");
  else if constexpr (BYTES == 8)
    asm volatile ("cp.async.ca.shared.global [%0], [%1], 8;\n"
        ::"r" (to), "l" (from) : "memory");
  else
    asm volatile ("cp.async.ca.shared.global [%0], [%1], 4;\n"
        ::"r" (to), "l" (from) : "memory");
#else
  (void) to;
  (void) from;
#endif
}

/* Closes this thread's group of the copies issued since the last one
 * (possibly none) */
__device__ __forceinline__ void
cp_async_commit ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.commit_group;\n":::"memory");
#endif
}

/* Waits until at most PENDING of this thread's groups, the last committed,
 * are in flight */
template < int PENDING > __device__ __forceinline__ void
cp_async_wait ()
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.wait_group %0;\n"::"n" (PENDING):"memory");
#endif
}

/* The thread's copies issued so far arrive on mbarrier `bar` as they land,
 * without incrementing its expected count */
__device__ __forceinline__ void
cp_async_mbarrier_arrive_noinc (uint64_t * bar)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n"
      ::"r" ((uint32_t) __cvta_generic_to_shared (bar)):"memory");
#else
  (void) bar;
#endif
}

/* ---- mbarrier ------------------------------------------------------------ */

/* An mbarrier in shared memory expecting `count` arrivals a phase: arrive()
 * without waiting, then wait_parity() for the phase of that parity to
 * complete (the arrivals release, the wait acquires, what each thread
 * wrote to shared memory before it arrived) */
__device__ __forceinline__ void
mbarrier_init (uint64_t * bar, int count)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mbarrier.init.shared::cta.b64 [%0], %1;\n"::"r" ((uint32_t)
          __cvta_generic_to_shared (bar)), "r" (count):"memory");
#endif
}

__device__ __forceinline__ void
mbarrier_arrive (uint64_t * bar)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("mbarrier.arrive.shared::cta.b64 _, [%0];\n"::"r" ((uint32_t)
          __cvta_generic_to_shared (bar)):"memory");
#endif
}

/* (try_wait, which may suspend the thread a while, is sm_90's; test_wait,
 * sm_80's, only tests) */
#if __CUDA_ARCH__ >= 900
#define CF_PTX_MBARRIER_WAIT "mbarrier.try_wait.parity"
#else
#define CF_PTX_MBARRIER_WAIT "mbarrier.test_wait.parity"
#endif
__device__ __forceinline__ void
mbarrier_wait_parity (uint64_t * bar, uint32_t parity)
{
#if __CUDA_ARCH__ >= 800
  asm volatile ("{\n.reg .pred done;\nWAIT_%=:\n"
      CF_PTX_MBARRIER_WAIT ".shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n}\n"::"r" ((uint32_t)
          __cvta_generic_to_shared (bar)), "r" (parity):"memory");
#endif
}
#undef CF_PTX_MBARRIER_WAIT

}                               /* namespace cf */

#endif
