/* GStreamer
 * gst-cudafilters: cudahist
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-cudahist
 * @title: cudahist
 *
 * Histograms of every channel of every frame, counted on the GPU, posted
 * as element messages.  Frames pass through untouched: in system memory
 * they are uploaded once and never downloaded; in CUDA memory (from
 * cudaupload, nvh264dec or another CUDA element) they are read in place.
 * The frame is pushed on while its histogram is counted; the message
 * follows when the count is done.
 *
 * Channels are R, G, B and A for packed RGB formats, whatever their byte
 * order (the padding byte of the x-formats is not counted), Y, U and V for
 * I420, NV12 and Y444, and Y for GRAY8.  #GstCudaHist:bins splits 0-255
 * into equal-width bins: value v falls in bin v * bins / 256.
 *
 * The message is an element message named `cudahist` whose structure has:
 *
 * - `timestamp`, `stream-time`, `running-time` (G_TYPE_UINT64): the time
 *   of the first frame summed, as a buffer timestamp, in stream time and
 *   in running time;
 * - `duration` (G_TYPE_UINT64): from the first frame's start to the last
 *   frame's end;
 * - `frames` (G_TYPE_UINT): frames summed; `pixels` (G_TYPE_UINT64):
 *   pixels of the region summed over them;
 * - `channels` (GstValueArray of G_TYPE_STRING): the channels' names;
 * - `bins` (G_TYPE_UINT): the number of bins;
 * - one field per channel, named by the channel (`R`, `Y`, ...): its
 *   counts, a GstValueArray of `bins` G_TYPE_UINT64 (or, with
 *   #GstCudaFiltersAnalysis:array-format `buffer`, a GstBuffer of `bins`
 *   guint64 in the machine's byte order).  The counts of a
 *   full-resolution channel sum to `pixels`; subsampled chroma counts every
 *   chroma sample that covers part of the region.
 *
 * With #GstCudaFiltersAnalysis:interval a message sums the frames of that
 * much stream time; the last, partial interval is posted at EOS.  A
 * message holds at most 4294967295 frames (`frames` is a G_TYPE_UINT): an
 * interval that long is posted early, and the next goes on.  With
 * #GstCudaFiltersAnalysis:attach-meta each frame also carries its own
 * histogram as a #GstCustomMeta named `GstCudaHistMeta` with the same
 * fields.  See docs/cudahist.md for reading them from C and Python.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=3 ! video/x-raw,format=RGBA ! cudahist bins=16 ! fakesink
 * ]| Print the 16-bin histograms of three frames.
 * |[
 * gst-launch-1.0 -m uridecodebin uri=file:///path/to/video.mp4 ! cudahist interval=1000000000 ! fakesink
 * ]| One message per second of a decoded file, in CUDA memory when the
 * decoder is nvcodec's.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudahist.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_hist_debug);
#define GST_CAT_DEFAULT gst_cuda_hist_debug

#define DEFAULT_BINS 256
#define N_COUNTS (CF_HIST_MAX_CHANNELS * CF_HIST_BINS)

enum
{
  PROP_0,
  PROP_BINS,
};

struct _GstCudaHist
{
  GstCudaFiltersAnalysis parent;

  /* under the object lock */
  guint bins;
};

G_DEFINE_TYPE (GstCudaHist, gst_cuda_hist, GST_TYPE_CUDA_FILTERS_ANALYSIS);
GST_ELEMENT_REGISTER_DEFINE (cudahist, "cudahist", GST_RANK_NONE,
    GST_TYPE_CUDA_HIST);

/* A frame's result: the sums cf_hist_planes_add() leaves (copies of 256
 * counts per channel), copied from the device by the base class.  An
 * interval's total: the counts in 64 bits, exact for any interval: a
 * channel's counts sum to its samples, at most the interval's `pixels`,
 * which the base class keeps within 64 bits (it posts the interval early
 * first), so no bin, folded or not, can overflow.  Bins are folded only
 * when a message is made, so `bins` may change at any time. */
static gsize
gst_cuda_hist_total_size (GstCudaFiltersAnalysis * analysis,
    const GstVideoInfo * info)
{
  return N_COUNTS * sizeof (guint64);
}

/* The kernel adds into device memory and has no last block to wait for,
 * which shortens every launch (docs/design/hist.md). */
