/* cf_gray_from_packed against its CPU reference: grey in every channel
 * layout and matrix, odd sizes, tight, padded and misaligned pitches,
 * random and solid frames, outputs poisoned first and checked byte for
 * byte, padding included; the arguments it refuses.  The same for the
 * high-bit kernels (#48: samples MSB-aligned or to 8 bits, grey of
 * RGB10A2) and the 16-bit fill, with random bits outside each sample.
 * Every grey entry point with the neutral chroma of NV12, I420 and P010
 * frames (CfNeutralPlanes), set by the grey launch or apart, and the
 * arguments they refuse. */
#include "cf-kernel-test.h"
#include "cudafilters-kernels-testing.h"

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
          matrix, NULL, NULL), what);
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
  fail_if (cf_gray_from_packed (NULL, 64, d, 64, 4, 4, rgba, 0, NULL,
          NULL) == 0);
  fail_if (cf_gray_from_packed (d, 64, d, 64, 0, 4, rgba, 0, NULL, NULL) == 0);
  fail_if (cf_gray_from_packed (d, 8, d, 64, 4, 4, rgba, 0, NULL, NULL) == 0);
  fail_if (cf_gray_from_packed (d, 64, d, 64, 4, 4, bad_bpp, 0, NULL,
          NULL) == 0);
  fail_unless (cf_gray_from_packed (d, 64, d + 2048, 64, 4, 4, rgba, 0, NULL,
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
            shift, NULL, NULL), what);
  } else {
    cf_ref_plane_to_msb16 (pc.src + pc.src_off, pc.src_pitch,
        pc.want + pc.dst_off, pc.dst_pitch, w, h, depth, shift);
    plane_case_finish (&pc, cf_plane_to_msb16 (pc.d_src + pc.src_off,
            pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h, depth,
            shift, NULL, NULL), what);
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
                  swap, m, NULL, NULL);
            } else {
              cf_ref_gray16_from_rgb10a2 (pc.src + pc.src_off, pc.src_pitch,
                  pc.want + pc.dst_off, pc.dst_pitch, w, h, swap, m);
              err = cf_gray16_from_rgb10a2 (pc.d_src + pc.src_off,
                  pc.src_pitch, pc.d_dst + pc.dst_off, pc.dst_pitch, w, h,
                  swap, m, NULL, NULL);
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
    fail_unless (cf_gray16_from_rgb10a2 (d, 4, d + 4, 2, 1, 1, 0, m, NULL,
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
  fail_if (cf_plane_to_msb16 (NULL, 64, d, 64, 4, 4, 10, 6, NULL, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 64, d, 64, 0, 4, 10, 6, NULL, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 64, d, 64, 4, 4, 0, 0, NULL, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 64, d, 64, 4, 4, 17, 0, NULL, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 64, d, 64, 4, 4, 10, 7, NULL, NULL) == 0);
  fail_if (cf_plane_to_msb16 (d, 6, d, 64, 4, 4, 10, 6, NULL, NULL) == 0);
  fail_if (cf_plane_to_8 (d, 64, d, 64, 4, 4, 8, 0, NULL, NULL) == 0);
  fail_if (cf_plane_to_8 (d, 64, d, 3, 4, 4, 10, 6, NULL, NULL) == 0);
  fail_if (cf_gray16_from_rgb10a2 (d, 12, d, 64, 4, 4, 0, 0, NULL, NULL) == 0);
  fail_if (cf_gray16_from_rgb10a2 (d, 64, d, 6, 4, 4, 0, 0, NULL, NULL) == 0);
  fail_if (cf_gray8_from_rgb10a2 (d, 64, d, 3, 4, 4, 0, 0, NULL, NULL) == 0);
  fail_unless (cf_gray8_from_rgb10a2 (d, 64, d + 2048, 64, 4, 4, 1, 0, NULL,
          NULL) == 0);
  fail_if (cf_fill_plane16 (NULL, 64, 4, 4, 0x8000, NULL) == 0);
  fail_if (cf_fill_plane16 (d, 6, 4, 4, 0x8000, NULL) == 0);
  fail_unless (cf_plane_to_msb16 (d, 64, d + 2048, 64, 4, 4, 10, 6, NULL,
          NULL) == 0);
  fail_unless (cf_plane_to_8 (d, 64, d + 2048, 64, 4, 4, 16, 0, NULL,
          NULL) == 0);
  fail_unless (cf_fill_plane16 (d, 64, 0, 4, 0x8000, NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

/* ---- the neutral chroma of grey frames (CfNeutralPlanes) ---- */

/* The grey entry points, each with the bytes a pixel of its input and its
 * output */
typedef enum
{
  GREY_RGBA,                    /* cf_gray_from_packed */
  GREY_RGB,
  GREY_TO_8,                    /* cf_plane_to_8, P010's luma */
  GREY_TO_MSB16,                /* cf_plane_to_msb16, I420_10LE's luma */
  GREY_RGB10A2_TO_8,            /* cf_gray8_from_rgb10a2 */
  GREY_RGB10A2_TO_16,           /* cf_gray16_from_rgb10a2 */
  GREY_COPY_LUMA,               /* cf_gray_copy_luma, NV12's luma */
  N_GREY_PRODUCERS
} GreyProducer;

static const struct
{
  const gchar *name;
  gint in_bpp, out_bpp;
} producers[N_GREY_PRODUCERS] = {
  {"RGBA", 4, 1}, {"RGB", 3, 1}, {"P010 to 8 bits", 2, 1},
  {"I420_10 to MSB16", 2, 2}, {"RGB10A2 to 8 bits", 4, 1},
  {"RGB10A2 to 16 bits", 4, 2}, {"luma copy", 1, 1},
};

static const CfPackedLayout rgba_layout = { 4, 0, 1, 2 };
static const CfPackedLayout rgb_layout = { 3, 0, 1, 2 };

/* the grey plane of @pc's source, as @pr must write it, into pc->want */
static void
grey_reference (GreyProducer pr, PlaneCase * pc, gint w, gint h)
{
  const guint8 *src = pc->src + pc->src_off;
  guint8 *want = pc->want + pc->dst_off;
  gint y;

  switch (pr) {
    case GREY_RGBA:
    case GREY_RGB:
      cf_ref_gray_from_packed (src, pc->src_pitch, want, pc->dst_pitch, w, h,
          pr == GREY_RGBA ? rgba_layout : rgb_layout, CF_GRAY_MATRIX_BT709);
      break;
    case GREY_TO_8:
      cf_ref_plane_to_8 (src, pc->src_pitch, want, pc->dst_pitch, w, h, 10, 6);
      break;
    case GREY_TO_MSB16:
      cf_ref_plane_to_msb16 (src, pc->src_pitch, want, pc->dst_pitch, w, h,
          10, 0);
      break;
    case GREY_RGB10A2_TO_8:
      ref_gray8_from_rgb10a2 (pc, w, h, 0, CF_GRAY_MATRIX_BT709);
      break;
    case GREY_RGB10A2_TO_16:
      cf_ref_gray16_from_rgb10a2 (src, pc->src_pitch, want, pc->dst_pitch, w,
          h, 0, CF_GRAY_MATRIX_BT709);
      break;
    default:
      for (y = 0; y < h; y++)
        memcpy (want + y * pc->dst_pitch, src + y * pc->src_pitch, w);
      break;
  }
}

/* @pr's launch on @pc's planes, setting @neutral */
static CfError
grey_launch (GreyProducer pr, PlaneCase * pc, gint w, gint h,
    const CfNeutralPlanes * neutral)
{
  const guint8 *src = pc->d_src + pc->src_off;
  guint8 *dst = pc->d_dst + pc->dst_off;
  gsize sp = pc->src_pitch, dp = pc->dst_pitch;

  switch (pr) {
    case GREY_RGBA:
    case GREY_RGB:
      return cf_gray_from_packed (src, sp, dst, dp, w, h,
          pr == GREY_RGBA ? rgba_layout : rgb_layout, CF_GRAY_MATRIX_BT709,
          neutral, NULL);
    case GREY_TO_8:
      return cf_plane_to_8 (src, sp, dst, dp, w, h, 10, 6, neutral, NULL);
    case GREY_TO_MSB16:
      return cf_plane_to_msb16 (src, sp, dst, dp, w, h, 10, 0, neutral, NULL);
    case GREY_RGB10A2_TO_8:
      return cf_gray8_from_rgb10a2 (src, sp, dst, dp, w, h, 0,
          CF_GRAY_MATRIX_BT709, neutral, NULL);
    case GREY_RGB10A2_TO_16:
      return cf_gray16_from_rgb10a2 (src, sp, dst, dp, w, h, 0,
          CF_GRAY_MATRIX_BT709, neutral, NULL);
    default:
      return cf_gray_copy_luma (src, sp, dst, dp, w, h, neutral, NULL);
  }
}

/* The chroma of the grey frames in CUDA memory: its planes and the bytes
 * of a sample (a pair of 2x2 pixels' Cb and Cr, or one of them) */
static const struct
{
  const gchar *name;
  gint n_planes, sample_bytes;
  gboolean words;
} chroma_kinds[] = {
  {"NV12", 1, 2, FALSE}, {"I420", 2, 1, FALSE}, {"P010", 1, 4, TRUE},
};

/* Where the chroma planes lie, each in a buffer of its own */
typedef enum
{
  CHROMA_PADDED,                /* padded pitch, on 16 bytes */
  CHROMA_TIGHT,                 /* pitch = row bytes: on 16 bytes where 16
                                 * divides it */
  CHROMA_MISALIGNED,            /* odd pitch and start */
  CHROMA_LAST_OFF,              /* padded, the last plane 8 bytes off 16
                                 * (I420: one plane on 16 bytes, one not) */
  N_CHROMA_PLACINGS
} ChromaPlacing;

typedef struct
{
  CfNeutralPlanes dev;
  guint8 *buf[CF_NEUTRAL_MAX_PLANES];
  gsize off[CF_NEUTRAL_MAX_PLANES], size[CF_NEUTRAL_MAX_PLANES];
  /* every plane's start and pitch on 16 bytes */
  gboolean aligned;
} ChromaCase;

/* the chroma planes of a @w x @h frame, poisoned, padding included */
static void
chroma_case_init (ChromaCase * cc, guint kind, ChromaPlacing placing, gint w,
    gint h)
{
  CfNeutralPlanes *n = &cc->dev;
  gint p;

  memset (cc, 0, sizeof (*cc));
  n->n_planes = chroma_kinds[kind].n_planes;
  n->words = chroma_kinds[kind].words;
  cc->aligned = TRUE;
  for (p = 0; p < n->n_planes; p++) {
    gsize row = (gsize) ((w + 1) / 2) * chroma_kinds[kind].sample_bytes;
    gint rows = (h + 1) / 2;
    gsize pitch = placing == CHROMA_TIGHT ? row :
        placing == CHROMA_MISALIGNED ? row + 1 : GST_ROUND_UP_N (row,
        256) + 256;
    gsize off = placing == CHROMA_MISALIGNED ? 3 :
        placing == CHROMA_LAST_OFF && p == n->n_planes - 1 ? 8 : 0;

    cc->off[p] = off;
    cc->size[p] = off + pitch * rows;
    CUDA_OK (cudaMalloc ((void **) &cc->buf[p], cc->size[p]));
    CUDA_OK (cudaMemset (cc->buf[p], POISON, cc->size[p]));
    n->data[p] = cc->buf[p] + off;
    n->pitch[p] = pitch;
    n->row_bytes[p] = row;
    n->rows[p] = rows;
    cc->aligned = cc->aligned && off % 16 == 0 && pitch % 16 == 0;
  }
}

/* Every byte of the chroma buffers: each plane's row_bytes x rows
 * neutral, its padding and the bytes before its start still poisoned.
 * Frees them. */
static void
chroma_case_finish (ChromaCase * cc, const gchar * what)
{
  const CfNeutralPlanes *n = &cc->dev;
  gint p;

  CUDA_OK (cudaDeviceSynchronize ());
  for (p = 0; p < n->n_planes; p++) {
    guint8 *got = g_malloc (cc->size[p]);
    guint64 bad = 0;
    gsize i;

    CUDA_OK (cudaMemcpy (got, cc->buf[p], cc->size[p], cudaMemcpyDeviceToHost));
    for (i = 0; i < cc->size[p]; i++) {
      guint8 want = POISON;

      if (i >= cc->off[p]) {
        gsize x = (i - cc->off[p]) % n->pitch[p];
        if (x < n->row_bytes[p])
          want = n->words && x % 2 == 0 ? 0x00 : 0x80;
      }
      if (got[i] != want && bad++ == 0)
        g_printerr ("%s: chroma plane %d byte %" G_GSIZE_FORMAT " got %u "
            "want %u\n", what, p, i, got[i], want);
    }
    fail_unless (bad == 0, "%s: %" G_GUINT64_FORMAT " bytes of chroma plane "
        "%d wrong", what, bad, p);
    g_free (got);
    CUDA_OK (cudaFree (cc->buf[p]));
  }
}

/* A grey frame of @pr with chroma of @kind placed as @placing: the grey
 * plane against the reference and the chroma neutral, every byte around
 * them untouched; and whether the grey launch set the chroma, as it must
 * where every plane it writes lies on 16 bytes (cf_gray_copy_luma's luma
 * too: otherwise the runtime's 2D copy runs), unless @grid_full (the grey
 * launch has the most rows of blocks a grid may). */
static void
run_neutral_case (GreyProducer pr, guint kind, ChromaPlacing placing, gint w,
    gint h, PitchMode mode, gboolean solid, gboolean grid_full)
{
  gchar *what = g_strdup_printf ("grey %s, %s chroma placing %d, %dx%d "
      "pitch mode %d%s", producers[pr].name, chroma_kinds[kind].name,
      placing, w, h, mode, solid ? " solid" : "");
  gsize in_row = (gsize) w * producers[pr].in_bpp, x;
  gboolean want_fused;
  guint64 fused;
  PlaneCase pc;
  ChromaCase cc;
  CfError err;
  gint y;

  plane_case_init (&pc, in_row, (gsize) w * producers[pr].out_bpp, h, mode);
  if (solid)                    /* the first pixel everywhere */
    for (y = 0; y < h; y++)
      for (x = 0; x < in_row; x++)
        pc.src[pc.src_off + y * pc.src_pitch + x] =
            pc.src[pc.src_off + x % producers[pr].in_bpp];
  plane_case_upload (&pc);
  grey_reference (pr, &pc, w, h);
  chroma_case_init (&cc, kind, placing, w, h);
  want_fused = cc.aligned && !grid_full && (pr != GREY_COPY_LUMA
      || (pc.src_off % 16 == 0 && pc.src_pitch % 16 == 0
          && pc.dst_off % 16 == 0 && pc.dst_pitch % 16 == 0));

  fused = cf_gray_neutral_fused_launches ();
  err = grey_launch (pr, &pc, w, h, &cc.dev);
  fail_unless (err == 0, "%s: launch: %s", what, cf_error_name (err));
  fail_unless (cf_gray_neutral_fused_launches () - fused ==
      (want_fused ? 1 : 0), "%s: the chroma was%s set by the grey launch",
      what, want_fused ? " not" : "");
  chroma_case_finish (&cc, what);
  plane_case_finish (&pc, err, what);
  g_free (what);
}

GST_START_TEST (test_neutral_planes)
{
  guint pr, kind, s, mode, placing;

  for (pr = 0; pr < N_GREY_PRODUCERS; pr++)
    for (kind = 0; kind < G_N_ELEMENTS (chroma_kinds); kind++)
      for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
        for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
          for (placing = 0; placing < N_CHROMA_PLACINGS; placing++)
            run_neutral_case (pr, kind, placing, sizes[s].w, sizes[s].h,
                mode, FALSE, FALSE);
        run_neutral_case (pr, kind, CHROMA_PADDED, sizes[s].w, sizes[s].h,
            PITCH_PADDED, TRUE, FALSE);
      }
}

GST_END_TEST;

/* 16 x 524280: the grey kernels of 8 samples a thread (aligned) and of
 * one take 65535 rows of blocks, the most a grid has, and the chroma,
 * aligned, is set by launches of its own, to the same bytes */
GST_START_TEST (test_neutral_grid_limit)
{
  run_neutral_case (GREY_TO_MSB16, 2, CHROMA_TIGHT, 16, 8 * 65535,
      PITCH_TIGHT, FALSE, TRUE);
  run_neutral_case (GREY_TO_8, 0, CHROMA_TIGHT, 16, 8 * 65535,
      PITCH_MISALIGNED, FALSE, TRUE);
}

GST_END_TEST;

/* The number of the grey entry points that accept @n with a 4 x 4 frame
 * from @d into @d + 2048 */
static gint
grey_accepted (guint8 * d, const CfNeutralPlanes * n)
{
  guint8 *g = d + 2048;

  return (cf_gray_from_packed (d, 64, g, 64, 4, 4, rgba_layout, 0, n,
          NULL) == 0)
      + (cf_plane_to_msb16 (d, 64, g, 64, 4, 4, 10, 6, n, NULL) == 0)
      + (cf_plane_to_8 (d, 64, g, 64, 4, 4, 10, 6, n, NULL) == 0)
      + (cf_gray16_from_rgb10a2 (d, 64, g, 64, 4, 4, 0, 0, n, NULL) == 0)
      + (cf_gray8_from_rgb10a2 (d, 64, g, 64, 4, 4, 0, 0, n, NULL) == 0)
      + (cf_gray_copy_luma (d, 64, g, 64, 4, 4, n, NULL) == 0);
}

GST_START_TEST (test_neutral_invalid_arguments)
{
  CfNeutralPlanes ok = { 0 }, bad;
  guint8 *d, got[2048];
  guint i;

  CUDA_OK (cudaMalloc ((void **) &d, 4096));
  CUDA_OK (cudaMemset (d + 2048, POISON, 2048));
  ok.n_planes = 2;
  for (i = 0; i < 2; i++) {
    ok.data[i] = d + 3072 + 512 * i;
    ok.pitch[i] = 64;
    ok.row_bytes[i] = 4;
    ok.rows[i] = 2;
  }

  /* refused by all, before anything is launched */
  bad = ok;
  bad.n_planes = 3;
  fail_unless_equals_int (grey_accepted (d, &bad), 0);
  bad.n_planes = -1;
  fail_unless_equals_int (grey_accepted (d, &bad), 0);
  bad = ok;
  bad.rows[1] = -1;
  fail_unless_equals_int (grey_accepted (d, &bad), 0);
  bad = ok;
  bad.data[1] = NULL;
  fail_unless_equals_int (grey_accepted (d, &bad), 0);
  bad = ok;
  bad.pitch[0] = 3;
  fail_unless_equals_int (grey_accepted (d, &bad), 0);
  bad = ok;
  bad.words = 1;
  bad.row_bytes[0] = 3;
  fail_unless_equals_int (grey_accepted (d, &bad), 0);
  bad = ok;
  bad.words = 1;
  bad.rows[0] = 8 * 65535 + 1;
  fail_unless_equals_int (grey_accepted (d, &bad), 0);
  bad = ok;
  bad.row_bytes[0] = bad.pitch[0] = (gsize) G_MAXINT32 + 1;
  fail_unless_equals_int (grey_accepted (d, &bad), 0);
  bad = ok;
  bad.row_bytes[0] = bad.pitch[0] = 32;
  bad.rows[0] = G_MAXINT32 / 2;
  fail_unless_equals_int (grey_accepted (d, &bad), 0);
  /* the luma copy's own */
  fail_if (cf_gray_copy_luma (NULL, 64, d + 2048, 64, 4, 4, &ok, NULL) == 0);
  fail_if (cf_gray_copy_luma (d, 64, d + 2048, 64, 0, 4, &ok, NULL) == 0);
  fail_if (cf_gray_copy_luma (d, 64, d + 2048, 64, 4, 0, &ok, NULL) == 0);
  fail_if (cf_gray_copy_luma (d, 3, d + 2048, 64, 4, 4, &ok, NULL) == 0);
  fail_if (cf_gray_copy_luma (d, 64, d + 2048, 64, 64, G_MAXINT32 / 2, &ok,
          NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaMemcpy (got, d + 2048, 2048, cudaMemcpyDeviceToHost));
  for (i = 0; i < 2048; i++)
    fail_unless_equals_int (got[i], POISON);

  /* accepted: the planes, NULL, no planes, planes of no rows or bytes
   * (without data) */
  fail_unless_equals_int (grey_accepted (d, &ok), 6);
  fail_unless_equals_int (grey_accepted (d, NULL), 6);
  bad = ok;
  bad.n_planes = 0;
  fail_unless_equals_int (grey_accepted (d, &bad), 6);
  bad = ok;
  bad.rows[0] = 0;
  bad.row_bytes[1] = 0;
  bad.data[0] = bad.data[1] = NULL;
  fail_unless_equals_int (grey_accepted (d, &bad), 6);
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
    CF_KERNEL_TEST (test_high_bit_invalid_arguments),
    CF_KERNEL_TEST (test_neutral_planes),
    CF_KERNEL_TEST (test_neutral_grid_limit),
    CF_KERNEL_TEST (test_neutral_invalid_arguments));
