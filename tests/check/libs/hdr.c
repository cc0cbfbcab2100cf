/* The light levels of HDR video as defined on the CPU (gstcudafiltershdr.c):
 * the PQ EOTF against its inverse and BT.2100's anchors, the light of each
 * code, the fixed-point max(R', G', B') against the same matrix in double
 * on random and extreme samples of every depth and range, and a frame's
 * largest and average light from its counts.  No GPU. */
#include <math.h>
#include <gst/check/gstcheck.h>

#include "gstcudafiltershdr.h"

#define CODES GST_CUDA_FILTERS_LIGHT_CODES

/* BT.2020's luma weights */
#define KR 0.2627
#define KB 0.0593

GST_START_TEST (test_pq_eotf)
{
  static const gdouble lights[] = { 0.005, 0.1, 1, 48, 100, 203, 1000, 4000,
    10000
  };
  guint i;

  fail_unless (gst_cuda_filters_pq_eotf (0.0) == 0.0);
  fail_unless (fabs (gst_cuda_filters_pq_eotf (1.0) - 10000.0) < 1e-9);
  /* out of range: clamped */
  fail_unless (gst_cuda_filters_pq_eotf (-0.5) == 0.0);
  fail_unless (fabs (gst_cuda_filters_pq_eotf (1.5) - 10000.0) < 1e-9);
  for (i = 0; i < G_N_ELEMENTS (lights); i++) {
    gdouble back =
        gst_cuda_filters_pq_eotf (gst_cuda_filters_pq_inverse_eotf (lights[i]));
    fail_unless (fabs (back / lights[i] - 1.0) < 1e-9, "%g cd/m2 -> %g",
        lights[i], back);
  }
  /* BT.2100 / BT.2408: 100 cd/m2 is PQ 0.508, 203 cd/m2 (HDR reference
   * white) 0.58, 1000 cd/m2 0.75 */
  fail_unless (fabs (gst_cuda_filters_pq_inverse_eotf (100) - 0.5081) < 1e-4);
  fail_unless (fabs (gst_cuda_filters_pq_inverse_eotf (203) - 0.5806) < 1e-4);
  fail_unless (fabs (gst_cuda_filters_pq_inverse_eotf (1000) - 0.7518) < 1e-4);
}

GST_END_TEST;

GST_START_TEST (test_light_of_codes)
{
  gdouble *light = g_new (gdouble, CODES);
  guint v;

  gst_cuda_filters_light_of_codes_pq (light);
  fail_unless (light[0] == 0.0);
  fail_unless (fabs (light[CODES - 1] - 10000.0) < 1e-9);
  for (v = 1; v < CODES; v++) {
    fail_unless (light[v] > light[v - 1], "code %u", v);
    fail_unless (light[v] == gst_cuda_filters_pq_eotf (v / (gdouble) (CODES -
                1)));
  }
  g_free (light);
}

GST_END_TEST;

/* max(R', G', B') of integer samples, in codes, in double: the definition
 * the fixed-point code rounds */
static gdouble
max_rgb_exact (guint depth, gboolean full, gint y, gint cb, gint cr)
{
  gdouble scale = 1 << (depth - 8), yn, bn, rn, r, g, b;
  gdouble kg = 1.0 - KR - KB;

  if (full) {
    gdouble range = (1 << depth) - 1;
    yn = y / range;
    bn = (cb - (1 << (depth - 1))) / range;
    rn = (cr - (1 << (depth - 1))) / range;
  } else {
    yn = (y - 16 * scale) / (219 * scale);
    bn = (cb - (1 << (depth - 1))) / (224 * scale);
    rn = (cr - (1 << (depth - 1))) / (224 * scale);
  }
  r = yn + 2 * (1 - KR) * rn;
  b = yn + 2 * (1 - KB) * bn;
  g = (yn - KR * r - KB * b) / kg;
  return (CODES - 1) * MAX (r, MAX (g, b));
}