static gsize
gst_cuda_hist_device_size (GstCudaFiltersAnalysis * analysis,
    const GstVideoInfo * info)
{
  return cf_hist_sums_bytes ();
}

static CfError
gst_cuda_hist_analyse (GstCudaFiltersAnalysis * analysis,
    const GstCudaFiltersRegion * region, gpointer result, gpointer sums,
    gpointer zero_next, CfStream stream)
{
  return cf_hist_planes_add (region->planes, region->n_planes, sums,
      zero_next, stream);
}

static void
gst_cuda_hist_accumulate (GstCudaFiltersAnalysis * analysis, gpointer total,
    gconstpointer result, guint frames)
{
  guint64 *sum = total;
  guint32 counts[N_COUNTS];
  guint i;

  cf_hist_sums_counts (result, counts);
  for (i = 0; i < N_COUNTS; i++)
    sum[i] = (frames ? sum[i] : 0) + counts[i];
}

static void
gst_cuda_hist_fill_structure (GstCudaFiltersAnalysis * analysis,
    GstStructure * s, gconstpointer total, guint frames,
    const GstCudaFiltersRegion * region)
{
  GstCudaHist *self = GST_CUDA_HIST (analysis);
  const guint64 *sum = total;
  GstCudaFiltersArrayFormat format =
      gst_cuda_filters_analysis_get_array_format (analysis);
  guint bins, c, v;

  GST_OBJECT_LOCK (self);
  bins = self->bins;
  GST_OBJECT_UNLOCK (self);

  gst_structure_set (s, "bins", G_TYPE_UINT, bins, NULL);
  for (c = 0; c < region->n_channels; c++) {
    guint64 folded[CF_HIST_BINS] = { 0, };

    for (v = 0; v < CF_HIST_BINS; v++)
      folded[v * bins / CF_HIST_BINS] += sum[c * CF_HIST_BINS + v];
    gst_cuda_filters_structure_take_values (s, region->channel_names[c],
        G_TYPE_UINT64, bins, folded, format);
  }
}

static void
gst_cuda_hist_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaHist *self = GST_CUDA_HIST (object);

  switch (prop_id) {
    case PROP_BINS:
      GST_OBJECT_LOCK (self);
      self->bins = g_value_get_uint (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_hist_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaHist *self = GST_CUDA_HIST (object);

  switch (prop_id) {
    case PROP_BINS:
      GST_OBJECT_LOCK (self);
      g_value_set_uint (value, self->bins);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_hist_class_init (GstCudaHistClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCudaFiltersAnalysisClass *analysis_class =
      GST_CUDA_FILTERS_ANALYSIS_CLASS (klass);

  gobject_class->set_property = gst_cuda_hist_set_property;
  gobject_class->get_property = gst_cuda_hist_get_property;

  /**
   * GstCudaHist:bins:
   *
   * Equal-width bins over 0-255 per channel: value v counts in bin
   * v * bins / 256.  May change while playing; the next message uses it.
   */
  g_object_class_install_property (gobject_class, PROP_BINS,
      g_param_spec_uint ("bins", "Bins",
          "Equal-width bins over 0-255 per channel", 1, CF_HIST_BINS,
          DEFAULT_BINS, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          GST_PARAM_CONTROLLABLE | G_PARAM_STATIC_STRINGS));

  gst_cuda_filters_analysis_class_add_pad_templates (analysis_class);
  gst_element_class_set_static_metadata (element_class,
      "CUDA histogram", "Filter/Analyzer/Video/Hardware",
      "Posts per-channel histograms of every frame, counted on an NVIDIA GPU",
      "gst-cudafilters developers");

  gst_cuda_filters_analysis_class_set_names (analysis_class, "cudahist",
      "GstCudaHistMeta");
  analysis_class->total_size = gst_cuda_hist_total_size;
  analysis_class->device_size = gst_cuda_hist_device_size;
  analysis_class->analyse = gst_cuda_hist_analyse;
  analysis_class->accumulate = gst_cuda_hist_accumulate;
  analysis_class->fill_structure = gst_cuda_hist_fill_structure;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_hist_debug, "cudahist", 0,
      "CUDA histogram");
}

static void
gst_cuda_hist_init (GstCudaHist * self)
{
  self->bins = DEFAULT_BINS;
}
