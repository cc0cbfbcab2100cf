/* The CPU reference of cudablur, checked without a GPU: the kernel weights
 * (sums, symmetry, OpenCV's radius rule), the border rules, and the fixed
 * point result against a true Gaussian computed in double precision, within
 * +-1 on random, edge and gradient frames of every channel count. */
#include <gst/check/gstcheck.h>
#include <math.h>

#include "cudafilters-kernels.h"
#include "cf-test-util.h"

static const double sigmas[] = { 0.3, 1, 2, 5, 20 };

GST_START_TEST (test_radius_rule)
{
  /* OpenCV's GaussianBlur for 8-bit: ksize = round(6 sigma + 1) | 1 */
  fail_unless_equals_int (cf_blur_radius_for_sigma (0), 0);
  fail_unless_equals_int (cf_blur_radius_for_sigma (0.1), 1);
  fail_unless_equals_int (cf_blur_radius_for_sigma (0.3), 1);
  fail_unless_equals_int (cf_blur_radius_for_sigma (1), 3);
  fail_unless_equals_int (cf_blur_radius_for_sigma (2), 6);
  fail_unless_equals_int (cf_blur_radius_for_sigma (2.6), 8);
  fail_unless_equals_int (cf_blur_radius_for_sigma (5), 15);
  fail_unless_equals_int (cf_blur_radius_for_sigma (20), 60);
  fail_unless_equals_int (cf_blur_radius_for_sigma (50), 150);
}

GST_END_TEST;

GST_START_TEST (test_kernel_weights)
{
  static const int bits[] = { CF_BLUR_H_BITS, CF_BLUR_V_BITS };
  double sigma;
  guint b;

  for (b = 0; b < G_N_ELEMENTS (bits); b++) {
    for (sigma = 0.05; sigma <= 50; sigma *= 1.3) {
      /* OpenCV's radius, and radii set apart from sigma */
      const int radii[] = { cf_blur_radius_for_sigma (sigma), 1, 2, 3, 8, 32 };
      guint j;
      for (j = 0; j < G_N_ELEMENTS (radii); j++) {
        CfBlurKernel k;
        int r = radii[j], i;
        guint64 sum;

        fail_unless (cf_blur_kernel_make (sigma, r, bits[b], &k) == 0);
        fail_unless_equals_int (k.radius, r);
        sum = k.w[0];
        for (i = 1; i <= r; i++) {
          sum += 2 * (guint64) k.w[i];
          /* unimodal: never rises away from the centre */
          fail_unless (k.w[i] <= k.w[i - 1], "sigma %f: w[%d]=%u > w[%d]=%u",
              sigma, i, k.w[i], i - 1, k.w[i - 1]);
        }
        /* the vertical filter's weights are exact in half precision: at
         * most 11 significant bits */
        for (i = 0; i <= r && bits[b] == CF_BLUR_V_BITS; i++) {
          guint32 w = k.w[i];
          while (w >= 2048 && w % 2 == 0)
            w /= 2;
          fail_unless (w < 2048, "sigma %f: w[%d]=%u is not a half", sigma, i,
              k.w[i]);
        }
        fail_unless (sum == ((guint64) 1 << bits[b]), "sigma %f sums to %"
            G_GUINT64_FORMAT, sigma, sum);
      }
    }
  }
  {
    CfBlurKernel k;
    fail_unless (cf_blur_kernel_make (0, 5, 15, &k) == 0);
    fail_unless_equals_int (k.radius, 0);
    fail_unless_equals_int (k.w[0], 1 << 15);
    fail_if (cf_blur_kernel_make (1, CF_BLUR_MAX_RADIUS + 1, 15, &k) == 0);
    fail_if (cf_blur_kernel_make (-1, 3, 15, &k) == 0);
  }
}

GST_END_TEST;

