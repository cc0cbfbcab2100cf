/* gst-cudafilters: cudasum's detectors over time (scene cuts, black and
 * freeze segments, the stable crop) on clips made with known events
 * (cf-qc-clip.h): the clip's script is the truth.
 *
 * "qc-cpu" (everywhere): the detectors (gstcudasumdetect.c) fed with the
 * CPU reference's sums of every frame find exactly the scripted events:
 * precision and recall 100%.  "qc" (GPU): cudasum posts exactly the events
 * of the CPU reference, field for field, in system and CUDA memory. */
#include <sys/wait.h>
#include <glib/gstdio.h>

#include "cf-test-util.h"
#include "cf-qc-clip.h"
#include "gstcudasumdetect.h"

#define WIDTH 640
#define HEIGHT 360
#define FPS 25
#define FRAME_NS (GST_SECOND / FPS)
#define NOISE 2

/* the detectors' settings in these tests: cudasum's defaults but for the
 * durations, shortened to fit the clip */
static const CfDetectSettings settings = {
  .cuts = TRUE,
  .black = TRUE,
  .freeze = TRUE,
  .crop = TRUE,
  .cut_threshold = 10.0,
  .cut_hist_threshold = 0.05,
  .black_ratio = 0.98,
  .black_min_duration = 200 * GST_MSECOND,
  .freeze_noise = 0.25,
  .freeze_min_duration = 500 * GST_MSECOND,
  .crop_round = 2,
  .crop_hold = 400 * GST_MSECOND,
  .black_threshold = 24,
};

#define SETTINGS_PROPERTIES "detect=crop+black+cut+freeze " \
  "black-min-duration=200000000 freeze-min-duration=500000000 " \
  "crop-hold=400000000"

/* frames, scene, camera (x, y, dx, dy, scale, zoom), gain, frozen, bars
 * (rows, columns, logo), cut */
static const CfQcShot clip_shots[] = {
  /* a still camera (the noise moves), then a pan starts: no cut */
  {20, 0, 0, 0, 0, 0, 1, 1, 1, 1, FALSE, 0, 0, FALSE, FALSE},
  {30, 0, 0, 0, 10, 3, 1, 1, 1, 1, FALSE, 0, 0, FALSE, FALSE},
  /* a cut from one pan to another scene's */
  {25, 1, 0, 0, -12, 0, 1, 1, 1, 1, FALSE, 0, 0, FALSE, TRUE},
  /* a zoom in */
  {25, 2, 0, 0, 0, 0, 1.3, 0.99, 1, 1, FALSE, 0, 0, FALSE, TRUE},
  /* a fade down, then a cut to black */
  {20, 3, 0, 0, 0, 0, 1, 1, 1, 0.25, FALSE, 0, 0, FALSE, TRUE},
  {10, -1, 0, 0, 0, 0, 1, 1, 1, 1, FALSE, 0, 0, FALSE, TRUE},
  /* a fast pan out of black, that freezes, and goes on */
  {20, 4, 0, 0, 20, 0, 1, 1, 1, 1, FALSE, 0, 0, FALSE, TRUE},
  {20, 4, 400, 0, 0, 0, 1, 1, 1, 1, TRUE, 0, 0, FALSE, FALSE},
  {15, 4, 420, 0, 20, 0, 1, 1, 1, 1, FALSE, 0, 0, FALSE, FALSE},
  /* a cut to black, and a fade in from it */
  {8, -1, 0, 0, 0, 0, 1, 1, 1, 1, FALSE, 0, 0, FALSE, TRUE},
  {20, 5, 0, 0, 0, 0, 1, 1, 0, 1, FALSE, 0, 0, FALSE, FALSE},
  /* letterbox with a logo in the bottom bar, and a cut to a scene of the
   * same brightness in the same bars */
  {30, 1, 300, 100, 3, 1, 1, 1, 1, 1, FALSE, 46, 0, TRUE, TRUE},
  {20, 6, 0, 0, 0, 0, 1, 1, 1, 1, FALSE, 46, 0, TRUE, TRUE},
  /* pillarbox with a logo in the right bar */
  {30, 7, 0, 0, 0, 2, 1, 1, 1, 1, FALSE, 0, 80, TRUE, TRUE},
  /* full frame again: a pan that skips a frame's worth of motion once, and
   * a flash (one frame brighter): no cuts */
  {20, 0, -500, 200, 10, 0, 1, 1, 1, 1, FALSE, 0, 0, FALSE, TRUE},
  {10, 0, -290, 200, 10, 0, 1, 1, 1, 1, FALSE, 0, 0, FALSE, FALSE},
  {1, 0, -190, 200, 0, 0, 1, 1, 1.5, 1.5, FALSE, 0, 0, FALSE, FALSE},
  {10, 0, -190, 200, 0, 0, 1, 1, 1, 1, FALSE, 0, 0, FALSE, FALSE},
};

/* ---- the truth, from the script ---- */

/* the same picture as frame i - 1, to the bit */
static gboolean
truly_repeated (const CfQcClip * clip, guint i)
{
  guint k, kp;
  const CfQcShot *shot, *before;

  if (i == 0)
    return FALSE;
  shot = cf_qc_clip_shot_of (clip, i, &k);
  before = cf_qc_clip_shot_of (clip, i - 1, &kp);
  if (shot == before && shot->frozen)
    return TRUE;
  /* black without noise, in the same bars */
  return shot->scene < 0 && before->scene < 0 &&
      shot->bar_rows == before->bar_rows &&
      shot->bar_columns == before->bar_columns;
}

