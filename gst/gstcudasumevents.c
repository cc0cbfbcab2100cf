/* GStreamer
 * gst-cudafilters: cudasum's detectors, the element's side: the `detect`
 * flags, the settings' properties and the events' element messages (the
 * detectors themselves are in gstcudasumdetect.c).
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#include "gstcudasumdetect.h"

#include <gst/video/video.h>
#include <string.h>

GType
gst_cuda_sum_detect_get_type (void)
{
  static GType type = 0;
  static const GFlagsValue values[] = {
    {GST_CUDA_SUM_DETECT_CROP, "The black-border rectangle, the stable crop",
        "crop"},
    {GST_CUDA_SUM_DETECT_BLACK, "The share of black pixels, black segments",
        "black"},
    {GST_CUDA_SUM_DETECT_CUT, "Difference from the previous frame, scene cuts",
        "cut"},
    {GST_CUDA_SUM_DETECT_FREEZE, "Freeze segments", "freeze"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_flags_register_static ("GstCudaSumDetect", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* The settings' properties: their ids are cudasum's first_id + the
 * index.  The defaults are those of ffmpeg's blackdetect and freezedetect
 * where they have one (docs/design/detect.md). */
typedef struct
{
  const gchar *name, *nick, *blurb;
  /* G_TYPE_DOUBLE, G_TYPE_UINT64, G_TYPE_UINT, G_TYPE_BOOLEAN */
  GType type;
  gsize offset;                 /* in CfDetectSettings */
  gdouble min, max, def;
} DetectProperty;

static const DetectProperty detect_properties[] = {
/**
 * GstCudaSum:cut-threshold:
 *
 * A frame is a scene cut when its mean absolute luma difference from the
 * previous frame stands this far above the differences around it (the
 * cut score: above the mean of the last five frames' since the last cut,
 * the previous frame's and the next frame's), and its luma histogram
 * changed by #GstCudaSum:cut-hist-threshold or more.  Motion, zooms and
 * fades change every frame about as much as the one before, so they do
 * not stand out.  The decision waits for the next frame.
 */
  {"cut-threshold", "Cut threshold",
        "Luma levels by which a frame's difference from the previous one "
        "must stand above those around it to be a scene cut",
        G_TYPE_DOUBLE, G_STRUCT_OFFSET (CfDetectSettings, cut_threshold), 0,
      255, 10.0},
/**
 * GstCudaSum:cut-hist-threshold:
 *
 * The smallest change of the luma histogram of a scene cut: half the
 * sum over the 256 bins of the absolute difference of the counts, over
 * the pixels (0: the same histogram, 1: none in common).  A jolt of the
 * camera changes the picture for a frame but hardly its histogram.
 */
  {"cut-hist-threshold", "Cut histogram threshold",
        "Smallest change of the luma histogram (0 to 1) of a scene cut",
        G_TYPE_DOUBLE, G_STRUCT_OFFSET (CfDetectSettings, cut_hist_threshold),
      0, 1, 0.05},
/**
 * GstCudaSum:black-ratio:
 *
 * The share of a frame's pixels at or under #GstCudaSum:black-threshold
 * that makes it black, for black segments (ffmpeg blackdetect's
 * picture_black_ratio_th).
 */
  {"black-ratio", "Black ratio",
        "Share of black pixels of a black frame",
        G_TYPE_DOUBLE, G_STRUCT_OFFSET (CfDetectSettings, black_ratio), 0, 1,
      0.98},
/**
 * GstCudaSum:black-min-duration:
 *
 * How long black frames must last to make a black segment, in
 * nanoseconds.
 */
  {"black-min-duration", "Black minimum duration",
        "Shortest black segment reported (ns)",
        G_TYPE_UINT64, G_STRUCT_OFFSET (CfDetectSettings, black_min_duration),
      0, G_MAXUINT64, 2 * GST_SECOND},
/**
 * GstCudaSum:freeze-noise:
 *
 * The largest mean absolute luma difference from the previous frame of a
 * frame that repeats it, in luma levels (the default is ffmpeg
 * freezedetect's -60 dB of 255).
 */
  {"freeze-noise", "Freeze noise",
        "Largest mean absolute luma difference of a repeated frame",
        G_TYPE_DOUBLE, G_STRUCT_OFFSET (CfDetectSettings, freeze_noise), 0, 255,
      0.25},
/**
 * GstCudaSum:freeze-min-duration:
 *
 * How long the picture must stay still to make a freeze segment, in
 * nanoseconds.
 */
  {"freeze-min-duration", "Freeze minimum duration",
        "Shortest freeze segment reported (ns)",
        G_TYPE_UINT64, G_STRUCT_OFFSET (CfDetectSettings, freeze_min_duration),
      0, G_MAXUINT64, 2 * GST_SECOND},
/**
 * GstCudaSum:crop-round:
 *
 * The stable crop's width and height are multiples of this, the
 * rectangle shrunk about its centre (ffmpeg cropdetect's round).
 */
  {"crop-round", "Crop round",
        "Width and height of the stable crop a multiple of this",
      G_TYPE_UINT, G_STRUCT_OFFSET (CfDetectSettings, crop_round), 1, 1024, 2},
/**
 * GstCudaSum:crop-hold:
 *
 * How long a new picture area must hold before the stable crop becomes
 * it, in nanoseconds.
 */
  {"crop-hold", "Crop hold",
        "How long a new picture area must last to become the stable crop "
        "(ns)",
        G_TYPE_UINT64, G_STRUCT_OFFSET (CfDetectSettings, crop_hold), 0,
      G_MAXUINT64, GST_SECOND},
/**
 * GstCudaSum:force-key-unit:
 *
 * At each scene cut, send an upstream force-key-unit event
 * (gst_video_event_new_upstream_force_key_unit()) with the cut frame's
 * running time and all-headers set, counting from 0, as an encoder
 * upstream (before a decoder and cudasum) takes it.  A cut is known one
 * frame after it, once the GPU has counted both: an encoder that has
 * already encoded the cut frame starts a key unit at the next one.
 */
  {"force-key-unit", "Force key unit",
        "Send an upstream force-key-unit event at each scene cut",
        G_TYPE_BOOLEAN, G_STRUCT_OFFSET (CfDetectSettings, force_key_unit), 0,
      1, 0},
};

