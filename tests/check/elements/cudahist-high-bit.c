/* cudahist with 10- to 16-bit input (#48), through GstHarness: the counts
 * of every format of 16-bit words and of the packed 10-bit RGB (R, G, B;
 * not the 2-bit alpha), in system and CUDA memory, against counts made
 * here from the frame's values (cf_hbd_value), at 2^min(d, 12) levels
 * folded into bins; odd sizes, padded strides (odd ones too: frames in
 * system memory are staged on the GPU in rows on 16 bytes, so the
 * kernel's row path is reached here through regions of interest, and
 * tested on its own in kernels-hist), random words (bits outside the
 * samples set), solid frames and frames that use every bit (cf-hbd.c);
 * the default bins of each depth, bins past the levels, regions of
 * interest, and the message's `depth`. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "cf-hbd.h"
#include "cf-test-util.h"

static guint
levels_of (guint depth)
{
  return 1u << MIN (depth, 12);
}

/* The expected counts of @buf: counts[c * 4096 + bin] for each component
 * c, of every sample covering part of the region; the number of
 * components. */
static guint
reference_counts (GstBuffer * buf, const GstVideoInfo * info, const Roi * roi,
    guint bins, guint64 * counts, guint64 * pixels)
{
  GstVideoFrame frame;
  guint width = GST_VIDEO_INFO_WIDTH (info), height =
      GST_VIDEO_INFO_HEIGHT (info);
  guint x0 = MIN (roi->x, width), y0 = MIN (roi->y, height);
  guint w = roi->w ? MIN (roi->w, width - x0) : width - x0;
  guint h = roi->h ? MIN (roi->h, height - y0) : height - y0;
  /* (not RGB10A2's 2-bit alpha) */
  guint n = MIN (GST_VIDEO_INFO_N_COMPONENTS (info), 3), c, x, y;
  guint depth = GST_VIDEO_INFO_COMP_DEPTH (info, 0);
  guint levels = levels_of (depth);

  memset (counts, 0, sizeof (guint64) * 3 * CF_HIST_MAX_LEVELS);
  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  for (c = 0; c < n; c++) {
    guint ws = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, c);
    guint hs = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, c);
    guint cx0 = x0 >> ws, cy0 = y0 >> hs;
    guint cx1 = w ? (x0 + w + (1 << ws) - 1) >> ws : cx0;
    guint cy1 = h ? (y0 + h + (1 << hs) - 1) >> hs : cy0;

    for (y = cy0; y < cy1; y++)
      for (x = cx0; x < cx1; x++) {
        guint level = cf_hbd_value (&frame, c, x, y) >> (depth > 12 ?
            depth - 12 : 0);

        counts[c * CF_HIST_MAX_LEVELS + (guint64) level * bins / levels]++;
      }
  }
  gst_video_frame_unmap (&frame);
  *pixels = (guint64) w *h;
  return n;
}

static const gchar *const rgb_names[] = { "R", "G", "B" };
static const gchar *const yuv_names[] = { "Y", "U", "V" };

/* @s holds the counts of @buf in @bins bins. */
static void
check_counts (const GstStructure * s, GstBuffer * buf,
    const GstVideoInfo * info, const Roi * roi, guint bins, const gchar * what)
{
  const gchar *const *names = GST_VIDEO_INFO_IS_RGB (info) ? rgb_names :
      yuv_names;
  guint64 *want = g_new (guint64, 3 * CF_HIST_MAX_LEVELS), pixels, got_pixels;
  guint n = reference_counts (buf, info, roi, bins, want, &pixels), c, b;
  guint got_bins, got_depth;

  fail_unless (gst_structure_has_name (s, "cudahist"), "%s", what);
  fail_unless (gst_structure_get_uint (s, "depth", &got_depth), "%s", what);
  fail_unless_equals_int (got_depth, GST_VIDEO_INFO_COMP_DEPTH (info, 0));
  fail_unless (gst_structure_get_uint (s, "bins", &got_bins), "%s", what);
  fail_unless (got_bins == bins, "%s: %u bins, want %u", what, got_bins, bins);
  fail_unless (gst_structure_get_uint64 (s, "pixels", &got_pixels));
  fail_unless (got_pixels == pixels, "%s: pixels %" G_GUINT64_FORMAT
      ", want %" G_GUINT64_FORMAT, what, got_pixels, pixels);
  for (c = 0; c < n; c++) {
    guint64 total = 0;

    fail_unless (cf_test_array_length (s, names[c]) == bins,
        "%s: channel %s of the wrong size", what, names[c]);
    for (b = 0; b < bins; b++) {
      guint64 got = cf_test_array_uint64 (s, names[c], b);

      fail_unless (got == want[c * CF_HIST_MAX_LEVELS + b], "%s: channel %s "
          "bin %u: got %" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, what,
          names[c], b, got, want[c * CF_HIST_MAX_LEVELS + b]);
      total += got;
    }
    if (c == 0 || GST_VIDEO_INFO_IS_RGB (info))
      fail_unless (total == pixels, "%s: %s sums to %" G_GUINT64_FORMAT, what,
          names[c], total);
  }
  fail_if (n < 3 && gst_structure_has_field (s, "U"), "%s", what);
  fail_if (gst_structure_has_field (s, "A"), "%s: alpha counted", what);
  g_free (want);
}

typedef enum
{
  WORDS_RANDOM,                 /* every bit of every word random */
  WORDS_SOLID,                  /* one random word a byte position */
  WORDS_REAL,                   /* cf_hbd_render's content */
} Content;

