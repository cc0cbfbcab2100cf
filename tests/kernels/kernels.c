/* The kernels against their CPU references, directly through the C API:
 * grey in every channel layout and matrix, plane copy and fill, blur,
 * histograms and statistics of every plane layout with regions; odd sizes,
 * tight, padded and misaligned pitches, random and solid frames, outputs
 * poisoned first and checked byte for byte, padding included. */
#include <gst/check/gstcheck.h>
#include <cuda_runtime_api.h>

#include "cudafilters-kernels.h"
#include "cf-test-util.h"
#include "cudafilters-kernels-testing.h"

#define POISON 0xa5

typedef enum
{
  PITCH_TIGHT,                  /* row bytes exactly */
  PITCH_PADDED,                 /* padded past a multiple of 256: vector paths */
  PITCH_MISALIGNED,             /* odd pitch and start: scalar paths */
} PitchMode;

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


#define CUDA_OK(call) G_STMT_START {                                    \
  cudaError_t _e = (call);                                              \
  fail_unless (_e == cudaSuccess, "%s: %s", #call, cudaGetErrorName (_e)); \
} G_STMT_END

/* One kernel run on a source and a destination plane, in host and device
 * memory: random source, poisoned destination, and after the run every
 * byte of the destination allocation compared with the expected one
 * (padding and the bytes before a misaligned start included: they must
 * keep their poison). */
typedef struct
{
  gsize src_pitch, dst_pitch, src_off, dst_off, src_size, dst_size;
  guint8 *src, *want;           /* host: the source, the expected output */
  guint8 *d_src, *d_dst;        /* device */
} PlaneCase;

static void
plane_case_init (PlaneCase * pc, gsize src_row, gsize dst_row, gint rows,
    PitchMode mode)
{
  memset (pc, 0, sizeof (*pc));
  pc->src_pitch = src_row;
  pc->dst_pitch = dst_row;
  if (mode == PITCH_PADDED) {
    pc->src_pitch = GST_ROUND_UP_N (src_row, 256) + 256;
    pc->dst_pitch = GST_ROUND_UP_N (dst_row, 256) + 256;
  } else if (mode == PITCH_MISALIGNED) {
    pc->src_pitch = src_row + 3;
    pc->dst_pitch = dst_row + 1;
    pc->src_off = 5;
    pc->dst_off = 3;
  }
  pc->src_size = pc->src_off + pc->src_pitch * rows;
  pc->dst_size = pc->dst_off + pc->dst_pitch * rows;
  pc->src = g_malloc (pc->src_size);
  pc->want = g_malloc (pc->dst_size);
  cf_test_fill_random (rand_, pc->src, pc->src_size);
  memset (pc->want, POISON, pc->dst_size);
  CUDA_OK (cudaMalloc ((void **) &pc->d_src, pc->src_size));
  CUDA_OK (cudaMalloc ((void **) &pc->d_dst, pc->dst_size));
  CUDA_OK (cudaMemset (pc->d_dst, POISON, pc->dst_size));
}

/* after the source (pc->src) is final: copies it to the device */
static void
plane_case_upload (PlaneCase * pc)
{
  CUDA_OK (cudaMemcpy (pc->d_src, pc->src, pc->src_size,
          cudaMemcpyHostToDevice));
}

/* the launch's result @err, then the comparison; frees everything */
static void
plane_case_finish (PlaneCase * pc, CfError err, const gchar * what)
{
  guint8 *got = g_malloc (pc->dst_size);
  guint64 bad = 0;
  gsize x;

  fail_unless (err == 0, "%s: launch: %s", what, cf_error_name (err));
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaMemcpy (got, pc->d_dst, pc->dst_size, cudaMemcpyDeviceToHost));
  for (x = 0; x < pc->dst_size; x++) {
    if (got[x] != pc->want[x] && bad++ == 0)
      g_printerr ("%s: byte %" G_GSIZE_FORMAT " got %u want %u\n", what, x,
          got[x], pc->want[x]);
  }
  fail_unless (bad == 0, "%s: %" G_GUINT64_FORMAT " bytes differ from the "
      "CPU reference", what, bad);
  CUDA_OK (cudaFree (pc->d_src));
  CUDA_OK (cudaFree (pc->d_dst));
  g_free (pc->src);
  g_free (pc->want);
  g_free (got);
}

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

/* blur: GPU against the CPU reference for one plane configuration; the
 * frame random, or all `solid` (0 .. 255); ky made from sy, or given */
static void
run_blur_case_full (gint w, gint h, gint channels, double sx, double sy,
    CfBorder border, PitchMode mode, gint solid, const CfBlurKernel * given_ky)
{
  gsize row = (gsize) w * channels;
  gsize scratch_size = cf_blur_scratch_bytes (w, h, channels);
  gchar *what = g_strdup_printf ("blur %dx%d, %d channels, sigma %g x %g%s, "
      "border %d, pitch mode %d, solid %d", w, h, channels, sx, sy,
      given_ky ? " (ky given)" : "", border, mode, solid);
  CfBlurKernel kx, ky;
  guint8 bv[4];
  void *scratch;
  PlaneCase pc;

  plane_case_init (&pc, row, row, h, mode);
  cf_test_fill_random (rand_, bv, 4);
  if (solid >= 0)
    memset (pc.src, solid, pc.src_size);
  plane_case_upload (&pc);
  fail_unless (cf_blur_kernel_make (sx, cf_blur_radius_for_sigma (sx),
          CF_BLUR_H_BITS, &kx) == 0);
  if (given_ky)
    ky = *given_ky;
  else
    fail_unless (cf_blur_kernel_make (sy, cf_blur_radius_for_sigma (sy),
            CF_BLUR_V_BITS, &ky) == 0);
  cf_ref_blur_plane (pc.src + pc.src_off, pc.src_pitch, pc.want + pc.dst_off,
      pc.dst_pitch, w, h, channels, &kx, &ky, border, bv);
  /* the intermediate plane starts poisoned too */
  CUDA_OK (cudaMalloc (&scratch, scratch_size));
  CUDA_OK (cudaMemset (scratch, POISON, scratch_size));
  plane_case_finish (&pc, cf_blur_plane (pc.d_src + pc.src_off,
          pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h, channels,
          &kx, &ky, border, bv, scratch, NULL), what);
  CUDA_OK (cudaFree (scratch));
  g_free (what);
}

