/* cudahist on the GPU through GstHarness: counts of every format in both
 * memory types against counts made here directly from the frame (odd
 * sizes, padded strides, random, solid and gradient frames, every bins
 * value kind and regions of interest); the message's fields and times with
 * and without an interval; the partial interval at EOS; a timestamp going
 * back; a flush; no message with post-messages=false; the meta; frames
 * passed through untouched. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "cf-test-util.h"

typedef struct
{
  guint x, y, w, h;             /* 0 w/h: to the edge */
} Roi;

/* The expected counts of @buf, straight from its components: counts[c][v]
 * for the channels R, G, B(, A) or Y(, U, V); subsampled components count
 * every sample covering part of the region. */
static guint
reference_counts (GstBuffer * buf, const GstVideoInfo * info, const Roi * roi,
    guint bins, guint64 counts[4][256], guint64 * pixels)
{
  GstVideoFrame frame;
  guint width = GST_VIDEO_INFO_WIDTH (info), height =
      GST_VIDEO_INFO_HEIGHT (info);
  guint x0 = MIN (roi->x, width), y0 = MIN (roi->y, height);
  guint w = roi->w ? MIN (roi->w, width - x0) : width - x0;
  guint h = roi->h ? MIN (roi->h, height - y0) : height - y0;
  guint n = GST_VIDEO_INFO_N_COMPONENTS (info), c, x, y;

  memset (counts, 0, sizeof (guint64) * 4 * 256);
  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  for (c = 0; c < n; c++) {
    guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
    guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);
    guint cx0 = x0 >> ws, cy0 = y0 >> hs;
    guint cx1 = w ? (x0 + w + (1 << ws) - 1) >> ws : cx0;
    guint cy1 = h ? (y0 + h + (1 << hs) - 1) >> hs : cy0;
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
    const guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&frame, c);

    for (y = cy0; y < cy1; y++)
      for (x = cx0; x < cx1; x++)
        counts[c][data[(gsize) y * stride + (gsize) x * pstride] * bins /
            256]++;
  }
  gst_video_frame_unmap (&frame);
  *pixels = (guint64) w *h;
  return n;
}

static const gchar *
channel_name (const GstVideoInfo * info, guint c)
{
  static const gchar *rgb[] = { "R", "G", "B", "A" }, *yuv[] = {
    "Y", "U", "V"
  };
  return GST_VIDEO_INFO_IS_RGB (info) ? rgb[c] : yuv[c];
}

/* @s holds @frames times the counts of @buf. */
static void
check_counts (const GstStructure * s, GstBuffer * buf,
    const GstVideoInfo * info, const Roi * roi, guint bins, guint frames,
    const gchar * what)
{
  guint64 want[4][256], pixels, got_pixels;
  guint n = reference_counts (buf, info, roi, bins, want, &pixels), c, b;
  guint got_bins, got_frames;
  const GValue *names;

  fail_unless (gst_structure_has_name (s, "cudahist"), "%s", what);
  fail_unless (gst_structure_get_uint (s, "bins", &got_bins));
  fail_unless_equals_int (got_bins, bins);
  fail_unless (gst_structure_get_uint (s, "frames", &got_frames));
  fail_unless_equals_int (got_frames, frames);
  fail_unless (gst_structure_get_uint64 (s, "pixels", &got_pixels));
  fail_unless (got_pixels == pixels * frames, "%s: pixels %" G_GUINT64_FORMAT
      ", want %" G_GUINT64_FORMAT, what, got_pixels, pixels * frames);
  names = gst_structure_get_value (s, "channels");
  fail_unless (names && gst_value_array_get_size (names) == n, "%s", what);

  for (c = 0; c < n; c++) {
    const gchar *name = channel_name (info, c);
    const GValue *arr = gst_structure_get_value (s, name);
    guint64 total = 0;

    fail_unless_equals_string (g_value_get_string
        (gst_value_array_get_value (names, c)), name);
    fail_unless (arr && gst_value_array_get_size (arr) == bins,
        "%s: channel %s missing or of the wrong size", what, name);
    for (b = 0; b < bins; b++) {
      guint64 got = g_value_get_uint64 (gst_value_array_get_value (arr, b));
      fail_unless (got == want[c][b] * frames, "%s: channel %s bin %u: got %"
          G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, what, name, b, got,
          want[c][b] * frames);
      total += got;
    }
    /* every full-resolution channel counts each pixel once */
    if (GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c) == 0 &&
        GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c) == 0)
      fail_unless (total == got_pixels, "%s: channel %s sums to %"
          G_GUINT64_FORMAT ", not %" G_GUINT64_FORMAT, what, name, total,
          got_pixels);
  }
}


