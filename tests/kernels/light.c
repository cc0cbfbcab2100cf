/* cf_light_codes_add and cf_hlg_light_add against their CPU references
 * (#48, docs/design/hdr.md), each on every frame: P010/P012/P016, I420
 * and Y444 layouts of words, regions starting on the second pixel of a
 * chroma sample, odd, large and tall frames, tight, padded and
 * misaligned pitches (Cr's unlike Cb's), random words (stray bits outside
 * the samples included), solid frames and smooth real-looking ones, the
 * BT.2020 and BT.709 matrices in both ranges and random ones that reach
 * the clamps, HLG at several display peaks; counts and sums poisoned
 * first (the kernels add); the arguments they refuse.  And the same two
 * of packed 10-bit RGB (cf_light_codes_add_rgb10a2,
 * cf_hlg_light_add_rgb10a2). */
#include "cf-kernel-test.h"
#include "gstcudafiltershdr.h"

typedef struct
{
  const gchar *name;
  gint depth, shift;
  gboolean interleaved;         /* Cb and Cr in one plane (P01x) */
  gint sub_x, sub_y;
} LightLayout;

static const LightLayout layouts[] = {
  {"P010_10LE", 10, 6, TRUE, 1, 1},
  {"P012_LE", 12, 4, TRUE, 1, 1},
  {"P016_LE", 16, 0, TRUE, 1, 1},
  {"I420_10LE", 10, 0, FALSE, 1, 1},
  {"I420_12LE", 12, 0, FALSE, 1, 1},
  {"Y444_10LE", 10, 0, FALSE, 0, 0},
  {"Y444_16LE", 16, 0, FALSE, 0, 0},
  {"9 bits at 3", 9, 3, FALSE, 1, 0},
};

typedef enum
{
  LIGHT_RANDOM,                 /* any words */
  LIGHT_SOLID,                  /* one luma, one Cb, one Cr */
  LIGHT_SMOOTH,                 /* in range: a luma ramp, slow chroma */
} FrameContent;

/* one plane in host and device memory, at an offset in its allocation */
typedef struct
{
  gsize pitch, offset, size;
  guint8 *host, *dev;
} LightPlane;

/* @extra: bytes added to the pitch (not in PITCH_TIGHT) */
static void
plane_init (LightPlane * pl, gsize row_bytes, gint rows, PitchMode mode,
    gsize extra)
{
  switch (mode) {
    case PITCH_TIGHT:
      pl->pitch = row_bytes;
      pl->offset = 0;
      break;
    case PITCH_PADDED:
      pl->pitch = GST_ROUND_UP_N (row_bytes, 256) + 256;
      pl->offset = 256;
      break;
    default:
      pl->pitch = row_bytes | 1;
      pl->offset = 1;
      break;
  }
  if (mode != PITCH_TIGHT)
    pl->pitch += extra;
  pl->size = pl->offset + pl->pitch * rows + 16;
  pl->host = g_malloc (pl->size);
  fill_content (pl->host, pl->size, CONTENT_RANDOM);
  CUDA_OK (cudaMalloc ((void **) &pl->dev, pl->size));
}

static void
plane_put (LightPlane * pl, gint row, gint index, guint32 word)
{
  guint8 *p = pl->host + pl->offset + (gsize) row * pl->pitch + 2 * index;

  p[0] = word & 0xff;
  p[1] = word >> 8;
}

static void
plane_upload (LightPlane * pl)
{
  CUDA_OK (cudaMemcpy (pl->dev, pl->host, pl->size, cudaMemcpyHostToDevice));
}

static void
plane_clear (LightPlane * pl)
{
  g_free (pl->host);
  CUDA_OK (cudaFree (pl->dev));
}

