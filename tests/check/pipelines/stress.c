/* Stress and failure-path tests of the cudafilters elements on a GPU: bad
 * buffers, renegotiation, flushing seeks, properties set while playing,
 * state cycles, a long soak, parallel pipelines, a bad device id, EOS edge
 * cases, a blocked sink, the largest frames and device memory running out.
 * Every case checks exact results against CPU references (or the specific
 * error expected) and that the element works afterwards.
 *
 *   stress [--quick] [--case NAME]...
 *
 * --quick (or CF_STRESS_QUICK=1) runs shorter loops.  Exit status: 0, 1 if
 * a case failed, 77 (meson: SKIP) without a GPU.  See docs/reliability.md. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudautils.h>

#include "cf-test-util.h"

/* ---- the run: results of the current case ---- */

static gboolean quick;
static GMutex fail_lock;
static gchar *fail_why;         /* the first failure of the current case */
static gchar *skip_why;
static GString *figures;

/* Records the first failure of the case; returns FALSE. */
static gboolean
failf (const gchar * fmt, ...)
G_GNUC_PRINTF (1, 2);
     static gboolean failf (const gchar * fmt, ...)
{
  va_list ap;
  gchar *msg;

  va_start (ap, fmt);
  msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_mutex_lock (&fail_lock);
  if (!fail_why)
    fail_why = msg;
  else
    g_free (msg);
  g_mutex_unlock (&fail_lock);
  return FALSE;
}

static gboolean
case_failed (void)
{
  gboolean ret;

  g_mutex_lock (&fail_lock);
  ret = fail_why != NULL;
  g_mutex_unlock (&fail_lock);
  return ret;
}

static void
skipf (const gchar * fmt, ...)
G_GNUC_PRINTF (1, 2);
     static void skipf (const gchar * fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  g_free (skip_why);
  skip_why = g_strdup_vprintf (fmt, ap);
  va_end (ap);
}

/* Adds "text" to the figures printed after PASS. */
static void
figuref (const gchar * fmt, ...)
G_GNUC_PRINTF (1, 2);
     static void figuref (const gchar * fmt, ...)
{
  va_list ap;

  if (figures->len)
    g_string_append (figures, ", ");
  va_start (ap, fmt);
  g_string_append_vprintf (figures, fmt, ap);
  va_end (ap);
}

/* On failure: record why and leave through out: */
#define CHECK(cond, ...) G_STMT_START { \
  if (G_UNLIKELY (!(cond))) { failf (__VA_ARGS__); goto out; } \
} G_STMT_END
/* @expr recorded why it failed */
#define TRY(expr) G_STMT_START { if (!(expr)) goto out; } G_STMT_END

#define FRAME_DURATION (GST_SECOND / 30)

/* ---- frames and references ---- */

static gchar *
caps_string (GstVideoFormat format, gint w, gint h)
{
  return g_strdup_printf ("video/x-raw, format=%s, width=%d, height=%d, "
      "framerate=30/1", gst_video_format_to_string (format), w, h);
}

static GstBuffer *
random_frame (GstVideoFormat format, gint w, gint h)
{
  return cf_test_make_frame (format, w, h, 0, FALSE, rand_);
}

/* What cudahist and cudasum must say of one or more frames: per channel
 * (R, G, B, A or Y, U, V) counts, sums, extremes. */
typedef struct
{
  guint n;
  const gchar *names[4];
  guint64 samples[4], sum[4];
  guint min[4], max[4];
  guint64 counts[4][256];
} Stats;

static void
stats_init (Stats * st)
{
  guint c;

  memset (st, 0, sizeof (*st));
  for (c = 0; c < 4; c++)
    st->min[c] = 255;
}

/* Adds the frame @buf (of @info, its video meta honoured) to @st. */
static void
stats_add (Stats * st, GstBuffer * buf, const GstVideoInfo * info)
{
  static const gchar *rgb[] = { "R", "G", "B", "A" };
  static const gchar *yuv[] = { "Y", "U", "V", "A" };
  GstVideoFrame frame;
  guint c, n = GST_VIDEO_INFO_N_COMPONENTS (info);

  g_assert (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  st->n = n;
  for (c = 0; c < n; c++) {
    const guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&frame, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    gint cw = GST_VIDEO_FRAME_COMP_WIDTH (&frame, c);
    gint ch = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c);
    guint64 *counts = st->counts[c];
    guint64 sum = 0;
    guint mn = st->min[c], mx = st->max[c];
    gint x, y;

    st->names[c] = GST_VIDEO_INFO_IS_RGB (info) ? rgb[c] : yuv[c];
    for (y = 0; y < ch; y++) {
      const guint8 *row = data + (gssize) y * stride;
      for (x = 0; x < cw; x++) {
        guint v = row[(gssize) x * pstride];
        counts[v]++;
        sum += v;
        mn = MIN (mn, v);
        mx = MAX (mx, v);
      }
    }
    st->samples[c] += (guint64) cw *ch;
    st->sum[c] += sum;
    st->min[c] = mn;
    st->max[c] = mx;
  }
  gst_video_frame_unmap (&frame);
}

static void
stats_merge (Stats * into, const Stats * from)
{
  guint c, v;

  into->n = from->n;
  for (c = 0; c < from->n; c++) {
    into->names[c] = from->names[c];
    into->samples[c] += from->samples[c];
    into->sum[c] += from->sum[c];
    into->min[c] = MIN (into->min[c], from->min[c]);
    into->max[c] = MAX (into->max[c], from->max[c]);
    for (v = 0; v < 256; v++)
      into->counts[c][v] += from->counts[c][v];
  }
}

static void
stats_of (Stats * st, GstBuffer * buf, const GstVideoInfo * info)
{
  stats_init (st);
  stats_add (st, buf, info);
}

static const GValue *
array_field (const GstStructure * s, const gchar * field, guint n,
    const gchar * what)
{
  const GValue *v = gst_structure_get_value (s, field);

  if (!v || !GST_VALUE_HOLDS_ARRAY (v)) {
    failf ("%s: message has no array field %s: %" GST_PTR_FORMAT, what,
        field, s);
    return NULL;
  }
  if (gst_value_array_get_size (v) != n) {
    failf ("%s: %s has %u entries, want %u", what, field,
        gst_value_array_get_size (v), n);
    return NULL;
  }
  return v;
}

static guint64
u64_at (const GValue * arr, guint i)
{
  const GValue *v = gst_value_array_get_value (arr, i);

  if (G_VALUE_HOLDS_UINT64 (v))
    return g_value_get_uint64 (v);
  if (G_VALUE_HOLDS_UINT (v))
    return g_value_get_uint (v);
  return G_MAXUINT64;
}

/* The common fields and the channel names */
static gboolean
check_header (const GstStructure * s, const gchar * name, const Stats * st,
    guint frames, const gchar * what)
{
  const GValue *names;
  guint got_frames = 0, c;

  if (!gst_structure_has_name (s, name))
    return failf ("%s: message %s, want %s", what, gst_structure_get_name (s),
        name);
  if (!gst_structure_get_uint (s, "frames", &got_frames) ||
      got_frames != frames)
    return failf ("%s: frames %u, want %u", what, got_frames, frames);
  if (!(names = array_field (s, "channels", st->n, what)))
    return FALSE;
  for (c = 0; c < st->n; c++) {
    const gchar *got =
        g_value_get_string (gst_value_array_get_value (names, c));
    if (g_strcmp0 (got, st->names[c]) != 0)
      return failf ("%s: channel %u is %s, want %s", what, c, got,
          st->names[c]);
  }
  return TRUE;
}

/* A cudahist message (bins=256) of @frames frames whose sums are @st */
static gboolean
check_hist (const GstStructure * s, const Stats * st, guint frames,
    const gchar * what)
{
  guint bins = 0, c, v;

  if (!check_header (s, "cudahist", st, frames, what))
    return FALSE;
  if (!gst_structure_get_uint (s, "bins", &bins) || bins != 256)
    return failf ("%s: bins %u, want 256", what, bins);
  for (c = 0; c < st->n; c++) {
    const GValue *arr = array_field (s, st->names[c], 256, what);
    if (!arr)
      return FALSE;
    for (v = 0; v < 256; v++)
      if (u64_at (arr, v) != st->counts[c][v])
        return failf ("%s: %s[%u] = %" G_GUINT64_FORMAT ", want %"
            G_GUINT64_FORMAT, what, st->names[c], v, u64_at (arr, v),
            st->counts[c][v]);
  }
  return TRUE;
}

/* A cudasum message of @frames frames whose sums are @st */
static gboolean
check_sum (const GstStructure * s, const Stats * st, guint frames,
    const gchar * what)
{
  const GValue *sum, *mean, *mn, *mx;
  guint c;

  if (!check_header (s, "cudasum", st, frames, what))
    return FALSE;
  if (!(sum = array_field (s, "sum", st->n, what)) ||
      !(mean = array_field (s, "mean", st->n, what)) ||
      !(mn = array_field (s, "min", st->n, what)) ||
      !(mx = array_field (s, "max", st->n, what)))
    return FALSE;
  for (c = 0; c < st->n; c++) {
    gdouble want_mean = (gdouble) st->sum[c] / (gdouble) st->samples[c];
    gdouble got_mean = g_value_get_double (gst_value_array_get_value (mean, c));

    if (u64_at (sum, c) != st->sum[c])
      return failf ("%s: sum[%s] = %" G_GUINT64_FORMAT ", want %"
          G_GUINT64_FORMAT, what, st->names[c], u64_at (sum, c), st->sum[c]);
    if (fabs (got_mean - want_mean) > 1e-9 * MAX (want_mean, 1.0))
      return failf ("%s: mean[%s] = %.17g, want %.17g", what, st->names[c],
          got_mean, want_mean);
    if (u64_at (mn, c) != st->min[c] || u64_at (mx, c) != st->max[c])
      return failf ("%s: min/max[%s] = %" G_GUINT64_FORMAT "/%"
          G_GUINT64_FORMAT ", want %u/%u", what, st->names[c], u64_at (mn,
              c), u64_at (mx, c), st->min[c], st->max[c]);
  }
  return TRUE;
}

static gboolean
check_stats_msg (const gchar * element, const GstStructure * s,
    const Stats * st, guint frames, const gchar * what)
{
  if (g_str_equal (element, "cudahist"))
    return check_hist (s, st, frames, what);
  return check_sum (s, st, frames, what);
}

/* The GRAY8 frame @out equals @want (w x h, tightly packed) */
static gboolean
gray_matches (GstBuffer * out, const guint8 * want, gint w, gint h,
    const gchar * what)
{
  GstVideoInfo info;
  GstVideoFrame f;
  guint64 bad = 0;
  gint x, y, bx = 0, by = 0;
  guint got_v = 0, want_v = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  if (!gst_video_frame_map (&f, &info, out, GST_MAP_READ))
    return failf ("%s: cannot map the %" G_GSIZE_FORMAT "-byte output as "
        "a %dx%d GRAY8 frame", what, gst_buffer_get_size (out), w, h);
  for (y = 0; y < h; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&f, 0);
    for (x = 0; x < w; x++)
      if (row[x] != want[(gsize) y * w + x]) {
        if (!bad) {
          bx = x;
          by = y;
          got_v = row[x];
          want_v = want[(gsize) y * w + x];
        }
        bad++;
      }
  }
  gst_video_frame_unmap (&f);
  if (bad)
    return failf ("%s: %" G_GUINT64_FORMAT " grey bytes wrong, the first at "
        "(%d, %d): %u, want %u", what, bad, bx, by, got_v, want_v);
  return TRUE;
}

/* ---- bus ---- */

/* The next message of @element (by structure name) or ERROR on @bus, up to
 * @timeout; NULL (and the failure recorded) on ERROR or timeout. */