/* One frame through @launch (a cudahist pipeline of @bins bins and @roi):
 * the same buffer comes out with the same bytes, and one message with its
 * counts. */
static void
run_frame (const gchar * launch, GstVideoFormat format, gint w, gint h,
    guint pad, FrameKind kind, guint bins, const Roi * roi)
{
  GstBus *bus;
  GstHarness *hr = cf_test_new_harness (launch, &bus);
  GstVideoInfo info;
  GstBuffer *in, *out, *copy;
  GstStructure *s;
  gchar *what = g_strdup_printf ("%s %s %dx%d pad %u kind %d",
      launch, gst_video_format_to_string (format), w, h, pad, kind);

  gst_video_info_set_format (&info, format, w, h);
  gst_harness_set_src_caps (hr, gst_video_info_to_caps (&info));
  in = make_frame (format, w, h, pad, kind);
  copy = gst_buffer_copy_deep (in);
  fail_unless_equals_int (gst_harness_push (hr, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (hr);

  /* untouched: system memory frames are the very buffer pushed */
  if (strstr (launch, "cudaupload") == NULL)
    fail_unless (out == in, "%s: not passed through", what);
  fail_unless (cf_test_frames_equal (out, copy, &info), "%s: frame modified",
      what);

  s = cf_test_next_result (bus, 10 * GST_SECOND);
  fail_unless (s != NULL, "%s: no message", what);
  /* the counts of the frame as pushed (the video meta describes it) */
  check_counts (s, in, &info, roi, bins, 1, what);
  gst_structure_free (s);

  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_buffer_unref (copy);
  cf_test_free_harness (hr, bus);
  g_free (what);
}

GST_START_TEST (test_every_format_system_memory)
{
  static const Roi whole = { 0, 0, 0, 0 };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (cf_test_sys_formats); f++) {
    run_frame ("cudahist", cf_test_sys_formats[f], 1, 1, 0, FRAME_RANDOM, 256,
        &whole);
    run_frame ("cudahist", cf_test_sys_formats[f], 3, 7, 0, FRAME_RANDOM, 256,
        &whole);
    run_frame ("cudahist", cf_test_sys_formats[f], 1921, 1081, 20, FRAME_RANDOM,
        256, &whole);
    run_frame ("cudahist", cf_test_sys_formats[f], 640, 361, 4, FRAME_SOLID,
        256, &whole);
    run_frame ("cudahist", cf_test_sys_formats[f], 333, 64, 0, FRAME_GRADIENT,
        256, &whole);
  }
}

GST_END_TEST;

GST_START_TEST (test_bins_and_regions)
{
  static const Roi rois[] = {
    {0, 0, 0, 0}, {1, 1, 1, 1}, {3, 5, 17, 9}, {100, 0, 0, 1}, {0, 100, 1, 0},
    {5000, 0, 0, 0},            /* outside: nothing counted */
    {298, 200, 50, 50},         /* clipped */
  };
  static const guint bins[] = { 1, 7, 16, 100, 256 };
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_BGRA,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12
  };
  guint r, b, f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (r = 0; r < G_N_ELEMENTS (rois); r++)
      for (b = 0; b < G_N_ELEMENTS (bins); b++) {
        gchar *launch = g_strdup_printf ("cudahist bins=%u roi-x=%u roi-y=%u "
            "roi-width=%u roi-height=%u", bins[b], rois[r].x, rois[r].y,
            rois[r].w, rois[r].h);
        run_frame (launch, formats[f], 301, 211, 12, FRAME_RANDOM, bins[b],
            &rois[r]);
        g_free (launch);
      }
}

GST_END_TEST;

GST_START_TEST (test_cuda_memory)
{
  static const Roi whole = { 0, 0, 0, 0 }, part = { 7, 3, 100, 50 };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (cf_test_cuda_formats); f++) {
    run_frame ("cudaupload ! cudahist ! cudadownload", cf_test_cuda_formats[f],
        1921, 1081, 0, FRAME_RANDOM, 256, &whole);
    run_frame ("cudaupload ! cudahist bins=64 roi-x=7 roi-y=3 roi-width=100 "
        "roi-height=50 ! cudadownload", cf_test_cuda_formats[f], 321, 241, 0,
        FRAME_RANDOM, 64, &part);
  }
}

