/* cudasum's light levels of PQ and HLG video (#48, docs/design/hdr.md),
 * through GstHarness: `max-light` and `average-light` against the CPU's,
 * made here from the frame's samples, the chroma sample that covers each
 * pixel and the caps' matrix and range: for PQ the counts of each pixel's
 * code of max(R', G', B'), for HLG each pixel's light (cf_hlg_light) on
 * a display of hlg-peak; solid frames at known light within a code (PQ:
 * 0, 100, 1000 and 10000 cd/m2; HLG: black, BT.2408's 75 % grey at 203
 * cd/m2 and peak white, on displays of 1000 and 2000); `max-cll` and
 * `max-fall` as running maxima over frames, reset by a flush; hlg-peak
 * changed between frames; intervals and meta; CUDA memory; and no light
 * fields, with a warning, on streams that are not HDR Y'CbCr above 8
 * bits or HDR packed 10-bit RGB.  Every Y'CbCr format of 16-bit words and
 * RGB10A2_LE and BGR10A2_LE (each sample's code, full and narrow range;
 * greys at known light), odd sizes, padded strides, random words and
 * real-looking frames, regions starting on odd pixels. */
#include <math.h>
#include <gst/check/gstcheck.h>

#include "cf-hbd.h"
#include "cf-test-util.h"
#include "gstcudafiltershdr.h"

/* the Y'CbCr formats of words */
static const GstVideoFormat yuv_formats[] = {
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P012_LE,
  GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_Y444_10LE,
  GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE,
};

/* the transfers measured */
typedef enum
{
  PQ,
  HLG,
} Transfer;

/* BT.2100's caps of PQ or HLG; of packed R'G'B', the RGB matrix and
 * full range unless @full_range is FALSE */
static void
hdr_info (GstVideoInfo * info, GstVideoFormat format, gint w, gint h,
    gboolean full_range, Transfer transfer)
{
  gst_video_info_set_format (info, format, w, h);
  fail_unless (gst_video_colorimetry_from_string (&info->colorimetry,
          transfer == HLG ? "bt2100-hlg" : "bt2100-pq"));
  if (full_range)
    info->colorimetry.range = GST_VIDEO_COLOR_RANGE_0_255;
  if (cf_hbd_is_rgb10a2 (format)) {
    info->colorimetry.matrix = GST_VIDEO_COLOR_MATRIX_RGB;
    info->colorimetry.range = full_range ? GST_VIDEO_COLOR_RANGE_0_255 :
        GST_VIDEO_COLOR_RANGE_16_235;
  }
  info->fps_n = 30;
  info->fps_d = 1;
}

static void
pq_info (GstVideoInfo * info, GstVideoFormat format, gint w, gint h,
    gboolean full_range)
{
  hdr_info (info, format, w, h, full_range, PQ);
}

static const Roi whole = { 0, 0, 0, 0 };

/* The CPU's light of frames: for PQ their counts of codes, for HLG their
 * largest and summed light with tables for @peak */
typedef struct
{
  Transfer transfer;
  gdouble peak;
  CfHlgTables *tables;
  guint64 *counts;
  guint64 hlg_max, hlg_sum, pixels;
} Expected;

static void
expected_init (Expected * e, Transfer transfer, gdouble peak)
{
  memset (e, 0, sizeof (*e));
  e->transfer = transfer;
  e->peak = peak;
  e->counts = g_new0 (guint64, GST_CUDA_FILTERS_LIGHT_CODES);
}

static void
expected_clear (Expected * e)
{
  g_free (e->counts);
  g_free (e->tables);
}