static CfDetectRect
truly_picture (const CfQcShot * shot)
{
  CfDetectRect r = { shot->bar_columns, shot->bar_rows,
    WIDTH - 2 * shot->bar_columns, HEIGHT - 2 * shot->bar_rows
  };
  return r;
}

static CfDetectTimes
times_of (guint64 frame)
{
  CfDetectTimes t = { frame * FRAME_NS, FRAME_NS, frame * FRAME_NS,
    frame * FRAME_NS
  };
  return t;
}

static void
truth_event (GArray * events, CfDetectEventType type, guint64 frame)
{
  CfDetectEvent e = { 0, };

  e.type = type;
  e.frame = frame;
  e.times = times_of (frame);
  g_array_append_val (events, e);
}

/* runs of @in frames (of @n) lasting @min_ns (from the frame before the
 * run's first for a freeze, whose first frame is the one repeated) */
static void
truth_segments (const gboolean * in, guint n, guint back, guint64 min_ns,
    CfDetectEventType start, GArray * events)
{
  guint i = 0;

  while (i < n) {
    guint j;

    if (!in[i]) {
      i++;
      continue;
    }
    for (j = i; j < n && in[j]; j++);
    if ((guint64) (j - (i - back)) * FRAME_NS >= min_ns) {
      truth_event (events, start, i - back);
      truth_event (events, start + 1, j);
    }
    i = j;
  }
}

/* The events of @clip: its cuts, its freezes and its bars from the
 * script; its black frames, whose share of black pixels a fade makes
 * depend on the format, as counted in @black (reference_events()). */
static GArray *
truth_of (const CfQcClip * clip, const gboolean * black)
{
  GArray *events = g_array_new (FALSE, TRUE, sizeof (CfDetectEvent));
  guint n = cf_qc_clip_frames (clip), i, k;
  gboolean has_stable = FALSE, has_pending = FALSE;
  gboolean *repeated = g_new0 (gboolean, n);
  CfDetectRect stable = { 0, }, pending = { 0, };
  guint pending_frame = 0;

  for (i = 0; i < n; i++) {
    const CfQcShot *shot = cf_qc_clip_shot_of (clip, i, &k);

    if (k == 0 && shot->cut)
      truth_event (events, CF_DETECT_SCENE_CUT, i);
    repeated[i] = truly_repeated (clip, i);
  }
  truth_segments (black, n, 0, settings.black_min_duration,
      CF_DETECT_BLACK_START, events);
  truth_segments (repeated, n, 1, settings.freeze_min_duration,
      CF_DETECT_FREEZE_START, events);
  g_free (repeated);

  /* the crop: each rectangle that holds crop_hold, from its first frame
   * (black frames have none, and change nothing) */
  for (i = 0; i < n; i++) {
    const CfQcShot *shot = cf_qc_clip_shot_of (clip, i, &k);
    CfDetectRect r = truly_picture (shot);

    if (black[i])
      continue;
    if (has_stable && !memcmp (&r, &stable, sizeof (r))) {
      has_pending = FALSE;
      continue;
    }
    if (!has_pending || memcmp (&r, &pending, sizeof (r))) {
      has_pending = TRUE;
      pending = r;
      pending_frame = i;
    }
    if ((guint64) (i + 1 - pending_frame) * FRAME_NS >= settings.crop_hold) {
      truth_event (events, CF_DETECT_CROP_CHANGED, pending_frame);
      g_array_index (events, CfDetectEvent, events->len - 1).rect = r;
      has_stable = TRUE;
      stable = r;
      has_pending = FALSE;
    }
  }
  return events;
}

/* ---- the CPU reference: the kernels' CPU references and the detectors */

typedef struct
{
  CfDetect *detect;
  guint8 *keys;                 /* the previous frame's luma */
  gboolean has_keys;
  guint32 rows[HEIGHT + WIDTH];
  guint32 counts[CF_HIST_MAX_CHANNELS * CF_HIST_BINS];
} Reference;

/* The frame's sums as cudasum's kernels make them, and the detectors' view
 * of it */
static void
reference_push (Reference * ref, GstVideoFrame * frame, guint64 i,
    CfDetectFrame * out, GArray * events)
{
  CfSamplePlane luma = { 0, };
  CfSamplePlane kept = { 0, };
  CfSumKey key = { 0, };
  CfSumStats stats;
  CfDetectInput in = { 0, };

  /* plane 0's key: Y, or the BT.601 luma of RGBA (as cudasum's) */
  luma.data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  luma.pitch = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  luma.width = WIDTH;
  luma.height = HEIGHT;
  luma.bytes_per_pixel = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0);
  memset (luma.channel, 0xff, sizeof (luma.channel));
  luma.channel[0] = 0;
  if (luma.bytes_per_pixel == 4) {
    CfGrayWeights w = cf_gray_weights (CF_GRAY_MATRIX_BT601);

    key.weights[0] = w.kr;
    key.weights[1] = w.kg;
    key.weights[2] = w.kb;
  }

  key.flags = CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_KEEP |
      (ref->has_keys ? CF_SUM_DIFF : 0);
  key.black_threshold = settings.black_threshold;
  key.previous = ref->keys;
  key.previous_pitch = WIDTH;
  cf_ref_sum_planes (&luma, 1, &key, &stats, ref->rows, ref->rows + HEIGHT);

  /* the histogram of the luma just kept, as cudasum counts it */
  kept = luma;
  kept.data = ref->keys;
  kept.pitch = WIDTH;
  kept.bytes_per_pixel = 1;
  cf_ref_hist_planes (&kept, 1, ref->counts);

  in.times = times_of (i);
  in.width = WIDTH;
  in.height = HEIGHT;
  in.has_diff = ref->has_keys;
  in.abs_diff = stats.abs_diff;
  in.has_black = TRUE;
  in.black = stats.black;
  in.luma_counts = ref->counts;
  in.rows = ref->rows;
  cf_detect_push (ref->detect, &settings, &in, out, events);
  ref->has_keys = TRUE;
}

