/* GStreamer
 * gst-cudafilters: cudablur's device side (gstcudablurdevice.h)
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudablurdevice.h"

#include <string.h>

/* The kernel along one direction for a plane subsampled by 2^sub */
static void
make_kernel (double sigma, gint radius, guint sub, int bits, CfBlurKernel * k)
{
  double s = sigma / (1 << sub);
  gint r = radius > 0 ? (radius + (1 << sub) - 1) >> sub :
      cf_blur_radius_for_sigma (s);

  cf_blur_kernel_make (s, s > 0 ? MIN (r, CF_BLUR_MAX_RADIUS) : 0, bits, k);
}

/* Makes the weights of s unless they are made already (s is compared
 * with memcmp: zero its padding).  Returns TRUE where it made them. */
gboolean
cf_blur_device_make_weights (CfBlurDevice * d, const CfBlurSettings * s)
{
  guint sub;

  if (d->made && memcmp (&d->made_for, s, sizeof (*s)) == 0)
    return FALSE;
  for (sub = 0; sub < 2; sub++) {
    make_kernel (s->sigma_x, s->radius, sub, CF_BLUR_H_BITS, &d->kx[sub]);
    make_kernel (s->sigma_y, s->radius, sub, CF_BLUR_V_BITS, &d->ky[sub]);
    make_kernel (s->sigma_x, s->radius, sub, CF_BLUR_WORD_BITS,
        &d->word_kx[sub]);
    make_kernel (s->sigma_y, s->radius, sub, CF_BLUR_WORD_BITS,
        &d->word_ky[sub]);
  }
  d->made_for = *s;
  d->made = TRUE;
  return TRUE;
}

/* Plane p of the frames as the blur kernels take it, at any depth (at 8
 * bits the fields stand for bytes): its size, its samples a pixel (bytes,
 * or 16-bit words above 8 bits), the kernels of its subsampling, and the
 * constant border, black (Y 16 and chroma 128 at 8 bits, scaled to the
 * depth; 0 for RGB and grey).  Returns where its samples sit in their
 * words. */
static guint
blur_plane_of (CfBlurDevice * d, const GstCudaFiltersFrame * in,
    const GstCudaFiltersFrame * out, guint p, CfBlurPlane * plane)
{
  const GstVideoFormatInfo *finfo = in->info->finfo;
  guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
  gboolean words = depth > 8;
  guint16 black = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo) ?
      (p == 0 ? 16 << (depth - 8) : 1 << (depth - 1)) : 0;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  guint wsub, hsub, c;

  gst_video_format_info_component (finfo, p, comp);
  wsub = MIN (GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comp[0]), 1);
  hsub = MIN (GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp[0]), 1);
  plane->src = in->data[p];
  plane->src_pitch = in->stride[p];
  plane->dst = out->data[p];
  plane->dst_pitch = out->stride[p];
  plane->width = GST_VIDEO_INFO_COMP_WIDTH (in->info, comp[0]);
  plane->height = GST_VIDEO_INFO_COMP_HEIGHT (in->info, comp[0]);
  plane->channels = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comp[0]) /
      (words ? 2 : 1);
  plane->kx = words ? &d->word_kx[wsub] : &d->kx[wsub];
  plane->ky = words ? &d->word_ky[hsub] : &d->ky[hsub];
  for (c = 0; c < 4; c++)
    plane->border_value[c] = black;
  return GST_VIDEO_FORMAT_INFO_SHIFT (finfo, comp[0]);
}

/* Every plane blurred by one call (one launch where the kernels allow),
 * unless a plane is not blurred at all (sigma 0: copied as it is, bits
 * outside the samples included) or a plane's output spans another
 * plane's input or output, as rows that interleave do (the call refuses
 * them; inputs may share their span).  Returns FALSE where it did
 * nothing. */
static gboolean
blur_planes_at_once (const CfBlurPlane * planes, guint n, const gint * shifts,
    gboolean words, guint depth, CfBorder border, gpointer scratch,
    CfStream stream, CfError * err)
{
  guint p;

  if (n > CF_BLUR_MAX_PLANES)
    return FALSE;
  for (p = 0; p < n; p++) {
    if (planes[p].kx->radius == 0 && planes[p].ky->radius == 0)
      return FALSE;
    /* one shift for all: every format of words has one */
    if (shifts[p] != shifts[0])
      return FALSE;
  }
  if (cf_blur_planes_overlap (planes, (int) n, words ? 2 : 1))
    return FALSE;
  *err = words ? cf_blur_planes_words (planes, (int) n, (int) depth,
      shifts[0], border, scratch, stream) :
      cf_blur_planes (planes, (int) n, border, scratch, stream);
  return TRUE;
}