/* Adds @buf's pixels in @roi. */
static void
expected_add (Expected * e, GstBuffer * buf, const GstVideoInfo * info,
    const Roi * roi)
{
  GstVideoFrame frame;
  guint depth = GST_VIDEO_INFO_COMP_DEPTH (info, 0);
  gint width = GST_VIDEO_INFO_WIDTH (info), height =
      GST_VIDEO_INFO_HEIGHT (info);
  gint sx = GST_VIDEO_FORMAT_INFO_W_SUB (info->finfo, 1);
  gint sy = GST_VIDEO_FORMAT_INFO_H_SUB (info->finfo, 1);
  gint x0 = MIN ((gint) roi->x, width), y0 = MIN ((gint) roi->y, height);
  gint x1 = roi->w ? MIN (x0 + (gint) roi->w, width) : width;
  gint y1 = roi->h ? MIN (y0 + (gint) roi->h, height) : height;
  gboolean packed = cf_hbd_is_rgb10a2 (GST_VIDEO_INFO_FORMAT (info));
  GstCudaFiltersMaxRgb m;
  GstCudaFiltersRgbScale scale;
  gdouble kr, kb;
  gint x, y;

  /* (packed R'G'B': the luminance weights of its primaries' matrix,
   * BT.709's or else BT.2020's) */
  fail_unless (gst_video_color_matrix_get_Kr_Kb (!packed ?
          info->colorimetry.matrix : info->colorimetry.primaries ==
          GST_VIDEO_COLOR_PRIMARIES_BT709 ? GST_VIDEO_COLOR_MATRIX_BT709 :
          GST_VIDEO_COLOR_MATRIX_BT2020, &kr, &kb));
  if (packed)
    fail_unless (gst_cuda_filters_rgb_scale_init (&scale, depth,
            info->colorimetry.range != GST_VIDEO_COLOR_RANGE_16_235));
  else
    fail_unless (gst_cuda_filters_max_rgb_init (&m, depth,
            info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255, kr, kb));
  if (e->transfer == HLG && !e->tables) {
    e->tables = g_new (CfHlgTables, 1);
    fail_unless (gst_cuda_filters_hlg_init (e->tables, kr, kb, e->peak));
  }
  fail_unless (gst_video_frame_map (&frame, (GstVideoInfo *) info, buf,
          GST_MAP_READ));
  for (y = y0; y < y1; y++)
    for (x = x0; x < x1; x++) {
      if (packed) {
        guint32 rgb[3], codes[3], light;
        guint c;

        for (c = 0; c < 3; c++) {
          rgb[c] = cf_hbd_value (&frame, c, x, y);
          codes[c] = cf_rgb_sample_code (&scale, rgb[c]);
        }
        if (e->transfer == PQ) {
          e->counts[gst_cuda_filters_max_rgb_code_rgb (&scale, rgb[0], rgb[1],
                  rgb[2])]++;
          continue;
        }
        light = cf_hlg_light (e->tables, codes);
        e->hlg_max = MAX (e->hlg_max, light);
        e->hlg_sum += light;
        e->pixels++;
        continue;
      }
      {
        gint32 luma = (gint32) cf_hbd_value (&frame, 0, x, y);
        gint32 cb = (gint32) cf_hbd_value (&frame, 1, x >> sx, y >> sy);
        gint32 cr = (gint32) cf_hbd_value (&frame, 2, x >> sx, y >> sy);
        guint32 codes[3], light;

        if (e->transfer == PQ) {
          e->counts[gst_cuda_filters_max_rgb_code (&m, luma, cb, cr)]++;
          continue;
        }
        cf_rgb_codes (&m, luma, cb, cr, codes);
        light = cf_hlg_light (e->tables, codes);
        e->hlg_max = MAX (e->hlg_max, light);
        e->hlg_sum += light;
        e->pixels++;
      }
    }
  gst_video_frame_unmap (&frame);
}

static void
expected_levels (const Expected * e, gdouble * max_light,
    gdouble * average_light)
{
  if (e->transfer == PQ)
    gst_cuda_filters_light_levels (e->counts,
        gst_cuda_filters_light_table_pq (), max_light, average_light);
  else
    gst_cuda_filters_hlg_light_levels (e->hlg_max, e->hlg_sum, e->pixels,
        e->peak, max_light, average_light);
}

/* @e: the CPU's light of @in alone (to expected_clear ()); @cll and
 * @fall, the running MaxCLL and MaxFALL, raised to its levels */
static void
expected_frame (Expected * e, Transfer transfer, gdouble peak, GstBuffer * in,
    const GstVideoInfo * info, gdouble * cll, gdouble * fall)
{
  gdouble max_light, average_light;

  expected_init (e, transfer, peak);
  expected_add (e, in, info, &whole);
  expected_levels (e, &max_light, &average_light);
  *cll = MAX (*cll, max_light);
  *fall = MAX (*fall, average_light);
}

static gdouble
get_double (const GstStructure * s, const gchar * field)
{
  gdouble v = -1;

  fail_unless (gst_structure_get_double (s, field, &v), "no %s in %"
      GST_PTR_FORMAT, field, s);
  return v;
}

/* the light fields of @s against @e's; max-cll and max-fall against the
 * values given.  @tolerance: of average-light, relative (HLG's intervals
 * add their frames' light in cd/m2) */
static void
check_light (const GstStructure * s, const Expected * e, gdouble max_cll,
    gdouble max_fall, gdouble tolerance, const gchar * what)
{
  gdouble max_light, average_light;

  expected_levels (e, &max_light, &average_light);
  fail_unless (get_double (s, "max-light") == max_light,
      "%s: max-light %.17g, want %.17g", what, get_double (s, "max-light"),
      max_light);
  fail_unless (fabs (get_double (s, "average-light") - average_light) <=
      tolerance * average_light, "%s: average-light %.17g, want %.17g", what,
      get_double (s, "average-light"), average_light);
  fail_unless (get_double (s, "max-cll") == max_cll,
      "%s: max-cll %.17g, want %.17g", what, get_double (s, "max-cll"),
      max_cll);
  fail_unless (get_double (s, "max-fall") == max_fall,
      "%s: max-fall %.17g, want %.17g", what, get_double (s, "max-fall"),
      max_fall);
}