/* the fixed-point code is the exact value rounded (and clamped), up to the
 * coefficients' rounding: within 1e-3 of a code of it */
static void
check_max_rgb (const GstCudaFiltersMaxRgb * m, guint depth, gboolean full,
    gint y, gint cb, gint cr)
{
  guint code = gst_cuda_filters_max_rgb_code (m, y, cb, cr);
  gdouble want = CLAMP (max_rgb_exact (depth, full, y, cb, cr), 0.0,
      CODES - 1);

  fail_unless (fabs (code - want) <= 0.5 + 1e-3, "depth %u full %d: "
      "Y'CbCr %d %d %d: code %u, exactly %.6f", depth, full, y, cb, cr, code,
      want);
}

GST_START_TEST (test_max_rgb_code)
{
  static const guint depths[] = { 8, 10, 12, 16 };
  GRand *rand = g_rand_new ();
  guint d, i;
  gint full;

  for (d = 0; d < G_N_ELEMENTS (depths); d++)
    for (full = 0; full <= 1; full++) {
      guint depth = depths[d];
      gint top = (1 << depth) - 1, mid = 1 << (depth - 1), y;
      GstCudaFiltersMaxRgb m;

      fail_unless (gst_cuda_filters_max_rgb_init (&m, depth, full, KR, KB));
      /* neutral: every luma sample */
      for (y = 0; y <= top; y += depth > 12 ? 7 : 1)
        check_max_rgb (&m, depth, full, y, mid, mid);
      /* the corners of the sample cube */
      for (i = 0; i < 8; i++)
        check_max_rgb (&m, depth, full, i & 1 ? top : 0, i & 2 ? top : 0,
            i & 4 ? top : 0);
      for (i = 0; i < 200000; i++)
        check_max_rgb (&m, depth, full, g_rand_int_range (rand, 0, top + 1),
            g_rand_int_range (rand, 0, top + 1),
            g_rand_int_range (rand, 0, top + 1));
    }
  g_rand_free (rand);
}

GST_END_TEST;

/* The anchors of narrow-range 10-bit BT.2020: black, white, the primaries
 * at full strength. */
GST_START_TEST (test_max_rgb_anchors)
{
  GstCudaFiltersMaxRgb m;
  guint code;

  fail_unless (gst_cuda_filters_max_rgb_init (&m, 10, FALSE, KR, KB));
  fail_unless_equals_int (gst_cuda_filters_max_rgb_code (&m, 64, 512, 512), 0);
  fail_unless_equals_int (gst_cuda_filters_max_rgb_code (&m, 940, 512, 512),
      CODES - 1);
  /* below black and above white: clamped */
  fail_unless_equals_int (gst_cuda_filters_max_rgb_code (&m, 4, 512, 512), 0);
  fail_unless_equals_int (gst_cuda_filters_max_rgb_code (&m, 1019, 512, 512),
      CODES - 1);
  /* R' = 1: Y' = Kr, Cb = -Kr / (2 (1 - Kb)), Cr = 1/2, quantized */
  fail_unless (gst_cuda_filters_max_rgb_code (&m, 64 + 876 * KR + 0.5,
          512 - 896 * KR / (2 * (1 - KB)) + 0.5, 512 + 448) >= CODES - 8);
  /* B' = 1 */
  fail_unless (gst_cuda_filters_max_rgb_code (&m, 64 + 876 * KB + 0.5,
          512 + 448, 512 - 896 * KB / (2 * (1 - KR)) + 0.5) >= CODES - 8);
  /* R' = 1/2, not clamped: code 2047.5, give or take the samples' rounding
   * (half a step of Y, Cb and Cr: under 6 codes) */
  code = gst_cuda_filters_max_rgb_code (&m, 64 + 876 * KR / 2 + 0.5,
      512 - 448 * KR / (2 * (1 - KB)) + 0.5, 512 + 224);
  fail_unless (code >= 2041 && code <= 2054, "R' 1/2: code %u", code);
  /* the matrix is BT.2020's published one: 1.4746, 1.8814, 0.16455,
   * 0.57135, times codes over chroma steps */
  fail_unless (fabs (ldexp ((gdouble) m.cr_r, -32) / (4095.0 / 896) -
          1.4746) < 1e-4);
  fail_unless (fabs (ldexp ((gdouble) m.cb_b, -32) / (4095.0 / 896) -
          1.8814) < 1e-4);
  fail_unless (fabs (ldexp ((gdouble) m.cb_g, -32) / (4095.0 / 896) -
          0.16455) < 1e-5);
  fail_unless (fabs (ldexp ((gdouble) m.cr_g, -32) / (4095.0 / 896) -
          0.57135) < 1e-5);

  fail_if (gst_cuda_filters_max_rgb_init (&m, 7, FALSE, KR, KB));
  fail_if (gst_cuda_filters_max_rgb_init (&m, 17, FALSE, KR, KB));
  fail_if (gst_cuda_filters_max_rgb_init (&m, 10, FALSE, 0.6, 0.5));
}