static void
run_blur_case (gint w, gint h, gint channels, double sx, double sy,
    CfBorder border, PitchMode mode, gboolean solid)
{
  run_blur_case_full (w, h, channels, sx, sy, border, mode,
      solid ? g_rand_int_range (rand_, 0, 256) : -1, NULL);
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
  /* radius 30: the tensor-core pass's largest (3 chunks of taps) */
  for (ch = 1; ch <= 4; ch++)
    run_blur_case (1283, 517, ch, 10, 9, ch % 2 ? CF_BORDER_CONSTANT :
        CF_BORDER_REFLECT_101, ch < 3 ? PITCH_PADDED : PITCH_TIGHT, FALSE);
  run_blur_case (1921, 1081, 4, 20, 20, CF_BORDER_CONSTANT, PITCH_PADDED,
      FALSE);
  run_blur_case (641, 479, 4, 50, 50, CF_BORDER_REFLECT_101, PITCH_PADDED,
      FALSE);
  /* radius 18 and 21: halo 24, whose t ring is swizzled its own way */
  for (ch = 1; ch <= 4; ch++)
    run_blur_case (1283, 517, ch, 7, 6, ch % 2 ? CF_BORDER_REPLICATE :
        CF_BORDER_CONSTANT, ch < 3 ? PITCH_TIGHT : PITCH_PADDED, FALSE);
  /* a solid frame stays exactly solid */
  run_blur_case (1921, 1081, 4, 5, 5, CF_BORDER_REPLICATE, PITCH_PADDED, TRUE);
}

GST_END_TEST;

/* Widths that are multiples of 4, on aligned rows: the strips at both
 * edges of the frame are staged unit by unit with no per-pixel border
 * path, their units outside the frame filled after staging.  The last
 * strip whole (1920, 64), nearly empty (1284: 4 pixels) or nearly whole
 * (1340: 60 pixels), for each tensor-core halo (8, 16, 24, 32) and every
 * border rule. */
GST_START_TEST (test_blur_whole_unit_edges)
{
  static const gint widths[] = { 1920, 1284, 1340, 64 };
  static const double sigmas[] = { 2.6, 5, 7, 10 };
  guint w, s;
  gint ch, border;

  for (ch = 1; ch <= 4; ch++)
    for (w = 0; w < G_N_ELEMENTS (widths); w++)
      for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT; border++) {
        s = (ch + w + border) % G_N_ELEMENTS (sigmas);
        run_blur_case (widths[w], 83, ch, sigmas[s], sigmas[(s + 1) % 4],
            border, (ch + border) % 2 ? PITCH_PADDED : PITCH_TIGHT, FALSE);
      }
}

GST_END_TEST;

/* 4 channels, radius 8 or less, the replicate and reflect-101 rules: the
 * warps whose taps reach past the frame's edge fold the rule into their
 * band (blur.cu, folded_band_fragments).  The right edge at every place
 * in a warp's 16 pixels and in a strip's 4 warps, the narrowest frames that
 * fold (32) and the widest that do not (31), several strips and heights,
 * aligned and misaligned rows. */
GST_START_TEST (test_blur_folded_edges)
{
  static const gint widths[] = { 31, 32, 33, 47, 48, 49, 63, 65, 79, 94,
    111, 127, 128, 200, 1283
  };
  static const double sigmas[] = { 0.3, 1, 2, 2.6 };
  guint w, s;
  gint border;

  for (w = 0; w < G_N_ELEMENTS (widths); w++)
    for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_REFLECT_101;
        border++)
      for (s = 0; s < G_N_ELEMENTS (sigmas); s++)
        run_blur_case (widths[w], 19 + 16 * (gint) (w % 3), 4, sigmas[s],
            sigmas[(s + w) % G_N_ELEMENTS (sigmas)], border,
            (PitchMode) ((w + s + border) % 3), FALSE);
}

GST_END_TEST;

/* 4 channels, radius 8 or less, the replicate and reflect-101 rules,
 * widths a multiple of 4 (at least 32) on 16-byte aligned rows: on sm_90
 * the kernel that reads the copied rows without staging them (blur.cu,
 * blur_mma8_direct_kernel), elsewhere blur_mma8_kernel.  Frames one row
 * high and shorter than a step, heights that end a step early or late,
 * tall frames (several parts a strip), the last strip nearly empty
 * (1284) or whole (1920). */
GST_START_TEST (test_blur_direct_rows)
{
  static const struct
  {
    gint w, h;
  } frames[] = { {32, 1}, {36, 7}, {132, 16}, {1284, 17}, {64, 300},
  {1920, 1081}
  };
  static const double sigmas[] = { 0.3, 1.3, 2.6 };
  guint f, s;
  gint border;

  for (f = 0; f < G_N_ELEMENTS (frames); f++)
    for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_REFLECT_101;
        border++) {
      s = (f + border) % G_N_ELEMENTS (sigmas);
      run_blur_case (frames[f].w, frames[f].h, 4, sigmas[s],
          sigmas[(s + 1) % G_N_ELEMENTS (sigmas)], border,
          (f + border) % 2 ? PITCH_PADDED : PITCH_TIGHT, f == 2);
    }
}

GST_END_TEST;

/* Radii over 32 take the two tensor-core passes (blur.cu, "radii 33 to
 * 150"): either filter's radius over 32 with the other's small, both
 * large, the largest (150); frames narrower and shorter than the radius,
 * and several horizontal items and vertical strips, on every channel
 * count, border and pitch mode. */
GST_START_TEST (test_blur_large_radii)
{
  static const struct
  {
    double sx, sy;
  } sigmas[] = { {20, 0.5}, {1, 20}, {11, 35}, {50, 12} };
  static const struct
  {
    gint w, h;
  } frames[] = { {1, 1}, {3, 300}, {300, 5}, {130, 41}, {643, 211} };
  guint s, f, i = 0;
  gint ch, border;

  for (ch = 1; ch <= 4; ch++)
    for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT; border++)
      for (f = 0; f < G_N_ELEMENTS (frames); f++)
        for (s = 0; s < G_N_ELEMENTS (sigmas); s++, i++) {
          /* the largest frame with one pair each time: the reference
           * takes ~0.5 s a case there */
          if (f == G_N_ELEMENTS (frames) - 1
              && s != (guint) (ch + border) % G_N_ELEMENTS (sigmas))
            continue;
          run_blur_case (frames[f].w, frames[f].h, ch, sigmas[s].sx,
              sigmas[s].sy, border, (PitchMode) (i % 3), i % 7 == 0);
        }
}

GST_END_TEST;

/* The largest and smallest sums every path makes (white and black frames,
 * the sharpest and a flat kernel), and vertical weights that are not exact
 * in half precision, which the tensor-core pass leaves to the CUDA cores */
