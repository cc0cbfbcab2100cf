/* cudablur on the GPU through GstHarness: every format in both memory
 * types, odd sizes and padded strides, every border rule and sigmas 0.3 to
 * 20, against the CPU reference applied plane by plane as docs/cudablur.md
 * defines; the formats of 10 to 16 bits likewise, and the packed 10-bit
 * RGB ones (each field blurred as a 10-bit sample); sigma changed while
 * playing; passthrough at sigma 0; a frame in CUDA memory whose planes'
 * rows interleave; and the GPU chain
 * cudaupload ! cudablur ! cudagray ! cudadownload. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>

#include "cf-hbd.h"
#include "cf-test-util.h"

typedef struct
{
  double sigma, sigma_y;        /* sigma_y < 0: same as sigma */
  gint radius;
  CfBorder border;
} Settings;

/* The expected output of one plane, tightly packed: above 8 bits in
 * 16-bit words, by cf_ref_blur_plane_words with 28-bit weights. */
static guint8 *
reference_plane (GstVideoFrame * in, guint p, const Settings * s,
    gsize * row_bytes, guint * rows)
{
  const GstVideoFormatInfo *finfo = in->info.finfo;
  gint comp[GST_VIDEO_MAX_COMPONENTS];
  guint wsub, hsub, channels;
  gint w, h;
  double sx = s->sigma, sy = s->sigma_y < 0 ? s->sigma : s->sigma_y;
  CfBlurKernel kx, ky;
  guint8 *out, bv[4];
  gboolean yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo);
  guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
  gboolean words = depth > 8;

  gst_video_format_info_component (finfo, p, comp);
  wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, comp[0]);
  hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, comp[0]);
  channels = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comp[0]) / (words ? 2 : 1);
  w = GST_VIDEO_FRAME_COMP_WIDTH (in, comp[0]);
  h = GST_VIDEO_FRAME_COMP_HEIGHT (in, comp[0]);
  memset (bv, yuv ? (p == 0 ? 16 : 128) : 0, 4);

  /* docs/cudablur.md: a plane subsampled by 2^sub takes sigma / 2^sub and
   * a fixed radius rounded up by the same factor */
  sx /= 1 << wsub;
  sy /= 1 << hsub;
  cf_blur_kernel_make (sx, sx > 0 ? (s->radius ? (s->radius + (1 << wsub) -
              1) >> wsub : cf_blur_radius_for_sigma (sx)) : 0,
      words ? CF_BLUR_WORD_BITS : CF_BLUR_H_BITS, &kx);
  cf_blur_kernel_make (sy, sy > 0 ? (s->radius ? (s->radius + (1 << hsub) -
              1) >> hsub : cf_blur_radius_for_sigma (sy)) : 0,
      words ? CF_BLUR_WORD_BITS : CF_BLUR_V_BITS, &ky);

  *row_bytes = (gsize) w *channels * (words ? 2 : 1);
  *rows = h;
  out = g_malloc (*row_bytes * h);
  if (cf_hbd_is_rgb10a2 (GST_VIDEO_FORMAT_INFO_FORMAT (finfo))) {
    /* four fields a pixel, each a 10-bit sample (alpha 2 bits) */
    *row_bytes = (gsize) w *4;
    out = g_realloc (out, *row_bytes * h);
    cf_ref_blur_rgb10a2 (GST_VIDEO_FRAME_PLANE_DATA (in, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (in, p), out, *row_bytes, w, h, &kx, &ky,
        s->border);
  } else if (words) {
    /* black: Y 16, chroma 128, at the depth */
    guint16 value = yuv ? (p == 0 ? 16 << (depth - 8) : 1 << (depth - 1)) : 0;
    guint16 wv[4] = { value, value, value, value };

    cf_ref_blur_plane_words (GST_VIDEO_FRAME_PLANE_DATA (in, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (in, p), out, *row_bytes, w, h, channels,
        depth, GST_VIDEO_FORMAT_INFO_SHIFT (finfo, comp[0]), &kx, &ky,
        s->border, wv);
  } else {
    cf_ref_blur_plane (GST_VIDEO_FRAME_PLANE_DATA (in, p),
        GST_VIDEO_FRAME_PLANE_STRIDE (in, p), out, *row_bytes, w, h,
        channels, &kx, &ky, s->border, bv);
  }
  return out;
}

/* pushes a random frame, compares every plane of the output */
static void
check_frame (GstHarness * h, GstVideoFormat format, gint w, gint ht,
    guint pad, const Settings * s)
{
  GstBuffer *in = cf_test_make_frame (format, w, ht, pad, FALSE, rand_);
  GstVideoInfo info;
  GstVideoFrame frame;
  GstBuffer *out;
  guint p;

  gst_video_info_set_format (&info, format, w, ht);
  fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    gsize row_bytes;
    guint rows;
    guint8 *want = reference_plane (&frame, p, s, &row_bytes, &rows);
    guint64 bad = cf_test_count_plane_mismatches (out, &info, p, want,
        row_bytes, rows);
    fail_unless (bad == 0, "%s %dx%d pad %u sigma %g/%g radius %d border %d "
        "plane %u: %" G_GUINT64_FORMAT " bytes differ",
        gst_video_format_to_string (format), w, ht, pad, s->sigma,
        s->sigma_y, s->radius, s->border, p, bad);
    g_free (want);
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (in);
  gst_buffer_unref (out);
}

static void
set_caps (GstHarness * h, GstVideoFormat format, gint w, gint ht)
{
  gchar *caps = g_strdup_printf ("video/x-raw, format=%s, width=%d, "
      "height=%d, framerate=30/1", gst_video_format_to_string (format), w, ht);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

static void
apply (GstHarness * h, const Settings * s)
{
  GstElement *blur = gst_harness_find_element (h, "cudablur");
  g_object_set (blur, "sigma", s->sigma, "sigma-y", s->sigma_y, "radius",
      s->radius, "border", s->border, NULL);
  gst_object_unref (blur);
}

static const struct
{
  gint w, h;
} sizes[] = { {1, 1}, {3, 7}, {1, 33}, {61, 1}, {1921, 1081} };

static void
check_formats (const gchar * launch, const GstVideoFormat * formats,
    guint n_formats)
{
  static const Settings settings[] = {
    {2.0, -1, 0, CF_BORDER_REPLICATE},
    {0.3, 5.0, 0, CF_BORDER_REFLECT_101},
    {1.0, -1, 4, CF_BORDER_CONSTANT},
  };
  guint f, z, k;

  for (f = 0; f < n_formats; f++) {
    GstHarness *h = gst_harness_new_parse (launch);

    gst_harness_set_sink_caps_str (h, "video/x-raw");
    for (z = 0; z < G_N_ELEMENTS (sizes); z++) {
      set_caps (h, formats[f], sizes[z].w, sizes[z].h);
      for (k = 0; k < G_N_ELEMENTS (settings); k++) {
        /* the large frame once per format: the kernels test covers more */
        if (sizes[z].w > 1000 && k > 0)
          break;
        apply (h, &settings[k]);
        check_frame (h, formats[f], sizes[z].w, sizes[z].h, 0, &settings[k]);
        check_frame (h, formats[f], sizes[z].w, sizes[z].h, 24, &settings[k]);
      }
    }
    gst_harness_teardown (h);
  }
}

GST_START_TEST (test_system_memory)
{
  check_formats ("cudablur", cf_test_sys_formats,
      G_N_ELEMENTS (cf_test_sys_formats));
}

GST_END_TEST;

GST_START_TEST (test_cuda_memory)
{
  check_formats ("cudaupload ! video/x-raw(memory:CUDAMemory) ! cudablur ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload", cf_test_cuda_formats,
      G_N_ELEMENTS (cf_test_cuda_formats));
}

GST_END_TEST;

/* 10 to 16 bits (#48): every format of 16-bit words, in system memory
 * and in CUDA memory as far as the runtime's allocator holds them, odd
 * sizes, padded strides, random words with bits outside the samples */
GST_START_TEST (test_high_bit_depth)
{
  check_formats ("cudablur", cf_hbd_word_formats, CF_HBD_N_WORD_FORMATS);
  check_formats ("cudaupload ! video/x-raw(memory:CUDAMemory) ! cudablur ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload",
      cf_hbd_cuda_word_formats, cf_hbd_n_cuda_word_formats);
}

GST_END_TEST;

/* the packed 10-bit RGB formats, in both memory types: R, G, B and the
 * 2-bit alpha each blurred as a 10-bit sample */
GST_START_TEST (test_packed_rgb)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGB10A2_LE,
    GST_VIDEO_FORMAT_BGR10A2_LE,
  };

  check_formats ("cudablur", formats, G_N_ELEMENTS (formats));
  check_formats ("cudaupload ! video/x-raw(memory:CUDAMemory) ! cudablur ! "
      "video/x-raw(memory:CUDAMemory) ! cudadownload", formats,
      G_N_ELEMENTS (formats));
}

