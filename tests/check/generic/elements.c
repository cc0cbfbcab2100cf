/* What needs no GPU: registration, documentation, properties, caps
 * negotiation rules, and a clear error when the element cannot start
 * (no driver or GPU here; a cuda-device-id that does not exist on a GPU
 * machine). */
#include <gst/check/gstcheck.h>

#include "cf-test-util.h"

static void
check_registered (const gchar * name, const gchar * klass)
{
  GstElementFactory *f = gst_element_factory_find (name);
  GSList *cats, *l;
  gboolean own_category = FALSE, base_category = FALSE;

  fail_unless (f != NULL, "%s is not registered", name);
  fail_unless_equals_string (gst_element_factory_get_metadata (f,
          GST_ELEMENT_METADATA_KLASS), klass);
  fail_unless (strlen (gst_element_factory_get_metadata (f,
              GST_ELEMENT_METADATA_DESCRIPTION)) > 20);
  fail_unless_equals_int (gst_element_factory_get_num_pad_templates (f), 2);
  gst_object_unref (f);

  /* loading the element initialises its debug categories */
  gst_object_unref (gst_element_factory_make (name, NULL));
  cats = gst_debug_get_all_categories ();
  for (l = cats; l; l = l->next) {
    const gchar *cat = gst_debug_category_get_name (l->data);
    own_category |= g_str_equal (cat, name);
    base_category |= g_str_equal (cat, "cudafiltersbase");
  }
  g_slist_free (cats);
  fail_unless (own_category && base_category);
}

GST_START_TEST (test_registered_and_documented)
{
  check_registered ("cudagray", "Filter/Converter/Video/Hardware");
  check_registered ("cudablur", "Filter/Effect/Video/Hardware");
  check_registered ("cudahist", "Filter/Analyzer/Video/Hardware");
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("cudagray", NULL);
  GParamSpec *pspec;
  gint device_id;
  gint matrix;
  GEnumClass *enum_class;

  g_object_get (e, "cuda-device-id", &device_id, "matrix", &matrix, NULL);
  fail_unless_equals_int (device_id, -1);
  fail_unless_equals_int (matrix, CF_GRAY_MATRIX_BT601);

  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
      "cuda-device-id");
  fail_unless (pspec->flags & GST_PARAM_MUTABLE_READY);
  fail_if (pspec->flags & G_PARAM_DEPRECATED);

  /* device-id, the old name, is a deprecated alias of the same value */
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "device-id");
  fail_unless (pspec != NULL);
  fail_unless (pspec->flags & G_PARAM_DEPRECATED);
  fail_unless (pspec->flags & GST_PARAM_MUTABLE_READY);
  fail_unless (g_str_has_prefix (g_param_spec_get_blurb (pspec),
          "Deprecated: use cuda-device-id"));
  g_object_set (e, "device-id", 2, NULL);
  g_object_get (e, "cuda-device-id", &device_id, NULL);
  fail_unless_equals_int (device_id, 2);
  g_object_set (e, "cuda-device-id", 1, NULL);
  g_object_get (e, "device-id", &device_id, NULL);
  fail_unless_equals_int (device_id, 1);
  gst_util_set_object_arg (G_OBJECT (e), "device-id", "-1");
  g_object_get (e, "cuda-device-id", &device_id, NULL);
  fail_unless_equals_int (device_id, -1);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "matrix");
  fail_unless (pspec->flags & GST_PARAM_MUTABLE_PLAYING);
  fail_unless (pspec->flags & GST_PARAM_CONTROLLABLE);
  fail_unless (g_param_spec_get_blurb (pspec) != NULL);

  enum_class = g_type_class_ref (pspec->value_type);
  fail_unless_equals_int (g_enum_get_value_by_nick (enum_class,
          "bt709")->value, CF_GRAY_MATRIX_BT709);
  fail_unless_equals_int (g_enum_get_value_by_nick (enum_class,
          "bt2020")->value, CF_GRAY_MATRIX_BT2020);
  g_type_class_unref (enum_class);

  gst_util_set_object_arg (G_OBJECT (e), "matrix", "bt2020");
  g_object_get (e, "matrix", &matrix, NULL);
  fail_unless_equals_int (matrix, CF_GRAY_MATRIX_BT2020);
  gst_object_unref (e);
}