GST_START_TEST (test_blur_extreme_weights)
{
  static const double sigmas[] = { 0.3, 1, 2.6, 5, 7, 10, 20 };
  CfBlurKernel ky = { 1, {4098, 2047} };
  guint s;
  gint ch, v;

  for (s = 0; s < G_N_ELEMENTS (sigmas); s++)
    for (v = 0; v < 2; v++)
      run_blur_case_full (333, 71, 1 + s % 4, sigmas[s], sigmas[s], s % 3,
          PITCH_PADDED, v ? 255 : 0, NULL);
  for (ch = 1; ch <= 4; ch++) {
    run_blur_case_full (197, 45, ch, 2, 0, CF_BORDER_REFLECT_101,
        PITCH_PADDED, -1, &ky);
    run_blur_case_full (197, 45, ch, 2, 0, CF_BORDER_REPLICATE, PITCH_TIGHT,
        255, &ky);
  }
}

GST_END_TEST;


/* ---- histograms ------------------------------------------------------- */

typedef enum
{
  CONTENT_RANDOM,
  CONTENT_SOLID,
  CONTENT_GRADIENT,
  CONTENT_TWO_VALUES,           /* noise between two neighbours: short runs */
} Content;

static void
fill_content (guint8 * data, gsize size, Content content)
{
  guint32 colour = g_rand_int (rand_);
  gsize i;

  cf_test_fill_random (rand_, data, size);
  for (i = 0; content != CONTENT_RANDOM && i < size; i++) {
    if (content == CONTENT_SOLID)
      data[i] = (guint8) (colour >> (8 * (i % 4)));
    else if (content == CONTENT_GRADIENT)
      data[i] = (guint8) (i / 7);
    else
      data[i] = (guint8) (colour + (data[i] & 1));
  }
}

/* Up to three planes, each with its own pitch and a region starting at
 * (rx, ry) of rw x rh pixels; the GPU's counts, over a poisoned output,
 * equal the CPU's, and a second launch on the same workspace gives them
 * again (the kernel leaves its workspace zeroed). */
typedef struct
{
  gint w, h, bpp;
  gint channel[4];
} HistPlaneSpec;

/* The planes of a case, in host and device memory, with the region. */
typedef struct
{
  gint n_planes;
  CfSamplePlane host[CF_HIST_MAX_PLANES], dev[CF_HIST_MAX_PLANES];
  guint8 *h_data[CF_HIST_MAX_PLANES], *d_data[CF_HIST_MAX_PLANES];
} RegionPlanes;

static void
region_planes_init (RegionPlanes * rp, const HistPlaneSpec * spec,
    gint n_planes, gint rx, gint ry, gint rw, gint rh, PitchMode mode,
    Content content)
{
  gint p;

  rp->n_planes = n_planes;
  for (p = 0; p < n_planes; p++) {
    const HistPlaneSpec *sp = &spec[p];
    gsize row = (gsize) sp->w * sp->bpp, pitch = row, off = 0, size;
    /* the region in this plane's samples: subsampled planes take the
     * samples covering it */
    gint sx = sp->w == spec[0].w ? rx : rx / 2;
    gint sy = sp->h == spec[0].h ? ry : ry / 2;
    gint sw = sp->w == spec[0].w ? rw : (rx + rw + 1) / 2 - rx / 2;
    gint sh = sp->h == spec[0].h ? rh : (ry + rh + 1) / 2 - ry / 2;

    if (mode == PITCH_PADDED)
      pitch = GST_ROUND_UP_N (row, 256) + 256;
    else if (mode == PITCH_MISALIGNED) {
      pitch = row + 3;
      off = 5;
    }
    size = off + pitch * sp->h;
    rp->h_data[p] = g_malloc (size);
    fill_content (rp->h_data[p], size, content);
    CUDA_OK (cudaMalloc ((void **) &rp->d_data[p], size));
    CUDA_OK (cudaMemcpy (rp->d_data[p], rp->h_data[p], size,
            cudaMemcpyHostToDevice));
    off += (gsize) sy *pitch + (gsize) sx *sp->bpp;
    rp->host[p] = (CfSamplePlane) {
      rp->h_data[p] + off, pitch, sw, sh, sp->bpp, {
    sp->channel[0], sp->channel[1], sp->channel[2], sp->channel[3]}};
    rp->dev[p] = rp->host[p];
    rp->dev[p].data = rp->d_data[p] + off;
  }
}

static void
region_planes_clear (RegionPlanes * rp)
{
  gint p;

  for (p = 0; p < rp->n_planes; p++) {
    CUDA_OK (cudaFree (rp->d_data[p]));
    g_free (rp->h_data[p]);
  }
}

/* The counts of planes given in host memory (`host`) and device memory
 * (`dev`, the same samples), by both entry points, against the CPU's. */
