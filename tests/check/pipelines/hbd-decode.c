/* High-bit-depth video from the decoders (#48's groundwork): the 10- and
 * 12-bit HEVC clips that the build encodes losslessly
 * (tests/clips/make-hbd-clips.c) decode to exactly the frames that were
 * encoded, on the CPU (avdec_h265) and on the GPU (nvh265dec), compared
 * as component values whatever the layout each decoder hands out (P010,
 * P016 or P012, Y444_16LE against the I420_10LE, I420_12LE and Y444_1xLE
 * that were encoded).  These are the frames that the elements' high-bit
 * paths will be checked on.
 *
 * The CPU decode needs gstreamer1.0-libav, which the GPU machine lacks: it
 * is checked where the tests are built.  The GPU decode needs a GPU. */
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

#include "cf-hbd.h"
#include "cf-test-util.h"

/* the clips the build made (CF_HBD_CLIPS names its list) */
static gchar *clip_dir;
static gboolean clip_made[CF_HBD_N_CLIPS];

/* The list's clips; FALSE and why when there are none. */
static gboolean
read_clip_list (gchar ** why)
{
  const gchar *list = g_getenv ("CF_HBD_CLIPS");
  gchar *text = NULL, **lines;
  gboolean any = FALSE;
  guint i, c;

  if (!list || !g_file_get_contents (list, &text, NULL, NULL)) {
    *why = g_strdup_printf ("no list of clips (CF_HBD_CLIPS=%s)",
        list ? list : "");
    return FALSE;
  }
  clip_dir = g_path_get_dirname (list);
  lines = g_strsplit (text, "\n", -1);
  for (i = 0; lines[i]; i++) {
    if (lines[i][0] == '#' && !*why)
      *why = g_strdup (lines[i] + 1);
    for (c = 0; c < CF_HBD_N_CLIPS; c++)
      if (g_strcmp0 (lines[i], cf_hbd_clips[c].name) == 0)
        any = clip_made[c] = TRUE;
  }
  g_strfreev (lines);
  g_free (text);
  return any;
}

static GstBuffer *
render (GstVideoFormat format, gint width, gint height, guint index,
    guint32 seed, GstVideoInfo * info)
{
  GstBuffer *buf;
  GstVideoFrame frame;

  gst_video_info_set_format (info, format, width, height);
  buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE));
  cf_hbd_render (&frame, index, seed);
  gst_video_frame_unmap (&frame);
  return buf;
}

/* The frames carry every bit of their depth, and the comparison sees a
 * change of one unit in any of them: converted to P010 or P012 (another
 * layout of the same values: interleaved chroma, MSB-aligned) a frame
 * compares equal, and not once a sample of the conversion is off by one. */
GST_START_TEST (test_layouts_agree)
{
  static const struct
  {
    GstVideoFormat from, to;
  } pairs[] = {
    {GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_P010_10LE},
    {GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_P012_LE},
  };
  guint p;

  for (p = 0; p < G_N_ELEMENTS (pairs); p++) {
    GstVideoInfo in_info, out_info;
    GstBuffer *in = render (pairs[p].from, 162, 146, 3, 0x5eed, &in_info);
    GstBuffer *out;
    GstVideoFrame a, b;
    GstVideoConverter *conv;
    guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (in_info.finfo, 0);
    guint c, low_bits_set = 0, n = 0;
    gint x, y;
    gchar *where;

    gst_video_info_set_format (&out_info, pairs[p].to, 162, 146);
    out = gst_buffer_new_allocate (NULL, out_info.size, NULL);
    fail_unless (gst_video_frame_map (&a, &in_info, in, GST_MAP_READ));
    fail_unless (gst_video_frame_map (&b, &out_info, out, GST_MAP_WRITE));
    /* a change of layout only: no chroma resampling, matrix or dither */
    conv = gst_video_converter_new (&in_info, &out_info,
        gst_structure_new ("options", GST_VIDEO_CONVERTER_OPT_DITHER_METHOD,
            GST_TYPE_VIDEO_DITHER_METHOD, GST_VIDEO_DITHER_NONE,
            GST_VIDEO_CONVERTER_OPT_CHROMA_MODE, GST_TYPE_VIDEO_CHROMA_MODE,
            GST_VIDEO_CHROMA_MODE_NONE, GST_VIDEO_CONVERTER_OPT_MATRIX_MODE,
            GST_TYPE_VIDEO_MATRIX_MODE, GST_VIDEO_MATRIX_MODE_NONE, NULL));
    gst_video_converter_frame (conv, &a, &b);
    gst_video_converter_free (conv);

    /* every bit is used: the two lowest bits vary, and each component
     * reaches both ends of its range */
    for (c = 0; c < 3; c++) {
      guint lo = G_MAXUINT, hi = 0;

      for (y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&a, c); y++)
        for (x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH (&a, c); x++) {
          guint v = cf_hbd_value (&a, c, x, y);

          low_bits_set += (v & 3) != 0;
          n++;
          lo = MIN (lo, v);
          hi = MAX (hi, v);
        }
      fail_unless (lo == 0 && hi == (1u << depth) - 1, "%s component %u "
          "spans %u-%u", gst_video_format_to_string (pairs[p].from), c, lo, hi);
    }
    fail_unless (low_bits_set > n / 2, "%s: only %u of %u samples have "
        "their two lowest bits set", gst_video_format_to_string
        (pairs[p].from), low_bits_set, n);

    where = cf_hbd_compare (&b, &a);
    fail_unless (where == NULL, "%s -> %s: %s", gst_video_format_to_string
        (pairs[p].from), gst_video_format_to_string (pairs[p].to), where);

    /* one unit off, in the last component, away from the corners */
    cf_hbd_set_value (&b, 2, 7, 5, cf_hbd_value (&b, 2, 7, 5) ^ 1);
    where = cf_hbd_compare (&b, &a);
    fail_unless (where != NULL && strstr (where, "component 2 at (7, 5)"),
        "an altered sample was not found: %s", where ? where : "(equal)");
    g_free (where);

    gst_video_frame_unmap (&a);
    gst_video_frame_unmap (&b);
    gst_buffer_unref (in);
    gst_buffer_unref (out);
  }
}

