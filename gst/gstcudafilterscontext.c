/* GStreamer
 * gst-cudafilters: the CUDA context and stream of an element.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Part of GstCudaFiltersBase (gstcudafiltersbaseprivate.h): loading the
 * driver and taking or making the context at start, the element's stream,
 * sharing the context through GstContext, adopting an upstream frame's
 * context, the device memory the kernels borrow (get_scratch), and giving
 * everything back at stop (docs/design/gpu-path.md, "The base class"). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersbaseprivate.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#define GST_CAT_DEFAULT gst_cuda_filters_base_debug
#define PRIV(self) gst_cuda_filters_base_get_private (self)

const gchar *
cf_cu_error_name (CUresult result)
{
  const gchar *name = NULL;

  if (CuGetErrorName (result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUDA error";
  return name;
}

/* Frees the stream, the staging frames, the scratch memory and the
 * subclass's device memory (release()), once the stream's work is done. */
void
cf_context_release_gpu (GstCudaFiltersBase * self)
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
          "device memory is left allocated", cf_cu_error_name (res));
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
    cf_context_release_gpu (self);
    priv->stream_failed = TRUE;
    return FALSE;
  }
  priv->stream_failed = FALSE;
  priv->work_stream = gst_cuda_stream_ref (priv->own_stream);
  priv->stream = gst_cuda_stream_get_handle (priv->work_stream);
  return TRUE;
}

/* Work goes on @offered, a CUDA pool's stream from downstream, when it is
 * of our context, else on our own.  The old stream's work is finished
 * first: the staging frames and scratch memory move to the new one. */
void
cf_context_use_work_stream (GstCudaFiltersBase * self, GstCudaStream * offered)
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
      why = cf_cu_error_name (res);
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

gboolean
cf_context_start (GstCudaFiltersBase * self)
{
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
            res == CUDA_SUCCESS ? "no error" : cf_cu_error_name (res),
            n_devices));
    return FALSE;
  }

  if (device_id >= n_devices) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("CUDA device %d does not exist.", device_id),
        ("cuda-device-id is %d, but this machine has %d CUDA device(s), "
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

void
cf_context_stop (GstCudaFiltersBase * self)
{
  GstCudaFiltersBasePrivate *priv = PRIV (self);
  GstCudaContext *old;

  cf_context_release_gpu (self);
#ifdef HAVE_GST_CUDA_STREAM
  gst_cuda_filters_held_frames_stop (priv->held);
#endif
  GST_OBJECT_LOCK (self);
  old = priv->context;
  priv->context = NULL;
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&old);
}

void
cf_context_set (GstCudaFiltersBase * self, GstContext * context)
{
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
  if (!have && gst_cuda_handle_set_context (GST_ELEMENT_CAST (self), context,
          device_id, &found) && found) {
    GST_OBJECT_LOCK (self);
    if (!priv->context) {
      priv->context = found;
      found = NULL;
    }
    GST_OBJECT_UNLOCK (self);
    gst_clear_object (&found);
  }
}

/* Answers a context query with our context, if we have one. */
gboolean
cf_context_query (GstCudaFiltersBase * self, GstQuery * query)
{
  /* any thread may ask; the streaming thread may swap the context */
  GstCudaContext *context;
  gboolean answered;

  GST_OBJECT_LOCK (self);
  context = PRIV (self)->context ? gst_object_ref (PRIV (self)->context) : NULL;
  GST_OBJECT_UNLOCK (self);
  answered = context && gst_cuda_handle_context_query (GST_ELEMENT (self),
      query, context);
  gst_clear_object (&context);
  return answered;
}

/* An upstream CUDA frame of another context on a device we may use: adopt
 * that context, so later frames are read in place instead of copied. */
void
cf_context_adopt_upstream (GstCudaFiltersBase * self, GstBuffer * buffer)
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
  cf_context_release_gpu (self);
  GST_OBJECT_LOCK (self);
  old = priv->context;
  priv->context = gst_object_ref (other);
  GST_OBJECT_UNLOCK (self);
  gst_clear_object (&old);
  if (create_stream (self))
    gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
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
