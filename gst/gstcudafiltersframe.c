/* GStreamer
 * gst-cudafilters: frames between system memory and the GPU
 * (gstcudafiltersframe.h).
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersframe.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include <string.h>

/* Bytes per row and number of rows of a plane, from the format's components
 * (NV12's chroma plane: 2 * ceil(w/2) bytes, ceil(h/2) rows). */
void
cf_frame_plane_extent (const GstVideoInfo * info, guint plane,
    gsize * row_bytes, guint * rows)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, comp);
  *row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
  *rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
}

/* The layout to map @buffer with: its video meta describes it when it has
 * one (gst_video_frame_map uses it); without one, a GstCudaMemory carries
 * its own pitched layout, which must be the caps' format and size; else the
 * caps' default layout.  NULL when a CUDA memory's layout does not match
 * the caps. */
const GstVideoInfo *
cf_frame_buffer_layout (GstBuffer * buffer, const GstVideoInfo * info)
{
  GstMemory *mem;
  GstCudaMemory *cmem;

  if (gst_buffer_get_video_meta (buffer) || gst_buffer_n_memory (buffer) != 1)
    return info;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_cuda_memory (mem))
    return info;
  cmem = GST_CUDA_MEMORY_CAST (mem);
  if (GST_VIDEO_INFO_FORMAT (&cmem->info) != GST_VIDEO_INFO_FORMAT (info) ||
      GST_VIDEO_INFO_WIDTH (&cmem->info) != GST_VIDEO_INFO_WIDTH (info) ||
      GST_VIDEO_INFO_HEIGHT (&cmem->info) != GST_VIDEO_INFO_HEIGHT (info))
    return NULL;
  return &cmem->info;
}

/* At least the bytes of a frame of @caps (its planes without padding), or 0
 * when the caps give no format and size. */
guint64
cf_frame_caps_bytes (GstCaps * caps)
{
  GstStructure *s = gst_caps_get_structure (caps, 0);
  const GstVideoFormatInfo *finfo;
  const gchar *format = gst_structure_get_string (s, "format");
  gint width = 0, height = 0;
  guint64 bytes = 0;
  guint c;

  if (!format || !gst_structure_get_int (s, "width", &width) ||
      !gst_structure_get_int (s, "height", &height) || width <= 0
      || height <= 0)
    return 0;
  finfo = gst_video_format_get_info (gst_video_format_from_string (format));
  if (!finfo)
    return 0;
  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++)
    bytes += (guint64) GST_VIDEO_SUB_SCALE (GST_VIDEO_FORMAT_INFO_W_SUB
        (finfo, c), width) * GST_VIDEO_SUB_SCALE (GST_VIDEO_FORMAT_INFO_H_SUB
        (finfo, c), height) * GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) / 8;
  return bytes;
}

/* Where a plane lies in a buffer: its first row at @offset, each next row
 * @stride bytes on (negative: bottom-up, the rows below at lower
 * addresses).  Its bytes span [*first, *end).  FALSE when that range does
 * not fit in a gsize, or starts before the buffer. */
static gboolean
plane_span (gsize offset, gint stride, gsize row_bytes, guint rows,
    gsize * first, gsize * end)
{
  /* |stride| < 2^31 and rows < 2^32: no overflow in 64 bits */
  guint64 step = (guint64) ABS ((gint64) stride) * (rows - 1);

  if (rows == 0 || (guint64) ABS ((gint64) stride) < row_bytes)
    return FALSE;
  if (stride >= 0) {
    if (step + row_bytes > G_MAXSIZE - offset)
      return FALSE;
    *first = offset;
    *end = offset + step + row_bytes;
  } else {
    if (offset < step || row_bytes > G_MAXSIZE - offset)
      return FALSE;
    *first = offset - step;
    *end = offset + row_bytes;
  }
  return TRUE;
}

/* The offset and stride of @plane in @buffer: its video meta's, else
 * @layout's.  FALSE when the meta describes fewer planes. */
