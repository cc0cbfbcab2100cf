/* GStreamer 1.24+ CUDA memory that its producer has not finished writing.
 *
 * A producer of our own writes each frame into CUDA memory on a stream of
 * its own, behind slow work on that stream, and pushes it at once, marked
 * NEED_SYNC, as nvh264dec does.  Every element must then give exactly what
 * the CPU reference gives for the frame: its kernels must wait for the
 * producer's stream.  A second producer also writes each frame over with
 * poison, on its stream, as soon as the frame comes back to its pool of
 * two, as a decoder reuses its surfaces: the elements must hold each frame
 * until the GPU has read it.
 *
 * Built against gstreamer-cuda-1.0 1.24 and later only: 1.22's CUDA memory
 * has no stream, and its producers finish their writes before they push. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudastream.h>
#include <gst/cuda/gstcudautils.h>

#include "cf-test-util.h"

#define POISON 0xa5
/* the producer's slow work before each frame: about a millisecond of
 * fills on an H100, far longer than any element's kernels take
 * (CF_TEST_SLOW_FILLS=N for fewer under compute-sanitizer, whose fills are
 * slow anyway) */
#define SLOW_BYTES (64u << 20)
#define SLOW_FILLS 48
static guint slow_fills = SLOW_FILLS;
#define N_CONTENTS 4

static GstCudaContext *context;
static GstCudaStream *producer_stream;
static CUdeviceptr slow_work;

/* ---- the producer ---- */

/* A GstCudaBufferPool whose buffers are poisoned on the producer's stream
 * the moment they come back, as a decoder writes a surface again as soon
 * as it is free. */
typedef struct
{
  GstCudaBufferPool parent;
} RewritingPool;
typedef GstCudaBufferPoolClass RewritingPoolClass;
G_DEFINE_TYPE (RewritingPool, rewriting_pool, GST_TYPE_CUDA_BUFFER_POOL);

static void
poison_on_producer_stream (GstBuffer * buf)
{
  GstMapInfo map;

  fail_unless (gst_cuda_context_push (context));
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE | GST_MAP_CUDA));
  fail_unless_equals_int (cf_fill_plane (map.data, map.size, map.size, 1,
          POISON, (CfStream) gst_cuda_stream_get_handle (producer_stream)), 0);
  gst_buffer_unmap (buf, &map);
  gst_cuda_context_pop (NULL);
}

static void
rewriting_pool_release_buffer (GstBufferPool * pool, GstBuffer * buf)
{
  poison_on_producer_stream (buf);
  GST_BUFFER_POOL_CLASS (rewriting_pool_parent_class)->release_buffer (pool,
      buf);
}

static void
rewriting_pool_class_init (RewritingPoolClass * klass)
{
  GST_BUFFER_POOL_CLASS (klass)->release_buffer = rewriting_pool_release_buffer;
}

static void
rewriting_pool_init (RewritingPool * self)
{
}

/* The producer's context, stream and scratch memory, made by the first
 * test (where a failure is reported as one). */
static void
ensure_producer (void)
{
  CUresult err;

  if (context)
    return;
  if (g_getenv ("CF_TEST_SLOW_FILLS"))
    slow_fills = (guint) g_ascii_strtoull (g_getenv ("CF_TEST_SLOW_FILLS"),
        NULL, 10);
  gst_cuda_memory_init_once ();
  context = gst_cuda_context_new (0);
  fail_unless (context != NULL, "no CUDA context on device 0");
  producer_stream = gst_cuda_stream_new (context);
  fail_unless (producer_stream != NULL, "gst_cuda_stream_new failed");
  fail_unless (gst_cuda_context_push (context));
  err = CuMemAlloc (&slow_work, SLOW_BYTES);
  gst_cuda_context_pop (NULL);
  fail_unless (err == CUDA_SUCCESS, "cuMemAlloc: error %d", err);
}

typedef struct
{
  GstVideoInfo info;
  GstBufferPool *pool;
  /* the frames' content: on the host for the references, and on the
   * device, tightly packed, for the producer to copy from */
  GstBuffer *host[N_CONTENTS];
  CUdeviceptr device[N_CONTENTS];
  guint next;
} Producer;

/* A frame that looks like a picture: smooth gradients, a disc and a few
 * edges, with some noise. */