static GstStructure *
next_result (GstBus * bus, const gchar * element, GstClockTime timeout,
    const gchar * what)
{
  gint64 end = g_get_monotonic_time () + timeout / 1000;

  for (;;) {
    gint64 left = end - g_get_monotonic_time ();
    GstMessage *msg;

    if (left < 0)
      left = 0;
    msg = gst_bus_timed_pop_filtered (bus, left * 1000,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
    if (!msg) {
      failf ("%s: no %s message within %.1f s", what, element,
          (gdouble) timeout / GST_SECOND);
      return NULL;
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      GError *err = NULL;
      gchar *dbg = NULL;

      gst_message_parse_error (msg, &err, &dbg);
      failf ("%s: ERROR from %s: %s (%s)", what, GST_MESSAGE_SRC_NAME (msg),
          err->message, dbg ? dbg : "");
      g_clear_error (&err);
      g_free (dbg);
      gst_message_unref (msg);
      return NULL;
    }
    if (gst_message_get_structure (msg) &&
        gst_structure_has_name (gst_message_get_structure (msg), element)) {
      GstStructure *s = gst_structure_copy (gst_message_get_structure (msg));
      gst_message_unref (msg);
      return s;
    }
    gst_message_unref (msg);
  }
}

/* An ERROR on @bus within @timeout whose text contains @needle (and of
 * @domain and @code where @domain is not 0) */
static gboolean
expect_error (GstBus * bus, const gchar * needle, GQuark domain, gint code,
    GstClockTime timeout, const gchar * what)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *dbg = NULL;
  gboolean ok;

  if (!msg)
    return failf ("%s: no ERROR message within %.1f s", what,
        (gdouble) timeout / GST_SECOND);
  gst_message_parse_error (msg, &err, &dbg);
  ok = strstr (err->message, needle) != NULL &&
      (domain == 0 || (err->domain == domain && err->code == code));
  if (!ok)
    failf ("%s: ERROR \"%s\" (%s, code %d; %s), want one with \"%s\"%s",
        what, err->message, g_quark_to_string (err->domain), err->code,
        dbg ? dbg : "", needle, domain ? " of the expected domain/code" : "");
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  return ok;
}

/* No ERROR is waiting on @bus */
static gboolean
no_error (GstBus * bus, const gchar * what)
{
  GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  GError *err = NULL;

  if (!msg)
    return TRUE;
  gst_message_parse_error (msg, &err, NULL);
  failf ("%s: ERROR from %s: %s", what, GST_MESSAGE_SRC_NAME (msg),
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  return FALSE;
}

/* ---- harnesses of one element ---- */

typedef struct
{
  const gchar *element;
  GstHarness *h;
  GstBus *bus;
  GstVideoInfo info;
} Hn;

static void
hn_caps (Hn * x, GstVideoFormat format, gint w, gint h)
{
  gchar *caps = caps_string (format, w, h);

  gst_harness_set_src_caps_str (x->h, caps);
  g_free (caps);
  gst_video_info_set_format (&x->info, format, w, h);
}

static void
hn_open (Hn * x, const gchar * element, GstVideoFormat format, gint w, gint h)
{
  x->element = element;
  x->h = gst_harness_new (element);
  x->bus = gst_bus_new ();
  gst_element_set_bus (x->h->element, x->bus);
  if (g_str_equal (element, "cudagray"))
    gst_harness_set_sink_caps_str (x->h, "video/x-raw, format=GRAY8");
  hn_caps (x, format, w, h);
}

static void
hn_close (Hn * x)
{
  if (x->h)
    gst_harness_teardown (x->h);
  if (x->bus) {
    gst_bus_set_flushing (x->bus, TRUE);
    gst_object_unref (x->bus);
  }
  memset (x, 0, sizeof (*x));
}

/* Pushes @in (taken) through the harness and checks the element's result
 * against the reference of @ref (the same picture in a plain layout;
 * NULL: @in itself): cudagray's output, or the message of cudahist or
 * cudasum. */
static gboolean
hn_check_frame (Hn * x, GstBuffer * in, GstBuffer * ref, const gchar * what)
{
  gboolean gray = g_str_equal (x->element, "cudagray");
  gint w = GST_VIDEO_INFO_WIDTH (&x->info), h =
      GST_VIDEO_INFO_HEIGHT (&x->info);
  guint8 *want = NULL;
  GstBuffer *out = NULL;
  GstStructure *s = NULL;
  GstFlowReturn fr;
  gboolean ok = FALSE;
  Stats st;

  if (!ref)
    ref = in;
  if (gray)
    want = cf_test_reference_gray (ref, GST_VIDEO_INFO_FORMAT (&x->info), w, h,
        CF_GRAY_MATRIX_BT601);
  else
    stats_of (&st, ref, &x->info);
  fr = gst_harness_push (x->h, in);
  CHECK (fr == GST_FLOW_OK, "%s: %s returned %s", what, x->element,
      gst_flow_get_name (fr));
  out = gst_harness_pull (x->h);
  CHECK (out != NULL, "%s: %s gave no output buffer", what, x->element);
  if (gray) {
    TRY (gray_matches (out, want, w, h, what));
  } else {
    s = next_result (x->bus, x->element, 10 * GST_SECOND, what);
    TRY (s && check_stats_msg (x->element, s, &st, 1, what));
  }
  ok = TRUE;
out:
  g_free (want);
  if (out)
    gst_buffer_unref (out);
  if (s)
    gst_structure_free (s);
  return ok;
}

/* ---- pipelines with appsrc and appsink ---- */

typedef struct
{
  GstElement *pipe, *src, *sink;
  GstBus *bus;
  guint64 pushed;
  GQueue stash;                 /* messages put aside by pipe_pop () */
} Pipe;

/* @desc: a launch line with an appsrc named src and (optionally) an
 * element named sink */
static gboolean
pipe_new (Pipe * p, const gchar * desc)
{
  GError *err = NULL;

  memset (p, 0, sizeof (*p));
  p->pipe = gst_parse_launch (desc, &err);
  if (!p->pipe || err) {
    failf ("cannot make \"%s\": %s", desc, err ? err->message : "?");
    g_clear_error (&err);
    return FALSE;
  }
  p->src = gst_bin_get_by_name (GST_BIN (p->pipe), "src");
  p->sink = gst_bin_get_by_name (GST_BIN (p->pipe), "sink");
  p->bus = gst_element_get_bus (p->pipe);
  return TRUE;
}

static void
pipe_free (Pipe * p)
{
  if (p->pipe)
    gst_element_set_state (p->pipe, GST_STATE_NULL);
  g_clear_object (&p->src);
  g_clear_object (&p->sink);
  g_clear_object (&p->bus);
  g_clear_object (&p->pipe);
  g_queue_clear_full (&p->stash, (GDestroyNotify) gst_message_unref);
}

/* The next message of a type in @types: first one put aside, else from the
 * bus, waiting up to @timeout.  ELEMENT, ERROR and EOS messages of other
 * types are put aside for later (gst_bus_timed_pop_filtered () would drop
 * them), the rest are dropped. */
static GstMessage *
pipe_pop (Pipe * p, GstClockTime timeout, GstMessageType types)
{
  gint64 end = g_get_monotonic_time () + timeout / 1000;
  GList *l;

  for (l = p->stash.head; l; l = l->next)
    if (GST_MESSAGE_TYPE (l->data) & types) {
      GstMessage *msg = l->data;
      g_queue_delete_link (&p->stash, l);
      return msg;
    }
  for (;;) {
    gint64 left = MAX (end - g_get_monotonic_time (), 0);
    GstMessage *msg = gst_bus_timed_pop_filtered (p->bus,
        (GstClockTime) left * 1000,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);

    if (!msg || (GST_MESSAGE_TYPE (msg) & types))
      return msg;
    g_queue_push_tail (&p->stash, msg);
  }
}

/* No ERROR is waiting for @p (other messages are kept) */
static gboolean
pipe_no_error (Pipe * p, const gchar * what)
{
  GstMessage *msg = pipe_pop (p, 0, GST_MESSAGE_ERROR);
  GError *err = NULL;

  if (!msg)
    return TRUE;
  gst_message_parse_error (msg, &err, NULL);
  failf ("%s: ERROR from %s: %s", what, GST_MESSAGE_SRC_NAME (msg),
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  return FALSE;
}

/* Drops every message waiting */
static void
pipe_flush_messages (Pipe * p)
{
  gst_bus_set_flushing (p->bus, TRUE);
  gst_bus_set_flushing (p->bus, FALSE);
  g_queue_clear_full (&p->stash, (GDestroyNotify) gst_message_unref);
}

static gboolean
pipe_play (Pipe * p, const gchar * what)
{
  GstStateChangeReturn r = gst_element_set_state (p->pipe, GST_STATE_PLAYING);

  if (r == GST_STATE_CHANGE_FAILURE) {
    no_error (p->bus, what);
    return failf ("%s: the pipeline did not start", what);
  }
  return TRUE;
}

/* Pushes @buf (not taken; shallow-copied and stamped as frame n) */
static gboolean
pipe_push (Pipe * p, GstBuffer * buf, guint64 n, const gchar * what)
{
  GstBuffer *copy = gst_buffer_copy (buf);
  GstFlowReturn fr = GST_FLOW_ERROR;

  GST_BUFFER_PTS (copy) = n * FRAME_DURATION;
  GST_BUFFER_DURATION (copy) = FRAME_DURATION;
  g_signal_emit_by_name (p->src, "push-buffer", copy, &fr);
  gst_buffer_unref (copy);
  p->pushed++;
  if (fr != GST_FLOW_OK)
    return failf ("%s: appsrc push returned %s", what, gst_flow_get_name (fr));
  return TRUE;
}

static gboolean
pipe_eos (Pipe * p)
{
  GstFlowReturn fr = GST_FLOW_ERROR;

  g_signal_emit_by_name (p->src, "end-of-stream", &fr);
  return fr == GST_FLOW_OK;
}

/* The next buffer of the appsink, NULL after @timeout */
static GstBuffer *
pipe_pull (Pipe * p, GstClockTime timeout)
{
  GstSample *sample = NULL;
  GstBuffer *buf = NULL;

  g_signal_emit_by_name (p->sink, "try-pull-sample", timeout, &sample);
  if (sample) {
    buf = gst_buffer_ref (gst_sample_get_buffer (sample));
    gst_sample_unref (sample);
  }
  return buf;
}

/* Waits for EOS (fails on ERROR or timeout) */
static gboolean
pipe_wait_eos (Pipe * p, GstClockTime timeout, const gchar * what)
{
  GstMessage *msg = pipe_pop (p, timeout,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gboolean ok;

  if (!msg)
    return failf ("%s: no EOS within %.1f s", what,
        (gdouble) timeout / GST_SECOND);
  ok = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (!ok) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    failf ("%s: ERROR from %s: %s", what, GST_MESSAGE_SRC_NAME (msg),
        err->message);
    g_clear_error (&err);
  }
  gst_message_unref (msg);
  return ok;
}

/* A launch line: appsrc ! @middle ! @sink_desc */
static gchar *
launch_line (GstVideoFormat format, gint w, gint h, const gchar * middle,
    const gchar * sink_desc)
{
  gchar *caps = caps_string (format, w, h);
  gchar *line = g_strdup_printf ("appsrc name=src format=time "
      "block=true max-bytes=%u caps=\"%s\" ! %s ! %s", 64 << 20, caps,
      middle, sink_desc);

  g_free (caps);
  return line;
}

/* ---- process and device figures ---- */

static gsize
rss_bytes (void)
{
  gchar *text = NULL;
  gsize rss = 0;

  if (g_file_get_contents ("/proc/self/statm", &text, NULL, NULL)) {
    gchar **f = g_strsplit (text, " ", 3);
    if (f[0] && f[1])
      rss = (gsize) g_ascii_strtoull (f[1], NULL, 10) * sysconf (_SC_PAGESIZE);
    g_strfreev (f);
  }
  g_free (text);
  return rss;
}

static guint
dir_entries (const gchar * path)
{
  GDir *dir = g_dir_open (path, 0, NULL);
  guint n = 0;

  if (!dir)
    return 0;
  while (g_dir_read_name (dir))
    n++;
  g_dir_close (dir);
  return n;
}

typedef CUresult (*MemGetInfoFunc) (size_t *free_bytes, size_t *total);
static MemGetInfoFunc mem_get_info;
static GstCudaContext *test_ctx;        /* the test's own, on device 0 */

static GstCudaContext *
test_context (void)
{
  if (!test_ctx)
    test_ctx = gst_cuda_context_new (0);
  return test_ctx;
}

/* Free and total memory of device 0 (cuMemGetInfo, which GStreamer 1.22's
 * loader does not export: taken from libcuda, which it has loaded). */
static gboolean
device_memory (gsize * free_bytes, gsize * total)
{
  size_t f = 0, t = 0;
  CUresult res;

  if (!mem_get_info) {
    void *lib = dlopen ("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!lib)
      lib = dlopen ("libcuda.so.1", RTLD_NOW);
    if (lib) {
      mem_get_info = (MemGetInfoFunc) dlsym (lib, "cuMemGetInfo_v2");
      if (!mem_get_info)
        mem_get_info = (MemGetInfoFunc) dlsym (lib, "cuMemGetInfo");
    }
  }
  if (!mem_get_info || !test_context ()
      || !gst_cuda_context_push (test_context ()))
    return FALSE;
  res = mem_get_info (&f, &t);
  gst_cuda_context_pop (NULL);
  if (res != CUDA_SUCCESS)
    return FALSE;
  *free_bytes = f;
  if (total)
    *total = t;
  return TRUE;
}

static gsize
device_used (void)
{
  gsize f = 0, t = 0;

  if (!device_memory (&f, &t))
    return 0;
  return t - f;
}

/* Least-squares slope of y over x */
static gdouble
slope (const gdouble * x, const gdouble * y, guint n)
{
  gdouble mx = 0, my = 0, sxx = 0, sxy = 0;
  guint i;

  if (n < 2)
    return 0;
  for (i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  for (i = 0; i < n; i++) {
    sxx += (x[i] - mx) * (x[i] - mx);
    sxy += (x[i] - mx) * (y[i] - my);
  }
  return sxx > 0 ? sxy / sxx : 0;
}

/* ---- a pool of frames and the messages about them ---- */

/* @n random frames of one format and size, with their statistics; frame
 * number i of a stream is frames[i % n]. */
typedef struct
{
  GstVideoInfo info;
  guint n;
  GstBuffer *frames[8];
  Stats stats[8];
} Pool;

static void
pool_init (Pool * pool, GstVideoFormat format, gint w, gint h, guint n)
{
  guint i;

  g_assert (n <= 8);
  memset (pool, 0, sizeof (*pool));
  gst_video_info_set_format (&pool->info, format, w, h);
  pool->n = n;
  for (i = 0; i < n; i++) {
    pool->frames[i] = random_frame (format, w, h);
    stats_of (&pool->stats[i], pool->frames[i], &pool->info);
  }
}

static void
pool_clear (Pool * pool)
{
  guint i;

  for (i = 0; i < pool->n; i++)
    gst_clear_buffer (&pool->frames[i]);
  pool->n = 0;
}

/* The sums of frames first .. first + frames - 1 */
static void
pool_stats (const Pool * pool, guint64 first, guint frames, Stats * st)
{
  guint i;

  stats_init (st);
  for (i = 0; i < frames; i++)
    stats_merge (st, &pool->stats[(first + i) % pool->n]);
}

/* Checks the messages of cudahist or cudasum (interval 0) about frames of
 * a Pool pushed as frame n at PTS n * FRAME_DURATION. */
typedef struct
{
  const gchar *element;
  const Pool *pool;
  guint check_every;            /* check frames n % check_every == 0 */
  guint64 received, checked;
} Tracker;

static gboolean
tracker_handle (Tracker * t, GstMessage * msg, const gchar * what)
{
  const GstStructure *s = gst_message_get_structure (msg);
  guint64 ts = GST_CLOCK_TIME_NONE, n;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    failf ("%s: ERROR from %s: %s (%s)", what, GST_MESSAGE_SRC_NAME (msg),
        err->message, dbg ? dbg : "");
    g_clear_error (&err);
    g_free (dbg);
    return FALSE;
  }
  if (!s || !gst_structure_has_name (s, t->element))
    return TRUE;
  if (!gst_structure_get_uint64 (s, "timestamp", &ts) ||
      ts == GST_CLOCK_TIME_NONE || ts % FRAME_DURATION)
    return failf ("%s: message of timestamp %" G_GUINT64_FORMAT
        " (not one of the frames)", what, ts);
  n = ts / FRAME_DURATION;
  t->received++;
  if (n % t->check_every == 0) {
    gchar *w = g_strdup_printf ("%s, frame %" G_GUINT64_FORMAT, what, n);
    gboolean ok = check_stats_msg (t->element, s,
        &t->pool->stats[n % t->pool->n], 1, w);

    g_free (w);
    t->checked++;
    return ok;
  }
  return TRUE;
}

/* Handles the messages waiting on @bus; then, while fewer than @until
 * have been received, waits for more, up to @timeout in all. */
static gboolean
tracker_drain (Tracker * t, Pipe * p, guint64 until, GstClockTime timeout,
    const gchar * what)
{
  gint64 end = g_get_monotonic_time () + timeout / 1000;
  GstMessage *msg;

  for (;;) {
    gint64 left = end - g_get_monotonic_time ();

    msg = pipe_pop (p, t->received < until && left > 0 ?
        (GstClockTime) left * 1000 : 0,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
    if (!msg)
      break;
    if (!tracker_handle (t, msg, what)) {
      gst_message_unref (msg);
      return FALSE;
    }
    gst_message_unref (msg);
  }
  if (t->received < until)
    return failf ("%s: %" G_GUINT64_FORMAT " %s messages, want %"
        G_GUINT64_FORMAT, what, t->received, t->element, until);
  return TRUE;
}

/* ---- 1. bad buffers ---- */

static const gchar *const checked_elements[] = {
  "cudagray", "cudahist", "cudasum",
};

/* A frame whose buffer does not hold what the caps say, of kind @kind:
 * 0 short, 1 empty, 2 a plane offset past the end, 3 a plane offset near
 * G_MAXSIZE. */
static GstBuffer *
bad_buffer (guint kind, const GstVideoInfo * info)
{
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (info);
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  guint n_planes = GST_VIDEO_INFO_N_PLANES (info);
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  GstBuffer *buf;
  guint p;

  switch (kind) {
    case 0:
      buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info) -
          GST_VIDEO_INFO_PLANE_STRIDE (info, 0) - 1, NULL);
      gst_buffer_memset (buf, 0, 0x55, gst_buffer_get_size (buf));
      return buf;
    case 1:
      return gst_buffer_new_allocate (NULL, 0, NULL);
    default:
      buf = random_frame (format, w, h);
      for (p = 0; p < n_planes; p++) {
        offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (info, p);
        stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
      }
      offset[n_planes - 1] = kind == 2 ? GST_VIDEO_INFO_SIZE (info) + 16 :
          G_MAXSIZE - 64;
      gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
          w, h, n_planes, offset, stride);
      return buf;
  }
}

/* @frame (a plain layout) cut at random byte positions into @blocks
 * memories, with a video meta of the default layout */
static GstBuffer *
split_frame (GstBuffer * frame, const GstVideoInfo * info, guint blocks)
{
  GstBuffer *buf = gst_buffer_new ();
  gsize size = gst_buffer_get_size (frame), cuts[4], start = 0;
  guint i, j, p;
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];

  g_assert (blocks >= 2 && blocks <= 4 && size > blocks);
  for (i = 0; i < blocks - 1; i++)
    cuts[i] = 1 + g_rand_int_range (rand_, 0, (gint32) (size - 1));
  cuts[blocks - 1] = size;
  /* sorted, distinct */
  for (i = 0; i < blocks; i++)
    for (j = i + 1; j < blocks; j++)
      if (cuts[j] < cuts[i]) {
        gsize t = cuts[i];
        cuts[i] = cuts[j];
        cuts[j] = t;
      }
  for (i = 0; i < blocks; i++) {
    gsize len = cuts[i] - start;
    guint8 *data;

    if (len == 0)
      continue;
    data = g_malloc (len);
    gst_buffer_extract (frame, start, data, len);
    gst_buffer_append_memory (buf, gst_memory_new_wrapped (0, data, len, 0,
            len, data, g_free));
    start = cuts[i];
  }
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    offset[p] = GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info), offset,
      stride);
  return buf;
}

