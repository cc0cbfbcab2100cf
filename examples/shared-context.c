/* An application that shares its own CUDA context with a pipeline.
 *
 * Media applications often hold a CUDA context already (for their own
 * kernels, a renderer, an inference engine).  GStreamer's CUDA elements, ours
 * and nvcodec's, ask for one with a NEED_CONTEXT message; answering it from a
 * bus sync handler makes the whole pipeline run in the application's
 * context, so frames can be handed between the two without copies.
 *
 *   shared-context [DEVICE_ID]
 *
 * Runs videotestsrc ! cudaupload ! cudagray ! cudadownload ! appsink, checks
 * that cudagray ran in the application's context, and prints the mean grey
 * level of the frames. */
#include <stdio.h>
#include <stdlib.h>
#include <gst/gst.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>

static GstBusSyncReply
answer_need_context (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  GstCudaContext *app_context = user_data;
  const gchar *type;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_NEED_CONTEXT &&
      gst_message_parse_context_type (msg, &type) &&
      g_str_equal (type, GST_CUDA_CONTEXT_TYPE)) {
    GstContext *context = gst_context_new_cuda_context (app_context);
    gst_element_set_context (GST_ELEMENT (GST_MESSAGE_SRC (msg)), context);
    gst_context_unref (context);
  }
  return GST_BUS_PASS;
}

/* The CUDA context an element uses, through the context query. */
static GstCudaContext *
element_cuda_context (GstElement * element)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *context = NULL;

  if (gst_element_query (element, query)) {
    GstContext *c;
    gst_query_parse_context (query, &c);
    gst_structure_get (gst_context_get_structure (c), GST_CUDA_CONTEXT_TYPE,
        GST_TYPE_CUDA_CONTEXT, &context, NULL);
  }
  gst_query_unref (query);
  return context;
}

int
main (int argc, char **argv)
{
  guint device_id = argc > 1 ? (guint) atoi (argv[1]) : 0;
  GstCudaContext *app_context, *used = NULL;
  GstElement *pipeline, *gray, *sink;
  GstSample *sample;
  GError *error = NULL;
  GstBus *bus;
  guint frames = 0;
  double mean = 0;

  gst_init (&argc, &argv);
  if (!gst_cuda_load_library ()) {
    fprintf (stderr, "the CUDA driver library could not be loaded\n");
    return 1;
  }
  app_context = gst_cuda_context_new (device_id);
  if (!app_context) {
    fprintf (stderr, "could not create a CUDA context on device %u\n",
        device_id);
    return 1;
  }

  pipeline = gst_parse_launch ("videotestsrc num-buffers=30 pattern=ball ! "
      "video/x-raw,format=RGBA,width=640,height=360 ! cudaupload ! "
      "cudagray name=gray ! cudadownload ! video/x-raw,format=NV12 ! "
      "appsink name=sink sync=false", &error);
  if (!pipeline) {
    fprintf (stderr, "%s\n", error->message);
    return 1;
  }
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, answer_need_context, app_context, NULL);
  gray = gst_bin_get_by_name (GST_BIN (pipeline), "gray");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    GstMessage *msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    if (msg) {
      gst_message_parse_error (msg, &error, NULL);
      fprintf (stderr, "error: %s\n", error->message);
      gst_message_unref (msg);
    }
    return 1;
  }

  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstBuffer *buf = gst_sample_get_buffer (sample);
    GstVideoInfo info;
    GstVideoFrame frame;

    gst_video_info_from_caps (&info, gst_sample_get_caps (sample));
    if (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ)) {
      const guint8 *luma = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
      guint64 sum = 0;
      gint x, y, stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

      for (y = 0; y < GST_VIDEO_INFO_HEIGHT (&info); y++)
        for (x = 0; x < GST_VIDEO_INFO_WIDTH (&info); x++)
          sum += luma[y * stride + x];
      mean += (double) sum / (GST_VIDEO_INFO_WIDTH (&info) *
          GST_VIDEO_INFO_HEIGHT (&info));
      gst_video_frame_unmap (&frame);
    }
    if (frames++ == 0)
      used = element_cuda_context (gray);
    gst_sample_unref (sample);
  }

  printf ("%u grey frames, mean grey level %.2f\n", frames,
      frames ? mean / frames : 0);
  printf ("cudagray ran in the application's CUDA context: %s\n",
      used == app_context ? "yes" : "no");

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_clear_object (&used);
  gst_object_unref (gray);
  gst_object_unref (sink);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  gst_object_unref (app_context);
  return frames == 30 ? 0 : 1;
}