static GstBuffer *
make_content (GstVideoFormat format, gint w, gint h, guint pad, gboolean real)
{
  GstBuffer *buf = cf_test_make_frame (format, w, h, pad, FALSE, rand_);
  GstVideoInfo info;
  GstVideoFrame frame;

  if (!real)
    return buf;                 /* random words, stray bits too */
  gst_video_info_set_format (&info, format, w, h);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  cf_hbd_render (&frame, g_rand_int_range (rand_, 0, 1000), g_rand_int (rand_));
  gst_video_frame_unmap (&frame);
  return buf;
}

/* @launch with `hlg-peak=@peak` after its `light-levels=true` for HLG */
static gchar *
with_peak (const gchar * launch, Transfer transfer, gdouble peak)
{
  const gchar *at = strstr (launch, "light-levels=true");
  gsize n;

  fail_unless (at != NULL, "%s", launch);
  if (transfer != HLG)
    return g_strdup (launch);
  n = at - launch + strlen ("light-levels=true");
  return g_strdup_printf ("%.*s hlg-peak=%g%s", (gint) n, launch, peak,
      launch + n);
}

/* One frame through @launch (with `hlg-peak=@peak` for HLG): its light
 * against the CPU's */
static void
run_frame (const gchar * launch, Transfer transfer, gdouble peak,
    GstVideoFormat format, gint w, gint h, guint pad, gboolean real,
    gboolean full_range, const Roi * roi)
{
  GstBuffer *in = make_content (format, w, h, pad, real);
  gchar *full = with_peak (launch, transfer, peak);
  gchar *what = g_strdup_printf ("%s %s %s %dx%d pad %u %s %s range", full,
      transfer == HLG ? "HLG" : "PQ", gst_video_format_to_string (format), w,
      h, pad, real ? "real" : "random", full_range ? "full" : "narrow");
  gdouble max_light, average_light;
  GstVideoInfo info;
  GstStructure *s;
  Expected e;

  expected_init (&e, transfer, peak);
  hdr_info (&info, format, w, h, full_range, transfer);
  s = cf_test_message_of (full, in, &info, what);
  expected_add (&e, in, &info, roi);
  /* one frame: MaxCLL and MaxFALL are its own */
  expected_levels (&e, &max_light, &average_light);
  check_light (s, &e, max_light, average_light, 0, what);
  expected_clear (&e);
  gst_structure_free (s);
  gst_buffer_unref (in);
  g_free (what);
  g_free (full);
}


GST_START_TEST (test_every_format)
{
  guint f;

  Transfer t;

  for (t = PQ; t <= HLG; t++)
    for (f = 0; f < G_N_ELEMENTS (yuv_formats); f++) {
      GstVideoFormat format = yuv_formats[f];
      gdouble peak = f % 2 ? 1000 : 400 + g_rand_int_range (rand_, 0, 9600);

      run_frame ("cudasum light-levels=true", t, peak, format, 1, 1, 0,
          FALSE, FALSE, &whole);
      run_frame ("cudasum light-levels=true", t, peak, format, 3, 7, 37,
          FALSE, TRUE, &whole);
      run_frame ("cudasum light-levels=true", t, peak, format, 1921, 1081,
          0, TRUE, FALSE, &whole);
      run_frame ("cudasum light-levels=true percentiles=true detect=black",
          t, peak, format, 333, 187, 64, TRUE, TRUE, &whole);
    }
}

GST_END_TEST;

GST_START_TEST (test_regions)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_P010_10LE,
    GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_Y444_16LE,
  };
  guint f, r;

  for (f = 0; f < G_N_ELEMENTS (formats); f++)
    for (r = 0; r < G_N_ELEMENTS (cf_test_rois); r++) {
      const Roi *roi = &cf_test_rois[r];
      gchar *launch = cf_test_roi_launch ("cudasum light-levels=true",
          roi);

      run_frame (launch, (f + r) % 2 ? HLG : PQ, 1000, formats[f], 301, 211,
          12, r % 2, FALSE, roi);
      g_free (launch);
    }
}

GST_END_TEST;

GST_START_TEST (test_cuda_memory)
{
  guint f;

  for (f = 0; f < cf_hbd_n_cuda_word_formats; f++) {
    if (!GST_VIDEO_FORMAT_INFO_IS_YUV (gst_video_format_get_info
            (cf_hbd_cuda_word_formats[f])))
      continue;
    run_frame ("cudaupload ! cudasum light-levels=true ! cudadownload",
        f % 2 ? HLG : PQ, 1000, cf_hbd_cuda_word_formats[f], 1921, 1081, 0,
        TRUE, FALSE, &whole);
    run_frame ("cudaupload ! cudasum light-levels=true ! cudadownload",
        f % 2 ? PQ : HLG, 1000, cf_hbd_cuda_word_formats[f], 33, 17, 0,
        FALSE, FALSE, &whole);
  }
}