/* @frame (a plain layout) stored bottom-up: each plane's rows reversed in
 * place, described by a video meta of negative strides whose offsets are
 * those of each plane's last row */
static GstBuffer *
bottom_up_frame (GstBuffer * frame, const GstVideoInfo * info)
{
  gsize size = gst_buffer_get_size (frame);
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  gsize offset[GST_VIDEO_MAX_PLANES];
  gint stride[GST_VIDEO_MAX_PLANES];
  GstMapInfo src, dst;
  guint p, y;

  gst_buffer_map (frame, &src, GST_MAP_READ);
  gst_buffer_map (buf, &dst, GST_MAP_WRITE);
  memset (dst.data, 0, dst.size);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes, off = GST_VIDEO_INFO_PLANE_OFFSET (info, p);
    gint st = GST_VIDEO_INFO_PLANE_STRIDE (info, p);
    guint rows;

    cf_test_plane_extent (info, p, &row_bytes, &rows);
    for (y = 0; y < rows; y++)
      memcpy (dst.data + off + (gsize) (rows - 1 - y) * st,
          src.data + off + (gsize) y * st, row_bytes);
    offset[p] = off + (gsize) (rows - 1) * st;
    stride[p] = -st;
  }
  gst_buffer_unmap (buf, &dst);
  gst_buffer_unmap (frame, &src);
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_N_PLANES (info), offset,
      stride);
  return buf;
}

static void
case_bad_buffers (void)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420,
  };
  static const gchar *kinds[] = {
    "short buffer", "empty buffer", "plane offset past the end",
    "plane offset near G_MAXSIZE",
  };
  Hn x = { 0 };
  GstBuffer *frame = NULL;
  gchar *what = NULL;
  guint e, f, k, checked = 0;

  for (e = 0; e < G_N_ELEMENTS (checked_elements); e++)
    for (f = 0; f < G_N_ELEMENTS (formats); f++) {
      const gchar *el = checked_elements[e];
      const gchar *fname = gst_video_format_to_string (formats[f]);
      gint w = 67, h = 45;

      for (k = 0; k < G_N_ELEMENTS (kinds); k++) {
        GstFlowReturn fr;

        g_free (what);
        what = g_strdup_printf ("%s %s %s", el, fname, kinds[k]);
        hn_open (&x, el, formats[f], w, h);
        fr = gst_harness_push (x.h, bad_buffer (k, &x.info));
        CHECK (fr == GST_FLOW_ERROR, "%s: push returned %s, want error", what,
            gst_flow_get_name (fr));
        TRY (expect_error (x.bus, "smaller than its caps", 0, 0,
                5 * GST_SECOND, what));
        hn_close (&x);
        checked++;
      }

      /* a fresh element: a good frame, one in 2 or 3 memories, one with
       * negative strides */
      g_free (what);
      what = g_strdup_printf ("%s %s after the bad buffers", el, fname);
      hn_open (&x, el, formats[f], w, h);
      TRY (hn_check_frame (&x, random_frame (formats[f], w, h), NULL, what));

      frame = random_frame (formats[f], w, h);
      g_free (what);
      what = g_strdup_printf ("%s %s split into memories", el, fname);
      TRY (hn_check_frame (&x, split_frame (frame, &x.info, 2), frame, what));
      TRY (hn_check_frame (&x, split_frame (frame, &x.info, 3), frame, what));
      g_free (what);
      what = g_strdup_printf ("%s %s negative strides", el, fname);
      TRY (hn_check_frame (&x, bottom_up_frame (frame, &x.info), frame, what));
      gst_clear_buffer (&frame);
      g_free (what);
      what = g_strdup_printf ("%s %s after the split and bottom-up frames", el,
          fname);
      TRY (hn_check_frame (&x, random_frame (formats[f], w, h), NULL, what));
      hn_close (&x);
      checked += 5;
    }
  figuref ("%u buffers checked", checked);
