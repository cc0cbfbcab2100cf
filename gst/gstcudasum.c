/* GStreamer
 * gst-cudafilters: cudasum
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-cudasum
 * @title: cudasum
 *
 * Statistics of every channel of every frame, summed on the GPU in one
 * pass, posted as element messages named `cudasum`: the sum, mean,
 * minimum, maximum and standard deviation of each channel (`sum`, `mean`,
 * `min`, `max`, `stddev`, one entry per channel in the order of
 * `channels`), optionally its 10th, 50th and 90th percentiles (`low`,
 * `median`, `high`) and the row and column means of the region's luma
 * (`row-means`, `column-means`), besides the fields every analysis
 * message has (see #cudahist).  Frames pass through untouched, and the
 * message follows when the GPU is done.
 *
 * Luma is the Y plane of YUV formats and GRAY8, and for RGB formats
 * (19595 R + 38470 G + 7471 B + 32768) >> 16.
 *
 * Formats of 10 to 16 bits in 16-bit words (P010_10LE, P012_LE, P016_LE,
 * I420_10LE, I420_12LE, Y444_10LE, Y444_12LE, Y444_16LE, and GRAY16_LE in
 * system memory; #cudahist lists their depths) are taken too: `depth`
 * gives the bits of a sample d, and the statistics are in the sample's
 * units, 0 to 2^d - 1, the percentiles over 2^min(d, 12) levels (the
 * lowest value of the level).  The profiles and the detectors work on the
 * luma at 8 bits, v >> (d - 8), so that their fields and thresholds are
 * in 8-bit units at every depth.  With #GstCudaSum:detect:
 *
 * - `crop`: `crop-x`, `crop-y`, `crop-width`, `crop-height`, the rectangle
 *   of the rows and columns whose mean luma is above
 *   #GstCudaSum:black-threshold, and the stable crop (`stable-crop-*`);
 * - `black`: `black-ratio`, the share of pixels whose luma is at or under
 *   #GstCudaSum:black-threshold;
 * - `cut` or `freeze`: `frame-diff`, the mean absolute luma difference
 *   from the previous frame, and with `cut` `hist-diff`, the change of the
 *   luma histogram.
 *
 * Over time they post events as element messages (docs/qc.md):
 * `cudasum-scene-cut`, `cudasum-black-start` and `-end`,
 * `cudasum-freeze-start` and `-end`, `cudasum-crop-changed`, with the
 * `frame`, `timestamp`, `stream-time` and `running-time` of each.  With
 * #GstCudaFiltersAnalysis:interval a message sums that much stream time,
 * exactly; with #GstCudaFiltersAnalysis:attach-meta each frame carries its
 * own statistics as a #GstCustomMeta, `GstCudaSumMeta` (docs/cudasum.md).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 -m videotestsrc num-buffers=3 ! video/x-raw,format=NV12 ! cudasum percentiles=true ! fakesink
 * ]| Print the statistics of three frames.
 * |[
 * gst-launch-1.0 -m uridecodebin uri=file:///path/to/video.mp4 ! cudasum detect=crop interval=1000000000 ! fakesink
 * ]| Print the black-border rectangle of every second of a file.
 * |[
 * gst-launch-1.0 -m uridecodebin uri=file:///path/to/video.mp4 ! cudasum detect=cut+black+freeze+crop post-messages=false ! fakesink
 * ]| Print the scene cuts, black and freeze segments and crop changes.
 * |[
 * gst-launch-1.0 -m filesrc location=hdr10.mkv ! matroskademux ! h265parse ! nvh265dec ! cudasum percentiles=true detect=black ! fakesink
 * ]| The 10-bit statistics and black frames of an HEVC Main10 stream, in
 * the decoder's P010 frames on the GPU.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasum.h"
#include "gstcudasumdetect.h"
#include "gstcudasumresult.h"

#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_sum_debug);
#define GST_CAT_DEFAULT gst_cuda_sum_debug

#define DEFAULT_PERCENTILES FALSE
#define DEFAULT_PROFILES FALSE
#define DEFAULT_DETECT 0
#define DEFAULT_BLACK_THRESHOLD 24

enum
{
  PROP_0,
  PROP_PERCENTILES,
  PROP_PROFILES,
  PROP_DETECT,
  PROP_BLACK_THRESHOLD,
  PROP_DETECT_FIRST,            /* the detectors' settings from here on */
};

