/* cudasum on the GPU through GstHarness: every field of the message
 * against statistics computed here straight from the frame's components
 * (every format in both memory types, odd sizes, padded strides, random,
 * solid, gradient and letterboxed frames, regions of interest); frames
 * passed through untouched; a scene cut found on a cut and not on noise;
 * interval aggregation; a flush forgets the previous frame; the meta's
 * statistics; options changed between frames.  What the analysis elements
 * share (messages and their times, intervals, EOS, flushes, post-messages,
 * the meta, a short buffer, ...) is tested once, in
 * tests/check/libs/analysis.c. */
#include <math.h>
#include <gst/check/gstcheck.h>

#include "cf-test-util.h"

#define ALL_OPTIONS "percentiles=true profiles=true detect=crop+black+cut"

/* What the message of one frame (or of several, summed) must say. */
typedef struct
{
  guint n_channels;
  guint64 samples[4], sum[4], sum_squares[4];
  guint min[4], max[4];
  guint64 counts[4][256];
  guint rx, ry, rw, rh;         /* the region, clipped */
  guint64 *row_sums, *column_sums;      /* of luma */
  guint64 black;                /* luma <= threshold */
  guint8 *luma;                 /* rw x rh */
} Expected;

static void
expected_clear (Expected * e)
{
  g_free (e->row_sums);
  g_free (e->column_sums);
  g_free (e->luma);
  memset (e, 0, sizeof (*e));
}

/* The statistics of @buf's region, straight from its components; luma is
 * the Y component, or BT.601 luma of R, G, B in cudagray's fixed point. */
static void
expected_of_frame (GstBuffer * buf, const GstVideoInfo * info, const Roi * roi,
    guint black_threshold, Expected * e)
{
  GstVideoFrame frame;
  guint width = GST_VIDEO_INFO_WIDTH (info), height =
      GST_VIDEO_INFO_HEIGHT (info);
  guint n = GST_VIDEO_INFO_N_COMPONENTS (info), c, x, y;
  gboolean rgb = GST_VIDEO_INFO_IS_RGB (info);

  memset (e, 0, sizeof (*e));
  e->rx = MIN (roi->x, width);
  e->ry = MIN (roi->y, height);
  e->rw = roi->w ? MIN (roi->w, width - e->rx) : width - e->rx;
  e->rh = roi->h ? MIN (roi->h, height - e->ry) : height - e->ry;
  e->n_channels = n;
  e->row_sums = g_new0 (guint64, MAX (e->rh, 1));
  e->column_sums = g_new0 (guint64, MAX (e->rw, 1));
  e->luma = g_new0 (guint8, MAX ((gsize) e->rw * e->rh, 1));

  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  for (c = 0; c < n; c++) {
    guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
    guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);
    guint cx0 = e->rx >> ws, cy0 = e->ry >> hs;
    guint cx1 = e->rw ? (e->rx + e->rw + (1 << ws) - 1) >> ws : cx0;
    guint cy1 = e->rh ? (e->ry + e->rh + (1 << hs) - 1) >> hs : cy0;
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
    const guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&frame, c);

    e->min[c] = 255;
    for (y = cy0; y < cy1; y++)
      for (x = cx0; x < cx1; x++) {
        guint v = data[(gsize) y * stride + (gsize) x * pstride];
        e->samples[c]++;
        e->sum[c] += v;
        e->sum_squares[c] += v * v;
        e->min[c] = MIN (e->min[c], v);
        e->max[c] = MAX (e->max[c], v);
        e->counts[c][v]++;
      }
  }
  for (y = 0; y < e->rh; y++)
    for (x = 0; x < e->rw; x++) {
      guint l, v[3];

      for (c = 0; c < (rgb ? 3u : 1u); c++)
        v[c] = ((const guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, c))
            [(gsize) (e->ry + y) * GST_VIDEO_FRAME_COMP_STRIDE (&frame, c) +
            (gsize) (e->rx + x) * GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c)];
      l = rgb ? (19595 * v[0] + 38470 * v[1] + 7471 * v[2] + 32768) >> 16 :
          v[0];
      e->luma[(gsize) y * e->rw + x] = (guint8) l;
      e->row_sums[y] += l;
      e->column_sums[x] += l;
      e->black += l <= black_threshold;
    }
  gst_video_frame_unmap (&frame);
}