GST_END_TEST;

/* A P010 frame (narrow range) whose top @bright_rows rows are grey at
 * luma @bright and the rest at @dark, chroma neutral. */
static GstBuffer *
grey_frame (gint w, gint h, guint bright, gint bright_rows, guint dark)
{
  GstBuffer *buf = cf_test_make_frame (GST_VIDEO_FORMAT_P010_10LE, w, h, 0,
      FALSE, rand_);
  GstVideoInfo info;
  GstVideoFrame frame;
  gint x, y;

  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_P010_10LE, w, h);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      cf_hbd_set_value (&frame, 0, x, y, y < bright_rows ? bright : dark);
  for (y = 0; y < (h + 1) / 2; y++)
    for (x = 0; x < (w + 1) / 2; x++) {
      cf_hbd_set_value (&frame, 1, x, y, 512);
      cf_hbd_set_value (&frame, 2, x, y, 512);
    }
  gst_video_frame_unmap (&frame);
  return buf;
}

/* Grey frames at known light: the measure is that light within the
 * light of one code's step, and a half-bright frame averages half. */
GST_START_TEST (test_known_levels)
{
  static const gdouble levels[] = { 0.0, 100.0, 1000.0, 10000.0 };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (levels); i++) {
    gdouble e = gst_cuda_filters_pq_inverse_eotf (levels[i]);
    guint luma = (guint) lround (64 + 876 * e);
    /* the light of the sample, and of one code's step above and below */
    gdouble es = (luma - 64) / 876.0;
    gdouble light = gst_cuda_filters_pq_eotf (es);
    gdouble step = gst_cuda_filters_pq_eotf (MIN (es + 1.0 / 4095, 1.0)) -
        gst_cuda_filters_pq_eotf (MAX (es - 1.0 / 4095, 0.0));
    GstBuffer *in = grey_frame (64, 36, luma, 18, 64);
    gchar *what = g_strdup_printf ("%g cd/m2 (luma %u)", levels[i], luma);
    GstVideoInfo info;
    GstStructure *s;
    gdouble max_light;

    pq_info (&info, GST_VIDEO_FORMAT_P010_10LE, 64, 36, FALSE);
    s = cf_test_message_of ("cudasum light-levels=true", in, &info, what);
    max_light = get_double (s, "max-light");
    fail_unless (fabs (max_light - light) <= step, "%s: max-light %g, the "
        "sample's light %g", what, max_light, light);
    /* within the 10-bit sample's own step of the level asked for */
    fail_unless (fabs (light - levels[i]) <= levels[i] * 0.01 + 0.01,
        "%s: the sample's light %g", what, light);
    /* half the pixels at that light, half at 0 */
    fail_unless (fabs (get_double (s, "average-light") - max_light * 0.5) <=
        1e-12 * max_light, "%s: average-light %g", what,
        get_double (s, "average-light"));
    gst_structure_free (s);
    gst_buffer_unref (in);
    g_free (what);
  }
}

GST_END_TEST;

/* HLG grey frames at known light (BT.2100, BT.2408): black, 75 % grey
 * (203 cd/m2 on the 1000 cd/m2 display) and peak white, on displays of
 * 1000 and 2000 cd/m2, within the light of one code's step. */
GST_START_TEST (test_known_levels_hlg)
{
  static const gdouble signals[] = { 0.0, 0.75, 1.0 };
  static const gdouble peaks[] = { 1000.0, 2000.0 };
  guint i, p;

  for (p = 0; p < G_N_ELEMENTS (peaks); p++)
    for (i = 0; i < G_N_ELEMENTS (signals); i++) {
      gdouble gamma = gst_cuda_filters_hlg_gamma (peaks[p]);
      guint luma = (guint) lround (64 + 876 * signals[i]);
      /* a grey's display light: Lw Ys^gamma, Ys = E of its signal */
      gdouble light = peaks[p] *
          pow (gst_cuda_filters_hlg_inverse_oetf (signals[i]), gamma);
      gdouble step = peaks[p] * (pow (gst_cuda_filters_hlg_inverse_oetf
              (MIN (signals[i] + 1.0 / 4095, 1.0)), gamma) -
          pow (gst_cuda_filters_hlg_inverse_oetf (MAX (signals[i] -
                      1.0 / 4095, 0.0)), gamma));
      GstBuffer *in = grey_frame (64, 36, luma, 18, 64);
      gchar *launch = g_strdup_printf ("cudasum light-levels=true "
          "hlg-peak=%g", peaks[p]);
      gchar *what = g_strdup_printf ("HLG %g on %g cd/m2 (luma %u)",
          signals[i], peaks[p], luma);
      GstVideoInfo info;
      GstStructure *s;
      gdouble max_light;

      hdr_info (&info, GST_VIDEO_FORMAT_P010_10LE, 64, 36, FALSE, HLG);
      s = cf_test_message_of (launch, in, &info, what);
      max_light = get_double (s, "max-light");
      fail_unless (fabs (max_light - light) <= step + 1e-9, "%s: max-light "
          "%g, the signal's light %g", what, max_light, light);
      if (peaks[p] == 1000 && signals[i] == 0.75)
        fail_unless (fabs (max_light - 203) < 0.5, "%s: max-light %g, not "
            "BT.2408's 203 cd/m2", what, max_light);
      /* half the pixels at that light, half black */
      fail_unless (fabs (get_double (s, "average-light") - max_light * 0.5)
          <= 1e-12 * max_light, "%s: average-light %g", what,
          get_double (s, "average-light"));
      gst_structure_free (s);
      gst_buffer_unref (in);
      g_free (launch);
      g_free (what);
    }
}

