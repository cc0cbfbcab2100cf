/* Encodes the high-bit-depth clips of tests/common/cf-hbd.c, losslessly,
 * with x265enc.  Run by the build (tests/meson.build), where the encoders
 * are: the GPU machine has none, and takes the clips from the build
 * directory.
 *
 *   make-hbd-clips LIST
 *
 * writes NAME.h265 beside LIST for each clip, then LIST: a line a clip
 * ("NAME"), or a comment saying why there are none (no x265enc here).  A
 * clip that x265enc cannot make fails the build. */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <stdio.h>

#include "cf-hbd.h"

static gboolean
encode (const CfHbdClip * clip, const gchar * path)
{
  GstVideoInfo info;
  GstElement *pipeline, *src;
  GstBus *bus;
  GstMessage *msg;
  GstCaps *caps;
  gchar *launch;
  gboolean ok;
  guint i;

  gst_video_info_set_format (&info, clip->format, clip->width, clip->height);
  info.fps_n = 30;
  info.fps_d = 1;
  /* lossless: the decode must give back cf_hbd_render()'s frames */
  launch = g_strdup_printf ("appsrc name=src format=time ! x265enc "
      "option-string=lossless=1 speed-preset=ultrafast ! h265parse ! "
      "video/x-h265, stream-format=byte-stream, alignment=au ! "
      "filesink location=\"%s\"", path);
  pipeline = gst_parse_launch (launch, NULL);
  g_free (launch);
  if (!pipeline)
    return FALSE;
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  caps = gst_video_info_to_caps (&info);
  g_object_set (src, "caps", caps, NULL);
  gst_caps_unref (caps);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  for (i = 0; i < clip->frames; i++) {
    GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);
    GstVideoFrame frame;
    GstFlowReturn ret;

    gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE);
    cf_hbd_render (&frame, i, clip->seed);
    gst_video_frame_unmap (&frame);
    GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, 30);
    GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
    g_signal_emit_by_name (src, "push-buffer", buf, &ret);
    gst_buffer_unref (buf);
    if (ret != GST_FLOW_OK)
      break;
  }
  {
    GstFlowReturn ret;

    g_signal_emit_by_name (src, "end-of-stream", &ret);
  }
  gst_object_unref (src);
  bus = gst_element_get_bus (pipeline);
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
  if (msg && !ok) {
    GError *err = NULL;

    gst_message_parse_error (msg, &err, NULL);
    g_printerr ("make-hbd-clips: %s: %s\n", clip->name, err->message);
    g_clear_error (&err);
  }
  gst_clear_message (&msg);
  gst_object_unref (bus);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return ok;
}

int
main (int argc, char **argv)
{
  GString *list = g_string_new (NULL);
  GstElementFactory *x265;
  gchar *dir;
  guint i;
  int ret = 0;

  gst_init (&argc, &argv);
  if (argc != 2) {
    g_printerr ("usage: make-hbd-clips LIST\n");
    return 2;
  }
  dir = g_path_get_dirname (argv[1]);
  x265 = gst_element_factory_find ("x265enc");
  if (!x265) {
    g_string_append (list, "# none: x265enc (gst-plugins-bad with x265) was "
        "missing where the tests were built\n");
  } else {
    gst_object_unref (x265);
    for (i = 0; i < CF_HBD_N_CLIPS && ret == 0; i++) {
      gchar *name = g_strconcat (cf_hbd_clips[i].name, ".h265", NULL);
      gchar *path = g_build_filename (dir, name, NULL);

      if (encode (&cf_hbd_clips[i], path))
        g_string_append_printf (list, "%s\n", cf_hbd_clips[i].name);
      else
        ret = 1;
      g_free (path);
      g_free (name);
    }
  }
  if (ret == 0 && !g_file_set_contents (argv[1], list->str, -1, NULL))
    ret = 1;
  g_string_free (list, TRUE);
  g_free (dir);
  return ret;
}
