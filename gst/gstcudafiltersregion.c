/* GStreamer
 * gst-cudafilters: the analysis base's formats and regions
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The part of GstCudaFiltersAnalysis (gstcudafiltersanalysis.c) that knows
 * the formats: the caps the elements take, and where a frame's region of
 * interest lies in each plane, with the channel of each byte or word. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersanalysisprivate.h"

#include <string.h>

/* GRAY8, xRGB and xBGR are system memory only: GStreamer's CUDA allocator
 * (1.22 to 1.28) has no layout for them. */
#define CUDA_FORMATS \
  "RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, RGB, BGR, I420, NV12, Y444"
#define SYS_FORMATS \
  "RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR, GRAY8, " \
  "I420, NV12, Y444"

/* ---- the region and its channels -------------------------------------- */

/* The region @r (its rectangle set) of @frame, a frame of RGB10A2_LE or
 * BGR10A2_LE: R, G and B, each of 10 bits in a 32-bit little-endian pixel
 * (RGB10A2_LE: R in bits 0-9, G 10-19, B 20-29; BGR10A2_LE: B in bits
 * 0-9), as one plane of packed 10-bit RGB for the word kernels
 * (cudafilters-kernels.h, CfWordPlane).  The 2-bit alpha is not counted.
 * planes[0] is the same plane, whose first three bytes stand for the three
 * channels in the counts of samples. */
static void
rgb10a2_region (const GstCudaFiltersFrame * frame, GstCudaFiltersRegion * r)
{
  static const gchar *rgb_names[] = { "R", "G", "B" };
  gboolean swap_rb = GST_VIDEO_INFO_FORMAT (frame->info) ==
      GST_VIDEO_FORMAT_BGR10A2_LE;
  gsize pitch = frame->stride[0];
  const guint8 *first = frame->data[0] + (gsize) r->y * pitch +
      (gsize) r->x * 4;
  CfSamplePlane *pl = &r->planes[0];
  CfWordPlane *wp = &r->words[0];
  guint c;

  r->n_channels = 3;
  r->n_planes = 1;
  r->depth = 10;
  r->rgb10a2 = swap_rb ? CF_BGR10A2 : CF_RGB10A2;
  for (c = 0; c < 3; c++) {
    r->channel_names[c] = rgb_names[c];
    pl->channel[c] = (int) c;
  }
  pl->channel[3] = -1;
  pl->data = first;
  pl->pitch = pitch;
  pl->width = r->width;
  pl->height = r->height;
  pl->bytes_per_pixel = 4;
  wp->data = first;
  wp->pitch = pitch;
  wp->width = r->width;
  wp->height = r->height;
  wp->words_per_pixel = 2;
  wp->channel[0] = wp->channel[1] = -1;
  wp->depth = 10;
  wp->shift = 0;
  wp->rgb10a2 = r->rgb10a2;
}

/* The region of interest of @frame and each plane's part of it, with the
 * channel of each byte (or, above 8 bits, 16-bit word) of a pixel. */
