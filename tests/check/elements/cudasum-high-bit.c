/* cudasum with 10- to 16-bit input (#48), through GstHarness: every field
 * of the message against statistics computed here from the frame's values
 * (cf_hbd_value): sums, means, min, max and standard deviations in the
 * sample's units, percentiles over 2^min(d, 12) levels, `depth`; and the
 * profiles, crop, black ratio and frame difference of the luma at 8 bits,
 * v >> (d - 8) (packed 10-bit RGB: its grey, rounded to 8 bits), with
 * 8-bit thresholds.  Every format of 16-bit words and the packed 10-bit
 * RGB (R, G, B; not the 2-bit alpha) in system and CUDA memory, odd
 * sizes, padded strides (odd ones too, staged on the GPU in rows on 16
 * bytes: the row path is reached through regions of interest, and tested
 * on its own in kernels-sum), random words with bits outside the samples
 * set, real-looking and letterboxed frames, regions of interest. */
#include <math.h>
#include <gst/check/gstcheck.h>

#include "cf-hbd.h"
#include "cf-test-util.h"
#include "cudafilters-kernels.h"

#define ALL_OPTIONS "percentiles=true profiles=true detect=crop+black+cut"
#define THRESHOLD 24

/* What one frame's message must say. */
typedef struct
{
  guint n_channels, depth;
  guint64 samples[3], sum[3], sum_squares[3];
  guint min[3], max[3];
  guint64 *counts;              /* 3 x levels */
  guint rx, ry, rw, rh;
  guint64 *row_sums, *column_sums;      /* of the luma at 8 bits */
  guint64 black;
  guint8 *key;                  /* the luma at 8 bits, rw x rh */
} Expected;

static guint
levels_of (guint depth)
{
  return 1u << MIN (depth, 12);
}

static void
expected_clear (Expected * e)
{
  g_free (e->counts);
  g_free (e->row_sums);
  g_free (e->column_sums);
  g_free (e->key);
  memset (e, 0, sizeof (*e));
}

static void
expected_of_frame (GstBuffer * buf, const GstVideoInfo * info, const Roi * roi,
    Expected * e)
{
  GstVideoFrame frame;
  guint width = GST_VIDEO_INFO_WIDTH (info), height =
      GST_VIDEO_INFO_HEIGHT (info);
  guint c, x, y, levels;

  memset (e, 0, sizeof (*e));
  /* (not RGB10A2's 2-bit alpha) */
  e->n_channels = MIN (GST_VIDEO_INFO_N_COMPONENTS (info), 3);
  e->depth = GST_VIDEO_INFO_COMP_DEPTH (info, 0);
  levels = levels_of (e->depth);
  e->rx = MIN (roi->x, width);
  e->ry = MIN (roi->y, height);
  e->rw = roi->w ? MIN (roi->w, width - e->rx) : width - e->rx;
  e->rh = roi->h ? MIN (roi->h, height - e->ry) : height - e->ry;
  e->counts = g_new0 (guint64, 3 * levels);
  e->row_sums = g_new0 (guint64, MAX (e->rh, 1));
  e->column_sums = g_new0 (guint64, MAX (e->rw, 1));
  e->key = g_new0 (guint8, MAX ((gsize) e->rw * e->rh, 1));

  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  for (c = 0; c < e->n_channels; c++) {
    guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
    guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);
    guint cx0 = e->rx >> ws, cy0 = e->ry >> hs;
    guint cx1 = e->rw ? (e->rx + e->rw + (1 << ws) - 1) >> ws : cx0;
    guint cy1 = e->rh ? (e->ry + e->rh + (1 << hs) - 1) >> hs : cy0;

    e->min[c] = G_MAXUINT;
    for (y = cy0; y < cy1; y++)
      for (x = cx0; x < cx1; x++) {
        guint v = cf_hbd_value (&frame, c, x, y);

        e->samples[c]++;
        e->sum[c] += v;
        e->sum_squares[c] += (guint64) v *v;
        e->min[c] = MIN (e->min[c], v);
        e->max[c] = MAX (e->max[c], v);
        e->counts[c * levels + (v >> (e->depth > 12 ? e->depth - 12 : 0))]++;
      }
  }
  for (y = 0; y < e->rh; y++)
    for (x = 0; x < e->rw; x++) {
      guint k = cf_hbd_value (&frame, 0, e->rx + x, e->ry + y) >>
          (e->depth - 8);

      if (cf_hbd_is_rgb10a2 (GST_VIDEO_INFO_FORMAT (info))) {
        /* the grey of BT.601's weights (8-bit RGB's key), rounded to 8
         * bits half up */
        CfGrayWeights wt = cf_gray_weights (CF_GRAY_MATRIX_BT601);
        guint grey = (wt.kr * cf_hbd_value (&frame, 0, e->rx + x, e->ry + y)
            + wt.kg * cf_hbd_value (&frame, 1, e->rx + x, e->ry + y)
            + wt.kb * cf_hbd_value (&frame, 2, e->rx + x, e->ry + y)
            + 32768) >> 16;

        k = MIN ((grey + 2) >> 2, 255);
      }

      e->key[(gsize) y * e->rw + x] = (guint8) k;
      e->row_sums[y] += k;
      e->column_sums[x] += k;
      e->black += k <= THRESHOLD;
    }
  gst_video_frame_unmap (&frame);
}

