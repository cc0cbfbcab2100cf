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
 *   #GstContext, the `device-id` property, and one CUDA stream;
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
 * See docs/architecture.md for the path of a frame.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersbase.h"
#include "gstcudafilterspinned.h"
#include "gstcudafiltersframe.h"
#ifdef HAVE_GST_CUDA_STREAM
#include "gstcudafiltersorder.h"
#endif

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_filters_base_debug);
#define GST_CAT_DEFAULT gst_cuda_filters_base_debug

#define DEFAULT_DEVICE_ID -1

enum
{
  PROP_0,
  PROP_DEVICE_ID,
};



typedef struct
{
  gint device_id;

  GstCudaContext *context;
  /* the handle of the stream the element's work goes on */
  CUstream stream;
#ifdef HAVE_GST_CUDA_STREAM
  /* made at start (and with an adopted context) */
  GstCudaStream *own_stream;
  /* own_stream, or the stream of the CUDA pool downstream offered: work on
   * it needs no wait on either side (decide_allocation) */
  GstCudaStream *work_stream;
  /* recorded on one stream for another to wait on: reused, since a wait
   * takes the event's record as it is when the wait is queued */
  CfEvent order_event;
  /* input frames the GPU may still read (gstcudafiltersorder.c) */
  GstCudaFiltersHeldFrames *held;
#endif

  GstVideoInfo in_info;
  GstVideoInfo out_info;
  gboolean in_cuda;
  gboolean out_cuda;

  CfStagingFrame upload;
  CfStagingFrame download;
  /* create_stream failed and said so: no error again for every frame */
  gboolean stream_failed;

  /* device memory the element's kernels borrow (get_scratch) */
  CUdeviceptr scratch;
  gsize scratch_size;
} GstCudaFiltersBasePrivate;

#define gst_cuda_filters_base_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaFiltersBase, gst_cuda_filters_base,
    GST_TYPE_BASE_TRANSFORM);

#define PRIV(self) \
  ((GstCudaFiltersBasePrivate *) gst_cuda_filters_base_get_instance_private (self))

/* ---- helpers ---------------------------------------------------------- */

static const gchar *
cu_error_name (CUresult result)
{
  const gchar *name = NULL;

  if (CuGetErrorName (result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUDA error";
  return name;
}

static gboolean
caps_are_cuda_memory (GstCaps * caps)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);

  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/* A buffer that is one GstCudaMemory of our context can be read and written
 * in place. */
static GstCudaMemory *
buffer_cuda_memory (GstCudaFiltersBase * self, GstBuffer * buffer)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buffer) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_cuda_memory (mem)
      || GST_CUDA_MEMORY_CAST (mem)->context != PRIV (self)->context)
    return NULL;
  return GST_CUDA_MEMORY_CAST (mem);
}

/* Maps a CUDA-memory buffer for the kernels, with @layout from
 * cf_frame_buffer_layout(); the kernels see @info's format and size. */
static gboolean
map_cuda_frame (GstVideoFrame * frame, const GstVideoInfo * info,
    const GstVideoInfo * layout, GstBuffer * buffer, GstMapFlags flags,
    GstCudaFiltersFrame * dev)
{
  guint p;

  if (!gst_video_frame_map (frame, (GstVideoInfo *) layout, buffer,
          flags | GST_MAP_CUDA))
    return FALSE;

  memset (dev, 0, sizeof (*dev));
  dev->info = info;
  for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (frame); p++) {
    dev->data[p] = GST_VIDEO_FRAME_PLANE_DATA (frame, p);
    dev->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (frame, p);
  }
  return TRUE;
}

/* ---- streams (GStreamer 1.24+) --------------------------------------- */

#ifdef HAVE_GST_CUDA_STREAM
/* A build with -DCF_TEST_WITHOUT_STREAM_ORDER neither waits for the input's
 * stream nor holds the input: tests/check/libs/stream-order.c must then fail
 * (docs/development.md). */
#ifdef CF_TEST_WITHOUT_STREAM_ORDER
#define STREAM_ORDER FALSE
#else
#define STREAM_ORDER TRUE
#endif

/* Work queued on our stream from now on starts after the work queued so
 * far on @mem's stream: 1.24+ producers push before their writes are done,
 * and mapping for CUDA may have just queued an upload there. */
static CfError
order_after_memory (GstCudaFiltersBase * self, GstMemory * mem)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);

  if (!STREAM_ORDER)
    return 0;
  return gst_cuda_filters_order_streams (priv->stream,
      gst_cuda_filters_memory_stream (mem), priv->order_event);
}