GST_END_TEST;

/* A peer that answers caps queries with the caps in its element_private */
static gboolean
answer_caps_query (GstPad * pad, GstObject * parent, GstQuery * query)
{
  GstCaps *caps = pad->element_private, *filter, *result;

  if (GST_QUERY_TYPE (query) != GST_QUERY_CAPS)
    return gst_pad_query_default (pad, parent, query);
  gst_query_parse_caps (query, &filter);
  result = filter ? gst_caps_intersect (caps, filter) : gst_caps_ref (caps);
  gst_query_set_caps_result (query, result);
  gst_caps_unref (result);
  return TRUE;
}

/* What @element (a gst_parse_launch() description: properties may
 * follow the name) offers on one pad when the peer of the other offers
 * @peer_caps: its src pad given upstream's (@downstream FALSE), or its
 * sink pad given downstream's */
static GstCaps *
caps_through (const gchar * element, const gchar * peer_caps,
    gboolean downstream)
{
  GstElement *e = gst_parse_launch (element, NULL);
  GstPad *peer = gst_pad_new ("peer", downstream ? GST_PAD_SINK : GST_PAD_SRC);
  GstPad *sink = gst_element_get_static_pad (e, "sink");
  GstPad *src = gst_element_get_static_pad (e, "src");
  GstCaps *caps;

  peer->element_private = gst_caps_from_string (peer_caps);
  gst_pad_set_query_function (peer, answer_caps_query);
  fail_unless_equals_int (downstream ? gst_pad_link_full (src, peer,
          GST_PAD_LINK_CHECK_NOTHING) : gst_pad_link_full (peer, sink,
          GST_PAD_LINK_CHECK_NOTHING), GST_PAD_LINK_OK);
  caps = gst_pad_query_caps (downstream ? sink : src, NULL);

  gst_caps_unref (peer->element_private);
  if (downstream)
    gst_pad_unlink (src, peer);
  else
    gst_pad_unlink (peer, sink);
  gst_object_unref (peer);
  gst_object_unref (sink);
  gst_object_unref (src);
  gst_object_unref (e);
  return caps;
}

static GstCaps *
src_caps_of (const gchar * element, const gchar * upstream)
{
  return caps_through (element, upstream, FALSE);
}

static GstCaps *
src_caps_for (const gchar * upstream)
{
  return src_caps_of ("cudagray", upstream);
}

static void
assert_caps_equal (GstCaps * got, const gchar * want_str)
{
  GstCaps *want = gst_caps_from_string (want_str);

  gchar *got_str = gst_caps_to_string (got);

  fail_unless (gst_caps_is_strictly_equal (got, want), "got %s\nwant %s",
      got_str, want_str);
  g_free (got_str);
  gst_caps_unref (want);
  gst_caps_unref (got);
}

/* the 10-bit 4:4:4 format CUDA memory holds from 1.24 on */
#ifdef HAVE_GST_CUDA_STREAM
#define CUDA_10_BIT_Y444 "Y444_10LE, "
#else
#define CUDA_10_BIT_Y444 ""
#endif