static GstBuffer *
make_scene (GstVideoFormat format, gint w, gint h)
{
  GstBuffer *buf = cf_test_make_frame (format, w, h, 0, FALSE, rand_);
  GstVideoInfo info;
  GstVideoFrame frame;
  guint c, n;
  gint x, y, cx = g_rand_int_range (rand_, 0, w), cy =
      g_rand_int_range (rand_, 0, h), r = MAX (w, h) / 5 + 1;

  gst_video_info_set_format (&info, format, w, h);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  n = GST_VIDEO_INFO_N_COMPONENTS (&info);
  for (c = 0; c < n; c++) {
    gint cw = GST_VIDEO_FRAME_COMP_WIDTH (&frame, c);
    gint ch = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c);
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
    guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&frame, c);
    gint sx = w / cw, sy = h / ch;

    for (y = 0; y < ch; y++)
      for (x = 0; x < cw; x++) {
        gint px = x * sx, py = y * sy, v;
        gboolean in_disc = (px - cx) * (px - cx) + (py - cy) * (py - cy) <
            r * r;

        v = (c % 3 == 0 ? px * 255 / w : c % 3 == 1 ? py * 255 / h :
            (px + py) * 127 / (w + h)) + (in_disc ? 90 : 0) +
            ((px / 37 + py / 53) % 2 ? 12 : 0) + g_rand_int_range (rand_, -3,
            4);
        data[(gsize) y * stride + (gsize) x * pstride] = CLAMP (v, 0, 255);
      }
  }
  gst_video_frame_unmap (&frame);
  return buf;
}

static void
producer_init (Producer * p, GstVideoFormat format, gint w, gint h,
    gboolean rewriting)
{
  GstCaps *caps;
  GstStructure *config;
  guint i;

  memset (p, 0, sizeof (*p));
  gst_video_info_set_format (&p->info, format, w, h);
  caps = gst_video_info_to_caps (&p->info);
  gst_caps_set_features_simple (caps,
      gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));

  if (rewriting) {
    /* as gst_cuda_buffer_pool_new() makes one */
    p->pool = gst_object_ref_sink (g_object_new (rewriting_pool_get_type (),
            NULL));
    GST_CUDA_BUFFER_POOL (p->pool)->context = gst_object_ref (context);
  } else {
    p->pool = gst_cuda_buffer_pool_new (context);
  }
  config = gst_buffer_pool_get_config (p->pool);
  gst_buffer_pool_config_set_params (config, caps,
      GST_VIDEO_INFO_SIZE (&p->info), rewriting ? 2 : 0, rewriting ? 2 : 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  gst_buffer_pool_config_set_cuda_stream (config, producer_stream);
  fail_unless (gst_buffer_pool_set_config (p->pool, config));
  fail_unless (gst_buffer_pool_set_active (p->pool, TRUE));
  gst_caps_unref (caps);

  fail_unless (gst_cuda_context_push (context));
  for (i = 0; i < N_CONTENTS; i++) {
    GstVideoFrame frame;
    gsize offset = 0;
    guint pl;

    p->host[i] = i == 0 ? cf_test_make_frame (format, w, h, 0, FALSE, rand_) :
        i == 1 ? cf_test_make_frame (format, w, h, 0, TRUE, rand_) :
        make_scene (format, w, h);
    fail_unless_equals_int (CuMemAlloc (&p->device[i],
            GST_VIDEO_INFO_SIZE (&p->info)), CUDA_SUCCESS);
    fail_unless (gst_video_frame_map (&frame, &p->info, p->host[i],
            GST_MAP_READ));
    for (pl = 0; pl < GST_VIDEO_INFO_N_PLANES (&p->info); pl++) {
      CUDA_MEMCPY2D copy = { 0, };
      gsize row_bytes;
      guint rows;

      cf_test_plane_extent (&p->info, pl, &row_bytes, &rows);
      copy.srcMemoryType = CU_MEMORYTYPE_HOST;
      copy.srcHost = GST_VIDEO_FRAME_PLANE_DATA (&frame, pl);
      copy.srcPitch = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, pl);
      copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      copy.dstDevice = p->device[i] + offset;
      copy.dstPitch = row_bytes;
      copy.WidthInBytes = row_bytes;
      copy.Height = rows;
      fail_unless_equals_int (CuMemcpy2D (&copy), CUDA_SUCCESS);
      offset += row_bytes * rows;
    }
    gst_video_frame_unmap (&frame);
  }
  gst_cuda_context_pop (NULL);
}

