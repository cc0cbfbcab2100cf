/* GStreamer
 * gst-cudafilters: the analysis base's intervals and their messages
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The part of GstCudaFiltersAnalysis (gstcudafiltersanalysis.c) that turns
 * finished frames into messages: the interval summed so far, what
 * observing each frame found, the partial interval at EOS.  The results'
 * worker (gstcudafiltersresults.c) calls it, with the results' lock. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersanalysisprivate.h"

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_filters_analysis_debug);
#define GST_CAT_DEFAULT gst_cuda_filters_analysis_debug

#define PRIV(self) \
  gst_cuda_filters_analysis_get_private (GST_CUDA_FILTERS_ANALYSIS (self))

/* Called with the results' lock. */
void
cf_analysis_reset_interval (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  priv->frames = 0;
  priv->pixels = 0;
  priv->start_pts = priv->start_stream_time = priv->start_running_time =
      priv->end = GST_CLOCK_TIME_NONE;
}

/* A start, a flush: the interval, and what was observed, start again.
 * Called with the results' lock (CfResultsResetFunc). */
void
cf_analysis_reset_results (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);

  if (klass->observe_reset)
    klass->observe_reset (self);
  cf_analysis_reset_interval (self);
}

/* The message for the interval summed so far, or NULL; resets it.  Called
 * with the results' lock. */
GstMessage *
cf_analysis_take_interval_message (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  GstMessage *msg = NULL;
  gboolean post;

  GST_OBJECT_LOCK (self);
  post = priv->post_messages;
  priv->filling_format = priv->array_format;
  GST_OBJECT_UNLOCK (self);

  if (post && priv->frames > 0) {
    GstClockTime duration = GST_CLOCK_TIME_IS_VALID (priv->start_pts) &&
        GST_CLOCK_TIME_IS_VALID (priv->end) && priv->end >= priv->start_pts ?
        priv->end - priv->start_pts : GST_CLOCK_TIME_NONE;
    GstStructure *s = gst_structure_new_empty (klass->message_name);

    /* (cf_analysis_add_frame() keeps frames within a guint) */
    gst_cuda_filters_structure_set_common (s, priv->start_pts,
        priv->start_stream_time, priv->start_running_time, duration,
        (guint) priv->frames, priv->pixels, &priv->region);
    klass->fill_structure (self, s, priv->total, (guint) priv->frames,
        &priv->region);
    msg = gst_message_new_element (GST_OBJECT (self), s);
  }
  cf_analysis_reset_interval (self);
  return msg;
}

/**
 * gst_cuda_filters_analysis_take_values:
 * @self: the element
 * @s: the structure fill_structure() fills
 * @name: the field
 * @type: G_TYPE_UINT64, G_TYPE_UINT or G_TYPE_DOUBLE
 * @n: how many values
 * @values: @n guint64, guint or gdouble
 *
 * For fill_structure(): gst_cuda_filters_structure_take_values() in the
 * element's array format, filling again a buffer of an earlier message
 * that is gone where there is one.
 */
void
gst_cuda_filters_analysis_take_values (GstCudaFiltersAnalysis * self,
    GstStructure * s, const gchar * name, GType type, guint n,
    gconstpointer values)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  gst_cuda_filters_structure_take_values (s, name, type, n, values,
      priv->filling_format, &priv->value_buffers);
}

/* Adds a finished frame to the interval; returns the message when that
 * ends the interval.  A frame that starts before the interval does (a
 * timestamp gone back without a flush), or that would overflow a field of
 * the message, first ends the interval summed so far, whose message goes
 * to @closed, and starts the next.  Called by the results' worker, with
 * their lock (CfResultsAddFunc). */