GST_END_TEST;

/* packed R'G'B': every sample's code at 10 bits (and every 7th at 12 and
 * 16), both ranges, is the exact value rounded (either way at a half);
 * the pixel's is its largest sample's */
GST_START_TEST (test_max_rgb_code_rgb)
{
  static const guint depths[] = { 10, 12, 16 };
  GstCudaFiltersRgbScale s;
  guint d, full, v;

  fail_unless (gst_cuda_filters_rgb_scale_init (&s, 10, TRUE));
  fail_unless_equals_int (gst_cuda_filters_max_rgb_code_rgb (&s, 0, 0, 0), 0);
  fail_unless_equals_int (gst_cuda_filters_max_rgb_code_rgb (&s, 1023, 0, 0),
      CODES - 1);
  fail_unless_equals_int (gst_cuda_filters_max_rgb_code_rgb (&s, 3, 1023, 7),
      CODES - 1);
  fail_unless_equals_int (gst_cuda_filters_max_rgb_code_rgb (&s, 3, 9, 512),
      gst_cuda_filters_max_rgb_code_rgb (&s, 512, 0, 0));
  fail_if (gst_cuda_filters_rgb_scale_init (&s, 7, TRUE));
  fail_if (gst_cuda_filters_rgb_scale_init (&s, 17, FALSE));
  for (d = 0; d < G_N_ELEMENTS (depths); d++)
    for (full = 0; full < 2; full++) {
      guint depth = depths[d], step = depth == 10 ? 1 : 7;
      gdouble offset = full ? 0 : 16 << (depth - 8);
      gdouble span = full ? (1u << depth) - 1 : 219u << (depth - 8);
      guint halves = 0;

      fail_unless (gst_cuda_filters_rgb_scale_init (&s, depth, full));
      for (v = 0; v < (1u << depth); v += step) {
        gdouble want = CLAMP ((v - offset) * (CODES - 1) / span, 0,
            CODES - 1);
        guint code = gst_cuda_filters_max_rgb_code_rgb (&s, v / 2, v, v / 3);
        gdouble from_half = fabs (want - floor (want) - 0.5);

        if (from_half < 1e-9) {
          halves++;
          fail_unless (fabs (code - want) <= 0.5 + 1e-9, "%u bits %s: %u: %u",
              depth, full ? "full" : "narrow", v, code);
        } else {
          fail_unless_equals_int (code, (guint) floor (want + 0.5));
        }
      }
      /* (full range has no halves: 2^d - 1 is odd) */
      fail_unless (full ? halves == 0 : TRUE);
    }
}

GST_END_TEST;

