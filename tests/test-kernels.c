/* The kernels against their CPU references, directly through the C API:
 * grey in every channel layout and matrix, plane copy and fill; odd sizes,
 * tight, padded and misaligned pitches, random and solid frames, outputs
 * poisoned first and checked byte for byte, padding included. */
#include <gst/check/gstcheck.h>
#include <cuda_runtime_api.h>

#include "cudafilters-kernels.h"
#include "cf-test-util.h"

#define POISON 0xa5

static const struct
{
  const gchar *name;
  CfPackedLayout layout;
} layouts[] = {
  {"RGBA", {4, 0, 1, 2}}, {"BGRA", {4, 2, 1, 0}}, {"ARGB", {4, 1, 2, 3}},
  {"ABGR", {4, 3, 2, 1}}, {"RGB", {3, 0, 1, 2}}, {"BGR", {3, 2, 1, 0}},
};

static const struct
{
  gint w, h;
} sizes[] = {
  {1, 1}, {3, 7}, {16, 1}, {17, 5}, {1, 33}, {64, 2}, {1921, 1081},
};

typedef enum
{
  PITCH_TIGHT,                  /* row bytes exactly */
  PITCH_PADDED,                 /* padded to a multiple of 256, vector path */
  PITCH_MISALIGNED,             /* odd pitch and base offset: scalar path */
} PitchMode;

#define CUDA_OK(call) G_STMT_START {                                    \
  cudaError_t _e = (call);                                              \
  fail_unless (_e == cudaSuccess, "%s: %s", #call, cudaGetErrorName (_e)); \
} G_STMT_END

static void
run_case (CfPackedLayout layout, const gchar * name, CfGrayMatrix matrix,
    gint w, gint h, PitchMode mode, gboolean solid)
{
  gsize row = (gsize) w * layout.bytes_per_pixel;
  gsize src_pitch = row, dst_pitch = w, src_off = 0, dst_off = 0;
  gsize src_size, dst_size;
  guint8 *src, *want, *got, *d_src, *d_dst;
  gint y, x;
  guint64 bad = 0;
  CfError err;

  if (mode == PITCH_PADDED) {
    src_pitch = GST_ROUND_UP_N (row, 256) + 256;
    dst_pitch = GST_ROUND_UP_N ((gsize) w, 256) + 256;
  } else if (mode == PITCH_MISALIGNED) {
    src_pitch = row + 3;
    dst_pitch = w + 5;
    src_off = 1;
    dst_off = 3;
  }
  src_size = src_off + src_pitch * h;
  dst_size = dst_off + dst_pitch * h;

  src = g_malloc (src_size);
  cf_test_fill_random (rand_, src, src_size);
  if (solid) {
    guint8 px[4];
    cf_test_fill_random (rand_, px, 4);
    for (y = 0; y < h; y++)
      for (x = 0; x < (gint) row; x++)
        src[src_off + y * src_pitch + x] = px[x % layout.bytes_per_pixel];
  }
  want = g_malloc (dst_size);
  got = g_malloc (dst_size);
  memset (want, POISON, dst_size);
  cf_ref_gray_from_packed (src + src_off, src_pitch, want + dst_off,
      dst_pitch, w, h, layout, matrix);

  CUDA_OK (cudaMalloc ((void **) &d_src, src_size));
  CUDA_OK (cudaMalloc ((void **) &d_dst, dst_size));
  CUDA_OK (cudaMemcpy (d_src, src, src_size, cudaMemcpyHostToDevice));
  CUDA_OK (cudaMemset (d_dst, POISON, dst_size));

  err = cf_gray_from_packed (d_src + src_off, src_pitch, d_dst + dst_off,
      dst_pitch, w, h, layout, matrix, NULL);
  fail_unless (err == 0, "launch: %s", cf_error_name (err));
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaMemcpy (got, d_dst, dst_size, cudaMemcpyDeviceToHost));

  /* every byte, padding included: written where it should be, poison
   * where it should not */
  for (x = 0; x < (gint) dst_size; x++) {
    if (got[x] != want[x]) {
      if (!bad)
        g_printerr ("%s matrix %d %dx%d mode %d: byte %d got %u want %u\n",
            name, matrix, w, h, mode, x, got[x], want[x]);
      bad++;
    }
  }
  fail_unless (bad == 0, "%s matrix %d %dx%d pitch mode %d%s: %"
      G_GUINT64_FORMAT " bytes differ from the CPU reference", name, matrix,
      w, h, mode, solid ? " solid" : "", bad);

  CUDA_OK (cudaFree (d_src));
  CUDA_OK (cudaFree (d_dst));
  g_free (src);
  g_free (want);
  g_free (got);
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

