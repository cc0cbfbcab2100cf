/* cudagray on the GPU, through GstHarness: output equals the CPU reference
 * for every format, both memory types both ways, odd sizes and padded
 * strides; matrix changes while playing; the pinned and CUDA pools proposed
 * upstream; short buffers rejected. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>

#include "cf-test-util.h"
#include "gstcudafilterspinned.h"

static const GstVideoFormat sys_formats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
  GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
  GST_VIDEO_FORMAT_Y444,
};

/* xRGB and xBGR have no CUDA memory layout in GStreamer (1.22 to 1.28) */
static const GstVideoFormat cuda_formats[] = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
  GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_I420,
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y444,
};

static const struct
{
  gint w, h;
} sizes[] = {
  {1, 1}, {3, 7}, {1921, 1081},
};

static gchar *
caps_string (const gchar * features, GstVideoFormat format, gint w, gint h)
{
  return g_strdup_printf ("video/x-raw%s, format=%s, width=%d, height=%d, "
      "framerate=30/1", features, gst_video_format_to_string (format), w, h);
}

/* Pushes a random frame (padded rows if pad) through h, pulls the output
 * and compares its luma with the reference and its chroma (if any) with
 * 128.  The pulled buffer is poisoned before it goes back to the pool, so
 * the next frame into that buffer must write every byte again. */
static void
check_one_frame (GstHarness * h, GstVideoFormat in_format, gint w, gint ht,
    guint pad, gboolean solid, CfGrayMatrix matrix, GstVideoFormat out_format)
{
  GstBuffer *in = cf_test_make_frame (in_format, w, ht, pad, solid, rand_);
  guint8 *want = cf_test_reference_gray (in, in_format, w, ht, matrix);
  GstVideoInfo out_info;
  GstBuffer *out;
  GstMapInfo map;
  guint p;

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);

  gst_video_info_set_format (&out_info, out_format, w, ht);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&out_info); p++) {
    gsize row_bytes;
    guint rows;
    guint64 bad;

    cf_test_plane_extent (&out_info, p, &row_bytes, &rows);
    bad = cf_test_count_plane_mismatches (out, &out_info, p,
        p == 0 ? want : NULL, row_bytes, rows);
    fail_unless (bad == 0, "%s -> %s %dx%d pad %u%s plane %u: %"
        G_GUINT64_FORMAT " bytes wrong", gst_video_format_to_string
        (in_format), gst_video_format_to_string (out_format), w, ht, pad,
        solid ? " solid" : "", p, bad);
  }

  if (gst_buffer_map (out, &map, GST_MAP_WRITE)) {
    memset (map.data, 0xa5, map.size);
    gst_buffer_unmap (out, &map);
  }
  gst_buffer_unref (out);
  g_free (want);
}

static void
check_all_sizes (GstHarness * h, const gchar * in_features,
    GstVideoFormat format, GstVideoFormat out_format)
{
  guint s;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
    gchar *caps = caps_string (in_features, format, sizes[s].w, sizes[s].h);
    gst_harness_set_src_caps_str (h, caps);
    g_free (caps);
    /* tight, then padded rows (odd pad: unaligned rows), then solid */
    check_one_frame (h, format, sizes[s].w, sizes[s].h, 0, FALSE,
        CF_GRAY_MATRIX_BT601, out_format);
    check_one_frame (h, format, sizes[s].w, sizes[s].h, 37, FALSE,
        CF_GRAY_MATRIX_BT601, out_format);
    check_one_frame (h, format, sizes[s].w, sizes[s].h, 64, TRUE,
        CF_GRAY_MATRIX_BT601, out_format);
  }
}

/* Each of @formats (@n_formats) at every size through a harness of its
 * own around @launch, whose output, in @sink_caps, is @out_format. */
static void
check_pipeline_all_formats (const gchar * launch, const gchar * sink_caps,
    const GstVideoFormat * formats, guint n_formats, GstVideoFormat out_format)
{
  guint f;

  for (f = 0; f < n_formats; f++) {
    GstHarness *h = gst_harness_new_parse (launch);

    gst_harness_set_sink_caps_str (h, sink_caps);
    check_all_sizes (h, "", formats[f], out_format);
    gst_harness_teardown (h);
  }
}

