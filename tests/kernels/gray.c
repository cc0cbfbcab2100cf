/* cf_gray_from_packed against its CPU reference: grey in every channel
 * layout and matrix, odd sizes, tight, padded and misaligned pitches,
 * random and solid frames, outputs poisoned first and checked byte for
 * byte, padding included; the arguments it refuses. */
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

CF_KERNEL_TEST_MAIN ("kernels-gray",
    CF_KERNEL_TEST (test_gpu_equals_reference),
    CF_KERNEL_TEST (test_gpu_solid_colour),
    CF_KERNEL_TEST (test_gray_invalid_arguments));