/* the smallest v with at least ceil (p n / 100) (and 1) samples <= v */
static guint
nearest_rank (const guint64 * counts, guint p)
{
  guint64 n = 0, rank, seen = 0;
  guint v;

  for (v = 0; v < 256; v++)
    n += counts[v];
  if (n == 0)
    return 0;
  rank = MAX ((n * p + 99) / 100, 1);
  for (v = 0; v < 256; v++) {
    seen += counts[v];
    if (seen >= rank)
      return v;
  }
  return 255;
}

/* @s (a message of @frames frames) says what @e (their sums) does; the
 * crop rectangle, frame difference and profiles are checked by the caller
 * where frames differ. */
static void
check_stats (const GstStructure * s, const Expected * e, guint frames,
    gboolean percentiles, gboolean profiles, const gchar * what)
{
  guint got_frames, c, i;
  guint64 pixels;

  fail_unless (gst_structure_has_name (s, "cudasum"), "%s", what);
  fail_unless (gst_structure_get_uint (s, "frames", &got_frames));
  fail_unless_equals_int (got_frames, frames);
  fail_unless (gst_structure_get_uint64 (s, "pixels", &pixels));
  fail_unless (pixels == (guint64) e->rw * e->rh * frames, "%s: pixels", what);
  fail_unless_equals_int (gst_value_array_get_size (gst_structure_get_value
          (s, "sum")), e->n_channels);

  for (c = 0; c < e->n_channels; c++) {
    const GValue *sums = gst_structure_get_value (s, "sum");
    guint64 got_sum = g_value_get_uint64 (gst_value_array_get_value (sums, c));
    gdouble mean = e->samples[c] ? (gdouble) e->sum[c] / e->samples[c] : 0;
    long double n = e->samples[c], var = n ? (n * e->sum_squares[c] -
        (long double) e->sum[c] * e->sum[c]) / (n * n) : 0;

    fail_unless (got_sum == e->sum[c], "%s: sum[%u] = %" G_GUINT64_FORMAT
        ", want %" G_GUINT64_FORMAT, what, c, got_sum, e->sum[c]);
    fail_unless_equals_int (cf_test_uint_at (s, "min", c), e->samples[c] ?
        e->min[c] : 0);
    fail_unless_equals_int (cf_test_uint_at (s, "max", c), e->max[c]);
    cf_test_check_close (cf_test_double_at (s, "mean", c), mean, what, "mean",
        c);
    cf_test_check_close (cf_test_double_at (s, "stddev", c),
        sqrtl (var < 0 ? 0 : var), what, "stddev", c);
    if (percentiles) {
      fail_unless_equals_int (cf_test_uint_at (s, "low", c),
          nearest_rank (e->counts[c], 10));
      fail_unless_equals_int (cf_test_uint_at (s, "median", c),
          nearest_rank (e->counts[c], 50));
      fail_unless_equals_int (cf_test_uint_at (s, "high", c),
          nearest_rank (e->counts[c], 90));
    } else {
      fail_if (gst_structure_has_field (s, "median"), "%s", what);
    }
  }
  if (profiles) {
    fail_unless_equals_int (cf_test_array_length (s, "row-means"), e->rh);
    fail_unless_equals_int (cf_test_array_length (s, "column-means"), e->rw);
    for (i = 0; i < e->rh; i++)
      cf_test_check_close (cf_test_array_double (s, "row-means", i), e->rw ?
          (gdouble) e->row_sums[i] / ((gdouble) frames * e->rw) : 0.0, what,
          "row-means", i);
    for (i = 0; i < e->rw; i++)
      cf_test_check_close (cf_test_array_double (s, "column-means", i), e->rh ?
          (gdouble) e->column_sums[i] / ((gdouble) frames * e->rh) : 0.0,
          what, "column-means", i);
  } else {
    fail_if (gst_structure_has_field (s, "row-means"), "%s", what);
  }
}

/* The crop rectangle of one frame's @e: rows and columns whose luma sum is
 * above threshold x length. */