/* Frame @i of @clip in @info's format, timed as frame @i of FPS */
static GstBuffer *
render (CfQcClip * clip, const GstVideoInfo * info, guint i)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame frame;

  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_WRITE));
  cf_qc_clip_render (clip, i, &frame);
  gst_video_frame_unmap (&frame);
  GST_BUFFER_PTS (buf) = i * FRAME_NS;
  GST_BUFFER_DURATION (buf) = FRAME_NS;
  return buf;
}

/* Whether at least black_ratio of @frame's luma is at or under
 * black_threshold, counted plainly */
static gboolean
count_black (GstVideoFrame * frame)
{
  const guint8 *data = GST_VIDEO_FRAME_PLANE_DATA (frame, 0);
  gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  gint bpp = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0);
  CfGrayWeights w = cf_gray_weights (CF_GRAY_MATRIX_BT601);
  guint64 black = 0;
  gint x, y;

  for (y = 0; y < HEIGHT; y++)
    for (x = 0; x < WIDTH; x++) {
      const guint8 *p = data + y * stride + x * bpp;
      guint luma = bpp == 1 ? p[0] :
          (w.kr * p[0] + w.kg * p[1] + w.kb * p[2] + 32768) >> 16;

      black += luma <= settings.black_threshold;
    }
  return black >= settings.black_ratio * WIDTH * HEIGHT;
}

/* The CPU reference's events for @clip in @format, and in @black (to
 * free) which frames are black. */
static GArray *
reference_events (CfQcClip * clip, GstVideoFormat format, gboolean ** black,
    gboolean verbose)
{
  GArray *events = g_array_new (FALSE, TRUE, sizeof (CfDetectEvent));
  Reference ref = { 0, };
  GstVideoInfo info;
  guint i, n = cf_qc_clip_frames (clip);

  ref.detect = cf_detect_new ();
  ref.keys = g_malloc0 (WIDTH * HEIGHT);
  *black = g_new0 (gboolean, n);
  gst_video_info_set_format (&info, format, WIDTH, HEIGHT);
  for (i = 0; i < n; i++) {
    GstBuffer *buf = render (clip, &info, i);
    GstVideoFrame frame;
    CfDetectFrame out;
    guint before = events->len;

    fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
    (*black)[i] = count_black (&frame);
    reference_push (&ref, &frame, i, &out, events);
    if (verbose)
      g_print ("%3u diff %6.2f hist %.3f%s%s area %d,%d %dx%d %s\n", i,
          out.frame_diff, out.hist_diff, out.black ? " black" : "",
          out.frozen ? " still" : "", out.picture_area.x,
          out.picture_area.y, out.picture_area.width,
          out.picture_area.height, events->len > before ? "<- event" : "");
    gst_video_frame_unmap (&frame);
    gst_buffer_unref (buf);
  }
  cf_detect_finish (ref.detect, &settings, events);
  cf_detect_free (ref.detect);
  g_free (ref.keys);
  return events;
}

static gint
by_type_and_frame (gconstpointer a, gconstpointer b)
{
  const CfDetectEvent *x = a, *y = b;

  if (x->type != y->type)
    return x->type < y->type ? -1 : 1;
  return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static gchar *
event_string (const CfDetectEvent * e)
{
  if (e->type == CF_DETECT_CROP_CHANGED)
    return g_strdup_printf ("%s at %" G_GUINT64_FORMAT " (%d,%d %dx%d)",
        cf_detect_event_name (e->type), e->frame, e->rect.x, e->rect.y,
        e->rect.width, e->rect.height);
  return g_strdup_printf ("%s at %" G_GUINT64_FORMAT,
      cf_detect_event_name (e->type), e->frame);
}

/* Every event found is in the truth (precision) and every event of the
 * truth is found (recall), at the same frame and time, with the same
 * rectangle. */
static void
check_events_are_truth (GArray * found, GArray * truth, const gchar * what)
{
  guint i, n = MAX (found->len, truth->len);
  guint misses = 0;

  g_array_sort (found, by_type_and_frame);
  g_array_sort (truth, by_type_and_frame);
  for (i = 0; i < n; i++) {
    CfDetectEvent *f = i < found->len ? &g_array_index (found,
        CfDetectEvent, i) : NULL;
    CfDetectEvent *t = i < truth->len ? &g_array_index (truth,
        CfDetectEvent, i) : NULL;
    gchar *fs = f ? event_string (f) : g_strdup ("nothing");
    gchar *ts = t ? event_string (t) : g_strdup ("nothing");

    if (!f || !t || f->type != t->type || f->frame != t->frame ||
        f->times.pts != t->times.pts || (f->type == CF_DETECT_CROP_CHANGED
            && memcmp (&f->rect, &t->rect, sizeof (f->rect)))) {
      g_printerr ("%s: event %u: found %s, the script has %s\n", what, i, fs,
          ts);
      misses++;
    }
    g_free (fs);
    g_free (ts);
  }
  fail_unless (misses == 0, "%s: %u of %u events differ from the script",
      what, misses, n);
}

/* The clips whose precision and recall are measured: fixed, so that the
 * figure is the detectors', not the draw's (the GPU's tests draw fresh
 * ones: the GPU must equal the CPU on any clip). */
static const guint32 corpus_seeds[] = { 1, 2, 3 };

/* @events' events of the types in @mask (bits of CfDetectEventType) */
static GArray *
only_types (GArray * events, guint mask)
{
  GArray *kept = g_array_new (FALSE, TRUE, sizeof (CfDetectEvent));
  guint i;

  for (i = 0; i < events->len; i++) {
    CfDetectEvent *e = &g_array_index (events, CfDetectEvent, i);

    if (mask & (1u << e->type))
      g_array_append_val (kept, *e);
  }
  return kept;
}

GST_START_TEST (test_reference_finds_the_scripted_events)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_RGBA
  };
  GArray *found, *truth;
  guint f, c;

  for (c = 0; c < G_N_ELEMENTS (corpus_seeds); c++)
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      CfQcClip *clip = cf_qc_clip_new (clip_shots, G_N_ELEMENTS (clip_shots),
          WIDTH, HEIGHT, corpus_seeds[c]);
      gchar *what = g_strdup_printf ("CPU reference, clip %u, %s",
          corpus_seeds[c], gst_video_format_to_string (formats[f]));
      gboolean *black;

      cf_qc_clip_set_noise (clip, NOISE);
      found = reference_events (clip, formats[f], &black,
          g_getenv ("CF_QC_VERBOSE") != NULL);
      truth = truth_of (clip, black);
      check_events_are_truth (found, truth, what);
      g_array_unref (found);
      g_array_unref (truth);
      g_free (black);
      g_free (what);
      cf_qc_clip_free (clip);
    }
}

