/* GStreamer
 * gst-cudafilters: the base class of the analysis elements.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstcudafiltersanalysis
 * @title: GstCudaFiltersAnalysis
 * @short_description: base class of the frame-statistics elements
 *
 * An analysis element passes every frame through untouched and posts what
 * it measured as element messages, the way `level` does, and optionally as
 * a #GstCustomMeta on the frame.  This class owns what cudahist and cudasum
 * share:
 *
 * - the region of interest (`roi-x`, `roi-y`, `roi-width`, `roi-height`)
 *   and the channels of each format;
 * - frames in flight: the streaming thread enqueues a frame's kernels and
 *   pushes the frame on at once; a worker thread waits for the GPU, adds
 *   the frame's result to the interval and posts the messages, in frame
 *   order (gstcudafiltersresults.c).  The frame's buffer is held until the
 *   GPU has read it.  At most 16 frames are in flight; the next one waits
 *   for a slot;
 * - `interval`, `post-messages` and the message's time fields; at EOS the
 *   partial interval is posted, on flush what is pending is dropped and
 *   no result message of a frame before FLUSH_STOP is posted after it.
 *   An interval is posted early, before the frame that would overflow a
 *   field of its message (`frames` is a G_TYPE_UINT), and sums that can
 *   pass 64 bits are kept in 128;
 * - `attach-meta`: the frame waits for its own result, which is attached to
 *   it before it is pushed;
 * - `array-format`: the long arrays as GstValueArrays or packed buffers.
 *
 * The streaming thread's waits for a slot, for a frame's own meta and for
 * the frames in flight at EOS end with FLUSH_START and the change to READY
 * (GST_FLOW_FLUSHING), and a frame the GPU has not finished in 10 seconds
 * is an element error (GST_FLOW_ERROR).  The waits before GPU memory is
 * freed (release(): caps or context change, stop) wait for the GPU however
 * long it takes, so that nothing is freed under it: a GPU that never
 * answers again blocks them.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersanalysisprivate.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <string.h>

GST_DEBUG_CATEGORY (gst_cuda_filters_analysis_debug);
#define GST_CAT_DEFAULT gst_cuda_filters_analysis_debug

#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_INTERVAL 0
#define DEFAULT_ATTACH_META FALSE

enum
{
  PROP_0,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
  PROP_ATTACH_META,
  PROP_ARRAY_FORMAT,
  PROP_ROI_X,
  PROP_ROI_Y,
  PROP_ROI_WIDTH,
  PROP_ROI_HEIGHT,
};

#define gst_cuda_filters_analysis_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaFiltersAnalysis,
    gst_cuda_filters_analysis, GST_TYPE_CUDA_FILTERS_BASE);

#define PRIV(self) ((GstCudaFiltersAnalysisPrivate *) \
    gst_cuda_filters_analysis_get_instance_private (GST_CUDA_FILTERS_ANALYSIS (self)))

GstCudaFiltersAnalysisPrivate *
gst_cuda_filters_analysis_get_private (GstCudaFiltersAnalysis * self)
{
  return PRIV (self);
}

/* ---- GstCudaFiltersBase vfuncs ------------------------------------------ */

static CfError
gst_cuda_filters_analysis_process (GstCudaFiltersBase * base,
    GstBuffer * inbuf, const GstCudaFiltersFrame * in,
    const GstCudaFiltersFrame * out, CfStream stream)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (base);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  CfResultFrame *p;
  CfError err;

  p = cf_results_take_frame (priv->results,
      gst_cuda_filters_base_get_context (base));
  if (!p)
    return CF_ERROR_MEMORY_ALLOCATION;
  p->pts = GST_BUFFER_PTS (inbuf);
  p->duration = GST_BUFFER_DURATION (inbuf);
  if (!GST_CLOCK_TIME_IS_VALID (p->duration) &&
      GST_VIDEO_INFO_FPS_N (&priv->info) > 0)
    p->duration = gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&priv->info), GST_VIDEO_INFO_FPS_N (&priv->info));
  /* a segment in another format (appsrc's default is bytes) has no times
   * to give, and the conversions would fail a precondition a frame */
  p->stream_time = p->running_time = GST_CLOCK_TIME_NONE;
  if (segment->format == GST_FORMAT_TIME) {
    p->stream_time = gst_segment_to_stream_time (segment, GST_FORMAT_TIME,
        p->pts);
    p->running_time = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        p->pts);
  }
  cf_analysis_region_of_frame (self, in, &p->region);

  /* (on an error the frame is dropped) */
  err = cf_results_analyse (priv->results, p, stream);
  if (err == 0)
    priv->current = p;
  return err;
}

