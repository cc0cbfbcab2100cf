/* cudablur on the GPU through GstHarness: every format in both memory
 * types, odd sizes and padded strides, every border rule and sigmas 0.3 to
 * 20, against the CPU reference applied plane by plane as docs/cudablur.md
 * defines; the formats of 10 to 16 bits likewise, and the packed 10-bit
 * RGB ones (each field blurred as a 10-bit sample); sigma changed while
 * playing; passthrough at sigma 0; frames in CUDA memory whose planes'
 * rows interleave, in and out (a launch a plane); and the GPU chain
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
  if (sx == 0 && sy == 0) {
    /* not blurred (sigma 0 into the other memory type): the plane as it
     * is, bits outside the samples included */
    const guint8 *src = GST_VIDEO_FRAME_PLANE_DATA (in, p);
    gint y;

    for (y = 0; y < h; y++)
      memcpy (out + (gsize) y * *row_bytes, src + (gsize) y *
          GST_VIDEO_FRAME_PLANE_STRIDE (in, p), *row_bytes);
  } else if (cf_hbd_is_rgb10a2 (GST_VIDEO_FORMAT_INFO_FORMAT (finfo))) {
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

/* Every plane of @out (a frame of @in's format and size) against its
 * reference from @in; @what names the case in a failure */
static void
check_planes (GstBuffer * out, GstVideoFrame * in, const Settings * s,
    const gchar * what)
{
  GstVideoInfo info;            /* the caps' (a meta of out's rules) */
  guint p;

  gst_video_info_set_format (&info, GST_VIDEO_FRAME_FORMAT (in),
      GST_VIDEO_FRAME_WIDTH (in), GST_VIDEO_FRAME_HEIGHT (in));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
    gsize row_bytes;
    guint rows;
    guint8 *want = reference_plane (in, p, s, &row_bytes, &rows);
    guint64 bad = cf_test_count_plane_mismatches (out, &info, p, want,
        row_bytes, rows);

    fail_unless (bad == 0, "%s, sigma %g/%g radius %d border %d: plane %u: "
        "%" G_GUINT64_FORMAT " bytes differ", what, s->sigma, s->sigma_y,
        s->radius, s->border, p, bad);
    g_free (want);
  }
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
  gchar *what;

  gst_video_info_set_format (&info, format, w, ht);
  fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  what = g_strdup_printf ("%s %dx%d pad %u", gst_video_format_to_string
      (format), w, ht, pad);
  check_planes (out, &frame, s, what);
  g_free (what);
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

/* ---- frames in CUDA memory whose planes' rows interleave ---- */

/* A frame of @info in CUDA memory of @context, its planes' rows
 * interleaved: one stride for all, each plane's rows starting where the
 * plane before ends in the same line (a layout a video meta may
 * describe).  The memory is an RGBA frame (the CUDA allocator has no
 * GRAY8) of at least a line of every plane a row, its pitch the stride.
 * With @host: random content, also copied there (same layout). */
static GstBuffer *
interleaved_frame (GstCudaContext * context, const GstVideoInfo * info,
    GstBuffer ** host)
{
  GstAllocator *allocator = gst_allocator_find (GST_CUDA_MEMORY_TYPE_NAME);
  GstVideoInfo lines;
  GstMemory *mem;
  GstBuffer *buf;
  GstMapInfo map;
  gsize offset[GST_VIDEO_MAX_PLANES], line_bytes = 0;
  gint stride[GST_VIDEO_MAX_PLANES];
  guint p, n = GST_VIDEO_INFO_N_PLANES (info), rows_max = 0;

  for (p = 0; p < n; p++) {
    gsize row_bytes;
    guint rows;

    cf_test_plane_extent (info, p, &row_bytes, &rows);
    offset[p] = line_bytes;
    line_bytes += row_bytes;
    rows_max = MAX (rows_max, rows);
  }
  gst_video_info_set_format (&lines, GST_VIDEO_FORMAT_RGBA,
      (gint) (line_bytes + 3) / 4, (gint) rows_max);
#ifdef HAVE_GST_CUDA_STREAM
  mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (allocator), context,
      NULL, &lines);
#else
  mem = gst_cuda_allocator_alloc (GST_CUDA_ALLOCATOR (allocator), context,
      &lines);
#endif
  gst_object_unref (allocator);
  fail_unless (mem != NULL, "no CUDA memory of %" G_GSIZE_FORMAT " x %u",
      line_bytes, rows_max);
  for (p = 0; p < n; p++)
    stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&GST_CUDA_MEMORY_CAST (mem)->info,
        0);
  buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, mem);
  if (host) {
    fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
    cf_test_fill_random (rand_, map.data, map.size);
    *host = gst_buffer_new_memdup (map.data, map.size);
    gst_buffer_unmap (buf, &map);
    gst_buffer_add_video_meta_full (*host, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
        GST_VIDEO_INFO_HEIGHT (info), n, offset, stride);
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), n, offset, stride);
  return buf;
}

/* A CUDA buffer pool whose buffers are interleaved_frame ()s: a
 * downstream pool that cudablur takes for its output (of its context) */
typedef GstCudaBufferPool InterleavingPool;
typedef GstCudaBufferPoolClass InterleavingPoolClass;
G_DEFINE_TYPE (InterleavingPool, interleaving_pool, GST_TYPE_CUDA_BUFFER_POOL);