/* Packed 10-bit RGB: its four fields (R, G, B and alpha) as 4 channels
 * of 10-bit samples, or copied where the kernels have radius 0 */
static CfError
blur_rgb10a2 (CfBlurDevice * d, GstCudaFiltersBase * base,
    const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
    CfBorder border, CfStream stream)
{
  gint width = GST_VIDEO_INFO_WIDTH (in->info);
  gint height = GST_VIDEO_INFO_HEIGHT (in->info);
  gpointer scratch;

  if (d->word_kx[0].radius == 0 && d->word_ky[0].radius == 0)
    return cf_copy_plane (in->data[0], in->stride[0], out->data[0],
        out->stride[0], (gsize) width * 4, height, stream);
  /* (the one pass keeps its intermediate in shared memory) */
  if (cf_blur_rgb10a2_one_pass (&d->word_kx[0], &d->word_ky[0])) {
    scratch = NULL;
  } else {
    scratch = gst_cuda_filters_base_get_scratch (base,
        cf_blur_word_scratch_bytes (width, height, 4));
    if (!scratch)
      return CF_ERROR_MEMORY_ALLOCATION;
  }
  return cf_blur_rgb10a2 (in->data[0], in->stride[0], out->data[0],
      out->stride[0], width, height, &d->word_kx[0], &d->word_ky[0],
      border, scratch, stream);
}

/* Blurs every plane of in into out with the weights made last (packed
 * 10-bit RGB as one plane of 4 channels), on stream; planes whose
 * kernels have radius 0 are copied. */
CfError
cf_blur_device_blur (CfBlurDevice * d, GstCudaFiltersBase * base,
    const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
    CfBorder border, CfStream stream)
{
  /* above 8 bits: 16-bit words, each holding a sample of depth bits */
  guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (in->info->finfo, 0);
  gboolean words = depth > 8;
  guint word_bytes = words ? 2 : 1;
  CfBlurPlane planes[GST_VIDEO_MAX_PLANES];
  gint shifts[GST_VIDEO_MAX_PLANES];
  gsize scratch_size = 0;
  gpointer scratch;
  CfError err = 0;
  guint n, p;

  if (GST_VIDEO_INFO_FORMAT (in->info) == GST_VIDEO_FORMAT_RGB10A2_LE ||
      GST_VIDEO_INFO_FORMAT (in->info) == GST_VIDEO_FORMAT_BGR10A2_LE)
    return blur_rgb10a2 (d, base, in, out, border, stream);

  n = GST_VIDEO_INFO_N_PLANES (in->info);
  /* the intermediate of the largest plane; planes take turns with it on
   * the one stream */
  for (p = 0; p < n; p++) {
    shifts[p] = (gint) blur_plane_of (d, in, out, p, &planes[p]);
    scratch_size = MAX (scratch_size, words ?
        cf_blur_word_scratch_bytes (planes[p].width, planes[p].height,
            planes[p].channels) :
        cf_blur_scratch_bytes (planes[p].width, planes[p].height,
            planes[p].channels));
  }
  scratch = gst_cuda_filters_base_get_scratch (base, scratch_size);
  if (!scratch)
    return CF_ERROR_MEMORY_ALLOCATION;

  if (blur_planes_at_once (planes, n, shifts, words, depth, border, scratch,
          stream, &err))
    return err;

  for (p = 0; err == 0 && p < n; p++) {
    const CfBlurPlane *plane = &planes[p];

    if (plane->kx->radius == 0 && plane->ky->radius == 0) {
      err = cf_copy_plane (plane->src, plane->src_pitch, plane->dst,
          plane->dst_pitch, (gsize) plane->width * plane->channels *
          word_bytes, plane->height, stream);
    } else if (words) {
      err = cf_blur_plane_words (plane->src, plane->src_pitch, plane->dst,
          plane->dst_pitch, plane->width, plane->height, plane->channels,
          (int) depth, shifts[p], plane->kx, plane->ky, border,
          plane->border_value, scratch, stream);
    } else {
      guint8 border_value[4];
      guint c;

      for (c = 0; c < 4; c++)
        border_value[c] = (guint8) plane->border_value[c];
      err = cf_blur_plane (plane->src, plane->src_pitch, plane->dst,
          plane->dst_pitch, plane->width, plane->height, plane->channels,
          plane->kx, plane->ky, border, border_value, scratch, stream);
    }
  }
  return err;
}