GST_END_TEST;

/* ---- the detectors at their edges, on made-up sums ---- */

#define EW 10
#define EH 10

/* frame @i of 40 ms: every pixel @luma (a row or column sum luma x its
 * length), @black of them black, differing by @diff in all from the
 * frame before (has_diff: there is one) */
static void
edge_push (CfDetect * d, const CfDetectSettings * set, guint i, guint luma,
    guint black, guint diff, gboolean has_diff, GArray * events)
{
  guint32 counts[CF_DETECT_LUMA_BINS] = { 0, };
  guint32 rows[EH + EW];
  CfDetectInput in = { 0, };
  CfDetectFrame out;
  guint k;

  counts[luma] = EW * EH;
  for (k = 0; k < EH; k++)
    rows[k] = luma * EW;
  for (k = 0; k < EW; k++)
    rows[EH + k] = luma * EH;
  in.times = times_of (i);
  in.width = EW;
  in.height = EH;
  in.has_diff = has_diff;
  in.abs_diff = diff;
  in.has_black = TRUE;
  in.black = black;
  in.luma_counts = counts;
  in.rows = rows;
  cf_detect_push (d, set, &in, &out, events);
}

static void
expect_event (GArray * events, guint index, CfDetectEventType type,
    guint64 frame, guint64 duration)
{
  CfDetectEvent *e;

  fail_unless (index < events->len, "no event %u (of %u)", index, events->len);
  e = &g_array_index (events, CfDetectEvent, index);
  fail_unless (e->type == type && e->frame == frame, "event %u is %s at %"
      G_GUINT64_FORMAT ", not %s at %" G_GUINT64_FORMAT, index,
      cf_detect_event_name (e->type), e->frame, cf_detect_event_name (type),
      frame);
  if (type == CF_DETECT_BLACK_END || type == CF_DETECT_FREEZE_END)
    fail_unless_equals_uint64 (e->duration, duration);
}

/* EOS ends what is open and decides the last frame's cut; a detector
 * turned off ends its segment; a region of no pixels is never still; a
 * black frame with a logo, or an area narrower than the rounding, leaves
 * the crop alone. */
GST_START_TEST (test_detectors_at_their_edges)
{
  CfDetectSettings set = settings;
  GArray *events = g_array_new (FALSE, TRUE, sizeof (CfDetectEvent));
  CfDetect *d = cf_detect_new ();
  guint i;

  set.black_min_duration = 100 * GST_MSECOND;
  set.freeze_min_duration = 10 * GST_SECOND;
  set.crop_hold = 0;
  /* picture, a cut to black, black, a cut back on the last frame */
  for (i = 0; i < 5; i++)
    edge_push (d, &set, i, 100, 0, EW * EH, i > 0, events);
  for (; i < 10; i++)
    edge_push (d, &set, i, 16, EW * EH, i == 5 ? 84 * EW * EH : 0, TRUE,
        events);
  edge_push (d, &set, 10, 100, 0, 84 * EW * EH, TRUE, events);
  cf_detect_finish (d, &set, events);
  expect_event (events, 0, CF_DETECT_CROP_CHANGED, 0, 0);
  expect_event (events, 1, CF_DETECT_SCENE_CUT, 5, 0);
  expect_event (events, 2, CF_DETECT_BLACK_START, 5, 0);
  expect_event (events, 3, CF_DETECT_BLACK_END, 10, 5 * FRAME_NS);
  expect_event (events, 4, CF_DETECT_SCENE_CUT, 10, 0);
  fail_unless_equals_int (events->len, 5);

  /* black turned off half-way through a segment: it ends there */
  cf_detect_reset (d);
  g_array_set_size (events, 0);
  for (i = 0; i < 6; i++)
    edge_push (d, &set, i, 16, EW * EH, 0, i > 0, events);
  set.black = FALSE;
  edge_push (d, &set, 6, 16, EW * EH, 0, TRUE, events);
  expect_event (events, 0, CF_DETECT_BLACK_START, 0, 0);
  expect_event (events, 1, CF_DETECT_BLACK_END, 6, 6 * FRAME_NS);
  fail_unless_equals_int (events->len, 2);
  set.black = TRUE;

  /* a black frame with a logo (one pixel in a hundred), and a picture
   * one column wide with crop-round 2: no crop at all */
  cf_detect_reset (d);
  g_array_set_size (events, 0);
  for (i = 0; i < 3; i++)
    edge_push (d, &set, i, 200, EW * EH - 1, 0, i > 0, events);
  {
    CfDetectInput in = { 0, };
    CfDetectFrame out;
    guint32 rows[EH + EW] = { 0, };

    rows[0] = 255 * EW;         /* one row ... */
    rows[EH + 3] = 255 * EH;    /* ... by one column */
    in.times = times_of (3);
    in.width = EW;
    in.height = EH;
    in.rows = rows;
    cf_detect_push (d, &set, &in, &out, events);
    fail_unless (out.has_crop && out.picture_area.width == 1);
  }
  for (i = 0; i < events->len; i++)
    fail_unless (g_array_index (events, CfDetectEvent, i).type !=
        CF_DETECT_CROP_CHANGED, "a crop from a logo on black, or 1 wide");

  /* a region of no pixels: nothing is still, black or cut */
  cf_detect_reset (d);
  g_array_set_size (events, 0);
  set.freeze_min_duration = 0;
  for (i = 0; i < 30; i++) {
    CfDetectInput in = { 0, };
    CfDetectFrame out;

    in.times = times_of (i);
    in.has_diff = i > 0;
    in.has_black = TRUE;
    cf_detect_push (d, &set, &in, &out, events);
    fail_unless (!out.frozen && !out.black);
  }
  cf_detect_finish (d, &set, events);
  fail_unless_equals_int (events->len, 0);

  cf_detect_free (d);
  g_array_unref (events);
}

