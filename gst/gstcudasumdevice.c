/* GStreamer
 * gst-cudafilters: cudasum's device side (gstcudasumdevice.h)
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasumdevice.h"

#include <string.h>

#define SCRATCH_ALIGN 256

/* Device scratch memory: the luma of the previous frame, at 8 bits (for
 * frames of up to width x height), and above 8 bits, after it, this
 * frame's, for the profiles and detectors (cf_sum_word_planes_add), then
 * HLG's tables (cf_hlg_light_add). */
static gsize
previous_pitch (gint width)
{
  return GST_ROUND_UP_16 ((gsize) width);
}

static gsize
previous_bytes (gint width, gint height)
{
  return previous_pitch (width) * height;
}

static gsize
hlg_tables_offset (gint width, gint height)
{
  return GST_ROUND_UP_N (2 * previous_bytes (width, height), SCRATCH_ALIGN);
}

static gsize
scratch_bytes (gint width, gint height, guint depth)
{
  if (depth <= 8)
    return previous_bytes (width, height);
  return hlg_tables_offset (width, height) + sizeof (CfHlgTables);
}

/* The device sums of a frame of up to width x height: cf_sum_planes_add's,
 * then cf_hist_planes_add's at hist_sums_offset (for the percentiles), and
 * at + hist_sums_bytes the luma's counts (CF_SUM_HIST, for the scene
 * cuts).  Above 8 bits the percentiles' counts are
 * cf_hist_word_planes_add's, cf_sum_word_planes_add's statistics
 * follow at word_sums_offset, and the light levels' counts
 * (cf_light_codes_add) at light_counts_offset, where HLG's sums
 * (cf_hlg_light_add) are instead. */
static gsize
hist_sums_offset (gint width, gint height)
{
  return GST_ROUND_UP_N (cf_sum_workspace_bytes (width, height), SCRATCH_ALIGN);
}

static gsize
hist_sums_bytes (guint depth)
{
  return GST_ROUND_UP_16 (depth > 8 ? cf_hist_word_sums_bytes (depth) :
      cf_hist_sums_bytes ());
}

static gsize
word_sums_offset (gint width, gint height, guint depth)
{
  return hist_sums_offset (width, height) + hist_sums_bytes (depth) +
      GST_ROUND_UP_16 (sizeof (guint32) * CF_HIST_BINS);
}

static gsize
light_counts_offset (gint width, gint height, guint depth)
{
  return word_sums_offset (width, height, depth) +
      GST_ROUND_UP_16 (cf_sum_word_sums_bytes ());
}

static gsize
device_sums_bytes (gint width, gint height, guint depth)
{
  if (depth <= 8)
    return word_sums_offset (width, height, depth);
  return light_counts_offset (width, height, depth) +
      sizeof (guint32) * CF_LIGHT_CODES;
}

/**
 * cf_sum_device_sums_bytes:
 *
 * The device sums of a frame of @info.  The kernels add into device
 * memory and have no last block to wait for, which shortens every launch
 * of the statistics (docs/design/sum.md).
 */
gsize
cf_sum_device_sums_bytes (const GstVideoInfo * info)
{
  return device_sums_bytes (GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info),
      GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0));
}

/* new caps: a new layout of the scratch memory, with no previous luma */
void
cf_sum_device_set_size (CfSumDevice * d, gint width, gint height)
{
  d->frame_width = width;
  d->frame_height = height;
  d->previous_valid = FALSE;
}

/* a flush: the next frame is not the one kept */
void
cf_sum_device_forget_previous (CfSumDevice * d)
{
  d->previous_valid = FALSE;
}

/* start, or the base class is about to free the scratch memory */
void
cf_sum_device_forget_scratch (CfSumDevice * d)
{
  d->scratch = NULL;
  d->scratch_size = 0;
  d->previous_valid = FALSE;
  d->hlg_uploaded = FALSE;
}

/* The key the kernel sums for the profiles and detectors: Y, or the luma of
 * packed RGB; above 8 bits Y (or packed 10-bit RGB's grey) at 8 bits, a
 * plane of bytes. */
static void
luma_weights (const GstCudaFiltersRegion * region, guint32 weights[4])
{
  const CfSamplePlane *p0 = &region->planes[0];
  CfGrayWeights w = cf_gray_weights (CF_GRAY_MATRIX_BT601);
  gint b;

  memset (weights, 0, 4 * sizeof (guint32));
  if (p0->bytes_per_pixel == 1 || region->depth > 8) {
    weights[0] = 65536;
    return;
  }
  for (b = 0; b < p0->bytes_per_pixel; b++) {
    /* channels 0, 1, 2 of an RGB format are R, G, B whatever their order */
    switch (p0->channel[b]) {
      case 0:
        weights[b] = w.kr;
        break;
      case 1:
        weights[b] = w.kg;
        break;
      case 2:
        weights[b] = w.kb;
        break;
      default:
        break;
    }
  }
}