GST_START_TEST (test_border_rules)
{
  /* replicate aaa|abcd|ddd, reflect-101 dcb|abcd|cba, constant -1 */
  static const int rep[] = { 0, 0, 0, 0, 1, 2, 3, 3, 3, 3 };
  static const int ref[] = { 3, 2, 1, 0, 1, 2, 3, 2, 1, 0 };
  int i;

  for (i = -3; i < 7; i++) {
    fail_unless_equals_int (cf_border_index (i, 4, CF_BORDER_REPLICATE),
        rep[i + 3]);
    fail_unless_equals_int (cf_border_index (i, 4, CF_BORDER_REFLECT_101),
        ref[i + 3]);
    fail_unless_equals_int (cf_border_index (i, 4, CF_BORDER_CONSTANT),
        (i >= 0 && i < 4) ? i : -1);
  }
  /* far outside, and a one-pixel frame */
  fail_unless_equals_int (cf_border_index (-100, 4, CF_BORDER_REFLECT_101), 2);
  fail_unless_equals_int (cf_border_index (100, 4, CF_BORDER_REFLECT_101), 2);
  fail_unless_equals_int (cf_border_index (-7, 1, CF_BORDER_REFLECT_101), 0);
  fail_unless_equals_int (cf_border_index (7, 1, CF_BORDER_REPLICATE), 0);
}

GST_END_TEST;

/* The frame's values @v (w x h pixels of ch channels) convolved in double
 * precision with the same truncated Gaussian, normalised in real numbers,
 * the same border rule. */
static double
true_gaussian (const guint32 * v, int w, int h, int ch, int x, int y,
    int c, double sx, double sy, int rx, int ry, CfBorder border, guint32 bv)
{
  double gx[CF_BLUR_MAX_RADIUS + 1], gy[CF_BLUR_MAX_RADIUS + 1];
  double nx = 0, ny = 0, acc = 0;
  int i, j;

  for (i = 0; i <= rx; i++) {
    gx[i] = rx ? exp (-(double) i * i / (2 * sx * sx)) : 1;
    nx += i ? 2 * gx[i] : gx[i];
  }
  for (j = 0; j <= ry; j++) {
    gy[j] = ry ? exp (-(double) j * j / (2 * sy * sy)) : 1;
    ny += j ? 2 * gy[j] : gy[j];
  }
  for (j = -ry; j <= ry; j++) {
    int yy = cf_border_index (y + j, h, border);
    for (i = -rx; i <= rx; i++) {
      int xx = cf_border_index (x + i, w, border);
      double p = (yy < 0 || xx < 0) ? bv : v[(yy * w + xx) * ch + c];
      acc += gx[abs (i)] / nx * gy[abs (j)] / ny * p;
    }
  }
  return acc;
}

typedef enum
{ CONTENT_RANDOM, CONTENT_EDGES, CONTENT_GRADIENT, CONTENT_SOLID } Content;

static void
fill (guint8 * p, int w, int h, int ch, Content content, GRand * rand)
{
  int x, y, c;
  guint8 solid = g_rand_int_range (rand, 0, 256);

  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (c = 0; c < ch; c++) {
        guint8 *v = &p[(y * w + x) * ch + c];
        switch (content) {
          case CONTENT_RANDOM:
            *v = g_rand_int_range (rand, 0, 256);
            break;
          case CONTENT_EDGES:  /* a checkerboard of 5-pixel squares */
            *v = (((x / 5) + (y / 5) + c) & 1) ? 255 : 0;
            break;
          case CONTENT_GRADIENT:
            *v = (guint8) ((x * 7 + y * 3 + c * 50) & 255);
            break;
          case CONTENT_SOLID:
            *v = solid;
            break;
        }
      }
}