GST_END_TEST;

/* Frames of 1/30 s from 0 in a segment that starts at 10 s of running
 * time; @interval ns per message. */
static GstHarness *
timed_harness (const gchar * launch, GstBus ** bus)
{
  GstHarness *h = cf_test_new_harness (launch, bus);
  GstSegment segment;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,"
      "height=48,framerate=30/1");
  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.base = 10 * GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  return h;
}

static GstBuffer *
timed_frame (guint i, GstBuffer * like)
{
  GstBuffer *buf = like ? gst_buffer_ref (like) :
      make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0, FRAME_RANDOM);

  buf = gst_buffer_make_writable (buf);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, 30);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (i + 1, GST_SECOND, 30) -
      GST_BUFFER_PTS (buf);
  return buf;
}

static void
check_times (const GstStructure * s, guint first_frame, guint frames)
{
  guint64 ts, st, rt, dur;
  GstClockTime start = gst_util_uint64_scale (first_frame, GST_SECOND, 30);
  GstClockTime end = gst_util_uint64_scale (first_frame + frames, GST_SECOND,
      30);

  fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
  fail_unless (gst_structure_get_uint64 (s, "stream-time", &st));
  fail_unless (gst_structure_get_uint64 (s, "running-time", &rt));
  fail_unless (gst_structure_get_uint64 (s, "duration", &dur));
  fail_unless_equals_uint64 (ts, start);
  fail_unless_equals_uint64 (st, start);
  fail_unless_equals_uint64 (rt, start + 10 * GST_SECOND);
  fail_unless_equals_uint64 (dur, end - start);
}

/* The next message on @bus (waiting up to @timeout) sums the timed frames
 * @first to @first + @frames - 1, each with the counts of @frame (RGBA 64 x
 * 48, the whole frame, 256 bins). */
static void
expect_timed_message (GstBus * bus, GstClockTime timeout, GstBuffer * frame,
    guint first, guint frames, const gchar * what)
{
  static const Roi whole = { 0, 0, 0, 0 };
  GstStructure *s = cf_test_next_result (bus, timeout);
  GstVideoInfo info;

  fail_unless (s != NULL, "%s: no message", what);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  check_times (s, first, frames);
  check_counts (s, frame, &info, &whole, 256, frames, what);
  gst_structure_free (s);
}

