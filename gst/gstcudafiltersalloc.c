/* GStreamer
 * gst-cudafilters: the allocation queries of the base class
 * (gstcudafiltersalloc.h).
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersalloc.h"
#include "gstcudafilterspinned.h"

#include <gst/video/video.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>

/* (the base class's: allocation is part of every element's base) */
GST_DEBUG_CATEGORY_EXTERN (gst_cuda_filters_base_debug);
#define GST_CAT_DEFAULT gst_cuda_filters_base_debug

gboolean
cf_alloc_caps_are_cuda_memory (GstCaps * caps)
{
  GstCapsFeatures *features = gst_caps_get_features (caps, 0);

  return features && gst_caps_features_contains (features,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/* Configures a GstCudaBufferPool for @caps; @size becomes the pool's
 * pitched buffer size.  On 1.24+ its memory carries the stream we work
 * on. */
static gboolean
configure_cuda_pool (const CfAllocTarget * target, GstBufferPool * pool,
    GstCaps * caps, guint * size, guint min, guint max)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps, *size, min, max);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
#ifdef HAVE_GST_CUDA_STREAM
  if (target->work_stream)
    gst_buffer_pool_config_set_cuda_stream (config, target->work_stream);
#endif
  if (!gst_buffer_pool_set_config (pool, config))
    return FALSE;
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_params (config, NULL, size, NULL, NULL);
  gst_structure_free (config);
  return TRUE;
}

static GstBufferPool *
make_cuda_pool (GstObject * self, const CfAllocTarget * target,
    GstCaps * caps, guint * size, guint min, guint max)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (target->context);

  if (!configure_cuda_pool (target, pool, caps, size, min, max)) {
    GST_ERROR_OBJECT (self, "could not configure a CUDA pool for %"
        GST_PTR_FORMAT, caps);
    gst_clear_object (&pool);
  }
  return pool;
}

/* Upstream asks what to write into: CUDA memory of our context, or pinned
 * system memory the upload reads without staging.  Either way it is told
 * how many frames we may hold after pushing them (min-buffers): a producer
 * with a fixed number of frames (a decoder's surfaces) must not run out.
 * On 1.24+ a CUDA pool carries the stream we work on, so that a producer
 * that writes on it (nvcodec's decoders do) needs no wait on either side;
 * in passthrough, downstream's pool goes up with downstream's stream. */
gboolean
cf_alloc_propose (GstBaseTransform * trans, const CfAllocTarget * target,
    GstQuery * query, gboolean passthrough, guint held)
{
  GstObject *self = GST_OBJECT (trans);
  gboolean need_pool, video_meta;
  GstVideoInfo info;
  GstCaps *caps;
  guint i;

  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !target->context || !gst_video_info_from_caps (&info, caps))
    return FALSE;

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
      pool = cf_alloc_caps_are_cuda_memory (caps) ?
          make_cuda_pool (self, target, caps, &size, held, 0) :
          gst_cuda_filters_pinned_pool_new (target->context, caps, held,
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

#ifdef HAVE_GST_CUDA_STREAM
GstCudaStream *
cf_alloc_offered_stream (GstQuery * query, GstCudaContext * context)
{
  GstCudaStream *offered = NULL;
  GstBufferPool *pool = NULL;
  GstStructure *config;

  if (gst_query_get_n_allocation_pools (query) > 0)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, NULL, NULL, NULL);
  if (pool && GST_IS_CUDA_BUFFER_POOL (pool) &&
      GST_CUDA_BUFFER_POOL (pool)->context == context) {
    config = gst_buffer_pool_get_config (pool);
    offered = gst_buffer_pool_config_get_cuda_stream (config);
    gst_structure_free (config);
  }
  gst_clear_object (&pool);
  return offered;
}
#endif

/* When downstream's CUDA pool carries a stream of our context, the base
 * class works on that stream (cf_alloc_offered_stream(), before this):
 * downstream then reads our frames, and we write them again after its
 * reads, in stream order. */
gboolean
cf_alloc_decide (GstBaseTransform * trans, const CfAllocTarget * target,
    GstQuery * query)
{
  GstObject *self = GST_OBJECT (trans);
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

  if (cf_alloc_caps_are_cuda_memory (caps)) {
    /* downstream's pool only if it is an idle CUDA pool of our context */
    if (pool && (!GST_IS_CUDA_BUFFER_POOL (pool) ||
            GST_CUDA_BUFFER_POOL (pool)->context != target->context))
      gst_clear_object (&pool);
    if (pool && gst_buffer_pool_is_active (pool))
      gst_clear_object (&pool);
    if (pool && !configure_cuda_pool (target, pool, caps, &size, min, max))
      gst_clear_object (&pool);
    if (!pool)
      pool = make_cuda_pool (self, target, caps, &size, min, max);
  } else {
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
      pool = gst_cuda_filters_pinned_pool_new (target->context, caps, min,
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
   * pageable memory, from which every download is staged by the driver
   * (docs/design/gpu-path.md). */
  return TRUE;
}