GST_START_TEST (test_light_levels)
{
  guint64 *counts = g_new0 (guint64, CODES);
  gdouble *light = g_new (gdouble, CODES);
  gdouble max_light = -1, average = -1;

  gst_cuda_filters_light_of_codes_pq (light);
  /* no pixels */
  fail_unless (gst_cuda_filters_light_levels (counts, light, &max_light,
          &average) == 0);
  fail_unless (max_light == 0.0 && average == 0.0);
  /* every pixel at one code */
  counts[2000] = 3840 * 2160;
  fail_unless (gst_cuda_filters_light_levels (counts, light, &max_light,
          &average) == 3840 * 2160);
  fail_unless (max_light == light[2000]);
  fail_unless (fabs (average / light[2000] - 1.0) < 1e-12);
  /* three pixels at black, one at 10000 cd/m2 */
  counts[2000] = 0;
  counts[0] = 3;
  counts[CODES - 1] = 1;
  fail_unless (gst_cuda_filters_light_levels (counts, light, &max_light,
          &average) == 4);
  fail_unless (max_light == light[CODES - 1]);
  fail_unless (fabs (average - 2500.0) < 1e-9);
  g_free (counts);
  g_free (light);
}

GST_END_TEST;

/* The codes of R', G', B' agree with max(R', G', B')'s: their largest is
 * its code, on random samples of every depth and range */
GST_START_TEST (test_rgb_codes)
{
  static const guint depths[] = { 10, 12, 16 };
  GRand *rand = g_rand_new ();
  guint d, full, i;

  for (d = 0; d < G_N_ELEMENTS (depths); d++)
    for (full = 0; full < 2; full++) {
      GstCudaFiltersMaxRgb m;
      gint top = (1 << depths[d]) - 1;

      fail_unless (gst_cuda_filters_max_rgb_init (&m, depths[d], full, KR, KB));
      for (i = 0; i < 100000; i++) {
        gint y = g_rand_int_range (rand, 0, top + 1);
        gint cb = g_rand_int_range (rand, 0, top + 1);
        gint cr = g_rand_int_range (rand, 0, top + 1);
        guint32 codes[3];

        cf_rgb_codes (&m, y, cb, cr, codes);
        fail_unless_equals_int (MAX (codes[0], MAX (codes[1], codes[2])),
            gst_cuda_filters_max_rgb_code (&m, y, cb, cr));
      }
      /* neutral chroma: R' = G' = B' */
      {
        guint32 codes[3];

        cf_rgb_codes (&m, top / 3, 1 << (depths[d] - 1),
            1 << (depths[d] - 1), codes);
        fail_unless (codes[0] == codes[1] && codes[1] == codes[2]);
      }
    }
  g_rand_free (rand);
}

GST_END_TEST;

/* HLG: the inverse OETF's definition and anchors, the system gamma, and
 * a pixel's fixed-point display light against the OOTF in double */
