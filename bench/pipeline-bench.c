/* Pipeline benchmark: frames per second of
 *   appsrc (pre-made frames) ! <element chain> ! fakesink
 * with the frames in pinned memory (from the pool the first element proposes
 * in the allocation query, as any GStreamer producer gets it) or in ordinary
 * pageable memory, and the rate PCIe allows, measured in the same run.
 *
 *   pipeline-bench [--chain "cudagray"] [--format RGBA] [--width 3840]
 *                  [--height 2160] [--frames 600] [--out-bytes-per-pixel 1]
 *
 * The source costs nothing: a few frames are made before the clock starts
 * and pushed round-robin.  Time runs from the first timed push to EOS. */
#include <stdio.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <cuda_runtime_api.h>

#define N_SOURCE_FRAMES 8

static gint frames_seen;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  g_atomic_int_inc (&frames_seen);
}

/* Host-device copy bandwidth in bytes/s: median of 40 copies of @bytes,
 * rotated over N_SOURCE_FRAMES host buffers as the pipeline's frames are
 * (one buffer would be served from the CPU's cache and flatter PCIe). */
static double
copy_bandwidth (size_t bytes, gboolean pinned, enum cudaMemcpyKind kind)
{
  void *host[N_SOURCE_FRAMES], *dev;
  float times[40];
  cudaEvent_t a, b;
  int i, j;

  for (i = 0; i < N_SOURCE_FRAMES; i++) {
    if (pinned ? cudaMallocHost (&host[i], bytes) != cudaSuccess :
        !(host[i] = g_malloc (bytes)))
      return 0;
    memset (host[i], 1, bytes);
  }
  if (cudaMalloc (&dev, bytes) != cudaSuccess)
    return 0;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  for (i = 0; i < 43; i++) {
    void *h = host[i % N_SOURCE_FRAMES];
    cudaEventRecord (a, 0);
    if (kind == cudaMemcpyHostToDevice)
      cudaMemcpyAsync (dev, h, bytes, kind, 0);
    else
      cudaMemcpyAsync (h, dev, bytes, kind, 0);
    cudaEventRecord (b, 0);
    cudaEventSynchronize (b);
    if (i >= 3)
      cudaEventElapsedTime (&times[i - 3], a, b);
  }
  for (i = 0; i < 40; i++)      /* sort for the median */
    for (j = i + 1; j < 40; j++)
      if (times[j] < times[i]) {
        float t = times[i];
        times[i] = times[j];
        times[j] = t;
      }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  cudaFree (dev);
  for (i = 0; i < N_SOURCE_FRAMES; i++) {
    if (pinned)
      cudaFreeHost (host[i]);
    else
      g_free (host[i]);
  }
  return bytes / (times[20] * 1e-3);
}

static gboolean
wait_for_frames (gint n)
{
  gint64 deadline = g_get_monotonic_time () + 20 * G_TIME_SPAN_SECOND;
  while (g_atomic_int_get (&frames_seen) < n) {
    if (g_get_monotonic_time () > deadline)
      return FALSE;
    g_usleep (1000);
  }
  return TRUE;
}