static void
check_hist_planes (const CfSamplePlane * host, const CfSamplePlane * dev,
    gint n_planes, const gchar * what)
{
  const gsize n_counts = CF_HIST_MAX_CHANNELS * CF_HIST_BINS;
  guint32 *want = g_new (guint32, n_counts), *got = g_new (guint32, n_counts);
  guint32 *d_counts;
  void *ws;
  gint p, run;

  cf_ref_hist_planes (host, n_planes, want);

  CUDA_OK (cudaMalloc ((void **) &d_counts, n_counts * 4));
  CUDA_OK (cudaMalloc (&ws, cf_hist_workspace_bytes ()));
  fail_unless (cf_hist_workspace_init (ws, NULL) == 0);
  for (run = 0; run < 2; run++) {
    CfError err;

    CUDA_OK (cudaMemset (d_counts, POISON, n_counts * 4));
    err = cf_hist_planes (dev, n_planes, d_counts, ws, NULL);
    fail_unless (err == 0, "%s: launch: %s", what, cf_error_name (err));
    CUDA_OK (cudaDeviceSynchronize ());
    CUDA_OK (cudaMemcpy (got, d_counts, n_counts * 4, cudaMemcpyDeviceToHost));
    for (p = 0; p < (gint) n_counts; p++) {
      fail_unless (got[p] == want[p], "%s, run %d: channel %d value %d: "
          "GPU counts %u, CPU %u", what, run, p / CF_HIST_BINS,
          p % CF_HIST_BINS, got[p], want[p]);
    }
  }
  /* cf_hist_planes_add three times, taking turns between two buffers:
   * the first zeroed, the second poisoned until the first launch zeroes
   * it; the third launch adds into the first buffer again, which the
   * second zeroed after the first had added into it */
  {
    const gsize sums_bytes = cf_hist_sums_bytes ();
    guint8 *sums, *sums_host = g_malloc (sums_bytes);

    CUDA_OK (cudaMalloc ((void **) &sums, 2 * sums_bytes));
    CUDA_OK (cudaMemset (sums, 0, sums_bytes));
    CUDA_OK (cudaMemset (sums + sums_bytes, POISON, sums_bytes));
    for (run = 0; run < 3; run++) {
      guint8 *mine = sums + (run % 2) * sums_bytes;
      CfError err = cf_hist_planes_add (dev, n_planes, mine,
          sums + ((run + 1) % 2) * sums_bytes, NULL);

      fail_unless (err == 0, "%s: add launch: %s", what, cf_error_name (err));
      CUDA_OK (cudaDeviceSynchronize ());
      CUDA_OK (cudaMemcpy (sums_host, mine, sums_bytes,
              cudaMemcpyDeviceToHost));
      memset (got, POISON, n_counts * 4);
      cf_hist_sums_counts (sums_host, got);
      for (p = 0; p < (gint) n_counts; p++) {
        fail_unless (got[p] == want[p], "%s, add run %d: channel %d value %d: "
            "GPU counts %u, CPU %u", what, run, p / CF_HIST_BINS,
            p % CF_HIST_BINS, got[p], want[p]);
      }
    }
    CUDA_OK (cudaFree (sums));
    g_free (sums_host);
  }
  CUDA_OK (cudaFree (d_counts));
  CUDA_OK (cudaFree (ws));
  g_free (want);
  g_free (got);
}

static void
run_hist_case (const HistPlaneSpec * spec, gint n_planes, gint rx, gint ry,
    gint rw, gint rh, PitchMode mode, Content content, const gchar * what)
{
  RegionPlanes rp;

  region_planes_init (&rp, spec, n_planes, rx, ry, rw, rh, mode, content);
  check_hist_planes (rp.host, rp.dev, n_planes, what);
  region_planes_clear (&rp);
}

static const HistPlaneSpec hist_rgba = { 0, 0, 4, {0, 1, 2, 3} };
static const HistPlaneSpec hist_xrgb = { 0, 0, 4, {-1, 0, 1, 2} };
static const HistPlaneSpec hist_bgr = { 0, 0, 3, {2, 1, 0, -1} };
static const HistPlaneSpec hist_gray = { 0, 0, 1, {0, -1, -1, -1} };

static void
run_hist_layouts (gint w, gint h, PitchMode mode, Content content)
{
  const HistPlaneSpec *packed[] = { &hist_rgba, &hist_xrgb, &hist_bgr,
    &hist_gray
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (packed); i++) {
    HistPlaneSpec sp = *packed[i];
    gchar *what = g_strdup_printf ("hist bpp %d %dx%d mode %d content %d",
        sp.bpp, w, h, mode, content);

    sp.w = w;
    sp.h = h;
    run_hist_case (&sp, 1, 0, 0, w, h, mode, content, what);
    g_free (what);
  }
  {
    /* NV12: luma, then interleaved chroma; I420: three planes */
    gint cw = (w + 1) / 2, ch = (h + 1) / 2;
    HistPlaneSpec nv12[2] = { {w, h, 1, {0, -1, -1, -1}
        },
    {cw, ch, 2, {1, 2, -1, -1}
        }
    };
    HistPlaneSpec i420[3] = { {w, h, 1, {0, -1, -1, -1}
        },
    {cw, ch, 1, {1, -1, -1, -1}
        }, {cw, ch, 1, {2, -1, -1, -1}
        }
    };
    gchar *what = g_strdup_printf ("hist NV12 %dx%d mode %d content %d", w, h,
        mode, content);
    run_hist_case (nv12, 2, 0, 0, w, h, mode, content, what);
    g_free (what);
    what = g_strdup_printf ("hist I420 %dx%d mode %d content %d", w, h, mode,
        content);
    run_hist_case (i420, 3, 0, 0, w, h, mode, content, what);
    g_free (what);
  }
}

static void
check_hist_equals_reference (void)
{
  guint s, mode, content;

  for (s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
      run_hist_layouts (sizes[s].w, sizes[s].h, mode, CONTENT_RANDOM);
  for (content = CONTENT_SOLID; content <= CONTENT_TWO_VALUES; content++) {
    run_hist_layouts (1921, 1081, PITCH_PADDED, content);
    run_hist_layouts (17, 5, PITCH_MISALIGNED, content);
  }
  run_hist_layouts (3840, 2160, PITCH_TIGHT, CONTENT_RANDOM);
  /* where cutting rows into segments leaves some warps a segment more than
   * most, the planes are one run in even items (on a GPU of 132 SMs, such
   * as the H100: 1080p RGBA, and 4K NV12 and I420 above) */
  run_hist_layouts (1920, 1080, PITCH_TIGHT, CONTENT_RANDOM);
  run_hist_layouts (1920, 1080, PITCH_TIGHT, CONTENT_SOLID);
  /* short rows of whole aligned units in padded planes: counted as one
   * run of units, segments spanning rows */
  run_hist_layouts (8, 1081, PITCH_PADDED, CONTENT_RANDOM);
  run_hist_layouts (256, 67, PITCH_PADDED, CONTENT_GRADIENT);
  /* frames of 4 items a warp or more, whose last items go to the warps
   * that ask first (on the H100: 4K RGBA and xRGB, and every layout at
   * 8K but 3-byte pixels, where NV12's and I420's shared items span
   * their planes), on random data and a solid colour */
  run_hist_layouts (3840, 2160, PITCH_PADDED, CONTENT_SOLID);
  run_hist_layouts (7680, 4320, PITCH_PADDED, CONTENT_RANDOM);
  {
    /* runs of many segments a warp, so that the 8-bit counters are
     * flushed between them, on a solid colour (every count of a lane on
     * one counter) */
    HistPlaneSpec gray = hist_gray, rgba = hist_rgba;

    gray.w = 1920;
    rgba.w = 480;
    gray.h = rgba.h = 16000;
    run_hist_case (&gray, 1, 0, 0, gray.w, gray.h, PITCH_PADDED,
        CONTENT_SOLID, "hist GRAY8 1920x16000 runs, solid");
    run_hist_case (&rgba, 1, 0, 0, rgba.w, rgba.h, PITCH_PADDED,
        CONTENT_SOLID, "hist RGBA 480x16000 runs, solid");
    /* one run of units, segments spanning rows, long enough that its
     * last items are shared (on the H100) */
    gray.w = 256;
    gray.h = 70000;
    run_hist_case (&gray, 1, 0, 0, gray.w, gray.h, PITCH_PADDED,
        CONTENT_RANDOM, "hist GRAY8 256x70000 one run, shared items");
  }
}

static void
check_hist_regions (void)
{
  static const struct
  {
    gint x, y, w, h;
  } roi[] = {
    {0, 0, 1, 1}, {1, 1, 1, 1}, {3, 2, 7, 5}, {5, 0, 600, 1}, {0, 17, 1, 300},
    {13, 11, 1001, 777}, {1920, 1080, 1, 1},
    /* aligned regions of whole units (padded mode): one run of units */
    {16, 2, 64, 9}, {4, 3, 100, 50},
  };
  HistPlaneSpec rgba = hist_rgba, bgr = hist_bgr;
  HistPlaneSpec nv12[2] = { {1921, 1081, 1, {0, -1, -1, -1}},
  {961, 541, 2, {1, 2, -1, -1}}
  };
  guint i, mode;

  rgba.w = bgr.w = 1921;
  rgba.h = bgr.h = 1081;
  for (i = 0; i < G_N_ELEMENTS (roi); i++)
    for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++) {
      gchar *what = g_strdup_printf ("hist region %d,%d %dx%d mode %d",
          roi[i].x, roi[i].y, roi[i].w, roi[i].h, mode);
      run_hist_case (&rgba, 1, roi[i].x, roi[i].y, roi[i].w, roi[i].h, mode,
          CONTENT_RANDOM, what);
      run_hist_case (&bgr, 1, roi[i].x, roi[i].y, roi[i].w, roi[i].h, mode,
          CONTENT_GRADIENT, what);
      run_hist_case (nv12, 2, roi[i].x, roi[i].y, roi[i].w, roi[i].h, mode,
          CONTENT_RANDOM, what);
      g_free (what);
    }
}