static gboolean
plane_layout (GstBuffer * buffer, const GstVideoInfo * layout, guint plane,
    gsize * offset, gint * stride)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);

  if (meta) {
    if (plane >= meta->n_planes)
      return FALSE;
    *offset = meta->offset[plane];
    *stride = meta->stride[plane];
  } else {
    *offset = GST_VIDEO_INFO_PLANE_OFFSET (layout, plane);
    *stride = GST_VIDEO_INFO_PLANE_STRIDE (layout, plane);
  }
  return TRUE;
}

/* Whether every plane described by the buffer's video meta (or, without
 * one, by @layout) lies inside the buffer: a short buffer must never be
 * read past its end, nor a bottom-up plane before its start.  @needed is
 * the size the frame needs (G_MAXSIZE when it cannot be met). */
gboolean
cf_frame_buffer_holds (GstBuffer * buffer,
    const GstVideoInfo * layout, gsize * needed)
{
  gsize size = gst_buffer_get_size (buffer);
  guint p;

  *needed = 0;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (layout); p++) {
    gsize row_bytes, offset, first, end;
    guint rows;
    gint stride;

    cf_frame_plane_extent (layout, p, &row_bytes, &rows);
    if (!plane_layout (buffer, layout, p, &offset, &stride) ||
        !plane_span (offset, stride, row_bytes, rows, &first, &end)) {
      *needed = G_MAXSIZE;
      return FALSE;
    }
    *needed = MAX (*needed, end);
  }
  return size >= *needed;
}

/* Why @buffer does not hold a frame of @info laid out as @layout, once
 * cf_frame_buffer_holds () has said so and given @needed: the element
 * error's details.  Free with g_free (). */
gchar *
cf_frame_short_buffer_details (GstBuffer * buffer,
    const GstVideoInfo * layout, const GstVideoInfo * info, gsize needed)
{
  GstVideoMeta *meta = gst_buffer_get_video_meta (buffer);

  /* (G_MAXSIZE: no size would do, so say what the layout lacks) */
  if (needed == G_MAXSIZE)
    return g_strdup_printf ("buffer of %" G_GSIZE_FORMAT " bytes, whose %s "
        "of %u plane(s) cannot hold a %dx%d %s frame of %u at any size: a "
        "plane missing, a stride shorter than a row, a bottom-up plane "
        "starting before the buffer, or an offset past the largest buffer",
        gst_buffer_get_size (buffer), meta ? "video meta" : "layout",
        meta ? meta->n_planes : GST_VIDEO_INFO_N_PLANES (layout),
        GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
        GST_VIDEO_INFO_NAME (info), GST_VIDEO_INFO_N_PLANES (info));
  return g_strdup_printf ("buffer of %" G_GSIZE_FORMAT " bytes, but a %dx%d "
      "%s frame needs %" G_GSIZE_FORMAT, gst_buffer_get_size (buffer),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info),
      GST_VIDEO_INFO_NAME (info), needed);
}

/* Whether gst_video_frame_map() cannot give the planes as the upload and
 * download copy them: a bottom-up plane, or (with a video meta) a plane
 * that spans two or more memories, of which GStreamer 1.22 maps only the
 * first.  Called after cf_frame_buffer_holds(). */
gboolean
cf_frame_needs_whole_map (GstBuffer * buffer, const GstVideoInfo * layout)
{
  gboolean several = gst_buffer_n_memory (buffer) > 1 &&
      gst_buffer_get_video_meta (buffer) != NULL;
  guint p;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (layout); p++) {
    gsize row_bytes, offset, first, end, skip;
    guint rows, idx, length;
    gint stride;

    cf_frame_plane_extent (layout, p, &row_bytes, &rows);
    if (!plane_layout (buffer, layout, p, &offset, &stride) ||
        !plane_span (offset, stride, row_bytes, rows, &first, &end))
      return TRUE;
    if (stride < 0)
      return TRUE;
    if (several && (!gst_buffer_find_memory (buffer, first, end - first, &idx,
                &length, &skip) || length > 1))
      return TRUE;
  }
  return FALSE;
}


