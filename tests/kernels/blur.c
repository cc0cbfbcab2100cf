/* cf_blur_plane against its CPU reference: every channel count, border
 * rule and sigma, small, odd, large and wide frames, the paths of the
 * launch (tensor-core halos, folded edges, rows read without staging,
 * radii over 32), extreme weights, tight, padded and misaligned pitches,
 * random and solid frames, outputs (and the intermediate plane) poisoned
 * first and checked byte for byte, padding included; the arguments it
 * refuses. */
#include "cf-kernel-test.h"
#include "cudafilters-kernels-testing.h"

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

/* 1 and 2 channels at radius 8 or less (NV12's planes): a warp of
 * blur_mma8_kernel owns 16 columns of a strip of 64, and stores its
 * outputs with or without checks.  The right edge at every place in a
 * warp's columns and in each warp of a strip, and one past, over several
 * strips; heights within a step and across several; every border rule and
 * pitch mode. */
GST_START_TEST (test_blur_narrow_edges)
{
  static const gint widths[] = { 1, 8, 15, 16, 17, 24, 31, 32, 33, 47, 48,
    49, 63, 64, 65, 80, 95, 96, 97, 111, 112, 127, 128, 129, 159, 191, 255,
    256, 257, 300, 383, 384, 385, 511, 513
  };
  static const double sigmas[] = { 1, 2, 2.6 };
  guint w, s;
  gint ch, border;

  for (ch = 1; ch <= 2; ch++)
    for (w = 0; w < G_N_ELEMENTS (widths); w++)
      for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT; border++) {
        /* the sigma moves with every width, the pitch mode every third:
         * each three widths in a row meet every sigma on one pitch mode */
        s = (w + border + ch) % G_N_ELEMENTS (sigmas);
        run_blur_case (widths[w], 5 + 14 * (gint) ((w + border) % 4), ch,
            sigmas[s], sigmas[(s + 1) % G_N_ELEMENTS (sigmas)],
            (CfBorder) border, (PitchMode) ((w / 3 + border + ch) % 3), FALSE);
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

/* 1 and 2 channels (NV12's planes), radius 8 or less, the replicate and
 * reflect-101 rules, rows of whole 16-byte units (at least 32 pixels) on
 * 16-byte aligned rows: on sm_90 the kernel that reads the copied rows
 * without staging them (blur.cu, blur_mma8_narrow_kernel), elsewhere
 * blur_mma8_kernel.  Frames one row high and shorter than a step, heights
 * that end a step early or late, tall frames (several parts a strip), the
 * last strip 16 pixels (1296, 1 channel) or 8 (968, 2 channels: both with
 * rows 16 bytes off a 32-byte sector) or whole (1920, 960), a solid
 * frame. */
GST_START_TEST (test_blur_direct_planes)
{
  static const struct
  {
    gint ch, w, h;
  } frames[] = { {1, 32, 1}, {1, 48, 7}, {1, 64, 16}, {1, 1296, 17},
  {1, 80, 300}, {1, 1920, 1081}, {2, 32, 1}, {2, 40, 7}, {2, 72, 16},
  {2, 968, 17}, {2, 136, 300}, {2, 960, 541}
  };
  static const double sigmas[] = { 0.3, 1.3, 2.6 };
  guint f, s;
  gint border;

  for (f = 0; f < G_N_ELEMENTS (frames); f++)
    for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_REFLECT_101;
        border++)
      for (s = 0; s < G_N_ELEMENTS (sigmas); s++)
        run_blur_case (frames[f].w, frames[f].h, frames[f].ch, sigmas[s],
            sigmas[(s + f + border) % G_N_ELEMENTS (sigmas)], border,
            (f + s + border) % 2 ? PITCH_PADDED : PITCH_TIGHT, f == 4
            && s == 2);
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

/* Plane i of a w x h frame of 2 planes (semi-planar: the chroma of 2
 * channels, at half size) or 3 (at half size where `subsampled`, else
 * alike), blurred at `sigma` (halved on a subsampled plane): its size,
 * channels and sigma */
static void
frame_plane (gint w, gint h, gint n, gboolean subsampled, gint i,
    double sigma, gint * pw, gint * ph, gint * ch, double *sx)
{
  *pw = i && subsampled ? (w + 1) / 2 : w;
  *ph = i && subsampled ? (h + 1) / 2 : h;
  *ch = i && n == 2 ? 2 : 1;
  *sx = i && subsampled ? sigma / 2 : sigma;
}

/* The planes calls' plane of a case's device buffers, its source
 * `offset` bytes in; the border values left to the caller */
static void
case_plane (CfBlurPlane * plane, const PlaneCase * pc, gsize offset, gint w,
    gint h, gint channels, const CfBlurKernel * kx, const CfBlurKernel * ky)
{
  plane->src = pc->d_src + pc->src_off + offset;
  plane->src_pitch = pc->src_pitch;
  plane->dst = pc->d_dst + pc->dst_off;
  plane->dst_pitch = pc->dst_pitch;
  plane->width = w;
  plane->height = h;
  plane->channels = channels;
  plane->kx = kx;
  plane->ky = ky;
}

/* cf_blur_planes on a frame's 8-bit planes at once, each against its CPU
 * reference: NV12 (luma, then chroma of 2 channels at half size and half
 * sigma), I420 (3 planes, the chroma at half size) and Y444 (3 alike, the
 * same sigma); sigma_y 0.7 sigma_x; random border values.  `offset`: the
 * sources start 16 bytes into their allocations, or 1 (rows off the
 * 16-byte grid: plane by plane), or 0.  Whether the planes went in one
 * launch is checked against the rule cudafilters-kernels.h states. */
typedef enum
{ LAYOUT_NV12, LAYOUT_I420, LAYOUT_Y444 } BytePlanesLayout;

static void
run_planes_case (gint w, gint h, BytePlanesLayout layout, double sigma,
    CfBorder border, PitchMode mode, gint offset, gboolean solid)
{
  static const gchar *names[] = { "NV12", "I420", "Y444" };
  gboolean subsampled = layout != LAYOUT_Y444;
  gint n = layout == LAYOUT_NV12 ? 2 : 3, i, c;
  gchar *what = g_strdup_printf ("blur planes %dx%d %s, sigma %g, border "
      "%d, pitch mode %d, sources %d bytes in%s", w, h, names[layout], sigma,
      border, mode, offset, solid ? ", solid" : "");
  PlaneCase pc[3];
  CfBlurPlane planes[3];
  CfBlurKernel kx[3], ky[3];
  gsize scratch_size = 0;
  void *scratch;
  CfError err;
  gint major = 0;
  gboolean one_launch;
  unsigned long long launches;

  CUDA_OK (cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor,
          0));
  one_launch = major >= 9 && border != CF_BORDER_CONSTANT && offset % 16 == 0;
  for (i = 0; i < n; i++) {
    gint pw, ph, ch;
    double sx, sy;
    gsize row;
    guint8 bv[4];

    frame_plane (w, h, n, subsampled, i, sigma, &pw, &ph, &ch, &sx);
    sy = 0.7 * sx;
    row = (gsize) (pw * ch);
    plane_case_init (&pc[i], row + offset, row, ph, mode);
    if (solid)
      memset (pc[i].src, g_rand_int_range (rand_, 0, 256), pc[i].src_size);
    plane_case_upload (&pc[i]);
    fail_unless (cf_blur_kernel_make (sx, cf_blur_radius_for_sigma (sx),
            CF_BLUR_H_BITS, &kx[i]) == 0);
    fail_unless (cf_blur_kernel_make (sy, cf_blur_radius_for_sigma (sy),
            CF_BLUR_V_BITS, &ky[i]) == 0);
    cf_test_fill_random (rand_, bv, 4);
    case_plane (&planes[i], &pc[i], offset, pw, ph, ch, &kx[i], &ky[i]);
    for (c = 0; c < 4; c++)
      planes[i].border_value[c] = bv[c];
    cf_ref_blur_plane (pc[i].src + pc[i].src_off + offset, pc[i].src_pitch,
        pc[i].want + pc[i].dst_off, pc[i].dst_pitch, pw, ph, ch, &kx[i],
        &ky[i], border, bv);
    scratch_size = MAX (scratch_size, cf_blur_scratch_bytes (pw, ph, ch));
    one_launch = one_launch && pw >= 32 && pw * ch % 16 == 0
        && kx[i].radius <= 8 && ky[i].radius <= 8;
  }
  CUDA_OK (cudaMalloc (&scratch, scratch_size));
  CUDA_OK (cudaMemset (scratch, POISON, scratch_size));
  launches = cf_blur_planes_one_launches ();
  err = cf_blur_planes (planes, n, border, scratch, NULL);
  fail_unless ((cf_blur_planes_one_launches () - launches == 1) == one_launch,
      "%s: %s", what, one_launch ? "not in one launch" : "in one launch");
  for (i = 0; i < n; i++)
    plane_case_finish (&pc[i], err, what);
  CUDA_OK (cudaFree (scratch));
  g_free (what);
}