out:
  hn_close (&x);
  gst_clear_buffer (&frame);
  g_free (what);
}

/* ---- 2. renegotiation ---- */

static void
case_renegotiate (void)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420,
  };
  static const gint sizes[][2] = {
    {1, 1}, {641, 479}, {1920, 1080}, {64, 64},
  };
  Hn x = { 0 };
  gchar *what = NULL;
  guint order[16], e, i, changes = 0;

  for (e = 0; e < G_N_ELEMENTS (checked_elements); e++) {
    const gchar *el = checked_elements[e];

    /* every format and size, in a random order */
    for (i = 0; i < 16; i++)
      order[i] = i;
    for (i = 15; i > 0; i--) {
      guint j = g_rand_int_range (rand_, 0, i + 1), t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    hn_open (&x, el, GST_VIDEO_FORMAT_RGBA, 32, 32);
    TRY (hn_check_frame (&x, random_frame (GST_VIDEO_FORMAT_RGBA, 32, 32),
            NULL, "first frame"));
    for (i = 0; i < 16; i++) {
      GstVideoFormat format = formats[order[i] % 4];
      gint w = sizes[order[i] / 4][0], h = sizes[order[i] / 4][1];

      g_free (what);
      what = g_strdup_printf ("%s after a change to %s %dx%d", el,
          gst_video_format_to_string (format), w, h);
      hn_caps (&x, format, w, h);
      TRY (hn_check_frame (&x, random_frame (format, w, h), NULL, what));
      TRY (hn_check_frame (&x, cf_test_make_frame (format, w, h, 0, TRUE,
                  rand_), NULL, what));
      changes++;
    }
    hn_close (&x);
  }
  figuref ("%u caps changes", changes);
out:
  hn_close (&x);
  g_free (what);
}

/* ---- 8. bad device id ---- */

/* appsrc ! @element cuda-device-id=... ! appsink: frames exact after a
 * cuda-device-id that does not exist failed to start. */
static void
case_bad_device_id (void)
{
  static const gchar *const elements[] = {
    "cudagray", "cudahist", "cudasum", "cudablur",
  };
  Pipe p = { 0 };
  GstElement *el = NULL;
  GstBuffer *in = NULL, *out = NULL;
  GstStructure *s = NULL;
  gchar *line = NULL, *what = NULL;
  guint8 *want = NULL;
  guint i;
  gint w = 160, h = 90;

  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    gchar *middle = g_strdup_printf ("%s name=el cuda-device-id=9999",
        elements[i]);
    GstStateChangeReturn r;
    GstVideoInfo info;

    g_free (what);
    what = g_strdup_printf ("%s cuda-device-id=9999", elements[i]);
    g_free (line);
    line = launch_line (GST_VIDEO_FORMAT_RGBA, w, h, middle,
        "appsink name=sink sync=false");
    g_free (middle);
    TRY (pipe_new (&p, line));
    el = gst_bin_get_by_name (GST_BIN (p.pipe), "el");
    r = gst_element_set_state (p.pipe, GST_STATE_PLAYING);
    if (r == GST_STATE_CHANGE_ASYNC)
      r = gst_element_get_state (p.pipe, NULL, NULL, 10 * GST_SECOND);
    CHECK (r == GST_STATE_CHANGE_FAILURE, "%s: PLAYING gave %s, want failure",
        what, gst_element_state_change_return_get_name (r));
    TRY (expect_error (p.bus, "does not exist", GST_RESOURCE_ERROR,
            GST_RESOURCE_ERROR_NOT_FOUND, 5 * GST_SECOND, what));

    /* the same element, device 0 */
    g_free (what);
    what = g_strdup_printf ("%s cuda-device-id=0 after 9999", elements[i]);
    gst_element_set_state (p.pipe, GST_STATE_NULL);
    pipe_flush_messages (&p);
    g_object_set (el, "cuda-device-id", 0, NULL);
    TRY (pipe_play (&p, what));
    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, w, h);
    in = random_frame (GST_VIDEO_FORMAT_RGBA, w, h);
    if (g_str_equal (elements[i], "cudagray"))
      want = cf_test_reference_gray (in, GST_VIDEO_FORMAT_RGBA, w, h,
          CF_GRAY_MATRIX_BT601);
    TRY (pipe_push (&p, in, 0, what));
    out = pipe_pull (&p, 10 * GST_SECOND);
    CHECK (out != NULL, "%s: no output", what);
    if (want) {
      TRY (gray_matches (out, want, w, h, what));
    } else if (g_str_equal (elements[i], "cudablur")) {
      CHECK (gst_buffer_get_size (out) >= GST_VIDEO_INFO_SIZE (&info),
          "%s: output of %" G_GSIZE_FORMAT " bytes", what,
          gst_buffer_get_size (out));
    } else {
      Stats st;

      stats_of (&st, in, &info);
      s = next_result (p.bus, elements[i], 10 * GST_SECOND, what);
      TRY (s && check_stats_msg (elements[i], s, &st, 1, what));
      gst_structure_free (s);
      s = NULL;
    }
    TRY (no_error (p.bus, what));
    g_clear_pointer (&want, g_free);
    gst_clear_buffer (&in);
    gst_clear_buffer (&out);
    gst_clear_object (&el);
    pipe_free (&p);
  }
out:
  if (s)
    gst_structure_free (s);
  g_free (want);
  gst_clear_buffer (&in);
  gst_clear_buffer (&out);
  gst_clear_object (&el);
  pipe_free (&p);
  g_free (line);
  g_free (what);
}

/* Pushes frames 0 .. frames - 1 of a Pool, then EOS, in its own thread */
typedef struct
{
  Pipe *p;
  const Pool *pool;
  guint frames;
  gint done, stop;
  GstFlowReturn flow;           /* of the last push */
  GThread *thread;
} Pusher;

static gpointer
pusher_thread (gpointer data)
{
  Pusher *ps = data;
  guint i;

  ps->flow = GST_FLOW_OK;
  for (i = 0; i < ps->frames && !g_atomic_int_get (&ps->stop); i++) {
    GstBuffer *copy = gst_buffer_copy (ps->pool->frames[i % ps->pool->n]);

    GST_BUFFER_PTS (copy) = i * FRAME_DURATION;
    GST_BUFFER_DURATION (copy) = FRAME_DURATION;
    g_signal_emit_by_name (ps->p->src, "push-buffer", copy, &ps->flow);
    gst_buffer_unref (copy);
    if (ps->flow != GST_FLOW_OK)
      break;
  }
  if (i == ps->frames)
    pipe_eos (ps->p);
  g_atomic_int_set (&ps->done, 1);
  return NULL;
}

static void
pusher_start (Pusher * ps, Pipe * p, const Pool * pool, guint frames)
{
  ps->p = p;
  ps->pool = pool;
  ps->frames = frames;
  ps->done = ps->stop = 0;
  ps->flow = GST_FLOW_OK;
  ps->thread = g_thread_new ("pusher", pusher_thread, ps);
}

/* Stops the pusher (the pipeline goes to NULL, which wakes a blocked
 * push) and waits for it */
static void
pusher_stop (Pusher * ps)
{
  if (!ps->thread)
    return;
  g_atomic_int_set (&ps->stop, 1);
  gst_element_set_state (ps->p->pipe, GST_STATE_NULL);
  g_thread_join (ps->thread);
  ps->thread = NULL;
}

/* ---- 3. flushing seeks ---- */

/* Frames of seek k (epoch k) start at frame k * EPOCH_FRAMES: a message's
 * timestamp tells which seek its frames came after. */
#define EPOCH_FRAMES G_GUINT64_CONSTANT (1000000)
#define EPOCH_OF(ts) ((ts) / (EPOCH_FRAMES * FRAME_DURATION))

typedef struct
{
  const Pool *pool;
  GMutex lock;
  guint64 next;                 /* the next frame appsrc is fed */
  gint stops;                   /* FLUSH_STOPs that have left cudahist */
  gchar *violation;
} SeekState;

static void
seek_need_data (GstElement * src, guint length, gpointer data)
{
  SeekState *ss = data;
  GstFlowReturn fr;
  GstBuffer *buf;
  guint64 n;

  g_mutex_lock (&ss->lock);
  n = ss->next++;
  g_mutex_unlock (&ss->lock);
  buf = gst_buffer_copy (ss->pool->frames[n % ss->pool->n]);
  GST_BUFFER_PTS (buf) = n * FRAME_DURATION;
  GST_BUFFER_DURATION (buf) = FRAME_DURATION;
  g_signal_emit_by_name (src, "push-buffer", buf, &fr);
  gst_buffer_unref (buf);
}

static gboolean
seek_seek_data (GstElement * src, guint64 offset, gpointer data)
{
  SeekState *ss = data;

  g_mutex_lock (&ss->lock);
  ss->next = offset / FRAME_DURATION;
  g_mutex_unlock (&ss->lock);
  return TRUE;
}

static GstPadProbeReturn
seek_flush_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  SeekState *ss = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_FLUSH_STOP)
    g_atomic_int_inc (&ss->stops);
  return GST_PAD_PROBE_OK;
}

/* In the posting thread: a message of frames from before the last
 * FLUSH_STOP that left the element is a violation. */
static GstBusSyncReply
seek_sync_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  SeekState *ss = data;
  const GstStructure *s = gst_message_get_structure (msg);
  guint64 ts;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT && s &&
      gst_structure_has_name (s, "cudahist") &&
      gst_structure_get_uint64 (s, "timestamp", &ts)) {
    gint stops = g_atomic_int_get (&ss->stops);

    g_mutex_lock (&ss->lock);
    if (EPOCH_OF (ts) < (guint64) stops && !ss->violation)
      ss->violation = g_strdup_printf ("a message of %" GST_TIME_FORMAT
          " (before seek %" G_GUINT64_FORMAT ") was posted after FLUSH_STOP "
          "%d had left cudahist", GST_TIME_ARGS (ts), EPOCH_OF (ts) + 1, stops);
    g_mutex_unlock (&ss->lock);
  }
  return GST_BUS_PASS;
}

