/* GStreamer
 * gst-cudafilters: an allocator of page-locked (pinned) host memory.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_CUDA_FILTERS_PINNED_H__
#define __GST_CUDA_FILTERS_PINNED_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>

G_BEGIN_DECLS

/* The memory type of what this allocator hands out: system memory that any
 * CPU code maps as usual and the GPU copies from by DMA, without staging. */
#define GST_CUDA_FILTERS_PINNED_MEMORY_TYPE "CudaFiltersPinnedMemory"

#define GST_TYPE_CUDA_FILTERS_PINNED_ALLOCATOR \
  (gst_cuda_filters_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaFiltersPinnedAllocator,
    gst_cuda_filters_pinned_allocator, GST, CUDA_FILTERS_PINNED_ALLOCATOR,
    GstAllocator);

GstAllocator *gst_cuda_filters_pinned_allocator_new (GstCudaContext * context);

gboolean gst_is_cuda_filters_pinned_memory (GstMemory * mem);

/* A video buffer pool of pinned memory for @caps, holding at least
 * @min_buffers; video meta is added when @video_meta is TRUE. */
GstBufferPool *gst_cuda_filters_pinned_pool_new (GstCudaContext * context,
    GstCaps * caps, guint min_buffers, gboolean video_meta);

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_PINNED_H__ */