/* Frames whose every plane the one launch takes on sm_90 (widths a
 * multiple of 32, so that I420's chroma rows are whole 16-byte units;
 * short, tall and 1080p frames, the last strips part-filled), and frames
 * that go plane by plane: a chroma plane too narrow (48: 24 pixels),
 * odd widths, rows off the 16-byte grid, the constant border, a radius
 * over 8 (sigma 5: 15 and 8) */
GST_START_TEST (test_blur_planes_equals_reference)
{
  static const double sigmas[] = { 0.3, 1.3, 2.6 };
  static const struct
  {
    gint w, h;
  } frames[] = { {64, 1}, {96, 17}, {160, 300}, {1920, 1080}, {48, 9},
  {37, 23}
  };
  guint s, f;
  gint layout, border;

  for (layout = LAYOUT_NV12; layout <= LAYOUT_Y444; layout++)
    for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT; border++)
      for (f = 0; f < G_N_ELEMENTS (frames); f++) {
        s = (f + border + layout) % G_N_ELEMENTS (sigmas);
        run_planes_case (frames[f].w, frames[f].h, layout, sigmas[s], border,
            (f + border) % 2 ? PITCH_PADDED : PITCH_TIGHT, 0, FALSE);
      }
  for (layout = LAYOUT_NV12; layout <= LAYOUT_Y444; layout++) {
    run_planes_case (1280, 720, layout, 2.6, CF_BORDER_REFLECT_101,
        PITCH_PADDED, 16, FALSE);
    run_planes_case (1280, 720, layout, 2.6, CF_BORDER_REPLICATE,
        PITCH_PADDED, 1, FALSE);
    run_planes_case (640, 64, layout, 5, CF_BORDER_REPLICATE, PITCH_TIGHT, 0,
        FALSE);
    run_planes_case (320, 48, layout, 2.6, CF_BORDER_REPLICATE, PITCH_TIGHT,
        0, TRUE);
  }
}

