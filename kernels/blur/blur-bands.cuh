/* The tensor-core arithmetic of the fused pass (blur-mma.cuh,
 * blur-mma-r8.cuh, blur-mma-r8-sm90.cuh): the band matrices' fragments,
 * the horizontal and vertical products' exact integer encodings of t and
 * of the output, and the per-step shared-memory layout. */
#ifndef CUDAFILTERS_BLUR_BANDS_CUH
#define CUDAFILTERS_BLUR_BANDS_CUH

#include "blur-device.cuh"
#include "blur-policy.cuh"
namespace {

/* Both 1-D filters are matrix products with a band matrix of weights, and
 * the tensor cores compute them exactly:
 * - horizontal: mma.m16n8k32 multiplies bytes and sums in 32-bit integers;
 *   a 15-bit weight is two bytes (hi, lo), so a sum is two products;
 * - vertical: mma.m16n8k16 multiplies half-precision numbers and sums in
 *   floats; t (10 bits) and ky's weights (13 bits, at most 11 significant)
 *   are exact halves, every product is exact, and every sum an integer
 *   below 2^24, so a sum is one product (rather than four byte products
 *   and the instructions that combine them).
 * Every sum is the reference's integer exactly.
 *
 * A block walks down a strip of kMmaStripPx pixels (or the part of one,
 * or of two, that WorkRun gives it; the radius-8 kernel's strips with 4
 * channels are wider: see Mma8Shape), 16 rows at a time.  Each step stages
 * 16 input rows (halo columns included, border rule applied) in shared
 * memory, one plane per channel (see StepLoader); the horizontal products
 * turn them into 16 rows of t, stored transposed (a column's rows adjacent,
 * as the vertical product's B operand wants them) in a ring of 16 + 2 HALO
 * rows per column; then the vertical products read the ring and write 16
 * output rows.  The next step's input loads are in flight meanwhile.
 * The frame is read once (plus the halo columns) and the output written once.
 *
 * The band matrix of a 32-wide chunk of taps is the same for every tile,
 * so each thread builds its fragments of them once.  Taps past the radius
 * have zero weights; whatever the rows and columns they meet hold does not
 * count. */

/* Shared memory per channel.  A horizontal tile of 16 outputs reads
 * chunks of 32 taps from 16 * tile to 16 * tile + 32 NK, so input rows
 * hold STRIP - 16 + 32 NK pixels.  The t ring holds the steps from the
 * output's to the one being computed, lag + 1 of them (16 + 2 HALO rows:
 * exactly the taps of NV vertical products of 16), as halves, a column's
 * rows adjacent (the vertical products' B operand), in words of two rows.
 * Where a column's words would put the 8 columns a fragment load touches
 * on the same banks, the row pairs are XOR-swizzled by the column
 * (t_word), so that loads and stores are free of bank conflicts. */
template < int HALO, int STRIP = kMmaStripPx > struct MmaLayout
{
  static constexpr int threads = mma_threads (STRIP);
  static constexpr int chunks = (16 + 2 * HALO + 31) / 32;
  static constexpr int span = STRIP + 2 * HALO; /* pixels loaded */
  static constexpr int units_per_row = span / 4;
  static constexpr int units = kMmaStep * units_per_row;
  static constexpr int units_per_thread = (units + threads - 1) / threads;
  static constexpr int lag = HALO / 8;  /* steps of t ahead of the output */
  /* the last chunk's taps 16 .. 31 meet zero weights for every output
   * (16 + 2 HALO taps in all): it takes the k = 16 product, on half the
   * operands, for half the tensor work */
  static constexpr bool half_last = (16 + 2 * HALO) % 32 == 16;
  static constexpr int in_w = STRIP - 16 + 32 * chunks;
  static constexpr int ring = kMmaStep * (lag + 1);
  static constexpr int vchunks = ring / 16;     /* vertical products */
  static constexpr int ring_words = ring / 2;   /* words of a column */
  static_assert (ring == 16 + 2 * HALO && 16 * vchunks == ring
      && 2 * ring_words == ring, "t ring");
  static constexpr int in_bytes = kMmaStep * in_w;
  static constexpr int t_bytes = STRIP * ring * 2;
  /* one channel: its input rows, then its t ring */
  static constexpr int channel_bytes = in_bytes + t_bytes;

  /* The word of row pair rp of column px.  rp of a fragment's lanes is a
   * multiple of 4 plus t; the 8 columns are 8 apart in the ring's words
   * times a multiple of 8 (ring_words % 16 == 8: banks g * 8 or g * 24, so
   * columns g and g + 4 collide, unless the second's pairs move by 4) or
   * of 32 (all collide, unless each moves by 4 g). */
  __device__ __forceinline__ static int t_word (int px, int rp)
  {
    static_assert (ring_words % 32 == 0 || ring_words % 16 == 8, "swizzle");
    if constexpr (ring_words % 32 == 0)
      return px * ring_words + (rp ^ ((px & 7) << 2));
    else
      return px * ring_words + (rp ^ (px & 4));
  }
};

/* PRMT selector that puts byte 0 of its second operand at byte J of its
 * first, keeping the others */
template < int J > __host__ __device__ constexpr uint32_t
insert_byte0 ()
{
  return (0x3210u & ~(0xfu << (4 * J))) | (0x4u << (4 * J));
}

/* The tap (of a chunk of 32) that byte b of this thread's fragment
 * register j of a band matrix weighs: column k = 4 t + b (+ 16 for
 * j >= 2) of A, and row k of B.  Where B comes from 16-byte units of four
 * interleaved pixels (blur_mma8_direct_kernel), the B register's four bytes
 * are one channel of pixel t of four units, taps 4 b + t: a product sums
 * over k, so A's columns take the same order and the sum is the same. */
__device__ __forceinline__ int
chunk_tap (int t, int j, int b, bool unit_order)
{
  return (unit_order ? 4 * b + t : 4 * t + b) + (j >> 1) * 16;
}

/* This thread's fragments of the band matrices of chunk q: A[m][k] is the
 * weight of tap k of the chunk for output m, w[|32 q + k - HALO - m|]
 * (zero past the radius), split into its high and low bytes.  Fragment
 * register j holds A[m][kb .. kb + 3], m = g (+ 8 for odd j), kb = 4 t
 * (+ 16 for j >= 2), or the taps chunk_tap names there. */
template < int HALO, int NK > __device__ __forceinline__ void
band_fragments (const uint32_t * w, int r, int lane, uint32_t (&hi)[NK][4],
    uint32_t (&lo)[NK][4], bool unit_order = false)
{
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int q = 0; q < NK; q++)
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const int m = g + (j & 1) * 8;
      uint32_t h = 0, l = 0;
#pragma unroll
      for (int b = 0; b < 4; b++) {
        int d = 32 * q + chunk_tap (t, j, b, unit_order) - HALO - m;
        d = d < 0 ? -d : d;
        uint32_t v = d <= r ? w[d] : 0;
        h |= (v >> 8) << (8 * b);
        l |= (v & 0xff) << (8 * b);
      }
      hi[q][j] = h;
      lo[q][j] = l;
    }
}