/* The other way: work queued from now on on @mem's stream starts after ours
 * so far, so that its consumers, which wait for that stream, see our
 * writes. */
static CfError
order_memory_after_us (GstCudaFiltersBase * self, GstMemory * mem)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);

  return gst_cuda_filters_order_streams (gst_cuda_filters_memory_stream (mem),
      priv->stream, priv->order_event);
}

/* The input may still be read by the GPU when it is pushed on: held until
 * the work queued so far is done. */
static CfError
hold_input (GstCudaFiltersBase * self, GstBuffer * buffer)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);

  if (!STREAM_ORDER)
    return 0;
  return gst_cuda_filters_held_frames_hold (priv->held, buffer, priv->stream);
}

/* Work goes on @offered, a CUDA pool's stream from downstream, when it is
 * of our context, else on our own.  The old stream's work is finished
 * first: the staging frames and scratch memory move to the new one. */
static void
use_work_stream (GstCudaFiltersBase * self, GstCudaStream * offered)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  GstCudaStream *want = offered && offered->context == priv->context ?
      offered : priv->own_stream;

  if (!want || want == priv->work_stream)
    return;
  if (priv->stream && gst_cuda_context_push (priv->context)) {
    gst_cuda_result (CuStreamSynchronize (priv->stream));
    gst_cuda_context_pop (NULL);
  }
  GST_INFO_OBJECT (self, "working on %s stream %p",
      want == priv->own_stream ? "our own" : "downstream's",
      gst_cuda_stream_get_handle (want));
  gst_clear_cuda_stream (&priv->work_stream);
  priv->work_stream = gst_cuda_stream_ref (want);
  priv->stream = gst_cuda_stream_get_handle (want);
}
#endif

/* ---- the frame path --------------------------------------------------- */

typedef enum
{
  FAIL_NONE,
  FAIL_MAP_IN,
  FAIL_MAP_OUT,
  FAIL_OUT_LAYOUT,
  FAIL_CUDA,
} FailKind;

/* Runs one frame: input to the device (in place or uploaded), the element's
 * kernels, output to its buffer (in place or downloaded), then one wait for
 * the stream, or, with 1.24+ CUDA output, none.  outbuf is NULL for
 * analysis elements. */
static GstFlowReturn
gst_cuda_filters_base_run (GstCudaFiltersBase * self, GstBuffer * inbuf,
    GstBuffer * outbuf)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  GstCudaFiltersBaseClass *klass = GST_CUDA_FILTERS_BASE_GET_CLASS (self);
  GstVideoFrame in_frame, out_frame;
  CfHostFrame in_host, out_host;
  GstCudaFiltersFrame in_dev, out_dev;
  const GstVideoInfo *in_layout, *out_layout = NULL;
  gboolean in_place_in, in_place_out = FALSE;
  gboolean in_mapped = FALSE, out_mapped = FALSE;
#ifdef HAVE_GST_CUDA_STREAM
  gboolean out_need_sync = FALSE;