G_STATIC_ASSERT (G_N_ELEMENTS (detect_properties) == CF_DETECT_N_PROPERTIES);

void
cf_detect_settings_init (CfDetectSettings * s)
{
  guint i;

  memset (s, 0, sizeof (*s));
  for (i = 0; i < CF_DETECT_N_PROPERTIES; i++) {
    const DetectProperty *p = &detect_properties[i];

    if (p->type == G_TYPE_DOUBLE)
      G_STRUCT_MEMBER (gdouble, s, p->offset) = p->def;
    else if (p->type == G_TYPE_UINT64)
      G_STRUCT_MEMBER (guint64, s, p->offset) = (guint64) p->def;
    else if (p->type == G_TYPE_BOOLEAN)
      G_STRUCT_MEMBER (gboolean, s, p->offset) = p->def != 0;
    else
      G_STRUCT_MEMBER (guint, s, p->offset) = (guint) p->def;
  }
}

/* which detectors run, from cudasum's `detect` flags */
void
cf_detect_settings_enable (CfDetectSettings * s, guint detect)
{
  s->cuts = (detect & GST_CUDA_SUM_DETECT_CUT) != 0;
  s->black = (detect & GST_CUDA_SUM_DETECT_BLACK) != 0;
  s->freeze = (detect & GST_CUDA_SUM_DETECT_FREEZE) != 0;
  s->crop = (detect & GST_CUDA_SUM_DETECT_CROP) != 0;
}

void
cf_detect_install_properties (GObjectClass * klass, guint first_id)
{
  GParamFlags flags = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_PLAYING | GST_PARAM_CONTROLLABLE;
  guint i;

  for (i = 0; i < CF_DETECT_N_PROPERTIES; i++) {
    const DetectProperty *p = &detect_properties[i];
    GParamSpec *spec;

    if (p->type == G_TYPE_DOUBLE)
      spec = g_param_spec_double (p->name, p->nick, p->blurb, p->min,
          p->max, p->def, flags);
    else if (p->type == G_TYPE_UINT64)
      spec = g_param_spec_uint64 (p->name, p->nick, p->blurb,
          (guint64) p->min, p->max == G_MAXUINT64 ? G_MAXUINT64 :
          (guint64) p->max, (guint64) p->def, flags);
    else if (p->type == G_TYPE_BOOLEAN)
      spec = g_param_spec_boolean (p->name, p->nick, p->blurb, p->def != 0,
          flags);
    else
      spec = g_param_spec_uint (p->name, p->nick, p->blurb, (guint) p->min,
          (guint) p->max, (guint) p->def, flags);
    g_object_class_install_property (klass, first_id + i, spec);
  }
}

