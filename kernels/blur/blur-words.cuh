/* The high-bit blur (#48): planes of 16-bit words, two passes on the CUDA
 * cores through a scratch plane of 32-bit t, in doubles, where every
 * product and partial sum is an integer below 2^53 and so exact in any
 * order (the arithmetic is in cudafilters-kernels.h, "High bit depth";
 * the same as cf_ref_blur_plane_words, blur-reference.c).
 *
 * Horizontal: a block stages one row's samples for 512 (or with 3
 * channels 384) samples and their halo (border rule applied) in shared
 * memory as doubles; each thread filters 4 (3) samples 128 apart, the two
 * taps at each distance added before their weight multiplies them, each
 * weight read once for them all.  Vertical, up to radius 64
 * (blur_words_v_tile_kernel): a block stages a strip of t rows in shared
 * memory and a thread sums 4 rows of one column the same way; beyond,
 * each thread takes one column of t down 16 rows, each t row it loads
 * added into the 16 sums that weight it.
 * Tests (kernels-blur): test_blur_words_equals_reference. */
#ifndef CUDAFILTERS_BLUR_WORDS_CUH
#define CUDAFILTERS_BLUR_WORDS_CUH

#include "blur-device.cuh"

namespace {

constexpr int kWordsHThreads = 128;     /* threads of a horizontal block */
constexpr int kWordsVColumns = 128;     /* t columns of a vertical block */
constexpr int kWordsVRows = 16;         /* rows a vertical thread sums */
/* the grid's rows, which blocks then step over */
constexpr int kWordsMaxGridY = 65535;

/* rnd (v / 2^36), the output's rounding: v + 2^35 is an integer below
 * 2^53 and its quotient by 2^36 exact, so floor is the shift */
constexpr double kWordsOutHalf = 34359738368.0; /* 2^35 */
constexpr double kWordsOutScale = 1.0 / 68719476736.0;  /* 2^-36 */
static_assert (CF_BLUR_WORD_BITS + CF_BLUR_WORD_MID_BITS == 36,
    "the output's shift");

struct WordBlurArgs
{
  int rx, ry;
  int border;
  int depth, shift;
  uint32_t border_value[4];
  double wx[CF_BLUR_MAX_RADIUS + 1];
  double wy[CF_BLUR_MAX_RADIUS + 1];
};

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

template < int C > __global__ void
__launch_bounds__ (kWordsHThreads)
blur_words_h_kernel (const uint8_t * src, size_t src_pitch, uint32_t * t,
    size_t t_pitch, int width, int height, WordBlurArgs a)
{
  constexpr int K = words_h_samples < C > ();
  constexpr int kPixels = words_h_block_pixels < C > ();
  extern __shared__ double staged[];    /* (kPixels + 2 rx) x C */
  const uint32_t mask = (1u << a.depth) - 1;
  const int x0 = blockIdx.x * kPixels;
  const int n = (kPixels + 2 * a.rx) * C;
  /* this thread's samples: threadIdx.x + k x kWordsHThreads of the
   * block's kPixels x C */
  const int samples = (width - x0 < kPixels ? width - x0 : kPixels) * C;

  for (int y = blockIdx.y; y < height; y += gridDim.y) {
    const uint16_t *row = (const uint16_t *) (src + (size_t) y * src_pitch);
    __syncthreads ();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      const int c = i % C;
      const int sx = border_index (x0 - a.rx + i / C, width, a.border);
      staged[i] = sx < 0 ? (double) a.border_value[c] :
          (double) ((row[sx * C + c] >> a.shift) & mask);
    }
    __syncthreads ();
    const double *centre = staged + a.rx * C + threadIdx.x;
    double h[K];
#pragma unroll
    for (int k = 0; k < K; k++)
      h[k] = a.wx[0] * centre[k * kWordsHThreads];
    for (int i = 1; i <= a.rx; i++) {
      const double w = a.wx[i];
#pragma unroll
      for (int k = 0; k < K; k++)
        h[k] = fma (w, centre[k * kWordsHThreads + i * C] +
            centre[k * kWordsHThreads - i * C], h[k]);
    }
    /* rnd (h / 2^20): h + 2^19 is an integer below 2^53, its quotient by
     * a power of two exact, so floor is the shift */
    constexpr double half = (double) (1 << (CF_BLUR_WORD_BITS -
            CF_BLUR_WORD_MID_BITS - 1));
    constexpr double scale = 1.0 / (double) (1 << (CF_BLUR_WORD_BITS -
            CF_BLUR_WORD_MID_BITS));
    uint32_t *out = t + (size_t) y * t_pitch + (size_t) x0 * C;
#pragma unroll
    for (int k = 0; k < K; k++) {
      const int sample = threadIdx.x + k * kWordsHThreads;
      if (sample < samples)
        out[sample] = (uint32_t) floor ((h[k] + half) * scale);
    }
  }
}