/* the lowest value of the smallest level with at least ceil (p n / 100)
 * (and 1) samples at or under it */
static guint
nearest_rank (const guint64 * counts, guint depth, guint p)
{
  guint levels = levels_of (depth), shift = depth > 12 ? depth - 12 : 0;
  guint64 n = 0, rank, seen = 0;
  guint l;

  for (l = 0; l < levels; l++)
    n += counts[l];
  if (n == 0)
    return 0;
  rank = MAX ((n * p + 99) / 100, 1);
  for (l = 0; l < levels; l++) {
    seen += counts[l];
    if (seen >= rank)
      return l << shift;
  }
  return (levels - 1) << shift;
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
check_frame (const GstStructure * s, const Expected * e, const gchar * what)
{
  guint c, i, got, rect[4] = { 0, 0, 0, 0 };
  guint top = 0, bottom = e->rh, left = 0, right = e->rw;
  static const gchar *crop[] = { "crop-x", "crop-y", "crop-width",
    "crop-height"
  };

  fail_unless (gst_structure_get_uint (s, "depth", &got), "%s", what);
  fail_unless_equals_int (got, e->depth);
  fail_unless_equals_int (gst_value_array_get_size (gst_structure_get_value
          (s, "sum")), e->n_channels);
  for (c = 0; c < e->n_channels; c++) {
    const GValue *sums = gst_structure_get_value (s, "sum");
    guint64 got_sum = g_value_get_uint64 (gst_value_array_get_value (sums, c));
    long double n = e->samples[c], var = n ? (n * e->sum_squares[c] -
        (long double) e->sum[c] * e->sum[c]) / (n * n) : 0;
    const guint64 *counts = e->counts + c * levels_of (e->depth);

    fail_unless (got_sum == e->sum[c], "%s: sum[%u] = %" G_GUINT64_FORMAT
        ", want %" G_GUINT64_FORMAT, what, c, got_sum, e->sum[c]);
    fail_unless_equals_int (cf_test_uint_at (s, "min", c), e->samples[c] ?
        e->min[c] : 0);
    fail_unless_equals_int (cf_test_uint_at (s, "max", c), e->max[c]);
    cf_test_check_close (cf_test_double_at (s, "mean", c),
        n ? e->sum[c] / (gdouble) n : 0, what, "mean", c);
    cf_test_check_close (cf_test_double_at (s, "stddev", c),
        sqrtl (var < 0 ? 0 : var), what, "stddev", c);
    fail_unless_equals_int (cf_test_uint_at (s, "low", c), nearest_rank (counts,
            e->depth, 10));
    fail_unless_equals_int (cf_test_uint_at (s, "median", c),
        nearest_rank (counts, e->depth, 50));
    fail_unless_equals_int (cf_test_uint_at (s, "high", c),
        nearest_rank (counts, e->depth, 90));
  }
  /* the profiles, crop and black ratio of the luma at 8 bits */
  fail_unless_equals_int (cf_test_array_length (s, "row-means"), e->rh);
  fail_unless_equals_int (cf_test_array_length (s, "column-means"), e->rw);
  for (i = 0; i < e->rh; i++)
    cf_test_check_close (cf_test_array_double (s, "row-means", i), e->rw ?
        (gdouble) e->row_sums[i] / e->rw : 0.0, what, "row-means", i);
  for (i = 0; i < e->rw; i++)
    cf_test_check_close (cf_test_array_double (s, "column-means", i), e->rh ?
        (gdouble) e->column_sums[i] / e->rh : 0.0, what, "column-means", i);
  while (top < bottom && e->row_sums[top] <= (guint64) THRESHOLD * e->rw)
    top++;
  while (bottom > top && e->row_sums[bottom - 1] <= (guint64) THRESHOLD * e->rw)
    bottom--;
  while (left < right && e->column_sums[left] <= (guint64) THRESHOLD * e->rh)
    left++;
  while (right > left &&
      e->column_sums[right - 1] <= (guint64) THRESHOLD * e->rh)
    right--;
  if (top < bottom && left < right) {
    rect[0] = e->rx + left;
    rect[1] = e->ry + top;
    rect[2] = right - left;
    rect[3] = bottom - top;
  }
  for (i = 0; i < 4; i++) {
    fail_unless (gst_structure_get_uint (s, crop[i], &got), "%s: no %s",
        what, crop[i]);
    fail_unless (got == rect[i], "%s: %s = %u, want %u", what, crop[i], got,
        rect[i]);
  }
  fail_unless (get_double (s, "black-ratio") == (e->rw > 0 && e->rh > 0 ?
          (gdouble) e->black / ((gdouble) e->rw * e->rh) : 0.0),
      "%s: black-ratio", what);
}

typedef enum
{
  WORDS_RANDOM,                 /* every bit of every word random */
  WORDS_REAL,                   /* cf_hbd_render's content */
  WORDS_LETTERBOX,              /* that, with black bars */
} Content;

static GstBuffer *
make_words (GstVideoFormat format, gint w, gint h, guint pad, Content content)
{
  GstBuffer *buf = cf_test_make_frame (format, w, h, pad, FALSE, rand_);
  GstVideoInfo info;
  GstVideoFrame frame;
  guint c;
  gint x, y;

  if (content == WORDS_RANDOM)
    return buf;
  gst_video_info_set_format (&info, format, w, h);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  cf_hbd_render (&frame, g_rand_int_range (rand_, 0, 1000), g_rand_int (rand_));
  if (content == WORDS_LETTERBOX) {
    /* bars of 1/8 the height above and below, black luma, neutral chroma
     * (RGB: all three black) */
    gboolean rgb = GST_VIDEO_INFO_IS_RGB (&info);

    for (c = 0; c < MIN (GST_VIDEO_INFO_N_COMPONENTS (&info), 3); c++) {
      guint depth = GST_VIDEO_INFO_COMP_DEPTH (&info, c);
      gint ch = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c);
      gint bar = ch / 8;

      for (y = 0; y < ch; y++)
        for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&frame, c); x++)
          if (y < bar || y >= ch - bar)
            cf_hbd_set_value (&frame, c, x, y, c && !rgb ? 1u << (depth - 1)
                : 16u << (depth - 8));
    }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

