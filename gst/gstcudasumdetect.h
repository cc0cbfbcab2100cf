/* GStreamer
 * gst-cudafilters: cudasum's detectors over time (scene cuts, black and
 * freeze segments, a stable crop), from each frame's sums.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_CUDA_SUM_DETECT_H__
#define __GST_CUDA_SUM_DETECT_H__

#include <gst/gst.h>

/* No CUDA here, so that the tests run it on sums made on the CPU: the GPU
 * adds up exact integers per frame, this turns them into decisions and
 * events, the same code for both.  docs/design/detect.md gives the
 * definitions. */

G_BEGIN_DECLS

#define CF_DETECT_LUMA_BINS 256
#define CF_DETECT_TIME_NONE G_MAXUINT64

/* the settings, read for every frame */
typedef struct
{
  gboolean cuts, black, freeze, crop;   /* which detectors run */
  gdouble cut_threshold;        /* cut score at or above which ... */
  gdouble cut_hist_threshold;   /* ... with hist_diff at or above this */
  gdouble black_ratio;          /* share of black pixels of a black frame */
  guint64 black_min_duration;   /* ns */
  gdouble freeze_noise;         /* mean abs luma difference of a still */
  guint64 freeze_min_duration;  /* ns */
  guint crop_round;             /* width and height a multiple of this */
  guint64 crop_hold;            /* ns a new rectangle must hold */
  guint black_threshold;        /* luma of a black pixel, row or column */
  gboolean force_key_unit;      /* an upstream force-key-unit at a cut */
} CfDetectSettings;

typedef struct
{
  guint64 pts, duration, stream_time, running_time;     /* or _TIME_NONE */
} CfDetectTimes;

/* What the GPU summed over one frame's region.  Each part is optional. */
typedef struct
{
  CfDetectTimes times;
  gint x, y, width, height;     /* the region, in frame coordinates */
  /* the sum of |luma - previous frame's luma| (has_diff: a previous
   * frame of the same region) */
  gboolean has_diff;
  guint64 abs_diff;
  /* pixels whose luma is at or under black_threshold */
  gboolean has_black;
  guint64 black;
  /* the luma histogram of the region */
  const guint32 *luma_counts;
  /* height row sums then width column sums of the region's luma */
  const guint32 *rows;
} CfDetectInput;

typedef struct
{
  gint x, y, width, height;
} CfDetectRect;

/* The detectors' view of one frame */
typedef struct
{
  gdouble frame_diff;           /* mean |luma - previous| (0: none) */
  gboolean has_hist_diff;
  gdouble hist_diff;            /* luma histogram change, in [0, 1] */
  gboolean black, frozen;
  gboolean has_crop;            /* picture_area found */
  CfDetectRect picture_area;    /* this frame's, bars with logos left out */
  gboolean has_stable_crop;
  CfDetectRect stable_crop;
} CfDetectFrame;

/* (each _END right after its _START) */
typedef enum
{
  CF_DETECT_SCENE_CUT,
  CF_DETECT_BLACK_START,
  CF_DETECT_BLACK_END,
  CF_DETECT_FREEZE_START,
  CF_DETECT_FREEZE_END,
  CF_DETECT_CROP_CHANGED,
} CfDetectEventType;

typedef struct
{
  CfDetectEventType type;
  /* where it happens: the cut's frame, a segment's first frame (starts),
   * the first frame after it (ends), the frame a crop took hold at; an
   * end at EOS is the time after the last frame, and the frame number one
   * past it */
  guint64 frame;
  CfDetectTimes times;
  /* ends: the segment's start, and its duration (ns, or _TIME_NONE) */
  guint64 start_frame;
  CfDetectTimes start;
  guint64 duration;
  gdouble score;                /* cut: its cut score */
  gdouble hist_diff;            /* cut: hist_diff */
  CfDetectRect rect;            /* crop changed: the new stable crop */
} CfDetectEvent;

typedef struct _CfDetect CfDetect;

CfDetectTimes cf_detect_times (guint64 pts, guint64 duration,
    guint64 stream_time, guint64 running_time);

CfDetect *cf_detect_new (void);
void cf_detect_free (CfDetect * d);

void cf_detect_push (CfDetect * d, const CfDetectSettings * settings,
    const CfDetectInput * in, CfDetectFrame * out, GArray * events);
void cf_detect_finish (CfDetect * d, const CfDetectSettings * settings,
    GArray * events);
void cf_detect_reset (CfDetect * d);

gboolean cf_detect_border_rect (const guint32 * rows, gint width,
    gint height, guint black_threshold, CfDetectRect * rect);
gboolean cf_detect_picture_area (const guint32 * rows, gint width,
    gint height, guint black_threshold, CfDetectRect * area);
gdouble cf_detect_hist_diff (const guint32 * a, const guint32 * b,
    guint64 pixels);

const gchar *cf_detect_event_name (CfDetectEventType type);

/* ---- cudasum's side (gstcudasumevents.c) ---- */

/**
 * GstCudaSumDetect:
 * @GST_CUDA_SUM_DETECT_CROP: the black-border rectangle, and the stable
 *   crop
 * @GST_CUDA_SUM_DETECT_BLACK: the share of black pixels, and black
 *   segments
 * @GST_CUDA_SUM_DETECT_CUT: the difference from the previous frame, and
 *   scene cuts
 * @GST_CUDA_SUM_DETECT_FREEZE: freeze segments
 *
 * The detectors of #cudasum.
 */
typedef enum
{
  GST_CUDA_SUM_DETECT_CROP = 1 << 0,
  GST_CUDA_SUM_DETECT_BLACK = 1 << 1,
  GST_CUDA_SUM_DETECT_CUT = 1 << 2,
  GST_CUDA_SUM_DETECT_FREEZE = 1 << 3,
} GstCudaSumDetect;

#define GST_TYPE_CUDA_SUM_DETECT (gst_cuda_sum_detect_get_type ())
GType gst_cuda_sum_detect_get_type (void);

/* the properties of the settings (all but black-threshold, cudasum's),
 * with ids from @first_id on */
#define CF_DETECT_N_PROPERTIES 9
void cf_detect_settings_init (CfDetectSettings * settings);
void cf_detect_settings_enable (CfDetectSettings * settings, guint detect);
void cf_detect_install_properties (GObjectClass * klass, guint first_id);
void cf_detect_set_property (CfDetectSettings * settings, guint id,
    const GValue * value);
void cf_detect_get_property (const CfDetectSettings * settings, guint id,
    GValue * value);

GstMessage *cf_detect_event_message (GstObject * src, const gchar * prefix,
    const CfDetectEvent * e);
void cf_detect_event_messages (GstObject * src, GArray * events,
    const CfDetectSettings * settings, guint * key_units,
    GPtrArray * messages);

G_END_DECLS
#endif /* __GST_CUDA_SUM_DETECT_H__ */
