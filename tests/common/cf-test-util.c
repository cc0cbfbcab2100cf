/* The helpers shared by the tests: see cf-test-util.h. */
#include "cf-test-util.h"

#include <math.h>

GRand *rand_;
const gchar *cf_test_skip_reason;

gboolean
cf_test_gpu_available (void)
{
  int n = 0;

  return gst_cuda_load_library () && CuInit (0) == CUDA_SUCCESS &&
      CuDeviceGetCount (&n) == CUDA_SUCCESS && n > 0;
}

gboolean
cf_test_element_exists (const gchar * name)
{
  GstElementFactory *f = gst_element_factory_find (name);

  if (f)
    gst_object_unref (f);
  return f != NULL;
}

GRand *
cf_test_rand (void)
{
  const gchar *env = g_getenv ("CF_TEST_SEED");
  guint32 seed = env ? (guint32) g_ascii_strtoull (env, NULL, 10) :
      (guint32) g_get_real_time ();

  g_print ("random seed %u (set CF_TEST_SEED=%u to repeat)\n", seed, seed);
  return g_rand_new_with_seed (seed);
}

void
cf_test_fill_random (GRand * rand, guint8 * data, gsize size)
{
  gsize i = 0;

  for (; i + 4 <= size; i += 4) {
    guint32 v = g_rand_int (rand);
    memcpy (data + i, &v, 4);
  }
  for (; i < size; i++)
    data[i] = (guint8) g_rand_int (rand);
}

void
cf_test_plane_extent (const GstVideoInfo * info, guint plane,
    gsize * row_bytes, guint * rows)
{
  gint comp[GST_VIDEO_MAX_COMPONENTS];

  gst_video_format_info_component (info->finfo, plane, comp);
  *row_bytes = (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0]) *
      GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
  *rows = GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0]);
}

GstBuffer *
cf_test_make_frame (GstVideoFormat format, gint width, gint height,
    guint pad, gboolean solid, GRand * rand)
{
  GstVideoInfo info;
  GstBuffer *buf;
  GstMapInfo map;
  gsize offset = 0;
  guint p;

  gst_video_info_set_format (&info, format, width, height);
  if (pad) {
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      gsize row_bytes;
      guint rows;

      cf_test_plane_extent (&info, p, &row_bytes, &rows);
      info.stride[p] += pad;
      info.offset[p] = offset;
      offset += (gsize) info.stride[p] * rows;
    }
    info.size = offset;
  }

  buf = gst_buffer_new_allocate (NULL, GST_VIDEO_INFO_SIZE (&info), NULL);
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  cf_test_fill_random (rand, map.data, map.size);
  if (solid) {
    guint8 colour[16];

    cf_test_fill_random (rand, colour, sizeof (colour));
    for (p = 0; p < GST_VIDEO_INFO_N_PLANES (&info); p++) {
      gsize row_bytes, x;
      guint rows, y;
      gint pstride = GST_VIDEO_FORMAT_INFO_PSTRIDE (info.finfo, p == 0 ? 0 : 1);

      cf_test_plane_extent (&info, p, &row_bytes, &rows);
      for (y = 0; y < rows; y++) {
        guint8 *row = map.data + info.offset[p] + (gsize) y * info.stride[p];
        for (x = 0; x < row_bytes; x++)
          row[x] = colour[(x % MAX (pstride, 1)) + 4 * p];
      }
    }
  }
  gst_buffer_unmap (buf, &map);

  if (pad)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE, format,
        width, height, GST_VIDEO_INFO_N_PLANES (&info), info.offset,
        info.stride);
  return buf;
}

guint8 *
cf_test_reference_gray (GstBuffer * in, GstVideoFormat format, gint width,
    gint height, CfGrayMatrix matrix)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  guint8 *out = g_malloc ((gsize) width * height);
  const guint8 *src;
  gint stride;

  gst_video_info_set_format (&info, format, width, height);
  g_assert (gst_video_frame_map (&frame, &info, in, GST_MAP_READ));
  src = GST_VIDEO_FRAME_PLANE_DATA (&frame, 0);
  stride = GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0);

  if (GST_VIDEO_INFO_IS_RGB (&info)) {
    CfPackedLayout layout;

    layout.bytes_per_pixel = GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0);
    layout.r = GST_VIDEO_INFO_COMP_POFFSET (&info, 0);
    layout.g = GST_VIDEO_INFO_COMP_POFFSET (&info, 1);
    layout.b = GST_VIDEO_INFO_COMP_POFFSET (&info, 2);
    cf_ref_gray_from_packed (src, stride, out, width, width, height, layout,
        matrix);
  } else {
    gint y;
    for (y = 0; y < height; y++)
      memcpy (out + (gsize) y * width, src + (gsize) y * stride, width);
  }
  gst_video_frame_unmap (&frame);
  return out;
}