static void
case_flush_seek (void)
{
  guint seeks = quick ? 4 : 12, k;
  Pool pool;
  SeekState ss;
  Pipe p = { 0 };
  GstElement *el = NULL;
  GstPad *pad = NULL;
  gchar *caps, *line, *what = NULL;
  guint64 total_msgs = 0;

  memset (&ss, 0, sizeof (ss));
  ss.pool = &pool;
  g_mutex_init (&ss.lock);
  pool_init (&pool, GST_VIDEO_FORMAT_RGBA, 64, 48, 4);
  caps = caps_string (GST_VIDEO_FORMAT_RGBA, 64, 48);
  /* 3 frames an interval: the third ends 3 durations after the first began */
  line = g_strdup_printf ("appsrc name=src format=time stream-type=seekable "
      "caps=\"%s\" ! cudahist name=el interval=%" G_GUINT64_FORMAT " ! "
      "fakesink sync=true", caps, 3 * FRAME_DURATION);
  g_free (caps);
  TRY (pipe_new (&p, line));
  g_signal_connect (p.src, "need-data", G_CALLBACK (seek_need_data), &ss);
  g_signal_connect (p.src, "seek-data", G_CALLBACK (seek_seek_data), &ss);
  el = gst_bin_get_by_name (GST_BIN (p.pipe), "el");
  pad = gst_element_get_static_pad (el, "src");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_EVENT_FLUSH, seek_flush_probe,
      &ss, NULL);
  gst_bus_set_sync_handler (p.bus, seek_sync_handler, &ss, NULL);
  TRY (pipe_play (&p, "start"));
  CHECK (gst_element_get_state (p.pipe, NULL, NULL, 10 * GST_SECOND) ==
      GST_STATE_CHANGE_SUCCESS, "the pipeline did not reach PLAYING");

  for (k = 0; k <= seeks; k++) {
    guint in_epoch = 0;
    gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

    g_free (what);
    what = g_strdup_printf ("after seek %u", k);
    /* 5 intervals of this seek; those of earlier seeks still queued on the
     * bus must be exact too */
    while (in_epoch < 5) {
      GstMessage *msg;
      const GstStructure *s;
      guint64 ts = GST_CLOCK_TIME_NONE;
      guint frames = 0;
      Stats st;

      CHECK (g_get_monotonic_time () < end, "%s: %u messages of this seek "
          "in 10 s", what, in_epoch);
      msg = gst_bus_timed_pop_filtered (p.bus, 100 * GST_MSECOND,
          GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
      if (!msg)
        continue;
      if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
        tracker_handle (NULL, msg, what);
        gst_message_unref (msg);
        goto out;
      }
      s = gst_message_get_structure (msg);
      if (!s || !gst_structure_has_name (s, "cudahist")) {
        gst_message_unref (msg);
        continue;
      }
      gst_structure_get_uint64 (s, "timestamp", &ts);
      gst_structure_get_uint (s, "frames", &frames);
      total_msgs++;
      if (ts == GST_CLOCK_TIME_NONE || ts % FRAME_DURATION ||
          EPOCH_OF (ts) > k || frames != 3) {
        failf ("%s: a message of %u frames at %" GST_TIME_FORMAT ", want 3 "
            "frames of seek %u or earlier", what, frames, GST_TIME_ARGS (ts),
            k);
        gst_message_unref (msg);
        goto out;
      }
      if (EPOCH_OF (ts) == k && in_epoch++ == 0 && k > 0 &&
          ts != k * EPOCH_FRAMES * FRAME_DURATION) {
        failf ("%s: the first interval starts at %" GST_TIME_FORMAT ", want "
            "the seek position %" GST_TIME_FORMAT, what, GST_TIME_ARGS (ts),
            GST_TIME_ARGS (k * EPOCH_FRAMES * FRAME_DURATION));
        gst_message_unref (msg);
        goto out;
      }
      pool_stats (&pool, ts / FRAME_DURATION, 3, &st);
      if (!check_hist (s, &st, 3, what)) {
        gst_message_unref (msg);
        goto out;
      }
      gst_message_unref (msg);
    }
    if (k == seeks)
      break;
    CHECK (gst_element_seek_simple (p.pipe, GST_FORMAT_TIME,
            GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
            (k + 1) * EPOCH_FRAMES * FRAME_DURATION), "seek %u refused", k + 1);
    CHECK (gst_element_get_state (p.pipe, NULL, NULL, 10 * GST_SECOND) ==
        GST_STATE_CHANGE_SUCCESS, "seek %u did not complete", k + 1);
  }
  g_mutex_lock (&ss.lock);
  if (ss.violation)
    failf ("%s", ss.violation);
  g_mutex_unlock (&ss.lock);
  CHECK (g_atomic_int_get (&ss.stops) >= (gint) seeks, "%d FLUSH_STOPs for %u "
      "seeks", g_atomic_int_get (&ss.stops), seeks);
  figuref ("%u seeks, %" G_GUINT64_FORMAT " intervals exact", seeks,
      total_msgs);
out:
  if (p.bus)
    gst_bus_set_sync_handler (p.bus, NULL, NULL, NULL);
  pipe_free (&p);
  gst_clear_object (&pad);
  gst_clear_object (&el);
  pool_clear (&pool);
  g_free (ss.violation);
  g_mutex_clear (&ss.lock);
  g_free (line);
  g_free (what);
}

/* ---- 4. properties set while playing ---- */

static guint64
pick_u64 (GRand * r, guint64 min, guint64 max)
{
  guint64 span = max - min;

  switch (g_rand_int_range (r, 0, 4)) {
    case 0:
      return min;
    case 1:
      return max;
    default:
      return min + (guint64) g_rand_int_range (r, 0,
          (gint32) MIN (span, 10000) + 1);
  }
}

static gint64
pick_i64 (GRand * r, gint64 min, gint64 max)
{
  return min + (gint64) pick_u64 (r, 0, (guint64) (max - min));
}

/* A valid value of @ps: extremes or small values in its range, one of its
 * enum values, a mix of its flags */
static void
random_value (GParamSpec * ps, GValue * v, GRand * r)
{
  g_value_init (v, ps->value_type);
  if (G_IS_PARAM_SPEC_BOOLEAN (ps)) {
    g_value_set_boolean (v, g_rand_boolean (r));
  } else if (G_IS_PARAM_SPEC_UINT (ps)) {
    GParamSpecUInt *u = G_PARAM_SPEC_UINT (ps);
    g_value_set_uint (v, (guint) pick_u64 (r, u->minimum, u->maximum));
  } else if (G_IS_PARAM_SPEC_INT (ps)) {
    GParamSpecInt *i = G_PARAM_SPEC_INT (ps);
    g_value_set_int (v, (gint) pick_i64 (r, i->minimum, i->maximum));
  } else if (G_IS_PARAM_SPEC_UINT64 (ps)) {
    GParamSpecUInt64 *u = G_PARAM_SPEC_UINT64 (ps);
    g_value_set_uint64 (v, pick_u64 (r, u->minimum, u->maximum));
  } else if (G_IS_PARAM_SPEC_INT64 (ps)) {
    GParamSpecInt64 *i = G_PARAM_SPEC_INT64 (ps);
    g_value_set_int64 (v, pick_i64 (r, i->minimum, i->maximum));
  } else if (G_IS_PARAM_SPEC_DOUBLE (ps)) {
    GParamSpecDouble *d = G_PARAM_SPEC_DOUBLE (ps);
    gdouble lo = MAX (d->minimum, 0), hi = MIN (d->maximum, lo + 16);
    /* (negative values, like sigma-y's -1, only as the minimum) */
    g_value_set_double (v, g_rand_int_range (r, 0, 4) == 0 ? d->minimum :
        g_rand_double_range (r, lo, MAX (hi, lo)));
  } else if (G_IS_PARAM_SPEC_ENUM (ps)) {
    GEnumClass *e = G_PARAM_SPEC_ENUM (ps)->enum_class;
    g_value_set_enum (v, e->values[g_rand_int_range (r, 0,
                (gint32) e->n_values)].value);
  } else if (G_IS_PARAM_SPEC_FLAGS (ps)) {
    GFlagsClass *f = G_PARAM_SPEC_FLAGS (ps)->flags_class;
    g_value_set_flags (v, g_rand_int (r) & f->mask);
  } else {
    g_param_value_set_default (ps, v);
  }
}

typedef struct
{
  GstElement *el;
  GParamSpec **props;
  guint n_props;
  gint64 end;
  guint32 seed;
  gboolean toggle_sigma;
  guint sets;
} PropJob;

static gpointer
prop_thread (gpointer data)
{
  PropJob *job = data;
  GRand *r = g_rand_new_with_seed (job->seed);
  gboolean sigma = FALSE;

  while (g_get_monotonic_time () < job->end) {
    if (job->toggle_sigma && g_rand_boolean (r)) {
      sigma = !sigma;
      g_object_set (job->el, "sigma", sigma ? 2.0 : 0.0, NULL);
    } else {
      GParamSpec *ps = job->props[g_rand_int_range (r, 0,
              (gint32) job->n_props)];
      GValue v = G_VALUE_INIT;

      random_value (ps, &v, r);
      g_object_set_property (G_OBJECT (job->el), ps->name, &v);
      g_value_unset (&v);
    }
    job->sets++;
    g_usleep (g_rand_int_range (r, 0, 2000));
  }
  g_rand_free (r);
  return NULL;
}

/* Whether every byte of @buf is 0 */
static gboolean
all_zeros (GstBuffer * buf)
{
  GstMapInfo map;
  gboolean zeros = TRUE;
  gsize i;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return FALSE;
  for (i = 0; i < map.size && zeros; i++)
    zeros = map.data[i] == 0;
  gst_buffer_unmap (buf, &map);
  return zeros;
}

static gboolean
props_while_playing (const gchar * element, gboolean upload,
    const Pool * pool, guint * sets, guint * frames_out)
{
  gchar *middle = g_strdup_printf ("%s%s name=el", upload ? "cudaupload ! " :
      "", element);
  gchar *line = launch_line (GST_VIDEO_FORMAT_RGBA, 320, 240, middle,
      "appsink name=sink sync=false max-buffers=4");
  gchar *what = g_strdup_printf ("%s%s", element, upload ?
      " in CUDA memory" : "");
  gdouble seconds = quick ? 1 : 3;
  Pipe p = { 0 };
  Pusher ps = { NULL };
  PropJob jobs[2];
  GThread *threads[2] = { NULL, NULL };
  GParamSpec **all;
  GPtrArray *props = g_ptr_array_new ();
  GstElement *el = NULL;
  guint n_all, i, out = 0;
  gint64 last = 0, gap = 0, end;
  gboolean ok = FALSE;

  TRY (pipe_new (&p, line));
  el = gst_bin_get_by_name (GST_BIN (p.pipe), "el");
  all = g_object_class_list_properties (G_OBJECT_GET_CLASS (el), &n_all);
  for (i = 0; i < n_all; i++)
    if ((all[i]->flags & G_PARAM_WRITABLE) &&
        !(all[i]->flags & (G_PARAM_CONSTRUCT_ONLY | G_PARAM_CONSTRUCT)) &&
        all[i]->owner_type != GST_TYPE_OBJECT &&
        !g_str_equal (all[i]->name, "cuda-device-id") &&
        !g_str_equal (all[i]->name, "device-id"))
      g_ptr_array_add (props, all[i]);
  g_free (all);
  CHECK (props->len > 0, "%s: no writable property", what);

  TRY (pipe_play (&p, what));
  pusher_start (&ps, &p, pool, G_MAXUINT);
  end = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);
  for (i = 0; i < 2; i++) {
    jobs[i].el = el;
    jobs[i].props = (GParamSpec **) props->pdata;
    jobs[i].n_props = props->len;
    jobs[i].end = end;
    jobs[i].seed = g_rand_int (rand_);
    jobs[i].toggle_sigma = i == 1 && g_str_equal (element, "cudablur");
    jobs[i].sets = 0;
    threads[i] = g_thread_new ("setter", prop_thread, &jobs[i]);
  }
  last = g_get_monotonic_time ();
  while (g_get_monotonic_time () < end) {
    GstBuffer *buf = pipe_pull (&p, 100 * GST_MSECOND);
    gint64 now = g_get_monotonic_time ();

    if (buf) {
      gboolean zeros = all_zeros (buf);

      gst_buffer_unref (buf);
      CHECK (!zeros, "%s: output frame %u is all zeros (input has none)",
          what, out);
      out++;
      gap = MAX (gap, now - last);
      last = now;
    }
    /* results of cudahist and cudasum, and any ERROR */
    for (;;) {
      GstMessage *msg = gst_bus_pop_filtered (p.bus,
          GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
      gboolean error;

      if (!msg)
        break;
      error = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR;
      if (error)
        tracker_handle (NULL, msg, what);
      gst_message_unref (msg);
      if (error)
        goto out;
    }
  }
  gap = MAX (gap, g_get_monotonic_time () - last);
  CHECK (out >= 10, "%s: %u frames out in %.0f s", what, out, seconds);
  CHECK (gap < G_USEC_PER_SEC, "%s: no frame for %.1f s", what, gap / 1e6);
  *sets += jobs[0].sets + jobs[1].sets;
  *frames_out += out;
  ok = TRUE;
out:
  for (i = 0; i < 2; i++)
    if (threads[i])
      g_thread_join (threads[i]);
  pusher_stop (&ps);
  pipe_free (&p);
  gst_clear_object (&el);
  g_ptr_array_free (props, TRUE);
  g_free (middle);
  g_free (line);
  g_free (what);
  return ok;
}

