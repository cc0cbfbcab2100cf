/* The high-bit blur (#48): planes of 16-bit words, in IEEE single
 * precision, every operation in the order the header defines
 * (cudafilters-kernels.h, "High bit depth"; the same as
 * cf_ref_blur_plane_words, blur-reference.c): an output's taps summed
 * outermost pair first, each pair added before its weight multiplies it,
 * every step rounded to nearest (__fadd_rn, __fmaf_rn, which the compiler
 * never contracts or reorders).  Here: what its kernels share, and the
 * two passes.
 *
 * One channel or two (the planes of every word format), both radii up to
 * 16: one pass (blur-words-tile.cuh).
 *
 * Otherwise, two passes through a scratch plane of float t:
 * blur_words_h_kernel stages one row's samples and halo and each thread
 * filters 4 (3) samples 128 apart; blur_words_v_kernel stages a strip of
 * t rows (any radius: (16 + 2 x 150) x 32 floats is under 48 KB) and each
 * thread sums 4 rows of one column.
 *
 * Packed 10-bit RGB (cf_blur_rgb10a2): 4 channels (R, G, B, alpha) a
 * pixel, at radii up to 8 in one pass (blur-rgb10a2.cuh), otherwise the
 * two passes (kPacked).
 * Tests (kernels-blur): test_blur_words_equals_reference,
 * test_blur_planes_words_equals_reference,
 * test_blur_rgb10a2_equals_reference. */
#ifndef CUDAFILTERS_BLUR_WORDS_CUH
#define CUDAFILTERS_BLUR_WORDS_CUH

#include "blur-device.cuh"

namespace {

struct WordBlurArgs
{
  int rx, ry;
  int border;
  int depth, shift;
  float border_value[4];
  /* t of a row of border_value, for the two passes' rows past the frame */
  float border_t[4];
  /* cf_blur_word_weights (); 0 past the radius */
  float wx[CF_BLUR_MAX_RADIUS + 1];
  float wy[CF_BLUR_MAX_RADIUS + 1];
};

/* The taps' sum of the arithmetic over radius r: p (i) is the value at
 * distance i (negative: before the centre) */
template < typename P > __device__ __forceinline__ float
words_taps (const float *w, int r, P p)
{
  float a = 0.0f;
  for (int i = r; i >= 1; i--)
    a = __fmaf_rn (w[i], __fadd_rn (p (-i), p (i)), a);
  return __fmaf_rn (w[0], p (0), a);
}

/* the same over the compile-time radius R (weights past the true radius 0) */
template < int R, typename P > __device__ __forceinline__ float
words_taps_fixed (const float *w, P p)
{
  float a = 0.0f;
#pragma unroll
  for (int i = R; i >= 1; i--)
    a = __fmaf_rn (w[i], __fadd_rn (p (-i), p (i)), a);
  return __fmaf_rn (w[0], p (0), a);
}

/* a word's sample as a float */
__device__ __forceinline__ float
word_sample (const uint8_t * src, size_t pitch, int y, int index,
    uint32_t mask, int shift)
{
  const uint16_t word = ((const uint16_t *) (src + (size_t) y * pitch))[index];
  return int_to_float ((word >> shift) & mask);
}

/* Sample `index` of row y of the two passes' source: a word's (above),
 * or, kPacked, of packed 10-bit RGB (4 samples a pixel: bits 0-9, 10-19
 * and 20-29, and the 2-bit alpha at 30) */
template < bool kPacked > __device__ __forceinline__ float
two_pass_sample (const uint8_t * src, size_t pitch, int y, int index,
    uint32_t mask, int shift)
{
  if (!kPacked)
    return word_sample (src, pitch, y, index, mask, shift);
  const uint32_t pixel =
      ((const uint32_t *) (src + (size_t) y * pitch))[index / 4];
  const int c = index % 4;
  return int_to_float ((pixel >> (10 * c)) & (c == 3 ? 3u : 1023u));
}

/* v rounded to the nearest integer, ties to even (v + 2^23 rounds so, and
 * v is below 2^17), at most mask; word_out: in its place in the word */
__device__ __forceinline__ uint32_t
word_value (float v, uint32_t mask)
{
  const uint32_t out = __float_as_uint (__fadd_rn (v, kTwo23)) - 0x4B000000u;
  return out < mask ? out : mask;
}

__device__ __forceinline__ uint16_t
word_out (float v, uint32_t mask, int shift)
{
  return (uint16_t) (word_value (v, mask) << shift);
}

/* the same of two neighbouring outputs, as one 32-bit word (v0 first in
 * memory): the values' low halves side by side (each is at most mask,
 * under 2^16), then shifted as one (a sample in its place stays within
 * its 16 bits) */
__device__ __forceinline__ uint32_t
word_pair_out (float v0, float v1, uint32_t mask, int shift)
{
  return __byte_perm (word_value (v0, mask), word_value (v1, mask),
      0x5410) << shift;
}

/* the one pass's blocks (blur-words-tile.cuh, blur-rgb10a2.cuh) and its
 * largest radius */
constexpr int kWordsTileThreads = 256;
constexpr int kWordsTileMaxRadius = 16;

/* ---- two passes, any radius and channel count ---- */

constexpr int kWordsHThreads = 128;     /* threads of a horizontal block */
constexpr int kWordsVRows = 16;         /* output rows of a vertical block */
constexpr int kWordsVColumns = 32;      /* t columns of a vertical block */
constexpr int kWordsVRowsEach = 4;      /* output rows a vertical thread sums */
constexpr int kWordsVThreads = kWordsVColumns * kWordsVRows / kWordsVRowsEach;
/* the grid's rows, which blocks then step over */
constexpr int kWordsMaxGridY = 65535;

/* samples of a row a horizontal thread filters: 4, or for 3 channels 3,
 * so that a block covers whole pixels */
template < int C > __host__ __device__ constexpr int
words_h_samples ()
{
  return C == 3 ? 3 : 4;
}

/* pixels of a row a horizontal block covers */
template < int C > __host__ __device__ constexpr int
words_h_block_pixels ()
{
  return kWordsHThreads * words_h_samples < C > () / C;
}

/* kPacked: packed 10-bit RGB, C 4 (two_pass_sample) */
template < int C, bool kPacked > __global__ void
__launch_bounds__ (kWordsHThreads)
blur_words_h_kernel (const uint8_t * src, size_t src_pitch, float *t,
    size_t t_pitch, int width, int height, WordBlurArgs a)
{
  constexpr int K = words_h_samples < C > ();
  constexpr int kPixels = words_h_block_pixels < C > ();
  extern __shared__ float staged[];     /* (kPixels + 2 rx) x C */
  const uint32_t mask = (1u << a.depth) - 1;
  const int x0 = blockIdx.x * kPixels;
  const int n = (kPixels + 2 * a.rx) * C;
  /* this thread's samples: threadIdx.x + k x kWordsHThreads of the
   * block's kPixels x C */
  const int samples = (width - x0 < kPixels ? width - x0 : kPixels) * C;

  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    __syncthreads ();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const int c = i % C;
      const int sx = border_index (x0 - a.rx + i / C, width, a.border);
      staged[i] = sx < 0 ? a.border_value[c] :
          two_pass_sample < kPacked > (src, src_pitch, y, sx * C + c, mask,
          a.shift);
    }
    __syncthreads ();
    const float *centre = staged + a.rx * C + threadIdx.x;
    float *out = t + (size_t) y * t_pitch + (size_t) x0 * C;
#pragma unroll
    for (int k = 0; k < K; k++) {
      const int sample = threadIdx.x + k * kWordsHThreads;
      const float h = words_taps (a.wx, a.rx, [&](int i) {
            return centre[k * kWordsHThreads + i * C];});
      if (sample < samples)
        out[sample] = h;
    }
  }
}

