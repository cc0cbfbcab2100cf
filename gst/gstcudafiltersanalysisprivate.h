/* GStreamer
 * gst-cudafilters: the analysis base's state, shared by the files that make
 * it up.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCudaFiltersAnalysis lives in three files: gstcudafiltersanalysis.c
 * (the class, its properties and the path of a frame),
 * gstcudafiltersregion.c (the formats and a frame's region) and
 * gstcudafiltersinterval.c (the interval and its messages); its results
 * are gstcudafiltersresults.c (the thread) and gstcudafiltersresultsdevice.c
 * (the device buffers).  This is the state they share.
 * Internal to the plugin. */

#ifndef __GST_CUDA_FILTERS_ANALYSIS_PRIVATE_H__
#define __GST_CUDA_FILTERS_ANALYSIS_PRIVATE_H__

#include "gstcudafiltersanalysis.h"
#include "gstcudafiltersresults.h"

G_BEGIN_DECLS

typedef struct
{
  /* properties, under the object lock */
  gboolean post_messages;
  guint64 interval;
  gboolean attach_meta;
  GstCudaFiltersArrayFormat array_format;
  guint roi_x, roi_y, roi_width, roi_height;

  /* the frame of the current transform, between process() and finish() */
  CfResultFrame *current;
  /* with attach-meta: the frame waiting for its meta in transform_ip() */
  CfResultFrame *meta_frame;

  /* the results of the frames in flight (gstcudafiltersresults.c) */
  CfResults *results;

  /* under the results' lock (cf_results_lock) */
  /* the format of the message or meta fill_structure() fills */
  GstCudaFiltersArrayFormat filling_format;
  /* the buffers of the long arrays posted last */
  GstCudaFiltersValueBuffers value_buffers;
  GstVideoInfo info;
  gsize total_size;
  /* the interval being summed: frames stays under G_MAXUINT (the message's
   * type) and pixels under 2^64 (cf_analysis_add_frame() posts the interval
   * first) */
  gpointer total;
  /* with attach-meta: a frame's own total, total_size bytes too */
  gpointer meta_total;
  guint64 frames;
  guint64 pixels;
  GstClockTime start_pts, start_stream_time, start_running_time, end;
  GstCudaFiltersRegion region;
} GstCudaFiltersAnalysisPrivate;

GstCudaFiltersAnalysisPrivate *gst_cuda_filters_analysis_get_private
    (GstCudaFiltersAnalysis * self);

/* gstcudafiltersregion.c */
void cf_analysis_region_of_frame (GstCudaFiltersAnalysis * self,
    const GstCudaFiltersFrame * frame, GstCudaFiltersRegion * r);

/* gstcudafiltersinterval.c; called with the results' lock, but
 * cf_analysis_post_partial_interval(), which takes it */
void cf_analysis_reset_interval (GstCudaFiltersAnalysis * self);
void cf_analysis_reset_results (GstCudaFiltersAnalysis * self);
GstMessage *cf_analysis_take_interval_message (GstCudaFiltersAnalysis * self);
GstMessage *cf_analysis_add_frame (GstCudaFiltersAnalysis * self,
    const CfResultFrame * p, gconstpointer result, GstMessage ** closed);
void cf_analysis_observe_frame (GstCudaFiltersAnalysis * self,
    const CfResultFrame * p, gpointer result, GPtrArray * messages);
GstFlowReturn cf_analysis_post_partial_interval (GstCudaFiltersAnalysis *
    self, gboolean eos);

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_ANALYSIS_PRIVATE_H__ */
