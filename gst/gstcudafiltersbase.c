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

/* This file: the class, its caps and the path of a frame (run).  Beside it:
 * gstcudafilterscontext.c (context, stream, scratch memory),
 * gstcudafiltersalloc.c (allocation queries), gstcudafiltersframe.c (planes
 * and staging copies) and, on 1.24+, gstcudafiltersorder.c (stream
 * order); gstcudafiltersbaseprivate.h holds the state they share. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersbaseprivate.h"
#include "gstcudafiltersalloc.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <string.h>

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

/* ---- the frame path --------------------------------------------------- */

typedef enum
{
  FAIL_NONE,
  FAIL_MAP_IN,
  FAIL_MAP_OUT,
  FAIL_OUT_LAYOUT,
  FAIL_CUDA,
} FailKind;

/* One frame on its way through gst_cuda_filters_base_run(): its buffers,
 * how each is mapped, the frames the kernels see, and the first failure. */
typedef struct
{
  GstBuffer *inbuf, *outbuf;    /* outbuf: NULL for analysis elements */
  const GstVideoInfo *in_layout, *out_layout;
  gboolean in_place_in, in_place_out;
  gboolean in_mapped, out_mapped;
  GstVideoFrame in_frame, out_frame;
  CfHostFrame in_host, out_host;
  GstCudaFiltersFrame in_dev, out_dev;
  /* the stream's work so far is done (nothing reads the frames any more) */
  gboolean synced;
  /* CUDA output pushed before the GPU is done (1.24+) */
  gboolean out_need_sync;
  FailKind fail;
  const gchar *step, *err_name;
} FrameRun;

static gboolean
cuda_failed (FrameRun * run, CUresult res)
{
  if (res == CUDA_SUCCESS)
    return FALSE;
  run->fail = FAIL_CUDA;
  run->err_name = cf_cu_error_name (res);
  return TRUE;
}

static gboolean
kernels_failed (FrameRun * run, CfError err)
{
  if (err == 0)
    return FALSE;
  run->fail = FAIL_CUDA;
  run->err_name = cf_error_name (err);
  return TRUE;
}

/* Whether the element can run @inbuf at all: a layout of the caps that
 * lies inside the buffer, a stream, and its context current (popped by
 * end_frame()).  Posts the element error when not. */
static gboolean
begin_frame (GstCudaFiltersBase * self, FrameRun * run)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  gsize needed;

  run->in_layout = cf_frame_buffer_layout (run->inbuf, &priv->in_info);
  if (!run->in_layout) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input CUDA memory does not hold a frame of the caps' format and "
            "size."), ("%" GST_PTR_FORMAT, run->inbuf));
    return FALSE;
  }
  if (!cf_frame_buffer_holds (run->inbuf, run->in_layout, &needed)) {
    gchar *details = cf_frame_short_buffer_details (run->inbuf,
        run->in_layout, &priv->in_info, needed);

    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input buffer is smaller than its caps say."), ("%s", details));
    g_free (details);
    return FALSE;
  }
  if (!priv->stream) {
    /* (create_stream has said why) */
    if (!priv->stream_failed)
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("No CUDA stream."),
          ("the element has no stream for its context"));
    return FALSE;
  }
  if (!gst_cuda_context_push (priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not make the CUDA context current."), (NULL));
    return FALSE;
  }
  GST_LOG_OBJECT (self, "frame %" GST_PTR_FORMAT, run->inbuf);
  return TRUE;
}

/* Input: read in place when it is CUDA memory of our context with rows
 * top-down (on 1.24+ after the work queued on its stream), else mapped for
 * the CPU and uploaded into the staging frame on our stream. */
static gboolean
upload_input (GstCudaFiltersBase * self, FrameRun * run)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);

  run->in_place_in = cf_frame_cuda_memory (run->inbuf, priv->context) &&
      !cf_frame_needs_whole_map (run->inbuf, run->in_layout);
  if (run->in_place_in)
    run->in_mapped = cf_frame_cuda_map (&run->in_frame, &priv->in_info,
        run->in_layout, run->inbuf, GST_MAP_READ, &run->in_dev);
  else
    run->in_mapped = cf_frame_host_map (&run->in_host, run->inbuf,
        run->in_layout, GST_MAP_READ);
  if (!run->in_mapped) {
    run->fail = FAIL_MAP_IN;
    return FALSE;
  }

  if (run->in_place_in) {
#ifdef HAVE_GST_CUDA_STREAM
    run->step = "waiting for the input's stream";
    if (kernels_failed (run, gst_cuda_filters_order_after_memory
            (priv->stream, gst_buffer_peek_memory (run->inbuf, 0),
                priv->order_event)))
      return FALSE;
#endif
    return TRUE;
  }
  run->step = "allocating the upload frame";
  if (cuda_failed (run, cf_frame_staging_ensure (&priv->upload,
              &priv->in_info)))
    return FALSE;
  run->step = "uploading the frame";
  if (cuda_failed (run, cf_frame_upload (&priv->in_info, &run->in_host,
              &priv->upload, priv->stream)))
    return FALSE;
  cf_frame_staging_to_device (&priv->upload, &priv->in_info, &run->in_dev);
  GST_LOG_OBJECT (self, "upload enqueued");
  return TRUE;
}