static void
case_properties_while_playing (void)
{
  static const gchar *const elements[] = {
    "cudagray", "cudablur", "cudahist", "cudasum",
  };
  gboolean upload = cf_test_element_exists ("cudaupload");
  guint e, sets = 0, frames = 0;
  Pool pool;
  guint i;

  /* random bytes 1..255: no zero pixel */
  pool_init (&pool, GST_VIDEO_FORMAT_RGBA, 320, 240, 4);
  for (i = 0; i < pool.n; i++) {
    GstMapInfo map;
    gsize b;

    gst_buffer_map (pool.frames[i], &map, GST_MAP_WRITE);
    for (b = 0; b < map.size; b++)
      map.data[b] = map.data[b] ? map.data[b] : 1 + b % 255;
    gst_buffer_unmap (pool.frames[i], &map);
  }
  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    TRY (props_while_playing (elements[e], FALSE, &pool, &sets, &frames));
    if (upload)
      TRY (props_while_playing (elements[e], TRUE, &pool, &sets, &frames));
  }
  figuref ("%u property sets, %u frames out%s", sets, frames,
      upload ? "" : "; no cudaupload: system memory only");
out:
  pool_clear (&pool);
}

/* ---- 5. state cycles ---- */

typedef struct
{
  gsize rss, dev_used;
  guint threads, fds;
} Usage;

static void
usage_now (Usage * u)
{
  u->rss = rss_bytes ();
  u->dev_used = device_used ();
  u->threads = dir_entries ("/proc/self/task");
  u->fds = dir_entries ("/proc/self/fd");
}

/* NULL -> PLAYING -> NULL of one pipeline, a few frames each time, every
 * message exact; afterwards no growth of memory, device memory, threads or
 * file descriptors. */
static void
case_state_cycles (void)
{
  guint cycles = quick ? 60 : 300, warm = 10, i, f;
  Pool pool;
  Pipe p = { 0 };
  Tracker t = { "cudasum", &pool, 1, 0, 0 };
  Usage before = { 0 }, after;
  gchar *line, *what = NULL;
  gssize d_rss, d_dev;
  gint d_threads, d_fds;

  /* the test's own CUDA context first: not counted as growth */
  device_used ();
  pool_init (&pool, GST_VIDEO_FORMAT_RGBA, 320, 240, 3);
  line = launch_line (GST_VIDEO_FORMAT_RGBA, 320, 240, "cudasum",
      "fakesink sync=false");
  TRY (pipe_new (&p, line));
  for (i = 0; i < cycles; i++) {
    g_free (what);
    what = g_strdup_printf ("cycle %u", i);
    if (i == warm)
      usage_now (&before);
    pipe_flush_messages (&p);
    t.received = 0;
    TRY (pipe_play (&p, what));
    for (f = 0; f < 3; f++)
      TRY (pipe_push (&p, pool.frames[f], f, what));
    TRY (tracker_drain (&t, &p, 3, 10 * GST_SECOND, what));
    CHECK (gst_element_set_state (p.pipe, GST_STATE_NULL) ==
        GST_STATE_CHANGE_SUCCESS, "%s: stopping failed", what);
  }
  gst_bus_set_flushing (p.bus, TRUE);
  usage_now (&after);
  d_rss = (gssize) after.rss - (gssize) before.rss;
  d_dev = (gssize) after.dev_used - (gssize) before.dev_used;
  d_threads = (gint) after.threads - (gint) before.threads;
  d_fds = (gint) after.fds - (gint) before.fds;
  figuref ("%u cycles; after %u: RSS %+.1f MiB, device %+.1f MiB, "
      "threads %+d, fds %+d", cycles, warm, d_rss / 1048576.0,
      d_dev / 1048576.0, d_threads, d_fds);
  CHECK (d_rss <= 20 << 20, "RSS grew %.1f MiB over %u cycles",
      d_rss / 1048576.0, cycles - warm);
  CHECK (d_dev <= 64 << 20, "device memory grew %.1f MiB over %u cycles",
      d_dev / 1048576.0, cycles - warm);
  CHECK (d_threads <= 4, "%d more threads after %u cycles", d_threads,
      cycles - warm);
  CHECK (d_fds <= 8, "%d more file descriptors after %u cycles", d_fds,
      cycles - warm);
out:
  pipe_free (&p);
  pool_clear (&pool);
  g_free (line);
  g_free (what);
}

/* ---- 6. soak ---- */

/* CF_STRESS_SANITIZER=1: run under compute-sanitizer, which leaves no
 * trace in the environment that a program could test */
static gboolean
under_sanitizer (void)
{
  return g_getenv ("CF_STRESS_SANITIZER") != NULL;
}

/* @frames 1080p frames through @middle; every 50th message exact; the
 * slopes of RSS and device memory use, KiB per 1000 frames. */
static gboolean
soak_run (const gchar * middle, const gchar * sink, const Pool * pool,
    guint frames, const gchar * what)
{
  Tracker t = { "cudasum", pool, 50, 0, 0 };
  Pipe p = { 0 };
  guint n_samples = 0, i, every = MAX (frames / 40, 1);
  gdouble *x = g_new0 (gdouble, frames / every + 2);
  gdouble *rss = g_new0 (gdouble, frames / every + 2);
  gdouble *dev = g_new0 (gdouble, frames / every + 2);
  gchar *line = launch_line (GST_VIDEO_INFO_FORMAT (&pool->info),
      GST_VIDEO_INFO_WIDTH (&pool->info), GST_VIDEO_INFO_HEIGHT (&pool->info),
      middle, sink);
  gdouble s_rss, s_dev;
  gboolean ok = FALSE;
  gint64 start;

  TRY (pipe_new (&p, line));
  TRY (pipe_play (&p, what));
  start = g_get_monotonic_time ();
  for (i = 0; i < frames; i++) {
    TRY (pipe_push (&p, pool->frames[i % pool->n], i, what));
    TRY (tracker_drain (&t, &p, 0, 0, what));
    /* after a tenth, for the warm-up */
    if (i % every == 0 && i >= frames / 10) {
      x[n_samples] = i;
      rss[n_samples] = rss_bytes () / 1024.0;
      dev[n_samples] = device_used () / 1024.0;
      n_samples++;
    }
  }
  CHECK (pipe_eos (&p), "%s: EOS refused", what);
  TRY (pipe_wait_eos (&p, 60 * GST_SECOND, what));
  TRY (tracker_drain (&t, &p, frames, 10 * GST_SECOND, what));
  CHECK (t.received == frames, "%s: %" G_GUINT64_FORMAT " messages for %u "
      "frames", what, t.received, frames);
  s_rss = slope (x, rss, n_samples) * 1000;
  s_dev = slope (x, dev, n_samples) * 1000;
  figuref ("%s: %u frames, %.0f fps, %" G_GUINT64_FORMAT " checked, "
      "RSS %+.1f KiB/1000 frames, device %+.1f KiB/1000 frames", what, frames,
      frames / ((g_get_monotonic_time () - start) / 1e6), t.checked, s_rss,
      s_dev);
  /* compute-sanitizer's own records, host and device, grow with every
   * launch and allocation it tracks; there its --leak-check judges */
  if (under_sanitizer ()) {
    figuref ("%s: slopes not judged under compute-sanitizer", what);
  } else {
    CHECK (s_rss <= 64, "%s: RSS grows %.1f KiB per 1000 frames", what, s_rss);
    CHECK (s_dev <= 64, "%s: device memory grows %.1f KiB per 1000 frames",
        what, s_dev);
  }
  ok = TRUE;
out:
  pipe_free (&p);
  g_free (line);
  g_free (x);
  g_free (rss);
  g_free (dev);
  return ok;
}

static void
case_soak (void)
{
  guint frames = quick ? 3000 : 20000;
  Pool pool;

  device_used ();               /* (creates the test's context) */
  pool_init (&pool, GST_VIDEO_FORMAT_RGBA, 1920, 1080, 8);
  TRY (soak_run ("cudasum", "fakesink sync=false", &pool, frames,
          "system memory"));
  if (cf_test_element_exists ("cudaupload")) {
    TRY (soak_run ("cudaupload ! cudasum", "fakesink sync=false", &pool,
            frames, "CUDA memory"));
  } else {
    figuref ("no cudaupload: CUDA memory half skipped");
  }
out:
  pool_clear (&pool);
}

/* ---- 7. eight pipelines at once ---- */

typedef struct
{
  guint index;
  Pool pool;
  guint frames;
  GstContext *context;          /* shared, or NULL */
} ParallelJob;

static gpointer
parallel_thread (gpointer data)
{
  ParallelJob *job = data;
  Tracker t = { "cudahist", &job->pool, 1, 0, 0 };
  Pipe p = { 0 };
  gchar *what = g_strdup_printf ("pipeline %u%s", job->index,
      job->context ? " (shared context)" : "");
  gchar *line = launch_line (GST_VIDEO_INFO_FORMAT (&job->pool.info),
      GST_VIDEO_INFO_WIDTH (&job->pool.info),
      GST_VIDEO_INFO_HEIGHT (&job->pool.info), "cudahist",
      "fakesink sync=false");
  guint i;

  TRY (pipe_new (&p, line));
  if (job->context)
    gst_element_set_context (p.pipe, job->context);
  TRY (pipe_play (&p, what));
  for (i = 0; i < job->frames && !case_failed (); i++) {
    TRY (pipe_push (&p, job->pool.frames[i % job->pool.n], i, what));
    TRY (tracker_drain (&t, &p, 0, 0, what));
  }
  CHECK (pipe_eos (&p), "%s: EOS refused", what);
  TRY (pipe_wait_eos (&p, 60 * GST_SECOND, what));
  TRY (tracker_drain (&t, &p, job->frames, 10 * GST_SECOND, what));
  CHECK (t.received == job->frames, "%s: %" G_GUINT64_FORMAT " messages for "
      "%u frames", what, t.received, job->frames);
out:
  pipe_free (&p);
  g_free (line);
  g_free (what);
  return NULL;
}

