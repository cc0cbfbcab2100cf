/* GStreamer
 * gst-cudafilters: cudasum's detectors over time (gstcudasumdetect.h).
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#include "gstcudasumdetect.h"

#include <string.h>

/* frames whose frame_diff the cut score compares with: about the motion
 * of the last fifth of a second */
#define CUT_WINDOW 5

/* a run of frames that are black, or still */
typedef struct
{
  gboolean active;              /* in a run */
  gboolean started;             /* long enough: its start went out */
  guint64 start_frame;
  CfDetectTimes start;
} Segment;

/* a frame that may be a cut, decided at the next frame */
typedef struct
{
  gboolean valid;
  guint64 frame;
  CfDetectTimes times;
  gdouble frame_diff, baseline, hist_diff;
  gboolean has_hist_diff;
} CutCandidate;

struct _CfDetect
{
  guint64 frame;                /* frames pushed since the reset */
  CfDetectTimes last;           /* the last frame's times */

  /* cut: the frame_diff of the frames since the last cut, and the
   * previous frame's histogram */
  gdouble recent[CUT_WINDOW];
  guint n_recent, next_recent;
  CutCandidate candidate;
  gdouble previous_diff;
  guint32 previous_counts[CF_DETECT_LUMA_BINS];
  gboolean has_previous_counts;
  gint previous_width, previous_height;

  Segment black, freeze;

  /* crop: the rectangle in force, and the one that would replace it,
   * since its first frame */
  gboolean has_stable;
  CfDetectRect stable;
  gboolean has_pending;
  CfDetectRect pending;
  guint64 pending_frame;
  CfDetectTimes pending_times;
};

const gchar *
cf_detect_event_name (CfDetectEventType type)
{
  switch (type) {
    case CF_DETECT_SCENE_CUT:
      return "scene-cut";
    case CF_DETECT_BLACK_START:
      return "black-start";
    case CF_DETECT_BLACK_END:
      return "black-end";
    case CF_DETECT_FREEZE_START:
      return "freeze-start";
    case CF_DETECT_FREEZE_END:
      return "freeze-end";
    case CF_DETECT_CROP_CHANGED:
      return "crop-changed";
  }
  return "unknown";
}

CfDetect *
cf_detect_new (void)
{
  CfDetect *d = g_new0 (CfDetect, 1);

  cf_detect_reset (d);
  return d;
}

void
cf_detect_free (CfDetect * d)
{
  g_free (d);
}

CfDetectTimes
cf_detect_times (guint64 pts, guint64 duration, guint64 stream_time,
    guint64 running_time)
{
  CfDetectTimes t = { pts, duration, stream_time, running_time };

  return t;
}

static const CfDetectTimes no_times = {
  CF_DETECT_TIME_NONE, CF_DETECT_TIME_NONE, CF_DETECT_TIME_NONE,
  CF_DETECT_TIME_NONE
};

void
cf_detect_reset (CfDetect * d)
{
  memset (d, 0, sizeof (*d));
  d->last = no_times;
}

static gboolean
valid (guint64 t)
{
  return t != CF_DETECT_TIME_NONE;
}

static guint64
add_time (guint64 t, guint64 dt)
{
  return valid (t) && valid (dt) ? t + dt : CF_DETECT_TIME_NONE;
}

/* the times right after a frame: each plus its duration */
static CfDetectTimes
times_after (const CfDetectTimes * t)
{
  CfDetectTimes after;

  after.pts = add_time (t->pts, t->duration);
  after.stream_time = add_time (t->stream_time, t->duration);
  after.running_time = add_time (t->running_time, t->duration);
  after.duration = CF_DETECT_TIME_NONE;
  return after;
}

static guint64
span (guint64 from, guint64 to)
{
  return valid (from) && valid (to) && to >= from ? to - from :
      CF_DETECT_TIME_NONE;
}

static CfDetectEvent *
add_event (GArray * events, CfDetectEventType type, guint64 frame,
    const CfDetectTimes * times)
{
  CfDetectEvent e;

  memset (&e, 0, sizeof (e));
  e.type = type;
  e.frame = frame;
  e.times = *times;
  e.start = no_times;
  e.duration = CF_DETECT_TIME_NONE;
  g_array_append_val (events, e);
  return &g_array_index (events, CfDetectEvent, events->len - 1);
}

