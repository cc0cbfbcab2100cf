/* cf_copy_plane and cf_fill_plane against what they must write: odd
 * sizes, tight, padded and misaligned pitches, outputs poisoned first and
 * checked byte for byte, padding included; the arguments they refuse; a
 * launch after another runtime call failed on the thread. */
#include "cf-kernel-test.h"

/* copy and fill of row_bytes x rows */
static void
run_plane_case (gboolean fill, gsize row_bytes, gint rows, PitchMode mode)
{
  gchar *what = g_strdup_printf ("%s %" G_GSIZE_FORMAT "x%d pitch mode %d",
      fill ? "fill" : "copy", row_bytes, rows, mode);
  const guint8 value = 0x5c;
  PlaneCase pc;
  gint y;

  plane_case_init (&pc, row_bytes, row_bytes, rows, mode);
  plane_case_upload (&pc);
  for (y = 0; y < rows; y++) {
    guint8 *want = pc.want + pc.dst_off + y * pc.dst_pitch;
    if (fill)
      memset (want, value, row_bytes);
    else
      memcpy (want, pc.src + pc.src_off + y * pc.src_pitch, row_bytes);
  }
  plane_case_finish (&pc, fill ?
      cf_fill_plane (pc.d_dst + pc.dst_off, pc.dst_pitch, row_bytes, rows,
          value, NULL) :
      cf_copy_plane (pc.d_src + pc.src_off, pc.src_pitch,
          pc.d_dst + pc.dst_off, pc.dst_pitch, row_bytes, rows, NULL), what);
  g_free (what);
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

GST_START_TEST (test_plane_invalid_arguments)
{
  guint8 *d;

  CUDA_OK (cudaMalloc ((void **) &d, 4096));
  fail_if (cf_copy_plane (d, 8, d + 2048, 64, 16, 4, NULL) == 0);
  fail_if (cf_fill_plane (d, 8, 16, 4, 0, NULL) == 0);
  fail_unless (cf_copy_plane (d, 64, d + 2048, 64, 16, 0, NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

GST_START_TEST (test_earlier_runtime_error)
{
  static const CfPackedLayout rgba = { 4, 0, 1, 2 };
  guint8 *d;

  CUDA_OK (cudaMalloc ((void **) &d, 4096));
  /* an earlier failure of another runtime call on this thread is not
   * reported by the next launch */
  fail_if (cudaMemcpy2DAsync (d, 16, d + 2048, 16, 32, 2,
          cudaMemcpyDeviceToDevice, NULL) == cudaSuccess);
  fail_unless (cf_gray_from_packed (d, 64, d + 2048, 64, 4, 4, rgba, 0,
          NULL, NULL) == 0);
  fail_if (cudaMemcpy2DAsync (d, 16, d + 2048, 16, 32, 2,
          cudaMemcpyDeviceToDevice, NULL) == cudaSuccess);
  fail_unless (cf_copy_plane (d, 64, d + 2048, 64, 16, 4, NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

CF_KERNEL_TEST_MAIN ("kernels-plane",
    CF_KERNEL_TEST (test_plane_copy_and_fill),
    CF_KERNEL_TEST (test_plane_invalid_arguments),
    CF_KERNEL_TEST (test_earlier_runtime_error));