guint64
cf_test_count_plane_mismatches (GstBuffer * buf, const GstVideoInfo * info,
    guint plane, const guint8 * expected, gsize row_bytes, guint rows)
{
  GstVideoFrame frame;
  guint64 bad = 0;
  guint y;
  gsize x;

  g_assert (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  for (y = 0; y < rows; y++) {
    const guint8 *row = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        plane) + (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, plane);
    for (x = 0; x < row_bytes; x++) {
      guint8 want = expected ? expected[y * row_bytes + x] : 128;
      if (row[x] != want) {
        if (bad == 0)
          g_printerr ("plane %u (%" G_GSIZE_FORMAT ", %u): got %u, want %u\n",
              plane, x, y, row[x], want);
        bad++;
      }
    }
  }
  gst_video_frame_unmap (&frame);
  return bad;
}

GstStructure *
cf_test_next_result (GstBus * bus, GstClockTime timeout)
{
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, timeout,
      GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
  GstStructure *s;

  if (!msg)
    return NULL;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    fail ("error message: %s", err->message);
  }
  s = gst_structure_copy (gst_message_get_structure (msg));
  gst_message_unref (msg);
  return s;
}

GstHarness *
cf_test_new_harness (const gchar * launch, GstBus ** bus)
{
  GstHarness *h = gst_harness_new_parse (launch);

  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  return h;
}

void
cf_test_free_harness (GstHarness * h, GstBus * bus)
{
  gst_harness_teardown (h);
  gst_bus_set_flushing (bus, TRUE);
  gst_object_unref (bus);
}

gboolean
cf_test_frames_equal (GstBuffer * a, GstBuffer * b, const GstVideoInfo * info)
{
  GstVideoFrame fa, fb;
  gboolean same = TRUE;
  guint p, y;

  fail_unless (gst_video_frame_map (&fa, (GstVideoInfo *) info, a,
          GST_MAP_READ));
  fail_unless (gst_video_frame_map (&fb, (GstVideoInfo *) info, b,
          GST_MAP_READ));
  for (p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    gsize row_bytes;
    guint rows;

    cf_test_plane_extent (info, p, &row_bytes, &rows);
    for (y = 0; y < rows && same; y++)
      same = memcmp ((guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fa, p) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fa, p),
          (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&fb, p) +
          (gsize) y * GST_VIDEO_FRAME_PLANE_STRIDE (&fb, p), row_bytes) == 0;
  }
  gst_video_frame_unmap (&fa);
  gst_video_frame_unmap (&fb);
  return same;
}

GstBuffer *
make_frame (GstVideoFormat format, gint w, gint h, guint pad, FrameKind kind)
{
  GstBuffer *buf = cf_test_make_frame (format, w, h, pad,
      kind == FRAME_SOLID, rand_);

  if (kind == FRAME_GRADIENT) {
    GstMapInfo map;
    gsize i;
    gst_buffer_map (buf, &map, GST_MAP_WRITE);
    for (i = 0; i < map.size; i++)
      map.data[i] = (guint8) (i / 5);
    gst_buffer_unmap (buf, &map);
  }
  return buf;
}

gchar *
cf_test_roi_launch (const gchar * element, const Roi * roi)
{
  return g_strdup_printf ("%s roi-x=%u roi-y=%u roi-width=%u roi-height=%u",
      element, roi->x, roi->y, roi->w, roi->h);
}

GstStructure *
cf_test_message_of (const gchar * launch, GstBuffer * in,
    const GstVideoInfo * info, const gchar * what)
{
  GstBus *bus;
  GstHarness *h = cf_test_new_harness (launch, &bus);
  GstBuffer *copy = gst_buffer_copy_deep (in), *out;
  GstStructure *s;

  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  /* untouched: system memory frames are the very buffer pushed */
  if (strstr (launch, "cudaupload") == NULL)
    fail_unless (out == in, "%s: not passed through", what);
  fail_unless (cf_test_frames_equal (out, copy, info), "%s: frame modified",
      what);
  s = cf_test_next_result (bus, 10 * GST_SECOND);
  fail_unless (s != NULL, "%s: no message", what);
  gst_buffer_unref (out);
  gst_buffer_unref (copy);
  cf_test_free_harness (h, bus);
  return s;
}

GstHarness *
cf_test_timed_harness (const gchar * launch, GstVideoFormat format,
    gint width, gint height, GstBus ** bus)
{
  GstHarness *h = cf_test_new_harness (launch, bus);
  GstVideoInfo info;
  GstSegment segment;

  gst_video_info_set_format (&info, format, width, height);
  info.fps_n = 30;
  info.fps_d = 1;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.base = 10 * GST_SECOND;
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  return h;
}

void
cf_test_push_timed (GstHarness * h, GstBuffer * frame, guint i)
{
  GstBuffer *buf = gst_buffer_copy_deep (frame);

  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, 30);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (i + 1, GST_SECOND, 30) -
      GST_BUFFER_PTS (buf);
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
}

GstStructure *
cf_test_meta_result (GstHarness * h, GstBuffer * in, const gchar * meta_name,
    const gchar * name)
{
  GstCustomMeta *meta;
  GstStructure *s;
  GstBuffer *out;

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  meta = gst_buffer_get_custom_meta (out, meta_name);
  fail_unless (meta != NULL, "no %s on the frame", meta_name);
  s = gst_structure_copy (gst_custom_meta_get_structure (meta));
  gst_structure_set_name (s, name);
  gst_buffer_unref (out);
  return s;
}

