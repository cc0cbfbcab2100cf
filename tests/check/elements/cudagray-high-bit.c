/* cudagray with 10- to 16-bit input (#48), through GstHarness: the output
 * equals the CPU references (kernels/gray/gray-reference.c) for every
 * high-bit format, in system memory (GRAY16_LE, or GRAY8 with
 * output-depth=8) and in CUDA memory (P010_10LE and P016_LE with neutral
 * chroma 0x8000, or NV12), odd sizes, padded strides, random words (bits
 * outside the samples set) and frames that use every bit (cf-hbd.c); and
 * output-depth changed while playing. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "cf-hbd.h"
#include "cf-test-util.h"

static const GstVideoFormat rgb10a2_formats[] = {
  GST_VIDEO_FORMAT_BGR10A2_LE, GST_VIDEO_FORMAT_RGB10A2_LE,
};

/* the element's formats in CUDA memory: those of words GStreamer's CUDA
 * allocator holds, and the packed 10-bit RGB */
#define N_CUDA_FORMATS \
  (cf_hbd_n_cuda_word_formats + G_N_ELEMENTS (rgb10a2_formats))

static GstVideoFormat
cuda_format (guint i)
{
  return i < cf_hbd_n_cuda_word_formats ? cf_hbd_cuda_word_formats[i] :
      rgb10a2_formats[i - cf_hbd_n_cuda_word_formats];
}

static const struct
{
  gint w, h;
} sizes[] = {
  {1, 1}, {3, 7}, {1921, 1081},
};

static gboolean
is_rgb10a2 (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_RGB10A2_LE ||
      format == GST_VIDEO_FORMAT_BGR10A2_LE;
}

/* The expected grey plane of @in (tight rows): 16-bit words MSB-aligned,
 * or bytes with @to_8. */
static guint8 *
reference (GstBuffer * in, GstVideoFormat format, gint w, gint h, gboolean to_8)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  guint8 *want = g_malloc ((gsize) w * h * 2);
  const guint8 *src;
  gint stride;

  gst_video_info_set_format (&info, format, w, h);
  fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
  src = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);
  if (is_rgb10a2 (format)) {
    guint8 *words = g_malloc ((gsize) w * h * 2);

    cf_ref_gray16_from_rgb10a2 (src, stride, words, (gsize) w * 2, w, h,
        format == GST_VIDEO_FORMAT_BGR10A2_LE, CF_GRAY_MATRIX_BT601);
    if (to_8)
      cf_ref_plane_to_8 (words, (gsize) w * 2, want, w, w, h, 16, 0);
    else
      memcpy (want, words, (gsize) w * h * 2);
    g_free (words);
  } else {
    gint depth = GST_VIDEO_FORMAT_INFO_DEPTH (info.finfo, 0);
    gint shift = GST_VIDEO_FORMAT_INFO_SHIFT (info.finfo, 0);

    if (to_8)
      cf_ref_plane_to_8 (src, stride, want, w, w, h, depth, shift);
    else
      cf_ref_plane_to_msb16 (src, stride, want, (gsize) w * 2, w, h, depth,
          shift);
  }
  gst_video_frame_unmap (&frame);
  return want;
}

/* chroma planes of @out: every 16-bit word 0x8000, or every byte 128 */
static guint64
count_bad_chroma (GstBuffer * out, const GstVideoInfo * info)
{
  guint64 bad = 0;
  guint p;

  for (p = 1; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes;
    guint rows;

    cf_test_plane_extent (info, p, &row_bytes, &rows);
    if (GST_VIDEO_FORMAT_INFO_DEPTH (info->finfo, 1) > 8) {
      GstVideoFrame frame;
      guint y;
      gsize x;

      fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, out,
              GST_MAP_READ));
      for (y = 0; y < rows; y++) {
        const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA
            (&frame, p) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, p);
        for (x = 0; x + 1 < row_bytes; x += 2)
          bad += GST_READ_UINT16_LE (row + x) != 0x8000;
      }
      gst_video_frame_unmap (&frame);
    } else {
      bad += cf_test_count_plane_mismatches (out, info, p, NULL, row_bytes,
          rows);
    }
  }
  return bad;
}

/* One frame of @in_format through @h: random words, with @real every
 * sample then set to cf-hbd.c's content; rows padded by @pad bytes. */
