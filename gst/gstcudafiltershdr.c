/* GStreamer
 * gst-cudafilters: the light levels of HDR video, defined on the CPU
 * (gstcudafiltershdr.h; tested in tests/check/libs/hdr.c)
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstcudafiltershdr.h"

static int64_t
fixed (gdouble value)
{
  return (int64_t) llround (ldexp (value, GST_CUDA_FILTERS_MAX_RGB_SHIFT));
}

/**
 * gst_cuda_filters_max_rgb_init:
 * @m: what to fill
 * @depth: bits of the samples, 8 to 16
 * @full_range: full range (0 to 2^depth - 1), else narrow (BT.2100: luma
 *   16 to 235, chroma 16 to 240, times 2^(depth - 8))
 * @kr: @kb: the matrix's luma weights of R' and B' (BT.2020: 0.2627,
 *   0.0593)
 *
 * The fixed-point matrix from Y'CbCr samples to codes of max(R', G', B'):
 * each coefficient is the exact one, times (codes - 1) over the sample
 * range, rounded to 2^-32.  The error this adds to a code is under
 * 3 x 2^(depth - 33) of a code (2.3e-5 at 16 bits), so the code is the
 * exact value rounded but where that lies that close to a half.  Returns
 * FALSE for a depth or weights out of range.
 */
gboolean
gst_cuda_filters_max_rgb_init (GstCudaFiltersMaxRgb * m, guint depth,
    gboolean full_range, gdouble kr, gdouble kb)
{
  const gdouble top = GST_CUDA_FILTERS_LIGHT_CODES - 1;
  gdouble kg = 1.0 - kr - kb, scale_y, scale_c;

  if (depth < 8 || depth > 16 || kr <= 0 || kb <= 0 || kg <= 0)
    return FALSE;
  if (full_range) {
    scale_y = scale_c = top / (gdouble) ((1u << depth) - 1);
    m->offset_y = 0;
  } else {
    scale_y = top / (219.0 * (1u << (depth - 8)));
    scale_c = top / (224.0 * (1u << (depth - 8)));
    m->offset_y = 16 << (depth - 8);
  }
  m->offset_c = 1 << (depth - 1);
  /* R' = Y' + 2 (1 - Kr) Cr, B' = Y' + 2 (1 - Kb) Cb,
   * G' = (Y' - Kr R' - Kb B') / Kg */
  m->y = fixed (scale_y);
  m->cr_r = fixed (2.0 * (1.0 - kr) * scale_c);
  m->cb_b = fixed (2.0 * (1.0 - kb) * scale_c);
  m->cb_g = fixed (2.0 * kb * (1.0 - kb) / kg * scale_c);
  m->cr_g = fixed (2.0 * kr * (1.0 - kr) / kg * scale_c);
  return TRUE;
}

/**
 * gst_cuda_filters_rgb_scale_init:
 * @s: what to fill
 * @depth: bits of the samples, 8 to 16
 * @full_range: full range (0 to 2^depth - 1), else narrow (16 to 235
 *   times 2^(depth - 8))
 *
 * The fixed-point step from R'G'B' samples to codes of 0 to 1: the exact
 * one, (codes - 1) over the sample range, rounded to 2^-32.  The error
 * this adds to a code is under 2^(depth - 33) of a code, so the code is
 * the exact value rounded but where that lies that close to a half (at
 * 10 bits, full range never does; narrow range's halves, such as sample
 * 210's 682.5, go either way).  Returns FALSE for a depth out of range.
 */
gboolean
gst_cuda_filters_rgb_scale_init (GstCudaFiltersRgbScale * s, guint depth,
    gboolean full_range)
{
  const gdouble top = GST_CUDA_FILTERS_LIGHT_CODES - 1;

  if (depth < 8 || depth > 16)
    return FALSE;
  memset (s, 0, sizeof (*s));
  if (full_range) {
    s->offset = 0;
    s->scale = fixed (top / (gdouble) ((1u << depth) - 1));
  } else {
    s->offset = 16 << (depth - 8);
    s->scale = fixed (top / (219.0 * (1u << (depth - 8))));
  }
  return TRUE;
}