GST_END_TEST;

/* ---- cudasum on the GPU ---- */

static guint64
get_u64 (const GstStructure * s, const gchar * field)
{
  guint64 v = 0;

  fail_unless (gst_structure_get_uint64 (s, field, &v), "no %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

static void
get_times (const GstStructure * s, const gchar * prefix, CfDetectTimes * t)
{
  gchar *ts = g_strconcat (prefix, "timestamp", NULL);
  gchar *st = g_strconcat (prefix, "stream-time", NULL);
  gchar *rt = g_strconcat (prefix, "running-time", NULL);

  t->pts = get_u64 (s, ts);
  t->stream_time = get_u64 (s, st);
  t->running_time = get_u64 (s, rt);
  g_free (ts);
  g_free (st);
  g_free (rt);
}

/* The event of a cudasum-* message, or FALSE for another message */
static gboolean
event_of (const GstStructure * s, CfDetectEvent * e)
{
  const gchar *name = gst_structure_get_name (s);
  guint t, x, y, w, h;

  memset (e, 0, sizeof (*e));
  if (!g_str_has_prefix (name, "cudasum-"))
    return FALSE;
  /* what the message has no field for, as the detectors leave it */
  e->start = cf_detect_times (CF_DETECT_TIME_NONE, CF_DETECT_TIME_NONE,
      CF_DETECT_TIME_NONE, CF_DETECT_TIME_NONE);
  e->duration = CF_DETECT_TIME_NONE;
  for (t = CF_DETECT_SCENE_CUT; t <= CF_DETECT_CROP_CHANGED; t++)
    if (!strcmp (name + strlen ("cudasum-"), cf_detect_event_name (t)))
      break;
  fail_unless (t <= CF_DETECT_CROP_CHANGED, "unknown message %s", name);
  e->type = t;
  e->frame = get_u64 (s, "frame");
  get_times (s, "", &e->times);
  if (t == CF_DETECT_SCENE_CUT) {
    fail_unless (gst_structure_get_double (s, "score", &e->score));
    fail_unless (gst_structure_get_double (s, "hist-diff", &e->hist_diff));
  } else if (t == CF_DETECT_BLACK_END || t == CF_DETECT_FREEZE_END) {
    e->start_frame = get_u64 (s, "start-frame");
    e->duration = get_u64 (s, "duration");
    get_times (s, "start-", &e->start);
  } else if (t == CF_DETECT_CROP_CHANGED) {
    fail_unless (gst_structure_get (s, "x", G_TYPE_UINT, &x, "y",
            G_TYPE_UINT, &y, "width", G_TYPE_UINT, &w, "height", G_TYPE_UINT,
            &h, NULL));
    e->rect.x = x;
    e->rect.y = y;
    e->rect.width = w;
    e->rect.height = h;
  }
  return TRUE;
}

/* The events cudasum posts for @clip in @format through @launch (ending
 * with cudasum), in the order posted. */
static GArray *
gpu_events (CfQcClip * clip, GstVideoFormat format, const gchar * launch)
{
  GArray *events = g_array_new (FALSE, TRUE, sizeof (CfDetectEvent));
  guint i, n = cf_qc_clip_frames (clip), results = 0;
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = cf_test_new_harness (launch, &bus);
  GstCaps *caps;
  GstStructure *s;

  gst_video_info_set_format (&info, format, WIDTH, HEIGHT);
  info.fps_n = FPS;
  info.fps_d = 1;
  caps = gst_video_info_to_caps (&info);
  gst_harness_set_src_caps (h, caps);
  for (i = 0; i < n; i++) {
    fail_unless_equals_int (gst_harness_push (h, render (clip, &info, i)),
        GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  /* every frame's message, then the events the end brought */
  while ((s = cf_test_next_result (bus, results < n ? 10 * GST_SECOND : 0))) {
    CfDetectEvent e;

    if (event_of (s, &e))
      g_array_append_val (events, e);
    else if (gst_structure_has_name (s, "cudasum"))
      results++;
    gst_structure_free (s);
  }
  fail_unless_equals_int (results, n);
  cf_test_free_harness (h, bus);
  return events;
}

/* The same events, field for field, in the same order */
static void
check_same_events (GArray * gpu, GArray * cpu, const gchar * what)
{
  guint i;

  for (i = 0; i < MIN (gpu->len, cpu->len); i++) {
    CfDetectEvent *g = &g_array_index (gpu, CfDetectEvent, i);
    CfDetectEvent *c = &g_array_index (cpu, CfDetectEvent, i);
    gchar *gs = event_string (g), *cs = event_string (c);

    fail_unless (g->type == c->type && g->frame == c->frame,
        "%s: event %u is %s, the CPU's %s", what, i, gs, cs);
    fail_unless (g->times.pts == c->times.pts &&
        g->times.stream_time == c->times.stream_time &&
        g->times.running_time == c->times.running_time &&
        g->score == c->score && g->hist_diff == c->hist_diff &&
        g->start_frame == c->start_frame && g->start.pts == c->start.pts &&
        g->start.stream_time == c->start.stream_time &&
        g->start.running_time == c->start.running_time &&
        g->duration == c->duration &&
        !memcmp (&g->rect, &c->rect, sizeof (g->rect)),
        "%s: %s differs from the CPU's in a field", what, gs);
    g_free (gs);
    g_free (cs);
  }
  fail_unless_equals_int (gpu->len, cpu->len);
}

static void
check_gpu (GstVideoFormat format, const gchar * upload, const gchar * what)
{
  CfQcClip *clip = cf_qc_clip_new (clip_shots, G_N_ELEMENTS (clip_shots),
      WIDTH, HEIGHT, g_rand_int (rand_));
  gchar *launch = g_strdup_printf ("%s cudasum " SETTINGS_PROPERTIES,
      upload);
  GArray *gpu, *cpu;
  gboolean *black;

  cf_qc_clip_set_noise (clip, NOISE);
  cpu = reference_events (clip, format, &black, FALSE);
  gpu = gpu_events (clip, format, launch);
  check_same_events (gpu, cpu, what);
  g_free (black);
  g_array_unref (gpu);
  g_array_unref (cpu);
  g_free (launch);
  cf_qc_clip_free (clip);
}

GST_START_TEST (test_cudasum_i420_system_memory)
{
  check_gpu (GST_VIDEO_FORMAT_I420, "", "cudasum, I420 in system memory");
}

GST_END_TEST;

GST_START_TEST (test_cudasum_rgba_system_memory)
{
  check_gpu (GST_VIDEO_FORMAT_RGBA, "", "cudasum, RGBA in system memory");
}

GST_END_TEST;

GST_START_TEST (test_cudasum_nv12_cuda_memory)
{
  check_gpu (GST_VIDEO_FORMAT_NV12, "cudaupload !",
      "cudasum, NV12 in CUDA memory");
}

GST_END_TEST;

/* ---- qc-report, end to end ---- */

static const gchar *const report_settings[] = {
  "--set", "black-min-duration=200000000",
  "--set", "freeze-min-duration=500000000",
  "--set", "crop-hold=400000000",
};

/* Runs the qc-report program (CF_QC_REPORT) with @args: its exit status,
 * and in @err what it wrote on standard error. */
static gint
run_qc_report (const gchar * const *args, gchar ** err)
{
  const gchar *program = g_getenv ("CF_QC_REPORT");
  GPtrArray *argv = g_ptr_array_new ();
  GError *error = NULL;
  gint status = -1;

  fail_unless (program != NULL, "CF_QC_REPORT names no qc-report program");
  g_ptr_array_add (argv, (gpointer) program);
  for (; *args; args++)
    g_ptr_array_add (argv, (gpointer) * args);
  g_ptr_array_add (argv, NULL);
  fail_unless (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL,
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, err, &status, &error),
      "%s", error ? error->message : "");
  g_ptr_array_free (argv, TRUE);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* The usage, a missing file and a file that is no video each end with
 * their own exit status and say so; without a GPU, that comes first. */
GST_START_TEST (test_qc_report_says_what_is_wrong)
{
  gchar *dir = g_dir_make_tmp ("qc-report-XXXXXX", NULL);
  gchar *missing = g_build_filename (dir, "missing.mp4", NULL);
  gchar *text = g_build_filename (dir, "text.mp4", NULL);
  const gchar *no_args[] = { NULL };
  const gchar *no_file[] = { missing, NULL };
  const gchar *no_video[] = { "--quiet", text, NULL };
  gchar *err;

  fail_unless_equals_int (run_qc_report (no_args, &err), 64);
  fail_unless (strstr (err, "usage:") != NULL, "%s", err);
  g_free (err);
  fail_unless_equals_int (run_qc_report (no_file, &err), 2);
  fail_unless (strstr (err, "no such file") != NULL, "%s", err);
  g_free (err);
  fail_unless (g_file_set_contents (text, "not a video\n", -1, NULL));
  if (cf_test_gpu_available ()) {
    fail_unless_equals_int (run_qc_report (no_video, &err), 3);
  } else {
    fail_unless_equals_int (run_qc_report (no_video, &err), 4);
    fail_unless (strstr (err, "CUDA") != NULL, "%s", err);
  }
  g_free (err);
  g_unlink (text);
  g_rmdir (dir);
  g_free (text);
  g_free (missing);
  g_free (dir);
}

GST_END_TEST;

/* Runs @launch to EOS */
static void
run_to_eos (GstElement * pipe)
{
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg;

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS,
      "the pipeline did not reach EOS");
  gst_message_unref (msg);
  gst_object_unref (bus);
}

/* @clip as H.264 in MP4, nearly lossless */
static void
encode_clip (CfQcClip * clip, const gchar * path)
{
  gchar *launch = g_strdup_printf ("appsrc name=src format=time ! "
      "openh264enc bitrate=8000000 ! h264parse ! mp4mux ! "
      "filesink location=\"%s\"", path);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  GstVideoInfo info;
  GstCaps *caps;
  GstFlowReturn ret;
  guint i;

  fail_unless (pipe != NULL, "%s", launch);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, WIDTH, HEIGHT);
  info.fps_n = FPS;
  info.fps_d = 1;
  caps = gst_video_info_to_caps (&info);
  g_object_set (src, "caps", caps, NULL);
  gst_caps_unref (caps);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (i = 0; i < cf_qc_clip_frames (clip); i++) {
    g_signal_emit_by_name (src, "push-buffer", render (clip, &info, i), &ret);
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
  g_signal_emit_by_name (src, "end-of-stream", &ret);
  run_to_eos (pipe);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (src);
  gst_object_unref (pipe);
  g_free (launch);
}

/* The CPU reference's events on @path decoded on the CPU (openh264dec),
 * and in @black which decoded frames are black */
static GArray *
decoded_reference_events (const gchar * path, guint n, gboolean ** black)
{
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! "
      "h264parse ! openh264dec ! video/x-raw,format=I420 ! "
      "appsink name=sink sync=false", path);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GArray *events = g_array_new (FALSE, TRUE, sizeof (CfDetectEvent));
  Reference ref = { 0, };
  GstSample *sample;
  guint i = 0;

  ref.detect = cf_detect_new ();
  ref.keys = g_malloc0 (WIDTH * HEIGHT);
  *black = g_new0 (gboolean, n);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING) !=
      GST_STATE_CHANGE_FAILURE);
  for (;;) {
    GstVideoInfo info;
    GstVideoFrame frame;
    CfDetectFrame out;

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    fail_unless (i < n, "more frames decoded than encoded");
    fail_unless (gst_video_info_from_caps (&info,
            gst_sample_get_caps (sample)));
    fail_unless (gst_video_frame_map (&frame, &info,
            gst_sample_get_buffer (sample), GST_MAP_READ));
    (*black)[i] = count_black (&frame);
    reference_push (&ref, &frame, i, &out, events);
    gst_video_frame_unmap (&frame);
    gst_sample_unref (sample);
    i++;
  }
  fail_unless_equals_int (i, n);
  cf_detect_finish (ref.detect, &settings, events);
  cf_detect_free (ref.detect);
  g_free (ref.keys);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
  return events;
}