struct _GstCudaSum
{
  GstCudaFiltersAnalysis parent;

  /* properties, under the object lock */
  gboolean percentiles;
  gboolean profiles;
  guint detect;
  guint black_threshold;
  CfDetectSettings detect_settings;

  /* the detectors, and a frame's events: the results' worker's */
  CfDetect *detector;
  GArray *events;
  guint key_units;              /* force-key-unit events sent */

  /* streaming thread */
  gint frame_width, frame_height;
  /* the scratch memory laid out for frame_width x frame_height */
  gpointer scratch;
  gsize scratch_size;
  /* the luma kept in scratch memory for `cut` is that of this region */
  gboolean previous_valid;
  gint previous_x, previous_y, previous_width, previous_height;
};

G_DEFINE_TYPE (GstCudaSum, gst_cuda_sum, GST_TYPE_CUDA_FILTERS_ANALYSIS);
GST_ELEMENT_REGISTER_DEFINE (cudasum, "cudasum", GST_RANK_NONE,
    GST_TYPE_CUDA_SUM);

#define SCRATCH_ALIGN 256

/* Device scratch memory: the luma of the previous frame, at 8 bits (for
 * frames of up to width x height), and above 8 bits, after it, this
 * frame's, for the profiles and detectors (cf_sum_word_planes_add). */
static gsize
previous_pitch (gint width)
{
  return GST_ROUND_UP_16 ((gsize) width);
}

static gsize
scratch_bytes (gint width, gint height, guint depth)
{
  return previous_pitch (width) * height * (depth > 8 ? 2 : 1);
}

/* The device sums of a frame of up to width x height: cf_sum_planes_add's,
 * then cf_hist_planes_add's at hist_sums_offset (for the percentiles), and
 * at + hist_sums_bytes the luma's counts (CF_SUM_HIST, for the scene
 * cuts).  Above 8 bits the percentiles' counts are
 * cf_hist_word_planes_add's, and cf_sum_word_planes_add's statistics
 * follow at word_sums_offset. */
static gsize
hist_sums_offset (gint width, gint height)
{
  return GST_ROUND_UP_N (cf_sum_workspace_bytes (width, height), SCRATCH_ALIGN);
}

static gsize
hist_sums_bytes (guint depth)
{
  return GST_ROUND_UP_16 (depth > 8 ? cf_hist_word_sums_bytes (depth) :
      cf_hist_sums_bytes ());
}

static gsize
word_sums_offset (gint width, gint height, guint depth)
{
  return hist_sums_offset (width, height) + hist_sums_bytes (depth) +
      GST_ROUND_UP_16 (sizeof (guint32) * CF_HIST_BINS);
}

static gsize
device_sums_bytes (gint width, gint height, guint depth)
{
  return word_sums_offset (width, height, depth) + (depth > 8 ?
      cf_sum_word_sums_bytes () : 0);
}

static guint
depth_of_info (const GstVideoInfo * info)
{
  return GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 0);
}

/* The kernels add into device memory and have no last block to wait for,
 * which shortens every launch of the statistics (docs/design/sum.md). */
static gsize
gst_cuda_sum_device_size (GstCudaFiltersAnalysis * analysis,
    const GstVideoInfo * info)
{
  return device_sums_bytes (GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), depth_of_info (info));
}

static gsize
gst_cuda_sum_total_size (GstCudaFiltersAnalysis * analysis,
    const GstVideoInfo * info)
{
  return sizeof (SumTotal) + sizeof (guint64) *
      ((gsize) GST_VIDEO_INFO_WIDTH (info) + GST_VIDEO_INFO_HEIGHT (info));
}

static gboolean
gst_cuda_sum_set_info (GstCudaFiltersBase * base, const GstVideoInfo * in_info,
    const GstVideoInfo * out_info)
{
  GstCudaSum *self = GST_CUDA_SUM (base);

  self->frame_width = GST_VIDEO_INFO_WIDTH (in_info);
  self->frame_height = GST_VIDEO_INFO_HEIGHT (in_info);
  self->previous_valid = FALSE;
  return GST_CUDA_FILTERS_BASE_CLASS (gst_cuda_sum_parent_class)->set_info
      (base, in_info, out_info);
}