static void
expected_crop (const Expected * e, guint threshold, guint rect[4])
{
  guint top = 0, bottom = e->rh, left = 0, right = e->rw;

  while (top < bottom && e->row_sums[top] <= (guint64) threshold * e->rw)
    top++;
  while (bottom > top && e->row_sums[bottom - 1] <= (guint64) threshold * e->rw)
    bottom--;
  while (left < right && e->column_sums[left] <= (guint64) threshold * e->rh)
    left++;
  while (right > left &&
      e->column_sums[right - 1] <= (guint64) threshold * e->rh)
    right--;
  if (top == bottom || left == right) {
    memset (rect, 0, 4 * sizeof (guint));
    return;
  }
  rect[0] = e->rx + left;
  rect[1] = e->ry + top;
  rect[2] = right - left;
  rect[3] = bottom - top;
}

static void
check_crop (const GstStructure * s, const guint want[4], const gchar * what)
{
  static const gchar *fields[] = { "crop-x", "crop-y", "crop-width",
    "crop-height"
  };
  guint i, got;

  for (i = 0; i < 4; i++) {
    fail_unless (gst_structure_get_uint (s, fields[i], &got), "%s: no %s",
        what, fields[i]);
    fail_unless (got == want[i], "%s: %s = %u, want %u", what, fields[i], got,
        want[i]);
  }
}

static gdouble
get_double (const GstStructure * s, const gchar * field)
{
  gdouble d;
  fail_unless (gst_structure_get_double (s, field, &d), "no %s", field);
  return d;
}

/* Everything one frame's message says, with every option on. */
static void
check_frame (const GstStructure * s, GstBuffer * buf,
    const GstVideoInfo * info, const Roi * roi, const gchar * what)
{
  Expected e;
  guint rect[4];

  expected_of_frame (buf, info, roi, 24, &e);
  check_stats (s, &e, 1, TRUE, TRUE, what);
  expected_crop (&e, 24, rect);
  check_crop (s, rect, what);
  fail_unless (get_double (s, "black-ratio") == (e.rw > 0 && e.rh > 0 ?
          (gdouble) e.black / ((gdouble) e.rw * e.rh) : 0.0), "%s: black-ratio",
      what);
  /* the first frame has nothing to differ from */
  fail_unless (get_double (s, "frame-diff") == 0.0, "%s", what);
  fail_unless (get_double (s, "hist-diff") == 0.0, "%s", what);
  expected_clear (&e);
}


/* One frame through @launch (a cudasum with every option on): the same
 * bytes come out, and one message with every field right. */
static void
run_frame (const gchar * launch, GstVideoFormat format, gint w, gint h,
    guint pad, FrameKind kind, const Roi * roi)
{
  GstBuffer *in = make_frame (format, w, h, pad, kind);
  gchar *what = g_strdup_printf ("%s %s %dx%d pad %u kind %d",
      launch, gst_video_format_to_string (format), w, h, pad, kind);
  GstVideoInfo info;
  GstStructure *s;

  gst_video_info_set_format (&info, format, w, h);
  s = cf_test_message_of (launch, in, &info, what);
  if (strstr (launch, "detect=")) {
    check_frame (s, in, &info, roi, what);
  } else {
    Expected e;

    expected_of_frame (in, &info, roi, 24, &e);
    check_stats (s, &e, 1, TRUE, TRUE, what);
    fail_if (gst_structure_has_field (s, "crop-x"), "%s", what);
    expected_clear (&e);
  }
  /* the profiles in the format asked for */
  if (strstr (launch, "profiles=true"))
    cf_test_check_array_format (s, "row-means", launch, what);
  gst_structure_free (s);
  gst_buffer_unref (in);
  g_free (what);
}

GST_START_TEST (test_every_format_system_memory)
{
  static const Roi whole = { 0, 0, 0, 0 };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (cf_test_sys_formats); f++) {
    GstVideoFormat format = cf_test_sys_formats[f];

    run_frame ("cudasum " ALL_OPTIONS, format, 1, 1, 0, FRAME_RANDOM, &whole);
    run_frame ("cudasum " ALL_OPTIONS, format, 3, 7, 0, FRAME_RANDOM, &whole);
    run_frame ("cudasum " ALL_OPTIONS, format, 1921, 1081, 20, FRAME_RANDOM,
        &whole);
    run_frame ("cudasum " ALL_OPTIONS, format, 640, 361, 4, FRAME_SOLID,
        &whole);
    run_frame ("cudasum array-format=buffer " ALL_OPTIONS, format, 333, 64,
        0, FRAME_GRADIENT, &whole);
    /* the statistics alone: the kernel without its key features */
    run_frame ("cudasum percentiles=true profiles=true", format, 97, 31, 8,
        FRAME_RANDOM, &whole);
  }
}

