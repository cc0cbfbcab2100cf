/* The CPU reference of cudagray, checked against its definition (no GPU
 * needed): documented weights, exact fixed-point rounding, closeness to the
 * real-valued matrix, channel order and strides. */
#include <gst/check/gstcheck.h>
#include <math.h>

#include "cudafilters-kernels.h"
#include "cf-test-util.h"

static const struct
{
  CfGrayMatrix matrix;
  double kr, kb;
  guint32 wr, wg, wb;           /* as documented in docs/cudagray.md */
} matrices[] = {
  {CF_GRAY_MATRIX_BT601, 0.299, 0.114, 19595, 38470, 7471},
  {CF_GRAY_MATRIX_BT709, 0.2126, 0.0722, 13933, 46871, 4732},
  {CF_GRAY_MATRIX_BT2020, 0.2627, 0.0593, 17216, 44434, 3886},
};

GST_START_TEST (test_weights_as_documented)
{
  guint i;

  for (i = 0; i < G_N_ELEMENTS (matrices); i++) {
    CfGrayWeights w = cf_gray_weights (matrices[i].matrix);

    fail_unless_equals_int (w.kr, matrices[i].wr);
    fail_unless_equals_int (w.kg, matrices[i].wg);
    fail_unless_equals_int (w.kb, matrices[i].wb);
    fail_unless_equals_int (w.kr + w.kg + w.kb, 65536);
  }
}

GST_END_TEST;

/* Every RGB triple of a coarse-and-edges grid, through a 1-pixel frame:
 * equals the rounding rule exactly, and the real matrix within 0.51. */
GST_START_TEST (test_every_colour_rounds_as_defined)
{
  static const CfPackedLayout rgb = { 3, 0, 1, 2 };
  guint i, r, g, b;

  for (i = 0; i < G_N_ELEMENTS (matrices); i++) {
    double kg = 1.0 - matrices[i].kr - matrices[i].kb;
    CfGrayWeights w = cf_gray_weights (matrices[i].matrix);

    for (r = 0; r < 256; r++) {
      for (g = 0; g < 256; g++) {
        for (b = 0; b < 256; b++) {
          guint8 px[3] = { r, g, b }, out = 0x5a;
          double exact = matrices[i].kr * r + kg * g + matrices[i].kb * b;
          guint want = (guint) floor ((w.kr * r + w.kg * g + w.kb * b) /
              65536.0 + 0.5);

          cf_ref_gray_from_packed (px, 3, &out, 1, 1, 1, rgb,
              matrices[i].matrix);
          if (out != want || fabs (out - exact) > 0.51)
            fail ("matrix %d rgb (%u,%u,%u): got %u, rule %u, exact %.3f",
                matrices[i].matrix, r, g, b, out, want, exact);
        }
      }
    }
  }
}

GST_END_TEST;

/* Channel order: the same colour in every layout gives the same grey, and
 * the alpha/padding byte changes nothing. */
GST_START_TEST (test_layouts_agree)
{
  static const CfPackedLayout layouts[] = {
    {4, 0, 1, 2}, {4, 2, 1, 0}, {4, 1, 2, 3}, {4, 3, 2, 1}, {3, 0, 1, 2},
    {3, 2, 1, 0},
  };
  GRand *rand = g_rand_new ();
  guint n, l;

  for (n = 0; n < 10000; n++) {
    guint8 rgb[3], px[4], out = 0, expected = 0;

    for (l = 0; l < 3; l++)
      rgb[l] = g_rand_int_range (rand, 0, 256);
    for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
      memset (px, g_rand_int_range (rand, 0, 256), sizeof (px));
      px[layouts[l].r] = rgb[0];
      px[layouts[l].g] = rgb[1];
      px[layouts[l].b] = rgb[2];
      cf_ref_gray_from_packed (px, 4, &out, 1, 1, 1, layouts[l],
          CF_GRAY_MATRIX_BT709);
      if (l == 0)
        expected = out;
      fail_unless_equals_int (out, expected);
    }
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* Padded strides: only width bytes of each output row are written. */
GST_START_TEST (test_strides_respected)
{
  static const CfPackedLayout rgba = { 4, 0, 1, 2 };
  const int w = 5, h = 3, src_pitch = 4 * w + 9, dst_pitch = w + 7;
  guint8 src[3 * (4 * 5 + 9)], dst[3 * (5 + 7)];
  int x, y;

  for (x = 0; x < (int) sizeof (src); x++)
    src[x] = (guint8) (x * 37);
  memset (dst, 0xee, sizeof (dst));
  cf_ref_gray_from_packed (src, src_pitch, dst, dst_pitch, w, h, rgba,
      CF_GRAY_MATRIX_BT601);
  for (y = 0; y < h; y++) {
    for (x = 0; x < dst_pitch; x++) {
      if (x >= w) {
        fail_unless_equals_int (dst[y * dst_pitch + x], 0xee);
      } else {
        const guint8 *p = src + y * src_pitch + 4 * x;
        guint want = (19595 * p[0] + 38470 * p[1] + 7471 * p[2] + 32768) >> 16;
        fail_unless_equals_int (dst[y * dst_pitch + x], want);
      }
    }
  }
}

GST_END_TEST;

CF_TEST_SUITE (gray_reference_suite, "gray-reference",
    CF_TEST_CASE ("general", 0),
    CF_TEST (test_weights_as_documented),
    CF_TEST (test_every_colour_rounds_as_defined),
    CF_TEST (test_layouts_agree), CF_TEST (test_strides_respected));

GST_CHECK_MAIN (gray_reference);