static guint64
match_number (const GMatchInfo * m, gint group)
{
  gchar *digits = g_match_info_fetch (m, group);
  guint64 v = g_ascii_strtoull (digits, NULL, 10);

  g_free (digits);
  return v;
}

/* The events of a qc-report summary: one an "events" line */
static GArray *
summary_events (const gchar * path)
{
  GArray *events = g_array_new (FALSE, TRUE, sizeof (CfDetectEvent));
  GRegex *event = g_regex_new ("\\{\"event\":\"([a-z-]+)\",\"frame\":(\\d+),"
      "\"timestamp\":(\\d+)", 0, 0, NULL);
  GRegex *rect = g_regex_new ("\"x\":(\\d+),\"y\":(\\d+),\"width\":(\\d+),"
      "\"height\":(\\d+)", 0, 0, NULL);
  gchar *text, **lines, **l;

  fail_unless (g_file_get_contents (path, &text, NULL, NULL), "%s", path);
  lines = g_strsplit (text, "\n", -1);
  for (l = lines; *l; l++) {
    CfDetectEvent e = { 0, };
    GMatchInfo *m = NULL, *r = NULL;
    gchar *name;
    guint t;

    if (!g_regex_match (event, *l, 0, &m)) {
      g_match_info_free (m);
      continue;
    }
    name = g_match_info_fetch (m, 1);
    for (t = CF_DETECT_SCENE_CUT; t <= CF_DETECT_CROP_CHANGED; t++)
      if (!strcmp (name, cf_detect_event_name (t)))
        break;
    fail_unless (t <= CF_DETECT_CROP_CHANGED, "unknown event %s", name);
    e.type = t;
    e.frame = match_number (m, 2);
    e.times.pts = match_number (m, 3);
    if (t == CF_DETECT_CROP_CHANGED) {
      fail_unless (g_regex_match (rect, *l, 0, &r), "%s", *l);
      e.rect.x = match_number (r, 1);
      e.rect.y = match_number (r, 2);
      e.rect.width = match_number (r, 3);
      e.rect.height = match_number (r, 4);
    }
    g_array_append_val (events, e);
    g_match_info_free (r);
    g_match_info_free (m);
    g_free (name);
  }
  g_strfreev (lines);
  g_free (text);
  g_regex_unref (event);
  g_regex_unref (rect);
  return events;
}