/* After process(): the frame's work is enqueued.  It goes to the worker,
 * which holds the buffer until the GPU has read it; with attach-meta the
 * streaming thread holds it while it waits in transform_ip() for the
 * worker to see the result, and reads it there. */
static CfError
gst_cuda_filters_analysis_finish (GstCudaFiltersBase * base,
    GstBuffer * inbuf, CfStream stream)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (base);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  CfResultFrame *p = priv->current;
  gboolean attach_meta;

  priv->current = NULL;
  if (!p)
    return 0;
  GST_OBJECT_LOCK (self);
  attach_meta = priv->attach_meta;
  GST_OBJECT_UNLOCK (self);
  if (attach_meta) {
    p->reader = TRUE;
    priv->meta_frame = p;
  } else {
    p->buffer = gst_buffer_ref (inbuf);
  }
  cf_results_enqueue (priv->results, p);
  return 0;
}

static void
gst_cuda_filters_analysis_release (GstCudaFiltersBase * base, gboolean can_free)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (base);

  cf_results_drain (priv->results, FALSE);
  /* (a frame that process() took but finish() never saw) */
  cf_results_drop_frame (priv->results, priv->current);
  priv->current = NULL;
  cf_results_free_slots (priv->results, can_free);
}

static gboolean
gst_cuda_filters_analysis_set_info (GstCudaFiltersBase * base,
    const GstVideoInfo * in_info, const GstVideoInfo * out_info)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (base);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  gsize total_size = klass->total_size (self, in_info);

  /* what was summed under the old caps is posted as it is (unless a flush
   * drops it; a GPU that stopped answering fails the next frame) */
  if (cf_analysis_post_partial_interval (self, FALSE) == GST_FLOW_ERROR)
    cf_results_post_timeout_error (priv->results);

  cf_results_lock (priv->results);
  priv->info = *in_info;
  cf_results_set_device_size (priv->results, klass->device_size (self,
          in_info));
  if (total_size != priv->total_size || !priv->total) {
    g_free (priv->total);
    g_free (priv->meta_total);
    priv->total = g_malloc0 (MAX (total_size, 1));
    priv->meta_total = g_malloc (MAX (total_size, 1));
    priv->total_size = total_size;
  }
  cf_results_unlock (priv->results);
  /* the base class releases the old slots next, with the context current */
  return TRUE;
}

/* ---- GstBaseTransform vfuncs ------------------------------------------ */

static GstFlowReturn
gst_cuda_filters_analysis_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * input, GstBuffer ** outbuf)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (trans);
  gboolean attach_meta;

  GST_OBJECT_LOCK (trans);
  attach_meta = priv->attach_meta;
  GST_OBJECT_UNLOCK (trans);

  /* a meta needs a writable buffer; a copy shares the frame's memory */
  if (attach_meta && !gst_buffer_is_writable (input))
    *outbuf = gst_buffer_copy (input);
  else
    *outbuf = input;
  return GST_FLOW_OK;
}

/* attach-meta: @p's own result as a meta on @buf (CfResultsReadFunc, with
 * the results' lock: the subclass's callbacks run one at a time). */
static void
attach_result_meta (GstCudaFiltersAnalysis * self, GstBuffer * buf,
    const CfResultFrame * p, gconstpointer result)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  GstCustomMeta *meta = gst_buffer_add_custom_meta (buf, klass->meta_name);
  GstStructure *s = gst_custom_meta_get_structure (meta);

  GST_OBJECT_LOCK (self);
  priv->filling_format = priv->array_format;
  GST_OBJECT_UNLOCK (self);
  gst_cuda_filters_structure_set_common (s, p->pts, p->stream_time,
      p->running_time, p->duration, 1, p->region.pixels, &p->region);
  /* (accumulate() of 0 frames initialises the total) */
  klass->accumulate (self, priv->meta_total, result, 0);
  klass->fill_structure (self, s, priv->meta_total, 1, &p->region);
}

static GstFlowReturn
gst_cuda_filters_analysis_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (trans);
  GstFlowReturn ret;
  CfResultFrame *p;

  ret = cf_results_reserve (priv->results);
  if (ret != GST_FLOW_OK)
    return ret;

  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->transform_ip (trans, buf);

  /* the slot if process() was not reached, the frame if finish() was not */
  cf_results_unreserve (priv->results);
  cf_results_drop_frame (priv->results, priv->current);
  priv->current = NULL;

  p = priv->meta_frame;
  priv->meta_frame = NULL;
  if (!p)
    return ret;
  if (ret != GST_FLOW_OK) {
    /* (not after finish(), which is the last step) */
    cf_results_hand_over (priv->results, p, buf);
    return ret;
  }
  return cf_results_read (priv->results, p, buf, attach_result_meta);
}

