/* CPU reference of kernels/blur.cu, and the kernel weights both use. */
#include "cudafilters-kernels.h"
#include "reference-reads.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int
cf_blur_radius_for_sigma (double sigma)
{
  double ksize;
  long k;

  if (!(sigma > 0))
    return 0;
  /* OpenCV: cvRound (sigma * 3 * 2 + 1) | 1, cvRound rounding half to
   * even; the radius is half of that */
  ksize = nearbyint (sigma * 6.0 + 1.0);
  k = ((long) ksize) | 1;
  if (k / 2 > CF_BLUR_MAX_RADIUS)
    return CF_BLUR_MAX_RADIUS;
  return (int) (k / 2 < 1 ? 1 : k / 2);
}

/* The spacing of IEEE half-precision numbers at x: 1 below 2048, then 2
 * up to 4096, 4 up to 8192, ... (11 significant bits) */
static uint32_t
half_step (uint32_t x)
{
  uint32_t step = 1;
  while (x >= 2048u * step)
    step *= 2;
  return step;
}

/* Rounds the weights of 2048 and more to their half-precision grid, and
 * gives what that moved to (or takes it from) the pairs below 2048, one
 * unit each at a time (the pair whose weight is furthest from its exact
 * value first), or to the centre in its own steps, keeping the sum, the
 * symmetry and the shape.  Where that is impossible, the weights stay as
 * they were: not exact in half precision, which only the tensor-core pass
 * cares about (it then steps aside). */
static void
make_half_exact (CfBlurKernel * k, const double *g, double total, int64_t scale)
{
  CfBlurKernel was = *k;
  int64_t debt = 0;
  int i;

  for (i = 0; i <= k->radius; i++) {
    uint32_t step = half_step (k->w[i]), lo = k->w[i] / step * step;
    uint32_t to = k->w[i] - lo > step / 2 ? lo + step : lo;
    debt += (i ? 2 : 1) * ((int64_t) k->w[i] - to);
    k->w[i] = to;
  }
  while (debt != 0) {
    int best = -1;
    double best_gap = 0;
    for (i = 0; i <= k->radius; i++) {
      /* the exact value minus the weight: > 0 wants more */
      double gap = g[i] / total * (double) scale - k->w[i];
      uint32_t step = i ? 1 : half_step (k->w[i]);
      int64_t units = (i ? 2 : 1) * (int64_t) step;
      if (i && k->w[i] + 1 >= 2048)
        continue;
      if (debt > 0) {
        if (units > debt || (i && k->w[i] + 1 > k->w[i - 1]))
          continue;
      } else {
        if (units > -debt || k->w[i] < step
            || (i < k->radius && k->w[i] - step < k->w[i + 1]))
          continue;
        gap = -gap;
      }
      if (best < 0 || gap > best_gap) {
        best = i;
        best_gap = gap;
      }
    }
    if (best < 0) {
      *k = was;
      return;
    }
    {
      uint32_t step = best ? 1 : half_step (k->w[0]);
      int64_t units = (best ? 2 : 1) * (int64_t) step;
      if (debt > 0) {
        k->w[best] += step;
        debt -= units;
      } else {
        k->w[best] -= step;
        debt += units;
      }
    }
  }
}

int
cf_blur_kernel_make (double sigma, int radius, int bits, CfBlurKernel * k)
{
  double g[CF_BLUR_MAX_RADIUS + 1], total = 0, frac[CF_BLUR_MAX_RADIUS + 1];
  int64_t scale, sum = 0, left;
  int i;

  if (!k || radius < 0 || radius > CF_BLUR_MAX_RADIUS || bits < 1
      || bits > 30 || !(sigma >= 0))
    return -1;
  memset (k, 0, sizeof (*k));
  scale = (int64_t) 1 << bits;
  if (sigma == 0 || radius == 0) {
    k->radius = 0;
    k->w[0] = (uint32_t) scale;
    return 0;
  }

  k->radius = radius;
  for (i = 0; i <= radius; i++) {
    g[i] = exp (-(double) i * i / (2.0 * sigma * sigma));
    total += i ? 2 * g[i] : g[i];
  }
  for (i = 0; i <= radius; i++) {
    double exact = g[i] / total * (double) scale;
    k->w[i] = (uint32_t) floor (exact);
    frac[i] = exact - floor (exact);
    sum += i ? 2 * (int64_t) k->w[i] : k->w[i];
  }

  /* Hand out what rounding down left, keeping the kernel symmetric and
   * never rising away from the centre: pairs in order of their fractions
   * take two units each while that keeps them at or below their inner
   * neighbour; the centre takes the rest (one unit for an odd remainder). */
  left = scale - sum;
  while (left >= 2) {
    int best = -1;
    for (i = 1; i <= radius; i++)
      if (frac[i] >= 0 && k->w[i] + 1 <= k->w[i - 1]
          && (best < 0 || frac[i] > frac[best]))
        best = i;
    if (best < 0)
      break;
    k->w[best]++;
    frac[best] = -1;
    left -= 2;
  }
  k->w[0] += (uint32_t) left;
  if (bits <= CF_BLUR_V_BITS)
    make_half_exact (k, g, total, scale);
  return 0;
}