static void
case_parallel_8 (void)
{
  static const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_BGRx,
  };
  ParallelJob jobs[8];
  GThread *threads[8];
  GstContext *shared = NULL;
  guint share, i, frames = quick ? 150 : 1000;

  for (i = 0; i < 8; i++) {
    jobs[i].index = i;
    jobs[i].frames = frames;
    /* distinct frames and sizes for each pipeline */
    pool_init (&jobs[i].pool, formats[i % 4], 320 + 16 * i, 240 + 6 * i, 4);
  }
  for (share = 0; share < 2 && !case_failed (); share++) {
    gint64 start = g_get_monotonic_time ();

    if (share) {
      CHECK (test_context (), "no CUDA context on device 0");
      shared = gst_context_new_cuda_context (test_context ());
    }
    for (i = 0; i < 8; i++) {
      jobs[i].context = shared;
      threads[i] = g_thread_new ("parallel", parallel_thread, &jobs[i]);
    }
    for (i = 0; i < 8; i++)
      g_thread_join (threads[i]);
    figuref ("%s: 8 x %u frames in %.1f s", share ? "shared context" :
        "own contexts", frames, (g_get_monotonic_time () - start) / 1e6);
  }
out:
  if (shared)
    gst_context_unref (shared);
  for (i = 0; i < 8; i++)
    pool_clear (&jobs[i].pool);
}

/* ---- 9. EOS edge cases ---- */

/* Collects the messages of @element now on @bus: they must tile frames 0
 * .. @frames - 1 of @pool in order, each exact. */
static gboolean
check_interval_messages (Pipe * p, const gchar * element,
    const Pool * pool, guint frames, const gchar * what)
{
  GstMessage *msg;
  guint64 next = 0;
  guint n_msgs = 0;
  gboolean ok = TRUE;

  while (ok && (msg = pipe_pop (p, 0, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR))) {
    const GstStructure *s = gst_message_get_structure (msg);
    guint64 ts = GST_CLOCK_TIME_NONE;
    guint n = 0;
    Stats st;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      ok = failf ("%s: ERROR from %s", what, GST_MESSAGE_SRC_NAME (msg));
    } else if (s && gst_structure_has_name (s, element)) {
      gst_structure_get_uint64 (s, "timestamp", &ts);
      gst_structure_get_uint (s, "frames", &n);
      if (ts != next * FRAME_DURATION) {
        ok = failf ("%s: a message starts at %" GST_TIME_FORMAT ", want "
            "frame %" G_GUINT64_FORMAT, what, GST_TIME_ARGS (ts), next);
      } else if (n > 0 && pool->n == 0) {
        ok = failf ("%s: a message of %u frames, none sent", what, n);
      } else {
        pool_stats (pool, next, n, &st);
        ok = check_stats_msg (element, s, &st, n, what);
        next += n;
        n_msgs++;
      }
    }
    gst_message_unref (msg);
  }
  if (ok && next != frames)
    ok = failf ("%s: %u messages count %" G_GUINT64_FORMAT " frames, want %u",
        what, n_msgs, next, frames);
  return ok;
}

static void
case_eos_edges (void)
{
  static const gchar *const elements[] = {
    "cudagray", "cudablur", "cudahist", "cudasum",
  };
  Pipe p = { 0 };
  Pool pool = { 0 };
  GstElement *el = NULL;
  gchar *line = NULL, *what = NULL;
  guint i, k, sent = 7;

  /* EOS before any data: EOS arrives, no ERROR, no results */
  for (i = 0; i < G_N_ELEMENTS (elements); i++) {
    g_free (what);
    what = g_strdup_printf ("%s, EOS with no data", elements[i]);
    g_free (line);
    line = launch_line (GST_VIDEO_FORMAT_RGBA, 64, 48, elements[i],
        "appsink name=sink sync=false");
    TRY (pipe_new (&p, line));
    TRY (pipe_play (&p, what));
    CHECK (pipe_eos (&p), "%s: EOS refused", what);
    TRY (pipe_wait_eos (&p, 10 * GST_SECOND, what));
    TRY (check_interval_messages (&p, elements[i], &pool, 0, what));
    pipe_free (&p);
  }

  /* interval and region changed just before EOS: the message at EOS has
   * the frames sent, counted whole */
  pool_init (&pool, GST_VIDEO_FORMAT_I420, 96, 64, 4);
  for (i = 2; i < G_N_ELEMENTS (elements); i++) {
    gchar *middle = g_strdup_printf ("%s name=el interval=%" G_GUINT64_FORMAT,
        elements[i], (guint64) 10 * GST_SECOND);

    g_free (what);
    what = g_strdup_printf ("%s, EOS after interval and roi changes",
        elements[i]);
    g_free (line);
    line = launch_line (GST_VIDEO_FORMAT_I420, 96, 64, middle,
        "appsink name=sink sync=false");
    g_free (middle);
    TRY (pipe_new (&p, line));
    el = gst_bin_get_by_name (GST_BIN (p.pipe), "el");
    TRY (pipe_play (&p, what));
    for (k = 0; k < sent; k++)
      TRY (pipe_push (&p, pool.frames[k % pool.n], k, what));
    /* every frame has passed the element */
    for (k = 0; k < sent; k++) {
      GstBuffer *out = pipe_pull (&p, 10 * GST_SECOND);
      CHECK (out != NULL, "%s: frame %u did not come out", what, k);
      gst_buffer_unref (out);
    }
    g_object_set (el, "interval", (guint64) 20 * GST_SECOND, "roi-x", 8,
        "roi-y", 4, "roi-width", 16, "roi-height", 8, NULL);
    CHECK (pipe_eos (&p), "%s: EOS refused", what);
    TRY (pipe_wait_eos (&p, 10 * GST_SECOND, what));
    TRY (check_interval_messages (&p, elements[i], &pool, sent, what));
    gst_clear_object (&el);
    pipe_free (&p);
  }
out:
  gst_clear_object (&el);
  pipe_free (&p);
  pool_clear (&pool);
  g_free (line);
  g_free (what);
}

/* ---- 10. a sink that does not pull ---- */

static gboolean
same_bytes (GstBuffer * a, GstBuffer * b)
{
  GstMapInfo ma, mb;
  gboolean same;

  if (!gst_buffer_map (a, &ma, GST_MAP_READ))
    return FALSE;
  if (!gst_buffer_map (b, &mb, GST_MAP_READ)) {
    gst_buffer_unmap (a, &ma);
    return FALSE;
  }
  same = ma.size == mb.size && memcmp (ma.data, mb.data, ma.size) == 0;
  gst_buffer_unmap (a, &ma);
  gst_buffer_unmap (b, &mb);
  return same;
}

static void
case_blocking_sink (void)
{
  static const gchar *const elements[] = { "cudasum", "cudagray" };
  guint frames = quick ? 60 : 150, e, n;
  Pool pool;
  Pipe p = { 0 };
  Pusher ps = { NULL };
  GstBuffer *out = NULL;
  guint8 *want[4] = { NULL };
  gchar *what = NULL;

  pool_init (&pool, GST_VIDEO_FORMAT_RGBA, 320, 240, 4);
  for (n = 0; n < pool.n; n++)
    want[n] = cf_test_reference_gray (pool.frames[n], GST_VIDEO_FORMAT_RGBA,
        320, 240, CF_GRAY_MATRIX_BT601);
  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    gboolean gray = g_str_equal (elements[e], "cudagray");
    Tracker t = { "cudasum", &pool, 1, 0, 0 };
    gchar *caps = caps_string (GST_VIDEO_FORMAT_RGBA, 320, 240);
    gchar *line = g_strdup_printf ("appsrc name=src format=time block=true "
        "max-bytes=1 caps=\"%s\" ! %s ! appsink name=sink sync=false "
        "max-buffers=1 drop=false%s", caps, elements[e],
        gray ? " caps=video/x-raw,format=GRAY8" : "");

    g_free (caps);
    g_free (what);
    what = g_strdup_printf ("%s to a sink not pulled", elements[e]);
    if (!pipe_new (&p, line)) {
      g_free (line);
      goto out;
    }
    g_free (line);
    TRY (pipe_play (&p, what));
    pusher_start (&ps, &p, &pool, frames);
    g_usleep (2 * G_USEC_PER_SEC);
    CHECK (!g_atomic_int_get (&ps.done), "%s: all %u frames went in with "
        "nothing pulled (dropped?)", what, frames);
    TRY (pipe_no_error (&p, what));
    for (n = 0; n < frames; n++) {
      out = pipe_pull (&p, 10 * GST_SECOND);
      CHECK (out != NULL, "%s: deadlock? no frame %u within 10 s", what, n);
      CHECK (GST_BUFFER_PTS (out) == n * FRAME_DURATION, "%s: frame %u has "
          "PTS %" GST_TIME_FORMAT, what, n,
          GST_TIME_ARGS (GST_BUFFER_PTS (out)));
      if (gray) {
        TRY (gray_matches (out, want[n % pool.n], 320, 240, what));
      } else {
        /* passthrough: the input frame, unchanged */
        CHECK (same_bytes (out, pool.frames[n % pool.n]), "%s: frame %u "
            "changed on its way through", what, n);
      }
      gst_clear_buffer (&out);
      if (!gray)
        TRY (tracker_drain (&t, &p, 0, 0, what));
    }
    TRY (pipe_wait_eos (&p, 10 * GST_SECOND, what));
    if (!gray)
      TRY (tracker_drain (&t, &p, frames, 10 * GST_SECOND, what));
    for (n = 0; n < 100 && !g_atomic_int_get (&ps.done); n++)
      g_usleep (100000);
    CHECK (g_atomic_int_get (&ps.done), "%s: the pusher is stuck", what);
    CHECK (ps.flow == GST_FLOW_OK, "%s: appsrc push returned %s", what,
        gst_flow_get_name (ps.flow));
    pusher_stop (&ps);
    pipe_free (&p);
  }
  figuref ("%u frames held back 2 s, each element", frames);
out:
  gst_clear_buffer (&out);
  pusher_stop (&ps);
  pipe_free (&p);
  for (n = 0; n < 4; n++)
    g_free (want[n]);
  pool_clear (&pool);
  g_free (what);
}

/* ---- 11. the largest frames ---- */

/* Pushes caps straight to the harness's element, whatever it says */
static void
hn_force_caps (Hn * x, GstVideoFormat format, gint w, gint h)
{
  gchar *str = caps_string (format, w, h);
  GstCaps *caps = gst_caps_from_string (str);

  gst_pad_push_event (x->h->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  g_free (str);
}

static void
case_largest_frames (void)
{
  static const gchar *const elements[] = { "cudahist", "cudasum" };
  gint side = 16384;
  Hn x = { 0 };
  gchar *what = NULL;
  guint e;

  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    hn_open (&x, elements[e], GST_VIDEO_FORMAT_GRAY8, side, side);
    g_free (what);
    what = g_strdup_printf ("%s GRAY8 %dx%d solid", elements[e], side, side);
    TRY (hn_check_frame (&x, cf_test_make_frame (GST_VIDEO_FORMAT_GRAY8, side,
                side, 0, TRUE, rand_), NULL, what));
    g_free (what);
    what = g_strdup_printf ("%s GRAY8 %dx%d random", elements[e], side, side);
    TRY (hn_check_frame (&x, random_frame (GST_VIDEO_FORMAT_GRAY8, side,
                side), NULL, what));
    hn_close (&x);
  }

  /* 4 GiB frames are refused in set_caps, and the element goes on */
  for (e = 0; e < G_N_ELEMENTS (checked_elements); e++) {
    g_free (what);
    what = g_strdup_printf ("%s RGBA 32768x32768", checked_elements[e]);
    hn_open (&x, checked_elements[e], GST_VIDEO_FORMAT_RGBA, 64, 64);
    TRY (hn_check_frame (&x, random_frame (GST_VIDEO_FORMAT_RGBA, 64, 64),
            NULL, what));
    hn_force_caps (&x, GST_VIDEO_FORMAT_RGBA, 32768, 32768);
    TRY (expect_error (x.bus, "4 GiB", 0, 0, 5 * GST_SECOND, what));
    g_free (what);
    what = g_strdup_printf ("%s RGBA 64x64 after 4 GiB caps",
        checked_elements[e]);
    hn_caps (&x, GST_VIDEO_FORMAT_RGBA, 64, 64);
    TRY (hn_check_frame (&x, random_frame (GST_VIDEO_FORMAT_RGBA, 64, 64),
            NULL, what));
    hn_close (&x);
  }
  figuref ("%dx%d exact; 4 GiB caps refused", side, side);
out:
  hn_close (&x);
  g_free (what);
}

