/* GStreamer
 * gst-cudafilters: ordering the elements' work by the streams of
 * GStreamer 1.24+'s CUDA memory.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_CUDA_FILTERS_ORDER_H__
#define __GST_CUDA_FILTERS_ORDER_H__

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>

#include "cudafilters-kernels.h"

G_BEGIN_DECLS

/* input frames a GstCudaFiltersHeldFrames holds at most */
#define GST_CUDA_FILTERS_MAX_HELD_FRAMES 4

CUstream gst_cuda_filters_memory_stream (GstMemory * mem);

CfError gst_cuda_filters_order_streams (CUstream later, CUstream earlier,
    CfEvent event);

CfError gst_cuda_filters_order_after_memory (CUstream stream, GstMemory * mem,
    CfEvent event);

CfError gst_cuda_filters_order_memory_after (GstMemory * mem, CUstream stream,
    CfEvent event);

typedef struct _GstCudaFiltersHeldFrames GstCudaFiltersHeldFrames;

GstCudaFiltersHeldFrames *gst_cuda_filters_held_frames_new (void);

void gst_cuda_filters_held_frames_free (GstCudaFiltersHeldFrames * held);

CfError gst_cuda_filters_held_frames_prepare (GstCudaFiltersHeldFrames * held,
    GstCudaContext * context);

void gst_cuda_filters_held_frames_unprepare (GstCudaFiltersHeldFrames * held,
    gboolean context_current);

CfError gst_cuda_filters_held_frames_hold (GstCudaFiltersHeldFrames * held,
    GstBuffer * buffer, CUstream stream);

CfError gst_cuda_filters_hold_input (GstCudaFiltersHeldFrames * held,
    GstBuffer * buffer, CUstream stream);

void gst_cuda_filters_held_frames_wait_empty (GstCudaFiltersHeldFrames * held);

void gst_cuda_filters_held_frames_stop (GstCudaFiltersHeldFrames * held);

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_ORDER_H__ */
