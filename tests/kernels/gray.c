/* cf_gray_from_packed against its CPU reference: grey in every channel
 * layout and matrix, odd sizes, tight, padded and misaligned pitches,
 * random and solid frames, outputs poisoned first and checked byte for
 * byte, padding included; the arguments it refuses.  The same for the
 * high-bit kernels (#48: samples MSB-aligned or to 8 bits, grey of
 * RGB10A2) and the 16-bit fill, with random bits outside each sample. */
#include "cf-kernel-test.h"

static const struct
{
  const gchar *name;
  CfPackedLayout layout;
} layouts[] = {
  {"RGBA", {4, 0, 1, 2}}, {"BGRA", {4, 2, 1, 0}}, {"ARGB", {4, 1, 2, 3}},
  {"ABGR", {4, 3, 2, 1}}, {"RGB", {3, 0, 1, 2}}, {"BGR", {3, 2, 1, 0}},
};

static void
run_case (CfPackedLayout layout, const gchar * name, CfGrayMatrix matrix,
    gint w, gint h, PitchMode mode, gboolean solid)
{
  gsize row = (gsize) w * layout.bytes_per_pixel;
  gchar *what = g_strdup_printf ("gray %s matrix %d %dx%d pitch mode %d%s",
      name, matrix, w, h, mode, solid ? " solid" : "");
  PlaneCase pc;
  gint y, x;

  plane_case_init (&pc, row, w, h, mode);
  if (solid) {
    guint8 px[4];
    cf_test_fill_random (rand_, px, 4);
    for (y = 0; y < h; y++)
      for (x = 0; x < (gint) row; x++)
        pc.src[pc.src_off + y * pc.src_pitch + x] =
            px[x % layout.bytes_per_pixel];
  }
  plane_case_upload (&pc);
  cf_ref_gray_from_packed (pc.src + pc.src_off, pc.src_pitch,
      pc.want + pc.dst_off, pc.dst_pitch, w, h, layout, matrix);
  plane_case_finish (&pc, cf_gray_from_packed (pc.d_src + pc.src_off,
          pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h, layout,
          matrix, NULL), what);
  g_free (what);
}