/* The key the kernel sums for the profiles and detectors: Y, or the luma of
 * packed RGB; above 8 bits Y at 8 bits, a plane of bytes. */
static void
luma_weights (const GstCudaFiltersRegion * region, guint32 weights[4])
{
  const CfSamplePlane *p0 = &region->planes[0];
  CfGrayWeights w = cf_gray_weights (CF_GRAY_MATRIX_BT601);
  gint b;

  memset (weights, 0, 4 * sizeof (guint32));
  if (p0->bytes_per_pixel == 1 || region->depth > 8) {
    weights[0] = 65536;
    return;
  }
  for (b = 0; b < p0->bytes_per_pixel; b++) {
    /* channels 0, 1, 2 of an RGB format are R, G, B whatever their order */
    switch (p0->channel[b]) {
      case 0:
        weights[b] = w.kr;
        break;
      case 1:
        weights[b] = w.kg;
        break;
      case 2:
        weights[b] = w.kb;
        break;
      default:
        break;
    }
  }
}

static CfError
gst_cuda_sum_analyse (GstCudaFiltersAnalysis * analysis,
    const GstCudaFiltersRegion * region, gpointer result, gpointer sums,
    gpointer zero_next, CfStream stream)
{
  GstCudaSum *self = GST_CUDA_SUM (analysis);
  SumResult *r = result;
  gboolean percentiles, profiles;
  guint detect, black_threshold, p, b;
  /* (never 0 bytes: a scratch of none is no scratch) */
  gsize size = MAX (scratch_bytes (self->frame_width, self->frame_height,
          region->depth), 16);
  gsize device_bytes = device_sums_bytes (self->frame_width,
      self->frame_height, region->depth);
  guint8 *scratch;
  CfSumKey key = { 0, };
  CfError err;

  GST_OBJECT_LOCK (self);
  percentiles = self->percentiles;
  profiles = self->profiles;
  detect = self->detect;
  black_threshold = self->black_threshold;
  GST_OBJECT_UNLOCK (self);

  scratch = gst_cuda_filters_base_get_scratch (GST_CUDA_FILTERS_BASE (self),
      size);
  if (!scratch)
    return CF_ERROR_MEMORY_ALLOCATION;
  if (scratch != self->scratch || size != self->scratch_size) {
    /* new memory, or a new layout of it (the caps changed): there is no
     * previous luma */
    err = cf_fill_plane (scratch, size, size, 1, 0, stream);
    if (err != 0)
      return err;
    self->scratch = scratch;
    self->scratch_size = size;
    self->previous_valid = FALSE;
  }

  memset (r, 0, sizeof (*r));
  r->depth = region->depth;
  r->hist_offset = hist_sums_offset (self->frame_width, self->frame_height);
  r->luma_hist_offset = r->hist_offset + hist_sums_bytes (region->depth);
  r->word_offset = word_sums_offset (self->frame_width, self->frame_height,
      region->depth);
  r->black_threshold = black_threshold;
  r->detect = detect;
  r->x = region->x;
  r->y = region->y;
  r->width = region->width;
  r->height = region->height;
  for (p = 0; p < region->n_planes; p++) {
    const CfSamplePlane *pl = &region->planes[p];
    for (b = 0; b < (guint) pl->bytes_per_pixel && b < 4; b++) {
      if (pl->channel[b] >= 0)
        r->samples[pl->channel[b]] += (guint64) pl->width * pl->height;
    }
  }

  if (percentiles)
    r->has |= HAS_HISTOGRAM;
  if (profiles)
    r->has |= HAS_PROFILES;
  if (detect & GST_CUDA_SUM_DETECT_CROP)
    r->has |= HAS_CROP;
  if (detect & GST_CUDA_SUM_DETECT_BLACK)
    r->has |= HAS_BLACK;
  if (r->has & (HAS_PROFILES | HAS_CROP))
    key.flags |= CF_SUM_PROFILES;
  if (r->has & (HAS_BLACK | HAS_CROP))  /* crop: a black frame has none */
    key.flags |= CF_SUM_BLACK;
  if (detect & GST_CUDA_SUM_DETECT_CUT) {
    r->has |= HAS_LUMA_HISTOGRAM;
    key.flags |= CF_SUM_HIST;
  }
  if (detect & (GST_CUDA_SUM_DETECT_CUT | GST_CUDA_SUM_DETECT_FREEZE)) {
    gboolean same_region = self->previous_valid &&
        self->previous_x == region->x && self->previous_y == region->y &&
        self->previous_width == region->width &&
        self->previous_height == region->height;

    r->has |= HAS_CUT;
    key.flags |= CF_SUM_KEEP;
    if (same_region) {
      r->has |= HAS_DIFF;
      key.flags |= CF_SUM_DIFF;
    }
    self->previous_valid = TRUE;
    self->previous_x = region->x;
    self->previous_y = region->y;
    self->previous_width = region->width;
    self->previous_height = region->height;
  } else {
    self->previous_valid = FALSE;
  }
  luma_weights (region, key.weights);
  key.black_threshold = (int) black_threshold;
  key.previous = scratch;
  key.previous_pitch = previous_pitch (self->frame_width);
  key.key_counts = (guint32 *) ((guint8 *) sums + r->luma_hist_offset);

  /* The histogram first: its ordinary loads leave the end of the frame
   * in L2 for the statistics' pass (which, with luma features, reads
   * with evict-first loads and would leave little of it the other way
   * round), so this order is the quicker one (docs/design/sum.md).  The
   * statistics' launch zeroes all of the next frame's sums, the
   * histograms' too (whether or not this frame counts them). */
  err = 0;
  if (region->depth > 8) {
    /* the statistics of the words, writing the luma at 8 bits for the
     * profiles and detectors, which then read it as a GRAY8 frame */
    guint8 *key8 = key.flags ? scratch + size / 2 : NULL;

    if (percentiles)
      err = cf_hist_word_planes_add (region->words, (int) region->n_planes,
          (guint8 *) sums + r->hist_offset, NULL, stream);
    if (err == 0)
      err = cf_sum_word_planes_add (region->words, (int) region->n_planes,
          (guint8 *) sums + r->word_offset, key8, key.previous_pitch,
          zero_next, device_bytes, stream);
    if (err == 0 && key8) {
      CfSamplePlane key8_plane = { key8, key.previous_pitch, region->width,
        region->height, 1, {0, -1, -1, -1}
      };

      err = cf_sum_planes_add (&key8_plane, 1, &key, sums, NULL, 0, stream);
    }
  } else {
    if (percentiles)
      err = cf_hist_planes_add (region->planes, (int) region->n_planes,
          (guint8 *) sums + r->hist_offset, NULL, stream);
    if (err == 0)
      err = cf_sum_planes_add (region->planes, (int) region->n_planes, &key,
          sums, zero_next, device_bytes, stream);
  }
  if (err != 0)
    self->previous_valid = FALSE;
  return err;
}