static GstFlowReturn
interleaving_pool_alloc_buffer (GstBufferPool * pool, GstBuffer ** buffer,
    GstBufferPoolAcquireParams * params)
{
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstCaps *caps = NULL;
  GstVideoInfo info;

  fail_unless (gst_buffer_pool_config_get_params (config, &caps, NULL, NULL,
          NULL) && caps && gst_video_info_from_caps (&info, caps));
  gst_structure_free (config);
  *buffer = interleaved_frame (GST_CUDA_BUFFER_POOL (pool)->context, &info,
      NULL);
  return GST_FLOW_OK;
}

static void
interleaving_pool_class_init (InterleavingPoolClass * klass)
{
  GST_BUFFER_POOL_CLASS (klass)->alloc_buffer = interleaving_pool_alloc_buffer;
}

static void
interleaving_pool_init (InterleavingPool * self)
{
}

/* answers the allocation query of the harness's sink pad with @pool */
static GstPadProbeReturn
offer_pool (GstPad * pad, GstPadProbeInfo * info, gpointer pool)
{
  GstQuery *query = GST_PAD_PROBE_INFO_QUERY (info);
  GstCaps *caps = NULL;
  GstVideoInfo vinfo;

  if (GST_QUERY_TYPE (query) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  gst_query_parse_allocation (query, &caps, NULL);
  fail_unless (caps && gst_video_info_from_caps (&vinfo, caps));
  gst_query_add_allocation_pool (query, GST_BUFFER_POOL (pool),
      GST_VIDEO_INFO_SIZE (&vinfo), 0, 0);
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  return GST_PAD_PROBE_HANDLED;
}

/* One frame of @format through cudablur with settings @s, its input
 * interleaved in CUDA memory: with @cuda_out, into downstream's
 * interleaving pool, whose planes' outputs overlap, so that no launch
 * takes them all (the element blurs, or copies, plane by plane); else into
 * system memory (one launch, reading the planes where they lie, or at
 * sigma 0 a copy a plane).  Every plane against its reference. */
static void
check_interleaved (GstCudaContext * context, GstVideoFormat format, gint w,
    gint ht, const Settings * s, gboolean cuda_out)
{
  GstVideoInfo info;
  GstContext *shared = gst_context_new_cuda_context (context);
  GstElement *blur = gst_element_factory_make ("cudablur", NULL);
  GstBufferPool *pool = NULL;
  GstHarness *h;
  GstBuffer *in, *host, *out;
  GstVideoFrame frame;
  GstVideoMeta *meta;
  gchar *str;

  gst_video_info_set_format (&info, format, w, ht);
  in = interleaved_frame (context, &info, &host);

  gst_element_set_context (blur, shared);
  gst_context_unref (shared);
  h = gst_harness_new_with_element (blur, "sink", "src");
  gst_object_unref (blur);
  apply (h, s);
  if (cuda_out) {
    pool = g_object_new (interleaving_pool_get_type (), NULL);
    GST_CUDA_BUFFER_POOL (pool)->context = gst_object_ref (context);
    gst_pad_add_probe (h->sinkpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM,
        offer_pool, pool, NULL);
  }
  str = g_strdup_printf ("video/x-raw(memory:CUDAMemory), format=%s, "
      "width=%d, height=%d, framerate=30/1", gst_video_format_to_string
      (format), w, ht);
  gst_harness_set_src_caps_str (h, str);
  g_free (str);
  gst_harness_set_sink_caps_str (h, cuda_out ?
      "video/x-raw(memory:CUDAMemory)" : "video/x-raw");

  fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
  out = gst_harness_pull (h);
  fail_unless (out != NULL);
  /* (the output went where it was meant to: the pool's layout) */
  meta = gst_buffer_get_video_meta (out);
  if (cuda_out)
    fail_unless (meta && GST_VIDEO_INFO_N_PLANES (&info) > 1 &&
        meta->offset[1] > 0 && meta->offset[1] < (gsize) meta->stride[0],
        "the output is not the interleaving pool's");
  fail_unless (gst_video_frame_map (&frame, &info, host, GST_MAP_READ));
  str = g_strdup_printf ("%s %dx%d, planes interleaved, %s out",
      gst_video_format_to_string (format), w, ht, cuda_out ? "CUDA" : "system");
  check_planes (out, &frame, s, str);
  g_free (str);
  gst_video_frame_unmap (&frame);
  gst_buffer_unref (out);
  gst_buffer_unref (host);
  gst_harness_teardown (h);
  if (pool)
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
  Settings zero = { 0, -1, 0, CF_BORDER_REPLICATE };
  GstCudaContext *context;
  guint f, z;

  gst_cuda_memory_init_once ();
  context = gst_cuda_context_new (0);
  fail_unless (context != NULL, "no CUDA context on device 0");
  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (z = 0; z < G_N_ELEMENTS (shapes); z++) {
      s.border = z == 0 ? CF_BORDER_REPLICATE : CF_BORDER_CONSTANT;
      check_interleaved (context, formats[f], shapes[z].w, shapes[z].h, &s,
          TRUE);
      check_interleaved (context, formats[f], shapes[z].w, shapes[z].h, &s,
          FALSE);
    }
    /* sigma 0 into the other memory type: no passthrough, a copy */
    check_interleaved (context, formats[f], 333, 187, &zero, FALSE);
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