gboolean
cf_frame_host_map (CfHostFrame * host,
    GstBuffer * buffer, const GstVideoInfo * layout, GstMapFlags flags)
{
  guint p;

  memset (host, 0, sizeof (*host));
  host->whole = cf_frame_needs_whole_map (buffer, layout);
  /* Mapping several memories as one (the whole buffer, or, without a video
   * meta, what gst_video_frame_map does) merges them into a copy.  A
   * writable buffer keeps that copy as its memory; any other frees it at
   * the unmap, so the upload from it must be done by then (the base class
   * waits for it). */
  host->temporary = gst_buffer_n_memory (buffer) > 1 &&
      !gst_buffer_is_writable (buffer) && (host->whole ||
      !gst_buffer_get_video_meta (buffer));
  if (!host->whole) {
    if (!gst_video_frame_map (&host->frame, (GstVideoInfo *) layout, buffer,
            flags))
      return FALSE;
    for (p = 0; p < GST_VIDEO_FRAME_N_PLANES (&host->frame); p++) {
      host->data[p] = GST_VIDEO_FRAME_PLANE_DATA (&host->frame, p);
      host->stride[p] = GST_VIDEO_FRAME_PLANE_STRIDE (&host->frame, p);
    }
    return TRUE;
  }
  if (!gst_buffer_map (buffer, &host->map, flags))
    return FALSE;
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (layout); p++) {
    gsize offset = 0;

    /* (cf_frame_buffer_holds has checked every plane) */
    plane_layout (buffer, layout, p, &offset, &host->stride[p]);
    host->data[p] = host->map.data + offset;
  }
  return TRUE;
}

void
cf_frame_host_unmap (CfHostFrame * host, GstBuffer * buffer)
{
  if (host->whole)
    gst_buffer_unmap (buffer, &host->map);
  else
    gst_video_frame_unmap (&host->frame);
}

GstCudaMemory *
cf_frame_cuda_memory (GstBuffer * buffer, GstCudaContext * context)
{
  GstMemory *mem;

  if (gst_buffer_n_memory (buffer) != 1)
    return NULL;
  mem = gst_buffer_peek_memory (buffer, 0);
  if (!gst_is_cuda_memory (mem) || GST_CUDA_MEMORY_CAST (mem)->context !=
      context)
    return NULL;
  return GST_CUDA_MEMORY_CAST (mem);
}

gboolean
cf_frame_cuda_map (GstVideoFrame * frame, const GstVideoInfo * info,
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

/* Frees the planes when @pushed (the context is current), and forgets them
 * in any case: a stale frame of another context or size is never reused
 * (leaking it is the lesser harm). */
void
cf_frame_staging_free (CfStagingFrame * staging, gboolean pushed)
{
  guint p;

  for (p = 0; pushed && p < staging->n_planes; p++) {
    if (staging->plane[p])
      gst_cuda_result (CuMemFree (staging->plane[p]));
  }
  memset (staging, 0, sizeof (*staging));
}

/* Called with the context pushed.  Each plane's pitch is the caps' default
 * stride rounded up to 16 bytes (vector loads): for the common sizes it
 * equals the host frame's stride, and a copy between equal pitches is one
 * contiguous transfer instead of a strided 2D one. */
CUresult
cf_frame_staging_ensure (CfStagingFrame * staging, const GstVideoInfo * info)
{
  guint p;

  if (staging->n_planes)
    return CUDA_SUCCESS;

  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes;
    guint rows;
    CUresult res;

    cf_frame_plane_extent (info, p, &row_bytes, &rows);
    staging->pitch[p] = GST_ROUND_UP_16 (MAX ((gsize)
            GST_VIDEO_INFO_PLANE_STRIDE (info, p), row_bytes));
    res = CuMemAlloc (&staging->plane[p], staging->pitch[p] * rows);
    staging->n_planes = p + 1;
    if (res != CUDA_SUCCESS) {
      cf_frame_staging_free (staging, TRUE);
      return res;
    }
  }
  return CUDA_SUCCESS;
}

void
cf_frame_staging_to_device (const CfStagingFrame * staging,
    const GstVideoInfo * info, GstCudaFiltersFrame * frame)
{
  guint p;

  memset (frame, 0, sizeof (*frame));
  frame->info = info;
  for (p = 0; p < staging->n_planes; p++) {
    frame->data[p] = (guint8 *) (guintptr) staging->plane[p];
    frame->stride[p] = (gint) staging->pitch[p];
  }
}