/* Runs the chain once; returns frames per second, or a negative value. */
static double
run (const gchar * chain, GstCaps * caps, const GstVideoInfo * info,
    gboolean pinned, gint n_frames)
{
  gchar *desc = g_strdup_printf ("appsrc name=src format=time "
      "max-bytes=%" G_GSIZE_FORMAT " block=true ! %s name=first ! fakesink "
      "name=sink sync=false signal-handoffs=true",
      (gsize) 4 * GST_VIDEO_INFO_SIZE (info), chain);
  GError *error = NULL;
  GstElement *pipeline = gst_parse_launch (desc, &error);
  GstElement *src, *sink, *first = NULL;
  GstBuffer *frames[N_SOURCE_FRAMES];
  GstBufferPool *pool = NULL;
  GstMessage *msg;
  GstBus *bus;
  gint64 t0, t1;
  gint i;
  double fps = -1;

  g_free (desc);
  if (!pipeline) {
    g_printerr ("pipeline: %s\n", error->message);
    return -1;
  }
  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  {
    /* "name=first" names the last element of the chain; find the first */
    GstPad *srcpad = gst_element_get_static_pad (src, "src");
    GstPad *peer = gst_pad_get_peer (srcpad);
    first = gst_pad_get_parent_element (peer);
    gst_object_unref (peer);
    gst_object_unref (srcpad);
  }
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), NULL);
  bus = gst_element_get_bus (pipeline);
  g_atomic_int_set (&frames_seen, 0);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);

  /* one frame to negotiate, so the first element can answer the
   * allocation query */
  {
    GstBuffer *warm = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
        NULL);
    gst_buffer_memset (warm, 0, 0x40, GST_VIDEO_INFO_SIZE (info));
    gst_app_src_push_buffer (GST_APP_SRC (src), warm);
    if (!wait_for_frames (1)) {
      g_printerr ("no frame came through the pipeline\n");
      goto out;
    }
  }

  if (pinned) {
    GstQuery *q = gst_query_new_allocation (caps, TRUE);
    GstPad *sinkpad = gst_element_get_static_pad (first, "sink");

    if (gst_pad_query (sinkpad, q) && gst_query_get_n_allocation_pools (q))
      gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
    gst_object_unref (sinkpad);
    gst_query_unref (q);
    if (!pool || !gst_buffer_pool_set_active (pool, TRUE)) {
      g_printerr ("the chain proposed no pool\n");
      goto out;
    }
  }
  for (i = 0; i < N_SOURCE_FRAMES; i++) {
    GstMapInfo map;
    guint j;
    if (pool)
      gst_buffer_pool_acquire_buffer (pool, &frames[i], NULL);
    else
      frames[i] = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (info),
          NULL);
    gst_buffer_map (frames[i], &map, GST_MAP_WRITE);
    for (j = 0; j < map.size; j++)
      map.data[j] = (guint8) (j * 2654435761u >> 13);
    gst_buffer_unmap (frames[i], &map);
  }

  /* warm-up pass over the source frames */
  for (i = 0; i < N_SOURCE_FRAMES; i++)
    gst_app_src_push_buffer (GST_APP_SRC (src), gst_buffer_ref (frames[i]));
  wait_for_frames (1 + N_SOURCE_FRAMES);

  t0 = g_get_monotonic_time ();
  for (i = 0; i < n_frames; i++)
    gst_app_src_push_buffer (GST_APP_SRC (src),
        gst_buffer_ref (frames[i % N_SOURCE_FRAMES]));
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  t1 = g_get_monotonic_time ();
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS &&
      g_atomic_int_get (&frames_seen) == 1 + N_SOURCE_FRAMES + n_frames)
    fps = n_frames / ((t1 - t0) * 1e-6);
  else
    g_printerr ("the run did not end in EOS with every frame\n");
  if (msg)
    gst_message_unref (msg);
  for (i = 0; i < N_SOURCE_FRAMES; i++)
    gst_buffer_unref (frames[i]);

out:
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_object_unref (first);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  return fps;
}

