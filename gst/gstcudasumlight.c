/* GStreamer
 * gst-cudafilters: cudasum's light levels of the caps (gstcudasumlight.h)
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasumlight.h"
#include "gstcudafiltershdr.h"

/* Whether @info's format is packed 10-bit RGB */
static gboolean
is_packed_rgb (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_RGB10A2_LE
      || GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_BGR10A2_LE;
}

/* The luminance weights of HLG's Ys for @info: of Y'CbCr its matrix's
 * (BT.2020's where the caps name none); of R'G'B', which has no matrix,
 * those of the matrix that goes with its primaries, BT.709's or else
 * BT.2020's */
static void
luminance_weights (const GstVideoInfo * info, gdouble * kr, gdouble * kb)
{
  const GstVideoColorimetry *c = &info->colorimetry;

  if (GST_VIDEO_INFO_IS_YUV (info)
      && gst_video_color_matrix_get_Kr_Kb (c->matrix, kr, kb))
    return;
  gst_video_color_matrix_get_Kr_Kb (c->primaries ==
      GST_VIDEO_COLOR_PRIMARIES_BT709 && !GST_VIDEO_INFO_IS_YUV (info) ?
      GST_VIDEO_COLOR_MATRIX_BT709 : GST_VIDEO_COLOR_MATRIX_BT2020, kr, kb);
}

/* How @l measures the light levels of @info (docs/design/hdr.md): its
 * matrix or scale of codes, its luminance weights and whether it is
 * HLG's (otherwise PQ's); or why it has none. */
static const gchar *
light_of_caps (const GstVideoInfo * info, CfSumLight * l)
{
  const GstVideoColorimetry *c = &info->colorimetry;
  guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0);
  gboolean full_range = c->range != GST_VIDEO_COLOR_RANGE_16_235;

  l->hlg = c->transfer == GST_VIDEO_TRANSFER_ARIB_STD_B67;
  l->packed_rgb = is_packed_rgb (info);
  if (c->transfer != GST_VIDEO_TRANSFER_SMPTE2084 && !l->hlg)
    return "the caps' transfer is neither PQ (smpte2084) nor HLG "
        "(arib-std-b67)";
  luminance_weights (info, &l->kr, &l->kb);
  /* (R'G'B' is full range unless the caps say otherwise; Y'CbCr is
   * narrow unless they say full) */
  if (l->packed_rgb) {
    gst_cuda_filters_rgb_scale_init (&l->rgb_scale, depth, full_range);
    return NULL;
  }
  if (!GST_VIDEO_INFO_IS_YUV (info) || depth <= 8)
    return "light levels are measured on Y'CbCr formats of 10 to 16 bits "
        "and on packed 10-bit RGB";
  if (!gst_cuda_filters_max_rgb_init (&l->matrix, depth,
          c->range == GST_VIDEO_COLOR_RANGE_0_255, l->kr, l->kb))
    return "the caps' matrix has no light levels";
  return NULL;
}

/* new caps */
void
cf_sum_light_set_caps (CfSumLight * l, const GstVideoInfo * info)
{
  l->none = light_of_caps (info, l);
  l->warned = FALSE;
  l->tables_peak = 0;
}

/* HLG's tables for @peak, made again where they were for another peak
 * or caps */
static const CfHlgTables *
hlg_tables (CfSumLight * l, gdouble peak)
{
  if (l->tables_peak != peak) {
    if (!l->tables)
      l->tables = g_new (CfHlgTables, 1);
    /* (fails only for weights or a peak out of range, which the caps'
     * matrix and the property's range rule out) */
    if (!gst_cuda_filters_hlg_init (l->tables, l->kr, l->kb, peak))
      return NULL;
    l->tables_peak = peak;
    l->serial++;
  }
  return l->tables;
}

/**
 * cf_sum_light_settings:
 * @on: the frame's light-levels
 * @peak: its hlg-peak
 *
 * Sets @settings' light levels for a frame.  Returns why the caps have
 * none the first time a frame asks for them in vain (for the element's
 * warning), else NULL.
 */
const gchar *
cf_sum_light_settings (CfSumLight * l, gboolean on, gdouble peak,
    CfSumSettings * settings)
{
  settings->light = NULL;
  settings->light_rgb = NULL;
  settings->hlg = NULL;
  if (on && !l->none && (!l->hlg || hlg_tables (l, peak))) {
    if (l->packed_rgb)
      settings->light_rgb = &l->rgb_scale;
    else
      settings->light = &l->matrix;
    if (l->hlg) {
      settings->hlg = l->tables;
      settings->hlg_serial = l->serial;
      settings->hlg_peak = peak;
    }
  } else if (on && !l->warned) {
    l->warned = TRUE;
    return l->none;
  }
  return NULL;
}

void
cf_sum_light_clear (CfSumLight * l)
{
  g_clear_pointer (&l->tables, g_free);
}
