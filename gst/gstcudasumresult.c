/* GStreamer
 * gst-cudafilters: cudasum's results: a frame's added into an interval's
 * total, and the total's message fields (gstcudasumresult.h)
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasumresult.h"
#include "gstcudafiltershdr.h"

#include <math.h>
#include <string.h>

/**
 * gst_cuda_sum_result_stats:
 *
 * The statistics of a frame's result, and where its row sums (then its
 * column sums) are: above 8 bits the channels' from the statistics of
 * words, the rest (black, frame difference, profiles) from the sums of
 * the luma at 8 bits.
 */
const guint32 *
gst_cuda_sum_result_stats (const SumResult * r, CfSumStats * stats)
{
  const guint32 *rows = cf_sum_sums_read (result_sums (r), stats);

  if (r->depth > 8) {
    CfWordStats words;
    guint c;

    cf_sum_word_sums_read (result_sums (r) + r->word_offset, &words);
    for (c = 0; c < CF_HIST_MAX_CHANNELS; c++) {
      gboolean has = c < CF_HIST_WORD_CHANNELS;

      stats->sum[c] = has ? words.sum[c] : 0;
      stats->sum_squares[c] = has ? words.sum_squares[c] : 0;
      stats->min[c] = has ? words.min[c] : G_MAXUINT32;
      stats->max[c] = has ? words.max[c] : 0;
    }
  }
  return rows;
}

/* HLG's largest and summed light of a frame with HAS_LIGHT and hlg_peak */
static CfHlgSums
result_hlg_sums (const SumResult * r)
{
  CfHlgSums sums;

  memcpy (&sums, result_sums (r) + r->light_offset, sizeof (sums));
  return sums;
}

/**
 * gst_cuda_sum_result_light:
 *
 * A frame's largest and average light in cd/m2, where it has them
 * (HAS_LIGHT): for PQ from its counts of codes of max(R', G', B') and
 * the PQ EOTF, for HLG from its largest and summed light
 * (docs/design/hdr.md).  FALSE for a frame without them or without
 * pixels.
 */
gboolean
gst_cuda_sum_result_light (const SumResult * r, gdouble * max_light,
    gdouble * average_light)
{
  const guint32 *c = (const guint32 *) (result_sums (r) + r->light_offset);
  guint64 counts[CF_LIGHT_CODES];
  guint i;

  if (!(r->has & HAS_LIGHT))
    return FALSE;
  if (r->hlg_peak > 0) {
    CfHlgSums sums = result_hlg_sums (r);
    guint64 pixels = (guint64) r->width * r->height;

    gst_cuda_filters_hlg_light_levels (sums.max, sums.sum, pixels,
        r->hlg_peak, max_light, average_light);
    return pixels > 0;
  }
  for (i = 0; i < CF_LIGHT_CODES; i++)
    counts[i] = c[i];
  return gst_cuda_filters_light_levels (counts,
      gst_cuda_filters_light_table_pq (), max_light, average_light) > 0;
}

/* the levels of a histogram of @depth, per channel */
static guint
levels_of (guint depth)
{
  return depth > 8 ? CF_HIST_LEVELS (depth) : CF_HIST_BINS;
}

/* Zeroes the first @n of the total's counts, unless a frame of the
 * interval has: the first frame that adds into them does, which may come
 * mid-interval (percentiles turned on while playing).  (An interval's
 * frames have one depth, so each adds the same @n.) */
static void
zero_counts (SumTotal * t, guint n)
{
  if (t->counts_zeroed < n) {
    memset (t->counts + t->counts_zeroed, 0,
        (n - t->counts_zeroed) * sizeof (guint64));
    t->counts_zeroed = n;
  }
}