static void
producer_clear (Producer * p)
{
  guint i;

  gst_buffer_pool_set_active (p->pool, FALSE);
  gst_object_unref (p->pool);
  fail_unless (gst_cuda_context_push (context));
  fail_unless_equals_int (CuStreamSynchronize (gst_cuda_stream_get_handle
          (producer_stream)), CUDA_SUCCESS);
  for (i = 0; i < N_CONTENTS; i++) {
    CuMemFree (p->device[i]);
    gst_buffer_unref (p->host[i]);
  }
  gst_cuda_context_pop (NULL);
}

/* The next frame, still being written when it is returned: on the
 * producer's stream, poison, then the slow work, then the content.
 * @content is the host copy of what it will hold. */
static GstBuffer *
producer_next (Producer * p, GstBuffer ** content)
{
  CfStream stream = (CfStream) gst_cuda_stream_get_handle (producer_stream);
  GstBuffer *buf = NULL;
  GstVideoFrame frame;
  gsize offset = 0;
  guint i = p->next++ % N_CONTENTS, pl, k;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (p->pool, &buf,
          NULL), GST_FLOW_OK);
  fail_unless (gst_cuda_context_push (context));
  poison_on_producer_stream (buf);
  for (k = 0; k < slow_fills; k++)
    fail_unless_equals_int (cf_fill_plane ((void *) (guintptr) slow_work,
            SLOW_BYTES, SLOW_BYTES, 1, k, stream), 0);
  fail_unless (gst_video_frame_map (&frame, &p->info, buf,
          GST_MAP_WRITE | GST_MAP_CUDA));
  for (pl = 0; pl < GST_VIDEO_INFO_N_PLANES (&p->info); pl++) {
    gsize row_bytes;
    guint rows;

    cf_test_plane_extent (&p->info, pl, &row_bytes, &rows);
    fail_unless_equals_int (cf_copy_plane ((guint8 *) (guintptr)
            (p->device[i] + offset),
            row_bytes, GST_VIDEO_FRAME_PLANE_DATA (&frame, pl),
            GST_VIDEO_FRAME_PLANE_STRIDE (&frame, pl), row_bytes, rows,
            stream), 0);
    offset += row_bytes * rows;
  }
  gst_video_frame_unmap (&frame);
  gst_cuda_context_pop (NULL);
  /* what nvh264dec does after its copy: no wait */
  GST_MINI_OBJECT_FLAG_SET (gst_buffer_peek_memory (buf, 0),
      GST_CUDA_MEMORY_TRANSFER_NEED_SYNC);
  GST_BUFFER_PTS (buf) = (p->next - 1) * GST_SECOND / 30;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 30;
  *content = p->host[i];
  return buf;
}

/* ---- what each element must give ---- */

typedef enum
{
  CHECK_GRAY,
  CHECK_BLUR,
  CHECK_HIST,
  CHECK_SUM,
} Check;

static void
check_gray (GstBuffer * out, GstBuffer * content, const GstVideoInfo * in_info,
    gboolean cuda_out, const gchar * what)
{
  gint w = GST_VIDEO_INFO_WIDTH (in_info), h = GST_VIDEO_INFO_HEIGHT (in_info);
  guint8 *want = cf_test_reference_gray (content,
      GST_VIDEO_INFO_FORMAT (in_info), w, h, CF_GRAY_MATRIX_BT601);
  GstVideoInfo out_info;
  guint64 bad;

  gst_video_info_set_format (&out_info, cuda_out ? GST_VIDEO_FORMAT_NV12 :
      GST_VIDEO_FORMAT_GRAY8, w, h);
  bad = cf_test_count_plane_mismatches (out, &out_info, 0, want, w, h);
  fail_unless (bad == 0, "%s: %" G_GUINT64_FORMAT " grey bytes differ", what,
      bad);
  if (cuda_out) {
    bad = cf_test_count_plane_mismatches (out, &out_info, 1, NULL,
        2 * ((w + 1) / 2), (h + 1) / 2);
    fail_unless (bad == 0, "%s: %" G_GUINT64_FORMAT " chroma bytes are not "
        "128", what, bad);
  }
  g_free (want);
}