/* ---- 12. device memory runs out ---- */

/* Allocates device memory until about @leave bytes are free */
static GArray *
hog_device (gsize leave, gsize * hogged)
{
  GArray *hog = g_array_new (FALSE, FALSE, sizeof (CUdeviceptr));
  gsize chunk, free_bytes = 0;

  *hogged = 0;
  if (!device_memory (&free_bytes, NULL)
      || !gst_cuda_context_push (test_context ()))
    return hog;
  for (chunk = (gsize) 1 << 30; chunk >= (1 << 20); chunk /= 2) {
    while (free_bytes > leave + chunk) {
      CUdeviceptr ptr;

      if (CuMemAlloc (&ptr, chunk) != CUDA_SUCCESS)
        break;
      g_array_append_val (hog, ptr);
      *hogged += chunk;
      free_bytes -= chunk;
    }
  }
  gst_cuda_context_pop (NULL);
  return hog;
}

static void
hog_free (GArray * hog)
{
  guint i;

  if (!hog)
    return;
  if (hog->len && gst_cuda_context_push (test_context ())) {
    for (i = 0; i < hog->len; i++)
      CuMemFree (g_array_index (hog, CUdeviceptr, i));
    gst_cuda_context_pop (NULL);
  }
  g_array_free (hog, TRUE);
}

/* An ERROR within @timeout that speaks of CUDA and memory */
static gboolean
expect_oom_error (GstBus * bus, GstClockTime timeout, const gchar * what)
{
  gint64 end = g_get_monotonic_time () + timeout / 1000;
  gchar *first = NULL;
  gboolean ok = FALSE;
  GstMessage *msg;

  while (!ok && (msg = gst_bus_timed_pop_filtered (bus,
              (GstClockTime) MAX (end - g_get_monotonic_time (), 0) * 1000,
              GST_MESSAGE_ERROR))) {
    GError *err = NULL;
    gchar *dbg = NULL, *text, *lower;

    gst_message_parse_error (msg, &err, &dbg);
    text = g_strdup_printf ("%s (%s)", err->message, dbg ? dbg : "");
    lower = g_ascii_strdown (text, -1);
    ok = strstr (lower, "cuda") && (strstr (lower, "out_of_memory") ||
        strstr (lower, "out of memory") || strstr (lower, "allocat"));
    if (!first)
      first = text;
    else
      g_free (text);
    g_free (lower);
    g_clear_error (&err);
    g_free (dbg);
    gst_message_unref (msg);
  }
  if (!ok)
    failf ("%s: %s%s", what, first ? "ERROR without CUDA and out of memory: "
        : "no ERROR", first ? first : "");
  g_free (first);
  return ok;
}

/* One 3840x2160 frame through @element: exact (cudagray, cudasum) or of
 * the right size (cudablur) */
static gboolean
check_4k_frame (const gchar * element, GstContext * context, const gchar * what)
{
  gint w = 3840, h = 2160;
  gchar *line = launch_line (GST_VIDEO_FORMAT_RGBA, w, h, element,
      "appsink name=sink sync=false");
  GstBuffer *in = random_frame (GST_VIDEO_FORMAT_RGBA, w, h), *out = NULL;
  GstStructure *s = NULL;
  guint8 *want = NULL;
  gboolean ok = FALSE;
  GstVideoInfo info;
  Pipe p = { 0 };
  Stats st;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, w, h);
  TRY (pipe_new (&p, line));
  if (context)
    gst_element_set_context (p.pipe, context);
  TRY (pipe_play (&p, what));
  if (g_str_equal (element, "cudagray"))
    want = cf_test_reference_gray (in, GST_VIDEO_FORMAT_RGBA, w, h,
        CF_GRAY_MATRIX_BT601);
  TRY (pipe_push (&p, in, 0, what));
  out = pipe_pull (&p, 10 * GST_SECOND);
  CHECK (out != NULL, "%s: no output", what);
  if (want) {
    TRY (gray_matches (out, want, w, h, what));
  } else if (g_str_equal (element, "cudasum")) {
    stats_of (&st, in, &info);
    s = next_result (p.bus, element, 10 * GST_SECOND, what);
    TRY (s && check_sum (s, &st, 1, what));
  } else {
    CHECK (gst_buffer_get_size (out) >= GST_VIDEO_INFO_SIZE (&info),
        "%s: output of %" G_GSIZE_FORMAT " bytes", what,
        gst_buffer_get_size (out));
  }
  TRY (no_error (p.bus, what));
  ok = TRUE;
out:
  if (s)
    gst_structure_free (s);
  g_free (want);
  gst_clear_buffer (&in);
  gst_clear_buffer (&out);
  pipe_free (&p);
  g_free (line);
  return ok;
}

static void
case_cuda_error_injected (void)
{
  static const gchar *const elements[] = { "cudasum", "cudablur", "cudagray" };
  GstContext *shared = NULL;
  GArray *hog = NULL;
  GstBuffer *small = NULL, *big = NULL, *out = NULL;
  gchar *line = NULL, *what = NULL;
  Pipe p = { 0 };
  gsize hogged = 0, free_bytes = 0;
  guint e;

  CHECK (test_context (), "no CUDA context on device 0");
  if (!device_memory (&free_bytes, NULL)) {
    skipf ("cuMemGetInfo not found in libcuda.so.1");
    goto out;
  }
  shared = gst_context_new_cuda_context (test_context ());
  small = random_frame (GST_VIDEO_FORMAT_RGBA, 64, 48);
  big = random_frame (GST_VIDEO_FORMAT_RGBA, 3840, 2160);
  for (e = 0; e < G_N_ELEMENTS (elements); e++) {
    gchar *caps;

    g_free (what);
    what = g_strdup_printf ("%s with 16 MiB of device memory left",
        elements[e]);
    g_free (line);
    /* the test's context, so that the element needs none of its own */
    line = launch_line (GST_VIDEO_FORMAT_RGBA, 64, 48, elements[e],
        "appsink name=sink sync=false");
    TRY (pipe_new (&p, line));
    gst_element_set_context (p.pipe, shared);
    TRY (pipe_play (&p, what));
    TRY (pipe_push (&p, small, 0, what));
    out = pipe_pull (&p, 10 * GST_SECOND);
    CHECK (out != NULL, "%s: no output for the first small frame", what);
    gst_clear_buffer (&out);

    hog = hog_device (16 << 20, &hogged);
    CHECK (device_memory (&free_bytes, NULL) && free_bytes < (64 << 20),
        "%s: could not fill device memory (%.0f MiB still free)", what,
        free_bytes / 1048576.0);
    caps = caps_string (GST_VIDEO_FORMAT_RGBA, 3840, 2160);
    gst_util_set_object_arg (G_OBJECT (p.src), "caps", caps);
    g_free (caps);
    TRY (pipe_push (&p, big, 1, what));
    TRY (expect_oom_error (p.bus, 10 * GST_SECOND, what));
    pipe_free (&p);
    hog_free (hog);
    hog = NULL;

    g_free (what);
    what = g_strdup_printf ("%s after the device memory came back",
        elements[e]);
    TRY (check_4k_frame (elements[e], shared, what));
    TRY (check_4k_frame (elements[e], NULL, what));
  }
  figuref ("%.0f MiB hogged", hogged / 1048576.0);
out:
  pipe_free (&p);
  hog_free (hog);
  if (shared)
    gst_context_unref (shared);
  gst_clear_buffer (&small);
  gst_clear_buffer (&big);
  gst_clear_buffer (&out);
  g_free (line);
  g_free (what);
}

/* ---- main ---- */

typedef struct
{
  const gchar *name;
  void (*run) (void);
} Case;

static const Case cases[] = {
  {"bad-buffers", case_bad_buffers},
  {"renegotiate", case_renegotiate},
  {"flush-seek", case_flush_seek},
  {"properties-while-playing", case_properties_while_playing},
  {"state-cycles", case_state_cycles},
  {"soak", case_soak},
  {"parallel-8", case_parallel_8},
  {"bad-device-id", case_bad_device_id},
  {"eos-edges", case_eos_edges},
  {"blocking-sink", case_blocking_sink},
  {"largest-frames", case_largest_frames},
  {"cuda-error-injected", case_cuda_error_injected},
};

static void
usage (void)
{
  guint i;

  g_printerr ("usage: stress [--quick] [--case NAME]...\ncases:");
  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    g_printerr (" %s", cases[i].name);
  g_printerr ("\n");
}

int
main (int argc, char **argv)
{
  gboolean selected[G_N_ELEMENTS (cases)] = { FALSE };
  gboolean any_selected = FALSE, gpu;
  const gchar *env = g_getenv ("CF_STRESS_QUICK");
  guint n_pass = 0, n_fail = 0, n_skip = 0, i, c;

  gst_init (&argc, &argv);
  quick = env && env[0] && g_strcmp0 (env, "0") != 0;
  for (i = 1; i < (guint) argc; i++) {
    const gchar *name = NULL;

    if (g_str_equal (argv[i], "--quick")) {
      quick = TRUE;
      continue;
    } else if (g_str_equal (argv[i], "--case") && i + 1 < (guint) argc) {
      name = argv[++i];
    } else if (g_str_has_prefix (argv[i], "--case=")) {
      name = argv[i] + strlen ("--case=");
    } else {
      usage ();
      return 2;
    }
    for (c = 0; c < G_N_ELEMENTS (cases); c++)
      if (g_str_equal (cases[c].name, name))
        break;
    if (c == G_N_ELEMENTS (cases)) {
      g_printerr ("stress: no case %s\n", name);
      usage ();
      return 2;
    }
    selected[c] = any_selected = TRUE;
  }
  if (!any_selected)
    for (c = 0; c < G_N_ELEMENTS (cases); c++)
      selected[c] = TRUE;

  g_print ("stress: %s run\n", quick ? "quick" : "full");
  rand_ = cf_test_rand ();
  gpu = cf_test_gpu_available ();
  figures = g_string_new (NULL);
  for (c = 0; c < G_N_ELEMENTS (cases); c++) {
    gint64 start;

    if (!selected[c])
      continue;
    if (!gpu) {
      g_print ("SKIP %s: this test needs a CUDA GPU and there is none here\n",
          cases[c].name);
      n_skip++;
      continue;
    }
    g_clear_pointer (&fail_why, g_free);
    g_clear_pointer (&skip_why, g_free);
    g_string_truncate (figures, 0);
    start = g_get_monotonic_time ();
    cases[c].run ();
    figuref ("%.1f s", (g_get_monotonic_time () - start) / 1e6);
    if (fail_why) {
      g_print ("FAIL %s: %s\n", cases[c].name, fail_why);
      n_fail++;
    } else if (skip_why) {
      g_print ("SKIP %s: %s\n", cases[c].name, skip_why);
      n_skip++;
    } else {
      g_print ("PASS %s  (%s)\n", cases[c].name, figures->str);
      n_pass++;
    }
  }
  g_print ("stress: %u passed, %u failed, %u skipped\n", n_pass, n_fail,
      n_skip);
  g_string_free (figures, TRUE);
  g_rand_free (rand_);
  if (test_ctx)
    gst_object_unref (test_ctx);
  if (n_fail)
    return 1;
  return gpu ? 0 : CF_TEST_SKIP;
}