static GstCaps *
element_pad_caps (GstHarness * h, const gchar * element, const gchar * pad)
{
  GstElement *e = gst_harness_find_element (h, element);
  GstPad *p = gst_element_get_static_pad (e, pad);
  GstCaps *caps = gst_pad_get_current_caps (p);

  gst_object_unref (p);
  gst_object_unref (e);
  fail_unless (caps != NULL, "%s.%s has no caps", element, pad);
  return caps;
}

static gboolean
caps_in_cuda_memory (GstCaps * caps)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  return f && gst_caps_features_contains (f,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

/* cudagray's @pad negotiated CUDA memory if @cuda, else system memory */
static void
check_pad_memory (GstHarness * h, const gchar * pad, gboolean cuda)
{
  GstCaps *caps = element_pad_caps (h, "cudagray", pad);

  /* (caps_in_cuda_memory() is TRUE or FALSE) */
  fail_unless (caps_in_cuda_memory (caps) == cuda, "cudagray.%s: %s CUDA "
      "memory", pad, cuda ? "not in" : "in");
  gst_caps_unref (caps);
}

/* Downstream (the harness) offers no pool: the download goes into the
 * element's pinned pool, at full PCIe speed. */
static void
check_output_is_pinned (GstHarness * h, GstVideoFormat format)
{
  gchar *caps = caps_string ("", format, 64, 8);
  GstBuffer *out;

  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  fail_unless_equals_int (gst_harness_push (h, cf_test_make_frame (format,
              64, 8, 0, FALSE, rand_)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (out, 0),
          GST_CUDA_FILTERS_PINNED_MEMORY_TYPE), "output is not pinned memory");
  gst_buffer_unref (out);
}

/* system memory in, GRAY8 in system memory out */
GST_START_TEST (test_system_to_system)
{
  guint f;

  for (f = 0; f < G_N_ELEMENTS (sys_formats); f++) {
    GstHarness *h = gst_harness_new ("cudagray");

    gst_harness_set_sink_caps_str (h, "video/x-raw, format=GRAY8");
    check_all_sizes (h, "", sys_formats[f], GST_VIDEO_FORMAT_GRAY8);
    check_output_is_pinned (h, sys_formats[f]);
    check_pad_memory (h, "src", FALSE);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* cudaupload ! cudagray ! cudadownload: CUDA memory on both sides of
 * cudagray, grey as NV12 and I420 with neutral chroma */
GST_START_TEST (test_cuda_to_cuda)
{
  static const GstVideoFormat outs[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420
  };
  guint f, o;

  for (o = 0; o < G_N_ELEMENTS (outs); o++) {
    for (f = 0; f < G_N_ELEMENTS (cuda_formats); f++) {
      gchar *launch = g_strdup_printf ("cudaupload ! "
          "video/x-raw(memory:CUDAMemory) ! cudagray ! "
          "video/x-raw(memory:CUDAMemory), format=%s ! cudadownload",
          gst_video_format_to_string (outs[o]));
      GstHarness *h = gst_harness_new_parse (launch);

      g_free (launch);
      gst_harness_set_sink_caps_str (h, "video/x-raw");
      check_all_sizes (h, "", cuda_formats[f], outs[o]);
      check_pad_memory (h, "sink", TRUE);
      check_pad_memory (h, "src", TRUE);
      gst_harness_teardown (h);
    }
  }
}

GST_END_TEST;

/* system memory in, CUDA memory out: upload in the element */
GST_START_TEST (test_system_to_cuda)
{
  check_pipeline_all_formats ("cudagray ! "
      "video/x-raw(memory:CUDAMemory), format=NV12 ! cudadownload",
      "video/x-raw", sys_formats, G_N_ELEMENTS (sys_formats),
      GST_VIDEO_FORMAT_NV12);
}

GST_END_TEST;

/* CUDA memory in, GRAY8 in system memory out: download in the element */
GST_START_TEST (test_cuda_to_system)
{
  check_pipeline_all_formats ("cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudagray",
      "video/x-raw, format=GRAY8", cuda_formats, G_N_ELEMENTS (cuda_formats),
      GST_VIDEO_FORMAT_GRAY8);
}

GST_END_TEST;

/* The output of cudaupload ! cudagray stays on the GPU: CUDA memory of the
 * context cudagray shares with cudaupload. */
GST_START_TEST (test_zero_copy_output_is_cuda_memory)
{
  GstHarness *h = gst_harness_new_parse ("cudaupload ! cudagray");
  GstBuffer *out;
  GstMemory *mem;
  GstCudaContext *up_ctx = NULL;
  GstElement *up;

  gst_harness_set_src_caps_str (h, "video/x-raw, format=RGBA, width=64, "
      "height=48, framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:CUDAMemory)");
  fail_unless_equals_int (gst_harness_push (h,
          cf_test_make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0, FALSE,
              rand_)), GST_FLOW_OK);
  out = gst_harness_pull (h);
  mem = gst_buffer_peek_memory (out, 0);
  fail_unless (gst_is_cuda_memory (mem));

  /* one context for the pipeline, found through the context query */
  up = gst_harness_find_element (h, "cudaupload");
  {
    GstQuery *q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    if (gst_element_query (up, q)) {
      GstContext *c;
      gst_query_parse_context (q, &c);
      gst_structure_get (gst_context_get_structure (c), GST_CUDA_CONTEXT_TYPE,
          GST_TYPE_CUDA_CONTEXT, &up_ctx, NULL);
    }
    gst_query_unref (q);
  }
  fail_unless (up_ctx != NULL);
  fail_unless (GST_CUDA_MEMORY_CAST (mem)->context == up_ctx);
  gst_object_unref (up_ctx);
  gst_object_unref (up);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_matrix_change_while_playing)
{
  GstHarness *h = gst_harness_new ("cudagray");
  CfGrayMatrix m;

  gst_harness_set_src_caps_str (h, "video/x-raw, format=BGRx, width=33, "
      "height=9, framerate=30/1");
  for (m = CF_GRAY_MATRIX_BT601; m <= CF_GRAY_MATRIX_BT2020; m++) {
    g_object_set (h->element, "matrix", m, NULL);
    check_one_frame (h, GST_VIDEO_FORMAT_BGRx, 33, 9, 0, FALSE, m,
        GST_VIDEO_FORMAT_GRAY8);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Upstream in system memory is offered a pool of pinned memory, and frames
 * from it go through; in CUDA memory, a CUDA pool of the element's context */
GST_START_TEST (test_proposed_pools)
{
  GstHarness *h = gst_harness_new ("cudagray");
  GstCaps *caps = gst_caps_from_string ("video/x-raw, format=RGBA, "
      "width=320, height=240, framerate=30/1");
  GstQuery *q;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstAllocator *allocator = NULL;
  GstBuffer *frame;
  GstMapInfo map;
  guint8 *want;

  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (gst_query_get_n_allocation_pools (q) > 0);
  gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
  fail_unless (pool != NULL);
  fail_unless (gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE,
          NULL));
  config = gst_buffer_pool_get_config (pool);
  fail_unless (gst_buffer_pool_config_get_allocator (config, &allocator, NULL));
  fail_unless (allocator != NULL);
  fail_unless_equals_string (allocator->mem_type,
      GST_CUDA_FILTERS_PINNED_MEMORY_TYPE);
  gst_structure_free (config);  /* the allocator was transfer none */

  /* a frame written by the CPU into pinned memory converts like any other */
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &frame,
          NULL), GST_FLOW_OK);
  fail_unless (gst_memory_is_type (gst_buffer_peek_memory (frame, 0),
          GST_CUDA_FILTERS_PINNED_MEMORY_TYPE));
  gst_buffer_map (frame, &map, GST_MAP_WRITE);
  cf_test_fill_random (rand_, map.data, map.size);
  gst_buffer_unmap (frame, &map);
  want = cf_test_reference_gray (frame, GST_VIDEO_FORMAT_RGBA, 320, 240,
      CF_GRAY_MATRIX_BT601);
  fail_unless_equals_int (gst_harness_push (h, frame), GST_FLOW_OK);
  frame = gst_harness_pull (h);
  {
    GstVideoInfo gray;
    gst_video_info_set_format (&gray, GST_VIDEO_FORMAT_GRAY8, 320, 240);
    fail_unless_equals_int (cf_test_count_plane_mismatches (frame, &gray, 0,
            want, 320, 240), 0);
  }
  gst_buffer_unref (frame);
  g_free (want);
  gst_query_unref (q);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
  gst_caps_unref (caps);
  gst_harness_teardown (h);

  /* CUDA memory: a GstCudaBufferPool */
  h = gst_harness_new ("cudagray");
  caps = gst_caps_from_string ("video/x-raw(memory:CUDAMemory), "
      "format=NV12, width=320, height=240, framerate=30/1");
  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:CUDAMemory)");
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (gst_query_get_n_allocation_pools (q) > 0);
  gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
  fail_unless (GST_IS_CUDA_BUFFER_POOL (pool));
  gst_object_unref (pool);
  gst_query_unref (q);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* Pushes @buf, a frame of 64 x 64 @format that its caps do not fit, into
 * a fresh cudagray: a flow error, and an element error that says so, with
 * @details in its details (or any) */
static void
check_short (const gchar * format, GstBuffer * buf, const gchar * details)
{
  GstHarness *h = gst_harness_new ("cudagray");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gchar *dbg = NULL, *caps;

  gst_element_set_bus (h->element, bus);
  caps = g_strdup_printf ("video/x-raw, format=%s, width=64, height=64, "
      "framerate=30/1", format);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_ERROR);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message was posted");
  gst_message_parse_error (msg, &err, &dbg);
  fail_unless (strstr (err->message, "smaller than its caps"), "%s",
      err->message);
  fail_unless (!details || (dbg && strstr (dbg, details)), "%s", dbg);
  g_clear_error (&err);
  g_free (dbg);
  gst_message_unref (msg);
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

/* a buffer of @size bytes with a video meta of @n_planes, the first
 * @stride apart and the second, if any, after the first's rows */
static GstBuffer *
buffer_with_meta (gsize size, GstVideoFormat format, guint n_planes,
    gint stride)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  gsize offsets[4] = { 0, (gsize) 64 * 64, };
  gint strides[4] = { stride, stride, };

  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
      64, 64, n_planes, offsets, strides);
  return buf;
}