/* copy and fill of row_bytes x rows, every byte of the destination
 * allocation compared (padding must keep its poison) */
static void
run_plane_case (gboolean fill, gsize row_bytes, gint rows, PitchMode mode)
{
  gsize src_pitch = row_bytes, dst_pitch = row_bytes, src_off = 0, dst_off = 0;
  gsize src_size, dst_size, x;
  guint8 *src, *want, *got, *d_src, *d_dst, value = 0x5c;
  gint y;
  guint64 bad = 0;
  CfError err;

  if (mode == PITCH_PADDED) {
    src_pitch = GST_ROUND_UP_N (row_bytes, 256) + 256;
    dst_pitch = GST_ROUND_UP_N (row_bytes, 512);
  } else if (mode == PITCH_MISALIGNED) {
    src_pitch = row_bytes + 3;
    dst_pitch = row_bytes + 1;
    src_off = 5;
    dst_off = 1;
  }
  src_size = src_off + src_pitch * rows;
  dst_size = dst_off + dst_pitch * rows;
  src = g_malloc (src_size);
  want = g_malloc (dst_size);
  got = g_malloc (dst_size);
  cf_test_fill_random (rand_, src, src_size);
  memset (want, POISON, dst_size);
  for (y = 0; y < rows; y++) {
    if (fill)
      memset (want + dst_off + y * dst_pitch, value, row_bytes);
    else
      memcpy (want + dst_off + y * dst_pitch, src + src_off + y * src_pitch,
          row_bytes);
  }

  CUDA_OK (cudaMalloc ((void **) &d_src, src_size));
  CUDA_OK (cudaMalloc ((void **) &d_dst, dst_size));
  CUDA_OK (cudaMemcpy (d_src, src, src_size, cudaMemcpyHostToDevice));
  CUDA_OK (cudaMemset (d_dst, POISON, dst_size));
  if (fill)
    err = cf_fill_plane (d_dst + dst_off, dst_pitch, row_bytes, rows, value,
        NULL);
  else
    err = cf_copy_plane (d_src + src_off, src_pitch, d_dst + dst_off,
        dst_pitch, row_bytes, rows, NULL);
  fail_unless (err == 0, "launch: %s", cf_error_name (err));
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaMemcpy (got, d_dst, dst_size, cudaMemcpyDeviceToHost));
  for (x = 0; x < dst_size; x++)
    bad += got[x] != want[x];
  fail_unless (bad == 0, "%s %" G_GSIZE_FORMAT "x%d pitch mode %d: %"
      G_GUINT64_FORMAT " bytes wrong", fill ? "fill" : "copy", row_bytes,
      rows, mode, bad);
  CUDA_OK (cudaFree (d_src));
  CUDA_OK (cudaFree (d_dst));
  g_free (src);
  g_free (want);
  g_free (got);
}

GST_START_TEST (test_plane_copy_and_fill)
{
  static const struct
  {
    gsize row_bytes;
    gint rows;
  } planes[] = {
    {1, 1}, {3, 7}, {16, 3}, {17, 2}, {1921, 1081}, {962, 541}, {3840, 4},
  };
  guint i, mode, fill;

  for (fill = 0; fill < 2; fill++)
    for (i = 0; i < G_N_ELEMENTS (planes); i++)
      for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
        run_plane_case (fill, planes[i].row_bytes, planes[i].rows, mode);
}

GST_END_TEST;