GST_START_TEST (test_reference_is_a_true_gaussian)
{
  GRand *rand = g_rand_new ();
  const int w = 37, h = 23;     /* smaller than 2r+1 for sigma 5 and 20 */
  guint s, ch, border, content;
  double worst = 0;

  for (s = 0; s < G_N_ELEMENTS (sigmas); s++) {
    for (ch = 1; ch <= 4; ch++) {
      for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT; border++) {
        for (content = CONTENT_RANDOM; content <= CONTENT_SOLID; content++) {
          /* vertical sigma differs from the horizontal one */
          double sx = sigmas[s], sy = sigmas[s] * 0.7;
          int rx = cf_blur_radius_for_sigma (sx);
          int ry = cf_blur_radius_for_sigma (sy);
          CfBlurKernel kx, ky;
          guint8 src[37 * 23 * 4], dst[37 * 23 * 4], bv[4] = { 17, 99, 200,
            3
          };
          guint32 values[37 * 23 * 4];
          int x, y, c, i;

          fill (src, w, h, ch, content, rand);
          for (i = 0; i < w * h * (int) ch; i++)
            values[i] = src[i];
          fail_unless (cf_blur_kernel_make (sx, rx, CF_BLUR_H_BITS, &kx) == 0);
          fail_unless (cf_blur_kernel_make (sy, ry, CF_BLUR_V_BITS, &ky) == 0);
          cf_ref_blur_plane (src, w * ch, dst, w * ch, w, h, ch, &kx, &ky,
              border, bv);
          for (y = 0; y < h; y++)
            for (x = 0; x < w; x++)
              for (c = 0; c < (int) ch; c++) {
                double t = true_gaussian (values, w, h, ch, x, y, c, sx, sy,
                    rx, ry, border, bv[c]);
                double err = fabs (dst[(y * w + x) * ch + c] - t);
                worst = MAX (worst, err);
                if (err >= 1.0)
                  fail ("sigma %g ch %u border %u content %u (%d,%d,%d): "
                      "%u vs %.3f", sx, ch, border, content, x, y, c,
                      dst[(y * w + x) * ch + c], t);
                /* a solid frame stays exactly solid (constant border: only
                 * away from the edges) */
                if (content == CONTENT_SOLID && border != CF_BORDER_CONSTANT)
                  fail_unless_equals_int (dst[(y * w + x) * ch + c],
                      src[(y * w + x) * ch + c]);
              }
        }
      }
    }
  }
  g_print ("largest difference from the true Gaussian: %.3f\n", worst);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_identity_and_tiny_frames)
{
  GRand *rand = g_rand_new ();
  CfBlurKernel id_h, id_v, kx, ky;
  guint8 src[1 * 17 * 3], dst[1 * 17 * 3], bv[4] = { 0, 0, 0, 0 };

  /* sigma 0 both ways: the frame as it is */
  cf_blur_kernel_make (0, 0, CF_BLUR_H_BITS, &id_h);
  cf_blur_kernel_make (0, 0, CF_BLUR_V_BITS, &id_v);
  fill (src, 17, 1, 3, CONTENT_RANDOM, rand);
  cf_ref_blur_plane (src, 51, dst, 51, 17, 1, 3, &id_h, &id_v,
      CF_BORDER_REPLICATE, bv);
  fail_unless (memcmp (src, dst, sizeof (src)) == 0);

  /* 1x1 under any radius and rule: replicate and reflect give the pixel */
  cf_blur_kernel_make (20, 60, CF_BLUR_H_BITS, &kx);
  cf_blur_kernel_make (20, 60, CF_BLUR_V_BITS, &ky);
  src[0] = 201;
  cf_ref_blur_plane (src, 1, dst, 1, 1, 1, 1, &kx, &ky, CF_BORDER_REPLICATE,
      bv);
  fail_unless_equals_int (dst[0], 201);
  cf_ref_blur_plane (src, 1, dst, 1, 1, 1, 1, &kx, &ky, CF_BORDER_REFLECT_101,
      bv);
  fail_unless_equals_int (dst[0], 201);
  g_rand_free (rand);
}

GST_END_TEST;

/* The high-bit scheme (CF_BLUR_WORD_BITS): within 1 of the true Gaussian
 * at 10, 12 and 16 bits, samples at the top (P010) and the bottom of their
 * words, every border, channel count and content; solid frames stay solid;
 * the word's bits outside the sample are 0 in the output and ignored in
 * the input. */