GST_END_TEST;

static GstHarness *
hdr_harness (const gchar * launch, GstVideoFormat format, gint w, gint h,
    Transfer transfer, GstBus ** bus)
{
  GstHarness *harness = cf_test_new_harness (launch, bus);
  GstVideoInfo info;
  GstSegment segment;

  hdr_info (&info, format, w, h, FALSE, transfer);
  gst_harness_set_src_caps (harness, gst_video_info_to_caps (&info));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (harness,
          gst_event_new_segment (&segment)));
  return harness;
}

/* MaxCLL and MaxFALL: the running maxima of the frames' max-light and
 * average-light, from the start and again after a flush; an interval's
 * message and a frame's meta carry them too. */
GST_START_TEST (test_running_maxima)
{
  /* luma of the bright rows (of 36) and of the rest */
  static const guint frames[][3] = {
    {509, 4, 64}, {723, 2, 64}, {600, 30, 300}, {400, 36, 400},
  };
  const guint n = G_N_ELEMENTS (frames);
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = hdr_harness ("cudasum light-levels=true attach-meta=true",
      GST_VIDEO_FORMAT_P010_10LE, 64, 36, PQ, &bus);
  gdouble cll = 0, fall = 0;
  guint i, round;

  pq_info (&info, GST_VIDEO_FORMAT_P010_10LE, 64, 36, FALSE);
  for (round = 0; round < 2; round++) {
    cll = fall = 0;
    for (i = 0; i < n; i++) {
      GstBuffer *in = grey_frame (64, 36, frames[i][0], frames[i][1],
          frames[i][2]);
      gchar *what = g_strdup_printf ("round %u frame %u", round, i);
      GstStructure *s, *meta;
      Expected e;

      expected_frame (&e, PQ, 0, in, &info, &cll, &fall);
      GST_BUFFER_PTS (in) = gst_util_uint64_scale (i, GST_SECOND, 30);
      meta = cf_test_meta_result (h, in, "GstCudaSumMeta", "cudasum");
      check_light (meta, &e, cll, fall, 0, what);
      s = cf_test_next_result (bus, 10 * GST_SECOND);
      fail_unless (s != NULL, "%s: no message", what);
      check_light (s, &e, cll, fall, 0, what);
      expected_clear (&e);
      gst_structure_free (s);
      gst_structure_free (meta);
      gst_buffer_unref (in);
      g_free (what);
    }
    /* a flush starts them again */
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    {
      GstSegment segment;

      gst_segment_init (&segment, GST_FORMAT_TIME);
      fail_unless (gst_harness_push_event (h,
              gst_event_new_segment (&segment)));
    }
  }
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

/* hlg-peak changed between frames: each frame's light is for the peak
 * set when it came, MaxCLL the largest of those */
GST_START_TEST (test_hlg_peak_while_playing)
{
  static const gdouble peaks[] = { 1000, 2000, 400 };
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = hdr_harness ("cudasum light-levels=true",
      GST_VIDEO_FORMAT_P010_10LE, 64, 36, HLG, &bus);
  GstElement *sum = gst_harness_find_element (h, "cudasum");
  gdouble cll = 0, fall = 0;
  guint i;

  hdr_info (&info, GST_VIDEO_FORMAT_P010_10LE, 64, 36, FALSE, HLG);
  for (i = 0; i < G_N_ELEMENTS (peaks); i++) {
    GstBuffer *in = make_content (GST_VIDEO_FORMAT_P010_10LE, 64, 36, 0,
        TRUE);
    gchar *what = g_strdup_printf ("frame %u at %g cd/m2", i, peaks[i]);
    GstStructure *s;
    Expected e;

    g_object_set (sum, "hlg-peak", peaks[i], NULL);
    expected_frame (&e, HLG, peaks[i], in, &info, &cll, &fall);
    cf_test_push_timed (h, in, i);
    s = cf_test_next_result (bus, 10 * GST_SECOND);
    fail_unless (s != NULL, "%s: no message", what);
    check_light (s, &e, cll, fall, 0, what);
    expected_clear (&e);
    gst_structure_free (s);
    gst_buffer_unref (in);
    g_free (what);
  }
  gst_object_unref (sum);
  cf_test_free_harness (h, bus);
}

GST_END_TEST;

/* An interval's message: the light of all its frames' pixels */
static void
check_interval (Transfer transfer)
{
  GstVideoInfo info;
  GstBus *bus;
  GstHarness *h = hdr_harness ("cudasum light-levels=true interval=100000000",
      GST_VIDEO_FORMAT_I420_10LE, 333, 187, transfer, &bus);
  gdouble cll = 0, fall = 0;
  GstStructure *s;
  guint i, frames = 0;
  Expected all;

  expected_init (&all, transfer, 1000);
  hdr_info (&info, GST_VIDEO_FORMAT_I420_10LE, 333, 187, FALSE, transfer);
  /* 3 frames of 1/30 s: one interval of 0.1 s */
  for (i = 0; i < 3; i++) {
    GstBuffer *in = make_content (GST_VIDEO_FORMAT_I420_10LE, 333, 187, 8,
        TRUE);
    Expected own;

    expected_frame (&own, transfer, 1000, in, &info, &cll, &fall);
    expected_add (&all, in, &info, &whole);
    cf_test_push_timed (h, in, i);
    gst_buffer_unref (in);
    expected_clear (&own);
  }
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  s = cf_test_next_result (bus, 10 * GST_SECOND);
  fail_unless (s != NULL);
  fail_unless (gst_structure_get_uint (s, "frames", &frames));
  fail_unless_equals_int (frames, 3);
  check_light (s, &all, cll, fall, transfer == HLG ? 1e-12 : 0,
      "interval of 3 frames");
  gst_structure_free (s);
  expected_clear (&all);
  cf_test_free_harness (h, bus);
}

GST_START_TEST (test_interval)
{
  check_interval (PQ);
  check_interval (HLG);
}

GST_END_TEST;

/* Packed 10-bit RGB, both orders, PQ and HLG, full and narrow range:
 * every pixel's max(R', G', B') (PQ) or its three components (HLG),
 * odd sizes, padded strides, regions, CUDA memory; random words (alpha
 * too) and real-looking frames */
GST_START_TEST (test_packed_rgb)
{
  static const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_RGB10A2_LE,
    GST_VIDEO_FORMAT_BGR10A2_LE,
  };
  guint f, r;
  Transfer t;

  for (f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (t = PQ; t <= HLG; t++) {
      gdouble peak = t == HLG ? 400 + g_rand_int_range (rand_, 0, 9600) : 0;

      run_frame ("cudasum light-levels=true", t, peak, formats[f], 1, 1, 0,
          FALSE, TRUE, &whole);
      run_frame ("cudasum light-levels=true", t, peak, formats[f], 3, 7, 36,
          FALSE, FALSE, &whole);
      run_frame ("cudasum light-levels=true", t, peak, formats[f], 1921,
          1081, 0, TRUE, TRUE, &whole);
      run_frame ("cudasum light-levels=true percentiles=true detect=black",
          t, peak, formats[f], 333, 187, 64, TRUE, TRUE, &whole);
      run_frame ("cudaupload ! cudasum light-levels=true ! cudadownload", t,
          1000, formats[f], 1921, 1081, 0, TRUE, TRUE, &whole);
      run_frame ("cudaupload ! cudasum light-levels=true ! cudadownload", t,
          1000, formats[f], 33, 17, 0, FALSE, FALSE, &whole);
    }
    for (r = 0; r < G_N_ELEMENTS (cf_test_rois); r++) {
      const Roi *roi = &cf_test_rois[r];
      gchar *launch = cf_test_roi_launch ("cudasum light-levels=true", roi);

      run_frame (launch, (f + r) % 2 ? HLG : PQ, 1000, formats[f], 301, 211,
          12, r % 2, TRUE, roi);
      g_free (launch);
    }
  }
}