GST_END_TEST;

GST_START_TEST (test_blur_invalid_arguments)
{
  guint8 *d;

  CUDA_OK (cudaMalloc ((void **) &d, 4096));
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
  {
    /* planes: none, too many, no scratch, one of them bad, a border value
     * over a byte */
    CfBlurKernel kx, ky;
    CfBlurPlane planes[4] = {
      {d, 64, d + 2048, 64, 8, 4, 1, &kx, &ky, {0, 0, 0, 0}},
      {d + 512, 64, d + 2560, 64, 4, 2, 2, &kx, &ky, {0, 0, 0, 0}}
    };

    cf_blur_kernel_make (1, 3, CF_BLUR_H_BITS, &kx);
    cf_blur_kernel_make (1, 3, CF_BLUR_V_BITS, &ky);
    fail_unless (cf_blur_planes (planes, 2, CF_BORDER_REPLICATE, d + 1024,
            NULL) == 0);
    fail_if (cf_blur_planes (NULL, 2, CF_BORDER_REPLICATE, d + 1024,
            NULL) == 0);
    fail_if (cf_blur_planes (planes, 0, CF_BORDER_REPLICATE, d + 1024,
            NULL) == 0);
    fail_if (cf_blur_planes (planes, 4, CF_BORDER_REPLICATE, d + 1024,
            NULL) == 0);
    fail_if (cf_blur_planes (planes, 2, CF_BORDER_REPLICATE, NULL, NULL) == 0);
    fail_if (cf_blur_planes (planes, 2, (CfBorder) 7, d + 1024, NULL) == 0);
    planes[1].ky = &kx;
    fail_if (cf_blur_planes (planes, 2, CF_BORDER_REPLICATE, d + 1024,
            NULL) == 0);
    planes[1].ky = &ky;
    planes[1].dst_pitch = 7;
    fail_if (cf_blur_planes (planes, 2, CF_BORDER_REPLICATE, d + 1024,
            NULL) == 0);
    planes[1].dst_pitch = 64;
    planes[1].border_value[2] = 256;
    fail_if (cf_blur_planes (planes, 2, CF_BORDER_CONSTANT, d + 1024,
            NULL) == 0);
    planes[1].border_value[2] = 0;
    /* a plane's output over another's input, or over its output */
    planes[1].dst = d + 64;
    fail_if (cf_blur_planes (planes, 2, CF_BORDER_REPLICATE, d + 1024,
            NULL) == 0);
    planes[1].dst = d + 2048 + 64;
    fail_if (cf_blur_planes (planes, 2, CF_BORDER_REPLICATE, d + 1024,
            NULL) == 0);
    planes[1].dst = d + 2560;
    fail_unless (cf_blur_planes (planes, 2, CF_BORDER_REPLICATE, d + 1024,
            NULL) == 0);
  }
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

/* ---- high bit depth (#48) ---- */

/* cf_blur_plane_words against its CPU reference for one plane: random
 * words (stray bits outside the samples too) or all one `solid` sample */
static void
run_words_case (gint w, gint h, gint channels, gint depth, gint shift,
    double sx, double sy, CfBorder border, PitchMode mode, gboolean solid)
{
  gsize row = 2 * (gsize) w * channels;
  gsize scratch_size = cf_blur_word_scratch_bytes (w, h, channels);
  gchar *what = g_strdup_printf ("blur words %dx%d, %d channels, depth %d "
      "shift %d, sigma %g x %g, border %d, pitch mode %d%s", w, h, channels,
      depth, shift, sx, sy, border, mode, solid ? ", solid" : "");
  CfBlurKernel kx, ky;
  guint16 bv[4];
  void *scratch;
  PlaneCase pc;
  gint i;

  plane_case_init (&pc, row, row, h, mode);
  for (i = 0; i < 4; i++)
    bv[i] = g_rand_int_range (rand_, 0, 1 << depth);
  if (solid) {
    guint16 word = (guint16) (g_rand_int_range (rand_, 0, 1 << depth) << shift);
    gsize k;

    for (k = 0; k + 1 < pc.src_size; k += 2) {
      pc.src[k] = word & 0xff;
      pc.src[k + 1] = word >> 8;
    }
  }
  plane_case_upload (&pc);
  fail_unless (cf_blur_kernel_make (sx, cf_blur_radius_for_sigma (sx),
          CF_BLUR_WORD_BITS, &kx) == 0);
  fail_unless (cf_blur_kernel_make (sy, cf_blur_radius_for_sigma (sy),
          CF_BLUR_WORD_BITS, &ky) == 0);
  cf_ref_blur_plane_words (pc.src + pc.src_off, pc.src_pitch,
      pc.want + pc.dst_off, pc.dst_pitch, w, h, channels, depth, shift, &kx,
      &ky, border, bv);
  CUDA_OK (cudaMalloc (&scratch, scratch_size));
  CUDA_OK (cudaMemset (scratch, POISON, scratch_size));
  plane_case_finish (&pc, cf_blur_plane_words (pc.d_src + pc.src_off,
          pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h, channels,
          depth, shift, &kx, &ky, border, bv, scratch, NULL), what);
  CUDA_OK (cudaFree (scratch));
  g_free (what);
}

/* every channel count, border and sigma, P010's, I420_10's, P012's and
 * 16-bit layouts, on small odd frames and on frames wider than a tile
 * (192 pixels, or 160 with 2 channels) and taller than one (32 rows);
 * 4K P010 luma and chroma, a luma plane the two passes take, and planes
 * of two channels at the larger buckets */
GST_START_TEST (test_blur_words_equals_reference)
{
  /* with the next one halved for y: (0.3, 0.5) and (1, 1.3) in the one
   * pass's radius bucket 4, (2.6, 2) in 8, (4, 2.5) in 12, (5, 5.3) in
   * 16; (10.6, 25) and (50, 0.15) in the two passes, as are 3 and 4
   * channels */
  static const double sigmas[] = { 0.3, 1, 2.6, 4, 5, 10.6, 50 };
  static const struct
  {
    gint depth, shift;
  } layouts[] = { {10, 6}, {10, 0}, {12, 4}, {16, 0} };
  static const struct
  {
    gint w, h;
  } frames[] = { {1, 1}, {1, 17}, {17, 1}, {3, 7}, {37, 23}, {130, 9},
  {301, 37}
  };
  guint s, f, l;
  gint ch, border;
  PitchMode mode;

  for (l = 0; l < G_N_ELEMENTS (layouts); l++)
    for (ch = 1; ch <= 4; ch++)
      for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT; border++)
        for (s = 0; s < G_N_ELEMENTS (sigmas); s++)
          for (f = 0; f < G_N_ELEMENTS (frames); f++)
            for (mode = PITCH_TIGHT; mode <= PITCH_PADDED; mode++)
              run_words_case (frames[f].w, frames[f].h, ch, layouts[l].depth,
                  layouts[l].shift, sigmas[s],
                  sigmas[(s + 1) % G_N_ELEMENTS (sigmas)] / 2, border, mode,
                  f == 4 && s == 2);
  /* 4K P010: luma, and the chroma plane (2 channels at half size) */
  run_words_case (3840, 2160, 1, 10, 6, 2.6, 2.6, CF_BORDER_REPLICATE,
      PITCH_PADDED, FALSE);
  run_words_case (1920, 1080, 2, 10, 6, 1.3, 1.3, CF_BORDER_REFLECT_101,
      PITCH_PADDED, FALSE);
  run_words_case (1920, 1080, 1, 12, 4, 20, 20, CF_BORDER_CONSTANT,
      PITCH_PADDED, FALSE);
  /* two channels with tiles inside the frame at buckets 12 and 16 */
  run_words_case (1921, 1081, 2, 10, 6, 4, 4, CF_BORDER_REFLECT_101,
      PITCH_PADDED, FALSE);
  run_words_case (1921, 1081, 2, 16, 0, 5, 5, CF_BORDER_CONSTANT,
      PITCH_PADDED, FALSE);
}