/* a sample of @content at (x, y) of a w x h plane, in range for smooth */
static guint32
sample_of (FrameContent content, const LightLayout * l, gint which, gint x,
    gint y, gint w, gint h, guint32 solid)
{
  guint32 top = (1u << l->depth) - 1, v;

  switch (content) {
    case LIGHT_SOLID:
      v = solid;
      break;
    case LIGHT_SMOOTH:{
      gdouble t = (x + 0.5) / MAX (w, 1), u = (y + 0.5) / MAX (h, 1);
      gdouble e = which == 0 ? 0.07 + 0.85 * t * (0.6 + 0.4 * u) :
          0.5 + (which == 1 ? 0.2 : -0.15) * (t - u);

      v = (guint32) (e * top + 0.5);
      v = MIN (v + g_rand_int_range (rand_, 0, 3), top);
      break;
    }
    default:
      return g_rand_int (rand_) & 0xffff;       /* stray bits too */
  }
  return (v << l->shift) | (g_rand_int (rand_) & ((1u << l->shift) - 1));
}

/* HLG's tables, on the CPU and copied to the GPU */
typedef struct
{
  CfHlgTables *host, *dev;
} HlgTables;

static void
hlg_tables_init (HlgTables * t, gdouble kr, gdouble kb, gdouble peak)
{
  t->host = g_new (CfHlgTables, 1);
  fail_unless (gst_cuda_filters_hlg_init (t->host, kr, kb, peak));
  CUDA_OK (cudaMalloc ((void **) &t->dev, sizeof (CfHlgTables)));
  CUDA_OK (cudaMemcpy (t->dev, t->host, sizeof (CfHlgTables),
          cudaMemcpyHostToDevice));
}

static void
hlg_tables_clear (HlgTables * t)
{
  g_free (t->host);
  CUDA_OK (cudaFree (t->dev));
}

/* The frame's HLG light, GPU against CPU, from poisoned sums */
static void
check_hlg (const CfYCbCrWords * host, const CfYCbCrWords * dev,
    const CfMaxRgb * m, const HlgTables * t, const gchar * what)
{
  CfHlgSums want, got, *d_sums;
  CfError err;

  want.sum = g_rand_int (rand_) * (guint64) g_rand_int (rand_);
  want.max = g_rand_boolean (rand_) ? g_rand_int (rand_) >> 8 : 0;
  want.reserved = 0;
  CUDA_OK (cudaMalloc ((void **) &d_sums, sizeof (want)));
  CUDA_OK (cudaMemcpy (d_sums, &want, sizeof (want), cudaMemcpyHostToDevice));
  cf_ref_hlg_light_add (host, m, t->host, &want);
  err = cf_hlg_light_add (dev, m, t->dev, d_sums, NULL);
  fail_unless (err == 0, "%s: HLG launch: %s", what, cf_error_name (err));
  CUDA_OK (cudaMemcpy (&got, d_sums, sizeof (got), cudaMemcpyDeviceToHost));
  fail_unless (got.max == want.max && got.sum == want.sum,
      "%s: HLG max %u sum %" G_GUINT64_FORMAT ", CPU max %u sum %"
      G_GUINT64_FORMAT, what, got.max, got.sum, want.max, want.sum);
  CUDA_OK (cudaFree (d_sums));
}