static void
detect_settings (GstCudaSum * self, guint detect, CfDetectSettings * settings)
{
  GST_OBJECT_LOCK (self);
  *settings = self->detect_settings;
  cf_detect_settings_enable (settings, detect);
  GST_OBJECT_UNLOCK (self);
}

/* Every frame in order, before its result is read: what the detectors
 * see in it goes into the result (for its message and meta), and the
 * events it shows into element messages. */
static void
gst_cuda_sum_observe (GstCudaFiltersAnalysis * analysis,
    const GstCudaFiltersFrameTimes * times,
    const GstCudaFiltersRegion * region, gpointer result, GPtrArray * messages)
{
  GstCudaSum *self = GST_CUDA_SUM (analysis);
  SumResult *r = result;
  CfDetectSettings settings;
  CfDetectInput in = { 0 };
  CfSumStats stats;
  const guint32 *rows = cf_sum_sums_read (result_sums (r), &stats);

  detect_settings (self, r->detect, &settings);
  settings.black_threshold = r->black_threshold;
  in.times = cf_detect_times (times->pts, times->duration,
      times->stream_time, times->running_time);
  in.x = r->x;
  in.y = r->y;
  in.width = r->width;
  in.height = r->height;
  in.has_diff = (r->has & HAS_DIFF) != 0;
  in.abs_diff = stats.abs_diff;
  in.has_black = (r->has & (HAS_BLACK | HAS_CROP)) != 0;
  in.black = stats.black;
  if (r->has & HAS_LUMA_HISTOGRAM)
    in.luma_counts = (const guint32 *) (result_sums (r) + r->luma_hist_offset);
  in.rows = (r->has & HAS_CROP) ? rows : NULL;

  g_array_set_size (self->events, 0);
  cf_detect_push (self->detector, &settings, &in, &r->seen, self->events);
  cf_detect_event_messages (GST_OBJECT (self), self->events, &settings,
      &self->key_units, messages);
}

