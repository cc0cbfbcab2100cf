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
 * the YUV formats, and Y for GRAY8 and GRAY16_LE.
 *
 * Formats of 10 to 16 bits (P010_10LE, P012_LE, P016_LE, I420_10LE,
 * I420_12LE, Y444_10LE, Y444_12LE, Y444_16LE, and GRAY16_LE in system
 * memory; and the packed RGB10A2_LE and BGR10A2_LE, whose R, G and B are
 * counted, not their 2-bit alpha) are counted at their depth d, the caps':
 * a sample's value v runs from 0 to 2^d - 1, wherever its word holds it
 * (P010 at the top, I420_10LE at the bottom).  Values are counted at
 * 2^min(d, 12) levels: the level of v is v >> max(d - 12, 0), which is v
 * itself up to 12 bits.
 * #GstCudaHist:bins splits the levels into equal-width bins: level l
 * falls in bin l * bins / levels.  At 8 bits that is v * bins / 256.
 * Bins are never finer than levels: more bins than levels give one bin a
 * level.  docs/cudahist.md has the table of every format's depth.
 *
 * NVDEC hands out 12-bit 4:2:0 as P016_LE on GStreamer 1.22 and as P012_LE
 * on 1.24+, and 10- and 12-bit 4:4:4 as Y444_16LE: the same stream is
 * counted at d = 16 on one and 12 on the other.  The message says which.
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
 * - `depth` (G_TYPE_UINT): the bits of a sample counted, d above (8 for
 *   the 8-bit formats);
 * - `bins` (G_TYPE_UINT): the number of bins, min(#GstCudaHist:bins,
 *   2^min(d, 12));
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
 * |[
 * gst-launch-1.0 -m filesrc location=hdr10.mkv ! matroskademux ! h265parse ! nvh265dec ! cudahist bins=1024 ! fakesink
 * ]| 1024-bin histograms of a 10-bit HEVC stream, counted in the
 * decoder's P010 frames on the GPU.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudahist.h"

GST_DEBUG_CATEGORY_STATIC (gst_cuda_hist_debug);
#define GST_CAT_DEFAULT gst_cuda_hist_debug

#define DEFAULT_BINS 0
/* counts of a result or total, at most: 4 channels of 256 values at 8
 * bits, 3 of 4096 levels above */
#define N_COUNTS (CF_HIST_WORD_CHANNELS * CF_HIST_MAX_LEVELS)
G_STATIC_ASSERT (N_COUNTS >= CF_HIST_MAX_CHANNELS * CF_HIST_BINS);
/* a result: a header, then the device's sums */
#define DEVICE_OFFSET 16

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
  /* a channel's counts folded into bins, as a message is made (under the
   * results' lock, as fill_structure () runs): kept, not allocated a
   * message */
  guint64 folded[CF_HIST_MAX_LEVELS];
};

G_DEFINE_TYPE (GstCudaHist, gst_cuda_hist, GST_TYPE_CUDA_FILTERS_ANALYSIS);
GST_ELEMENT_REGISTER_DEFINE (cudahist, "cudahist", GST_RANK_NONE,
    GST_TYPE_CUDA_HIST);

/* A frame's result: its depth (a guint32), then from DEVICE_OFFSET on
 * the sums the kernel left, copied from the device by the base class: at
 * 8 bits cf_hist_planes_add()'s (256 counts per channel, in copies), above
 * it cf_hist_word_planes_add()'s (2^min(d, 12) levels per channel).  An
 * interval's total: the counts in 64 bits (levels of 3 channels, or values
 * of 4), exact for any interval: a channel's counts sum to its samples, at
 * most the interval's `pixels`, which the base class keeps within 64 bits
 * (it posts the interval early first), so no bin, folded or not, can
 * overflow.  Bins are folded only when a message is made, so `bins` may
 * change at any time.  The total has room for any depth.  An interval's
 * frames have one depth (new caps end the interval first: the base
 * class's set_info), and only that depth's counts are zeroed and added. */
static gsize
gst_cuda_hist_total_size (GstCudaFiltersAnalysis * analysis,
    const GstVideoInfo * info)
{
  return N_COUNTS * sizeof (guint64);
}

static guint
depth_of_info (const GstVideoInfo * info)
{
  return GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0);
}

/* The 8-bit kernel adds into device memory and has no last block to wait
 * for, which shortens every launch (docs/design/hist.md). */
static gsize
gst_cuda_hist_device_size (GstCudaFiltersAnalysis * analysis,
    const GstVideoInfo * info)
{
  guint depth = depth_of_info (info);

  return depth > 8 ? cf_hist_word_sums_bytes (depth) : cf_hist_sums_bytes ();
}