static void
check_light (const LightLayout * l, const CfMaxRgb * m, const HlgTables * t,
    gint w, gint h, gint phase_x, gint phase_y, PitchMode mode,
    FrameContent content)
{
  const gint cw = w ? ((w - 1 + phase_x) >> l->sub_x) + 1 : 0;
  const gint ch = h ? ((h - 1 + phase_y) >> l->sub_y) + 1 : 0;
  const gint step = l->interleaved ? 2 : 1;
  guint32 solid[3], want[CF_LIGHT_CODES], got[CF_LIGHT_CODES];
  guint32 *d_counts;
  LightPlane luma, cb, cr;
  CfYCbCrWords host, dev;
  gchar *what = g_strdup_printf ("%s %dx%d phase %d,%d pitch mode %d "
      "content %d", l->name, w, h, phase_x, phase_y, mode, content);
  gint x, y, i;
  CfError err;

  for (i = 0; i < 3; i++)
    solid[i] = g_rand_int_range (rand_, 0, 1 << l->depth);
  plane_init (&luma, 2 * (gsize) MAX (w, 1), MAX (h, 1), mode, 0);
  plane_init (&cb, 2 * (gsize) MAX (cw, 1) * step, MAX (ch, 1), mode, 0);
  if (!l->interleaved)
    plane_init (&cr, 2 * (gsize) MAX (cw, 1), MAX (ch, 1), mode, 64);
  for (y = 0; y < h; y++)
    for (x = 0; x < w; x++)
      plane_put (&luma, y, x, sample_of (content, l, 0, x, y, w, h, solid[0]));
  for (y = 0; y < ch; y++)
    for (x = 0; x < cw; x++) {
      plane_put (&cb, y, x * step, sample_of (content, l, 1, x, y, cw, ch,
              solid[1]));
      plane_put (l->interleaved ? &cb : &cr, y, x * step + (step - 1),
          sample_of (content, l, 2, x, y, cw, ch, solid[2]));
    }
  plane_upload (&luma);
  plane_upload (&cb);
  if (!l->interleaved)
    plane_upload (&cr);

  host.luma = luma.host + luma.offset;
  host.luma_pitch = luma.pitch;
  host.cb = cb.host + cb.offset;
  host.cr = l->interleaved ? cb.host + cb.offset + 2 : cr.host + cr.offset;
  host.cb_pitch = cb.pitch;
  host.cr_pitch = l->interleaved ? cb.pitch : cr.pitch;
  host.chroma_step = step;
  host.width = w;
  host.height = h;
  host.sub_x = l->sub_x;
  host.sub_y = l->sub_y;
  host.phase_x = phase_x;
  host.phase_y = phase_y;
  host.depth = l->depth;
  host.shift = l->shift;
  dev = host;
  dev.luma = luma.dev + luma.offset;
  dev.cb = cb.dev + cb.offset;
  dev.cr = l->interleaved ? cb.dev + cb.offset + 2 : cr.dev + cr.offset;

  /* the kernel adds: counts poisoned with random values first */
  for (i = 0; i < CF_LIGHT_CODES; i++)
    want[i] = g_rand_int (rand_) >> 2;
  CUDA_OK (cudaMalloc ((void **) &d_counts, sizeof (want)));
  CUDA_OK (cudaMemcpy (d_counts, want, sizeof (want), cudaMemcpyHostToDevice));
  cf_ref_light_codes_add (&host, m, want);
  err = cf_light_codes_add (&dev, m, d_counts, NULL);
  fail_unless (err == 0, "%s: launch: %s", what, cf_error_name (err));
  CUDA_OK (cudaMemcpy (got, d_counts, sizeof (got), cudaMemcpyDeviceToHost));
  for (i = 0; i < CF_LIGHT_CODES; i++)
    fail_unless (got[i] == want[i], "%s: code %d: GPU %u, CPU %u", what, i,
        got[i], want[i]);
  check_hlg (&host, &dev, m, t, what);

  CUDA_OK (cudaFree (d_counts));
  plane_clear (&luma);
  plane_clear (&cb);
  if (!l->interleaved)
    plane_clear (&cr);
  g_free (what);
}

/* a random matrix: coefficients up to 4 times BT.2020 narrow range's at
 * 10 bits, of either sign, reaching both clamps */
static void
random_matrix (CfMaxRgb * m, gint depth)
{
  gint64 scale = (gint64) 1 << (CF_MAX_RGB_SHIFT + 14 - depth);

  m->offset_y = g_rand_int_range (rand_, 0, 1 << (depth - 2));
  m->offset_c = 1 << (depth - 1);
  m->y = (gint64) (g_rand_double (rand_) * scale);
  m->cr_r = (gint64) ((g_rand_double (rand_) - 0.2) * scale);
  m->cb_b = (gint64) ((g_rand_double (rand_) - 0.2) * scale);
  m->cb_g = (gint64) ((g_rand_double (rand_) - 0.2) * scale);
  m->cr_g = (gint64) ((g_rand_double (rand_) - 0.2) * scale);
}