GST_END_TEST;

/* every sigma of the issue on one format, every border */
GST_START_TEST (test_sigmas_and_borders)
{
  static const double sigmas[] = { 0.3, 1, 2, 5, 20 };
  GstHarness *h = gst_harness_new ("cudablur");
  guint s;
  gint b;

  set_caps (h, GST_VIDEO_FORMAT_BGRA, 333, 187);
  for (s = 0; s < G_N_ELEMENTS (sigmas); s++)
    for (b = CF_BORDER_REPLICATE; b <= CF_BORDER_CONSTANT; b++) {
      Settings set = { sigmas[s], -1, 0, b };
      apply (h, &set);
      check_frame (h, GST_VIDEO_FORMAT_BGRA, 333, 187, 12, &set);
    }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* sigma 0: the same buffer comes out, untouched; back to a blur and to 0
 * again while playing */
GST_START_TEST (test_passthrough_and_changes)
{
  GstHarness *h = gst_harness_new ("cudablur");
  Settings zero = { 0, -1, 0, CF_BORDER_REPLICATE };
  Settings blur = { 3, -1, 0, CF_BORDER_REPLICATE };
  Settings only_y = { 0, 2.5, 0, CF_BORDER_REPLICATE };
  GstBuffer *in, *out;
  gint round;

  set_caps (h, GST_VIDEO_FORMAT_RGBA, 64, 48);
  for (round = 0; round < 2; round++) {
    apply (h, &zero);
    in = cf_test_make_frame (GST_VIDEO_FORMAT_RGBA, 64, 48, 0, FALSE, rand_);
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    out = gst_harness_pull (h);
    fail_unless (out == in, "sigma 0 must pass the same buffer on");
    gst_buffer_unref (out);
    gst_buffer_unref (in);

    apply (h, &blur);
    check_frame (h, GST_VIDEO_FORMAT_RGBA, 64, 48, 0, &blur);
    apply (h, &only_y);
    check_frame (h, GST_VIDEO_FORMAT_RGBA, 64, 48, 0, &only_y);
  }
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A frame in CUDA memory whose planes' rows interleave: one pitch for
 * all, each plane's rows starting where the plane before ends in the same
 * line (a layout a video meta may describe).  The planes cannot go to one
 * launch (it refuses planes that overlap), so cudablur blurs them one by
 * one; each must still match its reference. */
static void
check_interleaved (GstCudaContext * context, GstVideoFormat format, gint w,
    gint ht, const Settings * s)
{
  GstVideoInfo info, line;
  GstBufferPool *pool = gst_cuda_buffer_pool_new (context);
  GstStructure *config;
  GstCaps *caps;
  GstContext *shared = gst_context_new_cuda_context (context);
  GstElement *blur = gst_element_factory_make ("cudablur", NULL);
  GstHarness *h;
  GstBuffer *pooled = NULL, *in, *host, *out;
  GstVideoFrame frame;
  GstMapInfo map;
  gsize offset[GST_VIDEO_MAX_PLANES], line_bytes = 0;
  gint stride[GST_VIDEO_MAX_PLANES];
  guint p, n, rows_max = 0;
  gchar *str;

  gst_video_info_set_format (&info, format, w, ht);
  n = GST_VIDEO_INFO_N_PLANES (&info);
  for (p = 0; p < n; p++) {
    gsize row_bytes;
    guint rows;

    cf_test_plane_extent (&info, p, &row_bytes, &rows);
    offset[p] = line_bytes;
    line_bytes += row_bytes;
    rows_max = MAX (rows_max, rows);
  }

  /* the memory: an RGBA frame (the CUDA allocator has no GRAY8) at least
   * a line of every plane wide, its pitch the planes' stride */
  gst_video_info_set_format (&line, GST_VIDEO_FORMAT_RGBA,
      (gint) (line_bytes + 3) / 4, (gint) rows_max);
  caps = gst_video_info_to_caps (&line);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, GST_VIDEO_INFO_SIZE (&line),
      0, 0);
  fail_unless (gst_buffer_pool_set_config (pool, config));
  fail_unless (gst_buffer_pool_set_active (pool, TRUE));
  gst_caps_unref (caps);
  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &pooled,
          NULL), GST_FLOW_OK);
  fail_unless_equals_int (gst_buffer_n_memory (pooled), 1);
  fail_unless (gst_is_cuda_memory (gst_buffer_peek_memory (pooled, 0)));
  for (p = 0; p < n; p++)
    stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&GST_CUDA_MEMORY_CAST
        (gst_buffer_peek_memory (pooled, 0))->info, 0);
  fail_unless (gst_buffer_map (pooled, &map, GST_MAP_WRITE));
  cf_test_fill_random (rand_, map.data, map.size);
  host = gst_buffer_new_memdup (map.data, map.size);
  gst_buffer_unmap (pooled, &map);
  /* the memory in a buffer of its own: the pool's buffer has a video
   * meta of the RGBA frame already, which it keeps */
  in = gst_buffer_new ();
  gst_buffer_append_memory (in, gst_buffer_get_memory (pooled, 0));
  gst_buffer_add_video_meta_full (in, GST_VIDEO_FRAME_FLAG_NONE, format, w,
      ht, n, offset, stride);
  gst_buffer_add_video_meta_full (host, GST_VIDEO_FRAME_FLAG_NONE, format, w,
      ht, n, offset, stride);

  gst_element_set_context (blur, shared);
  gst_context_unref (shared);
  h = gst_harness_new_with_element (blur, "sink", "src");
  gst_object_unref (blur);
  apply (h, s);
  str = g_strdup_printf ("video/x-raw(memory:CUDAMemory), format=%s, "
      "width=%d, height=%d, framerate=30/1", gst_video_format_to_string
      (format), w, ht);
  gst_harness_set_src_caps_str (h, str);
  g_free (str);
  gst_harness_set_sink_caps_str (h, "video/x-raw");

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  fail_unless (gst_video_frame_map (&frame, &info, host, GST_MAP_READ));
  for (p = 0; p < n; p++) {
    gsize row_bytes;
    guint rows;
    guint8 *want = reference_plane (&frame, p, s, &row_bytes, &rows);
    guint64 bad = cf_test_count_plane_mismatches (out, &info, p, want,
        row_bytes, rows);

    fail_unless (bad == 0, "%s %dx%d, planes interleaved (stride %d): "
        "plane %u: %" G_GUINT64_FORMAT " bytes differ",
        gst_video_format_to_string (format), w, ht, stride[0], p, bad);
    g_free (want);
  }
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  gst_buffer_unref (host);
  gst_harness_teardown (h);
  gst_buffer_unref (pooled);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

