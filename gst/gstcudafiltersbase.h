/* GStreamer
 * gst-cudafilters: the base class of every element.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_CUDA_FILTERS_BASE_H__
#define __GST_CUDA_FILTERS_BASE_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>

#include "cudafilters-kernels.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_FILTERS_BASE (gst_cuda_filters_base_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaFiltersBase, gst_cuda_filters_base,
    GST, CUDA_FILTERS_BASE, GstBaseTransform);

/**
 * GstCudaFiltersFrame:
 * @info: the frame's format and size (strides in it are not the device's)
 * @data: device pointer of each plane
 * @stride: row pitch in bytes of each plane on the device
 *
 * A video frame in device memory, as the kernels see it.
 */
typedef struct
{
  const GstVideoInfo *info;
  guint8 *data[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
} GstCudaFiltersFrame;

/**
 * GstCudaFiltersBaseClass:
 * @set_info: the caps changed; both infos are those of the new caps.
 *   Called with the context current, before release().  Optional.
 * @process: run the element's kernels on one frame.  Called with the
 *   element's CUDA context current; launch on @stream and do not wait for
 *   it: the base class waits for it once after the download, or, on
 *   GStreamer 1.24+ with output in CUDA memory, orders the output's
 *   consumers after it.  @out is NULL for analysis elements, whose frames
 *   pass through unchanged.  Return 0 or the failing CUDA error; the base
 *   class turns errors into element errors.
 * @finish: optional, for analysis elements: called after process() has
 *   enqueued its work, with the context current, instead of the base
 *   class's wait for the stream; the subclass takes over waiting for the
 *   frame's work (and holds @inbuf until it is done).  Return 0 or a CUDA
 *   error.
 * @release: optional: the element is about to free its stream and device
 *   memory (stop, caps or context change); no work of the subclass may
 *   still be in flight when it returns.  With @can_free, the context is
 *   current and the stream's work done: free device memory and events.
 *   Without (the context could not be made current, or the wait for the
 *   stream failed), forget them instead (leak): a later context must never
 *   see them.
 * @analysis: TRUE for analysis elements (in-place passthrough: same caps on
 *   both pads, frames never modified or copied back); set it with
 *   gst_cuda_filters_base_class_set_analysis().
 * @held_frames: how many input frames an element may still hold after
 *   pushing them on, told upstream in the allocation query (min-buffers).
 *   The base class's own count (frames the GPU may still read, on
 *   GStreamer 1.24+) is the default; an element that holds frames itself
 *   (@finish) sets its own in class_init.
 */
struct _GstCudaFiltersBaseClass
{
  GstBaseTransformClass parent_class;

  gboolean (*set_info) (GstCudaFiltersBase * self,
      const GstVideoInfo * in_info, const GstVideoInfo * out_info);
  CfError (*process) (GstCudaFiltersBase * self, GstBuffer * inbuf,
      const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
      CfStream stream);
  CfError (*finish) (GstCudaFiltersBase * self, GstBuffer * inbuf,
      CfStream stream);
  void (*release) (GstCudaFiltersBase * self, gboolean can_free);

  gboolean analysis;
  guint held_frames;
};

gpointer gst_cuda_filters_base_get_scratch (GstCudaFiltersBase * self,
    gsize size);

GstCudaContext *gst_cuda_filters_base_get_context (GstCudaFiltersBase * self);

void gst_cuda_filters_base_class_set_analysis (GstCudaFiltersBaseClass *
    klass);

/* The formats of 10 to 16 bits (docs/design/high-bit-depth.md, "Formats"):
 * samples in 16-bit words (YUV and grey), and the packed 10-bit RGB.  In
 * CUDA memory only what the allocator of the GStreamer built against has
 * a layout for (1.22's aborts on any other); GRAY16_LE in system memory
 * only. */
#ifdef HAVE_GST_CUDA_STREAM
#define CF_CUDA_FORMATS_WORDS \
  "P010_10LE, P012_LE, P016_LE, I420_10LE, I420_12LE, Y444_10LE, " \
  "Y444_12LE, Y444_16LE"
#else
#define CF_CUDA_FORMATS_WORDS "P010_10LE, P016_LE, I420_10LE, Y444_16LE"
#endif
#define CF_SYS_FORMATS_WORDS \
  "P010_10LE, P012_LE, P016_LE, I420_10LE, I420_12LE, Y444_10LE, " \
  "Y444_12LE, Y444_16LE, GRAY16_LE"
#define CF_FORMATS_RGB10A2 "BGR10A2_LE, RGB10A2_LE"

GstCaps *gst_cuda_filters_base_make_caps (const gchar * sys_formats,
    const gchar * cuda_formats);

void gst_cuda_filters_base_set_formats (GstStructure * s,
    const gchar * formats);

void gst_cuda_filters_base_plane_extent (const GstVideoInfo * info,
    guint plane, gsize * row_bytes, guint * rows);

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_BASE_H__ */