static gboolean
gst_cuda_filters_analysis_sink_event (GstBaseTransform * trans,
    GstEvent * event)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (trans);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      /* (a flush ends the wait: nothing to post then) */
      if (cf_analysis_post_partial_interval (self, TRUE) != GST_FLOW_FLUSHING)
        cf_results_check_error (priv->results);
      break;
    case GST_EVENT_FLUSH_START:
      /* (not serialized: the streaming thread may be waiting) */
      cf_results_start_flushing (priv->results, TRUE);
      break;
    case GST_EVENT_FLUSH_STOP:
      cf_results_drop_pending (priv->results);
      cf_results_stop_flushing (priv->results);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_cuda_filters_analysis_start (GstBaseTransform * trans)
{
  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans))
    return FALSE;
  cf_results_start (PRIV (trans)->results);
  return TRUE;
}

static gboolean
gst_cuda_filters_analysis_stop (GstBaseTransform * trans)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (trans);
  gboolean ret;

  /* frames still in flight are waited for, their results dropped */
  cf_results_drop_pending (priv->results);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);
  cf_results_stop (priv->results);
  /* (buffers still in messages or metas live on there) */
  cf_results_lock (priv->results);
  gst_cuda_filters_value_buffers_clear (&priv->value_buffers);
  cf_results_unlock (priv->results);
  return ret;
}

/* ---- GstElement vfuncs ------------------------------------------------ */