GST_START_TEST (test_words_reference_is_a_true_gaussian)
{
  static const struct
  {
    int depth, shift;
  } layouts[] = { {10, 6}, {10, 0}, {12, 4}, {16, 0} };
  GRand *rand = g_rand_new ();
  const int w = 37, h = 23;
  guint l, s, ch, border, content;
  double worst = 0;

  for (l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (s = 0; s < G_N_ELEMENTS (sigmas); s++)
      for (ch = 1; ch <= 4; ch++)
        for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT;
            border++)
          for (content = CONTENT_RANDOM; content <= CONTENT_SOLID; content++) {
            const int depth = layouts[l].depth, shift = layouts[l].shift;
            const guint32 top = (1u << depth) - 1;
            double sx = sigmas[s], sy = sigmas[s] * 0.7;
            int rx = cf_blur_radius_for_sigma (sx);
            int ry = cf_blur_radius_for_sigma (sy);
            CfBlurKernel kx, ky;
            guint32 v[37 * 23 * 4], solid = g_rand_int_range (rand, 0, top + 1);
            guint16 src[37 * 23 * 4], dst[37 * 23 * 4];
            guint16 bv[4] = { top / 7, top / 2, top, 3 };
            int x, y, c, i;

            for (y = 0; y < h; y++)
              for (x = 0; x < w; x++)
                for (c = 0; c < (int) ch; c++) {
                  guint32 *p = &v[(y * w + x) * ch + c];
                  switch (content) {
                    case CONTENT_RANDOM:
                      *p = g_rand_int_range (rand, 0, top + 1);
                      break;
                    case CONTENT_EDGES:
                      *p = (((x / 5) + (y / 5) + c) & 1) ? top : 0;
                      break;
                    case CONTENT_GRADIENT:
                      *p = (guint32) ((x * 7 + y * 3 + c * 50) * 97) & top;
                      break;
                    default:
                      *p = solid;
                      break;
                  }
                }
            /* the sample in its place, stray bits around it */
            for (i = 0; i < w * h * (int) ch; i++)
              src[i] = (guint16) ((v[i] << shift) |
                  (g_rand_int (rand) & ((1u << shift) - 1)));
            fail_unless (cf_blur_kernel_make (sx, rx, CF_BLUR_WORD_BITS,
                    &kx) == 0);
            fail_unless (cf_blur_kernel_make (sy, ry, CF_BLUR_WORD_BITS,
                    &ky) == 0);
            cf_ref_blur_plane_words (src, 2 * w * ch, dst, 2 * w * ch, w, h,
                ch, depth, shift, &kx, &ky, border, bv);
            for (y = 0; y < h; y++)
              for (x = 0; x < w; x++)
                for (c = 0; c < (int) ch; c++) {
                  guint16 word = dst[(y * w + x) * ch + c];
                  double t = true_gaussian (v, w, h, ch, x, y, c, sx,
                      sy, rx, ry, border, bv[c]);
                  double err = fabs ((word >> shift) - t);

                  fail_unless ((word & ((1u << shift) - 1)) == 0,
                      "stray bits out: %04x", word);
                  worst = MAX (worst, err);
                  if (err >= 1.0)
                    fail ("depth %d shift %d sigma %g ch %u border %u "
                        "content %u (%d,%d,%d): %u vs %.3f", depth, shift, sx,
                        ch, border, content, x, y, c, word >> shift, t);
                  if (content == CONTENT_SOLID && border != CF_BORDER_CONSTANT)
                    fail_unless_equals_int (word >> shift, solid);
                }
          }
  g_print ("high bit depth: largest difference from the true Gaussian: "
      "%.3f\n", worst);
  g_rand_free (rand);
}

GST_END_TEST;

/* Half the spacing of floats at x > 0: the most a rounding to a float of
 * at most x moves it */
static double
half_ulp (double x)
{
  int e;

  frexp (x, &e);
  return ldexp (1.0, e - 25);
}

/* The bound of docs/design/high-bit-depth.md on what the roundings of one
 * pass move its sum, for values up to `top` whose pairs round by up to
 * pair_error: each fma's rounding is at most half a float's spacing at
 * its result, which is at most top times the weights summed so far
 * (outermost first, so small while most taps are added) */
static double
taps_bound (const float *w, int r, double top, double pair_error)
{
  double bound = 0, so_far = 0;
  int i;

  for (i = r; i >= 1; i--) {
    so_far += 2.0 * w[i];
    bound += half_ulp (top * so_far * (1 + 1e-6)) + w[i] * pair_error;
  }
  so_far += w[0];
  return bound + half_ulp (top * so_far * (1 + 1e-6));
}