/* blur: GPU against the CPU reference for one plane configuration */
static void
run_blur_case (gint w, gint h, gint channels, double sx, double sy,
    CfBorder border, PitchMode mode, gboolean solid)
{
  gsize row = (gsize) w * channels;
  gsize src_pitch = row, dst_pitch = row, src_off = 0, dst_off = 0;
  gsize src_size, dst_size, x;
  guint8 *src, *want, *got, *d_src, *d_dst;
  void *d_scratch;
  guint8 bv[4];
  CfBlurKernel kx, ky;
  guint64 bad = 0;
  CfError err;

  if (mode == PITCH_PADDED) {
    src_pitch = GST_ROUND_UP_N (row, 256) + 256;
    dst_pitch = GST_ROUND_UP_N (row, 512);
  } else if (mode == PITCH_MISALIGNED) {
    src_pitch = row + 3;
    dst_pitch = row + 1;
    src_off = 5;
    dst_off = 1;
  }
  src_size = src_off + src_pitch * h;
  dst_size = dst_off + dst_pitch * h;
  src = g_malloc (src_size);
  want = g_malloc (dst_size);
  got = g_malloc (dst_size);
  cf_test_fill_random (rand_, src, src_size);
  cf_test_fill_random (rand_, bv, 4);
  if (solid)
    memset (src, bv[1], src_size);
  memset (want, POISON, dst_size);
  fail_unless (cf_blur_kernel_make (sx, cf_blur_radius_for_sigma (sx),
          CF_BLUR_H_BITS, &kx) == 0);
  fail_unless (cf_blur_kernel_make (sy, cf_blur_radius_for_sigma (sy),
          CF_BLUR_V_BITS, &ky) == 0);
  cf_ref_blur_plane (src + src_off, src_pitch, want + dst_off, dst_pitch, w,
      h, channels, &kx, &ky, border, bv);

  CUDA_OK (cudaMalloc ((void **) &d_src, src_size));
  CUDA_OK (cudaMalloc ((void **) &d_dst, dst_size));
  CUDA_OK (cudaMemcpy (d_src, src, src_size, cudaMemcpyHostToDevice));
  CUDA_OK (cudaMemset (d_dst, POISON, dst_size));
  CUDA_OK (cudaMalloc (&d_scratch, cf_blur_scratch_bytes (w, h, channels)));
  CUDA_OK (cudaMemset (d_scratch, POISON, cf_blur_scratch_bytes (w, h,
              channels)));
  err = cf_blur_plane (d_src + src_off, src_pitch, d_dst + dst_off, dst_pitch,
      w, h, channels, &kx, &ky, border, bv, d_scratch, NULL);
  fail_unless (err == 0, "launch: %s", cf_error_name (err));
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaMemcpy (got, d_dst, dst_size, cudaMemcpyDeviceToHost));
  for (x = 0; x < dst_size; x++) {
    if (got[x] != want[x] && bad++ == 0)
      g_printerr ("blur %dx%d c%d sigma %g/%g border %d mode %d: byte %"
          G_GSIZE_FORMAT " got %u want %u\n", w, h, channels, sx, sy, border,
          mode, x, got[x], want[x]);
  }
  fail_unless (bad == 0, "blur %dx%d, %d channels, sigma %g x %g, border %d, "
      "pitch mode %d: %" G_GUINT64_FORMAT " bytes differ", w, h, channels, sx,
      sy, border, mode, bad);
  CUDA_OK (cudaFree (d_src));
  CUDA_OK (cudaFree (d_dst));
  CUDA_OK (cudaFree (d_scratch));
  g_free (src);
  g_free (want);
  g_free (got);
}

/* every channel count, border and sigma on small odd frames (radius larger
 * than the frame included), with every pitch mode */
