/* The CPU reference of cudagray, checked against its definition (no GPU
 * needed): documented weights, exact fixed-point rounding, closeness to the
 * real-valued matrix, channel order and strides; and the high-bit-depth
 * references (docs/design/high-bit-depth.md): 10-bit RGB's grey, samples
 * MSB-aligned, and samples to 8 bits, against their definitions. */
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

/* RGB10A2_LE and BGR10A2_LE: the rounding rule exactly, MSB-aligned, the
 * real matrix within 0.53 (the weights' rounding at 10 bits), white 1023,
 * the alpha bits ignored; random colours and the extremes. */
GST_START_TEST (test_rgb10a2_rounds_as_defined)
{
  GRand *rand = g_rand_new ();
  guint i, n;

  for (i = 0; i < G_N_ELEMENTS (matrices); i++) {
    double kg = 1.0 - matrices[i].kr - matrices[i].kb;
    CfGrayWeights w = cf_gray_weights (matrices[i].matrix);

    for (n = 0; n < 300000; n++) {
      guint32 r = n < 8 ? (n & 1 ? 1023 : 0) : g_rand_int_range (rand, 0, 1024);
      guint32 g = n < 8 ? (n & 2 ? 1023 : 0) : g_rand_int_range (rand, 0, 1024);
      guint32 b = n < 8 ? (n & 4 ? 1023 : 0) : g_rand_int_range (rand, 0, 1024);
      guint32 alpha = g_rand_int_range (rand, 0, 4) << 30;
      guint32 rgb = r | g << 10 | b << 20 | alpha;
      guint32 bgr = b | g << 10 | r << 20 | alpha;
      guint8 in[4], out[2] = { 0x5a, 0x5a };
      guint got, want = (guint) floor ((w.kr * r + w.kg * g + w.kb * b) /
          65536.0 + 0.5);
      double exact = matrices[i].kr * r + kg * g + matrices[i].kb * b;

      GST_WRITE_UINT32_LE (in, rgb);
      cf_ref_gray16_from_rgb10a2 (in, 4, out, 2, 1, 1, FALSE,
          matrices[i].matrix);
      got = GST_READ_UINT16_LE (out);
      if ((got & 63) || got >> 6 != want || fabs ((got >> 6) - exact) > 0.53)
        fail ("matrix %d RGB10A2 (%u,%u,%u): got %u (>> 6: %u), rule %u, "
            "exact %.3f", matrices[i].matrix, r, g, b, got, got >> 6, want,
            exact);
      GST_WRITE_UINT32_LE (in, bgr);
      cf_ref_gray16_from_rgb10a2 (in, 4, out, 2, 1, 1, TRUE,
          matrices[i].matrix);
      fail_unless_equals_int (GST_READ_UINT16_LE (out), got);
      if (r == 1023 && g == 1023 && b == 1023)
        fail_unless_equals_int (got, 1023 << 6);
    }
  }
  g_rand_free (rand);
}

GST_END_TEST;

/* Every sample value of each depth, at the bottom of the word and at the
 * top, with the word's other bits random: v << (16 - depth) and the 8-bit
 * code, each against its definition; two rows of a padded pitch, the
 * padding left as it was. */
GST_START_TEST (test_high_depth_samples)
{
  static const guint depths[] = { 9, 10, 12, 16 };
  GRand *rand = g_rand_new ();
  guint d, top;

  for (d = 0; d < G_N_ELEMENTS (depths); d++)
    for (top = 0; top <= 1; top++) {
      guint depth = depths[d], shift = top ? 16 - depth : 0;
      guint count = 1u << depth, width = count / 2, v;
      gsize pitch = 2 * width + 6, out_pitch = 2 * width + 10;
      guint8 *in = g_malloc (2 * pitch), *out16 = g_malloc (2 * out_pitch);
      guint8 *out8 = g_malloc (2 * (width + 3));

      for (v = 0; v < count; v++) {
        guint32 other = g_rand_int (rand) & 0xffff &
            ~(((1u << depth) - 1) << shift);
        guint8 *word = in + (v / width) * pitch + 2 * (v % width);
        GST_WRITE_UINT16_LE (word, (v << shift) | other);
      }
      memset (out16, 0x5a, 2 * out_pitch);
      memset (out8, 0x5a, 2 * (width + 3));
      cf_ref_plane_to_msb16 (in, pitch, out16, out_pitch, width, 2, depth,
          shift);
      cf_ref_plane_to_8 (in, pitch, out8, width + 3, width, 2, depth, shift);
      for (v = 0; v < count; v++) {
        guint row = v / width, x = v % width;
        guint got16 = GST_READ_UINT16_LE (out16 + row * out_pitch + 2 * x);
        guint got8 = out8[row * (width + 3) + x];
        guint want8 = (guint) MIN (floor (v / (double) (1u << (depth - 8)) +
                0.5), 255);

        if (got16 != v << (16 - depth) || got8 != want8)
          fail ("depth %u shift %u: v %u -> %u and %u, want %u and %u",
              depth, shift, v, got16, got8, v << (16 - depth), want8);
      }
      for (v = 2 * width; v < out_pitch; v++)
        fail_unless (out16[v] == 0x5a && out16[out_pitch + v] == 0x5a);
      for (v = width; v < width + 3; v++)
        fail_unless (out8[v] == 0x5a && out8[width + 3 + v] == 0x5a);
      if (depth == 10) {
        /* narrow-range black and white, full white */
        fail_unless_equals_int (out8[64], 16);
        fail_unless_equals_int (out8[width + 3 + 940 - width], 235);
        fail_unless_equals_int (out8[width + 3 + 1023 - width], 255);
      }
      g_free (in);
      g_free (out16);
      g_free (out8);
    }
  g_rand_free (rand);
}

GST_END_TEST;

CF_TEST_SUITE (gray_reference_suite, "gray-reference",
    CF_TEST_CASE ("general", 0),
    CF_TEST (test_weights_as_documented),
    CF_TEST (test_every_colour_rounds_as_defined),
    CF_TEST (test_layouts_agree), CF_TEST (test_strides_respected),
    CF_TEST (test_rgb10a2_rounds_as_defined),
    CF_TEST (test_high_depth_samples));

GST_CHECK_MAIN (gray_reference);