/* Launch shapes are cached per kind of format: one with a byte not
 * counted (160 KB of counters a block) after one without (128 KB) and
 * again after it, for 4-byte and 3-byte pixels; planes of mixed bytes per
 * pixel in one launch; empty regions and no planes at all (all counts
 * zero).  test_hist_shapes runs before the other histogram tests, while
 * nothing is cached yet. */
static void
check_hist_shapes (void)
{
  /* a 3-byte pixel with a byte not counted */
  static const HistPlaneSpec hist_bxr = { 0, 0, 3, {2, -1, 0, -1} };
  const HistPlaneSpec *order[] = { &hist_xrgb, &hist_rgba, &hist_xrgb,
    &hist_bxr, &hist_bgr, &hist_bxr
  };
  HistPlaneSpec mixed[3] = { {67, 33, 4, {0, 1, 2, 3}},
  {67, 33, 3, {1, -1, 2, -1}},
  {67, 33, 1, {3, -1, -1, -1}}
  };
  HistPlaneSpec rgba = hist_rgba;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (order); i++) {
    HistPlaneSpec sp = *order[i];
    gchar *what = g_strdup_printf ("hist shape %u (bpp %d)", i, sp.bpp);

    sp.w = sp.h = 64;
    run_hist_case (&sp, 1, 0, 0, sp.w, sp.h, PITCH_TIGHT, CONTENT_RANDOM, what);
    g_free (what);
  }
  run_hist_case (mixed, 3, 0, 0, 67, 33, PITCH_PADDED, CONTENT_RANDOM,
      "hist planes of 4, 3 and 1 bytes a pixel");
  rgba.w = rgba.h = 64;
  run_hist_case (&rgba, 1, 3, 3, 0, 5, PITCH_PADDED, CONTENT_RANDOM,
      "hist region 0x5");
  run_hist_case (&rgba, 1, 3, 3, 5, 0, PITCH_PADDED, CONTENT_RANDOM,
      "hist region 5x0");
  run_hist_case (&rgba, 0, 0, 0, 0, 0, PITCH_PADDED, CONTENT_RANDOM,
      "hist no planes");
  /* an empty 3-byte plane before a tight 1080p RGBA one, which a launch
   * of the 32-bit counters cuts as one run (every warp 2 items, not 3):
   * the empty plane may not choose the kernel */
  {
    RegionPlanes rp;
    CfSamplePlane host[2] = { {NULL, 0, 0, 0, 3, {0, 1, 2, -1}
        }
    }, dev[2];

    rgba.w = 1920;
    rgba.h = 1080;
    region_planes_init (&rp, &rgba, 1, 0, 0, 1920, 1080, PITCH_TIGHT,
        CONTENT_RANDOM);
    host[1] = rp.host[0];
    dev[0] = host[0];
    dev[1] = rp.dev[0];
    check_hist_planes (host, dev, 2, "hist an empty 3-byte plane, then RGBA");
    region_planes_clear (&rp);
  }
}

GST_START_TEST (test_hist_shapes)
{
  check_hist_shapes ();
}

GST_END_TEST;

GST_START_TEST (test_hist_equals_reference)
{
  check_hist_equals_reference ();
}

GST_END_TEST;

GST_START_TEST (test_hist_regions)
{
  check_hist_regions ();
}

GST_END_TEST;

/* The layout of counters for GPUs with less shared memory a block (under
 * 128 KB: sm_75, sm_86, sm_89), run here on whatever GPU there is.  The
 * tests share a process (CK_FORK=no); a failure here would leave the
 * layout forced for the tests after it, which count the same either way. */
GST_START_TEST (test_hist_warp_bytes_equals_reference)
{
  cf_hist_set_layout (CF_HIST_LAYOUT_WARP_BYTES);
  check_hist_shapes ();
  check_hist_equals_reference ();
  check_hist_regions ();
  cf_hist_set_layout (CF_HIST_LAYOUT_AUTO);
}

GST_END_TEST;

/* ---- statistics ------------------------------------------------------ */

/* The key weights of a plane spec: BT.601 on the bytes of channels 0, 1
 * and 2 (R, G, B), or, every other time, random weights of any byte, each
 * under 2^16 and together at most 65536 (keys up to 255); a 1-byte plane's
 * key is its byte. */