/* The clip, encoded to H.264: qc-report (decodebin, so nvh264dec and CUDA
 * memory where there is one) finds the events the CPU reference finds on
 * the CPU's decode, in the same order; its cuts, black and crop changes
 * are the script's; it writes a line for each frame. */
GST_START_TEST (test_qc_report_on_encoded_clip)
{
  CfQcClip *clip = cf_qc_clip_new (clip_shots, G_N_ELEMENTS (clip_shots),
      WIDTH, HEIGHT, corpus_seeds[0]);
  gchar *dir = g_dir_make_tmp ("qc-report-XXXXXX", NULL);
  gchar *video = g_build_filename (dir, "clip.mp4", NULL);
  gchar *frames = g_build_filename (dir, "frames.jsonl", NULL);
  gchar *summary = g_build_filename (dir, "summary.json", NULL);
  const gchar *args[16];
  guint n = cf_qc_clip_frames (clip), a = 0, i, lines = 0;
  GArray *cpu, *report, *truth;
  gboolean *black;
  gchar *err, *text;

  cf_qc_clip_set_noise (clip, NOISE);
  encode_clip (clip, video);
  cpu = decoded_reference_events (video, n, &black);

  args[a++] = "--quiet";
  args[a++] = "--frames";
  args[a++] = frames;
  args[a++] = "--summary";
  args[a++] = summary;
  for (i = 0; i < G_N_ELEMENTS (report_settings); i++)
    args[a++] = report_settings[i];
  args[a++] = video;
  args[a] = NULL;
  fail_unless_equals_int (run_qc_report (args, &err), 0);
  g_free (err);

  report = summary_events (summary);
  fail_unless_equals_int (report->len, cpu->len);
  for (i = 0; i < cpu->len; i++) {
    CfDetectEvent *r = &g_array_index (report, CfDetectEvent, i);
    CfDetectEvent *c = &g_array_index (cpu, CfDetectEvent, i);
    gchar *rs = event_string (r), *cs = event_string (c);

    fail_unless (r->type == c->type && r->frame == c->frame &&
        !memcmp (&r->rect, &c->rect, sizeof (r->rect)),
        "event %u: qc-report has %s, the CPU reference %s", i, rs, cs);
    g_free (rs);
    g_free (cs);
  }
  /* the encoder keeps the cuts, the black and the bars; it smooths the
   * camera noise of still shots away, which then are still pictures:
   * freezes that the CPU's decode shows as well */
  truth = truth_of (clip, black);
  {
    guint mask = 1u << CF_DETECT_SCENE_CUT | 1u << CF_DETECT_BLACK_START |
        1u << CF_DETECT_BLACK_END | 1u << CF_DETECT_CROP_CHANGED;
    GArray *kept_report = only_types (report, mask);
    GArray *kept_truth = only_types (truth, mask);

    check_events_are_truth (kept_report, kept_truth, "qc-report on H.264");
    g_array_unref (kept_report);
    g_array_unref (kept_truth);
  }

  fail_unless (g_file_get_contents (frames, &text, NULL, NULL));
  for (i = 0; text[i]; i++)
    lines += text[i] == '\n';
  fail_unless_equals_int (lines, n);
  fail_unless (g_str_has_prefix (text, "{\"frame\":0,"));
  g_free (text);

  g_unlink (frames);
  g_unlink (summary);
  g_unlink (video);
  g_rmdir (dir);
  g_array_unref (cpu);
  g_array_unref (report);
  g_array_unref (truth);
  g_free (black);
  g_free (frames);
  g_free (summary);
  g_free (video);
  g_free (dir);
  cf_qc_clip_free (clip);
}