/* A buffer shorter than its caps, or whose video meta points past its end,
 * has a stride shorter than a row or lacks a plane: a flow error and an
 * element error, never a read past the end; where no size would do, the
 * details say what the layout lacks rather than give a size. */
GST_START_TEST (test_short_buffer_is_an_error)
{
  check_short ("RGBA", gst_buffer_new_allocate (NULL, 100, NULL),
      "but a 64x64 RGBA frame needs 16384");
  /* large enough for the caps' size, but the meta's stride says more */
  check_short ("RGBA", buffer_with_meta (64 * 64 * 4, GST_VIDEO_FORMAT_RGBA,
          1, 64 * 4 + 16), "needs");
  check_short ("RGBA", buffer_with_meta (64 * 64 * 4, GST_VIDEO_FORMAT_RGBA,
          1, 16), "video meta of 1 plane(s) cannot hold");
  /* an NV12 frame whose meta describes its luma alone */
  check_short ("NV12", buffer_with_meta (64 * 64 * 3 / 2,
          GST_VIDEO_FORMAT_NV12, 1, 64), "NV12 frame of 2");
}

GST_END_TEST;

CF_TEST_SUITE (cudagray_suite, "cudagray",
    CF_TEST_CASE ("gpu", 600),
    CF_TEST (test_system_to_system),
    CF_TEST (test_cuda_to_cuda),
    CF_TEST (test_system_to_cuda),
    CF_TEST (test_cuda_to_system),
    CF_TEST (test_zero_copy_output_is_cuda_memory),
    CF_TEST (test_matrix_change_while_playing),
    CF_TEST (test_proposed_pools), CF_TEST (test_short_buffer_is_an_error));

CF_TEST_GPU_MAIN (cudagray, cf_test_gpu_available);
