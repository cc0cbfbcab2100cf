/* GStreamer
 * gst-cudafilters: the base class of every element.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstcudafiltersbase
 * @title: GstCudaFiltersBase
 * @short_description: base class of the gst-cudafilters elements
 *
 * Owns everything between GStreamer and the GPU so that elements hold only
 * their properties, caps and kernel dispatch:
 *
 * - the CUDA context, shared with nvcodec elements and applications through
 *   #GstContext, the `cuda-device-id` property, and one CUDA stream;
 * - frames in `memory:CUDAMemory` read and written in place (zero copy);
 *   output CUDA buffers come from a #GstCudaBufferPool of the context;
 * - with GStreamer 1.24+, whose CUDA memory carries a #GstCudaStream and
 *   whose producers return before their writes are done: the work ordered
 *   after the input's stream on the GPU, input frames held until the GPU
 *   has read them, CUDA output pushed at once, marked for its consumers to
 *   wait on our stream, and that stream shared through the allocation
 *   queries;
 * - frames in system memory uploaded on the element's stream, from pinned
 *   memory when upstream took the pool proposed in the allocation query;
 *   system-memory output downloaded into the output buffer;
 * - analysis elements as in-place passthrough: the frame goes on untouched.
 *
 * See docs/design/gpu-path.md for the path of a frame.
 */

/* This file: the class, its properties and caps.  Beside it:
 * gstcudafilterspath.c (the path of a frame), gstcudafilterscontext.c
 * (context, stream, scratch memory), gstcudafiltersalloc.c (allocation
 * queries), gstcudafiltersframe.c (planes and staging copies) and, on 1.24+,
 * gstcudafiltersorder.c (stream order); gstcudafiltersbaseprivate.h holds the
 * state they share. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersbaseprivate.h"
#include "gstcudafiltersalloc.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

GST_DEBUG_CATEGORY (gst_cuda_filters_base_debug);
#define GST_CAT_DEFAULT gst_cuda_filters_base_debug

#define DEFAULT_DEVICE_ID -1

enum
{
  PROP_0,
  PROP_CUDA_DEVICE_ID,
  /* the old name of cuda-device-id, deprecated */
  PROP_DEVICE_ID,
};

#define gst_cuda_filters_base_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaFiltersBase, gst_cuda_filters_base,
    GST_TYPE_BASE_TRANSFORM);

#define PRIV(self) \
  ((GstCudaFiltersBasePrivate *) gst_cuda_filters_base_get_instance_private (self))

GstCudaFiltersBasePrivate *
gst_cuda_filters_base_get_private (GstCudaFiltersBase * self)
{
  return PRIV (self);
}

/* ---- frames (the path of each: gstcudafilterspath.c) ------------------ */

static GstFlowReturn
gst_cuda_filters_base_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  return cf_path_run_frame (GST_CUDA_FILTERS_BASE (trans), inbuf, outbuf);
}

static GstFlowReturn
gst_cuda_filters_base_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  return cf_path_run_frame (GST_CUDA_FILTERS_BASE (trans), buf, NULL);
}

/* ---- state, context and caps ------------------------------------------ */

static gboolean
gst_cuda_filters_base_start (GstBaseTransform * trans)
{
  return cf_context_start (GST_CUDA_FILTERS_BASE (trans));
}

static gboolean
gst_cuda_filters_base_stop (GstBaseTransform * trans)
{
  cf_context_stop (GST_CUDA_FILTERS_BASE (trans));
  return TRUE;
}