GST_START_TEST (test_caps_transform)
{
  /* system memory in: GRAY8 in system memory first, then NV12/I420 on
   * the GPU; size, rate and aspect carried, colorimetry dropped */
  assert_caps_equal (src_caps_for ("video/x-raw, format=RGBA, width=33, "
          "height=17, framerate=30/1, pixel-aspect-ratio=1/1, "
          "colorimetry=bt709"),
      "video/x-raw, format=GRAY8, width=33, height=17, framerate=30/1, "
      "pixel-aspect-ratio=1/1; video/x-raw(memory:CUDAMemory), "
      "format={NV12, I420}, width=33, height=17, framerate=30/1, "
      "pixel-aspect-ratio=1/1");
  /* CUDA memory in: CUDA memory out first; GstBaseTransform puts the
   * input caps themselves first where they are also a valid output */
  assert_caps_equal (src_caps_for ("video/x-raw(memory:CUDAMemory), "
          "format=NV12, width=1921, height=1081, framerate=25/1"),
      "video/x-raw(memory:CUDAMemory), format=NV12, width=1921, "
      "height=1081, framerate=25/1; "
      "video/x-raw(memory:CUDAMemory), format={NV12, I420}, width=1921, "
      "height=1081, framerate=25/1; video/x-raw, format=GRAY8, width=1921, "
      "height=1081, framerate=25/1");
  /* a format the element does not take gives nothing */
  assert_caps_equal (src_caps_for ("video/x-raw, format=YUY2, width=8, "
          "height=8, framerate=30/1"), "EMPTY");
  /* xRGB exists in system memory only (no CUDA layout in 1.22) */
  assert_caps_equal (src_caps_for ("video/x-raw(memory:CUDAMemory), "
          "format=xRGB, width=8, height=8, framerate=30/1"), "EMPTY");
  assert_caps_equal (src_caps_for ("video/x-raw, format=xRGB, width=8, "
          "height=8, framerate=30/1"),
      "video/x-raw, format=GRAY8, width=8, height=8, framerate=30/1; "
      "video/x-raw(memory:CUDAMemory), format={NV12, I420}, width=8, "
      "height=8, framerate=30/1");
  /* 10 bits in: GRAY16_LE, or P010/P016 on the GPU; 8 bits with
   * output-depth=8 */
  assert_caps_equal (src_caps_for ("video/x-raw, format=I420_10LE, width=8, "
          "height=8, framerate=30/1"),
      "video/x-raw, format=GRAY16_LE, width=8, height=8, framerate=30/1; "
      "video/x-raw(memory:CUDAMemory), format={P010_10LE, P016_LE}, width=8, "
      "height=8, framerate=30/1");
  assert_caps_equal (src_caps_of ("cudagray output-depth=8",
          "video/x-raw, format=I420_10LE, width=8, height=8, framerate=30/1"),
      "video/x-raw, format=GRAY8, width=8, height=8, framerate=30/1; "
      "video/x-raw(memory:CUDAMemory), format={NV12, I420}, width=8, "
      "height=8, framerate=30/1");
  /* 12 and 16 bits: P016 only (P010 holds 10) */
  assert_caps_equal (src_caps_for ("video/x-raw(memory:CUDAMemory), "
          "format=P016_LE, width=8, height=8, framerate=30/1"),
      "video/x-raw(memory:CUDAMemory), format=P016_LE, width=8, height=8, "
      "framerate=30/1; video/x-raw, format=GRAY16_LE, width=8, height=8, "
      "framerate=30/1");
  assert_caps_equal (src_caps_for ("video/x-raw, format=Y444_12LE, width=8, "
          "height=8, framerate=30/1"),
      "video/x-raw, format=GRAY16_LE, width=8, height=8, framerate=30/1; "
      "video/x-raw(memory:CUDAMemory), format=P016_LE, width=8, height=8, "
      "framerate=30/1");
  /* upstream of P010 only 10-bit formats; of P016 any depth */
  assert_caps_equal (caps_through ("cudagray",
          "video/x-raw(memory:CUDAMemory), "
          "format=P010_10LE, width=8, height=8, framerate=30/1", TRUE),
      "video/x-raw(memory:CUDAMemory), format=P010_10LE, width=8, height=8, "
      "framerate=30/1; video/x-raw(memory:CUDAMemory), format={P010_10LE, "
      "I420_10LE, " CUDA_10_BIT_Y444 "BGR10A2_LE, RGB10A2_LE}, width=8, "
      "height=8, framerate=30/1; video/x-raw, format={P010_10LE, I420_10LE, "
      "Y444_10LE, BGR10A2_LE, RGB10A2_LE}, width=8, height=8, "
      "framerate=30/1");
  /* GRAY16 exists in system memory only */
  assert_caps_equal (src_caps_for ("video/x-raw(memory:CUDAMemory), "
          "format=GRAY16_LE, width=8, height=8, framerate=30/1"), "EMPTY");
}

GST_END_TEST;