GST_END_TEST;

GST_START_TEST (test_regions)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_BGRA,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_GRAY8,
  };
  guint r, f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (r = 0; r < G_N_ELEMENTS (cf_test_rois); r++) {
      const Roi *roi = &cf_test_rois[r];
      gchar *launch = cf_test_roi_launch ("cudasum " ALL_OPTIONS, roi);
      run_frame (launch, formats[f], 301, 211, 12, FRAME_RANDOM, roi);
      g_free (launch);
    }
}

GST_END_TEST;

GST_START_TEST (test_cuda_memory)
{
  static const Roi whole = { 0, 0, 0, 0 }, part = { 7, 3, 100, 50 };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (cf_test_cuda_formats); f++) {
    run_frame ("cudaupload ! cudasum " ALL_OPTIONS " ! cudadownload",
        cf_test_cuda_formats[f], 1921, 1081, 0, FRAME_RANDOM, &whole);
    run_frame ("cudaupload ! cudasum " ALL_OPTIONS " roi-x=7 roi-y=3 "
        "roi-width=100 roi-height=50 ! cudadownload", cf_test_cuda_formats[f],
        321, 241, 0, FRAME_RANDOM, &part);
  }
}

GST_END_TEST;

/* A frame of @format whose components are random in [lo, 255] inside the
 * picture (x0, y0, pw, ph) and 0 (16 for Y, 128 for U and V: black) outside
 * it. */
static GstBuffer *
letterboxed_frame (GstVideoFormat format, gint w, gint h, gint x0, gint y0,
    gint pw, gint ph, guint lo)
{
  GstBuffer *buf = cf_test_make_frame (format, w, h, 0, FALSE, rand_);
  GstVideoInfo info;
  GstVideoFrame frame;
  guint c;
  gint x, y;

  gst_video_info_set_format (&info, format, w, h);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info); c++) {
    guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info.finfo, c);
    guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info.finfo, c);
    guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&frame, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    guint8 black = GST_VIDEO_INFO_IS_RGB (&info) || c == 3 ? 0 :
        c == 0 ? 16 : 128;

    for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c); y++)
      for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&frame, c); x++) {
        gint fx = x << ws, fy = y << hs;
        gboolean inside = fx >= x0 && fx < x0 + pw && fy >= y0 && fy < y0 + ph;
        data[(gsize) y * stride + (gsize) x * pstride] = inside ?
            (guint8) g_rand_int_range (rand_, lo, 256) : black;
      }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

GST_START_TEST (test_letterbox)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_GRAY8,
  };
  GstVideoInfo info;
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    /* letterbox, pillarbox, both, none; content luma well above 24 */
    static const gint pics[][4] = {
      {0, 20, 320, 140}, {40, 0, 240, 180}, {16, 30, 288, 120},
      {0, 0, 320, 180},
    };
    guint i;

    gst_video_info_set_format (&info, formats[f], 320, 180);
    for (i = 0; i < G_N_ELEMENTS (pics); i++) {
      const gint *p = pics[i];
      GstBuffer *buf = letterboxed_frame (formats[f], 320, 180, p[0], p[1],
          p[2], p[3], 64);
      guint want[4] = { p[0], p[1], p[2], p[3] };
      gdouble black = 1.0 - (gdouble) p[2] * p[3] / (320.0 * 180.0);
      gchar *what = g_strdup_printf ("letterbox %s %d,%d %dx%d",
          gst_video_format_to_string (formats[f]), p[0], p[1], p[2], p[3]);
      GstStructure *s = cf_test_message_of ("cudasum detect=crop+black", buf,
          &info, what);

      check_crop (s, want, what);
      /* every border pixel is black and no picture pixel is */
      cf_test_check_close (get_double (s, "black-ratio"), black, what,
          "black-ratio", 0);
      fail_if (gst_structure_has_field (s, "frame-diff"), "%s", what);
      gst_structure_free (s);
      g_free (what);
      gst_buffer_unref (buf);
    }
  }
  {
    /* an all-black frame has no picture */
    GstBuffer *buf = letterboxed_frame (GST_VIDEO_FORMAT_NV12, 64, 48, 0, 0,
        0, 0, 64);
    static const guint none[4] = { 0, 0, 0, 0 };
    GstStructure *s;

    gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 64, 48);
    s = cf_test_message_of ("cudasum detect=crop+black", buf, &info,
        "black frame");

    check_crop (s, none, "black frame");
    fail_unless (get_double (s, "black-ratio") == 1.0);
    gst_structure_free (s);
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