GST_START_TEST (test_hlg)
{
  CfHlgTables *t = g_new (CfHlgTables, 1);
  GRand *rand = g_rand_new ();
  const gdouble scale = (gdouble) (1u << CF_HLG_SCALE_BITS);
  gdouble worst = 0, max_cd, average_cd;
  guint i;

  fail_unless (gst_cuda_filters_hlg_inverse_oetf (0.0) == 0.0);
  fail_unless (fabs (gst_cuda_filters_hlg_inverse_oetf (0.5) - 1.0 / 12) <
      1e-12);
  /* the two pieces meet at 1/2, and 1 is the top */
  fail_unless (fabs (gst_cuda_filters_hlg_inverse_oetf (0.5 + 1e-9) - 1.0 /
          12) < 1e-8);
  fail_unless (fabs (gst_cuda_filters_hlg_inverse_oetf (1.0) - 1.0) < 1e-6);
  for (i = 1; i <= 1000; i++)
    fail_unless (gst_cuda_filters_hlg_inverse_oetf (i / 1000.0) >
        gst_cuda_filters_hlg_inverse_oetf ((i - 1) / 1000.0));
  fail_unless (fabs (gst_cuda_filters_hlg_gamma (1000) - 1.2) < 1e-12);
  fail_unless (fabs (gst_cuda_filters_hlg_gamma (2000) - (1.2 + 0.42 *
              log10 (2.0))) < 1e-12);
  fail_if (gst_cuda_filters_hlg_init (t, KR, KB, 100));
  fail_unless (gst_cuda_filters_hlg_init (t, KR, KB, 1000));
  fail_unless_equals_int (t->weights[0] + t->weights[1] + t->weights[2], 65536);
  fail_unless (t->scene[0] == 0 && t->scene[CODES - 1] <= 1u << 24);

  /* BT.2408: a grey at HLG 75 % is 203 cd/m2 on a 1000 cd/m2 display */
  {
    guint32 codes[3];
    guint32 light;

    codes[0] = codes[1] = codes[2] = (guint32) lround (0.75 * (CODES - 1));
    light = cf_hlg_light (t, codes);
    gst_cuda_filters_hlg_light_levels (light, light, 1, 1000, &max_cd,
        &average_cd);
    fail_unless (fabs (max_cd - 203.0) < 1.0, "HLG 75 %%: %g cd/m2", max_cd);
    fail_unless (max_cd == average_cd);
    /* white: the peak, within the last step of the gain's table */
    codes[0] = codes[1] = codes[2] = CODES - 1;
    gst_cuda_filters_hlg_light_levels (cf_hlg_light (t, codes), 0, 0, 1000,
        &max_cd, &average_cd);
    fail_unless (fabs (max_cd - 1000.0) < 0.01, "white: %g", max_cd);
    fail_unless (average_cd == 0.0);
  }

  /* random pixels: the fixed point against the OOTF in double on the same
   * codes, within 0.1 % where the scene luminance is at least 1/256 (the
   * gain's step is finer there), within 0.05 cd/m2 below */
  for (i = 0; i < 200000; i++) {
    guint32 codes[3];
    gdouble e[3], ys, want, got;
    guint c;

    for (c = 0; c < 3; c++) {
      codes[c] = g_rand_int_range (rand, 0, CODES);
      e[c] = gst_cuda_filters_hlg_inverse_oetf (codes[c] / (gdouble) (CODES -
              1));
    }
    ys = KR * e[0] + (1 - KR - KB) * e[1] + KB * e[2];
    want = 1000.0 * pow (ys, 0.2) * MAX (e[0], MAX (e[1], e[2]));
    got = 1000.0 * cf_hlg_light (t, codes) / scale;
    if (ys >= 1.0 / 256) {
      fail_unless (fabs (got - want) <= 1e-3 * want, "codes %u %u %u: %g "
          "cd/m2, want %g", codes[0], codes[1], codes[2], got, want);
      worst = MAX (worst, fabs (got - want) / want);
    } else {
      fail_unless (fabs (got - want) <= 0.05, "codes %u %u %u: %g cd/m2, "
          "want %g", codes[0], codes[1], codes[2], got, want);
    }
  }
  g_print ("HLG: largest relative difference from the OOTF in double: "
      "%.2e\n", worst);
  g_rand_free (rand);
  g_free (t);
}

GST_END_TEST;

static Suite *
hdr_suite (void)
{
  Suite *s = suite_create ("hdr");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_pq_eotf);
  tcase_add_test (tc, test_light_of_codes);
  tcase_add_test (tc, test_max_rgb_code);
  tcase_add_test (tc, test_max_rgb_anchors);
  tcase_add_test (tc, test_max_rgb_code_rgb);
  tcase_add_test (tc, test_light_levels);
  tcase_add_test (tc, test_rgb_codes);
  tcase_add_test (tc, test_hlg);
  return s;
}

GST_CHECK_MAIN (hdr);