/**
 * gst_cuda_filters_pq_eotf:
 * @e: a non-linear PQ value, 0 to 1
 *
 * Returns: the light it stands for, in cd/m2 (SMPTE ST 2084, BT.2100):
 * 10000 ((max (E^(1/m2) - c1, 0) / (c2 - c3 E^(1/m2)))^(1/m1).
 */
gdouble
gst_cuda_filters_pq_eotf (gdouble e)
{
  const gdouble m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128;
  const gdouble c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32;
  const gdouble c3 = 2392.0 / 4096 * 32;
  gdouble p;

  e = CLAMP (e, 0.0, 1.0);
  p = pow (e, 1.0 / m2);
  return 10000.0 * pow (MAX (p - c1, 0.0) / (c2 - c3 * p), 1.0 / m1);
}

/**
 * gst_cuda_filters_pq_inverse_eotf:
 * @light: light in cd/m2, 0 to 10000
 *
 * Returns: the non-linear PQ value of @light (SMPTE ST 2084's inverse
 * EOTF): ((c1 + c2 Y^m1) / (1 + c3 Y^m1))^m2 with Y = light / 10000.
 */
gdouble
gst_cuda_filters_pq_inverse_eotf (gdouble light)
{
  const gdouble m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128;
  const gdouble c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32;
  const gdouble c3 = 2392.0 / 4096 * 32;
  gdouble y = pow (CLAMP (light, 0.0, 10000.0) / 10000.0, m1);

  return pow ((c1 + c2 * y) / (1.0 + c3 * y), m2);
}

/**
 * gst_cuda_filters_light_of_codes_pq:
 * @light: filled with the light of each code, in cd/m2
 *
 * Code v of max(R', G', B') is the PQ value v / (codes - 1).
 */
void
gst_cuda_filters_light_of_codes_pq (gdouble light[GST_CUDA_FILTERS_LIGHT_CODES])
{
  guint v;

  for (v = 0; v < GST_CUDA_FILTERS_LIGHT_CODES; v++)
    light[v] = gst_cuda_filters_pq_eotf (v /
        (gdouble) (GST_CUDA_FILTERS_LIGHT_CODES - 1));
}

/**
 * gst_cuda_filters_light_table_pq:
 *
 * Returns: (transfer none): the light of each code in PQ
 * (gst_cuda_filters_light_of_codes_pq()), made once
 */
const gdouble *
gst_cuda_filters_light_table_pq (void)
{
  static gdouble table[GST_CUDA_FILTERS_LIGHT_CODES];
  static gsize made = 0;

  if (g_once_init_enter (&made)) {
    gst_cuda_filters_light_of_codes_pq (table);
    g_once_init_leave (&made, 1);
  }
  return table;
}

/**
 * gst_cuda_filters_light_levels:
 * @counts: pixels of each code of max(R', G', B')
 * @light: the light of each code (gst_cuda_filters_light_of_codes_pq())
 * @max_light: (out): the light of the brightest pixel, 0 without pixels
 * @average_light: (out): the mean of every pixel's light, 0 without
 *   pixels
 *
 * A frame's largest and average light, its contributions to MaxCLL and
 * MaxFALL.  The sum runs in code order, so it is the same for the same
 * counts.
 *
 * Returns: the pixels counted
 */
guint64
gst_cuda_filters_light_levels (const guint64
    counts[GST_CUDA_FILTERS_LIGHT_CODES],
    const gdouble light[GST_CUDA_FILTERS_LIGHT_CODES], gdouble * max_light,
    gdouble * average_light)
{
  gdouble sum = 0.0;
  guint64 n = 0;
  guint v;

  *max_light = 0.0;
  for (v = 0; v < GST_CUDA_FILTERS_LIGHT_CODES; v++) {
    if (!counts[v])
      continue;
    n += counts[v];
    sum += (gdouble) counts[v] * light[v];
    *max_light = light[v];
  }
  *average_light = n ? sum / (gdouble) n : 0.0;
  return n;
}

/**
 * gst_cuda_filters_hlg_inverse_oetf:
 * @e: a non-linear HLG value, 0 to 1
 *
 * Returns: its scene light, 0 to 1 (BT.2100): E'^2 / 3 up to E' = 1/2,
 * then (exp ((E' - c) / a) + b) / 12.
 */