GST_START_TEST (test_gpu_equals_reference)
{
  guint l, m, s, mode;

  for (l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (m = CF_GRAY_MATRIX_BT601; m <= CF_GRAY_MATRIX_BT2020; m++)
      for (s = 0; s < G_N_ELEMENTS (sizes); s++)
        for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
          run_case (layouts[l].layout, layouts[l].name, m, sizes[s].w,
              sizes[s].h, mode, FALSE);
}

GST_END_TEST;

GST_START_TEST (test_gpu_solid_colour)
{
  guint l, s;

  for (l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      run_case (layouts[l].layout, layouts[l].name, CF_GRAY_MATRIX_BT709,
          sizes[s].w, sizes[s].h, PITCH_PADDED, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_gray_invalid_arguments)
{
  static const CfPackedLayout rgba = { 4, 0, 1, 2 }, bad_bpp = { 2, 0, 1, 1 };
  guint8 *d;

  CUDA_OK (cudaMalloc ((void **) &d, 4096));
  fail_if (cf_gray_from_packed (NULL, 64, d, 64, 4, 4, rgba, 0, NULL) == 0);
  fail_if (cf_gray_from_packed (d, 64, d, 64, 0, 4, rgba, 0, NULL) == 0);
  fail_if (cf_gray_from_packed (d, 8, d, 64, 4, 4, rgba, 0, NULL) == 0);
  fail_if (cf_gray_from_packed (d, 64, d, 64, 4, 4, bad_bpp, 0, NULL) == 0);
  fail_unless (cf_gray_from_packed (d, 64, d + 2048, 64, 4, 4, rgba, 0,
          NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

/* the (depth, shift) of every high-bit layout: P010, P012, P016, the LSB
 * ones, and 9 bits, the least cf_plane_to_8 takes */
static const struct
{
  gint depth, shift;
} sample_layouts[] = {
  {10, 6}, {12, 4}, {16, 0}, {10, 0}, {12, 0}, {9, 0}, {9, 7},
};

static void
run_words_case (gint depth, gint shift, gboolean to_8, gint w, gint h,
    PitchMode mode, gboolean solid)
{
  gchar *what = g_strdup_printf ("%s depth %d shift %d %dx%d pitch mode %d%s",
      to_8 ? "to 8 bits" : "to MSB16", depth, shift, w, h, mode,
      solid ? " solid top value" : "");
  PlaneCase pc;
  gint x, y;

  plane_case_init (&pc, (gsize) w * 2, (gsize) w * (to_8 ? 1 : 2), h, mode);
  if (solid)
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        GST_WRITE_UINT16_LE (pc.src + pc.src_off + y * pc.src_pitch + 2 * x,
            ((1u << depth) - 1) << shift);
  plane_case_upload (&pc);
  if (to_8) {
    cf_ref_plane_to_8 (pc.src + pc.src_off, pc.src_pitch,
        pc.want + pc.dst_off, pc.dst_pitch, w, h, depth, shift);
    plane_case_finish (&pc, cf_plane_to_8 (pc.d_src + pc.src_off,
            pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h, depth,
            shift, NULL), what);
  } else {
    cf_ref_plane_to_msb16 (pc.src + pc.src_off, pc.src_pitch,
        pc.want + pc.dst_off, pc.dst_pitch, w, h, depth, shift);
    plane_case_finish (&pc, cf_plane_to_msb16 (pc.d_src + pc.src_off,
            pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h, depth,
            shift, NULL), what);
  }
  g_free (what);
}

GST_START_TEST (test_high_bit_equals_reference)
{
  guint l, s, mode, to_8;

  for (l = 0; l < G_N_ELEMENTS (sample_layouts); l++)
    for (to_8 = 0; to_8 < 2; to_8++)
      for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
        for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
          run_words_case (sample_layouts[l].depth, sample_layouts[l].shift,
              to_8, sizes[s].w, sizes[s].h, mode, FALSE);
        run_words_case (sample_layouts[l].depth, sample_layouts[l].shift,
            to_8, sizes[s].w, sizes[s].h, PITCH_PADDED, TRUE);
      }
}

GST_END_TEST;

/* grey of RGB10A2 to 8 bits: the 16-bit reference, then its rounding */
static void
ref_gray8_from_rgb10a2 (PlaneCase * pc, gint w, gint h, gint swap,
    CfGrayMatrix m)
{
  gsize pitch16 = (gsize) w * 2;
  guint8 *gray16 = g_malloc (pitch16 * h);

  cf_ref_gray16_from_rgb10a2 (pc->src + pc->src_off, pc->src_pitch, gray16,
      pitch16, w, h, swap, m);
  cf_ref_plane_to_8 (gray16, pitch16, pc->want + pc->dst_off, pc->dst_pitch,
      w, h, 16, 0);
  g_free (gray16);
}

GST_START_TEST (test_rgb10a2_equals_reference)
{
  guint m, s, mode, swap, to_8;

  for (to_8 = 0; to_8 < 2; to_8++)
    for (swap = 0; swap < 2; swap++)
      for (m = CF_GRAY_MATRIX_BT601; m <= CF_GRAY_MATRIX_BT2020; m++)
        for (s = 0; s < G_N_ELEMENTS (sizes); s++)
          for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++) {
            gint w = sizes[s].w, h = sizes[s].h;
            gchar *what = g_strdup_printf ("%s to %d bits matrix %d %dx%d "
                "pitch mode %d", swap ? "BGR10A2" : "RGB10A2",
                to_8 ? 8 : 16, m, w, h, mode);
            PlaneCase pc;
            CfError err;

            plane_case_init (&pc, (gsize) w * 4, (gsize) w * (to_8 ? 1 : 2),
                h, mode);
            plane_case_upload (&pc);
            if (to_8) {
              ref_gray8_from_rgb10a2 (&pc, w, h, swap, m);
              err = cf_gray8_from_rgb10a2 (pc.d_src + pc.src_off,
                  pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h,
                  swap, m, NULL);
            } else {
              cf_ref_gray16_from_rgb10a2 (pc.src + pc.src_off, pc.src_pitch,
                  pc.want + pc.dst_off, pc.dst_pitch, w, h, swap, m);
              err = cf_gray16_from_rgb10a2 (pc.d_src + pc.src_off,
                  pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h,
                  swap, m, NULL);
            }
            plane_case_finish (&pc, err, what);
            g_free (what);
          }
}

GST_END_TEST;

/* white stays white: 1023 in every channel is 1023 << 6 out, whatever the
 * matrix (its weights sum to 65536) */
GST_START_TEST (test_rgb10a2_white)
{
  guint8 *d;
  guint16 out = 0;
  guint32 white = 0x3fffffffu;
  guint m;

  CUDA_OK (cudaMalloc ((void **) &d, 8));
  CUDA_OK (cudaMemcpy (d, &white, 4, cudaMemcpyHostToDevice));
  for (m = CF_GRAY_MATRIX_BT601; m <= CF_GRAY_MATRIX_BT2020; m++) {
    fail_unless (cf_gray16_from_rgb10a2 (d, 4, d + 4, 2, 1, 1, 0, m,
            NULL) == 0);
    CUDA_OK (cudaMemcpy (&out, d + 4, 2, cudaMemcpyDeviceToHost));
    fail_unless_equals_int (GUINT16_FROM_LE (out), 1023 << 6);
  }
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

GST_START_TEST (test_fill16)
{
  guint s, mode;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++) {
      gint w = sizes[s].w, h = sizes[s].h, x, y;
      gchar *what = g_strdup_printf ("fill16 %dx%d pitch mode %d", w, h,
          mode);
      PlaneCase pc;

      plane_case_init (&pc, 1, (gsize) w * 2, h, mode);
      plane_case_upload (&pc);
      for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
          GST_WRITE_UINT16_LE (pc.want + pc.dst_off + y * pc.dst_pitch + 2 * x,
              0x8000);
      plane_case_finish (&pc, cf_fill_plane16 (pc.d_dst + pc.dst_off,
              pc.dst_pitch, w, h, 0x8000, NULL), what);
      g_free (what);
    }
}

GST_END_TEST;

GST_START_TEST (test_high_bit_invalid_arguments)
{
  guint8 *d;

  CUDA_OK (cudaMalloc ((void **) &d, 4096));
  fail_if (cf_plane_to_msb16 (NULL, 64, d, 64, 4, 4, 10, 6, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 64, d, 64, 0, 4, 10, 6, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 64, d, 64, 4, 4, 0, 0, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 64, d, 64, 4, 4, 17, 0, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 64, d, 64, 4, 4, 10, 7, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 6, d, 64, 4, 4, 10, 6, NULL) == 0);
  fail_if (cf_plane_to_8 (d, 64, d, 64, 4, 4, 8, 0, NULL) == 0);
  fail_if (cf_plane_to_8 (d, 64, d, 3, 4, 4, 10, 6, NULL) == 0);
  fail_if (cf_gray16_from_rgb10a2 (d, 12, d, 64, 4, 4, 0, 0, NULL) == 0);
  fail_if (cf_gray16_from_rgb10a2 (d, 64, d, 6, 4, 4, 0, 0, NULL) == 0);
  fail_if (cf_gray8_from_rgb10a2 (d, 64, d, 3, 4, 4, 0, 0, NULL) == 0);
  fail_unless (cf_gray8_from_rgb10a2 (d, 64, d + 2048, 64, 4, 4, 1, 0,
          NULL) == 0);
  fail_if (cf_fill_plane16 (NULL, 64, 4, 4, 0x8000, NULL) == 0);
  fail_if (cf_fill_plane16 (d, 6, 4, 4, 0x8000, NULL) == 0);
  fail_unless (cf_plane_to_msb16 (d, 64, d + 2048, 64, 4, 4, 10, 6, NULL) == 0);
  fail_unless (cf_plane_to_8 (d, 64, d + 2048, 64, 4, 4, 16, 0, NULL) == 0);
  fail_unless (cf_fill_plane16 (d, 64, 0, 4, 0x8000, NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

CF_KERNEL_TEST_MAIN ("kernels-gray",
    CF_KERNEL_TEST (test_gpu_equals_reference),
    CF_KERNEL_TEST (test_gpu_solid_colour),
    CF_KERNEL_TEST (test_gray_invalid_arguments),
    CF_KERNEL_TEST (test_high_bit_equals_reference),
    CF_KERNEL_TEST (test_rgb10a2_equals_reference),
    CF_KERNEL_TEST (test_rgb10a2_white),
    CF_KERNEL_TEST (test_fill16),
    CF_KERNEL_TEST (test_high_bit_invalid_arguments));
