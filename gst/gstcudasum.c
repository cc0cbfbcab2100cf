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
 * system memory; #cudahist lists their depths) are taken too, and the
 * packed RGB10A2_LE and BGR10A2_LE (R, G and B; not the 2-bit alpha):
 * `depth` gives the bits of a sample d, and the statistics are in the
 * sample's units, 0 to 2^d - 1, the percentiles over 2^min(d, 12) levels
 * (the lowest value of the level).  The profiles and the detectors work on
 * the luma at 8 bits, v >> (d - 8) (of packed 10-bit RGB, its luma as
 * above, from 10 bits, rounded to 8: (l + 2) >> 2 at most 255), so that
 * their fields and thresholds are in 8-bit units at every depth.  With
 * #GstCudaSum:light-levels, PQ (HDR10) and HLG video of 10 to 16 bits in
 * Y'CbCr, or in packed 10-bit RGB, adds its light levels in cd/m2:
 * `max-light`, `average-light`, `max-cll` and `max-fall` (HLG's on a
 * display of #GstCudaSum:hlg-peak).  With
 * #GstCudaSum:detect:
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
 * |[
 * gst-launch-1.0 -m filesrc location=hdr10.mkv ! matroskademux ! h265parse ! nvh265dec ! cudasum light-levels=true interval=1000000000 ! fakesink
 * ]| The largest and average light of every second of an HDR10 stream, and
 * its MaxCLL and MaxFALL so far.
 * |[
 * gst-launch-1.0 -m filesrc location=hlg.mkv ! matroskademux ! h265parse ! nvh265dec ! cudasum light-levels=true hlg-peak=1000 interval=1000000000 ! fakesink
 * ]| The same of an HLG stream, as a display of 1000 cd/m2 shows it.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudasum.h"
#include "gstcudasumdetect.h"
#include "gstcudasumdevice.h"
#include "gstcudasumlight.h"


GST_DEBUG_CATEGORY_STATIC (gst_cuda_sum_debug);
#define GST_CAT_DEFAULT gst_cuda_sum_debug

#define DEFAULT_PERCENTILES FALSE
#define DEFAULT_PROFILES FALSE
#define DEFAULT_DETECT 0
#define DEFAULT_BLACK_THRESHOLD 24
#define DEFAULT_LIGHT_LEVELS FALSE
#define DEFAULT_HLG_PEAK 1000.0

enum
{
  PROP_0,
  PROP_PERCENTILES,
  PROP_PROFILES,
  PROP_DETECT,
  PROP_BLACK_THRESHOLD,
  PROP_LIGHT_LEVELS,
  PROP_HLG_PEAK,
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
  gboolean light_levels;
  gdouble hlg_peak;
  CfDetectSettings detect_settings;

  /* the detectors, and a frame's events: the results' worker's */
  CfDetect *detector;
  GArray *events;
  guint key_units;              /* force-key-unit events sent */

  /* the streaming thread's: the device memory's layout and the region of
   * the luma kept in it */
  CfSumDevice device;
  /* and what the caps' light levels are measured with */
  CfSumLight light;
  /* the results' worker's: MaxCLL and MaxFALL since the start or flush */
  gdouble max_cll, max_fall;
  /* the profiles' means as a message is made (under the results' lock, as
   * fill_structure () runs): kept, not allocated a message */
  gdouble *profile_means;
  gsize n_profile_means;
};

G_DEFINE_TYPE (GstCudaSum, gst_cuda_sum, GST_TYPE_CUDA_FILTERS_ANALYSIS);
GST_ELEMENT_REGISTER_DEFINE (cudasum, "cudasum", GST_RANK_NONE,
    GST_TYPE_CUDA_SUM);

/* (docs/design/sum.md) */
static gsize
gst_cuda_sum_device_size (GstCudaFiltersAnalysis * analysis,
    const GstVideoInfo * info)
{
  return cf_sum_device_sums_bytes (info);
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

  cf_sum_device_set_size (&self->device, GST_VIDEO_INFO_WIDTH (in_info),
      GST_VIDEO_INFO_HEIGHT (in_info));
  cf_sum_light_set_caps (&self->light, in_info);
  return GST_CUDA_FILTERS_BASE_CLASS (gst_cuda_sum_parent_class)->set_info
      (base, in_info, out_info);
}

static CfError
gst_cuda_sum_analyse (GstCudaFiltersAnalysis * analysis,
    const GstCudaFiltersRegion * region, gpointer result, gpointer sums,
    gpointer zero_next, CfStream stream)
{
  GstCudaSum *self = GST_CUDA_SUM (analysis);
  CfSumSettings settings = { 0, };
  gboolean light_levels;
  gdouble hlg_peak;
  const gchar *no_light;

  GST_OBJECT_LOCK (self);
  settings.percentiles = self->percentiles;
  settings.profiles = self->profiles;
  settings.detect = self->detect;
  settings.black_threshold = self->black_threshold;
  light_levels = self->light_levels;
  hlg_peak = self->hlg_peak;
  GST_OBJECT_UNLOCK (self);

  no_light = cf_sum_light_settings (&self->light, light_levels, hlg_peak,
      &settings);
  if (no_light)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("No light levels for this stream"), ("light-levels: %s", no_light));

  return cf_sum_device_analyse (&self->device, GST_CUDA_FILTERS_BASE (self),
      &settings, region, result, sums, zero_next, stream);
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

  if (r->has & HAS_LIGHT) {
    gdouble max_light, average_light;

    if (gst_cuda_sum_result_light (r, &max_light, &average_light)) {
      self->max_cll = MAX (self->max_cll, max_light);
      self->max_fall = MAX (self->max_fall, average_light);
    }
    r->max_cll = self->max_cll;
    r->max_fall = self->max_fall;
  }

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
  GstCudaSum *self = GST_CUDA_SUM (analysis);

  cf_detect_reset (self->detector);
  self->key_units = 0;
  self->max_cll = self->max_fall = 0.0;
}