GST_END_TEST;

/* HLG packed R'G'B' with BT.709 primaries: Ys weighs R, G and B as
 * BT.709's matrix does, which moves the light of coloured pixels (a frame
 * of pure red, green and blue stripes, and a real-looking one) */
GST_START_TEST (test_packed_rgb_bt709_primaries)
{
  GstVideoFormat format = GST_VIDEO_FORMAT_RGB10A2_LE;
  guint f;

  for (f = 0; f < 2; f++) {
    GstBuffer *in = make_content (format, 64, 36, 0, TRUE);
    gchar *what = g_strdup_printf ("HLG RGB10A2 BT.709 primaries, %s",
        f ? "real-looking" : "stripes");
    gdouble max_light, average_light;
    GstVideoInfo info;
    GstStructure *s;
    Expected e, bt2020;

    if (f == 0) {
      GstVideoFrame frame;
      gint x, y;
      guint c;

      gst_video_info_set_format (&info, format, 64, 36);
      fail_unless (gst_video_frame_map (&frame, &info, in, GST_MAP_WRITE));
      for (y = 0; y < 36; y++)
        for (x = 0; x < 64; x++)
          for (c = 0; c < 3; c++)
            cf_hbd_set_value (&frame, c, x, y, c == (guint) x % 3 ? 900 : 40);
      gst_video_frame_unmap (&frame);
    }
    hdr_info (&info, format, 64, 36, TRUE, HLG);
    info.colorimetry.primaries = GST_VIDEO_COLOR_PRIMARIES_BT709;
    s = cf_test_message_of ("cudasum light-levels=true hlg-peak=1000", in,
        &info, what);
    expected_init (&e, HLG, 1000);
    expected_add (&e, in, &info, &whole);
    expected_levels (&e, &max_light, &average_light);
    check_light (s, &e, max_light, average_light, 0, what);
    /* (and not BT.2020's: the weights matter here) */
    info.colorimetry.primaries = GST_VIDEO_COLOR_PRIMARIES_BT2020;
    expected_init (&bt2020, HLG, 1000);
    expected_add (&bt2020, in, &info, &whole);
    fail_if (bt2020.hlg_sum == e.hlg_sum, "%s: BT.709's and BT.2020's "
        "weights give the same light", what);
    expected_clear (&bt2020);
    expected_clear (&e);
    gst_structure_free (s);
    gst_buffer_unref (in);
    g_free (what);
  }
}