int
main (int argc, char **argv)
{
  gchar *chain = NULL, *format = NULL, *csv = NULL, *input = NULL;
  gint width = 3840, height = 2160, n_frames = 600;
  gdouble out_bpp = 1.0;
  GOptionEntry entries[] = {
    {"chain", 0, 0, G_OPTION_ARG_STRING, &chain, "elements between appsrc "
          "and fakesink (default cudagray)", NULL},
    {"format", 0, 0, G_OPTION_ARG_STRING, &format, "input format (RGBA)",
        NULL},
    {"width", 0, 0, G_OPTION_ARG_INT, &width, "width (3840)", NULL},
    {"height", 0, 0, G_OPTION_ARG_INT, &height, "height (2160)", NULL},
    {"frames", 0, 0, G_OPTION_ARG_INT, &n_frames, "frames timed (600)", NULL},
    {"out-bytes-per-pixel", 0, 0, G_OPTION_ARG_DOUBLE, &out_bpp,
        "bytes per pixel the chain downloads, for the PCIe bound (1)", NULL},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "append results to FILE",
        NULL},
    {"input", 0, 0, G_OPTION_ARG_STRING, &input, "pinned, pageable or both "
          "(both)", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- pipeline frame rates");
  GstVideoInfo info;
  GstCaps *caps;
  double up_pinned, up_pageable, down_pinned, in_bytes, out_bytes;
  double fps_pinned, fps_pageable;
  struct cudaDeviceProp prop;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, NULL))
    return 2;
  g_option_context_free (ctx);
  if (!chain)
    chain = g_strdup ("cudagray");
  if (!format)
    format = g_strdup ("RGBA");

  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      width, height);
  info.fps_n = 30;
  info.fps_d = 1;
  caps = gst_video_info_to_caps (&info);
  in_bytes = GST_VIDEO_INFO_SIZE (&info);
  out_bytes = out_bpp * width * height;

  if (cudaGetDeviceProperties (&prop, 0) != cudaSuccess) {
    g_printerr ("pipeline-bench: no CUDA device\n");
    return 1;
  }
  up_pinned = copy_bandwidth (in_bytes, TRUE, cudaMemcpyHostToDevice);
  up_pageable = copy_bandwidth (in_bytes, FALSE, cudaMemcpyHostToDevice);
  down_pinned = copy_bandwidth (MAX (out_bytes, 1), TRUE,
      cudaMemcpyDeviceToHost);

  fps_pinned = g_strcmp0 (input, "pageable") ?
      run (chain, caps, &info, TRUE, n_frames) : 0;
  fps_pageable = g_strcmp0 (input, "pinned") ?
      run (chain, caps, &info, FALSE, n_frames) : 0;

  g_print ("GPU: %s\n", prop.name);
  g_print ("PCIe, measured now: upload pinned %.1f GB/s, pageable %.1f GB/s; "
      "download pinned %.1f GB/s\n", up_pinned / 1e9, up_pageable / 1e9,
      down_pinned / 1e9);
  g_print ("\n%-40s %-14s %8s %9s %12s\n", "appsrc ! ... ! fakesink",
      "input", "fps", "ms/frame", "PCIe-bound fps");
  {
    double bound_pinned = 1.0 / (in_bytes / up_pinned +
        (out_bytes ? out_bytes / down_pinned : 0));
    double bound_pageable = 1.0 / (in_bytes / up_pageable +
        (out_bytes ? out_bytes / down_pinned : 0));
    gchar *label = g_strdup_printf ("%s %s %dx%d", chain, format, width,
        height);
    g_print ("%-40s %-14s %8.1f %9.3f %12.1f\n", label, "pinned", fps_pinned,
        1000.0 / fps_pinned, bound_pinned);
    g_print ("%-40s %-14s %8.1f %9.3f %12.1f\n", label, "pageable",
        fps_pageable, 1000.0 / fps_pageable, bound_pageable);
    if (csv) {
      FILE *f = fopen (csv, "a");
      if (f) {
        fprintf (f, "\"%s\",\"%s\",%s,%dx%d,pinned,%.2f,%.2f\n", prop.name,
            chain, format, width, height, fps_pinned, bound_pinned);
        fprintf (f, "\"%s\",\"%s\",%s,%dx%d,pageable,%.2f,%.2f\n", prop.name,
            chain, format, width, height, fps_pageable, bound_pageable);
        fclose (f);
      }
    }
    g_free (label);
  }
  gst_caps_unref (caps);
  g_free (chain);
  g_free (format);
  g_free (csv);
  g_free (input);
  return fps_pinned >= 0 && fps_pageable >= 0 ? 0 : 1;
}
