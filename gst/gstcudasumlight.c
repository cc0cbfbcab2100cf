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

/* The matrix of @info's light levels (docs/design/hdr.md), its luminance
 * weights and whether it is HLG's (otherwise PQ's), or why it has none. */
static const gchar *
light_matrix_of (const GstVideoInfo * info, CfMaxRgb * m, gdouble * kr,
    gdouble * kb, gboolean * hlg)
{
  const GstVideoColorimetry *c = &info->colorimetry;
  guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0);

  *hlg = c->transfer == GST_VIDEO_TRANSFER_ARIB_STD_B67;
  if (c->transfer != GST_VIDEO_TRANSFER_SMPTE2084 && !*hlg)
    return "the caps' transfer is neither PQ (smpte2084) nor HLG "
        "(arib-std-b67)";
  if (!GST_VIDEO_INFO_IS_YUV (info) || depth <= 8)
    return "light levels are measured on Y'CbCr formats of 10 to 16 bits";
  /* (HDR without a matrix on the caps: BT.2020's) */
  if (!gst_video_color_matrix_get_Kr_Kb (c->matrix, kr, kb))
    gst_video_color_matrix_get_Kr_Kb (GST_VIDEO_COLOR_MATRIX_BT2020, kr, kb);
  if (!gst_cuda_filters_max_rgb_init (m, depth,
          c->range == GST_VIDEO_COLOR_RANGE_0_255, *kr, *kb))
    return "the caps' matrix has no light levels";
  return NULL;
}

/* new caps */
void
cf_sum_light_set_caps (CfSumLight * l, const GstVideoInfo * info)
{
  l->none = light_matrix_of (info, &l->matrix, &l->kr, &l->kb, &l->hlg);
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
  settings->hlg = NULL;
  if (on && !l->none) {
    settings->light = &l->matrix;
    if (l->hlg) {
      settings->hlg = hlg_tables (l, peak);
      settings->hlg_serial = l->serial;
      settings->hlg_peak = peak;
      if (!settings->hlg)
        settings->light = NULL;
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