/* A copy of @frame with every byte moved by up to +-@amount. */
static GstBuffer *
noisy_copy (GstBuffer * frame, gint amount)
{
  GstBuffer *buf = gst_buffer_copy_deep (frame);
  GstMapInfo map;
  gsize i;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (i = 0; i < map.size; i++)
    map.data[i] = (guint8) CLAMP ((gint) map.data[i] +
        g_rand_int_range (rand_, -amount, amount + 1), 0, 255);
  gst_buffer_unmap (buf, &map);
  return buf;
}

/* sum |luma(a) - luma(b)| / pixels */
static gdouble
expected_diff (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info)
{
  static const Roi whole = { 0, 0, 0, 0 };
  Expected ea, eb;
  guint64 sad = 0;
  gsize i, n;

  expected_of_frame (a, info, &whole, 24, &ea);
  expected_of_frame (b, info, &whole, 24, &eb);
  n = (gsize) ea.rw * ea.rh;
  for (i = 0; i < n; i++)
    sad += ABS ((gint) ea.luma[i] - (gint) eb.luma[i]);
  expected_clear (&ea);
  expected_clear (&eb);
  return (gdouble) sad / n;
}

/* The next `cudasum` message, past the events (cudasum-*) the detectors
 * post between them */
static GstStructure *
next_statistics (GstBus * bus, GstClockTime timeout)
{
  GstStructure *s;

  while ((s = cf_test_next_result (bus, timeout)) &&
      g_str_has_prefix (gst_structure_get_name (s), "cudasum-"))
    gst_structure_free (s);
  return s;
}