GST_START_TEST (test_interleaved_planes)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_I420_10LE,
  };
  static const struct
  {
    gint w, h;
  } shapes[] = { {640, 360}, {333, 187} };
  Settings s = { 2.0, -1, 0, CF_BORDER_REPLICATE };
  GstCudaContext *context;
  guint f, z;

  gst_cuda_memory_init_once ();
  context = gst_cuda_context_new (0);
  fail_unless (context != NULL, "no CUDA context on device 0");
  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (z = 0; z < G_N_ELEMENTS (shapes); z++) {
      s.border = z == 0 ? CF_BORDER_REPLICATE : CF_BORDER_CONSTANT;
      check_interleaved (context, formats[f], shapes[z].w, shapes[z].h, &s);
    }
  gst_object_unref (context);
}

GST_END_TEST;

/* cudaupload ! cudablur ! cudagray ! cudadownload: blurred, then grey */
GST_START_TEST (test_chain_with_cudagray)
{
  GstHarness *h = gst_harness_new_parse ("cudaupload ! cudablur sigma=2 ! "
      "cudagray ! video/x-raw(memory:CUDAMemory),format=NV12 ! cudadownload");
  Settings s = { 2, -1, 0, CF_BORDER_REPLICATE };
  GstBuffer *in = cf_test_make_frame (GST_VIDEO_FORMAT_RGBA, 321, 123, 0,
      FALSE, rand_);
  GstVideoInfo rgba, nv12;
  GstVideoFrame frame;
  GstBuffer *blurred, *out;
  gsize row_bytes;
  guint rows;
  guint8 *blur_plane, *want;

  gst_harness_set_sink_caps_str (h, "video/x-raw");
  set_caps (h, GST_VIDEO_FORMAT_RGBA, 321, 123);
  gst_video_info_set_format (&rgba, GST_VIDEO_FORMAT_RGBA, 321, 123);
  gst_video_info_set_format (&nv12, GST_VIDEO_FORMAT_NV12, 321, 123);
  fail_unless (gst_video_frame_map (&frame, &rgba, in, GST_MAP_READ));
  blur_plane = reference_plane (&frame, 0, &s, &row_bytes, &rows);
  gst_video_frame_unmap (&frame);
  blurred = gst_buffer_new_wrapped (blur_plane, row_bytes * rows);
  want = cf_test_reference_gray (blurred, GST_VIDEO_FORMAT_RGBA, 321, 123,
      CF_GRAY_MATRIX_BT601);

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless_equals_int (cf_test_count_plane_mismatches (out, &nv12, 0,
          want, 321, 123), 0);
  gst_buffer_unref (out);
  gst_buffer_unref (blurred);
  g_free (want);
  gst_harness_teardown (h);
}

GST_END_TEST;

CF_TEST_SUITE (cudablur_suite, "cudablur",
    CF_TEST_CASE ("gpu", 900),
    CF_TEST (test_system_memory),
    CF_TEST (test_cuda_memory),
    CF_TEST (test_high_bit_depth), CF_TEST (test_packed_rgb),
    CF_TEST (test_sigmas_and_borders),
    CF_TEST (test_passthrough_and_changes), CF_TEST (test_interleaved_planes),
    CF_TEST (test_chain_with_cudagray));

CF_TEST_GPU_MAIN (cudablur, cf_test_gpu_available);