/* One frame through @launch (a cudahist line) whose message must have
 * @bins bins over @roi. */
static void
run_frame (const gchar * launch, GstVideoFormat format, gint w, gint h,
    guint pad, Content content, guint bins, const Roi * roi)
{
  GstVideoInfo info;
  GstBuffer *in = cf_test_make_frame (format, w, h, pad,
      content == WORDS_SOLID, rand_);
  GstStructure *s;
  gchar *what = g_strdup_printf ("%s %s %dx%d pad %u content %d", launch,
      gst_video_format_to_string (format), w, h, pad, content);

  gst_video_info_set_format (&info, format, w, h);
  if (content == WORDS_REAL) {
    GstVideoFrame frame;

    fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_WRITE));
    cf_hbd_render (&frame, g_rand_int_range (rand_, 0, 1000),
        g_rand_int (rand_));
    gst_video_frame_unmap (&frame);
  }
  s = cf_test_message_of (launch, in, &info, what);
  check_counts (s, in, &info, roi, bins, what);
  gst_structure_free (s);
  gst_buffer_unref (in);
  g_free (what);
}

static guint
default_bins (GstVideoFormat format)
{
  return 1u << MIN (GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info
          (format), 0), 10);
}

static const GstVideoFormat rgb10a2_formats[] = {
  GST_VIDEO_FORMAT_RGB10A2_LE, GST_VIDEO_FORMAT_BGR10A2_LE,
};

/* every format of words and the packed 10-bit RGB, sizes from 1x1, rows
 * tight, padded by an odd count (every other row at an odd address in the
 * buffer pushed) and by 64 bytes */
GST_START_TEST (test_every_format_system_memory)
{
  static const Roi whole = { 0, 0, 0, 0 };
  guint f;

  for (f = 0; f < CF_HBD_N_WORD_FORMATS + G_N_ELEMENTS (rgb10a2_formats); f++) {
    GstVideoFormat format = f < CF_HBD_N_WORD_FORMATS ?
        cf_hbd_word_formats[f] : rgb10a2_formats[f - CF_HBD_N_WORD_FORMATS];
    guint bins = default_bins (format);

    run_frame ("cudahist", format, 1, 1, 0, WORDS_RANDOM, bins, &whole);
    run_frame ("cudahist", format, 3, 7, 37, WORDS_RANDOM, bins, &whole);
    run_frame ("cudahist", format, 1921, 1081, 0, WORDS_REAL, bins, &whole);
    run_frame ("cudahist", format, 1921, 1081, 37, WORDS_RANDOM, bins, &whole);
    run_frame ("cudahist", format, 640, 361, 64, WORDS_SOLID, bins, &whole);
  }
}

GST_END_TEST;

/* bins of every kind at each depth: 1, uneven, the levels exactly, more
 * than the levels (one bin a level), over regions of interest */
GST_START_TEST (test_bins_and_regions)
{
  static const guint bins[] = { 1, 7, 1000, 1024, 4096 };
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_Y444_16LE,
    GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_BGR10A2_LE,
  };
  guint r, b, f;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (r = 0; r < G_N_ELEMENTS (cf_test_rois); r++)
      for (b = 0; b < G_N_ELEMENTS (bins); b++) {
        const Roi *roi = &cf_test_rois[r];
        guint levels = levels_of (GST_VIDEO_FORMAT_INFO_DEPTH
            (gst_video_format_get_info (formats[f]), 0));
        gchar *options = g_strdup_printf ("cudahist bins=%u array-format=%s",
            bins[b], (r + b) % 2 ? "buffer" : "value-array");
        gchar *launch = cf_test_roi_launch (options, roi);

        run_frame (launch, formats[f], 301, 211, 12, (r + b) % 3 ?
            WORDS_RANDOM : WORDS_REAL, MIN (bins[b], levels), roi);
        g_free (options);
        g_free (launch);
      }
}

GST_END_TEST;

/* the formats GStreamer's CUDA allocator holds, read in CUDA memory */
GST_START_TEST (test_cuda_memory)
{
  static const Roi whole = { 0, 0, 0, 0 }, part = { 7, 3, 100, 50 };
  guint f;

  for (f = 0; f < cf_hbd_n_cuda_word_formats + G_N_ELEMENTS (rgb10a2_formats);
      f++) {
    GstVideoFormat format = f < cf_hbd_n_cuda_word_formats ?
        cf_hbd_cuda_word_formats[f] :
        rgb10a2_formats[f - cf_hbd_n_cuda_word_formats];

    run_frame ("cudaupload ! cudahist ! cudadownload", format, 1921, 1081, 0,
        WORDS_REAL, default_bins (format), &whole);
    run_frame ("cudaupload ! cudahist ! cudadownload", format, 33, 17, 0,
        WORDS_RANDOM, default_bins (format), &whole);
    run_frame ("cudaupload ! cudahist bins=4096 roi-x=7 roi-y=3 "
        "roi-width=100 roi-height=50 ! cudadownload", format, 321, 241, 0,
        WORDS_RANDOM, levels_of (GST_VIDEO_FORMAT_INFO_DEPTH
            (gst_video_format_get_info (format), 0)), &part);
  }
}

GST_END_TEST;

CF_TEST_SUITE (cudahist_high_bit_suite, "cudahist-high-bit",
    CF_TEST_CASE ("gpu", 600),
    CF_TEST (test_every_format_system_memory),
    CF_TEST (test_bins_and_regions), CF_TEST (test_cuda_memory));

CF_TEST_GPU_MAIN (cudahist_high_bit, cf_test_gpu_available);