/* The region's words as Y'CbCr (docs/design/hdr.md): Cb and Cr
 * interleaved in plane 1 (P01x) or in planes 1 and 2. */
static void
ycbcr_words (const GstCudaFiltersRegion * region, CfYCbCrWords * f)
{
  const CfWordPlane *w = region->words;

  f->luma = w[0].data;
  f->luma_pitch = w[0].pitch;
  f->cb = w[1].data;
  f->cb_pitch = w[1].pitch;
  if (region->n_planes == 2) {
    f->cr = (const guint8 *) w[1].data + 2;
    f->cr_pitch = w[1].pitch;
    f->chroma_step = 2;
  } else {
    f->cr = w[2].data;
    f->cr_pitch = w[2].pitch;
    f->chroma_step = 1;
  }
  f->width = region->width;
  f->height = region->height;
  f->sub_x = (int) region->chroma_sub_x;
  f->sub_y = (int) region->chroma_sub_y;
  f->phase_x = region->x & f->sub_x;
  f->phase_y = region->y & f->sub_y;
  f->depth = (int) region->depth;
  f->shift = w[0].shift;
}

/* The light levels of the region's pixels added into @sums: PQ's codes
 * of max(R', G', B') counted, or HLG's light summed with the tables in
 * the scratch memory, copied there first where they are not yet; of
 * Y'CbCr or of packed R'G'B'. */
static CfError
light_add (CfSumDevice * d, const CfSumSettings * settings,
    const GstCudaFiltersRegion * region, guint8 * scratch, gpointer sums,
    CfStream stream)
{
  const CfWordPlane *packed = region->rgb10a2 ? &region->words[0] : NULL;
  CfHlgTables *tables;
  CfYCbCrWords f;
  CfError err;

  if (!packed)
    ycbcr_words (region, &f);
  if (!settings->hlg && packed)
    return cf_light_codes_add_rgb10a2 (packed, settings->light_rgb, sums,
        stream);
  if (!settings->hlg)
    return cf_light_codes_add (&f, settings->light, sums, stream);
  tables = (CfHlgTables *) (scratch + hlg_tables_offset (d->frame_width,
          d->frame_height));
  if (!d->hlg_uploaded || d->hlg_serial != settings->hlg_serial) {
    err = cf_copy_to_device (tables, settings->hlg, sizeof (CfHlgTables),
        stream);
    if (err != 0)
      return err;
    d->hlg_uploaded = TRUE;
    d->hlg_serial = settings->hlg_serial;
  }
  if (packed)
    return cf_hlg_light_add_rgb10a2 (packed, settings->light_rgb, tables,
        sums, stream);
  return cf_hlg_light_add (&f, settings->light, tables, sums, stream);
}

/**
 * cf_sum_device_analyse:
 * @base: the element, whose scratch memory @d lays out
 * @r: the frame's result, whose header this fills
 * @sums: @zero_next: the frame's device sums, the next frame's
 *
 * Enqueues the kernels that sum @region's frame into @sums as @settings
 * ask, and fills @r's header: what it holds and where.
 */