/* cf_blur_word_taps at every radius, wide and narrow kernels, on samples
 * (integers: pairs exact) and on t (floats up to 65535: pairs rounded)
 * of solid, random and extreme content: within the bound above of the
 * exact sum with the same weights; and the two passes' bounds, with what
 * the weights' own roundings (28 bits, then the nearest float) move a
 * sum from the true Gaussian's, under 0.27 in all, so that the output is
 * within 1 of the true Gaussian for any input. */
GST_START_TEST (test_word_taps_rounding)
{
  const double top = 65535;
  GRand *rand = g_rand_new ();
  double worst = 0, worst_total = 0;
  int r, narrow, content, trial, i;

  for (r = 1; r <= CF_BLUR_MAX_RADIUS; r++)
    for (narrow = 0; narrow <= 1; narrow++) {
      double sigma = narrow ? r / 6.0 : r / 3.0, g[CF_BLUR_MAX_RADIUS + 1];
      double total = 0, weights_error = 0, bounds[2];
      float w[CF_BLUR_MAX_RADIUS + 1], p[2 * CF_BLUR_MAX_RADIUS + 1];
      CfBlurKernel k;

      fail_unless (cf_blur_kernel_make (sigma, r, CF_BLUR_WORD_BITS, &k) == 0);
      cf_blur_word_weights (&k, w);
      for (i = 0; i <= r; i++) {
        g[i] = exp (-(double) i * i / (2 * sigma * sigma));
        total += i ? 2 * g[i] : g[i];
      }
      for (i = 0; i <= r; i++)
        weights_error += (i ? 2 : 1) * fabs (w[i] - g[i] / total) * top;
      /* samples' pairs are exact; t's round by half a spacing at 2 top */
      bounds[0] = taps_bound (w, r, top, 0);
      bounds[1] = taps_bound (w, r, top, half_ulp (2 * top));
      worst_total = MAX (worst_total, bounds[0] + bounds[1] +
          2 * weights_error);
      fail_unless (bounds[0] + bounds[1] + 2 * weights_error < 0.27,
          "radius %d sigma %g: bound %g", r, sigma,
          bounds[0] + bounds[1] + 2 * weights_error);

      for (content = 0; content < 4; content++)
        for (trial = 0; trial < (content ? 20 : 1); trial++) {
          double exact = 0, got, err;
          for (i = 0; i <= 2 * r; i++) {
            switch (content) {
              case 0:          /* solid, the top */
                p[i] = (float) top;
                break;
              case 1:          /* random samples */
                p[i] = (float) g_rand_int_range (rand, 0, 65536);
                break;
              case 2:          /* the extremes */
                p[i] = g_rand_boolean (rand) ? (float) top : 0.0f;
                break;
              default:         /* t: floats with fraction bits */
                p[i] = (float) g_rand_double_range (rand, 0, top);
                break;
            }
          }
          for (i = -r; i <= r; i++)
            exact += (double) w[abs (i)] * p[r + i];
          got = cf_blur_word_taps (w, r, p + r, 1);
          err = fabs (got - exact);
          worst = MAX (worst, err);
          fail_unless (err <= bounds[content == 3],
              "radius %d sigma %g content %d: %.6f from the exact sum, "
              "bound %.6f", r, sigma, content, err, bounds[content == 3]);
        }
    }
  g_print ("words' taps: largest rounding %.4f; largest bound of both "
      "passes and the weights %.4f\n", worst, worst_total);
  g_rand_free (rand);
}

GST_END_TEST;

CF_TEST_SUITE (blur_reference_suite, "blur-reference",
    CF_TEST_CASE ("general", 300),
    CF_TEST (test_radius_rule),
    CF_TEST (test_kernel_weights),
    CF_TEST (test_border_rules),
    CF_TEST (test_reference_is_a_true_gaussian),
    CF_TEST (test_identity_and_tiny_frames),
    CF_TEST (test_words_reference_is_a_true_gaussian),
    CF_TEST (test_word_taps_rounding));

GST_CHECK_MAIN (blur_reference);