GST_END_TEST;

CF_TEST_SUITE (qc_suite, "qc",
    CF_TEST_CASE ("gpu", 300),
    CF_TEST (test_cudasum_i420_system_memory),
    CF_TEST (test_cudasum_rgba_system_memory),
    CF_TEST (test_cudasum_nv12_cuda_memory));

CF_TEST_SUITE (qc_cpu_suite, "qc-cpu",
    CF_TEST_CASE ("cpu", 300),
    CF_TEST (test_reference_finds_the_scripted_events),
    CF_TEST (test_detectors_at_their_edges));

/* qc-report's own (CF_QC_REPORT: the build has the examples) */
CF_TEST_SUITE (qc_report_cpu_suite, "qc-report-cpu",
    CF_TEST_CASE ("cpu", 300), CF_TEST (test_qc_report_says_what_is_wrong));

CF_TEST_SUITE (qc_report_suite, "qc-report",
    CF_TEST_CASE ("gpu", 300), CF_TEST (test_qc_report_on_encoded_clip));

/* The elements the end-to-end test of qc-report needs, besides a GPU */
static gboolean
report_elements_present (void)
{
  static const gchar *needed[] = { "appsrc", "appsink", "openh264enc",
    "openh264dec", "h264parse", "mp4mux", "qtdemux", "uridecodebin"
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (needed); i++) {
    GstElementFactory *f = gst_element_factory_find (needed[i]);

    if (!f) {
      g_print ("qc-report's end-to-end test needs %s, and there is none "
          "here\n", needed[i]);
      return FALSE;
    }
    gst_object_unref (f);
  }
  return TRUE;
}

/* The "cpu" tests run everywhere; the rest needs a GPU, without which the
 * test is skipped (77) after them. */
int
main (int argc, char **argv)
{
  int ret;

  gboolean report = g_getenv ("CF_QC_REPORT") != NULL;
  gboolean skipped = !report;

  gst_check_init (&argc, &argv);
  rand_ = cf_test_rand ();
  if (!report)
    g_print ("no qc-report in this build (examples disabled): its tests "
        "are not run\n");
  ret = gst_check_run_suite (qc_cpu_suite (), "qc-cpu", __FILE__);
  if (ret == 0 && report)
    ret = gst_check_run_suite (qc_report_cpu_suite (), "qc-report-cpu",
        __FILE__);
  if (ret == 0 && !cf_test_gpu_available ()) {
    g_print ("SKIP: the rest of this test needs a CUDA GPU and there is "
        "none here\n");
    ret = CF_TEST_SKIP;
  } else if (ret == 0) {
    ret = gst_check_run_suite (qc_suite (), "qc", __FILE__);
    if (ret == 0 && report && report_elements_present ())
      ret = gst_check_run_suite (qc_report_suite (), "qc-report", __FILE__);
    else
      skipped = TRUE;
  }
  g_rand_free (rand_);
  /* what did not run is said above: skipped, not passed */
  return ret == 0 && skipped ? CF_TEST_SKIP : ret;
}