/* Output: written in place when it is CUDA memory of our context (on 1.24+
 * after the work of its pool's stream), else into the download staging
 * frame, and the buffer mapped for the CPU for the download. */
static gboolean
map_output (GstCudaFiltersBase * self, FrameRun * run)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  gsize needed;
  guint p;

  if (!run->outbuf)
    return TRUE;
  run->out_layout = cf_frame_buffer_layout (run->outbuf, &priv->out_info);
  if (!run->out_layout ||
      !cf_frame_buffer_holds (run->outbuf, run->out_layout, &needed)) {
    run->fail = FAIL_OUT_LAYOUT;
    return FALSE;
  }
  run->in_place_out = cf_frame_cuda_memory (run->outbuf, priv->context) &&
      !cf_frame_needs_whole_map (run->outbuf, run->out_layout);
  if (run->in_place_out)
    run->out_mapped = cf_frame_cuda_map (&run->out_frame, &priv->out_info,
        run->out_layout, run->outbuf, GST_MAP_WRITE, &run->out_dev);
  else
    run->out_mapped = cf_frame_host_map (&run->out_host, run->outbuf,
        run->out_layout, GST_MAP_WRITE);
  if (!run->out_mapped) {
    run->fail = FAIL_MAP_OUT;
    return FALSE;
  }

  if (run->in_place_out) {
#ifdef HAVE_GST_CUDA_STREAM
    /* (memory of a pool whose stream is not ours: its last users' work) */
    run->step = "waiting for the output's stream";
    if (kernels_failed (run, gst_cuda_filters_order_after_memory
            (priv->stream, gst_buffer_peek_memory (run->outbuf, 0),
                priv->order_event)))
      return FALSE;
#endif
    return TRUE;
  }
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (run->out_layout); p++) {
    if (run->out_host.stride[p] < 0) {
      run->fail = FAIL_OUT_LAYOUT;
      return FALSE;
    }
  }
  run->step = "allocating the download frame";
  if (cuda_failed (run, cf_frame_staging_ensure (&priv->download,
              &priv->out_info)))
    return FALSE;
  cf_frame_staging_to_device (&priv->download, &priv->out_info, &run->out_dev);
  return TRUE;
}

/* The element's kernels, on our stream. */
static gboolean
process_frame (GstCudaFiltersBase * self, FrameRun * run)
{
  GstCudaFiltersBaseClass *klass = GST_CUDA_FILTERS_BASE_GET_CLASS (self);

  run->step = "running the kernels";
  if (kernels_failed (run, klass->process (self, run->inbuf, &run->in_dev,
              run->outbuf ? &run->out_dev : NULL,
              (CfStream) PRIV (self)->stream)))
    return FALSE;
  GST_LOG_OBJECT (self, "kernels enqueued");
  return TRUE;
}

/* System-memory output: the staging frame copied into the mapped buffer. */
static gboolean
download_output (GstCudaFiltersBase * self, FrameRun * run)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);

  if (run->outbuf && !run->in_place_out) {
    run->step = "downloading the frame";
    if (cuda_failed (run, cf_frame_download (&priv->out_info,
                &priv->download, &run->out_host, priv->stream)))
      return FALSE;
  }
  GST_LOG_OBJECT (self, "output %s", !run->outbuf ? "none" :
      run->in_place_out ? "written in place" : "download enqueued");
  return TRUE;
}

/* The end of the frame's work: what makes it safe to unmap and push.  An
 * analysis element takes over (finish()); on 1.24+ CUDA output is pushed
 * at once, its stream ordered after ours and the input held until the GPU
 * has read it; anything else is waited for here. */
static gboolean
sync_frame (GstCudaFiltersBase * self, FrameRun * run)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  GstCudaFiltersBaseClass *klass = GST_CUDA_FILTERS_BASE_GET_CLASS (self);

  if (klass->finish) {
    /* an analysis element waits for its results itself, holding the
     * buffer: its frames only ever get read, and reading may overlap */
    run->step = "queueing the frame's results";
    return !kernels_failed (run, klass->finish (self, run->inbuf,
            (CfStream) priv->stream));
  }
