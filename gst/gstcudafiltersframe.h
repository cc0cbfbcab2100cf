/* GStreamer
 * gst-cudafilters: frames between system memory and the GPU.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Where a buffer's planes lie (video meta, a CUDA memory's own layout, or
 * the caps'), whether they lie inside it, mapping them whole in system
 * memory, and the staging frames in device memory that the upload and the
 * download copy through.  Internal to the plugin (cf_frame_ prefix), used
 * by the base class's frame path. */

#ifndef __GST_CUDA_FILTERS_FRAME_H__
#define __GST_CUDA_FILTERS_FRAME_H__

#include "gstcudafiltersbase.h"

#include <gst/cuda/cuda-gst.h>
#include <gst/cuda/gstcudamemory.h>

G_BEGIN_DECLS

/* A frame's planes in device memory that this element owns: where system
 * memory frames are uploaded to, and where output bound for system memory is
 * written before the download. */
typedef struct
{
  CUdeviceptr plane[GST_VIDEO_MAX_PLANES];
  gsize pitch[GST_VIDEO_MAX_PLANES];
  guint n_planes;
} CfStagingFrame;

/* A frame in system memory as the upload and download copy it: mapped by
 * gst_video_frame_map(), or, where that cannot give whole planes
 * (cf_frame_needs_whole_map), from one map of the whole buffer
 * (GStreamer merges its memories into one, a copy). */
typedef struct
{
  gboolean whole;
  /* the map is GStreamer's merged copy of a non-writable buffer's
   * memories, freed at the unmap: a copy from it still in flight must be
   * waited for first */
  gboolean temporary;
  GstVideoFrame frame;
  GstMapInfo map;
  guint8 *data[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
} CfHostFrame;

/* Bytes per row and number of rows of a plane, from the format's components
 * (NV12's chroma plane: 2 * ceil(w/2) bytes, ceil(h/2) rows). */
void cf_frame_plane_extent (const GstVideoInfo * info, guint plane,
    gsize * row_bytes, guint * rows);

/* The layout to map @buffer with: its video meta describes it when it has
 * one (gst_video_frame_map uses it); without one, a GstCudaMemory carries
 * its own pitched layout, which must be the caps' format and size; else the
 * caps' default layout.  NULL when a CUDA memory's layout does not match
 * the caps. */
const GstVideoInfo *cf_frame_buffer_layout (GstBuffer * buffer,
    const GstVideoInfo * info);

/* At least the bytes of a frame of @caps (its planes without padding), or 0
 * when the caps give no format and size. */
guint64 cf_frame_caps_bytes (GstCaps * caps);

/* Whether every plane described by the buffer's video meta (or, without
 * one, by @layout) lies inside the buffer: a short buffer must never be
 * read past its end, nor a bottom-up plane before its start.  @needed is
 * the size the frame needs (G_MAXSIZE when it cannot be met). */
gboolean cf_frame_buffer_holds (GstBuffer * buffer,
    const GstVideoInfo * layout, gsize * needed);
/* What the element error says of such a buffer: the size it needs, or
 * what its layout lacks where no size would do */
gchar *cf_frame_short_buffer_details (GstBuffer * buffer,
    const GstVideoInfo * layout, const GstVideoInfo * info, gsize needed);

/* Whether gst_video_frame_map() cannot give the planes as the upload and
 * download copy them: a bottom-up plane, or (with a video meta) a plane
 * that spans two or more memories, of which GStreamer 1.22 maps only the
 * first.  Called after cf_frame_buffer_holds(). */
gboolean cf_frame_needs_whole_map (GstBuffer * buffer,
    const GstVideoInfo * layout);

gboolean cf_frame_host_map (CfHostFrame * host, GstBuffer * buffer,
    const GstVideoInfo * layout, GstMapFlags flags);

void cf_frame_host_unmap (CfHostFrame * host, GstBuffer * buffer);

/* The buffer's one GstCudaMemory when it is of @context (read and written
 * in place), else NULL. */
GstCudaMemory *cf_frame_cuda_memory (GstBuffer * buffer,
    GstCudaContext * context);

/* Maps a CUDA-memory buffer for the kernels, with @layout from
 * cf_frame_buffer_layout(); the kernels see @info's format and size. */
gboolean cf_frame_cuda_map (GstVideoFrame * frame, const GstVideoInfo * info,
    const GstVideoInfo * layout, GstBuffer * buffer, GstMapFlags flags,
    GstCudaFiltersFrame * dev);

/* Frees the planes when @pushed (the context is current), and forgets them
 * in any case: a stale frame of another context or size is never reused
 * (leaking it is the lesser harm). */
void cf_frame_staging_free (CfStagingFrame * staging, gboolean pushed);

/* Called with the context pushed.  Each plane's pitch is the caps' default
 * stride rounded up to 16 bytes (vector loads): for the common sizes it
 * equals the host frame's stride, and a copy between equal pitches is one
 * contiguous transfer instead of a strided 2D one. */
CUresult cf_frame_staging_ensure (CfStagingFrame * staging,
    const GstVideoInfo * info);

void cf_frame_staging_to_device (const CfStagingFrame * staging,
    const GstVideoInfo * info, GstCudaFiltersFrame * frame);

/* Copies a plane between host and device on @stream.  Equal pitches make
 * the plane one contiguous span (padding between rows included), copied as
 * a single row: a strided 2D DMA of thousands of short rows is slower
 * (docs/design/gpu-path.md). */
CUresult cf_frame_copy_plane_async (const GstVideoInfo * info, guint plane,
    CUmemorytype src_type, const void *src, gsize src_pitch,
    CUmemorytype dst_type, void *dst, gsize dst_pitch, CUstream stream);

/* Uploads @plane of @host into @staging on @stream.  A bottom-up plane is
 * turned top-down on the CPU first, since copies take positive pitches
 * only; that copy is waited for before its source is freed. */
CUresult cf_frame_upload_plane (const GstVideoInfo * info,
    const CfHostFrame * host, guint plane, const CfStagingFrame * staging,
    CUstream stream);

/* Uploads every plane of @host into @staging on @stream. */
CUresult cf_frame_upload (const GstVideoInfo * info, const CfHostFrame * host,
    const CfStagingFrame * staging, CUstream stream);

/* Downloads every plane of @staging into @host on @stream. */
CUresult cf_frame_download (const GstVideoInfo * info,
    const CfStagingFrame * staging, const CfHostFrame * host,
    CUstream stream);

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_FRAME_H__ */
