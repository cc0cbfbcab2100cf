/* GStreamer
 * gst-cudafilters: the base class of the analysis elements (cudahist,
 * cudasum).
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_CUDA_FILTERS_ANALYSIS_H__
#define __GST_CUDA_FILTERS_ANALYSIS_H__

#include "gstcudafiltersbase.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_FILTERS_ANALYSIS (gst_cuda_filters_analysis_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstCudaFiltersAnalysis, gst_cuda_filters_analysis,
    GST, CUDA_FILTERS_ANALYSIS, GstCudaFiltersBase);

/**
 * GstCudaFiltersRegion:
 * @x: @y: @width: @height: the region of interest in pixels, clipped to
 *   the frame
 * @n_channels: channels of the format (R, G, B[, A] or Y[, U, V])
 * @channel_names: their names, in channel order
 * @n_planes: planes holding them
 * @planes: each plane's part of the region, in device memory, with the
 *   channel of each byte of a pixel
 * @pixels: pixels in the region
 * @depth: bits of each sample: 8, or 9 to 16 for the formats of 16-bit
 *   words (#CF_SYS_FORMATS_WORDS), whose planes are in @words instead of
 *   @planes
 * @words: each plane's part of the region, for @depth above 8
 * @rgb10a2: CF_RGB10A2 for RGB10A2_LE, CF_BGR10A2 for BGR10A2_LE (one
 *   plane, in @planes and @words, a plane of packed 10-bit RGB), else 0
 * @is_yuv: whether the channels are Y, U, V
 * @chroma_sub_x: @chroma_sub_y: of YUV, the log2 of the chroma's
 *   subsampling (4:2:0: 1 and 1), 0 otherwise
 *
 * What an analysis reads of one frame.
 */
typedef struct
{
  gint x, y, width, height;
  guint n_channels;
  const gchar *channel_names[CF_HIST_MAX_CHANNELS];
  guint n_planes;
  CfSamplePlane planes[CF_HIST_MAX_PLANES];
  guint64 pixels;
  guint depth;
  CfWordPlane words[CF_HIST_MAX_PLANES];
  gint rgb10a2;
  gboolean is_yuv;
  guint chroma_sub_x, chroma_sub_y;
} GstCudaFiltersRegion;

/**
 * GstCudaFiltersFrameTimes:
 * @pts: @duration: the buffer's
 * @stream_time: @running_time: those of @pts in the segment
 *
 * When a frame is (GST_CLOCK_TIME_NONE: not known).
 */
typedef struct
{
  GstClockTime pts, duration, stream_time, running_time;
} GstCudaFiltersFrameTimes;

/**
 * GstCudaFiltersAnalysisClass:
 * @message_name: name of the element messages posted, e.g. "cudahist"
 * @meta_name: name of the #GstCustomMeta attached with `attach-meta`
 *   (both set with gst_cuda_filters_analysis_class_set_names())
 * @total_size: bytes of an interval's total for frames of @info
 * @device_size: bytes of device memory @analyse adds a frame's result
 *   into, for frames of @info
 * @analyse: enqueue the frame's kernels on @stream; they add the frame's
 *   result into @sums, device memory holding zeros, and zero @zero_next
 *   (another such buffer, for a later frame, of @device_size bytes).
 *   This class then copies @sums into the frame's @result, pinned host
 *   memory of @device_offset + @device_size bytes, from byte
 *   @device_offset on (on a copy stream of its own, so
 *   that the next frame's kernels need not wait for it); what comes
 *   before is the subclass's to fill here.  @accumulate reads it all.
 *   Called with the context current.  Return 0 or the CUDA error.
 * @device_offset: where in a result the device sums are copied
 * @accumulate: add one frame's @result (read once the GPU is done) into
 *   @total; @frames is the number of frames already in it (0: initialise).
 *   Called from any thread, one call at a time.  Sums must stay exact for
 *   any number of frames: what can pass 64 bits is summed in a
 *   #GstCudaFiltersU128.
 * @fill_structure: add the element's own fields for @total (@frames frames
 *   of @region's channels) to @s; long arrays through
 *   gst_cuda_filters_analysis_take_values().  Called one call at a time.
 * @fits: optional: whether @result can be added to @total (of one frame or
 *   more) with every field the message posts still holding its value in
 *   its type (a G_TYPE_UINT64 sum, say).  When not, the interval is posted
 *   as it is, early, and @result starts the next one.  This class checks
 *   its own fields (`frames`, a G_TYPE_UINT, and `pixels`) itself.  Called
 *   with the same rules as @accumulate.
 * @observe: optional: look at every frame's @result once, in stream order,
 *   before anything else reads it (a meta, @accumulate), for what takes
 *   more than one frame to see (events over time).  It may write into
 *   @result, and append element messages to post, or upstream events to
 *   send from the sink pad, to @messages.  Called with the same rules as
 *   @accumulate.
 * @observe_end: optional: the stream ended (EOS), every frame observed:
 *   append the last messages (or upstream events) to @messages.
 * @observe_reset: optional: forget what was observed (a flush, a start).
 *   Called with the same rules as @accumulate.
 *
 * Subclasses hold only their kernels and their results' meaning; this class
 * does the rest: the region of interest, frames in flight while their
 * results are computed, the interval, messages and meta.
 */