#endif
  const gchar *step = NULL, *err_name = NULL;
  FailKind fail = FAIL_NONE;
  CUresult res;
  CfError kerr;
  gsize needed;
  guint p;

  in_layout = cf_frame_buffer_layout (inbuf, &priv->in_info);
  if (!in_layout) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input CUDA memory does not hold a frame of the caps' format and "
            "size."), ("%" GST_PTR_FORMAT, inbuf));
    return GST_FLOW_ERROR;
  }
  if (!cf_frame_buffer_holds (inbuf, in_layout, &needed)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("Input buffer is smaller than its caps say."),
        ("buffer of %" G_GSIZE_FORMAT " bytes, but a %dx%d %s frame "
            "needs %" G_GSIZE_FORMAT, gst_buffer_get_size (inbuf),
            GST_VIDEO_INFO_WIDTH (&priv->in_info),
            GST_VIDEO_INFO_HEIGHT (&priv->in_info),
            GST_VIDEO_INFO_NAME (&priv->in_info), needed));
    return GST_FLOW_ERROR;
  }
  if (!priv->stream) {
    /* (create_stream has said why) */
    if (!priv->stream_failed)
      GST_ELEMENT_ERROR (self, RESOURCE, FAILED, ("No CUDA stream."),
          ("the element has no stream for its context"));
    return GST_FLOW_ERROR;
  }
  if (!gst_cuda_context_push (priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not make the CUDA context current."), (NULL));
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (self, "frame %" GST_PTR_FORMAT, inbuf);

  /* input: in place when it is CUDA memory of our context, with rows
   * top-down */
  in_place_in = buffer_cuda_memory (self, inbuf) != NULL &&
      !cf_frame_needs_whole_map (inbuf, in_layout);
  if (in_place_in) {
    in_mapped = map_cuda_frame (&in_frame, &priv->in_info, in_layout, inbuf,
        GST_MAP_READ, &in_dev);
  } else {
    in_mapped = cf_frame_host_map (&in_host, inbuf, in_layout, GST_MAP_READ);
  }
  if (!in_mapped) {
    fail = FAIL_MAP_IN;
    goto done;
  }
#ifdef HAVE_GST_CUDA_STREAM
  if (in_place_in) {
    step = "waiting for the input's stream";
    if ((kerr = order_after_memory (self, gst_buffer_peek_memory (inbuf,
                    0))) != 0)
      goto kernels_failed;
  }
#endif
  if (!in_place_in) {
    step = "allocating the upload frame";
    if ((res =
            cf_frame_staging_ensure (&priv->upload,
                &priv->in_info)) != CUDA_SUCCESS)
      goto cuda_failed;
    step = "uploading the frame";
    for (p = 0; p < priv->upload.n_planes; p++) {
      res =
          cf_frame_upload_plane (&priv->in_info, &in_host, p,
          &priv->upload, priv->stream);
      if (res != CUDA_SUCCESS)
        goto cuda_failed;
    }
    cf_frame_staging_to_device (&priv->upload, &priv->in_info, &in_dev);
    GST_LOG_OBJECT (self, "upload enqueued");
  }

  /* output: in place when it is CUDA memory of our context */
  if (outbuf) {
    out_layout = cf_frame_buffer_layout (outbuf, &priv->out_info);
    if (!out_layout || !cf_frame_buffer_holds (outbuf, out_layout, &needed)) {
      fail = FAIL_OUT_LAYOUT;
      goto done;
    }
    in_place_out = buffer_cuda_memory (self, outbuf) != NULL &&
        !cf_frame_needs_whole_map (outbuf, out_layout);
    if (in_place_out)
      out_mapped = map_cuda_frame (&out_frame, &priv->out_info, out_layout,
          outbuf, GST_MAP_WRITE, &out_dev);
    else
      out_mapped =
          cf_frame_host_map (&out_host, outbuf, out_layout, GST_MAP_WRITE);
    if (!out_mapped) {
      fail = FAIL_MAP_OUT;
      goto done;
    }
    for (p = 0; !in_place_out && p < GST_VIDEO_INFO_N_PLANES (out_layout); p++) {
      if (out_host.stride[p] < 0) {
        fail = FAIL_OUT_LAYOUT;
        goto done;
      }
    }
#ifdef HAVE_GST_CUDA_STREAM
    /* (memory of a pool whose stream is not ours: its last users' work) */
    if (in_place_out) {
      step = "waiting for the output's stream";
      if ((kerr = order_after_memory (self, gst_buffer_peek_memory (outbuf,
                      0))) != 0)
        goto kernels_failed;
    }
#endif
    if (!in_place_out) {
      step = "allocating the download frame";
      if ((res = cf_frame_staging_ensure (&priv->download,
                  &priv->out_info)) != CUDA_SUCCESS)
        goto cuda_failed;
      cf_frame_staging_to_device (&priv->download, &priv->out_info, &out_dev);
    }
  }

  step = "running the kernels";
  kerr = klass->process (self, inbuf, &in_dev, outbuf ? &out_dev : NULL,
      (CfStream) priv->stream);
  if (kerr != 0)
    goto kernels_failed;
  GST_LOG_OBJECT (self, "kernels enqueued");

  if (outbuf && !in_place_out) {
    step = "downloading the frame";
    for (p = 0; p < priv->download.n_planes; p++) {
      res =
          cf_frame_copy_plane_async (&priv->out_info, p,
          CU_MEMORYTYPE_DEVICE, (void *) (guintptr) priv->download.plane[p],
          priv->download.pitch[p], CU_MEMORYTYPE_HOST, out_host.data[p],
          out_host.stride[p], priv->stream);
      if (res != CUDA_SUCCESS)
        goto cuda_failed;
    }
  }
  GST_LOG_OBJECT (self, "output %s", !outbuf ? "none" : in_place_out ?
      "written in place" : "download enqueued");

  if (klass->finish) {
    /* an analysis element waits for its results itself, holding the
     * buffer: its frames only ever get read, and reading may overlap */
    step = "queueing the frame's results";
    if ((kerr = klass->finish (self, inbuf, (CfStream) priv->stream)) != 0)
      goto kernels_failed;
    goto unmap;
  }
#ifdef HAVE_GST_CUDA_STREAM
  /* CUDA output on a stream is pushed at once, marked NEED_SYNC (below):
   * its consumers wait for that stream, which waits for ours.  The GPU may
   * still be reading the input: it is held until then. */
  if (in_place_out &&
      gst_cuda_filters_memory_stream (gst_buffer_peek_memory (outbuf, 0))) {
    step = "ordering the output's stream after ours";
    if ((kerr = order_memory_after_us (self, gst_buffer_peek_memory (outbuf,
                    0))) != 0)
      goto kernels_failed;
    step = "holding the input until the GPU has read it";
    if ((kerr = hold_input (self, inbuf)) != 0)
      goto kernels_failed;
    out_need_sync = TRUE;
    GST_LOG_OBJECT (self, "frame queued");
    goto unmap;
  }
#endif

  /* Memory without a stream (all of 1.22's, and system memory) is taken to
   * be ready when it is pushed: whoever maps it next may use any stream. */
  step = "waiting for the GPU";
  if ((res = CuStreamSynchronize (priv->stream)) != CUDA_SUCCESS)
    goto cuda_failed;
  GST_LOG_OBJECT (self, "frame done");
  goto unmap;

cuda_failed:
  err_name = cu_error_name (res);
  fail = FAIL_CUDA;
  goto done;

kernels_failed:
  err_name = cf_error_name (kerr);
  fail = FAIL_CUDA;

done:
  /* on any failure, nothing still in flight may read or write the frames
   * about to be unmapped (an upload, or kernels launched before one
   * failed) */
  if (in_mapped)
    CuStreamSynchronize (priv->stream);

unmap:
  if (out_mapped && in_place_out)
    gst_video_frame_unmap (&out_frame);
  else if (out_mapped)
    cf_frame_host_unmap (&out_host, outbuf);
#ifdef HAVE_GST_CUDA_STREAM
  if (out_need_sync)
    GST_MINI_OBJECT_FLAG_SET (gst_buffer_peek_memory (outbuf, 0),
        GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
#endif
  if (in_mapped && in_place_in)
    gst_video_frame_unmap (&in_frame);
  else if (in_mapped)
    cf_frame_host_unmap (&in_host, inbuf);
  gst_cuda_context_pop (NULL);

  switch (fail) {
    case FAIL_NONE:
      return GST_FLOW_OK;
    case FAIL_MAP_IN:
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Could not map the input frame."), ("%" GST_PTR_FORMAT, inbuf));
      break;
    case FAIL_MAP_OUT:
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Could not map the output frame."), ("%" GST_PTR_FORMAT, outbuf));
      break;
    case FAIL_OUT_LAYOUT:
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("The output buffer does not hold a top-down frame of the caps."),
          ("%" GST_PTR_FORMAT " from downstream's pool: too small, of "
              "another layout, or with negative strides", outbuf));
      break;
    case FAIL_CUDA:
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("CUDA failed while %s: %s.", step, err_name), (NULL));
      break;
  }
  return GST_FLOW_ERROR;
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

/* ---- context and state ------------------------------------------------ */

static void
release_gpu_resources (GstCudaFiltersBase * self)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  gboolean pushed, can_free;

  if (!priv->context)
    return;
#ifdef HAVE_GST_CUDA_STREAM
  gst_cuda_filters_held_frames_wait_empty (priv->held);
#endif
  pushed = gst_cuda_context_push (priv->context);
  /* The stream's work is done before the memory it uses is freed.  If that
   * cannot be known, the memory is forgotten instead (leaked): freeing it
   * under work that may still run is the greater harm. */
  can_free = pushed;
  if (pushed && priv->stream) {
    CUresult res = CuStreamSynchronize (priv->stream);

    if (res != CUDA_SUCCESS) {
      GST_ERROR_OBJECT (self, "waiting for the stream failed (%s): its "
          "device memory is left allocated", cu_error_name (res));
      can_free = FALSE;
    }
  }
  if (GST_CUDA_FILTERS_BASE_GET_CLASS (self)->release)
    GST_CUDA_FILTERS_BASE_GET_CLASS (self)->release (self, can_free);
  cf_frame_staging_free (&priv->upload, can_free);
  cf_frame_staging_free (&priv->download, can_free);
  if (can_free && priv->scratch)
    gst_cuda_result (CuMemFree (priv->scratch));
  priv->scratch = 0;
  priv->scratch_size = 0;
#ifdef HAVE_GST_CUDA_STREAM
  /* (without the context they cannot be destroyed: forgotten, leaked) */
  if (pushed)
    cf_event_destroy (priv->order_event);
  priv->order_event = NULL;
  gst_cuda_filters_held_frames_unprepare (priv->held, pushed);
  if (pushed)
    gst_cuda_context_pop (NULL);
  gst_clear_cuda_stream (&priv->work_stream);
  gst_clear_cuda_stream (&priv->own_stream);
#else
  if (pushed) {
    if (priv->stream)
      gst_cuda_result (CuStreamDestroy (priv->stream));
    gst_cuda_context_pop (NULL);
  }
#endif
  priv->stream = NULL;
}

