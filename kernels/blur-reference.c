/* CPU reference of kernels/blur.cu, and the kernel weights both use. */
#include "cudafilters-kernels.h"

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
