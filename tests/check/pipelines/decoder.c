/* Frames straight from the hardware decoder: an H.264 stream (encoded here
 * with openh264enc) decoded by nvh264dec into each element, in CUDA memory,
 * against the same stream decoded on the CPU by openh264dec into the same
 * element in system memory.  H.264 decoding is bit-exact, so every output
 * byte and every message field must be the same. */
#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/app/gstappsink.h>

#include "cf-test-util.h"

typedef struct
{
  GPtrArray *frames;            /* of GstBuffer, one access unit each */
  GstCaps *caps;
  gint width, height;
} Clip;

/* @frames frames of videotestsrc @pattern, encoded. */
static void
encode_clip (Clip * clip, const gchar * pattern, gint w, gint h, guint frames)
{
  gchar *launch = g_strdup_printf ("videotestsrc %s num-buffers=%u ! "
      "video/x-raw, format=I420, width=%d, height=%d, framerate=30/1 ! "
      "openh264enc bitrate=8000000 ! h264parse ! video/x-h264, "
      "stream-format=byte-stream, alignment=au ! appsink name=sink sync=false",
      pattern, frames, w, h);
  GstElement *pipe = gst_parse_launch (launch, NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  GstSample *sample;

  clip->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  clip->caps = NULL;
  clip->width = w;
  clip->height = h;
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    if (!clip->caps)
      clip->caps = gst_caps_ref (gst_sample_get_caps (sample));
    g_ptr_array_add (clip->frames, gst_buffer_ref (gst_sample_get_buffer
            (sample)));
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (clip->frames->len, frames);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
}

static void
clip_clear (Clip * clip)
{
  g_ptr_array_unref (clip->frames);
  gst_caps_unref (clip->caps);
}

typedef struct
{
  GPtrArray *frames;            /* of GstBuffer, as they came out */
  GPtrArray *results;           /* of GstStructure: the element's messages */
} Decoded;

static void
decoded_clear (Decoded * d)
{
  g_ptr_array_unref (d->frames);
  g_ptr_array_unref (d->results);
}

/* @clip through "appsrc ! h264parse ! @middle ! appsink". */
static void
decode (const Clip * clip, const gchar * middle, Decoded * d)
{
  gchar *launch = g_strdup_printf ("appsrc name=src format=time ! h264parse ! "
      "%s ! appsink name=sink sync=false", middle);
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch (launch, &err);
  GstElement *src, *sink;
  GstBus *bus;
  GstMessage *msg;
  GstSample *sample;
  guint i;

  fail_unless (pipe != NULL, "%s: %s", launch, err ? err->message : "?");
  src = gst_bin_get_by_name (GST_BIN (pipe), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  bus = gst_element_get_bus (pipe);
  d->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_buffer_unref);
  d->results = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);

  gst_app_src_set_caps (GST_APP_SRC (src), clip->caps);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (i = 0; i < clip->frames->len; i++)
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
            gst_buffer_ref (g_ptr_array_index (clip->frames, i))), GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    g_ptr_array_add (d->frames, gst_buffer_ref (gst_sample_get_buffer
            (sample)));
    gst_sample_unref (sample);
  }
  /* every message is posted before EOS leaves the element */
  while ((msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT |
              GST_MESSAGE_ERROR | GST_MESSAGE_EOS))) {
    gboolean eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;

    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      fail ("%s: %s", launch, err->message);
    }
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      GstStructure *s = gst_structure_copy (gst_message_get_structure (msg));

      /* the same frames, in two pipelines started at different times */
      gst_structure_remove_fields (s, "running-time", NULL);
      g_ptr_array_add (d->results, s);
    }
    gst_message_unref (msg);
    if (eos)
      break;
  }
  fail_unless_equals_int (d->frames->len, clip->frames->len);

  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipe);
  g_free (launch);
}

/* Whether plane 0 of @a and @b holds the same bytes (NV12's luma and
 * GRAY8, say). */
static gboolean
luma_equal (GstBuffer * a, const GstVideoInfo * info_a, GstBuffer * b,
    const GstVideoInfo * info_b)
{
  GstVideoFrame fa, fb;
  gboolean same = TRUE;
  guint y;

  fail_unless (gst_video_frame_map (&fa, (GstVideoInfo *) info_a, a,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, (GstVideoInfo *) info_b, b,
          GST_MAP_READ));
  for (y = 0; y < (guint) GST_VIDEO_INFO_HEIGHT (info_a) && same; y++)
    same = memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, 0),
        (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, 0) +
        (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, 0),
        GST_VIDEO_INFO_WIDTH (info_a)) == 0;
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return same;
}

/* The same elements fed by both decoders: nvh264dec's CUDA memory through
 * @gpu, openh264dec's frames (as NV12 in system memory) through @cpu; the
 * output frames (of @gpu_out and @cpu_out: only plane 0 is compared when
 * they differ) and the messages must be equal. */
