/* GstCudaFiltersBase through two subclasses defined here:
 * - cudatestfaulty, a copy filter whose kernels fail with a real CUDA error
 *   on a chosen frame: the failure mid-stream must become an element error
 *   and a flow error, and the next frame must work again;
 * - cudatestprobe, an analysis element (in-place passthrough) that copies
 *   what it sees on the device back to the host: it must see the frame's
 *   exact bytes, in system and in CUDA memory, while the buffer itself goes
 *   downstream untouched (the same buffer, the same bytes).
 * GstCudaFiltersAnalysis, the base class of the analysis elements, has its
 * own test: analysis.c. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudamemory.h>
#include <cuda_runtime_api.h>

#include "cf-test-util.h"
#include "gstcudafiltersbase.h"
#include "gstcudafilterspinned.h"

#define FORMATS "{ RGBA, NV12 }"

static void
set_test_element_class (GstElementClass * klass, const gchar * klass_name)
{
  GstCaps *caps = gst_cuda_filters_base_make_caps (FORMATS, FORMATS);

  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (klass, "test element", klass_name,
      "a GstCudaFiltersBase subclass for the tests", "tests");
}

/* ---- cudatestfaulty ---- */

typedef struct
{
  GstCudaFiltersBase parent;
  gint frame, fail_at;
} GstCudaTestFaulty;
typedef GstCudaFiltersBaseClass GstCudaTestFaultyClass;
G_DEFINE_TYPE (GstCudaTestFaulty, gst_cuda_test_faulty,
    GST_TYPE_CUDA_FILTERS_BASE);

static CfError
faulty_process (GstCudaFiltersBase * base, GstBuffer * inbuf,
    const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
    CfStream stream)
{
  GstCudaTestFaulty *self = (GstCudaTestFaulty *) base;
  CfError err = 0;
  guint p;

  /* a real failure from the CUDA runtime, one that leaves the context
   * usable: a 2D copy whose rows are wider than its pitch */
  if (self->frame++ == self->fail_at)
    return cudaMemcpy2DAsync (out->data[0], 16, in->data[0], 16, 32, 2,
        cudaMemcpyDeviceToDevice, (cudaStream_t) stream);
  for (p = 0; err == 0 && p < GST_VIDEO_INFO_N_PLANES (in->info); p++) {
    gsize row_bytes;
    guint rows;
    gst_cuda_filters_base_plane_extent (in->info, p, &row_bytes, &rows);
    err = cf_copy_plane (in->data[p], in->stride[p], out->data[p],
        out->stride[p], row_bytes, rows, stream);
  }
  return err;
}

static void
gst_cuda_test_faulty_class_init (GstCudaTestFaultyClass * klass)
{
  set_test_element_class (GST_ELEMENT_CLASS (klass), "Filter/Video");
  klass->process = faulty_process;
}

static void
gst_cuda_test_faulty_init (GstCudaTestFaulty * self)
{
  self->fail_at = 1;
}

/* ---- cudatestprobe ---- */

typedef struct
{
  GstCudaFiltersBase parent;
  guint8 *seen;                 /* plane 0 as the kernels saw it, packed */
  gsize seen_size;
} GstCudaTestProbe;
typedef GstCudaFiltersBaseClass GstCudaTestProbeClass;
G_DEFINE_TYPE (GstCudaTestProbe, gst_cuda_test_probe,
    GST_TYPE_CUDA_FILTERS_BASE);

static CfError
probe_process (GstCudaFiltersBase * base, GstBuffer * inbuf,
    const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
    CfStream stream)
{
  GstCudaTestProbe *self = (GstCudaTestProbe *) base;
  gsize row_bytes;
  guint rows;

  fail_unless (out == NULL, "an analysis element has no output frame");
  gst_cuda_filters_base_plane_extent (in->info, 0, &row_bytes, &rows);
  g_free (self->seen);
  self->seen_size = row_bytes * rows;
  self->seen = g_malloc (self->seen_size);
  /* the base class waits for the stream before the frame moves on */
  return cudaMemcpy2DAsync (self->seen, row_bytes, in->data[0], in->stride[0],
      row_bytes, rows, cudaMemcpyDeviceToHost, (cudaStream_t) stream);
}

static void
gst_cuda_test_probe_finalize (GObject * object)
{
  g_free (((GstCudaTestProbe *) object)->seen);
  G_OBJECT_CLASS (gst_cuda_test_probe_parent_class)->finalize (object);
}

static void
gst_cuda_test_probe_class_init (GstCudaTestProbeClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cuda_test_probe_finalize;
  set_test_element_class (GST_ELEMENT_CLASS (klass), "Filter/Analyzer/Video");
  klass->process = probe_process;
  gst_cuda_filters_base_class_set_analysis (klass);
}

static void
gst_cuda_test_probe_init (GstCudaTestProbe * self)
{
}

/* ---- tests ---- */

