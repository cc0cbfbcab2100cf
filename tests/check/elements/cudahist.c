/* cudahist on the GPU through GstHarness: counts of every format in both
 * memory types against counts made here directly from the frame (odd
 * sizes, padded strides, random, solid and gradient frames, every bins
 * value kind and regions of interest); frames passed through untouched;
 * each message with its own frame's counts, frames in flight together;
 * an interval's counts, the frames' summed; the meta's counts.  What the
 * analysis elements share (messages and their times, intervals, EOS,
 * flushes, post-messages, the meta, ...) is tested once, in
 * tests/check/libs/analysis.c. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "cf-test-util.h"

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
    guint64 total = 0;

    fail_unless_equals_string (g_value_get_string
        (gst_value_array_get_value (names, c)), name);
    fail_unless (cf_test_array_length (s, name) == bins,
        "%s: channel %s of the wrong size", what, name);
    for (b = 0; b < bins; b++) {
      guint64 got = cf_test_array_uint64 (s, name, b);
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
  GstVideoInfo info;
  GstBuffer *in = make_frame (format, w, h, pad, kind);
  GstStructure *s;
  gchar *what = g_strdup_printf ("%s %s %dx%d pad %u kind %d",
      launch, gst_video_format_to_string (format), w, h, pad, kind);

  gst_video_info_set_format (&info, format, w, h);
  s = cf_test_message_of (launch, in, &info, what);
  /* the counts of the frame as pushed (the video meta describes it) */
  check_counts (s, in, &info, roi, bins, 1, what);
  cf_test_check_array_format (s, channel_name (&info, 0), launch, what);
  gst_structure_free (s);
  gst_buffer_unref (in);
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
  static const guint bins[] = { 1, 7, 16, 100, 256 };
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_BGRA,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12
  };
  guint r, b, f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (r = 0; r < G_N_ELEMENTS (cf_test_rois); r++)
      for (b = 0; b < G_N_ELEMENTS (bins); b++) {
        const Roi *roi = &cf_test_rois[r];
        /* the counts as value arrays and as buffers */
        gchar *options = g_strdup_printf ("cudahist bins=%u array-format=%s",
            bins[b], (r + b) % 2 ? "buffer" : "value-array");
        gchar *launch = cf_test_roi_launch (options, roi);
        run_frame (launch, formats[f], 301, 211, 12, FRAME_RANDOM, bins[b],
            roi);
        g_free (options);
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

/* The next message on @bus (waiting up to @timeout) holds @frames times
 * the counts of @frame (RGBA 64 x 48, the whole frame, 256 bins). */
static void
expect_counts (GstBus * bus, GstClockTime timeout, GstBuffer * frame,
    guint frames, const gchar * what)
{
  static const Roi whole = { 0, 0, 0, 0 };
  GstStructure *s = cf_test_next_result (bus, timeout);
  GstVideoInfo info;

  fail_unless (s != NULL, "%s: no message", what);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  check_counts (s, frame, &info, &whole, 256, frames, what);
  gst_structure_free (s);
}

/* Frames in flight together, each message with its own frame's counts,
 * in frame order (their times: analysis.c). */
GST_START_TEST (test_messages_every_frame)
{
  GstBus *bus;
  GstHarness *h = cf_test_timed_harness ("cudahist", GST_VIDEO_FORMAT_RGBA, 64,
      48, &bus);
  GstBuffer *frames[12];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (frames); i++) {
    frames[i] = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0, FRAME_RANDOM);
    cf_test_push_timed (h, frames[i], i);
  }
  for (i = 0; i < G_N_ELEMENTS (frames); i++) {
    expect_counts (bus, 10 * GST_SECOND, frames[i], 1, "every frame");
    gst_buffer_unref (frames[i]);
  }
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

/* An interval's message sums the counts of its frames, and so does the
 * partial interval EOS posts (which frames, and their times:
 * analysis.c). */
GST_START_TEST (test_interval)
{
  GstBus *bus;
  /* 0.1 s: three frames of 1/30 s each */
  GstHarness *h = cf_test_timed_harness ("cudahist interval=100000000",
      GST_VIDEO_FORMAT_RGBA, 64, 48, &bus);
  GstBuffer *frame = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0,
      FRAME_RANDOM);
  guint i;

  for (i = 0; i < 10; i++)
    cf_test_push_timed (h, frame, i);
  for (i = 0; i < 3; i++)
    expect_counts (bus, 10 * GST_SECOND, frame, 3, "interval");
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  expect_counts (bus, 0, frame, 1, "partial interval at EOS");
  gst_buffer_unref (frame);
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

/* The meta holds the counts of the frame's region, here as buffers (the
 * rest of the meta: analysis.c). */
GST_START_TEST (test_meta)
{
  static const Roi part = { 2, 3, 20, 10 };
  GstBus *bus;
  GstHarness *h = cf_test_timed_harness ("cudahist attach-meta=true bins=32 "
      "roi-x=2 roi-y=3 roi-width=20 roi-height=10 array-format=buffer",
      GST_VIDEO_FORMAT_RGBA, 64, 48, &bus);
  GstVideoInfo info;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_RGBA, 64, 48);
  for (i = 0; i < 4; i++) {
    GstBuffer *in = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0,
        FRAME_RANDOM);
    GstStructure *s = cf_test_meta_result (h, in, "GstCudaHistMeta",
        "cudahist");

    check_counts (s, in, &info, &part, 32, 1, "meta");
    fail_unless (GST_VALUE_HOLDS_BUFFER (gst_structure_get_value (s, "R")));
    gst_structure_free (s);
    gst_buffer_unref (in);
  }
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

CF_TEST_SUITE (cudahist_suite, "cudahist",
    CF_TEST_CASE ("gpu", 600),
    CF_TEST (test_every_format_system_memory),
    CF_TEST (test_bins_and_regions),
    CF_TEST (test_cuda_memory),
    CF_TEST (test_messages_every_frame),
    CF_TEST (test_interval), CF_TEST (test_meta));

CF_TEST_GPU_MAIN (cudahist, cf_test_gpu_available);