GstMessage *
cf_analysis_add_frame (GstCudaFiltersAnalysis * self, const CfResultFrame * p,
    gconstpointer result, GstMessage ** closed)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  guint64 interval;

  *closed = NULL;
  if (priv->frames > 0 && GST_CLOCK_TIME_IS_VALID (p->pts) &&
      GST_CLOCK_TIME_IS_VALID (priv->start_pts) && p->pts < priv->start_pts) {
    GST_DEBUG_OBJECT (self, "timestamp %" GST_TIME_FORMAT " before the "
        "interval's start %" GST_TIME_FORMAT ": the interval ends",
        GST_TIME_ARGS (p->pts), GST_TIME_ARGS (priv->start_pts));
    *closed = cf_analysis_take_interval_message (self);
  } else if (priv->frames > 0 &&
      (!gst_cuda_filters_analysis_interval_fits (priv->frames, priv->pixels,
              p->region.pixels) || (klass->fits
              && !klass->fits (self, priv->total, result)))) {
    GST_INFO_OBJECT (self, "the interval is full after %" G_GUINT64_FORMAT
        " frames: posted early", priv->frames);
    *closed = cf_analysis_take_interval_message (self);
  }
  if (priv->frames == 0) {
    priv->start_pts = p->pts;
    priv->start_stream_time = p->stream_time;
    priv->start_running_time = p->running_time;
  }
  klass->accumulate (self, priv->total, result, (guint) priv->frames);
  priv->frames++;
  priv->pixels += p->region.pixels;
  priv->region = p->region;
  priv->end = GST_CLOCK_TIME_IS_VALID (p->pts) &&
      GST_CLOCK_TIME_IS_VALID (p->duration) ? p->pts + p->duration :
      GST_CLOCK_TIME_NONE;

  GST_OBJECT_LOCK (self);
  interval = priv->interval;
  GST_OBJECT_UNLOCK (self);

  /* without times an interval cannot be measured: every frame is posted.
   * (end >= start_pts: a frame before the start began a new interval) */
  if (interval == 0 || !GST_CLOCK_TIME_IS_VALID (priv->start_pts) ||
      !GST_CLOCK_TIME_IS_VALID (priv->end) || priv->end < priv->start_pts ||
      priv->end - priv->start_pts >= interval)
    return cf_analysis_take_interval_message (self);
  return NULL;
}

/* Called by the results' worker, with their lock (CfResultsObserveFunc). */
void
cf_analysis_observe_frame (GstCudaFiltersAnalysis * self,
    const CfResultFrame * p, gpointer result, GPtrArray * messages)
{
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  GstCudaFiltersFrameTimes times = { p->pts, p->duration, p->stream_time,
    p->running_time
  };

  if (klass->observe)
    klass->observe (self, &times, &p->region, result, messages);
}

/* Posts the partial interval, after every frame in flight is in it, and
 * at EOS what observing the stream found at its end; returns how the wait
 * ended (cf_results_drain()). */
GstFlowReturn
cf_analysis_post_partial_interval (GstCudaFiltersAnalysis * self, gboolean eos)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  GPtrArray *messages = g_ptr_array_new ();
  GstMessage *msg = NULL;
  GstFlowReturn ret;
  guint i;

  ret = cf_results_drain (priv->results, TRUE);
  cf_results_lock (priv->results);
  if (ret == GST_FLOW_OK && cf_results_usable (priv->results)) {
    msg = cf_analysis_take_interval_message (self);
    if (eos && klass->observe_end)
      klass->observe_end (self, messages);
  }
  cf_results_unlock (priv->results);
  if (msg)
    gst_element_post_message (GST_ELEMENT (self), msg);
  for (i = 0; i < messages->len; i++) {
    GstMiniObject *m = g_ptr_array_index (messages, i);

    if (GST_IS_EVENT (m))
      gst_pad_push_event (GST_BASE_TRANSFORM_SINK_PAD (self),
          GST_EVENT_CAST (m));
    else
      gst_element_post_message (GST_ELEMENT (self), GST_MESSAGE_CAST (m));
  }
  g_ptr_array_free (messages, TRUE);
  return ret;
}