GST_START_TEST (test_blur_properties_and_caps)
{
  GstElement *e = gst_element_factory_make ("cudablur", NULL);
  gdouble sigma, sigma_y;
  gint radius, border;
  GParamSpec *pspec;

  g_object_get (e, "sigma", &sigma, "sigma-y", &sigma_y, "radius", &radius,
      "border", &border, NULL);
  fail_unless (sigma == 1.2 && sigma_y == -1);
  fail_unless_equals_int (radius, 0);
  fail_unless_equals_int (border, CF_BORDER_REPLICATE);
  pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e), "sigma");
  fail_unless (pspec->flags & GST_PARAM_MUTABLE_PLAYING);
  fail_unless (pspec->flags & GST_PARAM_CONTROLLABLE);
  /* no cap below 50 (GPU peers stop at a 15x15 mask or 32 taps) */
  fail_unless (G_PARAM_SPEC_DOUBLE (pspec)->maximum >= 50);
  gst_util_set_object_arg (G_OBJECT (e), "border", "reflect-101");
  g_object_get (e, "border", &border, NULL);
  fail_unless_equals_int (border, CF_BORDER_REFLECT_101);
  /* -1 is "same as sigma"; another negative sigma-y is no sigma: taken as
   * -1 (with a warning), never kept as a value that means something else */
  g_object_set (e, "sigma-y", 2.5, NULL);
  g_object_get (e, "sigma-y", &sigma_y, NULL);
  fail_unless (sigma_y == 2.5);
  g_object_set (e, "sigma-y", -0.5, NULL);
  g_object_get (e, "sigma-y", &sigma_y, NULL);
  fail_unless (sigma_y == -1);
  g_object_set (e, "sigma-y", 0.0, NULL);
  g_object_get (e, "sigma-y", &sigma_y, NULL);
  fail_unless (sigma_y == 0);
  /* sigma 0 in either memory type: the input's caps are the output's */
  gst_object_unref (e);

  /* the format stays, the memory type may change; GRAY8 and xRGB only in
   * system memory */
  assert_caps_equal (src_caps_of ("cudablur", "video/x-raw, format=NV12, "
          "width=33, height=17, framerate=30/1"),
      "video/x-raw, format=NV12, width=33, height=17, framerate=30/1; "
      "video/x-raw(memory:CUDAMemory), format=NV12, width=33, height=17, "
      "framerate=30/1");
  assert_caps_equal (src_caps_of ("cudablur", "video/x-raw, format=GRAY8, "
          "width=8, height=8, framerate=30/1"),
      "video/x-raw, format=GRAY8, width=8, height=8, framerate=30/1");
  /* the packed 10-bit RGB formats, in both memory types */
  assert_caps_equal (src_caps_of ("cudablur", "video/x-raw, "
          "format=BGR10A2_LE, width=8, height=8, framerate=30/1"),
      "video/x-raw, format=BGR10A2_LE, width=8, height=8, framerate=30/1; "
      "video/x-raw(memory:CUDAMemory), format=BGR10A2_LE, width=8, height=8, "
      "framerate=30/1");
  assert_caps_equal (src_caps_of ("cudablur", "video/x-raw(memory:CUDAMemory)"
          ", format=RGB10A2_LE, width=8, height=8, framerate=30/1"),
      "video/x-raw(memory:CUDAMemory), format=RGB10A2_LE, width=8, height=8, "
      "framerate=30/1; video/x-raw, format=RGB10A2_LE, width=8, height=8, "
      "framerate=30/1");
}

GST_END_TEST;

