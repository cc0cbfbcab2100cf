/* GStreamer
 * gst-cudafilters: the allocation queries of the base class.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What an element answers upstream's allocation query with (a CUDA pool of
 * its context, or pinned system memory, and how many frames it may hold)
 * and which pool it writes its output into.  Internal to the plugin
 * (cf_alloc_ prefix), called from the base class's propose_allocation and
 * decide_allocation (docs/design/gpu-path.md, "The base class"). */

#ifndef __GST_CUDA_FILTERS_ALLOC_H__
#define __GST_CUDA_FILTERS_ALLOC_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/cuda/gstcudacontext.h>
#ifdef HAVE_GST_CUDA_STREAM
#include <gst/cuda/gstcudastream.h>
#endif

G_BEGIN_DECLS

/* The element's side of the queries: its context, and, on 1.24+, the
 * stream its work goes on (put in the config of every CUDA pool, so that a
 * producer writing on it needs no wait on either side; NULL for none). */
typedef struct
{
  GstCudaContext *context;
#ifdef HAVE_GST_CUDA_STREAM
  GstCudaStream *work_stream;
#endif
} CfAllocTarget;

gboolean cf_alloc_caps_are_cuda_memory (GstCaps * caps);

/* Answers upstream's allocation @query.  @passthrough: the frames go
 * downstream untouched, so downstream answers first (its pools and metas
 * stand); @held: the frames the element may hold after pushing them on,
 * added to every pool's min-buffers. */
gboolean cf_alloc_propose (GstBaseTransform * trans,
    const CfAllocTarget * target, GstQuery * query, gboolean passthrough,
    guint held);

#ifdef HAVE_GST_CUDA_STREAM
/* The stream of downstream's CUDA pool in @query, if it has one of
 * @context (even when that pool is in use: ours, handed back on a
 * renegotiation).  Unref with gst_cuda_stream_unref(). */
GstCudaStream *cf_alloc_offered_stream (GstQuery * query,
    GstCudaContext * context);
#endif

/* Picks and configures the pool the element's output comes from:
 * downstream's when it is an idle CUDA pool of our context or, in system
 * memory, any pool downstream offers; else one of our own (CUDA, or
 * pinned system memory for a fast download). */
gboolean cf_alloc_decide (GstBaseTransform * trans,
    const CfAllocTarget * target, GstQuery * query);

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_ALLOC_H__ */