static void
gst_cuda_sum_observe_end (GstCudaFiltersAnalysis * analysis,
    GPtrArray * messages)
{
  GstCudaSum *self = GST_CUDA_SUM (analysis);
  CfDetectSettings settings;

  /* (a frame is a cut candidate only with cuts on) */
  detect_settings (self, G_MAXUINT, &settings);
  g_array_set_size (self->events, 0);
  cf_detect_finish (self->detector, &settings, self->events);
  cf_detect_event_messages (GST_OBJECT (self), self->events, &settings,
      &self->key_units, messages);
}

static void
gst_cuda_sum_observe_reset (GstCudaFiltersAnalysis * analysis)
{
  cf_detect_reset (GST_CUDA_SUM (analysis)->detector);
  GST_CUDA_SUM (analysis)->key_units = 0;
}

static gboolean
gst_cuda_sum_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaSum *self = GST_CUDA_SUM (trans);

  /* after a flush (a seek) the next frame is not the one kept */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    self->previous_valid = FALSE;
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_sum_parent_class)->sink_event
      (trans, event);
}

static gboolean
gst_cuda_sum_start (GstBaseTransform * trans)
{
  GstCudaSum *self = GST_CUDA_SUM (trans);

  self->previous_valid = FALSE;
  self->scratch = NULL;
  self->scratch_size = 0;
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_sum_parent_class)->start (trans);
}

/* The base class is about to free the scratch memory (stop, or another
 * context). */
static void
gst_cuda_sum_release (GstCudaFiltersBase * base, gboolean can_free)
{
  GstCudaSum *self = GST_CUDA_SUM (base);

  self->scratch = NULL;
  self->scratch_size = 0;
  self->previous_valid = FALSE;
  GST_CUDA_FILTERS_BASE_CLASS (gst_cuda_sum_parent_class)->release (base,
      can_free);
}