GST_START_TEST (test_scene_cut)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGBA,
    GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_GRAY8,
  };
  guint f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstVideoFormat format = formats[f];
    GstVideoInfo info;
    GstBus *bus;
    /* every other format with force-key-unit: the cut's event upstream
     * (checked below), and none without */
    const gboolean key_unit = f % 2 == 0;
    GstHarness *hr = cf_test_timed_harness (key_unit ?
        "cudasum detect=cut force-key-unit=true" : "cudasum detect=cut",
        format, 333, 187, &bus);
    GstEvent *ev;
    guint key_units = 0;
    /* a scene, the scene with noise twice, another scene, that again: a
     * cut at frame 3, told when frame 4 shows the difference fall back (a
     * random frame after the gradient would not do: the same histogram) */
    GstBuffer *a = make_frame (format, 333, 187, 4, FRAME_GRADIENT);
    GstBuffer *b = make_frame (format, 333, 187, 4, FRAME_SOLID);
    GstBuffer *seq[5];
    guint i, cuts = 0;

    gst_video_info_set_format (&info, format, 333, 187);
    seq[0] = gst_buffer_ref (a);
    seq[1] = noisy_copy (a, 6);
    seq[2] = noisy_copy (a, 6);
    seq[3] = gst_buffer_ref (b);
    seq[4] = noisy_copy (b, 3);
    for (i = 0; i < 5; i++)
      cf_test_push_timed (hr, seq[i], i);
    fail_unless (gst_harness_push_event (hr, gst_event_new_eos ()));
    for (i = 0; i < 5;) {
      GstStructure *s = cf_test_next_result (bus, 10 * GST_SECOND);
      gdouble want = i ? expected_diff (seq[i], seq[i - 1], &info) : 0.0;
      gchar *what = g_strdup_printf ("%s frame %u",
          gst_video_format_to_string (format), i);
      guint64 frame, pts;

      fail_unless (s != NULL, "%s: no message", what);
      if (gst_structure_has_name (s, "cudasum-scene-cut")) {
        fail_unless (gst_structure_get_uint64 (s, "frame", &frame) &&
            frame == 3, "%s: a cut at frame %" G_GUINT64_FORMAT, what, frame);
        fail_unless (gst_structure_get_uint64 (s, "timestamp", &pts) &&
            pts == 3 * GST_SECOND / 30, "%s: the cut's timestamp", what);
        fail_unless (i == 4, "%s: the cut told before frame 4", what);
        cuts++;
      } else {
        cf_test_check_close (get_double (s, "frame-diff"), want, what,
            "frame-diff", 0);
        i++;
      }
      gst_structure_free (s);
      g_free (what);
    }
    fail_unless_equals_int (cuts, 1);
    fail_unless (cf_test_next_result (bus, 0) == NULL);
    /* one force-key-unit event upstream, sent with the cut's message, at
     * frame 3's running time (the timed harness's segment starts at 10 s);
     * the harness may have had other upstream events before it */
    while ((ev = gst_harness_try_pull_upstream_event (hr))) {
      GstClockTime rt;
      gboolean all_headers;
      guint count;

      if (gst_video_event_is_force_key_unit (ev)) {
        fail_unless (gst_video_event_parse_upstream_force_key_unit (ev, &rt,
                &all_headers, &count));
        fail_unless_equals_uint64 (rt, 10 * GST_SECOND +
            gst_util_uint64_scale (3, GST_SECOND, 30));
        fail_unless (all_headers);
        fail_unless_equals_int (count, key_units);
        key_units++;
      }
      gst_event_unref (ev);
    }
    fail_unless_equals_int (key_units, key_unit ? 1 : 0);
    for (i = 0; i < 5; i++)
      gst_buffer_unref (seq[i]);
    gst_buffer_unref (a);
    gst_buffer_unref (b);
    cf_test_free_harness (hr, bus);
  }
}

GST_END_TEST;