GST_END_TEST;

/* cf_blur_planes_words on a frame's planes at once, each against its CPU
 * reference: P010 (luma, then chroma of 2 channels at half size and half
 * sigma), I420_12 (3 planes, the chroma at half size) and Y444_16 (3
 * alike, the same sigma, which no one launch takes); sigma_y 0.7 sigma_x;
 * border values with bits above the depth.  `offset`: OFFSET_SOURCES,
 * OFFSET_OUTPUTS or both, which start 2 bytes into their allocations, on
 * rows of padded pitches (words off the 8-byte grid, outputs off 4
 * bytes) */
typedef enum
{ LAYOUT_P010, LAYOUT_I420_12, LAYOUT_Y444_16 } PlanesLayout;

#define OFFSET_SOURCES 1
#define OFFSET_OUTPUTS 2

static void
run_words_planes_case (gint w, gint h, PlanesLayout layout, double sigma,
    CfBorder border, PitchMode mode, gint offset)
{
  static const struct
  {
    const gchar *name;
    gint depth, shift;
  } layouts[] = { {"P010", 10, 6}, {"I420_12", 12, 0}, {"Y444_16", 16, 0} };
  const gint depth = layouts[layout].depth, shift = layouts[layout].shift;
  const gsize extra = offset & OFFSET_SOURCES ? 2 : 0;
  const gsize out_extra = offset & OFFSET_OUTPUTS ? 2 : 0;
  gboolean subsampled = layout != LAYOUT_Y444_16;
  gint n = layout == LAYOUT_P010 ? 2 : 3, i, c;
  gchar *what = g_strdup_printf ("blur planes of words %dx%d %s, sigma %g, "
      "border %d, pitch mode %d%s", w, h, layouts[layout].name, sigma, border,
      mode, offset == (OFFSET_SOURCES | OFFSET_OUTPUTS) ? ", planes 2 bytes in"
      : offset ? ", sources or outputs 2 bytes in" : "");
  PlaneCase pc[3];
  CfBlurPlane planes[3];
  CfBlurKernel kx[3], ky[3];
  gsize scratch_size = 0;
  void *scratch;
  CfError err;

  for (i = 0; i < n; i++) {
    gint pw, ph, ch;
    double sx, sy;
    gsize row;

    frame_plane (w, h, n, subsampled, i, sigma, &pw, &ph, &ch, &sx);
    sy = 0.7 * sx;
    row = (gsize) (2 * pw * ch);
    plane_case_init (&pc[i], row + extra, row + out_extra, ph, mode);
    plane_case_upload (&pc[i]);
    fail_unless (cf_blur_kernel_make (sx, cf_blur_radius_for_sigma (sx),
            CF_BLUR_WORD_BITS, &kx[i]) == 0);
    fail_unless (cf_blur_kernel_make (sy, cf_blur_radius_for_sigma (sy),
            CF_BLUR_WORD_BITS, &ky[i]) == 0);
    case_plane (&planes[i], &pc[i], extra, pw, ph, ch, &kx[i], &ky[i]);
    planes[i].dst = pc[i].d_dst + pc[i].dst_off + out_extra;
    for (c = 0; c < 4; c++)
      planes[i].border_value[c] = g_rand_int_range (rand_, 0, 65536);
    cf_ref_blur_plane_words (pc[i].src + pc[i].src_off + extra,
        pc[i].src_pitch, pc[i].want + pc[i].dst_off + out_extra,
        pc[i].dst_pitch,
        pw, ph, ch, depth, shift, &kx[i], &ky[i], border,
        planes[i].border_value);
    scratch_size = MAX (scratch_size, cf_blur_word_scratch_bytes (pw, ph, ch));
  }
  CUDA_OK (cudaMalloc (&scratch, scratch_size));
  CUDA_OK (cudaMemset (scratch, POISON, scratch_size));
  err = cf_blur_planes_words (planes, n, depth, shift, border, scratch, NULL);
  for (i = 0; i < n; i++)
    plane_case_finish (&pc[i], err, what);
  CUDA_OK (cudaFree (scratch));
  g_free (what);
}