GST_START_TEST (test_blur_small_frames)
{
  static const double sigmas[] = { 0.3, 1, 2, 5, 20 };
  static const struct
  {
    gint w, h;
  } frames[] = { {1, 1}, {1, 17}, {17, 1}, {3, 7}, {37, 23}, {130, 9} };
  guint s, f, mode;
  gint ch, border;

  for (ch = 1; ch <= 4; ch++)
    for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT; border++)
      for (s = 0; s < G_N_ELEMENTS (sigmas); s++)
        for (f = 0; f < G_N_ELEMENTS (frames); f++)
          for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
            run_blur_case (frames[f].w, frames[f].h, ch, sigmas[s],
                sigmas[(s + 1) % G_N_ELEMENTS (sigmas)] / 2, border, mode,
                FALSE);
}

GST_END_TEST;

/* large odd frames: the strips and row runs of the launch configuration */
GST_START_TEST (test_blur_large_frames)
{
  gint ch;

  for (ch = 1; ch <= 4; ch++) {
    run_blur_case (1921, 1081, ch, 2, 2, CF_BORDER_REPLICATE, PITCH_PADDED,
        FALSE);
    run_blur_case (1921, 1081, ch, 1, 5, CF_BORDER_REFLECT_101, PITCH_TIGHT,
        FALSE);
  }
  run_blur_case (1921, 1081, 4, 20, 20, CF_BORDER_CONSTANT, PITCH_PADDED,
      FALSE);
  run_blur_case (641, 479, 4, 50, 50, CF_BORDER_REFLECT_101, PITCH_PADDED,
      FALSE);
  /* a solid frame stays exactly solid */
  run_blur_case (1921, 1081, 4, 5, 5, CF_BORDER_REPLICATE, PITCH_PADDED, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_invalid_arguments)
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
  fail_if (cf_copy_plane (d, 8, d + 2048, 64, 16, 4, NULL) == 0);
  fail_if (cf_fill_plane (d, 8, 16, 4, 0, NULL) == 0);
  {
    CfBlurKernel k, bad = { 2, {5, 1, 1} };
    cf_blur_kernel_make (1, 3, CF_BLUR_H_BITS, &k);
    /* the vertical kernel must sum to 2^V_BITS; a wrong sum is refused */
    fail_if (cf_blur_plane (d, 64, d + 2048, 64, 4, 4, 4, &k, &k,
            CF_BORDER_REPLICATE, NULL, d + 1024, NULL) == 0);
    fail_if (cf_blur_plane (d, 64, d + 2048, 64, 4, 4, 4, &bad, &bad,
            CF_BORDER_REPLICATE, NULL, d + 1024, NULL) == 0);
    fail_if (cf_blur_plane (d, 64, d + 2048, 64, 4, 4, 5, &k, &k,
            CF_BORDER_REPLICATE, NULL, d + 1024, NULL) == 0);
  }
  fail_unless (cf_copy_plane (d, 64, d + 2048, 64, 16, 0, NULL) == 0);

  /* an earlier failure of another runtime call on this thread is not
   * reported by the next launch */
  fail_if (cudaMemcpy2DAsync (d, 16, d + 2048, 16, 32, 2,
          cudaMemcpyDeviceToDevice, NULL) == cudaSuccess);
  fail_unless (cf_gray_from_packed (d, 64, d + 2048, 64, 4, 4, rgba, 0,
          NULL) == 0);
  fail_if (cudaMemcpy2DAsync (d, 16, d + 2048, 16, 32, 2,
          cudaMemcpyDeviceToDevice, NULL) == cudaSuccess);
  fail_unless (cf_copy_plane (d, 64, d + 2048, 64, 16, 4, NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

static Suite *
kernels_suite (void)
{
  Suite *s = suite_create ("kernels");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  tcase_add_test (tc, test_gpu_equals_reference);
  tcase_add_test (tc, test_gpu_solid_colour);
  tcase_add_test (tc, test_plane_copy_and_fill);
  tcase_add_test (tc, test_blur_small_frames);
  tcase_add_test (tc, test_blur_large_frames);
  tcase_add_test (tc, test_invalid_arguments);
  return s;
}

static gboolean
runtime_sees_a_gpu (void)
{
  return cf_device_count () > 0;
}

int
main (int argc, char **argv)
{
  return cf_test_run_gpu_suite (&argc, &argv, runtime_sees_a_gpu,
      kernels_suite, "kernels", __FILE__);
}