CfError
cf_sum_device_analyse (CfSumDevice * d, GstCudaFiltersBase * base,
    const CfSumSettings * settings, const GstCudaFiltersRegion * region,
    SumResult * r, gpointer sums, gpointer zero_next, CfStream stream)
{
  gboolean percentiles = settings->percentiles;
  gboolean profiles = settings->profiles;
  guint detect = settings->detect;
  guint black_threshold = settings->black_threshold;
  guint p, b;
  /* (never 0 bytes: a scratch of none is no scratch) */
  gsize size = MAX (scratch_bytes (d->frame_width, d->frame_height,
          region->depth), 16);
  gsize device_bytes = device_sums_bytes (d->frame_width,
      d->frame_height, region->depth);
  guint8 *scratch;
  CfSumKey key = { 0, };
  CfError err;

  scratch = gst_cuda_filters_base_get_scratch (base, size);
  if (!scratch)
    return CF_ERROR_MEMORY_ALLOCATION;
  if (scratch != d->scratch || size != d->scratch_size) {
    /* new memory, or a new layout of it (the caps changed): there is no
     * previous luma */
    err = cf_fill_plane (scratch, size, size, 1, 0, stream);
    if (err != 0)
      return err;
    d->scratch = scratch;
    d->scratch_size = size;
    d->previous_valid = FALSE;
    d->hlg_uploaded = FALSE;
  }

  memset (r, 0, sizeof (*r));
  r->depth = region->depth;
  r->hist_offset = hist_sums_offset (d->frame_width, d->frame_height);
  r->luma_hist_offset = r->hist_offset + hist_sums_bytes (region->depth);
  r->word_offset = word_sums_offset (d->frame_width, d->frame_height,
      region->depth);
  if ((settings->light && region->depth > 8 && region->is_yuv &&
          region->n_channels >= 3) || (settings->light_rgb
          && region->rgb10a2)) {
    r->has |= HAS_LIGHT;
    r->light_offset = light_counts_offset (d->frame_width, d->frame_height,
        region->depth);
    r->hlg_peak = settings->hlg ? settings->hlg_peak : 0.0;
  }
  r->black_threshold = black_threshold;
  r->detect = detect;
  r->x = region->x;
  r->y = region->y;
  r->width = region->width;
  r->height = region->height;
  for (p = 0; p < region->n_planes; p++) {
    const CfSamplePlane *pl = &region->planes[p];
    for (b = 0; b < (guint) pl->bytes_per_pixel && b < 4; b++) {
      if (pl->channel[b] >= 0)
        r->samples[pl->channel[b]] += (guint64) pl->width * pl->height;
    }
  }

  if (percentiles)
    r->has |= HAS_HISTOGRAM;
  if (profiles)
    r->has |= HAS_PROFILES;
  if (detect & GST_CUDA_SUM_DETECT_CROP)
    r->has |= HAS_CROP;
  if (detect & GST_CUDA_SUM_DETECT_BLACK)
    r->has |= HAS_BLACK;
  if (r->has & (HAS_PROFILES | HAS_CROP))
    key.flags |= CF_SUM_PROFILES;
  if (r->has & (HAS_BLACK | HAS_CROP))  /* crop: a black frame has none */
    key.flags |= CF_SUM_BLACK;
  if (detect & GST_CUDA_SUM_DETECT_CUT) {
    r->has |= HAS_LUMA_HISTOGRAM;
    key.flags |= CF_SUM_HIST;
  }
  if (detect & (GST_CUDA_SUM_DETECT_CUT | GST_CUDA_SUM_DETECT_FREEZE)) {
    gboolean same_region = d->previous_valid &&
        d->previous_x == region->x && d->previous_y == region->y &&
        d->previous_width == region->width &&
        d->previous_height == region->height;

    r->has |= HAS_CUT;
    key.flags |= CF_SUM_KEEP;
    if (same_region) {
      r->has |= HAS_DIFF;
      key.flags |= CF_SUM_DIFF;
    }
    d->previous_valid = TRUE;
    d->previous_x = region->x;
    d->previous_y = region->y;
    d->previous_width = region->width;
    d->previous_height = region->height;
  } else {
    d->previous_valid = FALSE;
  }
  luma_weights (region, key.weights);
  key.black_threshold = (int) black_threshold;
  key.previous = scratch;
  key.previous_pitch = previous_pitch (d->frame_width);
  key.key_counts = (guint32 *) ((guint8 *) sums + r->luma_hist_offset);

  /* The histogram first: its ordinary loads leave the end of the frame
   * in L2 for the statistics' pass (which, with luma features, reads
   * with evict-first loads and would leave little of it the other way
   * round), so this order is the quicker one (docs/design/sum.md).  The
   * statistics' launch zeroes all of the next frame's sums, the
   * histograms' too (whether or not this frame counts them). */
  err = 0;
  if (region->depth > 8) {
    /* the statistics of the words, writing the luma at 8 bits for the
     * profiles and detectors, which then read it as a GRAY8 frame */
    guint8 *key8 = key.flags ? scratch + previous_bytes (d->frame_width,
        d->frame_height) : NULL;

    if (percentiles)
      err = cf_hist_word_planes_add (region->words, (int) region->n_planes,
          (guint8 *) sums + r->hist_offset, NULL, stream);
    if (err == 0)
      err = cf_sum_word_planes_add (region->words, (int) region->n_planes,
          (guint8 *) sums + r->word_offset, region->rgb10a2 ? NULL : key8,
          key.previous_pitch, zero_next, device_bytes, stream);
    /* packed 10-bit RGB: the key is the pixels' grey (BT.601's weights, as
     * 8-bit RGB's key) rounded to 8 bits, as cudagray's output-depth=8 */
    if (err == 0 && key8 && region->rgb10a2 && region->width > 0
        && region->height > 0)
      err = cf_gray8_from_rgb10a2 (region->planes[0].data,
          region->planes[0].pitch, key8, key.previous_pitch, region->width,
          region->height, region->rgb10a2 == CF_BGR10A2, CF_GRAY_MATRIX_BT601,
          NULL, stream);
    if (err == 0 && key8) {
      CfSamplePlane key8_plane = { key8, key.previous_pitch, region->width,
        region->height, 1, {0, -1, -1, -1}
      };

      err = cf_sum_planes_add (&key8_plane, 1, &key, sums, NULL, 0, stream);
    }
  } else {
    if (percentiles)
      err = cf_hist_planes_add (region->planes, (int) region->n_planes,
          (guint8 *) sums + r->hist_offset, NULL, stream);
    if (err == 0)
      err = cf_sum_planes_add (region->planes, (int) region->n_planes, &key,
          sums, zero_next, device_bytes, stream);
  }
  if (err == 0 && (r->has & HAS_LIGHT))
    err = light_add (d, settings, region, scratch,
        (guint8 *) sums + r->light_offset, stream);
  if (err != 0)
    d->previous_valid = FALSE;
  return err;
}