static gboolean
gst_cuda_sum_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstCudaSum *self = GST_CUDA_SUM (trans);

  /* after a flush (a seek) the next frame is not the one kept */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP)
    cf_sum_device_forget_previous (&self->device);
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_sum_parent_class)->sink_event
      (trans, event);
}

static gboolean
gst_cuda_sum_start (GstBaseTransform * trans)
{
  GstCudaSum *self = GST_CUDA_SUM (trans);

  cf_sum_device_forget_scratch (&self->device);
  return GST_BASE_TRANSFORM_CLASS (gst_cuda_sum_parent_class)->start (trans);
}

/* The base class is about to free the scratch memory (stop, or another
 * context). */
static void
gst_cuda_sum_release (GstCudaFiltersBase * base, gboolean can_free)
{
  GstCudaSum *self = GST_CUDA_SUM (base);

  cf_sum_device_forget_scratch (&self->device);
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
    case PROP_LIGHT_LEVELS:
      self->light_levels = g_value_get_boolean (value);
      break;
    case PROP_HLG_PEAK:
      self->hlg_peak = g_value_get_double (value);
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
    case PROP_LIGHT_LEVELS:
      g_value_set_boolean (value, self->light_levels);
      break;
    case PROP_HLG_PEAK:
      g_value_set_double (value, self->hlg_peak);
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
  cf_sum_light_clear (&self->light);
  g_free (self->profile_means);
  G_OBJECT_CLASS (gst_cuda_sum_parent_class)->finalize (object);
}

/**
 * gst_cuda_sum_profile_means:
 *
 * Room for @n gdoubles, the profiles' means of a message: the element's
 * own, grown as the frames' sizes need.  Called under the results' lock
 * (gst_cuda_sum_fill_structure ()).
 */
gdouble *
gst_cuda_sum_profile_means (GstCudaFiltersAnalysis * analysis, gsize n)
{
  GstCudaSum *self = GST_CUDA_SUM (analysis);

  if (n > self->n_profile_means) {
    g_free (self->profile_means);
    self->profile_means = g_new (gdouble, n);
    self->n_profile_means = n;
  }
  return self->profile_means;
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

  /**
   * GstCudaSum:light-levels:
   *
   * On HDR video, PQ (`smpte2084`) or HLG (`arib-std-b67`), of 10 to 16
   * bits in Y'CbCr or of packed 10-bit RGB (RGB10A2_LE, BGR10A2_LE),
   * adds the light levels of CTA-861.3 in cd/m2:
   * `max-light` and `average-light`, the largest and the mean over the
   * message's pixels of a pixel's light; `max-cll` and `max-fall`, the
   * largest pixel light and the largest frame-average light since the
   * start or the last flush.  A PQ pixel's light is the PQ EOTF of its
   * max(R', G', B'); an HLG pixel's, the largest component of its display
   * light, BT.2100's OOTF on a display of #GstCudaSum:hlg-peak.  Of
   * Y'CbCr, R'G'B' comes from the caps' matrix and range, each pixel with
   * the chroma sample that covers it, in exact integer arithmetic; packed
   * R'G'B' is full range unless the caps say `16-235`, and HLG's
   * luminance weights are those of BT.2020 (BT.709's with BT.709
   * primaries) (docs/design/hdr.md).  On other streams it posts a warning
   * and no light fields.
   */
  g_object_class_install_property (gobject_class, PROP_LIGHT_LEVELS,
      g_param_spec_boolean ("light-levels", "Light levels",
          "Post the light levels of PQ and HLG video (max-light, "
          "average-light, max-cll, max-fall, in cd/m2)", DEFAULT_LIGHT_LEVELS,
          flags));

  /**
   * GstCudaSum:hlg-peak:
   *
   * The nominal peak luminance Lw of the display whose light HLG's light
   * levels are, in cd/m2: BT.2100's OOTF for it, with a system gamma of
   * 1.2 + 0.42 log10 (Lw / 1000) (BT.2100 gives it for 400 to 2000 cd/m2;
   * above, it is extrapolated).  An HLG signal has no light of its own
   * until a display shows it; 1000 is BT.2100's reference display.
   */
  g_object_class_install_property (gobject_class, PROP_HLG_PEAK,
      g_param_spec_double ("hlg-peak", "HLG display peak",
          "The peak luminance of the display HLG's light levels are for, in "
          "cd/m2", 400.0, 10000.0, DEFAULT_HLG_PEAK, flags));

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
  self->light_levels = DEFAULT_LIGHT_LEVELS;
  self->hlg_peak = DEFAULT_HLG_PEAK;
  cf_detect_settings_init (&self->detect_settings);
  self->detector = cf_detect_new ();
  self->events = g_array_new (FALSE, FALSE, sizeof (CfDetectEvent));
}