GST_START_TEST (test_interval)
{
  static const Roi whole = { 0, 0, 0, 0 };
  GstBus *bus;
  /* 0.1 s: three frames of 1/30 s each */
  GstHarness *hr = cf_test_timed_harness ("cudasum interval=100000000 "
      ALL_OPTIONS, GST_VIDEO_FORMAT_I420, 160, 90, &bus);
  GstVideoInfo info;
  GstBuffer *frames[4];
  Expected e[4], total;
  GstStructure *s;
  guint i, c, v, crop[4], union_rect[4];
  gdouble max_diff = 0;
  guint64 black = 0;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 160, 90);
  frames[0] = letterboxed_frame (GST_VIDEO_FORMAT_I420, 160, 90, 0, 10, 160,
      70, 40);
  frames[1] = letterboxed_frame (GST_VIDEO_FORMAT_I420, 160, 90, 20, 0, 120,
      90, 40);
  frames[2] = noisy_copy (frames[1], 5);
  frames[3] = make_frame (GST_VIDEO_FORMAT_I420, 160, 90, 0, FRAME_SOLID);
  for (i = 0; i < 4; i++) {
    cf_test_push_timed (hr, frames[i], i);
    expected_of_frame (frames[i], &info, &whole, 24, &e[i]);
  }
  fail_unless (gst_harness_push_event (hr, gst_event_new_eos ()));

  /* the first three summed */
  memset (&total, 0, sizeof (total));
  total = e[0];
  total.row_sums = g_new0 (guint64, 90);
  total.column_sums = g_new0 (guint64, 160);
  total.luma = NULL;
  memset (union_rect, 0, sizeof (union_rect));
  for (i = 0; i < 3; i++) {
    for (c = 0; c < 3; c++) {
      if (i) {
        total.samples[c] += e[i].samples[c];
        total.sum[c] += e[i].sum[c];
        total.sum_squares[c] += e[i].sum_squares[c];
        total.min[c] = MIN (total.min[c], e[i].min[c]);
        total.max[c] = MAX (total.max[c], e[i].max[c]);
        for (v = 0; v < 256; v++)
          total.counts[c][v] += e[i].counts[c][v];
      }
    }
    for (v = 0; v < 90; v++)
      total.row_sums[v] += e[i].row_sums[v];
    for (v = 0; v < 160; v++)
      total.column_sums[v] += e[i].column_sums[v];
    black += e[i].black;
    expected_crop (&e[i], 24, crop);
    if (i == 0)
      memcpy (union_rect, crop, sizeof (crop));
    else {
      guint x1 = MAX (union_rect[0] + union_rect[2], crop[0] + crop[2]);
      guint y1 = MAX (union_rect[1] + union_rect[3], crop[1] + crop[3]);
      union_rect[0] = MIN (union_rect[0], crop[0]);
      union_rect[1] = MIN (union_rect[1], crop[1]);
      union_rect[2] = x1 - union_rect[0];
      union_rect[3] = y1 - union_rect[1];
    }
    if (i)
      max_diff = MAX (max_diff, expected_diff (frames[i], frames[i - 1],
              &info));
  }
  s = next_statistics (bus, 10 * GST_SECOND);
  fail_unless (s != NULL);
  check_stats (s, &total, 3, TRUE, TRUE, "interval");
  /* the union of a letterbox and a pillarbox is the whole frame */
  check_crop (s, union_rect, "interval");
  fail_unless_equals_int (union_rect[2], 160);
  fail_unless_equals_int (union_rect[3], 90);
  cf_test_check_close (get_double (s, "black-ratio"),
      (gdouble) black / (3 * 160 * 90), "interval", "black-ratio", 0);
  /* the largest difference: the letterbox to the pillarbox */
  cf_test_check_close (get_double (s, "frame-diff"), max_diff, "interval",
      "frame-diff", 0);
  gst_structure_free (s);

  /* the partial interval at EOS: the solid frame alone */
  s = next_statistics (bus, 10 * GST_SECOND);
  fail_unless (s != NULL, "no partial interval at EOS");
  check_stats (s, &e[3], 1, TRUE, TRUE, "partial interval");
  cf_test_check_close (get_double (s, "frame-diff"), expected_diff (frames[3],
          frames[2], &info), "partial interval", "frame-diff", 0);
  gst_structure_free (s);

  expected_clear (&total);
  for (i = 0; i < 4; i++) {
    expected_clear (&e[i]);
    gst_buffer_unref (frames[i]);
  }
  cf_test_free_harness (hr, bus);
}

GST_END_TEST;