GST_END_TEST;

/* Decodes clip @c with @decoder into system memory, comparing each frame
 * with the one that was encoded. */
static void
check_decode (guint c, const gchar * decoder)
{
  const CfHbdClip *clip = &cf_hbd_clips[c];
  gchar *name = g_strconcat (clip->name, ".h265", NULL);
  gchar *path = g_build_filename (clip_dir, name, NULL);
  gchar *launch = g_strdup_printf ("filesrc location=\"%s\" ! h265parse ! "
      "%s ! video/x-raw ! appsink name=sink sync=false", path, decoder);
  GstElement *pipeline = gst_parse_launch (launch, NULL);
  GstElement *sink;
  GstSample *sample;
  GstMessage *msg;
  GstBus *bus;
  gchar *mismatch = NULL;
  guint i = 0;

  fail_unless (pipeline != NULL, "%s", launch);
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  for (;;) {
    GstVideoInfo got_info, want_info;
    GstVideoFrame got, want;
    GstBuffer *want_buf;
    gchar *where;

    g_signal_emit_by_name (sink, "pull-sample", &sample);
    if (!sample)
      break;
    fail_unless (i < clip->frames, "%s: %s gave more than %u frames",
        decoder, clip->name, clip->frames);
    fail_unless (gst_video_info_from_caps (&got_info,
            gst_sample_get_caps (sample)));
    if (i == 0)
      GST_INFO ("%s: %s gives %s", decoder, clip->name,
          gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&got_info)));
    fail_unless (gst_video_frame_map (&got, &got_info,
            gst_sample_get_buffer (sample), GST_MAP_READ));
    want_buf = render (clip->format, clip->width, clip->height, i,
        clip->seed, &want_info);
    fail_unless (gst_video_frame_map (&want, &want_info, want_buf,
            GST_MAP_READ));
    where = cf_hbd_compare (&got, &want);
    if (where)
      mismatch = g_strdup_printf ("%s: %s, frame %u (as %s): %s", decoder,
          clip->name, i, gst_video_format_to_string (GST_VIDEO_INFO_FORMAT
              (&got_info)), where);
    g_free (where);
    gst_video_frame_unmap (&want);
    gst_video_frame_unmap (&got);
    gst_buffer_unref (want_buf);
    gst_sample_unref (sample);
    /* the tests share a process (CK_FORK=no): the pipeline is stopped
     * before the test fails, so that its threads do not outlive it */
    if (mismatch)
      break;
    i++;
  }
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  fail_unless (mismatch == NULL, "%s", mismatch);
  if (msg) {
    GError *err = NULL;
    gchar *debug = NULL;

    gst_message_parse_error (msg, &err, &debug);
    fail ("%s: %s: %s (%s)", decoder, clip->name, err->message,
        debug ? debug : "");
  }
  fail_unless_equals_int (i, clip->frames);
  gst_object_unref (bus);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  g_free (launch);
  g_free (path);
  g_free (name);
}

GST_START_TEST (test_cpu_decode)
{
  if (clip_made[__i__])
    check_decode (__i__, "avdec_h265");
}

GST_END_TEST;

GST_START_TEST (test_gpu_decode)
{
  if (clip_made[__i__])
    check_decode (__i__, "nvh265dec");
}

GST_END_TEST;

CF_TEST_SUITE (hbd_layouts_suite, "hbd-layouts-cpu",
    CF_TEST_CASE ("cpu", 0), CF_TEST (test_layouts_agree));

CF_TEST_SUITE (hbd_cpu_suite, "hbd-decode-cpu",
    CF_TEST_CASE ("cpu", 0), CF_LOOP_TEST (test_cpu_decode, 0, CF_HBD_N_CLIPS));

CF_TEST_SUITE (hbd_gpu_suite, "hbd-decode",
    CF_TEST_CASE ("gpu", 0), CF_LOOP_TEST (test_gpu_decode, 0, CF_HBD_N_CLIPS));

int
main (int argc, char **argv)
{
  gchar *why = NULL;
  gboolean clips;
  int ret;

  gst_check_init (&argc, &argv);
  clips = read_clip_list (&why);
  if (!clips)
    g_print ("no high-bit clips in this build (%s): the decodes are not "
        "checked\n", why ? why : "the list names none");
  ret = gst_check_run_suite (hbd_layouts_suite (), "hbd-layouts-cpu", __FILE__);
  if (ret == 0 && clips) {
    if (cf_test_element_exists ("avdec_h265"))
      ret = gst_check_run_suite (hbd_cpu_suite (), "hbd-decode-cpu", __FILE__);
    else
      g_print ("no avdec_h265 here (gstreamer1.0-libav): the CPU decode is "
          "checked where the tests are built, not here\n");
  }
  if (ret == 0 && !(clips && cf_test_gpu_available ()
          && cf_test_element_exists ("nvh265dec"))) {
    g_print ("SKIP: the GPU decode needs the clips, a CUDA GPU and "
        "nvh265dec, and one is missing here\n");
    ret = CF_TEST_SKIP;
  } else if (ret == 0) {
    ret = gst_check_run_suite (hbd_gpu_suite (), "hbd-decode", __FILE__);
  }
  g_free (why);
  g_free (clip_dir);
  return ret;
}