void
gst_cuda_sum_accumulate (GstCudaFiltersAnalysis * analysis, gpointer total,
    gconstpointer result, guint frames)
{
  SumTotal *t = total;
  const SumResult *r = result;
  guint64 pixels = (guint64) r->width * r->height;
  CfSumStats stats;
  const guint32 *rows = gst_cuda_sum_result_stats (r, &stats);
  guint c, i;

  if (frames == 0) {
    memset (t, 0, G_STRUCT_OFFSET (SumTotal, counts));
    for (c = 0; c < CF_HIST_MAX_CHANNELS; c++)
      t->min[c] = G_MAXUINT32;
  }
  t->has |= r->has;
  for (c = 0; c < CF_HIST_MAX_CHANNELS; c++) {
    t->samples[c] += r->samples[c];
    t->sum[c] += stats.sum[c];
    gst_cuda_filters_u128_add (&t->sum_squares[c], stats.sum_squares[c]);
    t->min[c] = MIN (t->min[c], stats.min[c]);
    t->max[c] = MAX (t->max[c], stats.max[c]);
  }
  if ((r->has & HAS_HISTOGRAM) && r->depth > 8) {
    /* 3 channels of 2^min(d, 12) levels */
    const guint32 *counts =
        (const guint32 *) (result_sums (r) + r->hist_offset);
    guint n = CF_HIST_WORD_CHANNELS * levels_of (r->depth);

    zero_counts (t, n);
    for (i = 0; i < n; i++)
      t->counts[i] += counts[i];
  } else if (r->has & HAS_HISTOGRAM) {
    guint32 counts[CF_HIST_MAX_CHANNELS * CF_HIST_BINS];

    zero_counts (t, G_N_ELEMENTS (counts));
    cf_hist_sums_counts (result_sums (r) + r->hist_offset, counts);
    for (i = 0; i < G_N_ELEMENTS (counts); i++)
      t->counts[i] += counts[i];
  }
  /* (fill_structure () reads light_counts for HLG's frames too) */
  if ((r->has & HAS_LIGHT) && !t->light_zeroed) {
    memset (t->light_counts, 0, sizeof (t->light_counts));
    t->light_zeroed = TRUE;
  }
  if ((r->has & HAS_LIGHT) && r->hlg_peak > 0) {
    CfHlgSums sums = result_hlg_sums (r);

    t->hlg_max = MAX (t->hlg_max,
        gst_cuda_filters_hlg_light_sum (sums.max, r->hlg_peak));
    t->hlg_sum += gst_cuda_filters_hlg_light_sum (sums.sum, r->hlg_peak);
    t->hlg_pixels += pixels;
  } else if (r->has & HAS_LIGHT) {
    const guint32 *counts =
        (const guint32 *) (result_sums (r) + r->light_offset);

    for (i = 0; i < CF_LIGHT_CODES; i++)
      t->light_counts[i] += counts[i];
  }
  if (r->has & HAS_LIGHT) {
    t->max_cll = r->max_cll;
    t->max_fall = r->max_fall;
  }
  if (r->has & HAS_BLACK) {
    t->black += stats.black;
    t->black_pixels += pixels;
  }
  if ((r->has & HAS_DIFF) && pixels > 0)
    t->frame_diff = MAX (t->frame_diff, (gdouble) stats.abs_diff / pixels);
  t->hist_diff = MAX (t->hist_diff, r->seen.hist_diff);
  t->has_stable_crop = r->seen.has_stable_crop;
  t->stable_crop = r->seen.stable_crop;
  if (r->has & HAS_CROP) {
    CfDetectRect b;

    if (cf_detect_border_rect (rows, r->width, r->height, r->black_threshold,
            &b)) {
      gint x0 = r->x + b.x, y0 = r->y + b.y;
      gint x1 = x0 + b.width, y1 = y0 + b.height;

      if (!t->crop_found) {
        t->crop_x0 = x0;
        t->crop_y0 = y0;
        t->crop_x1 = x1;
        t->crop_y1 = y1;
      } else {
        t->crop_x0 = MIN (t->crop_x0, x0);
        t->crop_y0 = MIN (t->crop_y0, y0);
        t->crop_x1 = MAX (t->crop_x1, x1);
        t->crop_y1 = MAX (t->crop_y1, y1);
      }
      t->crop_found = TRUE;
    }
  }
  if (r->has & HAS_PROFILES) {
    guint64 *sums = total_rows (t);
    guint n = (guint) r->height + (guint) r->width;

    /* a region of another size starts the profiles again */
    if (t->profile_frames == 0 || t->profile_width != r->width ||
        t->profile_height != r->height) {
      memset (sums, 0, n * sizeof (guint64));
      t->profile_frames = 0;
      t->profile_width = r->width;
      t->profile_height = r->height;
    }
    for (i = 0; i < n; i++)
      sums[i] += rows[i];
    t->profile_frames++;
  }
}