/* One frame through @launch (a cudasum with every option on). */
static void
run_frame (const gchar * launch, GstVideoFormat format, gint w, gint h,
    guint pad, Content content, const Roi * roi)
{
  GstBuffer *in = make_words (format, w, h, pad, content);
  gchar *what = g_strdup_printf ("%s %s %dx%d pad %u content %d", launch,
      gst_video_format_to_string (format), w, h, pad, content);
  GstVideoInfo info;
  GstStructure *s;
  Expected e;

  gst_video_info_set_format (&info, format, w, h);
  s = cf_test_message_of (launch, in, &info, what);
  expected_of_frame (in, &info, roi, &e);
  check_frame (s, &e, what);
  /* the first frame has nothing to differ from */
  fail_unless (get_double (s, "frame-diff") == 0.0, "%s", what);
  expected_clear (&e);
  gst_structure_free (s);
  gst_buffer_unref (in);
  g_free (what);
}

static const Roi whole = { 0, 0, 0, 0 };

static const GstVideoFormat rgb10a2_formats[] = {
  GST_VIDEO_FORMAT_RGB10A2_LE, GST_VIDEO_FORMAT_BGR10A2_LE,
};

GST_START_TEST (test_every_format_system_memory)
{
  guint f;

  for (f = 0; f < CF_HBD_N_WORD_FORMATS + G_N_ELEMENTS (rgb10a2_formats); f++) {
    GstVideoFormat format = f < CF_HBD_N_WORD_FORMATS ?
        cf_hbd_word_formats[f] : rgb10a2_formats[f - CF_HBD_N_WORD_FORMATS];

    run_frame ("cudasum " ALL_OPTIONS, format, 1, 1, 0, WORDS_RANDOM, &whole);
    run_frame ("cudasum " ALL_OPTIONS, format, 3, 7, 37, WORDS_RANDOM, &whole);
    run_frame ("cudasum " ALL_OPTIONS, format, 1921, 1081, 0, WORDS_REAL,
        &whole);
    run_frame ("cudasum " ALL_OPTIONS " array-format=buffer", format, 641,
        361, 37, WORDS_RANDOM, &whole);
    run_frame ("cudasum " ALL_OPTIONS, format, 333, 187, 64, WORDS_LETTERBOX,
        &whole);
  }
}