/* sigmas whose (luma, chroma) radii fall in each pair of buckets one
 * launch takes: 0.3 and 1 (4, 4), 2.6 (8, 4), 4 (12, 8), 5 (16, 8); and
 * 10 (two passes), plane by plane */
GST_START_TEST (test_blur_planes_words_equals_reference)
{
  static const double sigmas[] = { 0.3, 1, 2.6, 4, 5, 10 };
  static const struct
  {
    gint w, h;
  } frames[] = { {1, 1}, {3, 7}, {37, 23}, {301, 37} };
  guint s, f;
  gint layout, border;
  PitchMode mode;

  for (layout = LAYOUT_P010; layout <= LAYOUT_Y444_16; layout++)
    for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT; border++)
      for (s = 0; s < G_N_ELEMENTS (sigmas); s++)
        for (f = 0; f < G_N_ELEMENTS (frames); f++)
          for (mode = PITCH_TIGHT; mode <= PITCH_PADDED; mode++)
            run_words_planes_case (frames[f].w, frames[f].h, layout,
                sigmas[s], border, mode, mode == PITCH_PADDED
                && f % 2 ? OFFSET_SOURCES | OFFSET_OUTPUTS : 0);
  for (layout = LAYOUT_P010; layout <= LAYOUT_Y444_16; layout++) {
    run_words_planes_case (1921, 1081, layout, 2.6, CF_BORDER_REPLICATE,
        PITCH_PADDED, 0);
    run_words_planes_case (1921, 1081, layout, 5, CF_BORDER_CONSTANT,
        PITCH_TIGHT, 0);
    run_words_planes_case (1283, 517, layout, 2.6, CF_BORDER_REFLECT_101,
        PITCH_PADDED, OFFSET_SOURCES | OFFSET_OUTPUTS);
    /* tiles inside the frame at the larger buckets, (12, 8) and (16, 8) */
    run_words_planes_case (1921, 1081, layout, 4, CF_BORDER_REFLECT_101,
        PITCH_PADDED, 0);
    run_words_planes_case (1921, 1081, layout, 5, CF_BORDER_REPLICATE,
        PITCH_PADDED, 0);
    /* sources on 8 bytes (tiles inside staged 8 bytes a load), outputs
     * off 4 (the columns stored a word at a time) */
    run_words_planes_case (1921, 1081, layout, 2.6, CF_BORDER_REPLICATE,
        PITCH_PADDED, OFFSET_OUTPUTS);
  }
}