static void
key_weights (const HistPlaneSpec * sp, guint32 weights[4])
{
  CfGrayWeights w = cf_gray_weights (CF_GRAY_MATRIX_BT601);
  guint32 left = 65536;
  gint b;

  memset (weights, 0, 4 * sizeof (guint32));
  if (sp->bpp > 1 && g_rand_boolean (rand_)) {
    for (b = 0; b < sp->bpp; b++) {
      weights[b] = g_rand_int_range (rand_, 0, MIN (left, 65535) + 1);
      left -= weights[b];
    }
    return;
  }
  for (b = 0; b < sp->bpp; b++)
    weights[b] = sp->channel[b] == 0 ? w.kr : sp->channel[b] == 1 ? w.kg :
        sp->channel[b] == 2 ? w.kb : 0;
}

/* cf_sum_planes against cf_ref_sum_planes with @flags: the statistics,
 * profiles and kept keys over poisoned outputs, twice on one workspace
 * (the second run compares with the keys the first kept, so with DIFF its
 * difference is 0); then cf_sum_planes_add three times, taking turns
 * between two buffers (the first zeroed, the second poisoned until the
 * first launch zeroes it; the third adds into the first again, which the
 * second zeroed after the first had added into it). */
static void
run_sum_case (const HistPlaneSpec * spec, gint n_planes, gint rx, gint ry,
    gint rw, gint rh, PitchMode mode, Content content, unsigned flags,
    const gchar * what)
{
  RegionPlanes rp;
  CfSumKey key = { 0, };
  CfSumStats want, *got;
  gsize prev_pitch = GST_ROUND_UP_16 (MAX (rw, 1)), prev_size;
  guint8 *h_prev, *d_prev, *got_prev;
  guint32 *want_rows, *d_rows, *got_rows;
  gsize n_rows = (gsize) rh + rw;
  /* (each buffer 8-byte aligned, for its 64-bit sums) */
  const gsize sums_bytes =
      GST_ROUND_UP_N (cf_sum_workspace_bytes (rw, rh), 256);
  guint8 *sums, *h_sums;
  void *ws;
  gint run;
  gsize i;

  region_planes_init (&rp, spec, n_planes, rx, ry, rw, rh, mode, content);
  prev_size = prev_pitch * MAX (rh, 1);
  h_prev = g_malloc (prev_size);
  got_prev = g_malloc (prev_size);
  cf_test_fill_random (rand_, h_prev, prev_size);
  CUDA_OK (cudaMalloc ((void **) &d_prev, prev_size));
  CUDA_OK (cudaMemcpy (d_prev, h_prev, prev_size, cudaMemcpyHostToDevice));
  want_rows = g_new0 (guint32, MAX (n_rows, 1));
  got_rows = g_new0 (guint32, MAX (n_rows, 1));
  CUDA_OK (cudaMalloc ((void **) &d_rows, 4 * MAX (n_rows, 1)));
  CUDA_OK (cudaMallocManaged ((void **) &got, sizeof (CfSumStats),
          cudaMemAttachGlobal));
  CUDA_OK (cudaMalloc (&ws, cf_sum_workspace_bytes (rw, rh)));
  CUDA_OK (cudaMemset (ws, 0, cf_sum_workspace_bytes (rw, rh)));
  CUDA_OK (cudaMalloc ((void **) &sums, 2 * sums_bytes));
  CUDA_OK (cudaMemset (sums, 0, sums_bytes));
  CUDA_OK (cudaMemset (sums + sums_bytes, POISON, sums_bytes));
  h_sums = g_malloc (sums_bytes);

  key.flags = flags;
  key_weights (&spec[0], key.weights);
  key.black_threshold = 24 + g_rand_int_range (rand_, 0, 100);
  key.previous_pitch = prev_pitch;

  for (run = 0; run < 5; run++) {
    const gboolean add = run >= 2;
    CfError err;

    key.previous = h_prev;
    cf_ref_sum_planes (rp.host, n_planes, &key, &want, want_rows,
        want_rows + rh);
    key.previous = d_prev;
    memset (got, POISON, sizeof (*got));
    CUDA_OK (cudaMemset (d_rows, POISON, 4 * MAX (n_rows, 1)));
    if (!add)
      err = cf_sum_planes (rp.dev, n_planes, &key, got, d_rows, d_rows + rh,
          ws, NULL);
    else
      err = cf_sum_planes_add (rp.dev, n_planes, &key,
          sums + (run % 2) * sums_bytes, sums + ((run + 1) % 2) * sums_bytes,
          sums_bytes, NULL);
    fail_unless (err == 0, "%s: launch: %s", what, cf_error_name (err));
    CUDA_OK (cudaDeviceSynchronize ());
    if (add) {
      const guint32 *rows;

      CUDA_OK (cudaMemcpy (h_sums, sums + (run % 2) * sums_bytes, sums_bytes,
              cudaMemcpyDeviceToHost));
      rows = cf_sum_sums_read (h_sums, got);
      CUDA_OK (cudaMemcpy (d_rows, rows, 4 * n_rows, cudaMemcpyHostToDevice));
    }
    for (i = 0; i < CF_HIST_MAX_CHANNELS; i++) {
      fail_unless (got->sum[i] == want.sum[i] &&
          got->sum_squares[i] == want.sum_squares[i] &&
          got->min[i] == want.min[i] && got->max[i] == want.max[i],
          "%s, run %d: channel %u: GPU sum %" G_GUINT64_FORMAT " squares %"
          G_GUINT64_FORMAT " min %u max %u, CPU %" G_GUINT64_FORMAT " %"
          G_GUINT64_FORMAT " %u %u", what, run, (guint) i, got->sum[i],
          got->sum_squares[i], got->min[i], got->max[i], want.sum[i],
          want.sum_squares[i], want.min[i], want.max[i]);
    }
    fail_unless (got->black == want.black, "%s, run %d: black %"
        G_GUINT64_FORMAT ", CPU %" G_GUINT64_FORMAT, what, run, got->black,
        want.black);
    fail_unless (got->abs_diff == want.abs_diff, "%s, run %d: abs_diff %"
        G_GUINT64_FORMAT ", CPU %" G_GUINT64_FORMAT, what, run, got->abs_diff,
        want.abs_diff);
    if (flags & CF_SUM_PROFILES) {
      CUDA_OK (cudaMemcpy (got_rows, d_rows, 4 * n_rows,
              cudaMemcpyDeviceToHost));
      for (i = 0; i < n_rows; i++)
        fail_unless (got_rows[i] == want_rows[i], "%s, run %d: %s %u: GPU %u, "
            "CPU %u", what, run, i < (gsize) rh ? "row" : "column",
            (guint) (i < (gsize) rh ? i : i - rh), got_rows[i], want_rows[i]);
    }
    CUDA_OK (cudaMemcpy (got_prev, d_prev, prev_size, cudaMemcpyDeviceToHost));
    /* kept keys where asked, the rest untouched (padding included) */
    fail_unless (memcmp (got_prev, h_prev, prev_size) == 0,
        "%s, run %d: kept keys differ", what, run);
  }
  region_planes_clear (&rp);
  CUDA_OK (cudaFree (d_prev));
  CUDA_OK (cudaFree (d_rows));
  CUDA_OK (cudaFree (got));
  CUDA_OK (cudaFree (ws));
  CUDA_OK (cudaFree (sums));
  g_free (h_sums);
  g_free (h_prev);
  g_free (got_prev);
  g_free (want_rows);
  g_free (got_rows);
}

