/* cf_hist_planes and cf_hist_planes_add against their CPU reference: every
 * plane layout (packed, NV12, I420, planes of mixed bytes a pixel), odd,
 * large and tall frames, regions, tight, padded and misaligned pitches,
 * random, solid, gradient and two-value frames, the launch shapes cached
 * per kind of format, both layouts of counters, outputs poisoned first;
 * the arguments they refuse. */
#include "cf-kernel-test.h"
#include "cudafilters-kernels-testing.h"

/* The counts of planes given in host memory (`host`) and device memory
 * (`dev`, the same samples), by both entry points, against the CPU's: the
 * GPU's counts, over a poisoned output, equal the CPU's, and a second
 * launch on the same workspace gives them again (the kernel leaves its
 * workspace zeroed). */
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

GST_START_TEST (test_hist_invalid_arguments)
{
  guint8 *d;

  CUDA_OK (cudaMalloc ((void **) &d, 4096));
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
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

/* ---- high bit depth (#48): planes of 16-bit words ---- */

/* The planes @wp counted on the GPU three times, each time to @want: by
 * cf_hist_word_planes() over poisoned counts, twice, and by
 * cf_hist_word_planes_add() into zeroed sums, which also zeroes a poisoned
 * next buffer. */
static void
check_hist_words (WordPlanes * wp, const guint32 * want, const gchar * what)
{
  const gint depth = wp->host[0].depth;
  const gsize n_counts = cf_hist_word_sums_bytes (depth) / 4;
  const gint levels = CF_HIST_LEVELS (depth);
  guint32 *got = g_new (guint32, n_counts);
  guint32 *d_counts, *d_next;
  gint run;
  gsize i;

  CUDA_OK (cudaMalloc ((void **) &d_counts, n_counts * 4));
  CUDA_OK (cudaMalloc ((void **) &d_next, n_counts * 4));
  for (run = 0; run < 3; run++) {
    CfError err;

    if (run < 2) {
      CUDA_OK (cudaMemset (d_counts, POISON, n_counts * 4));
      err = cf_hist_word_planes (wp->dev, wp->n_planes, d_counts, NULL);
    } else {
      CUDA_OK (cudaMemset (d_counts, 0, n_counts * 4));
      CUDA_OK (cudaMemset (d_next, POISON, n_counts * 4));
      err = cf_hist_word_planes_add (wp->dev, wp->n_planes, d_counts, d_next,
          NULL);
    }
    fail_unless (err == 0, "%s: launch: %s", what, cf_error_name (err));
    CUDA_OK (cudaDeviceSynchronize ());
    CUDA_OK (cudaMemcpy (got, d_counts, n_counts * 4, cudaMemcpyDeviceToHost));
    for (i = 0; i < n_counts; i++)
      fail_unless (got[i] == want[i], "%s, run %d: channel %d level %d: GPU "
          "counts %u, CPU %u", what, run, (gint) (i / levels),
          (gint) (i % levels), got[i], want[i]);
  }
  /* the next frame's sums were zeroed */
  CUDA_OK (cudaMemcpy (got, d_next, n_counts * 4, cudaMemcpyDeviceToHost));
  for (i = 0; i < n_counts; i++)
    fail_unless (got[i] == 0, "%s: the next sums' word %d is %u, not 0",
        what, (gint) i, got[i]);
  CUDA_OK (cudaFree (d_next));
  CUDA_OK (cudaFree (d_counts));
  g_free (got);
}

/* the planes of @layout: the GPU's counts are the reference's */
static void
check_word_planes (const WordLayout * layout, gint w, gint h, PitchMode mode,
    gboolean solid)
{
  guint32 *want = g_new (guint32, cf_hist_word_sums_bytes (layout->depth) / 4);
  gchar *what = g_strdup_printf ("%s %dx%d pitch mode %d%s", layout->name, w,
      h, mode, solid ? " solid" : "");
  WordPlanes wp;

  word_planes_init (&wp, layout->specs, layout->n, layout->depth,
      layout->shift, w, h, mode, solid);
  cf_ref_hist_word_planes (wp.host, wp.n_planes, want);
  check_hist_words (&wp, want, what);
  word_planes_clear (&wp);
  g_free (what);
  g_free (want);
}

GST_START_TEST (test_hist_words_equals_reference)
{
  guint l, s, mode;

  for (l = 0; l < n_word_layouts; l++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
        check_word_planes (&word_layouts[l], sizes[s].w, sizes[s].h, mode,
            FALSE);
      check_word_planes (&word_layouts[l], sizes[s].w, sizes[s].h,
          PITCH_PADDED, TRUE);
    }
}

GST_END_TEST;

/* RGB10A2 and BGR10A2 as a plane of packed 10-bit RGB (cf-kernel-test.h):
 * the reference's counts of it are the counts of the components read from
 * the 32-bit pixels, and the GPU's are the reference's, on buffers that
 * end at the last pixel (compute-sanitizer's memcheck finds a read past
 * it), through both of the kernel's paths (rows on 16 bytes, and not) */
GST_START_TEST (test_hist_rgb10a2_equals_reference)
{
  static const struct
  {
    gint w, h;
  } rgb_sizes[] = { {1, 1}, {3, 7}, {17, 5}, {640, 3}, {1921, 1081} };
  const gsize n_counts = cf_hist_word_sums_bytes (10) / 4;
  guint32 *want = g_new (guint32, n_counts);
  guint32 *defined = g_new (guint32, n_counts);
  guint s, mode, swap, solid;

  for (swap = 0; swap < 2; swap++)
    for (s = 0; s < G_N_ELEMENTS (rgb_sizes); s++)
      for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
        for (solid = 0; solid < 2; solid++) {
          gint w = rgb_sizes[s].w, h = rgb_sizes[s].h, x, y, c;
          gchar *what = g_strdup_printf ("%s %dx%d pitch mode %d%s",
              swap ? "BGR10A2" : "RGB10A2", w, h, mode, solid ? " solid" : "");
          WordPlanes wp;

          rgb10a2_planes_init (&wp, swap, w, h, mode, solid);
          memset (defined, 0, n_counts * 4);
          for (y = 0; y < h; y++)
            for (x = 0; x < w; x++)
              for (c = 0; c < 3; c++)
                defined[c * 1024 + rgb10a2_component (&wp, swap, c, x, y)]++;
          cf_ref_hist_word_planes (wp.host, wp.n_planes, want);
          fail_unless (memcmp (want, defined, n_counts * 4) == 0,
              "%s: the reference's counts are not the components'", what);
          check_hist_words (&wp, want, what);
          word_planes_clear (&wp);
          g_free (what);
        }
  g_free (defined);
  g_free (want);
}

GST_END_TEST;

GST_START_TEST (test_hist_words_invalid_arguments)
{
  guint8 *d;
  guint32 *counts;
  CfWordPlane pl = { NULL, 64, 4, 4, 1, {0, -1}, 10, 6, 0 };

  CUDA_OK (cudaMalloc ((void **) &d, 4096));
  CUDA_OK (cudaMalloc ((void **) &counts, 2 * cf_hist_word_sums_bytes (16)));
  pl.data = d;
  fail_unless (cf_hist_word_sums_bytes (10) == 3 * 1024 * 4);
  fail_unless (cf_hist_word_sums_bytes (16) == 3 * 4096 * 4);
  fail_unless (cf_hist_word_sums_bytes (8) == 0);
  fail_unless (cf_hist_word_sums_bytes (17) == 0);
  fail_unless (cf_hist_word_planes (&pl, 1, counts, NULL) == 0);
  fail_unless (cf_hist_word_planes_add (&pl, 1, counts,
          (guint8 *) counts + cf_hist_word_sums_bytes (10), NULL) == 0);
  /* a next buffer overlapping the sums, or not 4-byte aligned */
  fail_if (cf_hist_word_planes_add (&pl, 1, counts, (guint8 *) counts + 4,
          NULL) == 0);
  fail_if (cf_hist_word_planes_add (&pl, 1, (guint8 *) counts + 2, NULL,
          NULL) == 0);
  fail_if (cf_hist_word_planes_add (&pl, 1, NULL, NULL, NULL) == 0);
  /* an empty plane (a region of interest outside the frame) counts
   * nothing, and the next sums are still zeroed */
  {
    CfWordPlane empty = pl;
    guint32 *host = g_new (guint32, 2 * 3 * 1024);
    guint i;

    empty.width = 0;
    empty.data = NULL;
    CUDA_OK (cudaMemset (counts, 0, cf_hist_word_sums_bytes (10)));
    CUDA_OK (cudaMemset ((guint8 *) counts + cf_hist_word_sums_bytes (10),
            POISON, cf_hist_word_sums_bytes (10)));
    fail_unless (cf_hist_word_planes_add (&empty, 1, counts, (guint8 *) counts
            + cf_hist_word_sums_bytes (10), NULL) == 0);
    CUDA_OK (cudaMemcpy (host, counts, 2 * cf_hist_word_sums_bytes (10),
            cudaMemcpyDeviceToHost));
    for (i = 0; i < 2 * 3 * 1024; i++)
      fail_unless (host[i] == 0, "word %u: %u", i, host[i]);
    g_free (host);
  }
  fail_if (cf_hist_word_planes (&pl, 0, counts, NULL) == 0);
  fail_if (cf_hist_word_planes (&pl, 1, NULL, NULL) == 0);
  /* packed 10-bit RGB: 2 words a pixel, 10 bits at shift 0, on 4 bytes */
  {
    CfWordPlane packed = { d, 64, 4, 4, 2, {-1, -1}, 10, 0, CF_BGR10A2 };

    fail_unless (cf_hist_word_planes (&packed, 1, counts, NULL) == 0);
    packed.data = d + 2;
    fail_if (cf_hist_word_planes (&packed, 1, counts, NULL) == 0);
    packed.data = d;
    packed.pitch = 66;
    fail_if (cf_hist_word_planes (&packed, 1, counts, NULL) == 0);
    packed.pitch = 64;
    packed.depth = 12;
    fail_if (cf_hist_word_planes (&packed, 1, counts, NULL) == 0);
    packed.depth = 10;
    packed.words_per_pixel = 1;
    fail_if (cf_hist_word_planes (&packed, 1, counts, NULL) == 0);
    packed.words_per_pixel = 2;
    packed.rgb10a2 = 3;
    fail_if (cf_hist_word_planes (&packed, 1, counts, NULL) == 0);
  }
  pl.depth = 8;
  fail_if (cf_hist_word_planes (&pl, 1, counts, NULL) == 0);
  pl.depth = 10;
  pl.shift = 7;
  fail_if (cf_hist_word_planes (&pl, 1, counts, NULL) == 0);
  pl.shift = 6;
  pl.pitch = 6;
  fail_if (cf_hist_word_planes (&pl, 1, counts, NULL) == 0);
  pl.pitch = 64;
  pl.channel[0] = CF_HIST_WORD_CHANNELS;
  fail_if (cf_hist_word_planes (&pl, 1, counts, NULL) == 0);
  pl.channel[0] = 0;
  pl.words_per_pixel = 3;
  fail_if (cf_hist_word_planes (&pl, 1, counts, NULL) == 0);
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (counts));
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

CF_KERNEL_TEST_MAIN ("kernels-hist",
    CF_KERNEL_TEST (test_hist_shapes),
    CF_KERNEL_TEST (test_hist_equals_reference),
    CF_KERNEL_TEST (test_hist_regions),
    CF_KERNEL_TEST (test_hist_warp_bytes_equals_reference),
    CF_KERNEL_TEST (test_hist_invalid_arguments),
    CF_KERNEL_TEST (test_hist_words_equals_reference),
    CF_KERNEL_TEST (test_hist_rgb10a2_equals_reference),
    CF_KERNEL_TEST (test_hist_words_invalid_arguments));