int
cf_test_run_gpu_suite (int *argc, char ***argv, gboolean (*gpu_present) (void),
    Suite * (*make_suite) (void), const gchar * name, const gchar * file)
{
  int ret;

  gst_check_init (argc, argv);
  if (!gpu_present ()) {
    g_print ("SKIP: %s\n", cf_test_skip_reason ? cf_test_skip_reason :
        "this test needs a CUDA GPU and there is none here");
    return CF_TEST_SKIP;
  }
  rand_ = cf_test_rand ();
  ret = gst_check_run_suite (make_suite (), name, file);
  g_rand_free (rand_);
  return ret;
}

Suite *
cf_test_suite (const gchar * name, const CfTestEntry * entries, guint n_entries)
{
  Suite *s = suite_create (name);
  TCase *tc = NULL;
  guint i;

  for (i = 0; i < n_entries; i++) {
    const CfTestEntry *e = &entries[i];

    if (!e->fn) {
      tc = tcase_create (e->name);
      suite_add_tcase (s, tc);
      if (e->timeout > 0)
        tcase_set_timeout (tc, e->timeout);
      continue;
    }
    g_assert (tc != NULL);
    /* tcase_add_test() would name every test "e->fn" */
    _tcase_add_test (tc, e->fn, e->name, 0, 0, e->start, e->end);
  }
  return s;
}

guint
cf_test_array_length (const GstStructure * s, const gchar * field)
{
  const GValue *v = gst_structure_get_value (s, field);

  fail_unless (v != NULL, "no field %s", field);
  if (GST_VALUE_HOLDS_ARRAY (v))
    return gst_value_array_get_size (v);
  fail_unless (GST_VALUE_HOLDS_BUFFER (v), "field %s is a %s, neither a "
      "GstValueArray nor a GstBuffer", field, G_VALUE_TYPE_NAME (v));
  fail_unless (gst_buffer_get_size (gst_value_get_buffer (v)) % 8 == 0,
      "field %s: a buffer of %" G_GSIZE_FORMAT " bytes", field,
      gst_buffer_get_size (gst_value_get_buffer (v)));
  return gst_buffer_get_size (gst_value_get_buffer (v)) / 8;
}

/* value @i of @field, of @type: its 8 bytes into @out */
static void
array_value (const GstStructure * s, const gchar * field, guint i,
    GType type, gpointer out)
{
  const GValue *v = gst_structure_get_value (s, field);

  fail_unless (i < cf_test_array_length (s, field), "%s[%u]: past the end",
      field, i);
  if (GST_VALUE_HOLDS_BUFFER (v)) {
    fail_unless (gst_buffer_extract (gst_value_get_buffer (v), (gsize) i * 8,
            out, 8) == 8);
    return;
  }
  v = gst_value_array_get_value (v, i);
  fail_unless (G_VALUE_HOLDS (v, type), "%s[%u] is a %s", field, i,
      G_VALUE_TYPE_NAME (v));
  if (type == G_TYPE_UINT64)
    *(guint64 *) out = g_value_get_uint64 (v);
  else
    *(gdouble *) out = g_value_get_double (v);
}

guint64
cf_test_array_uint64 (const GstStructure * s, const gchar * field, guint i)
{
  guint64 value;

  array_value (s, field, i, G_TYPE_UINT64, &value);
  return value;
}

gdouble
cf_test_array_double (const GstStructure * s, const gchar * field, guint i)
{
  gdouble value;

  array_value (s, field, i, G_TYPE_DOUBLE, &value);
  return value;
}

void
cf_test_check_array_format (const GstStructure * s, const gchar * field,
    const gchar * launch, const gchar * what)
{
  const GValue *v = gst_structure_get_value (s, field);
  gboolean buffer = strstr (launch, "array-format=buffer") != NULL;

  fail_unless (v != NULL, "%s: no field %s", what, field);
  fail_unless (buffer ? GST_VALUE_HOLDS_BUFFER (v) : GST_VALUE_HOLDS_ARRAY (v),
      "%s: %s is a %s, not a %s", what, field, G_VALUE_TYPE_NAME (v),
      buffer ? "GstBuffer" : "GstValueArray");
}

guint
cf_test_uint_at (const GstStructure * s, const gchar * field, guint i)
{
  const GValue *arr = gst_structure_get_value (s, field);

  fail_unless (arr != NULL, "no field %s", field);
  return g_value_get_uint (gst_value_array_get_value (arr, i));
}

gdouble
cf_test_double_at (const GstStructure * s, const gchar * field, guint i)
{
  const GValue *arr = gst_structure_get_value (s, field);

  fail_unless (arr != NULL, "no field %s", field);
  return g_value_get_double (gst_value_array_get_value (arr, i));
}

void
cf_test_check_close (gdouble got, gdouble want, const gchar * what,
    const gchar * field, guint i)
{
  fail_unless (fabs (got - want) <= 1e-9 * MAX (fabs (want), 1e-300) ||
      got == want, "%s: %s[%u] = %.17g, want %.17g", what, field, i, got, want);
}