__global__ void
__launch_bounds__ (kWordsVColumns)
blur_words_v_kernel (const uint32_t * t, size_t t_pitch, uint8_t * dst,
    size_t dst_pitch, int columns, int channels, int height, WordBlurArgs a)
{
  const int col = blockIdx.x * kWordsVColumns + threadIdx.x;
  if (col >= columns)
    return;
  /* a constant border's t: its value's h is value x 2^28, exactly */
  const double border_t = (double) (a.border_value[col % channels] <<
      CF_BLUR_WORD_MID_BITS);
  for (int y0 = blockIdx.y * kWordsVRows; y0 < height;
      y0 += gridDim.y * kWordsVRows) {
    double acc[kWordsVRows];
#pragma unroll
    for (int k = 0; k < kWordsVRows; k++)
      acc[k] = 0.0;
    for (int j = -a.ry; j < kWordsVRows + a.ry; j++) {
      const int sy = border_index (y0 + j, height, a.border);
      const double tv = sy < 0 ? border_t :
          (double) __ldg (t + (size_t) sy * t_pitch + col);
#pragma unroll
      for (int k = 0; k < kWordsVRows; k++) {
        /* row y0 + j is tap j - k of output row y0 + k */
        const int d = j - k < 0 ? k - j : j - k;
        if (d <= a.ry)
          acc[k] = fma (a.wy[d], tv, acc[k]);
      }
    }
#pragma unroll
    for (int k = 0; k < kWordsVRows; k++) {
      const int y = y0 + k;
      if (y < height) {
        const uint32_t out = (uint32_t) floor ((acc[k] + kWordsOutHalf) *
            kWordsOutScale);
        ((uint16_t *) (dst + (size_t) y * dst_pitch))[col] =
            (uint16_t) (out << a.shift);
      }
    }
  }
}

/* The vertical pass for radii up to kWordsTileMaxRadius: a block stages
 * the t rows of a strip of 16 output rows and 32 columns, halo included
 * (border rule applied), in shared memory as doubles; a thread sums 4
 * output rows of one column, the two taps at each distance added before
 * their weight multiplies them, each weight read once for its 4 sums. */
constexpr int kWordsTileColumns = 32;
constexpr int kWordsTileRowsEach = 4;   /* output rows a thread sums */
constexpr int kWordsTileThreads = kWordsTileColumns * kWordsVRows /
    kWordsTileRowsEach;
/* (16 + 2 x 64) x 32 doubles: 36 KB, under the 48 KB of any GPU */
constexpr int kWordsTileMaxRadius = 64;

__global__ void
__launch_bounds__ (kWordsTileThreads)
blur_words_v_tile_kernel (const uint32_t * t, size_t t_pitch, uint8_t * dst,
    size_t dst_pitch, int columns, int channels, int height, WordBlurArgs a)
{
  extern __shared__ double tile[];      /* (16 + 2 ry) x 32 */
  const int cx = threadIdx.x % kWordsTileColumns;
  const int rg = threadIdx.x / kWordsTileColumns;
  const int col0 = blockIdx.x * kWordsTileColumns;
  const int col = col0 + cx;
  const int rows = kWordsVRows + 2 * a.ry;

  for (int y0 = blockIdx.y * kWordsVRows; y0 < height;
      y0 += gridDim.y * kWordsVRows) {
    __syncthreads ();
    for (int i = threadIdx.x; i < rows * kWordsTileColumns;
        i += blockDim.x) {
      const int r = i / kWordsTileColumns, c = col0 + i % kWordsTileColumns;
      const int sy = border_index (y0 - a.ry + r, height, a.border);
      double v = 0.0;
      if (c < columns)
        v = sy < 0 ? (double) (a.border_value[c % channels] <<
            CF_BLUR_WORD_MID_BITS) :
            (double) __ldg (t + (size_t) sy * t_pitch + c);
      tile[i] = v;
    }
    __syncthreads ();
    if (col >= columns)
      continue;

    const double *centre = tile + (kWordsTileRowsEach * rg + a.ry) *
        kWordsTileColumns + cx;
    double acc[kWordsTileRowsEach];
#pragma unroll
    for (int k = 0; k < kWordsTileRowsEach; k++)
      acc[k] = a.wy[0] * centre[k * kWordsTileColumns];
    for (int i = 1; i <= a.ry; i++) {
      const double w = a.wy[i];
#pragma unroll
      for (int k = 0; k < kWordsTileRowsEach; k++)
        acc[k] = fma (w, centre[(k + i) * kWordsTileColumns] +
            centre[(k - i) * kWordsTileColumns], acc[k]);
    }
#pragma unroll
    for (int k = 0; k < kWordsTileRowsEach; k++) {
      const int y = y0 + kWordsTileRowsEach * rg + k;
      if (y < height) {
        const uint32_t out = (uint32_t) floor ((acc[k] + kWordsOutHalf) *
            kWordsOutScale);
        ((uint16_t *) (dst + (size_t) y * dst_pitch))[col] =
            (uint16_t) (out << a.shift);
      }
    }
  }
}

}                               /* namespace */

#endif