/* `sum` is posted as a G_TYPE_UINT64: a frame that would take a channel's
 * past 2^64 - 1 starts the next interval (the base class posts this one
 * first).  That takes 8.7e9 4K frames, more than a message's `frames`
 * can count, but only 1.7e7 frames of 2^32 pixels (4 GiB of GRAY8). */
gboolean
gst_cuda_sum_fits (GstCudaFiltersAnalysis * analysis, gconstpointer total,
    gconstpointer result)
{
  const SumTotal *t = total;
  CfSumStats stats;
  guint c;

  gst_cuda_sum_result_stats (result, &stats);
  for (c = 0; c < CF_HIST_MAX_CHANNELS; c++) {
    if (stats.sum[c] > G_MAXUINT64 - t->sum[c])
      return FALSE;
  }
  return TRUE;
}

/* The p-th percentile of @counts (the levels of @depth, of @n samples),
 * as the lowest value of its level */
static guint
percentile (const guint64 * counts, guint depth, guint64 n, guint p)
{
  return gst_cuda_filters_percentile (counts, levels_of (depth), n, p) <<
      (depth > 12 ? depth - 12 : 0);
}

/* sqrt (n q - s^2) / n, the numerator exact */
static gdouble
stddev_of (guint64 n, guint64 s, const GstCudaFiltersU128 * q)
{
  if (n == 0)
    return 0.0;
  return sqrt (gst_cuda_filters_variance_numerator (n, s, q)) / (gdouble) n;
}