GST_START_TEST (test_light_codes_equals_reference)
{
  static const gdouble weights[][2] = { {0.2627, 0.0593}, {0.2126, 0.0722} };
  static const gdouble peaks[] = { 1000, 400, 4000 };
  HlgTables tables[G_N_ELEMENTS (peaks)];
  guint l, s, mode, k;

  for (k = 0; k < G_N_ELEMENTS (peaks); k++)
    hlg_tables_init (&tables[k], weights[k & 1][0], weights[k & 1][1],
        peaks[k]);
  for (l = 0; l < G_N_ELEMENTS (layouts); l++) {
    const LightLayout *lay = &layouts[l];

    for (k = 0; k < 5; k++) {
      const HlgTables *t = &tables[(l + k) % G_N_ELEMENTS (peaks)];
      CfMaxRgb m;

      if (k < 4)
        fail_unless (gst_cuda_filters_max_rgb_init (&m, lay->depth, k & 1,
                weights[k / 2][0], weights[k / 2][1]));
      else
        random_matrix (&m, lay->depth);
      for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
        gint w = sizes[s].w, h = sizes[s].h;
        gint px = lay->sub_x && (s & 1), py = lay->sub_y && (s & 2);

        for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
          check_light (lay, &m, t, w, h, px, py, mode,
              k == 4 ? LIGHT_RANDOM : LIGHT_SMOOTH);
        check_light (lay, &m, t, w, h, lay->sub_x, lay->sub_y, PITCH_PADDED,
            LIGHT_RANDOM);
        check_light (lay, &m, t, w, h, 0, 0, PITCH_PADDED, LIGHT_SOLID);
      }
    }
  }
  /* a 4K P010 frame, the decoders' */
  {
    CfMaxRgb m;

    fail_unless (gst_cuda_filters_max_rgb_init (&m, 10, FALSE, 0.2627, 0.0593));
    check_light (&layouts[0], &m, &tables[0], 3840, 2160, 0, 0, PITCH_PADDED,
        LIGHT_SMOOTH);
    check_light (&layouts[0], &m, &tables[0], 3840, 2160, 0, 0, PITCH_PADDED,
        LIGHT_SOLID);
  }
  for (k = 0; k < G_N_ELEMENTS (peaks); k++)
    hlg_tables_clear (&tables[k]);
}

GST_END_TEST;