/* The same for the vertical products, as half-precision numbers (ky's
 * weights are exact in half precision, see cf_blur_kernel_make), in
 * chunks of 16 taps: A[m][k] = w[|16 q + k - HALO - m|].  Fragment register
 * j holds A[m][kb], A[m][kb + 1], m = g (+ 8 for odd j), kb = 2 t (+ 8 for
 * j >= 2). */
template < int HALO, int NV > __device__ __forceinline__ void
band_fragments_f16 (const uint32_t * w, int r, int lane,
    uint32_t (&a)[NV][4])
{
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int q = 0; q < NV; q++)
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const int m = g + (j & 1) * 8, kb = 2 * t + (j >> 1) * 8;
      uint32_t pair = 0;
#pragma unroll
      for (int b = 0; b < 2; b++) {
        int d = 16 * q + kb + b - HALO - m;
        d = d < 0 ? -d : d;
        const float v = d <= r ? (float) w[d] : 0.0f;
        pair |= (uint32_t) __half_as_ushort (__float2half_rn (v)) << (16 * b);
      }
      a[q][j] = pair;
    }
}

/* The radius-8 kernel's horizontal band fragments (band_fragments) for a
 * warp whose taps, pixels xw - 8 to xw + 23, reach past the frame's edge:
 * a tap outside the frame adds its weight to the frame column the border
 * rule names, so that the columns outside need no values and no
 * fill_halo().  For replicate and reflect-101 on frames at least
 * kFoldMinWidth wide, where every tap outside is one reflection (or
 * clamp) of a column inside, within the warp's taps.  `suffix[a]` is
 * w[a] + ... + w[r] (0 past r). */