GST_START_TEST (test_flush_forgets_previous_frame)
{
  GstBus *bus;
  GstHarness *hr = cf_test_timed_harness ("cudasum detect=cut",
      GST_VIDEO_FORMAT_RGBA, 64, 48, &bus);
  GstBuffer *a = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0, FRAME_RANDOM);
  GstBuffer *b = make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0, FRAME_RANDOM);
  GstSegment segment;
  GstStructure *s;

  cf_test_push_timed (hr, a, 0);
  s = next_statistics (bus, 10 * GST_SECOND);
  fail_unless (s && get_double (s, "frame-diff") == 0.0);
  gst_structure_free (s);
  fail_unless (gst_harness_push_event (hr, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (hr, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (hr, gst_event_new_segment (&segment)));
  /* after a seek the next frame is a first frame again */
  cf_test_push_timed (hr, b, 0);
  s = next_statistics (bus, 10 * GST_SECOND);
  fail_unless (s != NULL);
  fail_unless (get_double (s, "frame-diff") == 0.0);
  fail_unless (get_double (s, "hist-diff") == 0.0);
  gst_structure_free (s);
  /* and the one after compares with it */
  cf_test_push_timed (hr, a, 1);
  s = next_statistics (bus, 10 * GST_SECOND);
  fail_unless (s != NULL);
  fail_unless (get_double (s, "frame-diff") > 25.0);
  fail_unless (get_double (s, "hist-diff") > 0.0);
  gst_structure_free (s);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  cf_test_free_harness (hr, bus);
}

GST_END_TEST;

GST_START_TEST (test_options_while_playing)
{
  static const Roi whole = { 0, 0, 0, 0 };
  GstBus *bus;
  GstHarness *hr = cf_test_timed_harness ("cudasum", GST_VIDEO_FORMAT_NV12,
      99, 57, &bus);
  GstVideoInfo info;
  GstBuffer *frame = make_frame (GST_VIDEO_FORMAT_NV12, 99, 57, 0,
      FRAME_RANDOM);
  GstStructure *s;
  Expected e;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_NV12, 99, 57);
  expected_of_frame (frame, &info, &whole, 24, &e);
  for (i = 0; i < 4; i++) {
    gboolean on = i % 2 == 1;
    GstElement *sum = gst_harness_find_element (hr, "cudasum");

    g_object_set (sum, "percentiles", on, "profiles", on, "detect",
        on ? 7 : 0, NULL);
    /* the profiles as value arrays, then as buffers */
    gst_util_set_object_arg (G_OBJECT (sum), "array-format", i == 3 ?
        "buffer" : "value-array");
    gst_object_unref (sum);
    cf_test_push_timed (hr, frame, i);
    s = next_statistics (bus, 10 * GST_SECOND);
    fail_unless (s != NULL);
    check_stats (s, &e, 1, on, on, "options while playing");
    if (on)
      fail_unless (i == 3 ? GST_VALUE_HOLDS_BUFFER (gst_structure_get_value
              (s, "row-means")) : GST_VALUE_HOLDS_ARRAY
          (gst_structure_get_value (s, "row-means")));
    fail_unless (gst_structure_has_field (s, "crop-x") == on);
    fail_unless (gst_structure_has_field (s, "black-ratio") == on);
    fail_unless (gst_structure_has_field (s, "frame-diff") == on);
    /* cut was off in between: no previous frame to compare with */
    if (on)
      fail_unless (get_double (s, "frame-diff") == 0.0);
    gst_structure_free (s);
  }
  expected_clear (&e);
  gst_buffer_unref (frame);
  cf_test_free_harness (hr, bus);
}

GST_END_TEST;

/* The meta holds the statistics of the frame's region (the rest of the
 * meta: analysis.c). */
GST_START_TEST (test_meta)
{
  static const Roi part = { 2, 3, 20, 10 };
  GstBus *bus;
  GstHarness *hr = cf_test_timed_harness ("cudasum attach-meta=true "
      ALL_OPTIONS " roi-x=2 roi-y=3 roi-width=20 roi-height=10",
      GST_VIDEO_FORMAT_BGRx, 64, 48, &bus);
  GstVideoInfo info;
  guint i;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_BGRx, 64, 48);
  for (i = 0; i < 4; i++) {
    GstBuffer *in = make_frame (GST_VIDEO_FORMAT_BGRx, 64, 48, 0,
        FRAME_RANDOM);
    GstElement *sum = gst_harness_find_element (hr, "cudasum");
    GstStructure *s;
    Expected e;

    /* the profiles as value arrays, then as buffers */
    gst_util_set_object_arg (G_OBJECT (sum), "array-format", i % 2 ?
        "buffer" : "value-array");
    gst_object_unref (sum);
    s = cf_test_meta_result (hr, in, "GstCudaSumMeta", "cudasum");
    expected_of_frame (in, &info, &part, 24, &e);
    check_stats (s, &e, 1, TRUE, TRUE, "meta");
    fail_unless (GST_VALUE_HOLDS_BUFFER (gst_structure_get_value (s,
                "row-means")) == (i % 2 == 1));
    expected_clear (&e);
    gst_structure_free (s);
    gst_buffer_unref (in);
  }
  cf_test_free_harness (hr, bus);
}

GST_END_TEST;

CF_TEST_SUITE (cudasum_suite, "cudasum",
    CF_TEST_CASE ("gpu", 600),
    CF_TEST (test_every_format_system_memory),
    CF_TEST (test_regions),
    CF_TEST (test_cuda_memory),
    CF_TEST (test_letterbox),
    CF_TEST (test_scene_cut),
    CF_TEST (test_interval),
    CF_TEST (test_flush_forgets_previous_frame),
    CF_TEST (test_options_while_playing), CF_TEST (test_meta));

CF_TEST_GPU_MAIN (cudasum, cf_test_gpu_available);