GST_START_TEST (test_light_codes_invalid_arguments)
{
  guint8 *d;
  guint32 *counts, host[CF_LIGHT_CODES];
  CfHlgSums *sums, host_sums;
  HlgTables t;
  CfMaxRgb m;
  CfYCbCrWords f = { NULL, 64, NULL, NULL, 64, 64, 2, 8, 8, 1, 1, 0, 0, 10, 6 };
  CfYCbCrWords bad;
  guint i;

  fail_unless (gst_cuda_filters_max_rgb_init (&m, 10, FALSE, 0.2627, 0.0593));
  hlg_tables_init (&t, 0.2627, 0.0593, 1000);
  CUDA_OK (cudaMalloc ((void **) &d, 4096));
  CUDA_OK (cudaMalloc ((void **) &counts, sizeof (host) + 4));
  CUDA_OK (cudaMemset (counts, 0, sizeof (host)));
  CUDA_OK (cudaMalloc ((void **) &sums, 2 * sizeof (CfHlgSums)));
  CUDA_OK (cudaMemset (sums, 0, sizeof (CfHlgSums)));
  CUDA_OK (cudaMemset (d, 0, 4096));
  f.luma = d;
  f.cb = d + 1024;
  f.cr = d + 1026;
  fail_unless (cf_light_codes_add (&f, &m, counts, NULL) == 0);
  fail_if (cf_light_codes_add (NULL, &m, counts, NULL) == 0);
  fail_if (cf_light_codes_add (&f, NULL, counts, NULL) == 0);
  fail_if (cf_light_codes_add (&f, &m, NULL, NULL) == 0);
  fail_if (cf_light_codes_add (&f, &m, (guint32 *) ((guint8 *) counts + 2),
          NULL) == 0);
  fail_unless (cf_hlg_light_add (&f, &m, t.dev, sums, NULL) == 0);
  fail_if (cf_hlg_light_add (NULL, &m, t.dev, sums, NULL) == 0);
  fail_if (cf_hlg_light_add (&f, NULL, t.dev, sums, NULL) == 0);
  fail_if (cf_hlg_light_add (&f, &m, NULL, sums, NULL) == 0);
  fail_if (cf_hlg_light_add (&f, &m, (CfHlgTables *) ((guint8 *) t.dev + 2),
          sums, NULL) == 0);
  fail_if (cf_hlg_light_add (&f, &m, t.dev, NULL, NULL) == 0);
  fail_if (cf_hlg_light_add (&f, &m, t.dev,
          (CfHlgSums *) ((guint8 *) sums + 4), NULL) == 0);
#define REFUSED(field, value) G_STMT_START {                            \
  bad = f;                                                              \
  bad.field = value;                                                    \
  fail_if (cf_light_codes_add (&bad, &m, counts, NULL) == 0,            \
      #field " = " #value " taken");                                    \
  fail_if (cf_hlg_light_add (&bad, &m, t.dev, sums, NULL) == 0,         \
      #field " = " #value " taken (HLG)");                              \
} G_STMT_END
  REFUSED (depth, 8);
  REFUSED (depth, 17);
  REFUSED (shift, 7);
  REFUSED (shift, -1);
  REFUSED (sub_x, 2);
  REFUSED (phase_x, 2);
  REFUSED (phase_y, -1);
  REFUSED (chroma_step, 3);
  REFUSED (luma, NULL);
  REFUSED (cr, NULL);
  REFUSED (luma_pitch, 14);
  REFUSED (cb_pitch, 14);
  REFUSED (cr_pitch, 14);
  REFUSED (width, -1);
#undef REFUSED
  /* an empty region counts nothing */
  bad = f;
  bad.width = 0;
  bad.luma = bad.cb = bad.cr = NULL;
  fail_unless (cf_light_codes_add (&bad, &m, counts, NULL) == 0);
  fail_unless (cf_hlg_light_add (&bad, &m, t.dev, sums, NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  /* (the one valid launch counted its 64 pixels) */
  CUDA_OK (cudaMemcpy (host, counts, sizeof (host), cudaMemcpyDeviceToHost));
  {
    guint64 n = 0;

    for (i = 0; i < CF_LIGHT_CODES; i++)
      n += host[i];
    fail_unless (n == 64, "%" G_GUINT64_FORMAT " pixels counted", n);
  }
  /* (and the HLG one its 64 pixels' light, all of zero words) */
  {
    static const guint8 zeros[4096] = { 0 };
    CfYCbCrWords z = f;
    CfHlgSums want = { 0, 0, 0 };

    z.luma = zeros;
    z.cb = zeros + 1024;
    z.cr = zeros + 1026;
    cf_ref_hlg_light_add (&z, &m, t.host, &want);
    CUDA_OK (cudaMemcpy (&host_sums, sums, sizeof (host_sums),
            cudaMemcpyDeviceToHost));
    fail_unless (want.sum > 0 && host_sums.max == want.max &&
        host_sums.sum == want.sum, "HLG max %u sum %" G_GUINT64_FORMAT,
        host_sums.max, host_sums.sum);
  }
  CUDA_OK (cudaFree (sums));
  CUDA_OK (cudaFree (counts));
  CUDA_OK (cudaFree (d));
  hlg_tables_clear (&t);
}

GST_END_TEST;

/* ---- packed 10-bit RGB ---- */

/* a smooth, real-looking frame of PQ or HLG R'G'B' written over @wp's
 * pixels (alpha random) */
static void
rgb10a2_smooth (WordPlanes * wp)
{
  CfWordPlane *p = &wp->host[0];
  gint x, y, c;

  for (y = 0; y < p->height; y++)
    for (x = 0; x < p->width; x++) {
      gdouble t = (x + 0.5) / p->width, u = (y + 0.5) / p->height;
      guint32 pixel = g_rand_int (rand_) & 0xc0000000u;

      for (c = 0; c < 3; c++) {
        gdouble e = 0.05 + 0.9 * t * (0.5 + 0.5 * u) + 0.04 * (c - 1) * (t - u);
        guint v = MIN ((guint) (e * 1023 + 0.5) + g_rand_int_range (rand_, 0,
                3), 1023);

        pixel |= v << (10 * c);
      }
      GST_WRITE_UINT32_LE ((guint8 *) p->data + (gsize) y * p->pitch +
          (gsize) x * 4, pixel);
    }
  /* (the allocation starts where data does, less the mode's offset) */
  CUDA_OK (cudaMemcpy ((guint8 *) wp->dev[0].data, p->data,
          p->height ? (gsize) (p->height - 1) * p->pitch + 4 * p->width : 0,
          cudaMemcpyHostToDevice));
}

/* The frame's PQ counts and HLG sums, GPU against CPU from poisoned
 * ones; and, at full range, the CPU's counts against codes made here
 * from the components, round (4095 max / 1023) */
static void
check_rgb10a2 (gboolean swap_rb, const CfRgbScale * s, gboolean full_range,
    const HlgTables * t, gint w, gint h, PitchMode mode, gint content)
{
  guint32 want[CF_LIGHT_CODES], got[CF_LIGHT_CODES], *d_counts;
  CfHlgSums want_sums, got_sums, *d_sums;
  gchar *what = g_strdup_printf ("%s %dx%d pitch mode %d content %d scale %"
      G_GINT64_FORMAT " offset %d", swap_rb ? "BGR10A2" : "RGB10A2", w, h,
      mode, content, s->scale, s->offset);
  WordPlanes wp;
  CfError err;
  gint i;

  rgb10a2_planes_init (&wp, swap_rb, w, h, mode, content == 1);
  if (content == 2)
    rgb10a2_smooth (&wp);

  for (i = 0; i < CF_LIGHT_CODES; i++)
    want[i] = g_rand_int (rand_) >> 2;
  CUDA_OK (cudaMalloc ((void **) &d_counts, sizeof (want)));
  CUDA_OK (cudaMemcpy (d_counts, want, sizeof (want), cudaMemcpyHostToDevice));
  if (full_range) {
    guint32 *mine = g_new0 (guint32, CF_LIGHT_CODES), *ref =
        g_new0 (guint32, CF_LIGHT_CODES);
    gint x, y;

    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        guint top = MAX (rgb10a2_component (&wp, swap_rb, 0, x, y),
            MAX (rgb10a2_component (&wp, swap_rb, 1, x, y),
                rgb10a2_component (&wp, swap_rb, 2, x, y)));

        mine[(2 * top * 4095 + 1023) / 2046]++;
      }
    cf_ref_light_codes_add_rgb10a2 (&wp.host[0], s, ref);
    for (i = 0; i < CF_LIGHT_CODES; i++)
      fail_unless (ref[i] == mine[i], "%s: code %d: CPU reference %u, "
          "rounded here %u", what, i, ref[i], mine[i]);
    g_free (mine);
    g_free (ref);
  }
  cf_ref_light_codes_add_rgb10a2 (&wp.host[0], s, want);
  err = cf_light_codes_add_rgb10a2 (&wp.dev[0], s, d_counts, NULL);
  fail_unless (err == 0, "%s: launch: %s", what, cf_error_name (err));
  CUDA_OK (cudaMemcpy (got, d_counts, sizeof (got), cudaMemcpyDeviceToHost));
  for (i = 0; i < CF_LIGHT_CODES; i++)
    fail_unless (got[i] == want[i], "%s: code %d: GPU %u, CPU %u", what, i,
        got[i], want[i]);

  want_sums.sum = g_rand_int (rand_) * (guint64) g_rand_int (rand_);
  want_sums.max = g_rand_boolean (rand_) ? g_rand_int (rand_) >> 8 : 0;
  want_sums.reserved = 0;
  CUDA_OK (cudaMalloc ((void **) &d_sums, sizeof (want_sums)));
  CUDA_OK (cudaMemcpy (d_sums, &want_sums, sizeof (want_sums),
          cudaMemcpyHostToDevice));
  cf_ref_hlg_light_add_rgb10a2 (&wp.host[0], s, t->host, &want_sums);
  err = cf_hlg_light_add_rgb10a2 (&wp.dev[0], s, t->dev, d_sums, NULL);
  fail_unless (err == 0, "%s: HLG launch: %s", what, cf_error_name (err));
  CUDA_OK (cudaMemcpy (&got_sums, d_sums, sizeof (got_sums),
          cudaMemcpyDeviceToHost));
  fail_unless (got_sums.max == want_sums.max && got_sums.sum == want_sums.sum,
      "%s: HLG max %u sum %" G_GUINT64_FORMAT ", CPU max %u sum %"
      G_GUINT64_FORMAT, what, got_sums.max, got_sums.sum, want_sums.max,
      want_sums.sum);

  CUDA_OK (cudaFree (d_sums));
  CUDA_OK (cudaFree (d_counts));
  word_planes_clear (&wp);
  g_free (what);
}

/* Both orders of packed 10-bit RGB, full and narrow range and random
 * scales that reach the clamps, HLG at three peaks; sizes from 1 x 1 to
 * 1921 x 1081 and 4K; tight pitches (the buffer ending at the last
 * pixel), padded ones (16-byte vectors) and ones on 4 bytes off 16;
 * random words, solid frames and smooth ones */
GST_START_TEST (test_light_rgb10a2_equals_reference)
{
  static const gdouble peaks[] = { 1000, 400, 4000 };
  HlgTables tables[G_N_ELEMENTS (peaks)];
  guint k, sz, mode, swap;

  for (k = 0; k < G_N_ELEMENTS (peaks); k++)
    hlg_tables_init (&tables[k], k == 1 ? 0.2126 : 0.2627,
        k == 1 ? 0.0722 : 0.0593, peaks[k]);
  for (swap = 0; swap < 2; swap++)
    for (k = 0; k < 3; k++) {
      CfRgbScale s;

      if (k < 2) {
        fail_unless (gst_cuda_filters_rgb_scale_init (&s, 10, k == 0));
      } else {
        memset (&s, 0, sizeof (s));
        s.offset = g_rand_int_range (rand_, 0, 256);
        s.scale = (gint64) (g_rand_double_range (rand_, 1.0, 8.0) *
            ((gint64) 1 << CF_MAX_RGB_SHIFT));
      }
      for (sz = 0; sz < G_N_ELEMENTS (sizes); sz++)
        for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
          check_rgb10a2 (swap, &s, k == 0, &tables[(sz + k) % 3],
              sizes[sz].w, sizes[sz].h, mode, (sz + mode + k) % 3);
    }
  {
    CfRgbScale s;

    fail_unless (gst_cuda_filters_rgb_scale_init (&s, 10, TRUE));
    check_rgb10a2 (FALSE, &s, TRUE, &tables[0], 3840, 2160, PITCH_TIGHT, 2);
    check_rgb10a2 (TRUE, &s, TRUE, &tables[0], 3840, 2160, PITCH_PADDED, 1);
  }
  for (k = 0; k < G_N_ELEMENTS (peaks); k++)
    hlg_tables_clear (&tables[k]);
}

GST_END_TEST;

GST_START_TEST (test_light_rgb10a2_invalid_arguments)
{
  guint32 *counts, host[CF_LIGHT_CODES];
  CfHlgSums *sums;
  HlgTables t;
  CfRgbScale s;
  CfWordPlane bad;
  WordPlanes wp;
  guint64 n = 0;
  guint i;

  fail_unless (gst_cuda_filters_rgb_scale_init (&s, 10, TRUE));
  hlg_tables_init (&t, 0.2627, 0.0593, 1000);
  rgb10a2_planes_init (&wp, FALSE, 8, 8, PITCH_PADDED, FALSE);
  CUDA_OK (cudaMalloc ((void **) &counts, sizeof (host) + 4));
  CUDA_OK (cudaMemset (counts, 0, sizeof (host)));
  CUDA_OK (cudaMalloc ((void **) &sums, 2 * sizeof (CfHlgSums)));
  CUDA_OK (cudaMemset (sums, 0, sizeof (CfHlgSums)));
  fail_unless (cf_light_codes_add_rgb10a2 (&wp.dev[0], &s, counts, NULL) == 0);
  fail_unless (cf_hlg_light_add_rgb10a2 (&wp.dev[0], &s, t.dev, sums,
          NULL) == 0);
  fail_if (cf_light_codes_add_rgb10a2 (NULL, &s, counts, NULL) == 0);
  fail_if (cf_light_codes_add_rgb10a2 (&wp.dev[0], NULL, counts, NULL) == 0);
  fail_if (cf_light_codes_add_rgb10a2 (&wp.dev[0], &s, NULL, NULL) == 0);
  fail_if (cf_light_codes_add_rgb10a2 (&wp.dev[0], &s,
          (guint32 *) ((guint8 *) counts + 2), NULL) == 0);
  fail_if (cf_hlg_light_add_rgb10a2 (&wp.dev[0], &s, NULL, sums, NULL) == 0);
  fail_if (cf_hlg_light_add_rgb10a2 (&wp.dev[0], &s,
          (CfHlgTables *) ((guint8 *) t.dev + 2), sums, NULL) == 0);
  fail_if (cf_hlg_light_add_rgb10a2 (&wp.dev[0], &s, t.dev,
          (CfHlgSums *) ((guint8 *) sums + 4), NULL) == 0);
#define REFUSED(field, value) G_STMT_START {                            \
  bad = wp.dev[0];                                                      \
  bad.field = value;                                                    \
  fail_if (cf_light_codes_add_rgb10a2 (&bad, &s, counts, NULL) == 0,    \
      #field " = " #value " taken");                                    \
  fail_if (cf_hlg_light_add_rgb10a2 (&bad, &s, t.dev, sums, NULL) == 0, \
      #field " = " #value " taken (HLG)");                              \
} G_STMT_END
  REFUSED (rgb10a2, 0);
  REFUSED (rgb10a2, 3);
  REFUSED (depth, 12);
  REFUSED (shift, 2);
  REFUSED (words_per_pixel, 1);
  REFUSED (pitch, wp.dev[0].pitch + 2);
  REFUSED (pitch, 28);
  REFUSED (data, (const guint8 *) wp.dev[0].data + 2);
  REFUSED (data, NULL);
  REFUSED (width, -1);
#undef REFUSED
  /* an empty region counts nothing */
  bad = wp.dev[0];
  bad.width = 0;
  bad.data = NULL;
  fail_unless (cf_light_codes_add_rgb10a2 (&bad, &s, counts, NULL) == 0);
  fail_unless (cf_hlg_light_add_rgb10a2 (&bad, &s, t.dev, sums, NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  /* (the one valid launch counted its 64 pixels) */
  CUDA_OK (cudaMemcpy (host, counts, sizeof (host), cudaMemcpyDeviceToHost));
  for (i = 0; i < CF_LIGHT_CODES; i++)
    n += host[i];
  fail_unless (n == 64, "%" G_GUINT64_FORMAT " pixels counted", n);
  CUDA_OK (cudaFree (sums));
  CUDA_OK (cudaFree (counts));
  word_planes_clear (&wp);
  hlg_tables_clear (&t);
}

GST_END_TEST;

CF_KERNEL_TEST_MAIN ("kernels-light",
    CF_KERNEL_TEST (test_light_codes_equals_reference),
    CF_KERNEL_TEST (test_light_codes_invalid_arguments),
    CF_KERNEL_TEST (test_light_rgb10a2_equals_reference),
    CF_KERNEL_TEST (test_light_rgb10a2_invalid_arguments));
