/* GStreamer
 * gst-cudafilters: the path of a frame through the base class.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* One frame's way from GStreamer to the GPU and back, for every element:
 * the input read in place or uploaded, the output written in place or into
 * a staging frame, the element's kernels, the download, then the end of the
 * frame's work (a wait for the stream, or on 1.24+ the stream order of
 * gstcudafiltersorder.c).  docs/design/gpu-path.md tells the same path. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersbaseprivate.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <string.h>

#define GST_CAT_DEFAULT gst_cuda_filters_base_debug

#define PRIV(self) gst_cuda_filters_base_get_private (self)

typedef enum
{
  FAIL_NONE,
  FAIL_MAP_IN,
  FAIL_MAP_OUT,
  FAIL_OUT_LAYOUT,
  FAIL_CUDA,
} FailKind;

/* One frame on its way through cf_path_run_frame(): its buffers,
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
GstFlowReturn
cf_path_run_frame (GstCudaFiltersBase * self, GstBuffer * inbuf,
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