GST_START_TEST (test_messages_every_frame)
{
  GstBus *bus;
  GstHarness *h = timed_harness ("cudahist", &bus);
  GstBuffer *frames[12];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (frames); i++) {
    frames[i] = timed_frame (i, NULL);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (frames[i])),
        GST_FLOW_OK);
  }
  /* in frame order, one each, with the frame's own counts and times */
  for (i = 0; i < G_N_ELEMENTS (frames); i++) {
    expect_timed_message (bus, 10 * GST_SECOND, frames[i], i, 1, "every frame");
    gst_buffer_unref (frames[i]);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (cf_test_next_result (bus, 0) == NULL, "a message more at EOS");
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

GST_START_TEST (test_interval_and_eos)
{
  GstBus *bus;
  /* 0.1 s: three frames of 1/30 s each */
  GstHarness *h = timed_harness ("cudahist interval=100000000", &bus);
  GstBuffer *frame = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0,
      FRAME_RANDOM);
  guint i;

  for (i = 0; i < 10; i++)
    fail_unless_equals_int (gst_harness_push (h, timed_frame (i, frame)),
        GST_FLOW_OK);
  for (i = 0; i < 3; i++)
    expect_timed_message (bus, 10 * GST_SECOND, frame, 3 * i, 3, "interval");
  fail_unless (cf_test_next_result (bus, 100 * GST_MSECOND) == NULL,
      "the partial interval was posted before EOS");
  /* EOS posts the last, partial interval before it goes on */
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  expect_timed_message (bus, 0, frame, 9, 1, "partial interval at EOS");
  gst_buffer_unref (frame);
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

/* A timestamp that goes back without a flush ends the interval summed so
 * far, and its frame starts the next. */
GST_START_TEST (test_timestamp_back)
{
  static const guint order[] = { 5, 6, 7, 2, 3 };
  GstBus *bus;
  GstHarness *h = timed_harness ("cudahist interval=1000000000", &bus);
  GstBuffer *frame = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0,
      FRAME_RANDOM);
  guint i;

  for (i = 0; i < G_N_ELEMENTS (order); i++)
    fail_unless_equals_int (gst_harness_push (h, timed_frame (order[i],
                frame)), GST_FLOW_OK);
  expect_timed_message (bus, 10 * GST_SECOND, frame, 5, 3, "before going back");
  fail_unless (cf_test_next_result (bus, 100 * GST_MSECOND) == NULL,
      "the interval after going back was posted before EOS");
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  expect_timed_message (bus, 0, frame, 2, 2, "after going back, at EOS");
  fail_unless (cf_test_next_result (bus, 0) == NULL);
  gst_buffer_unref (frame);
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

/* One frame both ends the interval before it (its timestamp went back) and
 * fills an interval of its own (it lasts longer than `interval`): two
 * messages from one frame, the earlier interval's first. */
GST_START_TEST (test_timestamp_back_whole_interval)
{
  static const Roi whole = { 0, 0, 0, 0 };
  GstBus *bus;
  GstHarness *h = timed_harness ("cudahist interval=500000000", &bus);
  GstVideoInfo info;
  GstBuffer *frame = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0,
      FRAME_RANDOM);
  GstBuffer *long_frame;
  GstStructure *s;
  guint64 ts, dur;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  for (i = 5; i < 8; i++)
    fail_unless_equals_int (gst_harness_push (h, timed_frame (i, frame)),
        GST_FLOW_OK);
  long_frame = timed_frame (2, frame);
  GST_BUFFER_DURATION (long_frame) = GST_SECOND;
  fail_unless_equals_int (gst_harness_push (h, long_frame), GST_FLOW_OK);

  expect_timed_message (bus, 10 * GST_SECOND, frame, 5, 3, "before going back");
  s = cf_test_next_result (bus, 10 * GST_SECOND);
  fail_unless (s != NULL, "no message for the frame that went back");
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
  fail_unless (gst_structure_get_uint64 (s, "duration", &dur));
  fail_unless_equals_uint64 (ts, gst_util_uint64_scale (2, GST_SECOND, 30));
  fail_unless_equals_uint64 (dur, GST_SECOND);
  check_counts (s, frame, &info, &whole, 256, 1, "the long frame");
  gst_structure_free (s);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (cf_test_next_result (bus, 0) == NULL,
      "a message at EOS for an interval already posted");
  gst_buffer_unref (frame);
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

GST_START_TEST (test_no_messages)
{
  GstBus *bus;
  GstHarness *h = timed_harness ("cudahist post-messages=false", &bus);
  guint i;

  for (i = 0; i < 5; i++) {
    fail_unless_equals_int (gst_harness_push (h, timed_frame (i, NULL)),
        GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  fail_unless (cf_test_next_result (bus, 200 * GST_MSECOND) == NULL);
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

GST_START_TEST (test_flush)
{
  GstBus *bus;
  GstHarness *h = timed_harness ("cudahist interval=1000000000", &bus);
  GstBuffer *frame = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0,
      FRAME_RANDOM);
  GstSegment segment;
  guint i;

  for (i = 0; i < 5; i++)
    fail_unless_equals_int (gst_harness_push (h, timed_frame (i, frame)),
        GST_FLOW_OK);
  /* a flush drops the interval being summed */
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.base = 10 * GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  for (i = 0; i < 2; i++)
    fail_unless_equals_int (gst_harness_push (h, timed_frame (i, frame)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  expect_timed_message (bus, 0, frame, 0, 2, "after a flush");
  fail_unless (cf_test_next_result (bus, 0) == NULL);
  gst_buffer_unref (frame);
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

/* A gate in the bus's sync handler, which runs in the thread that posts:
 * the element's results thread holds a message there until the test opens
 * the gate, while another thread flushes.  `order` records what happened
 * first. */
typedef struct
{
  GMutex lock;
  GCond cond;
  GstHarness *h;
  gboolean in_post, open, flush_stop_seen, flush_pushed;
  gchar order[4];
  guint n_order;
} PostGate;

/* with the lock */
static void
gate_record (PostGate * g, gchar what)
{
  if (g->n_order < sizeof (g->order) - 1)
    g->order[g->n_order++] = what;
}

static GstBusSyncReply
gate_sync_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  PostGate *g = data;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  g_mutex_lock (&g->lock);
  g->in_post = TRUE;
  g_cond_broadcast (&g->cond);
  while (!g->open)
    g_cond_wait (&g->cond, &g->lock);
  gate_record (g, 'm');
  g_mutex_unlock (&g->lock);
  return GST_BUS_PASS;
}

/* FLUSH_STOP reaching the element's sink pad, before the element handles
 * it */
static GstPadProbeReturn
gate_flush_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  PostGate *g = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_FLUSH_STOP) {
    g_mutex_lock (&g->lock);
    g->flush_stop_seen = TRUE;
    g_cond_broadcast (&g->cond);
    g_mutex_unlock (&g->lock);
  }
  return GST_PAD_PROBE_OK;
}

static gpointer
flush_from_thread (gpointer data)
{
  PostGate *g = data;
  /* (checked by the test's thread: check's failures belong there) */
  gboolean pushed = gst_harness_push_event (g->h,
      gst_event_new_flush_start ());

  pushed &= gst_harness_push_event (g->h, gst_event_new_flush_stop (TRUE));
  g_mutex_lock (&g->lock);
  gate_record (g, 'f');
  g->flush_pushed = pushed;
  g_mutex_unlock (&g->lock);
  return NULL;
}

/* A flush that arrives while a frame's message is being posted waits for
 * it: no message of a frame before FLUSH_STOP comes after it. */
GST_START_TEST (test_flush_while_posting)
{
  GstBus *bus;
  GstHarness *h = timed_harness ("cudahist", &bus);
  GstBuffer *frame = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0,
      FRAME_RANDOM);
  /* on the heap: should a check fail, the results thread may still be
   * at the gate */
  PostGate *gate = g_new0 (PostGate, 1);
  GstPad *sinkpad = gst_element_get_static_pad (h->element, "sink");
  GstSegment segment;
  GThread *flusher;
  gchar order[sizeof (gate->order)];
  gboolean seen;
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  g_mutex_init (&gate->lock);
  g_cond_init (&gate->cond);
  gate->h = h;
  gst_bus_set_sync_handler (bus, gate_sync_handler, gate, NULL);
  fail_unless (sinkpad != NULL);
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      gate_flush_probe, gate, NULL);

  fail_unless_equals_int (gst_harness_push (h, timed_frame (0, frame)),
      GST_FLOW_OK);
  g_mutex_lock (&gate->lock);
  while (!gate->in_post && g_cond_wait_until (&gate->cond, &gate->lock,
          deadline));
  seen = gate->in_post;
  g_mutex_unlock (&gate->lock);
  fail_unless (seen, "frame 0's message was never posted");

  /* the flush starts while the message waits at the gate; once FLUSH_STOP
   * has reached the element, and a while after, the gate opens: had
   * nothing held the flush, it would have finished by then */
  flusher = g_thread_new ("flusher", flush_from_thread, gate);
  g_mutex_lock (&gate->lock);
  while (!gate->flush_stop_seen && g_cond_wait_until (&gate->cond,
          &gate->lock, deadline));
  seen = gate->flush_stop_seen;
  g_mutex_unlock (&gate->lock);
  if (seen)
    g_usleep (100 * 1000);
  g_mutex_lock (&gate->lock);
  gate->open = TRUE;
  g_cond_broadcast (&gate->cond);
  g_mutex_unlock (&gate->lock);
  g_thread_join (flusher);
  fail_unless (seen, "FLUSH_STOP never reached the element");
  fail_unless (gate->flush_pushed);
  g_mutex_lock (&gate->lock);
  memcpy (order, gate->order, sizeof (order));
  g_mutex_unlock (&gate->lock);
  fail_unless_equals_string (order, "mf");

  /* the frame before the flush has its message, the one after it its own */
  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.base = 10 * GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  fail_unless_equals_int (gst_harness_push (h, timed_frame (3, frame)),
      GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  expect_timed_message (bus, 0, frame, 0, 1, "the frame before the flush");
  expect_timed_message (bus, 0, frame, 3, 1, "the frame after the flush");
  fail_unless (cf_test_next_result (bus, 0) == NULL);
  g_mutex_lock (&gate->lock);
  memcpy (order, gate->order, sizeof (order));
  g_mutex_unlock (&gate->lock);
  fail_unless_equals_string (order, "mfm");

  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (sinkpad);
  gst_buffer_unref (frame);
  cf_test_free_harness (h, bus);
  g_cond_clear (&gate->cond);
  g_mutex_clear (&gate->lock);
  g_free (gate);
}

GST_END_TEST;

GST_START_TEST (test_meta)
{
  static const Roi part = { 2, 3, 20, 10 };
  GstBus *bus;
  GstHarness *h = timed_harness ("cudahist attach-meta=true bins=32 roi-x=2 "
      "roi-y=3 roi-width=20 roi-height=10", &bus);
  GstVideoInfo info;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  for (i = 0; i < 4; i++) {
    GstBuffer *in = timed_frame (i, NULL), *out;
    GstCustomMeta *meta;
    GstStructure *s;

    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    meta = gst_buffer_get_custom_meta (out, "GstCudaHistMeta");
    fail_unless (meta != NULL, "no meta on frame %u", i);
    s = gst_custom_meta_get_structure (meta);
    /* the meta's structure is named after the meta; the fields are the
     * message's */
    gst_structure_set_name (s, "cudahist");
    check_times (s, i, 1);
    check_counts (s, in, &info, &part, 32, 1, "meta");
    /* and the message still comes */
    s = cf_test_next_result (bus, 10 * GST_SECOND);
    fail_unless (s != NULL);
    check_counts (s, in, &info, &part, 32, 1, "message with meta");
    gst_structure_free (s);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

/* A segment in bytes (appsrc's default format): a message per frame all
 * the same, its buffer timestamp and no stream or running time, and no
 * critical from converting times through such a segment (gst-check
 * fails a test on one). */
GST_START_TEST (test_bytes_segment)
{
  static const Roi whole = { 0, 0, 0, 0 };
  GstBus *bus;
  GstHarness *h = cf_test_new_harness ("cudahist", &bus);
  GstVideoInfo info;
  GstSegment segment;
  GstBuffer *frame = timed_frame (3, NULL);
  GstStructure *s;
  guint64 ts, st, rt;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,"
      "height=48,framerate=30/1");
  gst_segment_init (&segment, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (frame)),
      GST_FLOW_OK);
  s = cf_test_next_result (bus, 10 * GST_SECOND);
  fail_unless (s != NULL, "no message");
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
  fail_unless (gst_structure_get_uint64 (s, "stream-time", &st));
  fail_unless (gst_structure_get_uint64 (s, "running-time", &rt));
  fail_unless_equals_uint64 (ts, GST_BUFFER_PTS (frame));
  fail_unless_equals_uint64 (st, GST_CLOCK_TIME_NONE);
  fail_unless_equals_uint64 (rt, GST_CLOCK_TIME_NONE);
  check_counts (s, frame, &info, &whole, 256, 1, "bytes segment");
  gst_structure_free (s);
  gst_buffer_unref (frame);
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

GST_START_TEST (test_short_buffer)
{
  GstBus *bus;
  GstHarness *h = cf_test_new_harness ("cudahist", &bus);
  GstBuffer *buf;
  GstMessage *msg;

  gst_harness_set_src_caps_str (h, "video/x-raw,format=RGBA,width=64,"
      "height=48,framerate=30/1");
  buf = gst_buffer_new_allocate (NULL, 64 * 4 * 47, NULL);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  msg = gst_bus_timed_pop_filtered (bus, GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

static Suite *
cudahist_suite (void)
{
  Suite *s = suite_create ("cudahist");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_every_format_system_memory);
  tcase_add_test (tc, test_bins_and_regions);
  tcase_add_test (tc, test_cuda_memory);
  tcase_add_test (tc, test_messages_every_frame);
  tcase_add_test (tc, test_interval_and_eos);
  tcase_add_test (tc, test_timestamp_back);
  tcase_add_test (tc, test_timestamp_back_whole_interval);
  tcase_add_test (tc, test_no_messages);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_flush_while_posting);
  tcase_add_test (tc, test_meta);
  tcase_add_test (tc, test_bytes_segment);
  tcase_add_test (tc, test_short_buffer);
  return s;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (&argc, &argv, cf_test_gpu_available,
      cudahist_suite, "cudahist", __FILE__);
}