static void
segment_end (Segment * s, CfDetectEventType end_type, guint64 frame,
    const CfDetectTimes * times, GArray * events)
{
  if (s->active && s->started) {
    CfDetectEvent *e = add_event (events, end_type, frame, times);

    e->start_frame = s->start_frame;
    e->start = s->start;
    e->duration = span (s->start.pts, times->pts);
  }
  s->active = s->started = FALSE;
}

/* Frame @frame (times @times) is (@in) or is not in a run; a run that
 * begins at it starts at @start_frame (@start), the frame itself or the
 * one before.  A run counts once it lasts @min_duration: its start goes
 * out then, its end (@start_type + 1) when a frame is not in it. */
static void
segment_push (Segment * s, gboolean in, guint64 frame,
    const CfDetectTimes * times, guint64 start_frame,
    const CfDetectTimes * start, guint64 min_duration,
    CfDetectEventType start_type, GArray * events)
{
  guint64 lasted;

  if (!in) {
    segment_end (s, start_type + 1, frame, times, events);
    return;
  }
  if (!s->active) {
    s->active = TRUE;
    s->started = FALSE;
    s->start_frame = start_frame;
    s->start = *start;
  }
  lasted = span (s->start.pts, add_time (times->pts, times->duration));
  if (!s->started && valid (lasted) && lasted >= min_duration) {
    s->started = TRUE;
    add_event (events, start_type, s->start_frame, &s->start);
  }
}

/**
 * cf_detect_hist_diff:
 *
 * Half the sum over the bins of |a - b|, over @pixels: the share of the
 * pixels that would have to change bin for one histogram to become the
 * other (0: the same, 1: no bin in common).
 */
gdouble
cf_detect_hist_diff (const guint32 * a, const guint32 * b, guint64 pixels)
{
  guint64 sum = 0;
  guint v;

  if (pixels == 0)
    return 0.0;
  for (v = 0; v < CF_DETECT_LUMA_BINS; v++)
    sum += a[v] > b[v] ? a[v] - b[v] : b[v] - a[v];
  return (gdouble) sum / (2.0 * (gdouble) pixels);
}

/* The longest run of sums over @limit in @sums[0, n): its start and end
 * (exclusive); FALSE when there is none.  The first of equal runs. */
static gboolean
longest_run (const guint32 * sums, gint n, guint64 limit, gint * start,
    gint * end)
{
  gint i = 0, best = 0;

  while (i < n) {
    gint j;

    if (sums[i] <= limit) {
      i++;
      continue;
    }
    for (j = i; j < n && sums[j] > limit; j++);
    if (j - i > best) {
      best = j - i;
      *start = i;
      *end = j;
    }
    i = j;
  }
  return best > 0;
}

/* @rect: columns x0 to x1 - 1 by rows y0 to y1 - 1 */
static void
set_rect (CfDetectRect * rect, gint x0, gint y0, gint x1, gint y1)
{
  rect->x = x0;
  rect->y = y0;
  rect->width = x1 - x0;
  rect->height = y1 - y0;
}

/**
 * cf_detect_border_rect:
 * @rows: @height row sums then @width column sums of a region's luma
 *
 * The smallest rectangle holding every row and column whose mean luma is
 * above @black_threshold (cudasum's `crop-*`), in region coordinates;
 * FALSE when there is none.
 */
gboolean
cf_detect_border_rect (const guint32 * rows, gint width, gint height,
    guint black_threshold, CfDetectRect * rect)
{
  const guint32 *columns = rows + height;
  guint64 row_limit = (guint64) black_threshold * width;
  guint64 column_limit = (guint64) black_threshold * height;
  gint top = 0, bottom = height, left = 0, right = width;

  while (top < bottom && rows[top] <= row_limit)
    top++;
  if (top == bottom)
    return FALSE;
  while (rows[bottom - 1] <= row_limit)
    bottom--;
  while (left < right && columns[left] <= column_limit)
    left++;
  while (left < right && columns[right - 1] <= column_limit)
    right--;
  if (left == right)
    return FALSE;
  set_rect (rect, left, top, right, bottom);
  return TRUE;
}