static void
check_blur (GstBuffer * out, GstBuffer * content, const GstVideoInfo * info,
    double sigma, const gchar * what)
{
  gint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  gsize row_bytes = (gsize) w * 4;
  guint8 *want = g_malloc (row_bytes * h), border[4] = { 0, };
  CfBlurKernel kx, ky;
  GstVideoFrame frame;
  guint64 bad;

  fail_unless (GST_VIDEO_INFO_FORMAT (info) == GST_VIDEO_FORMAT_RGBA);
  cf_blur_kernel_make (sigma, cf_blur_radius_for_sigma (sigma),
      CF_BLUR_H_BITS, &kx);
  cf_blur_kernel_make (sigma, cf_blur_radius_for_sigma (sigma),
      CF_BLUR_V_BITS, &ky);
  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, content,
          GST_MAP_READ));
  cf_ref_blur_plane (GST_VIDEO_FRAME_PLANE_DATA (&frame, 0),
      GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), want, row_bytes, w, h, 4, &kx,
      &ky, CF_BORDER_REPLICATE, border);
  gst_video_frame_unmap (&frame);
  bad = cf_test_count_plane_mismatches (out, info, 0, want, row_bytes, h);
  fail_unless (bad == 0, "%s: %" G_GUINT64_FORMAT " bytes differ", what, bad);
  g_free (want);
}

/* Per channel: the histogram (256 bins) and the statistics, straight from
 * the components of the whole frame. */
static void
check_analysis (const GstStructure * s, GstBuffer * content,
    const GstVideoInfo * info, Check check, const gchar * what)
{
  static const gchar *rgb[] = { "R", "G", "B", "A" }, *yuv[] = { "Y", "U",
    "V"
  };
  guint n = GST_VIDEO_INFO_N_COMPONENTS (info), c;
  GstVideoFrame frame;

  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, content,
          GST_MAP_READ));
  for (c = 0; c < n; c++) {
    gint cw = GST_VIDEO_FRAME_COMP_WIDTH (&frame, c);
    gint ch = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c);
    gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
    const guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&frame, c);
    guint64 counts[256] = { 0, }, sum = 0;
    guint min = 255, max = 0, b;
    gint x, y;

    for (y = 0; y < ch; y++)
      for (x = 0; x < cw; x++) {
        guint v = data[(gsize) y * stride + (gsize) x * pstride];
        counts[v]++;
        sum += v;
        min = MIN (min, v);
        max = MAX (max, v);
      }
    if (check == CHECK_HIST) {
      const GValue *arr = gst_structure_get_value (s,
          GST_VIDEO_INFO_IS_RGB (info) ? rgb[c] : yuv[c]);

      fail_unless (arr && gst_value_array_get_size (arr) == 256, "%s", what);
      for (b = 0; b < 256; b++) {
        guint64 got = g_value_get_uint64 (gst_value_array_get_value (arr, b));
        fail_unless (got == counts[b], "%s: channel %u bin %u: %"
            G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, what, c, b, got,
            counts[b]);
      }
    } else {
      const GValue *sums = gst_structure_get_value (s, "sum");
      const GValue *mins = gst_structure_get_value (s, "min");
      const GValue *maxs = gst_structure_get_value (s, "max");
      guint64 got;

      fail_unless (sums && mins && maxs, "%s: no sum, min or max", what);
      got = g_value_get_uint64 (gst_value_array_get_value (sums, c));
      fail_unless (got == sum, "%s: channel %u sums to %" G_GUINT64_FORMAT
          ", want %" G_GUINT64_FORMAT, what, c, got, sum);
      fail_unless_equals_int (g_value_get_uint (gst_value_array_get_value
              (mins, c)), min);
      fail_unless_equals_int (g_value_get_uint (gst_value_array_get_value
              (maxs, c)), max);
    }
  }
  gst_video_frame_unmap (&frame);
}

