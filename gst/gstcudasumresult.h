/* GStreamer
 * gst-cudafilters: cudasum's results
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What a cudasum frame's result and an interval's total hold, shared by
 * the element (gstcudasum.c: the kernels that fill a result, the
 * detectors that observe it) and gstcudasumresult.c (the totals and the
 * message's fields). */

#ifndef __GST_CUDA_SUM_RESULT_H__
#define __GST_CUDA_SUM_RESULT_H__

#include "gstcudafiltersanalysis.h"
#include "gstcudasumdetect.h"

G_BEGIN_DECLS

/* counts of a histogram, at most: 4 channels of 256 values at 8 bits, 3
 * of 4096 levels above (cudahist's) */
#define N_COUNTS (CF_HIST_WORD_CHANNELS * CF_HIST_MAX_LEVELS)
G_STATIC_ASSERT (N_COUNTS >= CF_HIST_MAX_CHANNELS * CF_HIST_BINS);

/* what a frame's result or an interval's total holds */
enum
{
  HAS_HISTOGRAM = 1 << 0,
  HAS_PROFILES = 1 << 1,
  HAS_CROP = 1 << 2,
  HAS_BLACK = 1 << 3,
  HAS_CUT = 1 << 4,
  HAS_DIFF = 1 << 5,            /* a previous frame to compare with */
  HAS_LUMA_HISTOGRAM = 1 << 6,
  HAS_LIGHT = 1 << 7,           /* light levels, PQ's or HLG's */
};

/* A frame's result, in a pinned slot: this header, which analyse()
 * fills, then from DEVICE_OFFSET on the sums the kernels added up in
 * device memory, copied there by the base class: cf_sum_planes_add's
 * (the statistics, then with profiles or crop the row sums and column
 * sums of the region's luma, and at luma_hist_offset its counts, for the
 * cuts), and cf_hist_planes_add's at hist_offset (percentiles).  Above 8
 * bits (@depth) the statistics are cf_sum_word_planes_add's, at
 * word_offset, the percentiles' counts cf_hist_word_planes_add's, and
 * cf_sum_planes_add's sums are of the luma at 8 bits, for the profiles
 * and detectors only.  With light levels (HAS_LIGHT) the counts of each
 * code of max(R', G', B') (cf_light_codes_add) are at light_offset, or
 * for HLG (hlg_peak, the display's, above 0) the CfHlgSums of
 * cf_hlg_light_add. */
typedef struct
{
  guint32 depth;
  guint32 has, detect;          /* detect: the frame's detectors */
  guint32 black_threshold;
  gint32 x, y, width, height;
  guint64 samples[CF_HIST_MAX_CHANNELS];
  /* from DEVICE_OFFSET */
  guint64 hist_offset, luma_hist_offset, word_offset, light_offset;
  /* what the detectors saw in the frame (observe()) */
  CfDetectFrame seen;
  /* with HAS_LIGHT, MaxCLL and MaxFALL up to this frame (observe()) */
  gdouble max_cll, max_fall;
  gdouble hlg_peak;
} SumResult;

#define DEVICE_OFFSET GST_ROUND_UP_N (sizeof (SumResult), 256)

/* An interval's total; then profile_height + profile_width guint64 sums.
 * Exact for any interval: `sum` is posted in 64 bits, and the interval is
 * posted before a frame would take it past them (gst_cuda_sum_fits); the
 * squares, up to 255 times that, are summed in 128 bits.  samples, black,
 * black_pixels, the histogram's and the light levels' counts are at most
 * the interval's pixels, which the base class keeps within 64 bits; the row and column
 * sums add 32-bit sums of at most G_MAXUINT frames.  HLG's light is added
 * in cd/m2 (its frames' display peak may change). */
typedef struct
{
  guint32 has;
  guint64 samples[CF_HIST_MAX_CHANNELS];
  guint64 sum[CF_HIST_MAX_CHANNELS];
  GstCudaFiltersU128 sum_squares[CF_HIST_MAX_CHANNELS];
  guint32 min[CF_HIST_MAX_CHANNELS], max[CF_HIST_MAX_CHANNELS];
  guint64 black, black_pixels;
  gdouble frame_diff, hist_diff;
  gboolean has_stable_crop;
  CfDetectRect stable_crop;
  gboolean crop_found;
  gint crop_x0, crop_y0, crop_x1, crop_y1;      /* x1, y1 exclusive */
  guint profile_frames;
  gint profile_width, profile_height;
  gdouble hlg_max, hlg_sum;
  guint64 hlg_pixels;
  gdouble max_cll, max_fall;
  /* how many of counts, and whether light_counts, are zeroed for the
   * interval: the first frame that adds into them zeroes them (they are
   * long, and most streams have neither) */
  guint counts_zeroed;
  gboolean light_zeroed;
  /* the interval's start zeroes the total up to here */
  guint64 counts[N_COUNTS];
  guint64 light_counts[CF_LIGHT_CODES];
} SumTotal;

static inline const guint8 *
result_sums (const SumResult * r)
{
  return (const guint8 *) r + DEVICE_OFFSET;
}

static inline guint64 *
total_rows (SumTotal * t)
{
  return (guint64 *) (t + 1);
}

const guint32 *gst_cuda_sum_result_stats (const SumResult * r,
    CfSumStats * stats);
gboolean gst_cuda_sum_result_light (const SumResult * r, gdouble * max_light,
    gdouble * average_light);

void gst_cuda_sum_accumulate (GstCudaFiltersAnalysis * analysis,
    gpointer total, gconstpointer result, guint frames);
gboolean gst_cuda_sum_fits (GstCudaFiltersAnalysis * analysis,
    gconstpointer total, gconstpointer result);
gdouble *gst_cuda_sum_profile_means (GstCudaFiltersAnalysis * analysis,
    gsize n);
void gst_cuda_sum_fill_structure (GstCudaFiltersAnalysis * analysis,
    GstStructure * s, gconstpointer total, guint frames,
    const GstCudaFiltersRegion * region);

G_END_DECLS
#endif /* __GST_CUDA_SUM_RESULT_H__ */