static void
gst_cuda_filters_base_set_context (GstElement * element, GstContext * context)
{
  cf_context_set (GST_CUDA_FILTERS_BASE (element), context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_cuda_filters_base_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT &&
      cf_context_query (GST_CUDA_FILTERS_BASE (trans), query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_cuda_filters_base_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  GstCudaFiltersBaseClass *klass = GST_CUDA_FILTERS_BASE_GET_CLASS (self);
  GstVideoInfo in_info, out_info;
  gboolean can_free = TRUE;

  if (!priv->context)
    return FALSE;

  /* buffer pools count a buffer's size in a guint (GstVideoInfo itself
   * refuses some such sizes) */
  if (cf_frame_caps_bytes (incaps) > G_MAXUINT ||
      cf_frame_caps_bytes (outcaps) > G_MAXUINT) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Frames of 4 GiB or more are not supported."),
        ("%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  if (!gst_video_info_from_caps (&in_info, incaps) ||
      !gst_video_info_from_caps (&out_info, outcaps)) {
    /* (caps that passed our templates) */
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("The caps do not describe a video frame the element can use."),
        ("%" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT, incaps, outcaps));
    return FALSE;
  }
  if (GST_VIDEO_INFO_SIZE (&in_info) > G_MAXUINT ||
      GST_VIDEO_INFO_SIZE (&out_info) > G_MAXUINT) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Frames of 4 GiB or more are not supported."),
        ("a %dx%d %s frame is %" G_GSIZE_FORMAT " bytes",
            GST_VIDEO_INFO_WIDTH (&in_info), GST_VIDEO_INFO_HEIGHT (&in_info),
            GST_VIDEO_INFO_NAME (&in_info), MAX (GST_VIDEO_INFO_SIZE (&in_info),
                GST_VIDEO_INFO_SIZE (&out_info))));
    return FALSE;
  }

  /* what was sized by the old caps (staging frames, the subclass's
   * buffers) is freed with the context current, and reallocated on the
   * next frame; without the context it could be neither freed nor kept */
  if (!gst_cuda_context_push (priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not make the CUDA context current to apply new caps."),
        ("caps %" GST_PTR_FORMAT, incaps));
    return FALSE;
  }
#ifdef HAVE_GST_CUDA_STREAM
  /* frames of the old caps may still be on the GPU (nothing waits for them
   * on 1.24+).  If that wait fails, their memory is forgotten, not freed
   * under work that may still run (as at stop). */
  if (priv->stream) {
    CUresult res = CuStreamSynchronize (priv->stream);

    if (res != CUDA_SUCCESS) {
      GST_ERROR_OBJECT (self, "waiting for the stream failed (%s): the "
          "device memory of the old caps is left allocated",
          cf_cu_error_name (res));
      can_free = FALSE;
    }
  }
#endif
  if (klass->set_info && !klass->set_info (self, &in_info, &out_info)) {
    gst_cuda_context_pop (NULL);
    return FALSE;
  }
  if (klass->release)
    klass->release (self, can_free);
  cf_frame_staging_free (&priv->upload, can_free);
  cf_frame_staging_free (&priv->download, can_free);
  gst_cuda_context_pop (NULL);

  priv->in_info = in_info;
  priv->out_info = out_info;
  priv->in_cuda = cf_alloc_caps_are_cuda_memory (incaps);
  priv->out_cuda = cf_alloc_caps_are_cuda_memory (outcaps);

  GST_DEBUG_OBJECT (self, "in %s %s, out %s %s",
      GST_VIDEO_INFO_NAME (&in_info), priv->in_cuda ? "CUDA" : "system",
      GST_VIDEO_INFO_NAME (&out_info), priv->out_cuda ? "CUDA" : "system");
  return TRUE;
}

static gboolean
gst_cuda_filters_base_get_unit_size (GstBaseTransform * trans, GstCaps * caps,
    gsize * size)
{
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps))
    return FALSE;
  *size = GST_VIDEO_INFO_SIZE (&info);
  return TRUE;
}

static void
gst_cuda_filters_base_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);
  GstClockTime stream_time;

  cf_context_adopt_upstream (self, buffer);

  /* controlled properties take their value for this frame (a segment in
   * another format has no stream time to give) */
  if (trans->segment.format != GST_FORMAT_TIME)
    return;
  stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_TIMESTAMP (buffer));
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (self), stream_time);
}

/* ---- allocation (gstcudafiltersalloc.c) ------------------------------- */

static void
alloc_target (GstCudaFiltersBase * self, CfAllocTarget * target)
{
  target->context = PRIV (self)->context;
#ifdef HAVE_GST_CUDA_STREAM
  target->work_stream = PRIV (self)->work_stream;
#endif
}

static gboolean
gst_cuda_filters_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);
  guint held = GST_CUDA_FILTERS_BASE_GET_CLASS (self)->held_frames;
  gboolean passthrough = decide_query == NULL;
  CfAllocTarget target;

  /* a filter in passthrough runs nothing, and holds nothing */
  if (passthrough
      && !GST_BASE_TRANSFORM_GET_CLASS (trans)->transform_ip_on_passthrough)
    held = 0;
  alloc_target (self, &target);
  return cf_alloc_propose (trans, &target, query, passthrough, held);
}