GST_END_TEST;

/* A @format frame whose top @bright_rows rows are grey at @bright (R, G
 * and B) and the rest black */
static GstBuffer *
grey_rgb_frame (GstVideoFormat format, gint w, gint h, guint bright,
    gint bright_rows)
{
  GstBuffer *buf = cf_test_make_frame (format, w, h, 0, FALSE, rand_);
  GstVideoInfo info;
  GstVideoFrame frame;
  gint x, y;
  guint c;

  gst_video_info_set_format (&info, format, w, h);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE));
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      for (c = 0; c < 3; c++)
        cf_hbd_set_value (&frame, c, x, y, y < bright_rows ? bright : 0);
  gst_video_frame_unmap (&frame);
  return buf;
}

/* Packed R'G'B' greys at known light: PQ at 100 and 1000 cd/m2 (full
 * range), HLG's 75 % (BT.2408's 203 cd/m2 on a 1000 cd/m2 display) and
 * peak white (narrow range), each within the light of one code's step,
 * half a frame's pixels averaging half */
GST_START_TEST (test_known_levels_packed_rgb)
{
  static const struct
  {
    Transfer transfer;
    gdouble signal;             /* PQ: cd/m2 */
  } greys[] = { {PQ, 100}, {PQ, 1000}, {HLG, 0.75}, {HLG, 1.0} };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (greys); i++) {
    gboolean hlg = greys[i].transfer == HLG;
    gdouble e = hlg ? greys[i].signal :
        gst_cuda_filters_pq_inverse_eotf (greys[i].signal);
    /* (HLG's in narrow range, where 75 % is a sample: 721) */
    guint v = (guint) (hlg ? lround (64 + 876 * e) : lround (1023 * e));
    gdouble es = hlg ? (v - 64) / 876.0 : v / 1023.0;
    gdouble gamma = gst_cuda_filters_hlg_gamma (1000);
    gdouble lo = MAX (es - 1.0 / 4095, 0.0), hi = MIN (es + 1.0 / 4095, 1.0);
    /* a grey's light: PQ's EOTF, or HLG's Lw Ys^gamma with Ys = E */
    gdouble light = hlg ? 1000 * pow (gst_cuda_filters_hlg_inverse_oetf (es),
        gamma) : gst_cuda_filters_pq_eotf (es);
    gdouble step = hlg ? 1000 * (pow (gst_cuda_filters_hlg_inverse_oetf (hi),
            gamma) - pow (gst_cuda_filters_hlg_inverse_oetf (lo), gamma)) :
        gst_cuda_filters_pq_eotf (hi) - gst_cuda_filters_pq_eotf (lo);
    GstVideoFormat format = i % 2 ? GST_VIDEO_FORMAT_BGR10A2_LE :
        GST_VIDEO_FORMAT_RGB10A2_LE;
    GstBuffer *in = grey_rgb_frame (format, 64, 36, v, 18);
    gchar *what = g_strdup_printf ("%s %g (sample %u)", hlg ? "HLG" : "PQ",
        greys[i].signal, v);
    GstVideoInfo info;
    GstStructure *s;
    gdouble max_light;

    hdr_info (&info, format, 64, 36, !hlg, greys[i].transfer);
    s = cf_test_message_of ("cudasum light-levels=true hlg-peak=1000", in,
        &info, what);
    max_light = get_double (s, "max-light");
    fail_unless (fabs (max_light - light) <= step + 1e-9, "%s: max-light %g, "
        "the sample's light %g", what, max_light, light);
    if (!hlg)
      fail_unless (fabs (light - greys[i].signal) <= greys[i].signal * 0.01,
          "%s: the sample's light %g", what, light);
    else if (greys[i].signal == 0.75)
      fail_unless (fabs (max_light - 203) < 0.5, "%s: max-light %g, not "
          "BT.2408's 203 cd/m2", what, max_light);
    fail_unless (fabs (get_double (s, "average-light") - max_light * 0.5) <=
        1e-12 * max_light, "%s: average-light %g", what,
        get_double (s, "average-light"));
    gst_structure_free (s);
    gst_buffer_unref (in);
    g_free (what);
  }
}

