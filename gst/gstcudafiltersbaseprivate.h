/* GStreamer
 * gst-cudafilters: the base class's state, shared by the files that make it
 * up.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* GstCudaFiltersBase lives in four files: gstcudafiltersbase.c (the class,
 * its properties and caps), gstcudafilterspath.c (the path of a frame),
 * gstcudafilterscontext.c (the CUDA context and stream: start, stop, sharing
 * and adopting a context) and gstcudafiltersalloc.c (the allocation
 * queries).  This is the state they share.  Internal to the plugin. */

#ifndef __GST_CUDA_FILTERS_BASE_PRIVATE_H__
#define __GST_CUDA_FILTERS_BASE_PRIVATE_H__

#include "gstcudafiltersbase.h"
#include "gstcudafiltersframe.h"
#ifdef HAVE_GST_CUDA_STREAM
#include "gstcudafiltersorder.h"
#include <gst/cuda/gstcudastream.h>
#endif

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_cuda_filters_base_debug);

typedef struct
{
  /* the cuda-device-id property, under the object lock */
  gint device_id;

  /* written in the streaming thread and start/stop; read by other threads
   * under the object lock (query, set_context) */
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

GstCudaFiltersBasePrivate *gst_cuda_filters_base_get_private
    (GstCudaFiltersBase * self);

const gchar *cf_cu_error_name (CUresult result);

/* gstcudafilterspath.c: runs one frame through the element (outbuf NULL
 * for analysis elements); posts the element error when it fails */
GstFlowReturn cf_path_run_frame (GstCudaFiltersBase * self, GstBuffer * inbuf,
    GstBuffer * outbuf);

/* gstcudafilterscontext.c */
gboolean cf_context_start (GstCudaFiltersBase * self);
void cf_context_stop (GstCudaFiltersBase * self);
void cf_context_release_gpu (GstCudaFiltersBase * self);
void cf_context_set (GstCudaFiltersBase * self, GstContext * context);
gboolean cf_context_query (GstCudaFiltersBase * self, GstQuery * query);
void cf_context_adopt_upstream (GstCudaFiltersBase * self, GstBuffer * buffer);
#ifdef HAVE_GST_CUDA_STREAM
void cf_context_use_work_stream (GstCudaFiltersBase * self,
    GstCudaStream * offered);
#endif

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_BASE_PRIVATE_H__ */