GST_START_TEST (test_cuda_failure_mid_stream)
{
  GstHarness *h = gst_harness_new ("cudatestfaulty");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  GstBuffer *out;
  gint i;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "video/x-raw, format=RGBA, width=64, "
      "height=16, framerate=30/1");
  for (i = 0; i < 3; i++) {
    GstBuffer *in = cf_test_make_frame (GST_VIDEO_FORMAT_RGBA, 64, 16, 0,
        FALSE, rand_);
    if (i == 1) {
      gst_buffer_unref (in);
      fail_unless_equals_int (gst_harness_push (h,
              cf_test_make_frame (GST_VIDEO_FORMAT_RGBA, 64, 16, 0, FALSE,
                  rand_)), GST_FLOW_ERROR);
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      fail_unless (msg != NULL, "no error message");
      gst_message_parse_error (msg, &err, NULL);
      fail_unless_equals_string (err->message,
          "CUDA failed while running the kernels: "
          "cudaErrorInvalidPitchValue.");
      g_clear_error (&err);
      gst_message_unref (msg);
      continue;
    }
    /* frames before and after the failure are copied exactly */
    {
      GstMapInfo a, b;
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_OK);
      out = gst_harness_pull (h);
      gst_buffer_map (in, &a, GST_MAP_READ);
      gst_buffer_map (out, &b, GST_MAP_READ);
      fail_unless (b.size >= a.size && memcmp (a.data, b.data, a.size) == 0);
      gst_buffer_unmap (in, &a);
      gst_buffer_unmap (out, &b);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
    }
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
check_probe_sees_frame (GstHarness * h, GstVideoFormat format, gint w, gint ht,
    guint pad, gboolean expect_same_buffer)
{
  GstCudaTestProbe *probe =
      (GstCudaTestProbe *) gst_harness_find_element (h, "cudatestprobe");
  GstBuffer *in = cf_test_make_frame (format, w, ht, pad, FALSE, rand_);
  GstBuffer *copy = gst_buffer_copy_deep (in), *out;
  GstVideoInfo info;
  GstVideoFrame frame;
  gsize row_bytes;
  guint rows, y;

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  if (expect_same_buffer)
    fail_unless (out == in, "passthrough must push the same buffer");

  /* what the kernels saw is plane 0 of the frame */
  gst_video_info_set_format (&info, format, w, ht);
  fail_unless (gst_video_frame_map (&frame, &info, copy, GST_MAP_READ));
  cf_test_plane_extent (&info, 0, &row_bytes, &rows);
  fail_unless_equals_int (probe->seen_size, row_bytes * rows);
  for (y = 0; y < rows; y++)
    fail_unless (memcmp (probe->seen + y * row_bytes,
            (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), row_bytes) == 0,
        "row %u of plane 0 differs on the device", y);
  gst_video_frame_unmap (&frame);

  /* and the frame itself is untouched */
  if (expect_same_buffer) {
    GstMapInfo a, b;
    gst_buffer_map (copy, &a, GST_MAP_READ);
    gst_buffer_map (out, &b, GST_MAP_READ);
    fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0);
    gst_buffer_unmap (copy, &a);
    gst_buffer_unmap (out, &b);
  }
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_buffer_unref (copy);
  gst_object_unref (probe);
}

GST_START_TEST (test_analysis_in_system_memory)
{
  GstHarness *h = gst_harness_new ("cudatestprobe");
  GstQuery *q;
  GstCaps *caps;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstAllocator *allocator = NULL;

  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (h->element)));
  gst_harness_set_src_caps_str (h, "video/x-raw, format=RGBA, width=1921, "
      "height=1081, framerate=30/1");
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 0, TRUE);
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 44, TRUE);
  gst_harness_set_src_caps_str (h, "video/x-raw, format=NV12, width=3, "
      "height=7, framerate=30/1");
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_NV12, 3, 7, 5, TRUE);

  /* in passthrough, downstream proposes nothing here: ours is pinned */
  caps = gst_caps_from_string ("video/x-raw, format=NV12, width=3, height=7, "
      "framerate=30/1");
  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (gst_query_get_n_allocation_pools (q) > 0);
  gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_allocator (config, &allocator, NULL);
  fail_unless (allocator != NULL);
  fail_unless_equals_string (allocator->mem_type,
      GST_CUDA_FILTERS_PINNED_MEMORY_TYPE);
  gst_structure_free (config);
  gst_object_unref (pool);
  gst_query_unref (q);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_analysis_in_cuda_memory)
{
  GstHarness *h = gst_harness_new_parse ("cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudatestprobe");
  GstElement *probe = gst_harness_find_element (h, "cudatestprobe");
  GstPad *pad = gst_element_get_static_pad (probe, "sink");
  GstCaps *caps;

  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:CUDAMemory)");
  gst_harness_set_src_caps_str (h, "video/x-raw, format=RGBA, width=1921, "
      "height=1081, framerate=30/1");
  /* the buffer out of cudaupload is passed on as it is: not checked by
   * pointer here, the harness sees cudaupload's output through the probe */
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 0, FALSE);
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 20, FALSE);
  caps = gst_pad_get_current_caps (pad);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (probe);
  gst_harness_teardown (h);
}

GST_END_TEST;

CF_TEST_SUITE (base_suite, "base",
    CF_TEST_CASE ("gpu", 0),
    CF_TEST (test_cuda_failure_mid_stream),
    CF_TEST (test_analysis_in_system_memory),
    CF_TEST (test_analysis_in_cuda_memory));

static gboolean
gpu_present_and_elements_registered (void)
{
  if (!cf_test_gpu_available ())
    return FALSE;
  gst_element_register (NULL, "cudatestfaulty", GST_RANK_NONE,
      gst_cuda_test_faulty_get_type ());
  gst_element_register (NULL, "cudatestprobe", GST_RANK_NONE,
      gst_cuda_test_probe_get_type ());
  return TRUE;
}

CF_TEST_GPU_MAIN (base, gpu_present_and_elements_registered);