void
cf_analysis_region_of_frame (GstCudaFiltersAnalysis * self,
    const GstCudaFiltersFrame * frame, GstCudaFiltersRegion * r)
{
  GstCudaFiltersAnalysisPrivate *priv =
      gst_cuda_filters_analysis_get_private (self);
  const GstVideoFormatInfo *finfo = frame->info->finfo;
  static const gchar *rgb_names[] = { "R", "G", "B", "A" };
  static const gchar *yuv_names[] = { "Y", "U", "V", "A" };
  gint width = GST_VIDEO_INFO_WIDTH (frame->info);
  gint height = GST_VIDEO_INFO_HEIGHT (frame->info);
  guint c, p;

  memset (r, 0, sizeof (*r));
  GST_OBJECT_LOCK (self);
  r->x = (gint) MIN (priv->roi_x, (guint) width);
  r->y = (gint) MIN (priv->roi_y, (guint) height);
  r->width = width - r->x;
  r->height = height - r->y;
  if (priv->roi_width)
    r->width = (gint) MIN (priv->roi_width, (guint) r->width);
  if (priv->roi_height)
    r->height = (gint) MIN (priv->roi_height, (guint) r->height);
  GST_OBJECT_UNLOCK (self);
  r->pixels = (guint64) r->width * r->height;

  if (GST_VIDEO_FORMAT_INFO_FORMAT (finfo) == GST_VIDEO_FORMAT_RGB10A2_LE ||
      GST_VIDEO_FORMAT_INFO_FORMAT (finfo) == GST_VIDEO_FORMAT_BGR10A2_LE) {
    rgb10a2_region (frame, r);
    return;
  }
  r->n_channels = MIN (GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo),
      CF_HIST_MAX_CHANNELS);
  r->n_planes = GST_VIDEO_FORMAT_INFO_N_PLANES (finfo);
  r->depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
  r->is_yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo);
  if (r->is_yuv && r->n_channels > 1) {
    r->chroma_sub_x = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, 1);
    r->chroma_sub_y = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, 1);
  }
  for (p = 0; p < r->n_planes; p++) {
    /* -1: not counted */
    memset (r->planes[p].channel, 0xff, sizeof (r->planes[p].channel));
    memset (r->words[p].channel, 0xff, sizeof (r->words[p].channel));
  }
  for (c = 0; c < r->n_channels; c++) {
    guint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
    CfSamplePlane *pl = &r->planes[plane];
    gint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    gint hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
    gint x0 = r->x >> wsub, y0 = r->y >> hsub;

    r->channel_names[c] = GST_VIDEO_FORMAT_INFO_IS_RGB (finfo) ?
        rgb_names[c] : yuv_names[c];
    pl->bytes_per_pixel = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    pl->channel[GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c)] = (int) c;
    /* subsampled planes: every sample that covers part of the region */
    pl->width = r->width ? GST_VIDEO_SUB_SCALE (wsub, r->x + r->width) - x0 : 0;
    pl->height = r->height ? GST_VIDEO_SUB_SCALE (hsub, r->y + r->height) -
        y0 : 0;
    pl->pitch = frame->stride[plane];
    pl->data = frame->data[plane] + (gsize) y0 *pl->pitch +
        (gsize) x0 *pl->bytes_per_pixel;
    if (r->depth > 8) {
      CfWordPlane *wp = &r->words[plane];

      wp->data = pl->data;
      wp->pitch = pl->pitch;
      wp->width = pl->width;
      wp->height = pl->height;
      wp->words_per_pixel = pl->bytes_per_pixel / 2;
      /* (GStreamer 1.22's table puts P01x's V at byte 1, not 2) */
      wp->channel[(GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c) + 1) / 2] = (int) c;
      wp->depth = (int) r->depth;
      wp->shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c);
    }
  }
}

/**
 * gst_cuda_filters_analysis_class_add_pad_templates:
 *
 * @words: whether the element also takes the formats of 10 to 16 bits in
 *   16-bit words (#GstCudaFiltersRegion's @words)
 *
 * The formats the analysis element takes, in system and CUDA memory, on
 * both pads.
 */
void
gst_cuda_filters_analysis_class_add_pad_templates (GstCudaFiltersAnalysisClass
    * klass, gboolean words)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCaps *caps = words ?
      gst_cuda_filters_base_make_caps ("{ " SYS_FORMATS ", "
      CF_SYS_FORMATS_WORDS ", " CF_FORMATS_RGB10A2 " }", "{ " CUDA_FORMATS
      ", " CF_CUDA_FORMATS_WORDS ", " CF_FORMATS_RGB10A2 " }") :
      gst_cuda_filters_base_make_caps ("{ " SYS_FORMATS " }",
      "{ " CUDA_FORMATS " }");

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}