void
cf_detect_set_property (CfDetectSettings * s, guint id, const GValue * value)
{
  const DetectProperty *p = &detect_properties[id];

  if (p->type == G_TYPE_DOUBLE)
    G_STRUCT_MEMBER (gdouble, s, p->offset) = g_value_get_double (value);
  else if (p->type == G_TYPE_UINT64)
    G_STRUCT_MEMBER (guint64, s, p->offset) = g_value_get_uint64 (value);
  else if (p->type == G_TYPE_BOOLEAN)
    G_STRUCT_MEMBER (gboolean, s, p->offset) = g_value_get_boolean (value);
  else
    G_STRUCT_MEMBER (guint, s, p->offset) = g_value_get_uint (value);
}

void
cf_detect_get_property (const CfDetectSettings * s, guint id, GValue * value)
{
  const DetectProperty *p = &detect_properties[id];

  if (p->type == G_TYPE_DOUBLE)
    g_value_set_double (value, G_STRUCT_MEMBER (gdouble, s, p->offset));
  else if (p->type == G_TYPE_UINT64)
    g_value_set_uint64 (value, G_STRUCT_MEMBER (guint64, s, p->offset));
  else if (p->type == G_TYPE_BOOLEAN)
    g_value_set_boolean (value, G_STRUCT_MEMBER (gboolean, s, p->offset));
  else
    g_value_set_uint (value, G_STRUCT_MEMBER (guint, s, p->offset));
}

static void
set_times (GstStructure * s, const gchar * prefix, const CfDetectTimes * t)
{
  gchar *ts = g_strconcat (prefix, "timestamp", NULL);
  gchar *st = g_strconcat (prefix, "stream-time", NULL);
  gchar *rt = g_strconcat (prefix, "running-time", NULL);

  gst_structure_set (s, ts, G_TYPE_UINT64, t->pts, st, G_TYPE_UINT64,
      t->stream_time, rt, G_TYPE_UINT64, t->running_time, NULL);
  g_free (ts);
  g_free (st);
  g_free (rt);
}

/**
 * cf_detect_event_message:
 *
 * The element message of @e: named @prefix and the event's name (e.g.
 * "cudasum-scene-cut"), with the fields docs/cudasum.md lists.
 */
GstMessage *
cf_detect_event_message (GstObject * src, const gchar * prefix,
    const CfDetectEvent * e)
{
  gchar *name = g_strconcat (prefix, cf_detect_event_name (e->type), NULL);
  GstStructure *s = gst_structure_new_empty (name);

  g_free (name);
  gst_structure_set (s, "frame", G_TYPE_UINT64, e->frame, NULL);
  set_times (s, "", &e->times);
  switch (e->type) {
    case CF_DETECT_SCENE_CUT:
      gst_structure_set (s, "score", G_TYPE_DOUBLE, e->score, "hist-diff",
          G_TYPE_DOUBLE, e->hist_diff, NULL);
      break;
    case CF_DETECT_BLACK_END:
    case CF_DETECT_FREEZE_END:
      gst_structure_set (s, "start-frame", G_TYPE_UINT64, e->start_frame,
          "duration", G_TYPE_UINT64, e->duration, NULL);
      set_times (s, "start-", &e->start);
      break;
    case CF_DETECT_CROP_CHANGED:
      gst_structure_set (s, "x", G_TYPE_UINT, (guint) e->rect.x, "y",
          G_TYPE_UINT, (guint) e->rect.y, "width", G_TYPE_UINT,
          (guint) e->rect.width, "height", G_TYPE_UINT,
          (guint) e->rect.height, NULL);
      break;
    default:
      break;
  }
  return gst_message_new_element (src, s);
}

/* Appends the message of each of @events, named cudasum-<event>, to
 * @messages, and with @settings' force_key_unit after a scene cut's its
 * upstream force-key-unit event, numbered by *@key_units (which counts
 * them). */
void
cf_detect_event_messages (GstObject * src, GArray * events,
    const CfDetectSettings * settings, guint * key_units, GPtrArray * messages)
{
  guint i;

  for (i = 0; i < events->len; i++) {
    const CfDetectEvent *e = &g_array_index (events, CfDetectEvent, i);

    g_ptr_array_add (messages, cf_detect_event_message (src, "cudasum-", e));
    if (e->type == CF_DETECT_SCENE_CUT && settings->force_key_unit)
      g_ptr_array_add (messages,
          gst_video_event_new_upstream_force_key_unit (e->times.running_time ==
              CF_DETECT_TIME_NONE ? GST_CLOCK_TIME_NONE :
              e->times.running_time, TRUE, (*key_units)++));
  }
}