GST_END_TEST;

/* cf_blur_rgb10a2 against its CPU reference: random pixels (alpha
 * included) or one solid pixel, which a blur with an edge-copying border
 * must give back as it is; pitches tight, padded, or 4 bytes past the
 * row (off the 16-byte grid), the padding poisoned and left alone; the
 * one pass without scratch, the two passes with a poisoned one */
static void
run_rgb10a2_case (gint w, gint h, double sx, double sy, CfBorder border,
    gint pitch_mode, gboolean solid)
{
  gsize row = 4 * (gsize) w;
  gsize scratch_size = cf_blur_word_scratch_bytes (w, h, 4);
  gchar *what = g_strdup_printf ("blur RGB10A2 %dx%d, sigma %g x %g, border "
      "%d, pitch mode %d%s", w, h, sx, sy, border, pitch_mode,
      solid ? ", solid" : "");
  CfBlurKernel kx, ky;
  void *scratch;
  PlaneCase pc;
  gint x, y;

  if (pitch_mode == 2)
    plane_case_init (&pc, row + 4, row + 4, h, PITCH_TIGHT);
  else
    plane_case_init (&pc, row, row, h, pitch_mode);
  if (solid) {
    guint8 pixel[4];

    cf_test_fill_random (rand_, pixel, 4);
    for (y = 0; y < h; y++)
      for (x = 0; x < 4 * w; x++)
        pc.src[pc.src_off + y * pc.src_pitch + x] = pixel[x % 4];
  }
  plane_case_upload (&pc);
  fail_unless (cf_blur_kernel_make (sx, cf_blur_radius_for_sigma (sx),
          CF_BLUR_WORD_BITS, &kx) == 0);
  fail_unless (cf_blur_kernel_make (sy, cf_blur_radius_for_sigma (sy),
          CF_BLUR_WORD_BITS, &ky) == 0);
  cf_ref_blur_rgb10a2 (pc.src + pc.src_off, pc.src_pitch, pc.want +
      pc.dst_off, pc.dst_pitch, w, h, &kx, &ky, border);
  if (solid && border != CF_BORDER_CONSTANT)
    for (y = 0; y < h; y++)
      fail_unless (memcmp (pc.want + pc.dst_off + y * pc.dst_pitch,
              pc.src + pc.src_off + y * pc.src_pitch, row) == 0,
          "%s: the reference changed a solid row %d", what, y);
  /* the one pass takes no scratch; the two passes a poisoned one */
  scratch = NULL;
  if (!cf_blur_rgb10a2_one_pass (&kx, &ky)) {
    CUDA_OK (cudaMalloc (&scratch, scratch_size));
    CUDA_OK (cudaMemset (scratch, POISON, scratch_size));
  }
  plane_case_finish (&pc, cf_blur_rgb10a2 (pc.d_src + pc.src_off,
          pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h, &kx, &ky,
          border, scratch, NULL), what);
  if (scratch)
    CUDA_OK (cudaFree (scratch));
  g_free (what);
}

/* every border, sigmas from a radius of 1 to 60 (sigma_y the next one
 * halved), small odd frames, frames wider and taller than a block, and a
 * 1921 x 1081 frame */
GST_START_TEST (test_blur_rgb10a2_equals_reference)
{
  static const double sigmas[] = { 0.3, 1, 2.6, 5, 20 };
  static const struct
  {
    gint w, h;
  } frames[] = { {1, 1}, {1, 17}, {17, 1}, {3, 7}, {37, 23}, {301, 37} };
  guint s, f;
  gint border, mode;

  for (border = CF_BORDER_REPLICATE; border <= CF_BORDER_CONSTANT; border++)
    for (s = 0; s < G_N_ELEMENTS (sigmas); s++)
      for (f = 0; f < G_N_ELEMENTS (frames); f++)
        for (mode = 0; mode < 3; mode++)
          run_rgb10a2_case (frames[f].w, frames[f].h, sigmas[s],
              sigmas[(s + 1) % G_N_ELEMENTS (sigmas)] / 2, border, mode,
              (f + mode) % 3 == 0);
  run_rgb10a2_case (1921, 1081, 2.6, 2.6, CF_BORDER_REFLECT_101, 1, FALSE);
  run_rgb10a2_case (1921, 1081, 1, 4, CF_BORDER_REPLICATE, 2, FALSE);
  run_rgb10a2_case (1921, 1081, 5, 5, CF_BORDER_CONSTANT, 0, FALSE);
  run_rgb10a2_case (1921, 1081, 2, 2, CF_BORDER_REPLICATE, 2, TRUE);
}