/* @frames frames from the producer through @launch, each checked. */
static void
run_element (const gchar * launch, Check check, GstVideoFormat format,
    gint w, gint h, gboolean cuda_out, gboolean rewriting, guint frames)
{
  GstElement *bin;
  GstHarness *hr;
  GstContext *ctx_msg;
  GstBus *bus = gst_bus_new ();
  GError *err = NULL;
  Producer p;
  gchar *caps;
  guint i;

  ensure_producer ();
  producer_init (&p, format, w, h, rewriting);
  bin = gst_parse_bin_from_description (launch, TRUE, &err);
  fail_unless (bin != NULL, "%s: %s", launch, err ? err->message : "?");
  /* the producer's context, as a decoder would share it */
  ctx_msg = gst_context_new_cuda_context (context);
  gst_element_set_context (bin, ctx_msg);
  gst_context_unref (ctx_msg);
  gst_element_set_bus (bin, bus);
  hr = gst_harness_new_with_element (bin, "sink", "src");
  gst_object_unref (bin);

  caps = g_strdup_printf ("video/x-raw(memory:CUDAMemory), format=%s, "
      "width=%d, height=%d, framerate=30/1",
      gst_video_format_to_string (format), w, h);
  gst_harness_set_src_caps_str (hr, caps);
  g_free (caps);
  if (check == CHECK_GRAY || check == CHECK_BLUR)
    gst_harness_set_sink_caps_str (hr, cuda_out ?
        "video/x-raw(memory:CUDAMemory)" : "video/x-raw");

  for (i = 0; i < frames; i++) {
    GstBuffer *content, *in = producer_next (&p, &content), *out;
    gchar *what = g_strdup_printf ("%s, %s %dx%d%s, %s producer, frame %u",
        launch, gst_video_format_to_string (format), w, h,
        cuda_out ? ", CUDA out" : "", rewriting ? "rewriting" : "slow", i);

    fail_unless_equals_int (gst_harness_push (hr, in), GST_FLOW_OK);
    out = gst_harness_pull (hr);
    fail_unless (out != NULL, "%s: no output", what);
    switch (check) {
      case CHECK_GRAY:
        check_gray (out, content, &p.info, cuda_out, what);
        break;
      case CHECK_BLUR:
        check_blur (out, content, &p.info, 2.0, what);
        break;
      case CHECK_HIST:
      case CHECK_SUM:{
        GstStructure *s = cf_test_next_result (bus, 10 * GST_SECOND);

        fail_unless (s != NULL, "%s: no message", what);
        check_analysis (s, content, &p.info, check, what);
        gst_structure_free (s);
        break;
      }
    }
    /* back to the pool: the rewriting producer poisons it now */
    gst_buffer_unref (out);
    g_free (what);
  }
  gst_harness_teardown (hr);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
  producer_clear (&p);
}

/* Each element, in CUDA and system memory out where it has output. */
static const struct
{
  const gchar *launch;
  Check check;
  GstVideoFormat format;
  gint width, height;
  gboolean cuda_out;
} configs[] = {
  {"cudagray", CHECK_GRAY, GST_VIDEO_FORMAT_RGBA, 1921, 1081, TRUE},
  {"cudagray", CHECK_GRAY, GST_VIDEO_FORMAT_NV12, 1281, 721, FALSE},
  {"cudablur sigma=2", CHECK_BLUR, GST_VIDEO_FORMAT_RGBA, 1921, 1081, TRUE},
  {"cudablur sigma=2", CHECK_BLUR, GST_VIDEO_FORMAT_RGBA, 641, 361, FALSE},
  {"cudahist", CHECK_HIST, GST_VIDEO_FORMAT_RGBA, 1921, 1081, FALSE},
  {"cudahist", CHECK_HIST, GST_VIDEO_FORMAT_NV12, 1281, 721, FALSE},
  {"cudasum", CHECK_SUM, GST_VIDEO_FORMAT_RGBA, 1921, 1081, FALSE},
  {"cudasum", CHECK_SUM, GST_VIDEO_FORMAT_NV12, 1281, 721, FALSE},
};

/* (one test per element and memory: each fails on its own) */
GST_START_TEST (test_producer_still_writing)
{
  run_element (configs[__i__].launch, configs[__i__].check,
      configs[__i__].format, configs[__i__].width, configs[__i__].height,
      configs[__i__].cuda_out, FALSE, 6);
}

GST_END_TEST;

GST_START_TEST (test_producer_rewrites_returned_frames)
{
  run_element (configs[__i__].launch, configs[__i__].check,
      configs[__i__].format, configs[__i__].width, configs[__i__].height,
      configs[__i__].cuda_out, TRUE, 12);
}

GST_END_TEST;

CF_TEST_SUITE (stream_order_suite, "stream-order",
    CF_TEST_CASE ("gpu", 0),
    CF_LOOP_TEST (test_producer_still_writing, 0, G_N_ELEMENTS (configs)),
    CF_LOOP_TEST (test_producer_rewrites_returned_frames, 0,
        G_N_ELEMENTS (configs)));

int
main (int argc, char **argv)
{
  int ret = cf_test_run_gpu_suite (&argc, &argv, cf_test_gpu_available,
      stream_order_suite, "stream-order", __FILE__);

  if (context) {
    gst_cuda_context_push (context);
    CuMemFree (slow_work);
    gst_cuda_context_pop (NULL);
    gst_clear_cuda_stream (&producer_stream);
    gst_object_unref (context);
  }
  return ret;
}