__device__ __forceinline__ void
folded_band_fragments (const uint32_t * w, const uint32_t * suffix, int r,
    int lane, int xw, int width, int border, uint32_t (&hi)[1][4],
    uint32_t (&lo)[1][4], bool unit_order = false)
{
  const int g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int j = 0; j < 4; j++) {
    const int x = xw + g + (j & 1) * 8;         /* the output */
    uint32_t h = 0, l = 0;
#pragma unroll
    for (int b = 0; b < 4; b++) {
      /* the tap's column */
      const int col = xw - 8 + chunk_tap (t, j, b, unit_order);
      uint32_t v = 0;
      if (col >= 0 && col < width && x < width) {
        const int d = col > x ? col - x : x - col;
        v = d <= r ? w[d] : 0;
        if (border == CF_BORDER_REPLICATE) {
          /* taps left of column 0: |d| from x + 1 to r; right of the last
           * column: from width - x to r */
          if (col == 0)
            v += suffix[min (x + 1, 9)];
          if (col == width - 1)
            v += suffix[min (width - x, 9)];
        } else {
          /* the tap at -col, and the one at 2 (width - 1) - col */
          const int dl = col + x, dr = 2 * (width - 1) - col - x;
          if (col > 0 && dl <= r)
            v += w[dl];
          if (col < width - 1 && dr <= r)
            v += w[dr];
        }
      }
      h |= (v >> 8) << (8 * b);
      l |= (v & 0xff) << (8 * b);
    }
    hi[0][j] = h;
    lo[0][j] = l;
  }
}

/* The weights of both filters, radius 32 at most, copied from the
 * constant bank to shared memory: the fragments read them at a different
 * index in every lane, which the constant cache would serve one at a
 * time, shared memory at once.  Ends with a barrier.  `a`: BlurArgs, or
 * anything else with its rx, ry, wx and wy (NarrowPlane). */
template < typename Args > __device__ __forceinline__ void
stage_weights (uint32_t (&w)[2][33], const Args & a)
{
  const int i = threadIdx.x;
  if (i < 33) {
    w[0][i] = i <= a.rx ? (uint32_t) a.wx[i] : 0;
    w[1][i] = i <= a.ry ? (uint32_t) a.wy[i] : 0;
  }
  __syncthreads ();
}

/* The folded bands' suffix sums of the horizontal weights, s[k] = wx[k] +
 * ... + wx[rx] (k < 10), by threads 0-9 before a barrier.  Every lane
 * reads the same weight at a time: the constant cache serves one address
 * at a time, and with a lane's own first weight (i from tid) the loop's
 * loads were served ten times over. */
template < typename Args > __device__ __forceinline__ void
stage_suffix (uint32_t (&s)[10], const Args & a)
{
  const int tid = threadIdx.x;
  if (tid < 10) {
    uint32_t sum = 0;
    for (int i = 0; i <= a.rx; i++)
      if (i >= tid)
        sum += (uint32_t) a.wx[i];
    s[tid] = sum;
  }
}

/* The horizontal band of a warp whose 16 output columns start at xw:
 * folded (folded_band_fragments) where the warp reaches an edge of the
 * frame, the plain band elsewhere, rebuilt only after a folded one.
 * `folded` says which hi and lo hold, and is updated. */
template < int HALO > __device__ __forceinline__ void
warp_band_fragments (const uint32_t * w, const uint32_t * suffix, int r,
    int lane, int xw, int width, int border, uint32_t (&hi)[1][4],
    uint32_t (&lo)[1][4], bool &folded, bool unit_order = false)
{
  const bool edge = xw == 0 || xw + 16 + HALO > width;
  if (edge)
    folded_band_fragments (w, suffix, r, lane, xw, width, border, hi, lo,
        unit_order);
  else if (folded)
    band_fragments < HALO, 1 > (w, r, lane, hi, lo, unit_order);
  folded = edge;
}