static const unsigned sum_flag_sets[] = {
  0, CF_SUM_PROFILES, CF_SUM_BLACK | CF_SUM_KEEP,
  CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF | CF_SUM_KEEP, CF_SUM_DIFF,
};

static void
run_sum_layouts (gint w, gint h, PitchMode mode, Content content)
{
  const HistPlaneSpec *packed[] = { &hist_rgba, &hist_xrgb, &hist_bgr,
    &hist_gray
  };
  guint i, f;

  for (f = 0; f < G_N_ELEMENTS (sum_flag_sets); f++) {
    unsigned flags = sum_flag_sets[f];
    HistPlaneSpec nv12[2] = { {w, h, 1, {0, -1, -1, -1}},
    {(w + 1) / 2, (h + 1) / 2, 2, {1, 2, -1, -1}}
    };
    HistPlaneSpec i420[3] = { {w, h, 1, {0, -1, -1, -1}},
    {(w + 1) / 2, (h + 1) / 2, 1, {1, -1, -1, -1}},
    {(w + 1) / 2, (h + 1) / 2, 1, {2, -1, -1, -1}}
    };
    gchar *what;

    for (i = 0; i < G_N_ELEMENTS (packed); i++) {
      HistPlaneSpec sp = *packed[i];
      sp.w = w;
      sp.h = h;
      what = g_strdup_printf ("sum bpp %d %dx%d mode %d content %d flags %u",
          sp.bpp, w, h, mode, content, flags);
      run_sum_case (&sp, 1, 0, 0, w, h, mode, content, flags, what);
      g_free (what);
    }
    what = g_strdup_printf ("sum NV12 %dx%d mode %d content %d flags %u", w,
        h, mode, content, flags);
    run_sum_case (nv12, 2, 0, 0, w, h, mode, content, flags, what);
    g_free (what);
    what = g_strdup_printf ("sum I420 %dx%d mode %d content %d flags %u", w,
        h, mode, content, flags);
    run_sum_case (i420, 3, 0, 0, w, h, mode, content, flags, what);
    g_free (what);
  }
}

GST_START_TEST (test_sum_equals_reference)
{
  guint s, mode, content;

  for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++)
      run_sum_layouts (sizes[s].w, sizes[s].h, mode, CONTENT_RANDOM);
  for (content = CONTENT_SOLID; content <= CONTENT_TWO_VALUES; content++) {
    run_sum_layouts (1921, 1081, PITCH_PADDED, content);
    run_sum_layouts (17, 5, PITCH_MISALIGNED, content);
  }
  /* rows of 1 and 2 aligned vectors (RGBA 4 and 8 pixels wide, GRAY8 16
   * and 32), the narrowest the statistics' runs of vectors take or not */
  run_sum_layouts (4, 301, PITCH_PADDED, CONTENT_RANDOM);
  run_sum_layouts (8, 301, PITCH_TIGHT, CONTENT_RANDOM);
  run_sum_layouts (16, 301, PITCH_PADDED, CONTENT_RANDOM);
  run_sum_layouts (32, 301, PITCH_TIGHT, CONTENT_RANDOM);
  /* tall and wide: many tiles per block, 16-bit sums near their limit;
   * padded, the statistics' runs find each vector's row across many
   * blocks and planes */
  run_sum_layouts (3, 4000, PITCH_TIGHT, CONTENT_SOLID);
  run_sum_layouts (3840, 2160, PITCH_TIGHT, CONTENT_RANDOM);
  run_sum_layouts (3840, 2160, PITCH_PADDED, CONTENT_RANDOM);
  /* planes of exactly whole blocks of the statistics' runs (2048 vectors:
   * RGBA 512 x 16 tight, one padded row of RGBA 8192) */
  run_sum_layouts (512, 16, PITCH_TIGHT, CONTENT_RANDOM);
  run_sum_layouts (8192, 1, PITCH_PADDED, CONTENT_RANDOM);
  /* more tiles than one wave of blocks may count, 12 tiles a block at
   * most (3401 tiles of 64 rows; an H100 holds 264 blocks): the launch
   * takes two waves of blocks */
  run_sum_layouts (3, 64 * 3400 + 7, PITCH_PADDED, CONTENT_SOLID);
}

GST_END_TEST;