/* the vertical pass: a block stages the t rows of a strip of
 * kWordsVRows output rows and kWordsVColumns columns, halo included
 * (border rule applied), and a thread sums kWordsVRowsEach output rows of
 * one column.  kPacked: packed 10-bit RGB, whose pixel's 4 columns are 4
 * neighbouring lanes of a warp, which join their samples into the pixel
 * (R, G, B at most 1023, alpha at most 3) */
template < bool kPacked > __global__ void
__launch_bounds__ (kWordsVThreads)
blur_words_v_kernel (const float *t, size_t t_pitch, uint8_t * dst,
    size_t dst_pitch, int columns, int channels, int height, WordBlurArgs a)
{
  extern __shared__ float strip[];      /* (16 + 2 ry) x 32 */
  const uint32_t mask = (1u << a.depth) - 1;
  const int cx = threadIdx.x % kWordsVColumns;
  const int rg = threadIdx.x / kWordsVColumns;
  const int col0 = blockIdx.x * kWordsVColumns;
  const int col = col0 + cx;
  const int rows = kWordsVRows + 2 * a.ry;

  for (int y0 = blockIdx.y * kWordsVRows; y0 < height;
      y0 += gridDim.y * kWordsVRows) {
    __syncthreads ();
    for (int i = threadIdx.x; i < rows * kWordsVColumns; i += blockDim.x) {
      const int r = i / kWordsVColumns, c = col0 + i % kWordsVColumns;
      const int sy = border_index (y0 - a.ry + r, height, a.border);
      float v = 0.0f;
      /* a constant border's rows: t of a row of the value, as the
       * horizontal pass makes it (not always the value itself) */
      if (c < columns)
        v = sy < 0 ? a.border_t[c % channels] :
            __ldg (t + (size_t) sy * t_pitch + c);
      strip[i] = v;
    }
    __syncthreads ();
    /* (packed: every lane sums, for the shuffles; the strip holds 0 past
     * the columns) */
    if (!kPacked && col >= columns)
      continue;

    const float *centre = strip + (kWordsVRowsEach * rg + a.ry) *
        kWordsVColumns + cx;
#pragma unroll
    for (int k = 0; k < kWordsVRowsEach; k++) {
      const int y = y0 + kWordsVRowsEach * rg + k;
      const float v = words_taps (a.wy, a.ry, [&](int i) {
            return centre[(k + i) * kWordsVColumns];});
      if (kPacked) {
        const int c = cx % 4;
        uint32_t pixel = (uint32_t) word_out (v, c == 3 ? 3u : 1023u, 0) <<
            (10 * c);
        pixel |= __shfl_xor_sync (0xffffffffu, pixel, 1);
        pixel |= __shfl_xor_sync (0xffffffffu, pixel, 2);
        if (c == 0 && col < columns && y < height)
          ((uint32_t *) (dst + (size_t) y * dst_pitch))[col / 4] = pixel;
      } else if (y < height) {
        ((uint16_t *) (dst + (size_t) y * dst_pitch))[col] =
            word_out (v, mask, a.shift);
      }
    }
  }
}

}                               /* namespace */

#endif