/* The start of a kernel that copies its steps ahead into a ring of
 * BUFFERS buffers with `full` and `empty` mbarriers
 * (blur_mma8_direct_kernel, blur_mma8_narrow_kernel): the first part's
 * first `ahead` steps' copies go out first (issue (k)), since every block
 * of the one wave starts at once and memory would idle through the rest
 * of the start; then the weights and the barriers are set up, and those
 * copies are made to arrive on their buffers (arrive (k)), after
 * stage_weights' barrier has ordered the barriers' initialisation before
 * any arrival.  An arrival counts every copy the thread issued before
 * it.  `more`: whether the block has a part at all, of n + 1 steps. */
template < int BUFFERS, int THREADS, typename Issue, typename Arrive,
    typename Args > __device__ __forceinline__ void
ring_start (bool more, int n, int ahead, const Issue & issue,
    const Arrive & arrive, uint32_t (&weights)[2][33],
    uint32_t (&suffix)[10], uint64_t (&full)[BUFFERS],
    uint64_t (&empty)[BUFFERS], const Args & a)
{
  if (more)
    for (int k = 0; k < ahead && k <= n; k++)
      issue (k);
  stage_suffix (suffix, a);
  if (threadIdx.x < BUFFERS) {
    mbarrier_init (&full[threadIdx.x], THREADS);
    mbarrier_init (&empty[threadIdx.x], THREADS);
  }
  stage_weights (weights, a);
  if (more)
    for (int k = 0; k < ahead && k <= n; k++)
      arrive (k);
}

/* Four pixels of C interleaved channels (the first 4 C bytes of `u`) as C
 * words, one per channel, four pixels each. */
template < int C > __device__ __forceinline__ void
deinterleave4 (const uint4 & u, uint32_t (&ch)[C])
{
  if constexpr (C == 1) {
    ch[0] = u.x;
  } else if constexpr (C == 2) {
    ch[0] = __byte_perm (u.x, u.y, 0x6420);
    ch[1] = __byte_perm (u.x, u.y, 0x7531);
  } else if constexpr (C == 3) {
    ch[0] = __byte_perm (__byte_perm (u.x, u.y, 0x0630), u.z, 0x5210);
    ch[1] = __byte_perm (__byte_perm (u.x, u.y, 0x0741), u.z, 0x6210);
    ch[2] = __byte_perm (__byte_perm (u.x, u.y, 0x0052), u.z, 0x7410);
  } else {
    const uint32_t a = __byte_perm (u.x, u.y, 0x5140);
    const uint32_t b = __byte_perm (u.z, u.w, 0x5140);
    const uint32_t c = __byte_perm (u.x, u.y, 0x7362);
    const uint32_t d = __byte_perm (u.z, u.w, 0x7362);
    ch[0] = __byte_perm (a, b, 0x5410);
    ch[1] = __byte_perm (a, b, 0x7632);
    ch[2] = __byte_perm (c, d, 0x5410);
    ch[3] = __byte_perm (c, d, 0x7632);
  }
}

/* Two pixels of C bytes (words[] in memory order) to out: one store where
 * `vector` (aligned, both pixels in the frame), else byte by byte, the
 * second pixel only if `two`. */
template < int C > __device__ __forceinline__ void
store_pair (uint8_t * out, const uint32_t * b, bool vector, bool two)
{
  if (vector) {
    if constexpr (C == 4) {
      *reinterpret_cast < uint2 * >(out) = make_uint2 (b[0], b[1]);
    } else if constexpr (C == 2) {
      *reinterpret_cast < uint32_t * >(out) = b[0];
    } else if constexpr (C == 3) {
      uint16_t *o16 = reinterpret_cast < uint16_t * >(out);
      o16[0] = (uint16_t) b[0];
      o16[1] = (uint16_t) (b[0] >> 16);
      o16[2] = (uint16_t) b[1];
    } else {
      *reinterpret_cast < uint16_t * >(out) = (uint16_t) b[0];
    }
  } else {
    const int n = (two ? 2 : 1) * C;
#pragma unroll
    for (int e = 0; e < 2 * C; e++)
      if (e < n)
        out[e] = (uint8_t) (b[e / 4] >> (8 * (e % 4)));
  }
}