/**
 * cf_detect_picture_area:
 * @rows: @height row sums then @width column sums of a region's luma
 *
 * The picture inside black bars, in region coordinates: the longest run of
 * rows whose mean luma is above @black_threshold, by the longest such run
 * of columns.  A logo or a subtitle in a bar makes rows (or columns) of
 * their own, apart from the picture's, and is left out; the whole rows
 * and columns are what the bars are made of.  FALSE when every row or
 * every column is black.
 */
gboolean
cf_detect_picture_area (const guint32 * rows, gint width, gint height,
    guint black_threshold, CfDetectRect * area)
{
  const guint32 *columns = rows + height;
  gint y0, y1, x0, x1;

  if (!longest_run (rows, height, (guint64) black_threshold * width, &y0, &y1))
    return FALSE;
  if (!longest_run (columns, width, (guint64) black_threshold * height,
          &x0, &x1))
    return FALSE;
  set_rect (area, x0, y0, x1, y1);
  return TRUE;
}

/* @area with its width and height rounded down to multiples of @round,
 * centred on the same place, as ffmpeg's cropdetect does */
static CfDetectRect
round_rect (const CfDetectRect * area, guint round)
{
  CfDetectRect r = *area;

  if (round > 1) {
    r.width = area->width - area->width % round;
    r.height = area->height - area->height % round;
    r.x += (area->width - r.width) / 2;
    r.y += (area->height - r.height) / 2;
  }
  return r;
}

static gboolean
same_rect (const CfDetectRect * a, const CfDetectRect * b)
{
  return a->x == b->x && a->y == b->y && a->width == b->width &&
      a->height == b->height;
}

static void
push_crop (CfDetect * d, const CfDetectSettings * set,
    const CfDetectRect * area, const CfDetectTimes * times, GArray * events)
{
  CfDetectRect r = round_rect (area, set->crop_round);
  guint64 held;

  /* narrower than the rounding: no rectangle to speak of */
  if (r.width == 0 || r.height == 0)
    return;

  if (d->has_stable && same_rect (&r, &d->stable)) {
    d->has_pending = FALSE;
    return;
  }
  if (!d->has_pending || !same_rect (&r, &d->pending)) {
    d->has_pending = TRUE;
    d->pending = r;
    d->pending_frame = d->frame;
    d->pending_times = *times;
  }
  held = span (d->pending_times.pts, add_time (times->pts, times->duration));
  if (valid (held) && held >= set->crop_hold) {
    CfDetectEvent *e = add_event (events, CF_DETECT_CROP_CHANGED,
        d->pending_frame, &d->pending_times);

    e->rect = r;
    d->has_stable = TRUE;
    d->stable = r;
    d->has_pending = FALSE;
  }
}

/* Decides whether the candidate (the frame before the one at hand) is a
 * cut, now that the difference after it is known (@next_diff, 0 when
 * there is none). */
static void
decide_cut (CfDetect * d, const CfDetectSettings * set, gdouble next_diff,
    GArray * events)
{
  CutCandidate *c = &d->candidate;
  gdouble score;

  if (!c->valid)
    return;
  c->valid = FALSE;
  score = c->frame_diff - MAX (c->baseline, next_diff);
  if (set->cuts && c->has_hist_diff && score >= set->cut_threshold &&
      c->hist_diff >= set->cut_hist_threshold) {
    CfDetectEvent *e = add_event (events, CF_DETECT_SCENE_CUT, c->frame,
        &c->times);

    e->score = score;
    e->hist_diff = c->hist_diff;
    /* the new shot's motion is measured afresh */
    d->n_recent = 0;
  } else {
    d->recent[d->next_recent] = c->frame_diff;
    d->next_recent = (d->next_recent + 1) % CUT_WINDOW;
    d->n_recent = MIN (d->n_recent + 1, CUT_WINDOW);
  }
}