#ifdef HAVE_GST_CUDA_STREAM
/* Our own GstCudaStream (blocking, as GStreamer makes them: it waits for
 * the legacy default stream) and the events that order work by it. */
static gboolean
create_stream (GstCudaFiltersBase * self)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  const gchar *why = NULL;
  CfError err;

  priv->own_stream = gst_cuda_stream_new (priv->context);
  if (!priv->own_stream) {
    why = "gst_cuda_stream_new failed";
  } else if (!gst_cuda_context_push (priv->context)) {
    why = "the CUDA context could not be made current";
  } else {
    err = cf_event_create (&priv->order_event);
    if (err == 0)
      err = gst_cuda_filters_held_frames_prepare (priv->held, priv->context);
    gst_cuda_context_pop (NULL);
    if (err != 0)
      why = cf_error_name (err);
  }
  if (why) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not create a CUDA stream: %s.", why), (NULL));
    release_gpu_resources (self);
    priv->stream_failed = TRUE;
    return FALSE;
  }
  priv->stream_failed = FALSE;
  priv->work_stream = gst_cuda_stream_ref (priv->own_stream);
  priv->stream = gst_cuda_stream_get_handle (priv->work_stream);
  return TRUE;
}
#else
static gboolean
create_stream (GstCudaFiltersBase * self)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  const gchar *why = NULL;
  CUresult res;

  if (!gst_cuda_context_push (priv->context)) {
    why = "the CUDA context could not be made current";
  } else {
    res = CuStreamCreate (&priv->stream, CU_STREAM_DEFAULT);
    gst_cuda_context_pop (NULL);
    if (res != CUDA_SUCCESS)
      why = cu_error_name (res);
  }
  priv->stream_failed = why != NULL;
  if (why) {
    priv->stream = NULL;
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not create a CUDA stream: %s.", why), (NULL));
    return FALSE;
  }
  return TRUE;
}
#endif