/* Copies a plane between host and device on @stream.  Equal pitches make
 * the plane one contiguous span (padding between rows included), copied as
 * a single row: a strided 2D DMA of thousands of short rows is slower
 * (docs/design/gpu-path.md). */
CUresult
cf_frame_copy_plane_async (const GstVideoInfo * info, guint plane,
    CUmemorytype src_type, const void *src, gsize src_pitch,
    CUmemorytype dst_type, void *dst, gsize dst_pitch, CUstream stream)
{
  CUDA_MEMCPY2D copy = { 0, };
  gsize row_bytes;
  guint rows;

  cf_frame_plane_extent (info, plane, &row_bytes, &rows);
  copy.srcMemoryType = src_type;
  copy.dstMemoryType = dst_type;
  if (src_type == CU_MEMORYTYPE_HOST)
    copy.srcHost = src;
  else
    copy.srcDevice = (CUdeviceptr) (guintptr) src;
  if (dst_type == CU_MEMORYTYPE_HOST)
    copy.dstHost = dst;
  else
    copy.dstDevice = (CUdeviceptr) (guintptr) dst;
  if (src_pitch == dst_pitch && rows > 1 && src_pitch * rows < G_MAXINT32) {
    copy.WidthInBytes = src_pitch * (rows - 1) + row_bytes;
    copy.Height = 1;
    copy.srcPitch = copy.dstPitch = copy.WidthInBytes;
  } else {
    copy.srcPitch = src_pitch;
    copy.dstPitch = dst_pitch;
    copy.WidthInBytes = row_bytes;
    copy.Height = rows;
  }
  return CuMemcpy2DAsync (&copy, stream);
}

/* Uploads @plane of @host into @staging on @stream.  A bottom-up plane is
 * turned top-down on the CPU first, since copies take positive pitches
 * only; that copy is waited for before its source is freed. */
CUresult
cf_frame_upload_plane (const GstVideoInfo * info,
    const CfHostFrame * host, guint plane,
    const CfStagingFrame * staging, CUstream stream)
{
  gsize row_bytes;
  guint rows, y;
  guint8 *top_down;
  CUresult res;

  if (host->stride[plane] >= 0)
    return cf_frame_copy_plane_async (info, plane, CU_MEMORYTYPE_HOST,
        host->data[plane], host->stride[plane], CU_MEMORYTYPE_DEVICE,
        (void *) (guintptr) staging->plane[plane], staging->pitch[plane],
        stream);

  cf_frame_plane_extent (info, plane, &row_bytes, &rows);
  top_down = g_try_malloc (row_bytes * rows);
  if (!top_down)
    return CUDA_ERROR_OUT_OF_MEMORY;
  for (y = 0; y < rows; y++)
    memcpy (top_down + (gsize) y * row_bytes,
        host->data[plane] + (gssize) y * host->stride[plane], row_bytes);
  res =
      cf_frame_copy_plane_async (info, plane, CU_MEMORYTYPE_HOST,
      top_down, row_bytes, CU_MEMORYTYPE_DEVICE,
      (void *) (guintptr) staging->plane[plane], staging->pitch[plane], stream);
  if (res == CUDA_SUCCESS)
    res = CuStreamSynchronize (stream);
  g_free (top_down);
  return res;
}

CUresult
cf_frame_upload (const GstVideoInfo * info, const CfHostFrame * host,
    const CfStagingFrame * staging, CUstream stream)
{
  CUresult res = CUDA_SUCCESS;
  guint p;

  for (p = 0; p < staging->n_planes && res == CUDA_SUCCESS; p++)
    res = cf_frame_upload_plane (info, host, p, staging, stream);
  return res;
}

CUresult
cf_frame_download (const GstVideoInfo * info, const CfStagingFrame * staging,
    const CfHostFrame * host, CUstream stream)
{
  CUresult res = CUDA_SUCCESS;
  guint p;

  for (p = 0; p < staging->n_planes && res == CUDA_SUCCESS; p++)
    res = cf_frame_copy_plane_async (info, p, CU_MEMORYTYPE_DEVICE,
        (void *) (guintptr) staging->plane[p], staging->pitch[p],
        CU_MEMORYTYPE_HOST, host->data[p], host->stride[p], stream);
  return res;
}