static CfError
gst_cuda_hist_analyse (GstCudaFiltersAnalysis * analysis,
    const GstCudaFiltersRegion * region, gpointer result, gpointer sums,
    gpointer zero_next, CfStream stream)
{
  *(guint32 *) result = region->depth;
  if (region->depth > 8)
    return cf_hist_word_planes_add (region->words, region->n_planes, sums,
        zero_next, stream);
  return cf_hist_planes_add (region->planes, region->n_planes, sums,
      zero_next, stream);
}

/* the counters of a total: levels per channel and channels, by depth */
static void
count_layout (guint depth, guint * levels, guint * channels)
{
  *levels = depth > 8 ? CF_HIST_LEVELS (depth) : CF_HIST_BINS;
  *channels = depth > 8 ? CF_HIST_WORD_CHANNELS : CF_HIST_MAX_CHANNELS;
}

static void
gst_cuda_hist_accumulate (GstCudaFiltersAnalysis * analysis, gpointer total,
    gconstpointer result, guint frames)
{
  const guint8 *sums = (const guint8 *) result + DEVICE_OFFSET;
  guint depth = *(const guint32 *) result;
  guint64 *sum = total;
  guint levels, channels, i;

  count_layout (depth, &levels, &channels);
  /* (only the counts of this depth: the total has room for 12 bits, and a
   * frame's caps do not change within an interval) */
  if (frames == 0)
    memset (sum, 0, channels * levels * sizeof (guint64));
  if (depth > 8) {
    const guint32 *counts = (const guint32 *) sums;

    for (i = 0; i < channels * levels; i++)
      sum[i] += counts[i];
  } else {
    guint32 counts[CF_HIST_MAX_CHANNELS * CF_HIST_BINS];

    cf_hist_sums_counts (sums, counts);
    for (i = 0; i < channels * levels; i++)
      sum[i] += counts[i];
  }
}

static void
gst_cuda_hist_fill_structure (GstCudaFiltersAnalysis * analysis,
    GstStructure * s, gconstpointer total, guint frames,
    const GstCudaFiltersRegion * region)
{
  GstCudaHist *self = GST_CUDA_HIST (analysis);
  const guint64 *sum = total;
  guint bins, levels, channels, c, l;

  count_layout (region->depth, &levels, &channels);
  GST_OBJECT_LOCK (self);
  bins = self->bins ? self->bins : 1u << MIN (region->depth, 10);
  GST_OBJECT_UNLOCK (self);
  bins = MIN (bins, levels);

  gst_structure_set (s, "depth", G_TYPE_UINT, region->depth, "bins",
      G_TYPE_UINT, bins, NULL);
  for (c = 0; c < region->n_channels; c++) {
    const guint64 *counts = sum + c * levels;

    if (bins < levels) {
      /* level l to bin l * bins / levels, without a division a level:
       * bins <= levels, so the bin moves on by at most one a level */
      guint64 *folded = self->folded;
      guint64 edge = levels, at = 0;    /* (bin + 1) * levels, l * bins */
      guint bin = 0;

      memset (folded, 0, bins * sizeof (guint64));
      for (l = 0; l < levels; l++, at += bins) {
        if (at >= edge) {
          bin++;
          edge += levels;
        }
        folded[bin] += counts[l];
      }
      counts = folded;
    }
    gst_cuda_filters_analysis_take_values (analysis, s,
        region->channel_names[c], G_TYPE_UINT64, bins, counts);
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
   * Equal-width bins over a channel's range: at depth d, level l of the
   * 2^min(d, 12) levels counts in bin l * bins / 2^min(d, 12) (at 8 bits,
   * value v in bin v * bins / 256), and more bins than levels give one bin
   * a level.  0, the default, is 2^min(d, 10): 256 at 8 bits, 1024 from
   * 10 bits on.  May change while playing; the next message uses it.
   */
  g_object_class_install_property (gobject_class, PROP_BINS,
      g_param_spec_uint ("bins", "Bins",
          "Equal-width bins over each channel's range (0: 256 at 8 bits, "
          "1024 at 10 to 16 bits); at most the depth's levels, "
          "2^min(depth, 12)", 0, CF_HIST_MAX_LEVELS, DEFAULT_BINS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          GST_PARAM_CONTROLLABLE | G_PARAM_STATIC_STRINGS));

  gst_cuda_filters_analysis_class_add_pad_templates (analysis_class, TRUE);
  gst_element_class_set_static_metadata (element_class,
      "CUDA histogram", "Filter/Analyzer/Video/Hardware",
      "Posts per-channel histograms of every frame, counted on an NVIDIA GPU",
      "gst-cudafilters developers");

  gst_cuda_filters_analysis_class_set_names (analysis_class, "cudahist",
      "GstCudaHistMeta");
  analysis_class->total_size = gst_cuda_hist_total_size;
  analysis_class->device_size = gst_cuda_hist_device_size;
  analysis_class->analyse = gst_cuda_hist_analyse;
  analysis_class->device_offset = DEVICE_OFFSET;
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