static void
check_one_frame (GstHarness * h, GstVideoFormat in_format, gint w, gint ht,
    guint pad, gboolean real, GstVideoFormat out_format)
{
  GstBuffer *in = cf_test_make_frame (in_format, w, ht, pad, FALSE, rand_);
  gboolean to_8 = GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info
      (out_format), 0) == 8;
  GstVideoInfo out_info;
  GstBuffer *out;
  guint8 *want;
  guint64 bad;
  gsize row_bytes;
  guint rows;

  if (real) {
    GstVideoInfo info;
    GstVideoFrame frame;

    gst_video_info_set_format (&info, in_format, w, ht);
    fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_WRITE));
    cf_hbd_render (&frame, g_rand_int_range (rand_, 0, 1000),
        g_rand_int (rand_));
    gst_video_frame_unmap (&frame);
  }
  want = reference (in, in_format, w, ht, to_8);
  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);

  gst_video_info_set_format (&out_info, out_format, w, ht);
  cf_test_plane_extent (&out_info, 0, &row_bytes, &rows);
  bad = cf_test_count_plane_mismatches (out, &out_info, 0, want, row_bytes,
      rows);
  fail_unless (bad == 0, "%s -> %s %dx%d pad %u%s: %" G_GUINT64_FORMAT
      " grey bytes wrong", gst_video_format_to_string (in_format),
      gst_video_format_to_string (out_format), w, ht, pad,
      real ? " real-looking" : " random", bad);
  bad = count_bad_chroma (out, &out_info);
  fail_unless (bad == 0, "%s -> %s %dx%d: %" G_GUINT64_FORMAT " chroma "
      "samples not neutral", gst_video_format_to_string (in_format),
      gst_video_format_to_string (out_format), w, ht, bad);
  gst_buffer_unref (out);
  g_free (want);
}

static void
check_all_sizes (GstHarness * h, GstVideoFormat format,
    GstVideoFormat out_format)
{
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    gchar *caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, "
        "height=%d, framerate=30/1", gst_video_format_to_string (format),
        sizes[s].w, sizes[s].h);

    gst_harness_set_src_caps_str (h, caps);
    g_free (caps);
    /* tight, padded by an odd count (unaligned rows), real-looking */
    check_one_frame (h, format, sizes[s].w, sizes[s].h, 0, FALSE, out_format);
    check_one_frame (h, format, sizes[s].w, sizes[s].h, 37, FALSE, out_format);
    if (!is_rgb10a2 (format))
      check_one_frame (h, format, sizes[s].w, sizes[s].h, 64, TRUE, out_format);
  }
}

/* system memory in and out: GRAY16_LE, and GRAY8 with output-depth=8 */
GST_START_TEST (test_system_to_system)
{
  guint f, to_8;

  for (to_8 = 0; to_8 < 2; to_8++)
    for (f = 0; f < CF_HBD_N_WORD_FORMATS + G_N_ELEMENTS (rgb10a2_formats); f++) {
      GstHarness *h = gst_harness_new_parse (to_8 ?
          "cudagray output-depth=8" : "cudagray");

      gst_harness_set_sink_caps_str (h, "video/x-raw");
      check_all_sizes (h, f < CF_HBD_N_WORD_FORMATS ? cf_hbd_word_formats[f] :
          rgb10a2_formats[f - CF_HBD_N_WORD_FORMATS], to_8 ?
          GST_VIDEO_FORMAT_GRAY8 : GST_VIDEO_FORMAT_GRAY16_LE);
      gst_harness_teardown (h);
    }
}

GST_END_TEST;

static gboolean
deeper_than_10 (GstVideoFormat format)
{
  return GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info (format),
      0) > 10;
}

/* cudaupload ! cudagray ! cudadownload: P016_LE, P010_10LE from up to 10
 * bits, and NV12 with output-depth=8, in CUDA memory, chroma neutral */