static gboolean
gst_cuda_filters_base_start (GstBaseTransform * trans)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  gint device_id, n_devices = 0;
  CUresult res;

  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);

  /* Every Cu* call of gst-cuda aborts unless the driver library loaded,
   * so nothing CUDA happens before this check. */
  if (!gst_cuda_load_library ()) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT,
        ("The CUDA driver library could not be loaded."),
        ("libcuda.so.1 is missing or incomplete: is the NVIDIA driver "
            "installed?"));
    return FALSE;
  }

  res = CuInit (0);
  if (res == CUDA_SUCCESS)
    res = CuDeviceGetCount (&n_devices);
  if (res != CUDA_SUCCESS || n_devices == 0) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No CUDA device found."),
        ("cuInit/cuDeviceGetCount: %s, %d device(s)",
            res == CUDA_SUCCESS ? "no error" : cu_error_name (res), n_devices));
    return FALSE;
  }

  if (device_id >= n_devices) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("CUDA device %d does not exist.", device_id),
        ("device-id is %d, but this machine has %d CUDA device(s), "
            "numbered from 0", device_id, n_devices));
    return FALSE;
  }

  /* The one write of priv->context outside the object lock: the context
   * query in there answers through set_context() into this very field,
   * which the function then reads.  Other threads read it under the lock
   * (query, set_context): they see NULL or the new context. */
  if (!gst_cuda_ensure_element_context (GST_ELEMENT_CAST (self), device_id,
          &priv->context)) {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not create a CUDA context on device %d.", device_id), (NULL));
    return FALSE;
  }

  gst_cuda_memory_init_once ();

  if (!create_stream (self)) {
    /* stop() is not called after a failed start() */
    GstCudaContext *old;

    GST_OBJECT_LOCK (self);
    old = priv->context;
    priv->context = NULL;
    GST_OBJECT_UNLOCK (self);
    gst_clear_object (&old);
    return FALSE;
  }
  return TRUE;
}