GST_END_TEST;

GST_START_TEST (test_regions)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_Y444_16LE,
    GST_VIDEO_FORMAT_RGB10A2_LE,
  };
  guint f, r;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (r = 0; r < G_N_ELEMENTS (cf_test_rois); r++) {
      const Roi *roi = &cf_test_rois[r];
      gchar *launch = cf_test_roi_launch ("cudasum " ALL_OPTIONS, roi);

      run_frame (launch, formats[f], 301, 211, 12, r % 2 ? WORDS_RANDOM :
          WORDS_LETTERBOX, roi);
      g_free (launch);
    }
}

GST_END_TEST;

GST_START_TEST (test_cuda_memory)
{
  guint f;

  for (f = 0; f < cf_hbd_n_cuda_word_formats + G_N_ELEMENTS (rgb10a2_formats);
      f++) {
    GstVideoFormat format = f < cf_hbd_n_cuda_word_formats ?
        cf_hbd_cuda_word_formats[f] :
        rgb10a2_formats[f - cf_hbd_n_cuda_word_formats];

    run_frame ("cudaupload ! cudasum " ALL_OPTIONS " ! cudadownload",
        format, 1921, 1081, 0, WORDS_REAL, &whole);
    run_frame ("cudaupload ! cudasum " ALL_OPTIONS " ! cudadownload",
        format, 33, 17, 0, WORDS_LETTERBOX, &whole);
  }
}

GST_END_TEST;

/* The next `cudasum` message, past the detectors' events */
static GstStructure *
next_statistics (GstBus * bus)
{
  GstStructure *s;

  while ((s = cf_test_next_result (bus, 10 * GST_SECOND)) &&
      g_str_has_prefix (gst_structure_get_name (s), "cudasum-"))
    gst_structure_free (s);
  return s;
}

/* frame-diff: the mean absolute difference of the luma at 8 bits from the
 * previous frame's, with the statistics of each frame right */
GST_START_TEST (test_frame_diff)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_GRAY16_LE,
    GST_VIDEO_FORMAT_BGR10A2_LE,
  };
  guint f, i;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    GstBus *bus;
    GstHarness *h = cf_test_timed_harness ("cudasum " ALL_OPTIONS,
        formats[f], 333, 187, &bus);
    GstBuffer *frames[3];
    GstVideoInfo info;
    Expected e[3];

    gst_video_info_set_format (&info, formats[f], 333, 187);
    for (i = 0; i < 3; i++) {
      frames[i] = make_words (formats[f], 333, 187, 4, i == 2 ? WORDS_RANDOM :
          WORDS_REAL);
      expected_of_frame (frames[i], &info, &whole, &e[i]);
      cf_test_push_timed (h, frames[i], i);
    }
    fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
    for (i = 0; i < 3; i++) {
      GstStructure *s = next_statistics (bus);
      gchar *what = g_strdup_printf ("%s frame %u",
          gst_video_format_to_string (formats[f]), i);
      guint64 sad = 0;
      gsize k;

      fail_unless (s != NULL, "%s: no message", what);
      check_frame (s, &e[i], what);
      for (k = 0; i > 0 && k < (gsize) e[i].rw * e[i].rh; k++)
        sad += ABS ((gint) e[i].key[k] - (gint) e[i - 1].key[k]);
      cf_test_check_close (get_double (s, "frame-diff"), i ? (gdouble) sad /
          ((gdouble) e[i].rw * e[i].rh) : 0.0, what, "frame-diff", 0);
      gst_structure_free (s);
      g_free (what);
    }
    for (i = 0; i < 3; i++) {
      expected_clear (&e[i]);
      gst_buffer_unref (frames[i]);
    }
    cf_test_free_harness (h, bus);
  }
}

GST_END_TEST;

CF_TEST_SUITE (cudasum_high_bit_suite, "cudasum-high-bit",
    CF_TEST_CASE ("gpu", 600),
    CF_TEST (test_every_format_system_memory), CF_TEST (test_regions),
    CF_TEST (test_cuda_memory), CF_TEST (test_frame_diff));

CF_TEST_GPU_MAIN (cudasum_high_bit, cf_test_gpu_available);