GST_END_TEST;

/* The warning, once, and no light fields */
static void
check_no_light (GstVideoFormat format, const gchar * colorimetry,
    const gchar * reason)
{
  GstBuffer *in = cf_test_make_frame (format, 64, 36, 0, FALSE, rand_);
  GstBus *bus;
  GstHarness *h = cf_test_new_harness ("cudasum light-levels=true", &bus);
  GstVideoInfo info;
  GstMessage *msg;
  GstStructure *s;
  GError *err = NULL;
  gchar *debug = NULL;
  guint i;

  gst_video_info_set_format (&info, format, 64, 36);
  fail_unless (gst_video_colorimetry_from_string (&info.colorimetry,
          colorimetry));
  gst_harness_set_src_caps (h, gst_video_info_to_caps (&info));
  for (i = 0; i < 2; i++) {
    fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
        GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (h));
    /* the warning comes from the streaming thread, before the frame goes
     * on; the first frame's only: once a caps (and taken before the
     * results, whose pop drops other messages) */
    msg = gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING);
    if (i == 0) {
      fail_unless (msg != NULL, "%s %s: no warning",
          gst_video_format_to_string (format), colorimetry);
      gst_message_parse_warning (msg, &err, &debug);
      fail_unless (debug && strstr (debug, reason), "%s %s: warning %s",
          gst_video_format_to_string (format), colorimetry, debug);
      g_clear_error (&err);
      g_clear_pointer (&debug, g_free);
      gst_message_unref (msg);
    } else {
      fail_if (msg != NULL, "%s %s: a second warning",
          gst_video_format_to_string (format), colorimetry);
    }
    s = cf_test_next_result (bus, 10 * GST_SECOND);
    fail_unless (s != NULL);
    fail_if (gst_structure_has_field (s, "max-light"), "%s %s: light fields",
        gst_video_format_to_string (format), colorimetry);
    fail_if (gst_structure_has_field (s, "max-cll"));
    gst_structure_free (s);
  }
  gst_buffer_unref (in);
  cf_test_free_harness (h, bus);
}

GST_START_TEST (test_no_light_without_hdr)
{
  check_no_light (GST_VIDEO_FORMAT_P010_10LE, "bt709", "neither PQ");
  check_no_light (GST_VIDEO_FORMAT_NV12, "bt2100-pq", "10 to 16 bits");
  check_no_light (GST_VIDEO_FORMAT_NV12, "bt2100-hlg", "10 to 16 bits");
  check_no_light (GST_VIDEO_FORMAT_GRAY16_LE, "bt2100-pq", "10 to 16 bits");
  check_no_light (GST_VIDEO_FORMAT_RGB10A2_LE, "sRGB", "neither PQ");
}

GST_END_TEST;

CF_TEST_SUITE (cudasum_light_suite, "cudasum-light",
    CF_TEST_CASE ("gpu", 600),
    CF_TEST (test_every_format), CF_TEST (test_regions),
    CF_TEST (test_cuda_memory), CF_TEST (test_known_levels),
    CF_TEST (test_known_levels_hlg), CF_TEST (test_running_maxima),
    CF_TEST (test_hlg_peak_while_playing), CF_TEST (test_interval),
    CF_TEST (test_packed_rgb), CF_TEST (test_packed_rgb_bt709_primaries),
    CF_TEST (test_known_levels_packed_rgb),
    CF_TEST (test_no_light_without_hdr));

CF_TEST_GPU_MAIN (cudasum_light, cf_test_gpu_available);