static gboolean
gst_cuda_filters_base_stop (GstBaseTransform * trans)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);
  GstCudaFiltersBasePrivate *priv = PRIV (self);

  GstCudaContext *old;

  release_gpu_resources (self);
#ifdef HAVE_GST_CUDA_STREAM
  gst_cuda_filters_held_frames_stop (priv->held);
#endif
  GST_OBJECT_LOCK (self);
  old = priv->context;
  priv->context = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&old);
  return TRUE;
}

static void
gst_cuda_filters_base_set_context (GstElement * element, GstContext * context)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (element);
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  GstCudaContext *found = NULL;
  gint device_id;
  gboolean have;

  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  have = priv->context != NULL;
  GST_OBJECT_UNLOCK (self);

  /* A context we have already is kept.  Before start (no driver check yet)
   * a context can only come from an application or element that has
   * already loaded the library. */
  if (!have && gst_cuda_handle_set_context (element, context, device_id,
          &found) && found) {
    GST_OBJECT_LOCK (self);
    if (!priv->context) {
      priv->context = found;
      found = NULL;
    }
    GST_OBJECT_UNLOCK (self);
    gst_clear_object (&found);
  }

  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static gboolean
gst_cuda_filters_base_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT) {
    /* any thread may ask; the streaming thread may swap the context */
    GstCudaContext *context;
    gboolean answered;

    GST_OBJECT_LOCK (self);
    context = PRIV (self)->context ? gst_object_ref (PRIV (self)->context) :
        NULL;
    GST_OBJECT_UNLOCK (self);
    answered = context && gst_cuda_handle_context_query (GST_ELEMENT (self),
        query, context);
    gst_clear_object (&context);
    if (answered)
      return TRUE;
  }

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
   * on 1.24+) */
  if (priv->stream)
    gst_cuda_result (CuStreamSynchronize (priv->stream));
#endif
  if (klass->set_info && !klass->set_info (self, &in_info, &out_info)) {
    gst_cuda_context_pop (NULL);
    return FALSE;
  }
  if (klass->release)
    klass->release (self, TRUE);
  cf_frame_staging_free (&priv->upload, TRUE);
  cf_frame_staging_free (&priv->download, TRUE);
  gst_cuda_context_pop (NULL);

  priv->in_info = in_info;
  priv->out_info = out_info;
  priv->in_cuda = caps_are_cuda_memory (incaps);
  priv->out_cuda = caps_are_cuda_memory (outcaps);

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

/* An upstream CUDA frame of another context on a device we may use: adopt
 * that context, so later frames are read in place instead of copied. */
static void
adopt_upstream_context (GstCudaFiltersBase * self, GstBuffer * buffer)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  GstCudaContext *other, *old;
  GstMemory *mem;
  gint device_id;
  guint other_device = 0;

  if (!priv->in_cuda || gst_buffer_n_memory (buffer) == 0)
    return;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_cuda_memory (mem))
    return;
  other = GST_CUDA_MEMORY_CAST (mem)->context;
  if (other == priv->context)
    return;

  GST_OBJECT_LOCK (self);
  device_id = priv->device_id;
  GST_OBJECT_UNLOCK (self);
  g_object_get (other, "cuda-device-id", &other_device, NULL);
  if (device_id >= 0 && (guint) device_id != other_device)
    return;

  GST_INFO_OBJECT (self, "adopting upstream CUDA context %" GST_PTR_FORMAT,
      other);
  release_gpu_resources (self);
  GST_OBJECT_LOCK (self);
  old = priv->context;
  priv->context = gst_object_ref (other);
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&old);
  if (create_stream (self))
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
}

static void
gst_cuda_filters_base_before_transform (GstBaseTransform * trans,
    GstBuffer * buffer)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);
  GstClockTime stream_time;

  adopt_upstream_context (self, buffer);

  /* controlled properties take their value for this frame (a segment in
   * another format has no stream time to give) */
  if (trans->segment.format != GST_FORMAT_TIME)
    return;
  stream_time = gst_segment_to_stream_time (&trans->segment, GST_FORMAT_TIME,
      GST_BUFFER_TIMESTAMP (buffer));
  if (GST_CLOCK_TIME_IS_VALID (stream_time))
    gst_object_sync_values (GST_OBJECT (self), stream_time);
}

/* ---- allocation ------------------------------------------------------- */

/* Configures a GstCudaBufferPool for @caps; @size becomes the pool's
 * pitched buffer size.  On 1.24+ its memory carries the stream we work
 * on. */