static void
push_cut (CfDetect * d, const CfDetectSettings * set,
    const CfDetectInput * in, CfDetectFrame * out, GArray * events)
{
  guint64 pixels = (guint64) in->width * in->height;
  gboolean same_size = in->width == d->previous_width &&
      in->height == d->previous_height;
  gboolean has_diff = in->has_diff && pixels > 0;
  guint i;

  if (has_diff) {
    out->frame_diff = (gdouble) in->abs_diff / (gdouble) pixels;
    if (in->luma_counts && d->has_previous_counts && same_size) {
      out->hist_diff = cf_detect_hist_diff (in->luma_counts,
          d->previous_counts, pixels);
      out->has_hist_diff = TRUE;
    }
  }
  decide_cut (d, set, out->frame_diff, events);
  if (!has_diff) {
    d->n_recent = d->next_recent = 0;
  } else {
    CutCandidate *c = &d->candidate;

    c->valid = TRUE;
    c->frame = d->frame;
    c->times = in->times;
    c->frame_diff = out->frame_diff;
    c->has_hist_diff = out->has_hist_diff;
    c->hist_diff = out->hist_diff;
    c->baseline = 0.0;
    for (i = 0; i < d->n_recent; i++)
      c->baseline += d->recent[i];
    if (d->n_recent > 0)
      c->baseline /= d->n_recent;
    /* the frame after a flash differs as much as the flash did */
    c->baseline = MAX (c->baseline, d->previous_diff);
  }
  d->previous_diff = out->frame_diff;
  if (d->n_recent == 0)
    d->next_recent = 0;
  d->has_previous_counts = in->luma_counts != NULL;
  if (in->luma_counts)
    memcpy (d->previous_counts, in->luma_counts, sizeof (d->previous_counts));
  d->previous_width = in->width;
  d->previous_height = in->height;
}

/**
 * cf_detect_push:
 *
 * Runs the detectors on the next frame: fills @out, and appends to
 * @events what the frame starts, ends or confirms.
 */
void
cf_detect_push (CfDetect * d, const CfDetectSettings * set,
    const CfDetectInput * in, CfDetectFrame * out, GArray * events)
{
  guint64 pixels = (guint64) in->width * in->height;
  CfDetectTimes previous = d->last;

  memset (out, 0, sizeof (*out));
  if (set->cuts || set->freeze)
    push_cut (d, set, in, out, events);
  if (!set->cuts)
    d->candidate.valid = FALSE;

  out->black = in->has_black && pixels > 0 &&
      (gdouble) in->black >= set->black_ratio * (gdouble) pixels;
  if (set->black && in->has_black)
    segment_push (&d->black, out->black, d->frame, &in->times, d->frame,
        &in->times, set->black_min_duration, CF_DETECT_BLACK_START, events);
  else                          /* turned off: what was open ends here */
    segment_end (&d->black, CF_DETECT_BLACK_END, d->frame, &in->times, events);

  /* a still run starts at the frame its first still frame repeats (a
   * frame with a difference has one before it) */
  if (set->freeze) {
    out->frozen = in->has_diff && pixels > 0 &&
        out->frame_diff <= set->freeze_noise;
    segment_push (&d->freeze, out->frozen, d->frame, &in->times,
        d->frame - (out->frozen && d->frame > 0 ? 1 : 0), &previous,
        set->freeze_min_duration, CF_DETECT_FREEZE_START, events);
  } else {
    segment_end (&d->freeze, CF_DETECT_FREEZE_END, d->frame, &in->times,
        events);
  }

  /* a black frame says nothing of the bars, even with a logo on it */
  if (set->crop && in->rows && !out->black
      && cf_detect_picture_area (in->rows, in->width, in->height,
          set->black_threshold, &out->picture_area)) {
    out->picture_area.x += in->x;
    out->picture_area.y += in->y;
    out->has_crop = TRUE;
    push_crop (d, set, &out->picture_area, &in->times, events);
  } else if (!set->crop) {
    d->has_pending = FALSE;
  }
  out->has_stable_crop = d->has_stable;
  out->stable_crop = d->stable;

  d->last = in->times;
  d->frame++;
}

/**
 * cf_detect_finish:
 *
 * The stream ends (EOS): the last frame's cut is decided (with no
 * difference after it), and the segments still open end after the last
 * frame.
 */
void
cf_detect_finish (CfDetect * d, const CfDetectSettings * settings,
    GArray * events)
{
  CfDetectTimes after = times_after (&d->last);

  decide_cut (d, settings, 0.0, events);
  segment_end (&d->black, CF_DETECT_BLACK_END, d->frame, &after, events);
  segment_end (&d->freeze, CF_DETECT_FREEZE_END, d->frame, &after, events);
}