struct _GstCudaFiltersAnalysisClass
{
  GstCudaFiltersBaseClass parent_class;

  const gchar *message_name;
  const gchar *meta_name;

    gsize (*total_size) (GstCudaFiltersAnalysis * self,
      const GstVideoInfo * info);
    gsize (*device_size) (GstCudaFiltersAnalysis * self,
      const GstVideoInfo * info);
    CfError (*analyse) (GstCudaFiltersAnalysis * self,
      const GstCudaFiltersRegion * region, gpointer result, gpointer sums,
      gpointer zero_next, CfStream stream);
  gsize device_offset;
  void (*accumulate) (GstCudaFiltersAnalysis * self, gpointer total,
      gconstpointer result, guint frames);
  void (*fill_structure) (GstCudaFiltersAnalysis * self, GstStructure * s,
      gconstpointer total, guint frames, const GstCudaFiltersRegion * region);
  gboolean (*fits) (GstCudaFiltersAnalysis * self, gconstpointer total,
      gconstpointer result);
  void (*observe) (GstCudaFiltersAnalysis * self,
      const GstCudaFiltersFrameTimes * times,
      const GstCudaFiltersRegion * region, gpointer result,
      GPtrArray * messages);
  void (*observe_end) (GstCudaFiltersAnalysis * self, GPtrArray * messages);
  void (*observe_reset) (GstCudaFiltersAnalysis * self);
};

/**
 * GstCudaFiltersU128:
 * @lo: the low 64 bits
 * @hi: the high 64 bits
 *
 * An unsigned 128-bit sum of 64-bit values, for the totals of an interval
 * that can pass 64 bits: a 4K frame adds about 5.4e11 to a channel's sum
 * of squares, which would wrap 64 bits after about 3.4e7 frames, days of
 * video.  Plain C, so that it is exact with any compiler.
 */
typedef struct
{
  guint64 lo, hi;
} GstCudaFiltersU128;

static inline void
gst_cuda_filters_u128_add (GstCudaFiltersU128 * sum, guint64 value)
{
  sum->lo += value;
  sum->hi += sum->lo < value;   /* the carry */
}

gboolean gst_cuda_filters_analysis_interval_fits (guint64 frames,
    guint64 pixels, guint64 frame_pixels);

gdouble gst_cuda_filters_variance_numerator (guint64 n, guint64 sum,
    const GstCudaFiltersU128 * sum_squares);

guint gst_cuda_filters_percentile (const guint64 * counts, guint n_values,
    guint64 n, guint p);

void gst_cuda_filters_analysis_class_add_pad_templates
    (GstCudaFiltersAnalysisClass * klass, gboolean words);

void gst_cuda_filters_analysis_class_set_names (GstCudaFiltersAnalysisClass *
    klass, const gchar * message_name, const gchar * meta_name);

void gst_cuda_filters_structure_take_array (GstStructure * s,
    const gchar * name, GType type, guint n, gconstpointer values);

/**
 * GstCudaFiltersArrayFormat:
 * @GST_CUDA_FILTERS_ARRAY_FORMAT_VALUE_ARRAY: a #GstValueArray, one #GValue
 *   a value
 * @GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER: a #GstBuffer of the values packed
 *   in the machine's byte order
 *
 * How an analysis element posts its long arrays: cudahist's counts,
 * cudasum's profiles.
 */
typedef enum
{
  GST_CUDA_FILTERS_ARRAY_FORMAT_VALUE_ARRAY,
  GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER,
} GstCudaFiltersArrayFormat;

#define GST_TYPE_CUDA_FILTERS_ARRAY_FORMAT \
  (gst_cuda_filters_array_format_get_type ())
GType gst_cuda_filters_array_format_get_type (void);

/**
 * GstCudaFiltersValueBuffers:
 *
 * The last buffers an element allocated for its long arrays (format
 * `buffer`), kept so that one whose message or meta is gone, held by
 * nothing but this (nor its memory by anyone), is filled again instead of
 * a new buffer being allocated for each array of each message.  Filled by
 * one thread at a time; zero-initialised before use, emptied by
 * gst_cuda_filters_value_buffers_clear().
 */
#define GST_CUDA_FILTERS_VALUE_BUFFERS 16

typedef struct
{
  GstBuffer *buffers[GST_CUDA_FILTERS_VALUE_BUFFERS];
  /* the one let go when none can be filled again */
  guint next;
} GstCudaFiltersValueBuffers;

void gst_cuda_filters_value_buffers_clear (GstCudaFiltersValueBuffers *
    reuse);

void gst_cuda_filters_structure_take_values (GstStructure * s,
    const gchar * name, GType type, guint n, gconstpointer values,
    GstCudaFiltersArrayFormat format, GstCudaFiltersValueBuffers * reuse);

void gst_cuda_filters_analysis_take_values (GstCudaFiltersAnalysis * self,
    GstStructure * s, const gchar * name, GType type, guint n,
    gconstpointer values);

void gst_cuda_filters_structure_set_common (GstStructure * s,
    GstClockTime pts, GstClockTime stream_time, GstClockTime running_time,
    GstClockTime duration, guint frames, guint64 pixels,
    const GstCudaFiltersRegion * region);

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_ANALYSIS_H__ */