static gboolean
configure_cuda_pool (GstCudaFiltersBase * self, GstBufferPool * pool,
    GstCaps * caps, guint * size, guint min, guint max)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, *size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
#ifdef HAVE_GST_CUDA_STREAM
  if (PRIV (self)->work_stream)
    gst_buffer_pool_config_set_cuda_stream (config, PRIV (self)->work_stream);
#endif
  if (!gst_buffer_pool_set_config (pool, config))
    return FALSE;
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return TRUE;
}

static GstBufferPool *
make_cuda_pool (GstCudaFiltersBase * self, GstCaps * caps, guint * size,
    guint min, guint max)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (PRIV (self)->context);

  if (!configure_cuda_pool (self, pool, caps, size, min, max)) {
    GST_ERROR_OBJECT (self, "could not configure a CUDA pool for %"
        GST_PTR_FORMAT, caps);
    gst_clear_object (&pool);
  }
  return pool;
}

/* Upstream asks what to write into: CUDA memory of our context, or pinned
 * system memory the upload reads at full PCIe speed.  Either way it is told
 * how many frames we may hold after pushing them (min-buffers): a producer
 * with a fixed number of frames (a decoder's surfaces) must not run out.
 * On 1.24+ a CUDA pool carries the stream we work on, so that a producer
 * that writes on it (nvcodec's decoders do) needs no wait on either side;
 * in passthrough, downstream's pool goes up with downstream's stream. */
static gboolean
gst_cuda_filters_base_propose_allocation (GstBaseTransform * trans,
    GstQuery * decide_query, GstQuery * query)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  guint held = GST_CUDA_FILTERS_BASE_GET_CLASS (self)->held_frames;
  gboolean passthrough = decide_query == NULL, need_pool, video_meta;
  GstVideoInfo info;
  GstCaps *caps;
  guint i;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !priv->context || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  /* a filter in passthrough runs nothing, and holds nothing */
  if (passthrough
      && !GST_BASE_TRANSFORM_GET_CLASS (trans)->transform_ip_on_passthrough)
    held = 0;

  if (passthrough) {
    /* the frames go downstream untouched: downstream says which pools and
     * metas (padded strides included) it takes */
    if (!gst_pad_peer_query (trans->srcpad, query))
      GST_DEBUG_OBJECT (self, "downstream answered no allocation query");
    video_meta = gst_query_find_allocation_meta (query,
        GST_VIDEO_META_API_TYPE, NULL);
  } else {
    /* our kernels read any strides; other metas downstream would take
     * (crop, overlays) would not survive the transform, so only this */
    gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
    video_meta = TRUE;
  }

  if (gst_query_get_n_allocation_pools (query) == 0) {
    guint size = GST_VIDEO_INFO_SIZE (&info);
    GstBufferPool *pool = NULL;

    if (need_pool) {
      pool = caps_are_cuda_memory (caps) ?
          make_cuda_pool (self, caps, &size, held, 0) :
          gst_cuda_filters_pinned_pool_new (priv->context, caps, held,
          video_meta);
      if (!pool)
        return FALSE;
    }
    if (pool || held > 0)
      gst_query_add_allocation_pool (query, pool, size, held, 0);
    gst_clear_object (&pool);
  } else if (held > 0) {
    /* downstream's pools: the frames we hold come on top of its own */
    for (i = 0; i < gst_query_get_n_allocation_pools (query); i++) {
      GstBufferPool *pool;
      guint size, min, max;

      gst_query_parse_nth_allocation_pool (query, i, &pool, &size, &min, &max);
      min += held;
      /* downstream's limit stands (a pool of a fixed number of buffers):
       * then the frames we hold may make upstream wait for one */
      if (max != 0 && min > max) {
        GST_INFO_OBJECT (self, "downstream's pool holds at most %u buffers, "
            "fewer than the %u asked for", max, min);
        min = max;
      }
      gst_query_set_nth_allocation_pool (query, i, pool, size, min, max);
      gst_clear_object (&pool);
    }
  }
  return TRUE;
}

/* Our output buffers: a CUDA pool of our context (downstream's, if it is
 * an idle one), or, in system memory, downstream's pool if it has one, else
 * a pinned pool for a fast download.  On 1.24+, when downstream's CUDA pool
 * carries a stream of our context, we work on that stream: downstream then
 * reads our frames, and we write them again after its reads, in stream
 * order. */