void
gst_cuda_sum_fill_structure (GstCudaFiltersAnalysis * analysis,
    GstStructure * s, gconstpointer total, guint frames,
    const GstCudaFiltersRegion * region)
{
  SumTotal *t = (SumTotal *) total;
  guint n = region->n_channels, c;
  guint64 sums[CF_HIST_MAX_CHANNELS] = { 0, };
  gdouble means[CF_HIST_MAX_CHANNELS], stddevs[CF_HIST_MAX_CHANNELS];
  guint mins[CF_HIST_MAX_CHANNELS], maxs[CF_HIST_MAX_CHANNELS];
  for (c = 0; c < n; c++) {
    guint64 samples = t->samples[c];

    sums[c] = t->sum[c];
    means[c] = samples ? (gdouble) t->sum[c] / samples : 0.0;
    stddevs[c] = stddev_of (samples, t->sum[c], &t->sum_squares[c]);
    mins[c] = samples ? t->min[c] : 0;
    maxs[c] = samples ? t->max[c] : 0;
  }
  gst_structure_set (s, "depth", G_TYPE_UINT, region->depth, NULL);
  gst_cuda_filters_structure_take_array (s, "sum", G_TYPE_UINT64, n, sums);
  gst_cuda_filters_structure_take_array (s, "mean", G_TYPE_DOUBLE, n, means);
  gst_cuda_filters_structure_take_array (s, "min", G_TYPE_UINT, n, mins);
  gst_cuda_filters_structure_take_array (s, "max", G_TYPE_UINT, n, maxs);
  gst_cuda_filters_structure_take_array (s, "stddev", G_TYPE_DOUBLE, n,
      stddevs);

  if (t->has & HAS_HISTOGRAM) {
    guint low[CF_HIST_MAX_CHANNELS], median[CF_HIST_MAX_CHANNELS],
        high[CF_HIST_MAX_CHANNELS];

    for (c = 0; c < n; c++) {
      guint levels = levels_of (region->depth);
      const guint64 *counts = t->counts + c * levels;
      guint64 samples = 0;
      guint v;

      for (v = 0; v < levels; v++)
        samples += counts[v];
      low[c] = percentile (counts, region->depth, samples, 10);
      median[c] = percentile (counts, region->depth, samples, 50);
      high[c] = percentile (counts, region->depth, samples, 90);
    }
    gst_cuda_filters_structure_take_array (s, "low", G_TYPE_UINT, n, low);
    gst_cuda_filters_structure_take_array (s, "median", G_TYPE_UINT, n, median);
    gst_cuda_filters_structure_take_array (s, "high", G_TYPE_UINT, n, high);
  }

  if ((t->has & HAS_PROFILES) && t->profile_frames > 0) {
    const guint64 *rows = total_rows (t);
    const guint64 *columns = rows + t->profile_height;
    gdouble *means_y = gst_cuda_sum_profile_means (analysis,
        MAX ((gsize) t->profile_height + t->profile_width, 1));
    gdouble *means_x = means_y + t->profile_height;
    gint i;

    /* a row of no pixels (a region of width 0) has mean 0 */
    for (i = 0; i < t->profile_height; i++)
      means_y[i] = t->profile_width ? (gdouble) rows[i] /
          ((gdouble) t->profile_frames * t->profile_width) : 0.0;
    for (i = 0; i < t->profile_width; i++)
      means_x[i] = t->profile_height ? (gdouble) columns[i] /
          ((gdouble) t->profile_frames * t->profile_height) : 0.0;
    gst_cuda_filters_analysis_take_values (analysis, s, "row-means",
        G_TYPE_DOUBLE, t->profile_height, means_y);
    gst_cuda_filters_analysis_take_values (analysis, s, "column-means",
        G_TYPE_DOUBLE, t->profile_width, means_x);
  }

  if (t->has & HAS_CROP) {
    gboolean found = t->crop_found;

    const CfDetectRect *st = &t->stable_crop;
    gboolean stable = t->has_stable_crop;

    gst_structure_set (s,
        "crop-x", G_TYPE_UINT, found ? (guint) t->crop_x0 : 0u,
        "crop-y", G_TYPE_UINT, found ? (guint) t->crop_y0 : 0u,
        "crop-width", G_TYPE_UINT,
        found ? (guint) (t->crop_x1 - t->crop_x0) : 0u,
        "crop-height", G_TYPE_UINT,
        found ? (guint) (t->crop_y1 - t->crop_y0) : 0u,
        "stable-crop-x", G_TYPE_UINT, stable ? (guint) st->x : 0u,
        "stable-crop-y", G_TYPE_UINT, stable ? (guint) st->y : 0u,
        "stable-crop-width", G_TYPE_UINT, stable ? (guint) st->width : 0u,
        "stable-crop-height", G_TYPE_UINT, stable ? (guint) st->height : 0u,
        NULL);
  }
  if (t->has & HAS_BLACK)
    gst_structure_set (s, "black-ratio", G_TYPE_DOUBLE, t->black_pixels ?
        (gdouble) t->black / t->black_pixels : 0.0, NULL);
  if (t->has & HAS_CUT)
    gst_structure_set (s, "frame-diff", G_TYPE_DOUBLE, t->frame_diff, NULL);
  if (t->has & HAS_LUMA_HISTOGRAM)
    gst_structure_set (s, "hist-diff", G_TYPE_DOUBLE, t->hist_diff, NULL);
  if (t->has & HAS_LIGHT) {
    gdouble max_light, average_light;
    guint64 n = gst_cuda_filters_light_levels (t->light_counts,
        gst_cuda_filters_light_table_pq (), &max_light, &average_light);

    /* HLG's frames (all of them, but where the caps changed) */
    if (t->hlg_pixels) {
      max_light = n ? MAX (max_light, t->hlg_max) : t->hlg_max;
      average_light = n ? (average_light * n + t->hlg_sum) / (gdouble) (n +
          t->hlg_pixels) : t->hlg_sum / (gdouble) t->hlg_pixels;
    }
    gst_structure_set (s, "max-light", G_TYPE_DOUBLE, max_light,
        "average-light", G_TYPE_DOUBLE, average_light,
        "max-cll", G_TYPE_DOUBLE, t->max_cll,
        "max-fall", G_TYPE_DOUBLE, t->max_fall, NULL);
  }
}