static void
compare_decoders (const Clip * clip, const gchar * gpu, GstVideoFormat gpu_out,
    const gchar * cpu, GstVideoFormat cpu_out)
{
  gchar *gpu_launch = g_strdup_printf ("nvh264dec ! "
      "video/x-raw(memory:CUDAMemory) ! %s ! video/x-raw, format=%s", gpu,
      gst_video_format_to_string (gpu_out));
  gchar *cpu_launch = g_strdup_printf ("openh264dec ! videoconvert ! "
      "video/x-raw, format=NV12 ! %s ! video/x-raw, format=%s", cpu,
      gst_video_format_to_string (cpu_out));
  Decoded a, b;
  GstVideoInfo info_a, info_b;
  guint i;

  decode (clip, gpu_launch, &a);
  decode (clip, cpu_launch, &b);
  gst_video_info_set_format (&info_a, gpu_out, clip->width, clip->height);
  gst_video_info_set_format (&info_b, cpu_out, clip->width, clip->height);
  for (i = 0; i < a.frames->len; i++) {
    GstBuffer *fa = g_ptr_array_index (a.frames, i);
    GstBuffer *fb = g_ptr_array_index (b.frames, i);

    fail_unless_equals_uint64 (GST_BUFFER_PTS (fa), GST_BUFFER_PTS (fb));
    fail_unless (gpu_out == cpu_out ? cf_test_frames_equal (fa, fb, &info_a) :
        luma_equal (fa, &info_a, fb, &info_b), "%s %dx%d: frame %u differs "
        "between nvh264dec and openh264dec", gpu, clip->width, clip->height, i);
  }
  /* each element's messages in order (two elements post theirs from
   * threads of their own: the two sequences interleave as they come) */
  fail_unless_equals_int (a.results->len, b.results->len);
  for (i = 0; i < a.results->len; i++) {
    GstStructure *sa = g_ptr_array_index (a.results, i);
    guint k, nth = 0, j;
    GstStructure *sb = NULL;
    gchar *str_a, *str_b;

    for (k = 0; k < i; k++)
      nth += gst_structure_has_name (g_ptr_array_index (a.results, k),
          gst_structure_get_name (sa));
    for (j = 0; j < b.results->len && !sb; j++) {
      GstStructure *c = g_ptr_array_index (b.results, j);

      if (gst_structure_has_name (c, gst_structure_get_name (sa)) && nth-- == 0)
        sb = c;
    }
    fail_unless (sb != NULL, "%s: openh264dec's pipeline has fewer %s "
        "messages", gpu, gst_structure_get_name (sa));
    str_a = gst_structure_to_string (sa);
    str_b = gst_structure_to_string (sb);
    fail_unless (gst_structure_is_equal (sa, sb), "%s %dx%d: message %u "
        "differs:\n  nvh264dec:   %.400s\n  openh264dec: %.400s", gpu,
        clip->width, clip->height, i, str_a, str_b);
    g_free (str_a);
    g_free (str_b);
  }
  decoded_clear (&a);
  decoded_clear (&b);
  g_free (gpu_launch);
  g_free (cpu_launch);
}

static void
compare_every_element (const Clip * clip)
{
  const GstVideoFormat nv12 = GST_VIDEO_FORMAT_NV12;

  /* grey in CUDA memory (NV12 with neutral chroma), and in system memory */
  compare_decoders (clip, "cudagray ! cudadownload", nv12, "cudagray",
      GST_VIDEO_FORMAT_GRAY8);
  compare_decoders (clip, "cudagray", GST_VIDEO_FORMAT_GRAY8, "cudagray",
      GST_VIDEO_FORMAT_GRAY8);
  compare_decoders (clip, "cudablur sigma=2.6 ! cudadownload", nv12,
      "cudablur sigma=2.6", nv12);
  compare_decoders (clip, "cudahist ! cudadownload", nv12, "cudahist", nv12);
  compare_decoders (clip, "cudasum percentiles=true profiles=true "
      "detect=crop+black+cut ! cudadownload", nv12, "cudasum "
      "percentiles=true profiles=true detect=crop+black+cut", nv12);
  /* the chain of the pipeline benchmark, in CUDA memory throughout */
  compare_decoders (clip, "cudagray ! cudablur sigma=1.5 ! cudahist ! "
      "cudasum ! cudadownload", nv12, "cudagray ! cudablur sigma=1.5 ! "
      "cudahist ! cudasum ! cudadownload", nv12);
}

GST_START_TEST (test_moving_bars_odd_size)
{
  Clip clip;

  encode_clip (&clip, "pattern=smpte horizontal-speed=5", 642, 362, 30);
  compare_every_element (&clip);
  clip_clear (&clip);
}

GST_END_TEST;

GST_START_TEST (test_ball_1080p)
{
  Clip clip;

  encode_clip (&clip, "pattern=ball motion=sweep background-color=0xff405060",
      1920, 1080, 12);
  compare_every_element (&clip);
  clip_clear (&clip);
}

GST_END_TEST;

CF_TEST_SUITE (decoder_suite, "decoder",
    CF_TEST_CASE ("gpu", 0),
    CF_TEST (test_moving_bars_odd_size), CF_TEST (test_ball_1080p));

static gboolean
gpu_and_decoders_present (void)
{
  static const gchar *needed[] = { "nvh264dec", "openh264enc", "openh264dec",
    "cudadownload", "h264parse", "videoconvert", "videotestsrc"
  };
  guint i;

  if (!cf_test_gpu_available ())
    return FALSE;
  for (i = 0; i < G_N_ELEMENTS (needed); i++) {
    GstElementFactory *f = gst_element_factory_find (needed[i]);

    if (!f) {
      cf_test_skip_reason = g_strdup_printf ("this test needs %s, and "
          "there is none here", needed[i]);
      return FALSE;
    }
    gst_object_unref (f);
  }
  return TRUE;
}

CF_TEST_GPU_MAIN (decoder, gpu_and_decoders_present);