static gboolean
gst_cuda_filters_base_decide_allocation (GstBaseTransform * trans,
    GstQuery * query)
{
  GstCudaFiltersBase *self = GST_CUDA_FILTERS_BASE (trans);
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  GstBufferPool *pool = NULL;
  GstVideoInfo info;
  GstCaps *caps;
  guint size, min = 0, max = 0;
  gboolean update = FALSE, video_meta;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;
  size = GST_VIDEO_INFO_SIZE (&info);
  video_meta = gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE,
      NULL);

  if (gst_query_get_n_allocation_pools (query) > 0) {
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, &min, &max);
    update = TRUE;
  }

  if (caps_are_cuda_memory (caps)) {
    if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool) ||
            GST_CUDA_BUFFER_POOL (pool)->context != priv->context))
      gst_clear_object (&pool);
#ifdef HAVE_GST_CUDA_STREAM
    /* downstream's stream, even when its pool is in use (ours, handed back
     * on a renegotiation) */
    {
      GstCudaStream *offered = NULL;

      if (pool) {
        GstStructure *config = gst_buffer_pool_get_config (pool);

        offered = gst_buffer_pool_config_get_cuda_stream (config);
        gst_structure_free (config);
      }
      use_work_stream (self, offered);
      gst_clear_cuda_stream (&offered);
    }
#endif
    /* downstream's pool only if it is an idle CUDA pool of our context */
    if (pool && gst_buffer_pool_is_active (pool))
      gst_clear_object (&pool);
    if (pool && !configure_cuda_pool (self, pool, caps, &size, min, max))
      gst_clear_object (&pool);
    if (!pool)
      pool = make_cuda_pool (self, caps, &size, min, max);
  } else {
#ifdef HAVE_GST_CUDA_STREAM
    use_work_stream (self, NULL);
#endif
    if (pool) {
      GstStructure *config = gst_buffer_pool_get_config (pool);

      gst_buffer_pool_config_set_params (config, caps, size, min, max);
      if (video_meta)
        gst_buffer_pool_config_add_option (config,
            GST_BUFFER_POOL_OPTION_VIDEO_META);
      if (!gst_buffer_pool_set_config (pool, config)) {
        GST_DEBUG_OBJECT (self, "downstream pool refused our config");
        gst_clear_object (&pool);
      }
    }
    if (!pool)
      pool = gst_cuda_filters_pinned_pool_new (priv->context, caps, min,
          video_meta);
  }
  if (!pool)
    return FALSE;

  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);

  /* Not chaining up: GstBaseTransform's default would configure the pool
   * again with the query's allocator, putting a pinned pool back on
   * pageable memory (a 4K GRAY8 download then blocks for 1.3 ms instead of
   * taking 0.15 ms; docs/notes.md). */
  return TRUE;
}

/* ---- GObject ---------------------------------------------------------- */

static void
gst_cuda_filters_base_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFiltersBasePrivate *priv = PRIV (GST_CUDA_FILTERS_BASE (object));

  switch (prop_id) {
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

  release_gpu_resources (self);
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
   * GstCudaFiltersBase:device-id:
   *
   * The CUDA device to run on.  -1 takes the device of a CUDA context the
   * pipeline or application already shares, else the first device.
   */
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "CUDA device to run on (-1 = the pipeline's context, else the "
          "first device)", -1, G_MAXINT, DEFAULT_DEVICE_ID,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_READY |
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
 * gst_cuda_filters_base_get_scratch:
 * @size: bytes needed
 *
 * Device memory of at least @size bytes for the element's kernels, kept
 * (and grown when asked for more) until the element stops or changes
 * context.  Call it from process(), where the context is current; work on
 * the element's stream may use it until the next frame.  Newly allocated
 * memory is zeroed (on the stream) before any use.
 *
 * Returns: a device pointer, or NULL if CUDA could not allocate it.
 */
gpointer
gst_cuda_filters_base_get_scratch (GstCudaFiltersBase * self, gsize size)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);

  if (size > priv->scratch_size) {
    /* the stream may still use the old one */
    if (priv->scratch) {
      gst_cuda_result (CuStreamSynchronize (priv->stream));
      gst_cuda_result (CuMemFree (priv->scratch));
    }
    priv->scratch = 0;
    priv->scratch_size = 0;
    if (!gst_cuda_result (CuMemAlloc (&priv->scratch, size)))
      return NULL;
    if (cf_fill_plane ((void *) (guintptr) priv->scratch, size, size, 1, 0,
            (CfStream) priv->stream) != 0) {
      gst_cuda_result (CuMemFree (priv->scratch));
      priv->scratch = 0;
      return NULL;
    }
    priv->scratch_size = size;
  }
  return (gpointer) (guintptr) priv->scratch;
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