gdouble
gst_cuda_filters_hlg_inverse_oetf (gdouble e)
{
  const gdouble a = 0.17883277, b = 1.0 - 4.0 * a;
  const gdouble c = 0.5 - a * log (4.0 * a);

  e = CLAMP (e, 0.0, 1.0);
  if (e <= 0.5)
    return e * e / 3.0;
  return (exp ((e - c) / a) + b) / 12.0;
}

/**
 * gst_cuda_filters_hlg_gamma:
 * @peak: the display's nominal peak light Lw, in cd/m2
 *
 * Returns: the OOTF's system gamma for @peak: 1.2 + 0.42 log10 (Lw /
 * 1000), BT.2100's formula, which it gives for displays of 400 to
 * 2000 cd/m2 and which is extrapolated above.
 */
gdouble
gst_cuda_filters_hlg_gamma (gdouble peak)
{
  return 1.2 + 0.42 * log10 (peak / 1000.0);
}

/**
 * gst_cuda_filters_hlg_init:
 * @t: the tables to fill
 * @kr: @kb: the scene luminance's weights of R and B (BT.2020: 0.2627,
 *   0.0593)
 * @peak: the display's nominal peak light Lw, in cd/m2 (400 to 10000)
 *
 * Fills the tables of cf_hlg_light(): each code's scene light, the
 * luminance weights in 2^-16 (G's what is left, so they sum to 2^16), and
 * Ys^(gamma - 1) at the middle of each step of Ys.  Returns FALSE for
 * weights or a peak out of range.
 */
gboolean
gst_cuda_filters_hlg_init (CfHlgTables * t, gdouble kr, gdouble kb,
    gdouble peak)
{
  const gdouble scale = (gdouble) (1u << CF_HLG_SCALE_BITS);
  gdouble gamma = gst_cuda_filters_hlg_gamma (peak);
  guint i;

  if (kr <= 0 || kb <= 0 || kr + kb >= 1 || !(peak >= 400 && peak <= 10000))
    return FALSE;
  for (i = 0; i < CF_LIGHT_CODES; i++)
    t->scene[i] = (guint32) llround (gst_cuda_filters_hlg_inverse_oetf (i /
            (gdouble) (CF_LIGHT_CODES - 1)) * scale);
  t->weights[0] = (guint32) lround (kr * 65536);
  t->weights[2] = (guint32) lround (kb * 65536);
  t->weights[1] = 65536 - t->weights[0] - t->weights[2];
  for (i = 0; i < CF_HLG_GAIN_STEPS; i++)
    t->gain[i] = (guint32) llround (pow ((i + 0.5) / CF_HLG_GAIN_STEPS,
            gamma - 1.0) * scale);
  return TRUE;
}

/**
 * gst_cuda_filters_hlg_light_sum:
 * @sum: a sum of cf_hlg_light() values
 * @peak: Lw, in cd/m2
 *
 * Returns: @sum in cd/m2
 */
gdouble
gst_cuda_filters_hlg_light_sum (guint64 sum, gdouble peak)
{
  return peak * (gdouble) sum / (gdouble) (1u << CF_HLG_SCALE_BITS);
}

/**
 * gst_cuda_filters_hlg_light_levels:
 * @max_light: the largest cf_hlg_light() of a frame's pixels
 * @sum: their sum
 * @pixels: how many
 * @peak: Lw, in cd/m2
 * @max_cd: (out): the largest light, in cd/m2
 * @average_cd: (out): the mean light, in cd/m2 (0 without pixels): the
 *   sum in cd/m2 over @pixels
 */
void
gst_cuda_filters_hlg_light_levels (guint64 max_light, guint64 sum,
    guint64 pixels, gdouble peak, gdouble * max_cd, gdouble * average_cd)
{
  *max_cd = gst_cuda_filters_hlg_light_sum (max_light, peak);
  *average_cd = pixels ? gst_cuda_filters_hlg_light_sum (sum, peak) /
      (gdouble) pixels : 0.0;
}