GST_END_TEST;

GST_START_TEST (test_blur_words_invalid_arguments)
{
  guint8 *d;
  CfBlurKernel k, k8;

  CUDA_OK (cudaMalloc ((void **) &d, 8192));
  cf_blur_kernel_make (1, 3, CF_BLUR_WORD_BITS, &k);
  cf_blur_kernel_make (1, 3, CF_BLUR_H_BITS, &k8);
  fail_unless (cf_blur_plane_words (d, 64, d + 2048, 64, 8, 4, 4, 10, 6, &k,
          &k, CF_BORDER_REPLICATE, NULL, d + 4096, NULL) == 0);
  /* the 8-bit weights, a bad depth, shift or channel count, odd
   * addresses and pitches, short pitches, no scratch */
  fail_if (cf_blur_plane_words (d, 64, d + 2048, 64, 8, 4, 4, 10, 6, &k8,
          &k, CF_BORDER_REPLICATE, NULL, d + 4096, NULL) == 0);
  fail_if (cf_blur_plane_words (d, 64, d + 2048, 64, 8, 4, 4, 8, 0, &k, &k,
          CF_BORDER_REPLICATE, NULL, d + 4096, NULL) == 0);
  fail_if (cf_blur_plane_words (d, 64, d + 2048, 64, 8, 4, 4, 10, 7, &k, &k,
          CF_BORDER_REPLICATE, NULL, d + 4096, NULL) == 0);
  fail_if (cf_blur_plane_words (d, 64, d + 2048, 64, 8, 4, 5, 10, 6, &k, &k,
          CF_BORDER_REPLICATE, NULL, d + 4096, NULL) == 0);
  fail_if (cf_blur_plane_words (d + 1, 64, d + 2048, 64, 8, 4, 4, 10, 6, &k,
          &k, CF_BORDER_REPLICATE, NULL, d + 4096, NULL) == 0);
  fail_if (cf_blur_plane_words (d, 65, d + 2048, 64, 8, 4, 4, 10, 6, &k, &k,
          CF_BORDER_REPLICATE, NULL, d + 4096, NULL) == 0);
  fail_if (cf_blur_plane_words (d, 62, d + 2048, 64, 8, 4, 4, 10, 6, &k, &k,
          CF_BORDER_REPLICATE, NULL, d + 4096, NULL) == 0);
  fail_if (cf_blur_plane_words (d, 64, d + 2048, 64, 8, 4, 4, 10, 6, &k, &k,
          CF_BORDER_REPLICATE, NULL, NULL, NULL) == 0);
  fail_if (cf_blur_plane_words (d, 64, d + 2048, 64, 8, 4, 4, 10, 6, &k, &k,
          CF_BORDER_REPLICATE, NULL, d + 4098, NULL) == 0);
  fail_unless (cf_blur_word_scratch_bytes (8, 4, 4) >= 8 * 4 * 4 * 4);
  fail_unless (cf_blur_word_scratch_bytes (0, 4, 4) == 0);
  {
    /* planes: none, too many, one of them bad */
    CfBlurPlane planes[4] = {
      {d, 16, d + 1024, 16, 8, 4, 1, &k, &k, {0, 0, 0, 0}},
      {d + 256, 16, d + 1280, 16, 4, 2, 2, &k, &k, {0, 0, 0, 0}}
    };
    fail_unless (cf_blur_planes_words (planes, 2, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    fail_if (cf_blur_planes_words (NULL, 2, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    fail_if (cf_blur_planes_words (planes, 0, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    fail_if (cf_blur_planes_words (planes, 4, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    fail_if (cf_blur_planes_words (planes, 2, 8, 0, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    fail_if (cf_blur_planes_words (planes, 2, 10, 7, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    planes[1].kx = NULL;
    fail_if (cf_blur_planes_words (planes, 2, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    planes[1].kx = &k;
    /* more samples than any plane may have (nothing is read) */
    planes[1].height = 1 << 30;
    planes[1].width = 1 << 10;
    planes[1].src_pitch = planes[1].dst_pitch = 1 << 12;
    fail_if (cf_blur_planes_words (planes, 2, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    planes[1].width = 4;
    planes[1].height = 2;
    planes[1].src_pitch = 16;
    planes[1].dst_pitch = 15;
    fail_if (cf_blur_planes_words (planes, 2, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    /* a plane's output over another's input, or over its output: plane
     * 0's src and dst each end 64 bytes in (4 rows of 16, 8 words each) */
    planes[1].dst_pitch = 16;
    planes[1].dst = d + 62;
    fail_if (cf_blur_planes_words (planes, 2, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    planes[1].dst = d + 1024 + 62;
    fail_if (cf_blur_planes_words (planes, 2, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    planes[1].dst = d + 1024 + 64;
    fail_unless (cf_blur_planes_words (planes, 2, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    fail_if (cf_blur_planes_overlap (planes, 2, 2));
    fail_unless (cf_blur_planes_overlap (planes, 2, 4));
  }
  {
    /* planes whose rows interleave (16 bytes, 32 apart) share no byte,
     * but their ranges meet: refused together, blurred one by one */
    CfBlurPlane rows[2] = {
      {d, 32, d + 1024, 32, 8, 4, 1, &k, &k, {0, 0, 0, 0}},
      {d + 16, 32, d + 1024 + 16, 32, 8, 4, 1, &k, &k, {0, 0, 0, 0}}
    };

    fail_unless (cf_blur_planes_overlap (rows, 2, 2));
    fail_if (cf_blur_planes_words (rows, 2, 10, 6, CF_BORDER_REPLICATE,
            d + 4096, NULL) == 0);
    fail_unless (cf_blur_planes_words (&rows[0], 1, 10, 6,
            CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
    fail_unless (cf_blur_planes_words (&rows[1], 1, 10, 6,
            CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
    fail_if (cf_blur_planes_overlap (rows, 0, 2));
    rows[1].height = 0;
    fail_if (cf_blur_planes_overlap (rows, 2, 2));
  }
  /* packed 10-bit RGB: pointers and pitches off 4 bytes, short pitches,
   * no scratch, 8-bit weights */
  fail_unless (cf_blur_rgb10a2 (d, 64, d + 2048, 64, 8, 4, &k, &k,
          CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
  fail_if (cf_blur_rgb10a2 (d + 2, 64, d + 2048, 64, 8, 4, &k, &k,
          CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
  fail_if (cf_blur_rgb10a2 (d, 64, d + 2050, 64, 8, 4, &k, &k,
          CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
  fail_if (cf_blur_rgb10a2 (d, 66, d + 2048, 64, 8, 4, &k, &k,
          CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
  fail_if (cf_blur_rgb10a2 (d, 28, d + 2048, 64, 8, 4, &k, &k,
          CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
  /* no scratch: the one pass takes none, the two passes need it */
  fail_unless (cf_blur_rgb10a2_one_pass (&k, &k));
  fail_unless (cf_blur_rgb10a2 (d, 64, d + 2048, 64, 8, 4, &k, &k,
          CF_BORDER_REPLICATE, NULL, NULL) == 0);
  {
    CfBlurKernel wide;

    cf_blur_kernel_make (4, cf_blur_radius_for_sigma (4), CF_BLUR_WORD_BITS,
        &wide);
    fail_if (cf_blur_rgb10a2_one_pass (&k, &wide));
    fail_if (cf_blur_rgb10a2 (d, 64, d + 2048, 64, 8, 4, &k, &wide,
            CF_BORDER_REPLICATE, NULL, NULL) == 0);
    fail_unless (cf_blur_rgb10a2 (d, 64, d + 2048, 64, 8, 4, &k, &wide,
            CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
  }
  fail_if (cf_blur_rgb10a2 (d, (size_t) -4, d + 2048, 64, 8, 4, &k, &k,
          CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
  fail_if (cf_blur_rgb10a2 (d, 64, d + 2048, 64, 8, 4, &k8, &k,
          CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
  fail_if (cf_blur_rgb10a2 (d, 64, d + 2048, 64, 0, 4, &k, &k,
          CF_BORDER_REPLICATE, d + 4096, NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

CF_KERNEL_TEST_MAIN ("kernels-blur",
    CF_KERNEL_TEST (test_blur_small_frames),
    CF_KERNEL_TEST (test_blur_large_frames),
    CF_KERNEL_TEST (test_blur_whole_unit_edges),
    CF_KERNEL_TEST (test_blur_narrow_edges),
    CF_KERNEL_TEST (test_blur_folded_edges),
    CF_KERNEL_TEST (test_blur_direct_rows),
    CF_KERNEL_TEST (test_blur_direct_planes),
    CF_KERNEL_TEST (test_blur_planes_equals_reference),
    CF_KERNEL_TEST (test_blur_large_radii),
    CF_KERNEL_TEST (test_blur_extreme_weights),
    CF_KERNEL_TEST (test_blur_invalid_arguments),
    CF_KERNEL_TEST (test_blur_words_equals_reference),
    CF_KERNEL_TEST (test_blur_planes_words_equals_reference),
    CF_KERNEL_TEST (test_blur_rgb10a2_equals_reference),
    CF_KERNEL_TEST (test_blur_words_invalid_arguments));