int
cf_border_index (int i, int n, CfBorder border)
{
  if (i >= 0 && i < n)
    return i;
  switch (border) {
    case CF_BORDER_REPLICATE:
      return i < 0 ? 0 : n - 1;
    case CF_BORDER_REFLECT_101:{
      int period;
      if (n == 1)
        return 0;
      period = 2 * (n - 1);
      i %= period;
      if (i < 0)
        i += period;
      return i < n ? i : period - i;
    }
    case CF_BORDER_CONSTANT:
    default:
      return -1;
  }
}

/* x / 2^s rounded to nearest, halves up (x >= 0) */
static uint32_t
round_shift (uint64_t x, int s)
{
  return (uint32_t) ((x + ((uint64_t) 1 << (s - 1))) >> s);
}

void
cf_ref_blur_plane (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int channels,
    const CfBlurKernel * kx, const CfBlurKernel * ky, CfBorder border,
    const uint8_t border_value[4])
{
  const uint8_t *s = src;
  uint8_t *d = dst;
  int rx = kx->radius, ry = ky->radius;
  int padded_h = height + 2 * ry, x, y, c, i;
  /* horizontal pass of every row the vertical pass needs, border rows
   * included: t values, channels interleaved */
  uint32_t *t = malloc ((size_t) padded_h * width * channels * sizeof (*t));
  int *col = malloc ((size_t) (width + 2 * rx) * sizeof (*col));

  if (!t || !col) {
    free (t);
    free (col);
    return;
  }
  for (x = -rx; x < width + rx; x++)
    col[x + rx] = cf_border_index (x, width, border);

  for (y = -ry; y < height + ry; y++) {
    int sy = cf_border_index (y, height, border);
    for (x = 0; x < width; x++) {
      for (c = 0; c < channels; c++) {
        uint64_t h = 0;
        for (i = -rx; i <= rx; i++) {
          int sx = col[x + i + rx];
          uint32_t p = (sy < 0 || sx < 0) ? border_value[c] :
              s[(size_t) sy * src_pitch + (size_t) sx * channels + c];
          h += (uint64_t) kx->w[abs (i)] * p;
        }
        t[((size_t) (y + ry) * width + x) * channels + c] =
            round_shift (h, CF_BLUR_H_BITS - CF_BLUR_MID_BITS);
      }
    }
  }

  for (y = 0; y < height; y++) {
    for (x = 0; x < width; x++) {
      for (c = 0; c < channels; c++) {
        uint64_t v = 0;
        for (i = -ry; i <= ry; i++)
          v += (uint64_t) ky->w[abs (i)] *
              t[((size_t) (y + i + ry) * width + x) * channels + c];
        d[(size_t) y * dst_pitch + (size_t) x * channels + c] =
            (uint8_t) round_shift (v, CF_BLUR_V_BITS + CF_BLUR_MID_BITS);
      }
    }
  }
  free (t);
  free (col);
}

float
cf_blur_word_weight (const CfBlurKernel * k, int i)
{
  return i <= k->radius ?
      (float) ldexp ((double) k->w[i], -CF_BLUR_WORD_BITS) : 0.0f;
}

void
cf_blur_word_weights (const CfBlurKernel * k, float w[CF_BLUR_MAX_RADIUS + 1])
{
  int i;

  for (i = 0; i <= CF_BLUR_MAX_RADIUS; i++)
    w[i] = cf_blur_word_weight (k, i);
}

/* fmaf and float additions only (C's float arithmetic is IEEE single on
 * the targets built for; nothing here may be contracted or reordered):
 * the same steps as the GPU's __fmaf_rn and __fadd_rn */
float
cf_blur_word_taps (const float *w, int r, const float *p, long step)
{
  float a = 0.0f;
  int i;

  for (i = r; i >= 1; i--) {
    float pair = p[-i * step] + p[i * step];
    a = fmaf (w[i], pair, a);
  }
  return fmaf (w[0], p[0], a);
}

/* a word at any alignment, its sample */
static float
sample_at (const uint8_t * row, int index, int depth, int shift)
{
  const uint8_t *p = row + 2 * (size_t) index;
  return (float) (((p[0] | (uint32_t) p[1] << 8) >> shift) &
      ((1u << depth) - 1));
}