#ifdef HAVE_GST_CUDA_STREAM
  /* CUDA output on a stream is pushed at once, marked NEED_SYNC (at
   * unmap): its consumers wait for that stream, which waits for ours. */
  if (run->in_place_out && gst_cuda_filters_memory_stream
      (gst_buffer_peek_memory (run->outbuf, 0))) {
    run->step = "ordering the output's stream after ours";
    if (kernels_failed (run, gst_cuda_filters_order_memory_after
            (gst_buffer_peek_memory (run->outbuf, 0), priv->stream,
                priv->order_event)))
      return FALSE;
    run->step = "holding the input until the GPU has read it";
    if (kernels_failed (run, gst_cuda_filters_hold_input (priv->held,
                run->inbuf, priv->stream)))
      return FALSE;
    run->out_need_sync = TRUE;
    GST_LOG_OBJECT (self, "frame queued");
    return TRUE;
  }
#endif
  /* Memory without a stream (all of 1.22's, and system memory) is taken to
   * be ready when it is pushed: whoever maps it next may use any stream. */
  run->step = "waiting for the GPU";
  if (cuda_failed (run, CuStreamSynchronize (priv->stream)))
    return FALSE;
  run->synced = TRUE;
  GST_LOG_OBJECT (self, "frame done");
  return TRUE;
}

/* Unmaps the frames, pops the context and reports a failure. */
static GstFlowReturn
end_frame (GstCudaFiltersBase * self, FrameRun * run)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);

  /* On a failure, nothing still in flight may read or write the frames
   * about to be unmapped (an upload, or kernels launched before one
   * failed).  Nor may the upload still read an input that GStreamer merged
   * into a temporary copy (several memories, not writable), which the unmap
   * frees: when the frame was not waited for (analysis elements, CUDA
   * output on 1.24+), it is here. */
  if (run->in_mapped && !run->synced && (run->fail != FAIL_NONE ||
          (!run->in_place_in && run->in_host.temporary)))
    CuStreamSynchronize (priv->stream);

  if (run->out_mapped && run->in_place_out)
    gst_video_frame_unmap (&run->out_frame);
  else if (run->out_mapped)
    cf_frame_host_unmap (&run->out_host, run->outbuf);
#ifdef HAVE_GST_CUDA_STREAM
  if (run->out_need_sync)
    GST_MINI_OBJECT_FLAG_SET (gst_buffer_peek_memory (run->outbuf, 0),
        GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#endif
  if (run->in_mapped && run->in_place_in)
    gst_video_frame_unmap (&run->in_frame);
  else if (run->in_mapped)
    cf_frame_host_unmap (&run->in_host, run->inbuf);
  gst_cuda_context_pop (NULL);

  switch (run->fail) {
    case FAIL_NONE:
      return GST_FLOW_OK;
    case FAIL_MAP_IN:
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Could not map the input frame."), ("%" GST_PTR_FORMAT, run->inbuf));
      break;
    case FAIL_MAP_OUT:
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Could not map the output frame."), ("%" GST_PTR_FORMAT,
              run->outbuf));
      break;
    case FAIL_OUT_LAYOUT:
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("The output buffer does not hold a top-down frame of the caps."),
          ("%" GST_PTR_FORMAT " from downstream's pool: too small, of "
              "another layout, or with negative strides", run->outbuf));
      break;
    case FAIL_CUDA:
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("CUDA failed while %s: %s.", run->step, run->err_name), (NULL));
      break;
  }
  return GST_FLOW_ERROR;
}

/* Runs one frame: input to the device (in place or uploaded), the output
 * frame, the element's kernels, output to its buffer (in place or
 * downloaded), then the end of the frame (a wait for the stream, or, with
 * 1.24+ CUDA output, none).  outbuf is NULL for analysis elements. */
static GstFlowReturn
gst_cuda_filters_base_run (GstCudaFiltersBase * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  FrameRun run;

  memset (&run, 0, sizeof (run));
  run.inbuf = inbuf;
  run.outbuf = outbuf;
  if (!begin_frame (self, &run))
    return GST_FLOW_ERROR;

  /* each step returns FALSE on a failure, recorded in run */
  if (upload_input (self, &run)
      && map_output (self, &run)
      && process_frame (self, &run)
      && download_output (self, &run))
    sync_frame (self, &run);

  return end_frame (self, &run);
}

static GstFlowReturn
gst_cuda_filters_base_transform (GstBaseTransform * trans, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  return gst_cuda_filters_base_run (GST_CUDA_FILTERS_BASE (trans), inbuf,
      outbuf);
}

static GstFlowReturn
gst_cuda_filters_base_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  return gst_cuda_filters_base_run (GST_CUDA_FILTERS_BASE (trans), buf, NULL);
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