static gboolean
gst_cuda_filters_base_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);
  CfAllocTarget target;

#ifdef HAVE_GST_CUDA_STREAM
  {
    /* on downstream's stream when its CUDA pool offers one of ours: it
     * reads our frames, and we write them again after its reads, in
     * stream order */
    GstCudaStream *offered = NULL;
    GstCaps *caps;

    gst_query_parse_allocation (query, &caps, NULL);
    if (caps && cf_alloc_caps_are_cuda_memory (caps))
      offered = cf_alloc_offered_stream (query, PRIV (self)->context);
    if (caps)
      cf_context_use_work_stream (self, offered);
    gst_clear_cuda_stream (&offered);
  }
#endif
  alloc_target (self, &target);
  return cf_alloc_decide (trans, &target, query);
}

/* ---- GObject ---------------------------------------------------------- */

static void
gst_cuda_filters_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFiltersBasePrivate *priv = PRIV (GST_CUDA_FILTERS_BASE (object));

  switch (prop_id) {
    case PROP_CUDA_DEVICE_ID:
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (object);
      priv->device_id = g_value_get_int (value);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_filters_base_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaFiltersBasePrivate *priv = PRIV (GST_CUDA_FILTERS_BASE (object));

  switch (prop_id) {
    case PROP_CUDA_DEVICE_ID:
    case PROP_DEVICE_ID:
      GST_OBJECT_LOCK (object);
      g_value_set_int (value, priv->device_id);
      GST_OBJECT_UNLOCK (object);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_filters_base_dispose (GObject * object)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (object);

  cf_context_release_gpu (self);
#ifdef HAVE_GST_CUDA_STREAM
  gst_cuda_filters_held_frames_stop (PRIV (self)->held);
#endif
  gst_clear_object (&PRIV (self)->context);
  G_OBJECT_CLASS (parent_class)->dispose (object);
}

static void
gst_cuda_filters_base_finalize (GObject * object)
{
#ifdef HAVE_GST_CUDA_STREAM
  gst_cuda_filters_held_frames_free (PRIV (GST_CUDA_FILTERS_BASE
          (object))->held);
#endif
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_filters_base_constructed (GObject * object)
{
  GstCudaFiltersBaseClass *klass = GST_CUDA_FILTERS_BASE_GET_CLASS (object);

  G_OBJECT_CLASS (parent_class)->constructed (object);
  /* analysis elements never touch the frame: in-place passthrough */
  if (klass->analysis)
    gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (object), TRUE);
}

/**
 * gst_cuda_filters_base_class_set_analysis:
 *
 * Makes the elements of @klass analysis elements: in-place passthrough,
 * process() called with the input frame only.
 */
void
gst_cuda_filters_base_class_set_analysis (GstCudaFiltersBaseClass * klass)
{
  klass->analysis = TRUE;
  /* no output: nothing is pushed before the GPU is done, unless finish()
   * holds the frame (which then says how many) */
  klass->held_frames = 0;
  GST_BASE_TRANSFORM_CLASS (klass)->transform_ip_on_passthrough = TRUE;
}

static void
gst_cuda_filters_base_class_init (GstCudaFiltersBaseClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);

  gobject_class->set_property = gst_cuda_filters_base_set_property;
  gobject_class->get_property = gst_cuda_filters_base_get_property;
  gobject_class->dispose = gst_cuda_filters_base_dispose;
  gobject_class->finalize = gst_cuda_filters_base_finalize;
  gobject_class->constructed = gst_cuda_filters_base_constructed;

  /**
   * GstCudaFiltersBase:cuda-device-id:
   *
   * The CUDA device to run on.  -1 takes the device of a CUDA context the
   * pipeline or application already shares, else the first device.  The
   * name is nvcodec's (nvh264dec, cudaupload).
   */
  g_object_class_install_property (gobject_class, PROP_CUDA_DEVICE_ID,
      g_param_spec_int ("cuda-device-id", "CUDA Device ID",
          "CUDA device to run on (-1 = the pipeline's context, else the "
          "first device)", -1, G_MAXINT, DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
          G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaFiltersBase:device-id:
   *
   * The same value as #GstCudaFiltersBase:cuda-device-id, under its old
   * name, so that existing pipelines keep working.
   *
   * Deprecated: use #GstCudaFiltersBase:cuda-device-id.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID (deprecated)",
          "Deprecated: use cuda-device-id", -1, G_MAXINT, DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY | G_PARAM_DEPRECATED |
          G_PARAM_STATIC_STRINGS));

  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_base_set_context);