static GstStateChangeReturn
gst_cuda_filters_analysis_change_state (GstElement * element,
    GstStateChange transition)
{
  /* Before the pads are deactivated, which waits for the streaming thread
   * to leave the chain function: it may be waiting for the GPU.  stop()
   * drops the results. */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    cf_results_start_flushing (PRIV (element)->results, FALSE);
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

/* ---- GObject ---------------------------------------------------------- */

static void
gst_cuda_filters_analysis_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_POST_MESSAGES:
      priv->post_messages = g_value_get_boolean (value);
      break;
    case PROP_INTERVAL:
      priv->interval = g_value_get_uint64 (value);
      break;
    case PROP_ATTACH_META:
      priv->attach_meta = g_value_get_boolean (value);
      break;
    case PROP_ARRAY_FORMAT:
      priv->array_format = g_value_get_enum (value);
      break;
    case PROP_ROI_X:
      priv->roi_x = g_value_get_uint (value);
      break;
    case PROP_ROI_Y:
      priv->roi_y = g_value_get_uint (value);
      break;
    case PROP_ROI_WIDTH:
      priv->roi_width = g_value_get_uint (value);
      break;
    case PROP_ROI_HEIGHT:
      priv->roi_height = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cuda_filters_analysis_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, priv->post_messages);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, priv->interval);
      break;
    case PROP_ATTACH_META:
      g_value_set_boolean (value, priv->attach_meta);
      break;
    case PROP_ARRAY_FORMAT:
      g_value_set_enum (value, priv->array_format);
      break;
    case PROP_ROI_X:
      g_value_set_uint (value, priv->roi_x);
      break;
    case PROP_ROI_Y:
      g_value_set_uint (value, priv->roi_y);
      break;
    case PROP_ROI_WIDTH:
      g_value_set_uint (value, priv->roi_width);
      break;
    case PROP_ROI_HEIGHT:
      g_value_set_uint (value, priv->roi_height);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cuda_filters_analysis_finalize (GObject * object)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (object);

  g_free (priv->total);
  g_free (priv->meta_total);
  cf_results_free (priv->results);
  gst_cuda_filters_value_buffers_clear (&priv->value_buffers);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_filters_analysis_class_init (GstCudaFiltersAnalysisClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaFiltersBaseClass *base_class = GST_CUDA_FILTERS_BASE_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
      G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_cuda_filters_analysis_set_property;
  gobject_class->get_property = gst_cuda_filters_analysis_get_property;
  gobject_class->finalize = gst_cuda_filters_analysis_finalize;

  /**
   * GstCudaFiltersAnalysis:post-messages:
   *
   * Post an element message with the results of every interval.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message with the results of every interval",
          DEFAULT_POST_MESSAGES, flags));
  /**
   * GstCudaFiltersAnalysis:interval:
   *
   * Stream time a message sums, in nanoseconds: the frames up to the one
   * that ends at least this long after the first began.  0 posts every
   * frame.  Frames without a timestamp, or without a duration or frame
   * rate, are posted one by one.  A message is posted early, before the
   * frame that would overflow one of its fields: `frames` (a G_TYPE_UINT)
   * after 4294967295 frames, and a 64-bit sum of the element (cudasum's
   * `sum`) before it passes 2^64.  The next message goes on from there.
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Stream time summed into one message, in nanoseconds "
          "(0 = every frame; posted early before a field would overflow)",
          0, G_MAXUINT64, DEFAULT_INTERVAL, flags));
  /**
   * GstCudaFiltersAnalysis:attach-meta:
   *
   * Attach each frame's own results to it as a #GstCustomMeta with the
   * message's fields.  The frame then waits for its results before it is
   * pushed, instead of going on while they are computed.
   */
  g_object_class_install_property (gobject_class, PROP_ATTACH_META,
      g_param_spec_boolean ("attach-meta", "Attach meta",
          "Attach each frame's results to it as a GstCustomMeta (the frame "
          "then waits for them)", DEFAULT_ATTACH_META, flags));
  /**
   * GstCudaFiltersAnalysis:array-format:
   *
   * How the long arrays are posted, in messages and meta: cudahist's
   * counts, cudasum's `row-means` and `column-means`.  `value-array`, a
   * #GstValueArray, is what gst-launch-1.0 -m prints.  `buffer`, a
   * #GstBuffer of the values as they lie in memory (guint64 counts,
   * gdouble means, in the machine's byte order), costs a fraction of the
   * CPU time to build and to read: for applications that read every
   * frame's results, or many streams' (docs/performance.md).
   */
  g_object_class_install_property (gobject_class, PROP_ARRAY_FORMAT,
      g_param_spec_enum ("array-format", "Array format",
          "How long arrays (histogram counts, profiles) are posted",
          GST_TYPE_CUDA_FILTERS_ARRAY_FORMAT,
          GST_CUDA_FILTERS_ARRAY_FORMAT_VALUE_ARRAY, flags));
  /**
   * GstCudaFiltersAnalysis:roi-x:
   *
   * Left edge of the region analysed, in pixels.  The region is clipped to
   * the frame; subsampled chroma takes every sample that covers part of it.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_X,
      g_param_spec_uint ("roi-x", "ROI x",
          "Left edge of the region analysed, in pixels", 0, G_MAXINT, 0,
          flags));
  /**
   * GstCudaFiltersAnalysis:roi-y:
   *
   * Top edge of the region analysed, in pixels.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_Y,
      g_param_spec_uint ("roi-y", "ROI y",
          "Top edge of the region analysed, in pixels", 0, G_MAXINT, 0, flags));
  /**
   * GstCudaFiltersAnalysis:roi-width:
   *
   * Width of the region analysed, in pixels; 0 reaches the right edge.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_WIDTH,
      g_param_spec_uint ("roi-width", "ROI width",
          "Width of the region analysed, in pixels (0 = to the right edge)",
          0, G_MAXINT, 0, flags));
  /**
   * GstCudaFiltersAnalysis:roi-height:
   *
   * Height of the region analysed, in pixels; 0 reaches the bottom edge.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_HEIGHT,
      g_param_spec_uint ("roi-height", "ROI height",
          "Height of the region analysed, in pixels (0 = to the bottom edge)",
          0, G_MAXINT, 0, flags));

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_change_state);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_stop);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_sink_event);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_prepare_output_buffer);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_transform_ip);

  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_set_info);
  base_class->process = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_process);
  base_class->finish = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_finish);
  base_class->release = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_release);
  gst_cuda_filters_base_class_set_analysis (base_class);
  /* each frame is held until its result is read back */
  base_class->held_frames = CF_RESULTS_MAX_IN_FLIGHT;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_filters_analysis_debug,
      "cudafiltersanalysis", 0, "gst-cudafilters analysis base class");

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FILTERS_ANALYSIS, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FILTERS_ARRAY_FORMAT, 0);
}

static void
gst_cuda_filters_analysis_init (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  priv->post_messages = DEFAULT_POST_MESSAGES;
  priv->interval = DEFAULT_INTERVAL;
  priv->attach_meta = DEFAULT_ATTACH_META;
  priv->results =
      cf_results_new (self, cf_analysis_add_frame, cf_analysis_reset_results,
      cf_analysis_observe_frame);
  cf_analysis_reset_interval (self);
}

/**
 * gst_cuda_filters_analysis_class_set_names:
 * @message_name: name of the element messages, e.g. "cudahist"
 * @meta_name: name of the #GstCustomMeta, e.g. "GstCudaHistMeta",
 *   registered here
 */
void
gst_cuda_filters_analysis_class_set_names (GstCudaFiltersAnalysisClass *
    klass, const gchar * message_name, const gchar * meta_name)
{
  /* no tags: the meta describes the frame's content as analysed and is
   * copied with the buffer */
  static const gchar *tags[] = { NULL };

  klass->message_name = message_name;
  klass->meta_name = meta_name;
  if (!gst_meta_get_info (meta_name))
    gst_meta_register_custom (meta_name, tags, NULL, NULL, NULL);
}