GST_START_TEST (test_sum_regions)
{
  static const struct
  {
    gint x, y, w, h;
  } roi[] = {
    {0, 0, 301, 211}, {1, 1, 1, 1}, {3, 5, 17, 9}, {100, 0, 0, 1},
    {0, 100, 1, 0}, {251, 161, 50, 50}, {2, 1, 299, 210},
  };
  HistPlaneSpec rgba = hist_rgba, bgr = hist_bgr;
  HistPlaneSpec nv12[2] = { {301, 211, 1, {0, -1, -1, -1}},
  {151, 106, 2, {1, 2, -1, -1}}
  };
  guint i, mode, f;

  rgba.w = bgr.w = 301;
  rgba.h = bgr.h = 211;
  for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
    for (i = 0; i < G_N_ELEMENTS (roi); i++)
      for (f = 0; f < G_N_ELEMENTS (sum_flag_sets); f++) {
        gchar *what = g_strdup_printf ("sum region %d,%d %dx%d mode %d "
            "flags %u", roi[i].x, roi[i].y, roi[i].w, roi[i].h, mode,
            sum_flag_sets[f]);
        run_sum_case (&rgba, 1, roi[i].x, roi[i].y, roi[i].w, roi[i].h, mode,
            CONTENT_RANDOM, sum_flag_sets[f], what);
        run_sum_case (&bgr, 1, roi[i].x, roi[i].y, roi[i].w, roi[i].h, mode,
            CONTENT_RANDOM, sum_flag_sets[f], what);
        run_sum_case (nv12, 2, roi[i].x, roi[i].y, roi[i].w, roi[i].h, mode,
            CONTENT_RANDOM, sum_flag_sets[f], what);
        g_free (what);
      }
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
  {
    CfSamplePlane ok = { d, 64, 16, 4, 4, {0, 1, 2, 3} }, bad;
    guint32 *counts;
    void *ws;

    CUDA_OK (cudaMalloc ((void **) &counts, 4 * CF_HIST_MAX_CHANNELS *
            CF_HIST_BINS));
    CUDA_OK (cudaMalloc (&ws, cf_hist_workspace_bytes ()));
    fail_unless (cf_hist_workspace_init (ws, NULL) == 0);
    fail_unless (cf_hist_planes (&ok, 1, counts, ws, NULL) == 0);
    fail_if (cf_hist_planes (&ok, 4, counts, ws, NULL) == 0);
    fail_if (cf_hist_planes (&ok, 1, NULL, ws, NULL) == 0);
    bad = ok;
    bad.bytes_per_pixel = 5;
    fail_if (cf_hist_planes (&bad, 1, counts, ws, NULL) == 0);
    bad = ok;
    bad.pitch = 8;
    fail_if (cf_hist_planes (&bad, 1, counts, ws, NULL) == 0);
    bad = ok;
    bad.channel[1] = CF_HIST_MAX_CHANNELS;
    fail_if (cf_hist_planes (&bad, 1, counts, ws, NULL) == 0);
    /* the sums: the workspace's size; none, or zeroing themselves, refused */
    fail_unless (cf_hist_sums_bytes () == cf_hist_workspace_bytes ());
    fail_if (cf_hist_planes_add (&ok, 1, NULL, NULL, NULL) == 0);
    fail_if (cf_hist_planes_add (&ok, 1, ws, ws, NULL) == 0);
    fail_if (cf_hist_planes_add (&bad, 1, ws, NULL, NULL) == 0);
    /* a buffer to zero that overlaps the sums, or is not word-aligned */
    fail_if (cf_hist_planes_add (&ok, 1, ws, (guint8 *) ws + 64, NULL) == 0);
    fail_if (cf_hist_planes_add (&ok, 1, (guint8 *) ws + 64, ws, NULL) == 0);
    fail_if (cf_hist_planes_add (&ok, 1, ws, (guint8 *) counts + 2, NULL) == 0);
    /* a row too long for the kernel's int offsets (2^31 - 4 bytes) */
    bad = ok;
    bad.width = 536870911;
    bad.height = 1;
    fail_if (cf_hist_planes (&bad, 1, counts, ws, NULL) == 0);
    CUDA_OK (cudaDeviceSynchronize ());
    CUDA_OK (cudaFree (counts));
    CUDA_OK (cudaFree (ws));
  }
  {
    CfSamplePlane ok = { d, 64, 16, 4, 4, {0, 1, 2, 3} }, bad;
    CfSumKey key = { CF_SUM_PROFILES | CF_SUM_DIFF, {19595, 38470, 7471, 0},
    24, d + 3072, 16
    };
    CfSumStats *stats;
    guint32 *rows;
    void *ws;

    CUDA_OK (cudaMalloc ((void **) &stats, sizeof (CfSumStats)));
    CUDA_OK (cudaMalloc ((void **) &rows, 4 * 64));
    CUDA_OK (cudaMalloc (&ws, cf_sum_workspace_bytes (16, 4)));
    CUDA_OK (cudaMemset (ws, 0, cf_sum_workspace_bytes (16, 4)));
    fail_unless (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    fail_if (cf_sum_planes (&ok, 4, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    fail_if (cf_sum_planes (&ok, 1, &key, NULL, rows, rows + 4, ws, NULL) == 0);
    fail_if (cf_sum_planes (&ok, 1, &key, stats, NULL, NULL, ws, NULL) == 0);
    /* the sums: none, zeroing themselves, or not whole words, refused */
    fail_if (cf_sum_planes_add (&ok, 1, &key, NULL, NULL, 0, NULL) == 0);
    fail_if (cf_sum_planes_add (&ok, 1, &key, ws, ws, 64, NULL) == 0);
    /* a buffer to zero that overlaps the sums */
    fail_if (cf_sum_planes_add (&ok, 1, &key, ws, (guint8 *) ws + 64, 64,
            NULL) == 0);
    fail_if (cf_sum_planes_add (&ok, 1, &key, (guint8 *) ws + 64, ws, 128,
            NULL) == 0);
    fail_if (cf_sum_planes_add (&ok, 1, &key, ws, rows, 6, NULL) == 0);
    fail_if (cf_sum_planes_add (&ok, 1, &key, ws, NULL, 64, NULL) == 0);
    fail_if (cf_sum_planes_add (&ok, 1, &key, (guint8 *) ws + 4, NULL, 0,
            NULL) == 0);
    bad = ok;
    bad.bytes_per_pixel = 2;    /* a key needs 1, 3 or 4 bytes per pixel */
    fail_if (cf_sum_planes (&bad, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    bad = ok;
    bad.pitch = 8;
    fail_if (cf_sum_planes (&bad, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    key.weights[0] = 65536;     /* a key above 255 */
    fail_if (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    key.weights[0] = 65535;     /* key = byte 0: accepted */
    key.weights[1] = key.weights[2] = 0;
    fail_unless (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    key.weights[0] = 65536;     /* a weight over 65535 */
    fail_if (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    key.weights[0] = 19595;
    key.weights[1] = 38470;
    key.weights[2] = 7471;
    key.previous_pitch = 8;     /* not a multiple of 16 */
    fail_if (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    key.previous_pitch = 16;
    key.flags = 1 << 7;
    fail_if (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    CUDA_OK (cudaDeviceSynchronize ());
    CUDA_OK (cudaFree (stats));
    CUDA_OK (cudaFree (rows));
    CUDA_OK (cudaFree (ws));
  }

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
  tcase_add_test (tc, test_blur_whole_unit_edges);
  tcase_add_test (tc, test_blur_folded_edges);
  tcase_add_test (tc, test_blur_direct_rows);
  tcase_add_test (tc, test_blur_large_radii);
  tcase_add_test (tc, test_blur_extreme_weights);
  tcase_add_test (tc, test_hist_shapes);
  tcase_add_test (tc, test_hist_equals_reference);
  tcase_add_test (tc, test_hist_regions);
  tcase_add_test (tc, test_hist_warp_bytes_equals_reference);
  tcase_add_test (tc, test_sum_equals_reference);
  tcase_add_test (tc, test_sum_regions);
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