GST_START_TEST (test_hist_properties_and_caps)
{
  GstElement *e = gst_element_factory_make ("cudahist", NULL);
  static const gchar *playing[] = { "bins", "interval", "post-messages",
    "attach-meta", "roi-x", "roi-y", "roi-width", "roi-height"
  };
  gboolean post, meta;
  guint64 interval;
  guint bins, roi;
  guint i;
  GstCaps *caps;

  g_object_get (e, "bins", &bins, "interval", &interval, "post-messages",
      &post, "attach-meta", &meta, "roi-width", &roi, NULL);
  fail_unless_equals_int (bins, 0);     /* 2^min(depth, 10) */
  fail_unless (interval == 0 && post && !meta && roi == 0);
  for (i = 0; i < G_N_ELEMENTS (playing); i++) {
    GParamSpec *pspec = g_object_class_find_property (G_OBJECT_GET_CLASS (e),
        playing[i]);
    fail_unless (pspec != NULL, "%s", playing[i]);
    fail_unless (pspec->flags & GST_PARAM_MUTABLE_PLAYING, "%s", playing[i]);
    fail_unless (strlen (g_param_spec_get_blurb (pspec)) > 10);
  }
  fail_unless_equals_int (G_PARAM_SPEC_UINT (g_object_class_find_property
          (G_OBJECT_GET_CLASS (e), "bins"))->maximum, 4096);
  /* the custom meta is registered with the element */
  fail_unless (gst_meta_get_info ("GstCudaHistMeta") != NULL);
  gst_object_unref (e);

  /* analysis: the output caps are the input's */
  assert_caps_equal (src_caps_of ("cudahist", "video/x-raw, format=NV12, "
          "width=33, height=17, framerate=30/1"),
      "video/x-raw, format=NV12, width=33, height=17, framerate=30/1");
  assert_caps_equal (src_caps_of ("cudahist", "video/x-raw(memory:CUDAMemory)"
          ", format=RGBA, width=8, height=8, framerate=30/1"),
      "video/x-raw(memory:CUDAMemory), format=RGBA, width=8, height=8, "
      "framerate=30/1");
  /* 10 to 16 bits: the formats of 16-bit words and the packed 10-bit RGB,
   * in both memory types (GRAY16_LE in system memory only), and no
   * big-endian words */
  assert_caps_equal (src_caps_of ("cudahist", "video/x-raw, "
          "format={P010_10LE, GRAY16_LE, BGR10A2_LE, GRAY16_BE}, width=8, "
          "height=8, framerate=30/1"), "video/x-raw, format={P010_10LE, "
      "GRAY16_LE, BGR10A2_LE}, width=8, height=8, framerate=30/1");
  assert_caps_equal (src_caps_of ("cudahist", "video/x-raw(memory:CUDAMemory)"
          ", format={P010_10LE, P016_LE, I420_10LE, Y444_16LE, GRAY16_LE, "
          "RGB10A2_LE, BGR10A2_LE}, width=8, height=8, framerate=30/1"),
      "video/x-raw(memory:CUDAMemory), format={P010_10LE, P016_LE, "
      "I420_10LE, Y444_16LE, RGB10A2_LE, BGR10A2_LE}, width=8, height=8, "
      "framerate=30/1");
  /* cudasum: the same formats */
  caps = src_caps_of ("cudasum", "video/x-raw, format={P010_10LE, "
      "GRAY16_LE, RGB10A2_LE, GRAY16_BE}, width=8, height=8, "
      "framerate=30/1");
  assert_caps_equal (caps, "video/x-raw, format={P010_10LE, GRAY16_LE, "
      "RGB10A2_LE}, width=8, height=8, framerate=30/1");
}

GST_END_TEST;

/* Going to PAUSED without a usable device fails with an element error that
 * names the cause, and the element can be shut down cleanly. */
static void
check_start_error (const gchar * name)
{
  GstElement *e = gst_element_factory_make (name, NULL);
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  gboolean gpu = cf_test_gpu_available ();

  if (gpu)
    g_object_set (e, "cuda-device-id", 4096, NULL);
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  fail_unless (GST_MESSAGE_SRC (msg) == GST_OBJECT (e));
  gst_message_parse_error (msg, &err, NULL);
  g_print ("%s: %s\n", gpu ? "bad cuda-device-id" : "no GPU", err->message);
  if (gpu) {
    fail_unless_equals_string (err->message,
        "CUDA device 4096 does not exist.");
  } else {
    fail_unless (g_str_equal (err->message,
            "The CUDA driver library could not be loaded.")
        || g_str_equal (err->message, "No CUDA device found."), "%s",
        err->message);
  }
  g_clear_error (&err);
  gst_message_unref (msg);

  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_NULL),
      GST_STATE_CHANGE_SUCCESS);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_START_TEST (test_start_error_names_the_cause)
{
  check_start_error ("cudagray");
  /* an analysis element also stops its results thread cleanly */
  check_start_error ("cudahist");
}

GST_END_TEST;

CF_TEST_SUITE (elements_suite, "elements",
    CF_TEST_CASE ("general", 0),
    CF_TEST (test_registered_and_documented),
    CF_TEST (test_properties),
    CF_TEST (test_caps_transform),
    CF_TEST (test_blur_properties_and_caps),
    CF_TEST (test_hist_properties_and_caps),
    CF_TEST (test_start_error_names_the_cause));

GST_CHECK_MAIN (elements);