GST_START_TEST (test_cuda_to_cuda)
{
  static const struct
  {
    const gchar *depth;
    GstVideoFormat out;
  } outs[] = {
    {"auto", GST_VIDEO_FORMAT_P010_10LE}, {"auto", GST_VIDEO_FORMAT_P016_LE},
    {"8", GST_VIDEO_FORMAT_NV12},
  };
  guint f, o;

  for (o = 0; o < G_N_ELEMENTS (outs); o++)
    for (f = 0; f < N_CUDA_FORMATS; f++) {
      gchar *launch;
      GstHarness *h;

      if (outs[o].out == GST_VIDEO_FORMAT_P010_10LE &&
          deeper_than_10 (cuda_format (f)))
        continue;               /* test_p010_holds_10_bits */
      launch = g_strdup_printf ("cudaupload ! "
          "video/x-raw(memory:CUDAMemory) ! cudagray output-depth=%s ! "
          "video/x-raw(memory:CUDAMemory), format=%s ! cudadownload",
          outs[o].depth, gst_video_format_to_string (outs[o].out));
      h = gst_harness_new_parse (launch);
      g_free (launch);
      gst_harness_set_sink_caps_str (h, "video/x-raw");
      check_all_sizes (h, cuda_format (f), outs[o].out);
      gst_harness_teardown (h);
    }
}

GST_END_TEST;

/* 12 and 16 bits do not go into P010: not negotiated, nothing pushed */
GST_START_TEST (test_p010_holds_10_bits)
{
  guint f;

  for (f = 0; f < N_CUDA_FORMATS; f++) {
    GstHarness *h;
    gchar *caps;

    if (!deeper_than_10 (cuda_format (f)))
      continue;
    h = gst_harness_new_parse ("cudaupload ! "
        "video/x-raw(memory:CUDAMemory) ! cudagray ! "
        "video/x-raw(memory:CUDAMemory), format=P010_10LE ! cudadownload");
    caps = g_strdup_printf ("video/x-raw, format=%s, width=16, height=8, "
        "framerate=30/1", gst_video_format_to_string (cuda_format (f)));
    gst_harness_set_src_caps_str (h, caps);
    g_free (caps);
    gst_harness_set_sink_caps_str (h, "video/x-raw");
    fail_if (gst_harness_push (h, cf_test_make_frame (cuda_format (f), 16, 8,
                0, FALSE, rand_)) == GST_FLOW_OK, "%s went into P010",
        gst_video_format_to_string (cuda_format (f)));
    fail_unless_equals_int (gst_harness_buffers_received (h), 0);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

static GstVideoFormat
output_format (GstHarness * h)
{
  GstCaps *caps = gst_pad_get_current_caps (h->sinkpad);
  GstVideoInfo info;

  fail_unless (caps != NULL);
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  return GST_VIDEO_INFO_FORMAT (&info);
}

/* output-depth while playing: the next frame comes out at the new depth,
 * its caps negotiated again */
GST_START_TEST (test_output_depth_change_while_playing)
{
  GstHarness *h = gst_harness_new ("cudagray");
  GstElement *gray = gst_harness_find_element (h, "cudagray");

  gst_harness_set_src_caps_str (h, "video/x-raw, format=P010_10LE, "
      "width=33, height=17, framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw, format={ GRAY16_LE, "
      "GRAY8 }");
  check_one_frame (h, GST_VIDEO_FORMAT_P010_10LE, 33, 17, 0, TRUE,
      GST_VIDEO_FORMAT_GRAY16_LE);
  fail_unless_equals_int (output_format (h), GST_VIDEO_FORMAT_GRAY16_LE);
  g_object_set (gray, "output-depth", 8, NULL);
  check_one_frame (h, GST_VIDEO_FORMAT_P010_10LE, 33, 17, 0, TRUE,
      GST_VIDEO_FORMAT_GRAY8);
  fail_unless_equals_int (output_format (h), GST_VIDEO_FORMAT_GRAY8);
  g_object_set (gray, "output-depth", 0, NULL);
  check_one_frame (h, GST_VIDEO_FORMAT_P010_10LE, 33, 17, 0, FALSE,
      GST_VIDEO_FORMAT_GRAY16_LE);
  fail_unless_equals_int (output_format (h), GST_VIDEO_FORMAT_GRAY16_LE);
  gst_object_unref (gray);
  gst_harness_teardown (h);
}

GST_END_TEST;

CF_TEST_SUITE (cudagray_high_bit_suite, "cudagray-high-bit",
    CF_TEST_CASE ("gpu", 0),
    CF_TEST (test_system_to_system), CF_TEST (test_cuda_to_cuda),
    CF_TEST (test_p010_holds_10_bits),
    CF_TEST (test_output_depth_change_while_playing));

CF_TEST_GPU_MAIN (cudagray_high_bit, cf_test_gpu_available);
