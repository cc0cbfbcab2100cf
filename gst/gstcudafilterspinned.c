/* GStreamer
 * gst-cudafilters: an allocator of page-locked (pinned) host memory.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The elements propose pools of this memory upstream through the allocation
 * query, so producers write frames straight into memory the GPU's copy
 * engines read by DMA: a copy from pageable memory goes through a bounce
 * buffer of the driver, and the CPU waits for it (docs/design/gpu-path.md).
 * To everything else it is ordinary system memory. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafilterspinned.h"

#include <string.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_filters_pinned_debug);
#define GST_CAT_DEFAULT gst_cuda_filters_pinned_debug

struct _GstCudaFiltersPinnedAllocator
{
  GstAllocator parent;
  GstCudaContext *context;
};

typedef struct
{
  GstMemory mem;
  /* start of the maxsize region; shared sub-memories point into the parent */
  guint8 *data;
  /* what cuMemAllocHost returned, only on the parent */
  gpointer host_alloc;
} GstCudaFiltersPinnedMemory;

G_DEFINE_TYPE (GstCudaFiltersPinnedAllocator,
    gst_cuda_filters_pinned_allocator, GST_TYPE_ALLOCATOR);

static GstMemory *
gst_cuda_filters_pinned_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstCudaFiltersPinnedAllocator *self =
      GST_CUDA_FILTERS_PINNED_ALLOCATOR (allocator);
  GstCudaFiltersPinnedMemory *mem;
  gsize maxsize = size + params->prefix + params->padding;
  /* cuMemAllocHost returns page-aligned memory; only larger alignments
   * need slack */
  gsize slack = params->align >= 4096 ? params->align : 0;
  gpointer host = NULL;
  gboolean ok;

  if (maxsize + slack > G_MAXUINT) {
    GST_ERROR_OBJECT (self, "%" G_GSIZE_FORMAT " bytes is too large", maxsize);
    return NULL;
  }

  if (!gst_cuda_context_push (self->context))
    return NULL;
  ok = gst_cuda_result (CuMemAllocHost (&host, (guint) (maxsize + slack)));
  gst_cuda_context_pop (NULL);
  if (!ok) {
    GST_ERROR_OBJECT (self, "cuMemAllocHost of %" G_GSIZE_FORMAT
        " bytes failed", maxsize + slack);
    return NULL;
  }

  mem = g_new0 (GstCudaFiltersPinnedMemory, 1);
  mem->host_alloc = host;
  mem->data = (guint8 *) host;
  if (slack)
    mem->data = (guint8 *) (((guintptr) host + params->align) &
        ~(guintptr) params->align);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, params->align, params->prefix, size);

  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (mem->data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (mem->data + params->prefix + size, 0, params->padding);

  return GST_MEMORY_CAST (mem);
}

static void
gst_cuda_filters_pinned_free (GstAllocator * allocator, GstMemory * memory)
{
  GstCudaFiltersPinnedAllocator *self =
      GST_CUDA_FILTERS_PINNED_ALLOCATOR (allocator);
  GstCudaFiltersPinnedMemory *mem = (GstCudaFiltersPinnedMemory *) memory;

  if (mem->host_alloc) {
    if (gst_cuda_context_push (self->context)) {
      gst_cuda_result (CuMemFreeHost (mem->host_alloc));
      gst_cuda_context_pop (NULL);
    } else {
      GST_ERROR_OBJECT (self, "cannot push the CUDA context: leaking %"
          G_GSIZE_FORMAT " bytes of pinned memory", memory->maxsize);
    }
  }
  g_free (mem);
}

static gpointer
gst_cuda_filters_pinned_map (GstMemory * memory, gsize maxsize,
    GstMapFlags flags)
{
  return ((GstCudaFiltersPinnedMemory *) memory)->data;
}

static void
gst_cuda_filters_pinned_unmap (GstMemory * memory)
{
}

static GstMemory *
gst_cuda_filters_pinned_share (GstMemory * memory, gssize offset, gssize size)
{
  GstCudaFiltersPinnedMemory *mem = (GstCudaFiltersPinnedMemory *) memory;
  GstCudaFiltersPinnedMemory *sub;
  GstMemory *parent = memory->parent ? memory->parent : memory;

  if (size == -1)
    size = memory->size - offset;

  sub = g_new0 (GstCudaFiltersPinnedMemory, 1);
  sub->data = mem->data;
  gst_memory_init (GST_MEMORY_CAST (sub),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  return GST_MEMORY_CAST (sub);
}

static void
gst_cuda_filters_pinned_allocator_finalize (GObject * object)
{
  GstCudaFiltersPinnedAllocator *self =
      GST_CUDA_FILTERS_PINNED_ALLOCATOR (object);

  gst_clear_object (&self->context);
  G_OBJECT_CLASS (gst_cuda_filters_pinned_allocator_parent_class)->finalize
      (object);
}

static void
gst_cuda_filters_pinned_allocator_class_init (GstCudaFiltersPinnedAllocatorClass
    * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  gobject_class->finalize = gst_cuda_filters_pinned_allocator_finalize;
  allocator_class->alloc = gst_cuda_filters_pinned_alloc;
  allocator_class->free = gst_cuda_filters_pinned_free;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_filters_pinned_debug, "cudafilterspinned",
      0, "gst-cudafilters pinned host memory");
}

static void
gst_cuda_filters_pinned_allocator_init (GstCudaFiltersPinnedAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR (self);

  allocator->mem_type = GST_CUDA_FILTERS_PINNED_MEMORY_TYPE;
  allocator->mem_map = gst_cuda_filters_pinned_map;
  allocator->mem_unmap = gst_cuda_filters_pinned_unmap;
  allocator->mem_share = gst_cuda_filters_pinned_share;
}

/**
 * gst_cuda_filters_pinned_allocator_new:
 * @context: the CUDA context that allocates and frees
 *
 * Pinned memory is usable by every context of the process (unified
 * addressing); @context is only the one the driver calls run in.
 */
GstAllocator *
gst_cuda_filters_pinned_allocator_new (GstCudaContext * context)
{
  GstCudaFiltersPinnedAllocator *self;

  g_return_val_if_fail (GST_IS_CUDA_CONTEXT (context), NULL);

  self = g_object_new (GST_TYPE_CUDA_FILTERS_PINNED_ALLOCATOR, NULL);
  self->context = gst_object_ref (context);
  gst_object_ref_sink (self);
  return GST_ALLOCATOR_CAST (self);
}

gboolean
gst_is_cuda_filters_pinned_memory (GstMemory * mem)
{
  return mem && mem->allocator &&
      GST_IS_CUDA_FILTERS_PINNED_ALLOCATOR (mem->allocator);
}

GstBufferPool *
gst_cuda_filters_pinned_pool_new (GstCudaContext * context, GstCaps * caps,
    guint min_buffers, gboolean video_meta)
{
  GstVideoInfo info;
  GstBufferPool *pool;
  GstStructure *config;
  GstAllocator *allocator;
  GstAllocationParams params;

  if (!gst_video_info_from_caps (&info, caps))
    return NULL;

  allocator = gst_cuda_filters_pinned_allocator_new (context);
  /* each buffer starts on a 64-byte boundary (its planes lie where the
   * caps' default layout puts them) */
  gst_allocation_params_init (&params);
  params.align = 63;

  pool = gst_video_buffer_pool_new ();
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&info),
      min_buffers, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  if (video_meta)
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_object_unref (allocator);

  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_ERROR ("could not configure a pinned pool for %" GST_PTR_FORMAT, caps);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}