/* t as the vertical products take it: a half-precision number, 1024 + t
 * + 2 (exact: at most 2046), whose bits are 0x6400 + t + 2.
 * - The 1024 makes the bits t's own (no conversion); it adds 1024 * 2^13
 *   = 2^23 to every vertical sum.
 * - The 2 adds 2 * 2^13, half of 2^(V_BITS + MID_BITS), to the vertical
 *   sum: its rounding half.
 * Both go into the low-byte product's accumulator, with the half of t's
 * own rounding: h + kTLowStart = 256 hi + lo, and the bits are that
 * shifted right by H_BITS - MID_BITS. */
constexpr int kTShift = CF_BLUR_H_BITS - CF_BLUR_MID_BITS;
constexpr int kTLowStart = ((0x6400 + (1 << (CF_BLUR_MID_BITS - 1)))
    << kTShift) + (1 << (kTShift - 1));
static_assert (CF_BLUR_V_BITS == 13 && CF_BLUR_MID_BITS == 2,
    "the vertical sums' offset is 2^23 and t is at most 1020");

/* The products of one 32-tap chunk, horizontal: h = 256 hi + lo; the
 * first chunk starts lo at kTLowStart */
__device__ __forceinline__ void
horizontal_chunk (int (&hi)[4], int (&lo)[4], const uint32_t (&a_hi)[4],
    const uint32_t (&a_lo)[4], uint32_t b0, uint32_t b1, bool first,
    bool k16 = false)
{
  const int zero[4] = { 0, 0, 0, 0 };
  const int start[4] = { kTLowStart, kTLowStart, kTLowStart, kTLowStart };
  if (k16) {
    mma_u8_k16 (hi, a_hi, b0, first ? zero : hi);
    mma_u8_k16 (lo, a_lo, b0, first ? start : lo);
  } else {
    mma_u8 (hi, a_hi, b0, b1, first ? zero : hi);
    mma_u8 (lo, a_lo, b0, b1, first ? start : lo);
  }
}

/* Outputs d and d + 1 of a horizontal tile (two rows of one pixel) as a
 * pair of t's halves (see kTLowStart), d's in the low half */
__device__ __forceinline__ uint32_t
horizontal_t_pair (const int (&hi)[4], const int (&lo)[4], int d)
{
  const uint32_t e0 = ((uint32_t) hi[d] * 256u + (uint32_t) lo[d]) >> kTShift;
  const uint32_t e1 =
      ((uint32_t) hi[d + 1] * 256u + (uint32_t) lo[d + 1]) >> kTShift;
  return __byte_perm (e0, e1, 0x5410);
}

/* The output byte of a vertical sum s = 2^23 + sum ky (t + 2), as byte 0
 * of the result: s / 2^15 is 256 + (v + half) / 2^(V_BITS + MID_BITS), so
 * adding 2^23 - 256 and rounding down leaves 2^23 + the output, whose
 * bits are 0x4B000000 + the output. */
__device__ __forceinline__ uint32_t
output_bits (float s)
{
  static_assert (CF_BLUR_V_BITS + CF_BLUR_MID_BITS == 15, "scale");
  return __float_as_uint (__fmaf_rd (s, 1.0f / (1 << 15), kTwo23 - 256.0f));
}

/* Output d (d0, d1: row g, pixels 2t and 2t + 1; d2, d3: row g + 8) of
 * channel c of a vertical tile, into its place in the words of two
 * pixels of C bytes for rows g and g + 8: one PRMT. */
template < int C > __device__ __forceinline__ void
place_output (uint32_t (&rows)[2][(2 * C + 3) / 4], const float (&sum)[4],
    int c)
{
#pragma unroll
  for (int d = 0; d < 4; d++) {
    const uint32_t v = output_bits (sum[d]);
    const int at = (d & 1) * C + c;     /* byte in the row's pair */
    uint32_t & w = rows[d >> 1][at / 4];
    switch (at % 4) {
      /* byte 0 is a word's first (c = 0 comes first, and d = 0 before 1):
       * v as it is, whose bytes 1 to 3 the others replace, or which are
       * not stored */
      case 0: w = v; break;
      case 1: w = __byte_perm (w, v, insert_byte0 < 1 > ()); break;
      case 2: w = __byte_perm (w, v, insert_byte0 < 2 > ()); break;
      default: w = __byte_perm (w, v, insert_byte0 < 3 > ()); break;
    }
  }
}

}                               /* namespace */

#endif