static void
gst_cuda_sum_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaSum *self = GST_CUDA_SUM (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PERCENTILES:
      self->percentiles = g_value_get_boolean (value);
      break;
    case PROP_PROFILES:
      self->profiles = g_value_get_boolean (value);
      break;
    case PROP_DETECT:
      self->detect = g_value_get_flags (value);
      break;
    case PROP_BLACK_THRESHOLD:
      self->black_threshold = g_value_get_uint (value);
      break;
    default:
      if (prop_id >= PROP_DETECT_FIRST &&
          prop_id < PROP_DETECT_FIRST + CF_DETECT_N_PROPERTIES)
        cf_detect_set_property (&self->detect_settings,
            prop_id - PROP_DETECT_FIRST, value);
      else
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_sum_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaSum *self = GST_CUDA_SUM (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_PERCENTILES:
      g_value_set_boolean (value, self->percentiles);
      break;
    case PROP_PROFILES:
      g_value_set_boolean (value, self->profiles);
      break;
    case PROP_DETECT:
      g_value_set_flags (value, self->detect);
      break;
    case PROP_BLACK_THRESHOLD:
      g_value_set_uint (value, self->black_threshold);
      break;
    default:
      if (prop_id >= PROP_DETECT_FIRST &&
          prop_id < PROP_DETECT_FIRST + CF_DETECT_N_PROPERTIES)
        cf_detect_get_property (&self->detect_settings,
            prop_id - PROP_DETECT_FIRST, value);
      else
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_sum_finalize (GObject * object)
{
  GstCudaSum *self = GST_CUDA_SUM (object);

  cf_detect_free (self->detector);
  g_array_unref (self->events);
  G_OBJECT_CLASS (gst_cuda_sum_parent_class)->finalize (object);
}

static void
gst_cuda_sum_class_init (GstCudaSumClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaFiltersBaseClass *base_class = GST_CUDA_FILTERS_BASE_CLASS (klass);
  GstCudaFiltersAnalysisClass *analysis_class =
      GST_CUDA_FILTERS_ANALYSIS_CLASS (klass);
  GParamFlags flags = G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
      G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_cuda_sum_set_property;
  gobject_class->get_property = gst_cuda_sum_get_property;
  gobject_class->finalize = gst_cuda_sum_finalize;

  /**
   * GstCudaSum:percentiles:
   *
   * Adds `low`, `median` and `high`, the 10th, 50th and 90th percentiles
   * of each channel, from a histogram counted by #cudahist's kernel (a
   * second pass over the frame).
   */
  g_object_class_install_property (gobject_class, PROP_PERCENTILES,
      g_param_spec_boolean ("percentiles", "Percentiles",
          "Post the 10th, 50th and 90th percentiles of each channel",
          DEFAULT_PERCENTILES, flags));

  /**
   * GstCudaSum:profiles:
   *
   * Adds `row-means` and `column-means`, the mean luma of every row and
   * column of the region: GstValueArrays of G_TYPE_DOUBLE, or with
   * #GstCudaFiltersAnalysis:array-format `buffer` GstBuffers of gdouble.
   */
  g_object_class_install_property (gobject_class, PROP_PROFILES,
      g_param_spec_boolean ("profiles", "Profiles",
          "Post the mean luma of every row and column", DEFAULT_PROFILES,
          flags));

  /**
   * GstCudaSum:detect:
   *
   * The detectors to run: `crop` (black borders, stable crop), `black`
   * (black pixels, segments), `cut` (difference, scene cuts), `freeze`.
   */
  g_object_class_install_property (gobject_class, PROP_DETECT,
      g_param_spec_flags ("detect", "Detect", "Detectors to run",
          GST_TYPE_CUDA_SUM_DETECT, DEFAULT_DETECT, flags));

  /**
   * GstCudaSum:black-threshold:
   *
   * Luma at or under which a pixel is black (`black`), and a row or column
   * of the border is black when its mean luma is (`crop`).  In 8-bit
   * units at every depth: the luma of a high-bit format at 8 bits,
   * v >> (depth - 8), is compared with it.
   */
  g_object_class_install_property (gobject_class, PROP_BLACK_THRESHOLD,
      g_param_spec_uint ("black-threshold", "Black threshold",
          "Luma at or under which a pixel, row or column is black, in 8-bit "
          "units at every depth", 0, 255,
          DEFAULT_BLACK_THRESHOLD, flags | GST_PARAM_CONTROLLABLE));

  cf_detect_install_properties (gobject_class, PROP_DETECT_FIRST);

  gst_cuda_filters_analysis_class_add_pad_templates (analysis_class, TRUE);
  gst_element_class_set_static_metadata (element_class,
      "CUDA statistics", "Filter/Analyzer/Video/Hardware",
      "Posts per-channel statistics, luma profiles, black borders, black "
      "frames and scene cuts of every frame, summed on an NVIDIA GPU",
      "gst-cudafilters developers");

  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_cuda_sum_sink_event);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_sum_start);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_sum_set_info);
  base_class->release = GST_DEBUG_FUNCPTR (gst_cuda_sum_release);

  gst_cuda_filters_analysis_class_set_names (analysis_class, "cudasum",
      "GstCudaSumMeta");
  analysis_class->total_size = gst_cuda_sum_total_size;
  analysis_class->device_size = gst_cuda_sum_device_size;
  analysis_class->analyse = gst_cuda_sum_analyse;
  analysis_class->device_offset = DEVICE_OFFSET;
  analysis_class->accumulate = gst_cuda_sum_accumulate;
  analysis_class->fill_structure = gst_cuda_sum_fill_structure;
  analysis_class->fits = gst_cuda_sum_fits;
  analysis_class->observe = gst_cuda_sum_observe;
  analysis_class->observe_end = gst_cuda_sum_observe_end;
  analysis_class->observe_reset = gst_cuda_sum_observe_reset;

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_SUM_DETECT, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_sum_debug, "cudasum", 0, "CUDA statistics");
}

static void
gst_cuda_sum_init (GstCudaSum * self)
{
  self->percentiles = DEFAULT_PERCENTILES;
  self->profiles = DEFAULT_PROFILES;
  self->detect = DEFAULT_DETECT;
  self->black_threshold = DEFAULT_BLACK_THRESHOLD;
  cf_detect_settings_init (&self->detect_settings);
  self->detector = cf_detect_new ();
  self->events = g_array_new (FALSE, FALSE, sizeof (CfDetectEvent));
}