void
cf_ref_blur_plane_words (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int channels, int depth,
    int shift, const CfBlurKernel * kx, const CfBlurKernel * ky,
    CfBorder border, const uint16_t border_value[4])
{
  const uint8_t *s = src;
  uint8_t *d = dst;
  const uint32_t top = (1u << depth) - 1;
  int rx = kx->radius, ry = ky->radius;
  int padded_h = height + 2 * ry, x, y, c;
  float wx[CF_BLUR_MAX_RADIUS + 1], wy[CF_BLUR_MAX_RADIUS + 1], bv[4];
  /* as cf_ref_blur_plane: the horizontal pass of every row the vertical
   * pass needs, border rows included; a row of samples with its border */
  float *t = malloc ((size_t) padded_h * width * channels * sizeof (*t));
  float *ext = malloc ((size_t) (width + 2 * rx) * channels * sizeof (*ext));

  if (!t || !ext) {
    free (t);
    free (ext);
    return;
  }
  cf_blur_word_weights (kx, wx);
  cf_blur_word_weights (ky, wy);
  /* the constant border's values as samples (NULL: 0) */
  for (c = 0; c < 4; c++)
    bv[c] = (float) (border_value ? border_value[c] & top : 0);

  for (y = -ry; y < height + ry; y++) {
    int sy = cf_border_index (y, height, border);
    const uint8_t *row = sy < 0 ? NULL : s + (size_t) sy * src_pitch;
    for (x = -rx; x < width + rx; x++) {
      int sx = cf_border_index (x, width, border);
      for (c = 0; c < channels; c++)
        ext[(x + rx) * channels + c] = (!row || sx < 0) ? bv[c] :
            sample_at (row, sx * channels + c, depth, shift);
    }
    for (x = 0; x < width; x++)
      for (c = 0; c < channels; c++)
        t[((size_t) (y + ry) * width + x) * channels + c] =
            cf_blur_word_taps (wx, rx, ext + (x + rx) * channels + c, channels);
  }

  for (y = 0; y < height; y++) {
    uint8_t *row = d + (size_t) y * dst_pitch;
    for (x = 0; x < width; x++) {
      for (c = 0; c < channels; c++) {
        const float *centre =
            t + ((size_t) (y + ry) * width + x) * channels + c;
        float v = cf_blur_word_taps (wy, ry, centre, (long) width * channels);
        /* to nearest, ties to even: the default rounding mode */
        uint32_t out = (uint32_t) nearbyintf (v), word;
        word = (out < top ? out : top) << shift;
        row[2 * ((size_t) x * channels + c)] = (uint8_t) word;
        row[2 * ((size_t) x * channels + c) + 1] = (uint8_t) (word >> 8);
      }
    }
  }
  free (t);
  free (ext);
}

void
cf_ref_blur_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, const CfBlurKernel * kx,
    const CfBlurKernel * ky, CfBorder border)
{
  /* the four fields as 4 channels of 16-bit words at depth 10, blurred by
   * the words' reference, packed back (the alpha's at most 3) */
  size_t words_pitch = (size_t) width * 8;
  uint16_t *in = calloc (words_pitch * height + 1, 1);
  uint16_t *out = malloc (words_pitch * height + 1);
  int x, y, c;

  if (!in || !out) {
    free (in);
    free (out);
    return;
  }
  for (y = 0; y < height; y++) {
    const uint8_t *row = (const uint8_t *) src + (size_t) y * src_pitch;
    for (x = 0; x < width; x++) {
      uint32_t pixel = cf_read_le32 (row + (size_t) x * 4);
      for (c = 0; c < 4; c++)
        in[((size_t) y * width + x) * 4 + c] =
            (uint16_t) ((pixel >> (10 * c)) & (c == 3 ? 3 : 1023));
    }
  }
  cf_ref_blur_plane_words (in, words_pitch, out, words_pitch, width, height,
      4, 10, 0, kx, ky, border, NULL);
  for (y = 0; y < height; y++) {
    uint8_t *row = (uint8_t *) dst + (size_t) y * dst_pitch;
    for (x = 0; x < width; x++) {
      uint32_t pixel = 0;
      for (c = 0; c < 4; c++) {
        uint32_t v = out[((size_t) y * width + x) * 4 + c];
        pixel |= (c == 3 && v > 3 ? 3 : v) << (10 * c);
      }
      row[(size_t) x * 4] = (uint8_t) pixel;
      row[(size_t) x * 4 + 1] = (uint8_t) (pixel >> 8);
      row[(size_t) x * 4 + 2] = (uint8_t) (pixel >> 16);
      row[(size_t) x * 4 + 3] = (uint8_t) (pixel >> 24);
    }
  }
  free (in);
  free (out);
}
