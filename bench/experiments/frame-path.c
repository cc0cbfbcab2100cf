/* Experiment (not part of the plugin): the element's per-frame path for a
 * 4K RGBA frame (pinned upload, grey kernel, pinned download, synchronise)
 * replayed outside GStreamer's pipeline, changing one ingredient at a time,
 * to find what makes it slower than the same transfers done plainly.
 * Results: docs/history/notes.md. */
#include <stdio.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/cuda-gst.h>
#include <cuda_runtime_api.h>
#include "cudafilters-kernels.h"

#define W 3840
#define H 2160
#define N_HOST 8
#define FRAMES 120

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

typedef enum
{ DRIVER_COPIES, RUNTIME_COPIES } CopyApi;

/* median microseconds per frame */
static double
run (const char *name, gboolean gst_ctx, gboolean driver_pinned,
    CopyApi api, gboolean kernel, gboolean one_row)
{
  GstCudaContext *ctx = NULL;
  void *hin[N_HOST], *hout;
  CUdeviceptr din, dout;
  CUstream stream = NULL;
  double t[FRAMES];
  int i;
  size_t in_bytes = (size_t) W * 4 * H, out_bytes = (size_t) W *H;
  const CfPackedLayout rgba = { 4, 0, 1, 2 };

  if (gst_ctx) {
    ctx = gst_cuda_context_new (0);
    gst_cuda_context_push (ctx);
    CuStreamCreate (&stream, 0);
  } else {
    cudaSetDevice (0);
    cudaStreamCreate ((cudaStream_t *) & stream);
  }
  for (i = 0; i < N_HOST; i++) {
    if (driver_pinned)
      CuMemAllocHost (&hin[i], in_bytes);
    else
      cudaMallocHost (&hin[i], in_bytes);
    memset (hin[i], i, in_bytes);
  }
  if (driver_pinned)
    CuMemAllocHost (&hout, out_bytes);
  else
    cudaMallocHost (&hout, out_bytes);
  if (gst_ctx) {
    CuMemAlloc (&din, in_bytes);
    CuMemAlloc (&dout, out_bytes);
  } else {
    cudaMalloc ((void **) &din, in_bytes);
    cudaMalloc ((void **) &dout, out_bytes);
  }

  for (i = -20; i < FRAMES; i++) {
    gint64 t0 = g_get_monotonic_time ();
    void *src = hin[(i + 20) % N_HOST];
    if (api == DRIVER_COPIES) {
      CUDA_MEMCPY2D c = { 0, };
      c.srcMemoryType = CU_MEMORYTYPE_HOST;
      c.srcHost = src;
      c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
      c.dstDevice = din;
      c.srcPitch = c.dstPitch = one_row ? in_bytes : W * 4;
      c.WidthInBytes = one_row ? in_bytes : W * 4;
      c.Height = one_row ? 1 : H;
      CuMemcpy2DAsync (&c, stream);
    } else {
      cudaMemcpyAsync ((void *) din, src, in_bytes, cudaMemcpyHostToDevice,
          (cudaStream_t) stream);
    }
    if (kernel)
      cf_gray_from_packed ((void *) din, W * 4, (void *) dout, W, W, H, rgba,
          CF_GRAY_MATRIX_BT601, NULL, (CfStream) stream);
    if (api == DRIVER_COPIES) {
      CUDA_MEMCPY2D c = { 0, };
      c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
      c.srcDevice = dout;
      c.dstMemoryType = CU_MEMORYTYPE_HOST;
      c.dstHost = hout;
      c.srcPitch = c.dstPitch = one_row ? out_bytes : W;
      c.WidthInBytes = one_row ? out_bytes : W;
      c.Height = one_row ? 1 : H;
      CuMemcpy2DAsync (&c, stream);
    } else {
      cudaMemcpyAsync (hout, (void *) dout, out_bytes, cudaMemcpyDeviceToHost,
          (cudaStream_t) stream);
    }
    if (gst_ctx)
      CuStreamSynchronize (stream);
    else
      cudaStreamSynchronize ((cudaStream_t) stream);
    if (i >= 0)
      t[i] = g_get_monotonic_time () - t0;
  }
  qsort (t, FRAMES, sizeof (double), cmp_double);
  printf ("  %-58s %7.0f us/frame %6.0f fps\n", name, t[FRAMES / 2],
      1e6 / t[FRAMES / 2]);

  for (i = 0; i < N_HOST; i++)
    driver_pinned ? CuMemFreeHost (hin[i]) : cudaFreeHost (hin[i]);
  driver_pinned ? CuMemFreeHost (hout) : cudaFreeHost (hout);
  if (gst_ctx) {
    CuMemFree (din);
    CuMemFree (dout);
    CuStreamDestroy (stream);
    gst_cuda_context_pop (NULL);
    gst_object_unref (ctx);
  } else {
    cudaFree ((void *) din);
    cudaFree ((void *) dout);
    cudaStreamDestroy ((cudaStream_t) stream);
  }
  return t[FRAMES / 2];
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  if (!gst_cuda_load_library () || CuInit (0) != CUDA_SUCCESS) {
    fprintf (stderr, "no CUDA\n");
    return 1;
  }
  printf ("4K RGBA -> GRAY8, pinned host frames rotated over %d:\n", N_HOST);
  run ("runtime: primary ctx, cudaMallocHost, cudaMemcpyAsync", FALSE, FALSE,
      RUNTIME_COPIES, TRUE, FALSE);
  run ("gst ctx, cuMemAllocHost, cuMemcpy2DAsync rows (element)", TRUE, TRUE,
      DRIVER_COPIES, TRUE, FALSE);
  run ("gst ctx, cuMemAllocHost, cuMemcpy2DAsync one row", TRUE, TRUE,
      DRIVER_COPIES, TRUE, TRUE);
  run ("gst ctx, cuMemAllocHost, cuMemcpy2DAsync, no kernel", TRUE, TRUE,
      DRIVER_COPIES, FALSE, TRUE);
  run ("gst ctx, cuMemAllocHost, cudaMemcpyAsync", TRUE, TRUE,
      RUNTIME_COPIES, TRUE, FALSE);
  run ("gst ctx, cudaMallocHost, cudaMemcpyAsync", TRUE, FALSE,
      RUNTIME_COPIES, TRUE, FALSE);
  run ("runtime: primary ctx again", FALSE, FALSE, RUNTIME_COPIES, TRUE, FALSE);
  return 0;
}