#ifdef HAVE_GST_CUDA_STREAM
  klass->held_frames = GST_CUDA_FILTERS_MAX_HELD_FRAMES;
#else
  /* 1.22: every frame is done before it is pushed */
  klass->held_frames = 0;
#endif

  trans_class->passthrough_on_same_caps = FALSE;
  /* a filter in passthrough (nothing to do) must not run its kernels;
   * analysis elements turn this on (gst_cuda_filters_base_class_set_analysis) */
  trans_class->transform_ip_on_passthrough = FALSE;
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_filters_base_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_filters_base_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_filters_base_set_caps);
  trans_class->get_unit_size =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_base_get_unit_size);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_cuda_filters_base_query);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_base_before_transform);
  trans_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_base_propose_allocation);
  trans_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_base_decide_allocation);
  trans_class->transform = GST_DEBUG_FUNCPTR (gst_cuda_filters_base_transform);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_base_transform_ip);

  GST_DEBUG_CATEGORY_INIT (gst_cuda_filters_base_debug, "cudafiltersbase", 0,
      "gst-cudafilters base class");

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FILTERS_BASE, 0);
}

static void
gst_cuda_filters_base_init (GstCudaFiltersBase * self)
{
  PRIV (self)->device_id = DEFAULT_DEVICE_ID;
#ifdef HAVE_GST_CUDA_STREAM
  PRIV (self)->held = gst_cuda_filters_held_frames_new ();
#endif
}

/**
 * gst_cuda_filters_base_get_context:
 *
 * Returns: (transfer none) (nullable): the element's CUDA context, valid
 * while the element runs; call from the streaming thread or the element's
 * own vfuncs.
 */
GstCudaContext *
gst_cuda_filters_base_get_context (GstCudaFiltersBase * self)
{
  return PRIV (self)->context;
}

/**
 * gst_cuda_filters_base_set_formats:
 * @s: a video/x-raw structure
 * @formats: a format or a caps list string "{ A, B }"
 *
 * Replaces the structure's format field.
 */
void
gst_cuda_filters_base_set_formats (GstStructure * s, const gchar * formats)
{
  gchar *str = g_strdup_printf ("video/x-raw, format=(string)%s", formats);
  GstStructure *f = gst_structure_from_string (str, NULL);

  g_free (str);
  g_return_if_fail (f != NULL);
  gst_structure_set_value (s, "format", gst_structure_get_value (f, "format"));
  gst_structure_free (f);
}

/**
 * gst_cuda_filters_base_make_caps:
 * @sys_formats: formats in system memory, as a caps list string "{ ... }"
 * @cuda_formats: (nullable): formats in CUDA memory, or NULL for none
 *
 * Returns: template caps of any size and frame rate, CUDA memory first.
 */
GstCaps *
gst_cuda_filters_base_make_caps (const gchar * sys_formats,
    const gchar * cuda_formats)
{
  GstCaps *caps = gst_caps_new_empty ();
  GstCaps *any = gst_caps_from_string (GST_VIDEO_CAPS_MAKE ("GRAY8"));
  GstStructure *s;

  if (cuda_formats) {
    s = gst_structure_copy (gst_caps_get_structure (any, 0));
    gst_cuda_filters_base_set_formats (s, cuda_formats);
    gst_caps_append_structure_full (caps, s,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));
  }
  s = gst_structure_copy (gst_caps_get_structure (any, 0));
  gst_cuda_filters_base_set_formats (s, sys_formats);
  gst_caps_append_structure (caps, s);

  gst_caps_unref (any);
  return caps;
}

/**
 * gst_cuda_filters_base_plane_extent:
 *
 * Bytes per row and number of rows of @plane of a frame of @info.
 */
void
gst_cuda_filters_base_plane_extent (const GstVideoInfo * info, guint plane,
    gsize * row_bytes, guint * rows)
{
  cf_frame_plane_extent (info, plane, row_bytes, rows);
}
