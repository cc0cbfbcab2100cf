/* cf_sum_planes and cf_sum_planes_add against their CPU reference: the
 * statistics, row and column profiles, black pixels, key counts, the
 * difference from the kept keys of the previous frame, for every plane
 * layout and set of flags, odd, narrow, tall and wide frames, regions,
 * tight, padded and misaligned pitches, random, solid, gradient and
 * two-value frames, outputs poisoned first; the arguments they refuse. */
#include "cf-kernel-test.h"

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
 * second zeroed after the first had added into it).  The key counts
 * (CF_SUM_HIST) are added to random counts by cf_sum_planes, and by
 * cf_sum_planes_add to counts after the sums in its buffer, which the
 * launch before zeroed, as cudasum keeps them. */
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
  /* (each buffer 8-byte aligned, for its 64-bit sums), the key counts
   * after the sums */
  const gsize counts_at = GST_ROUND_UP_N (cf_sum_workspace_bytes (rw, rh),
      256);
  const gsize sums_bytes = counts_at + 4 * CF_HIST_BINS;
  guint32 base_counts[CF_HIST_BINS], want_counts[CF_HIST_BINS];
  guint32 got_counts[CF_HIST_BINS], *d_counts;
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
  CUDA_OK (cudaMalloc ((void **) &d_counts, sizeof (base_counts)));
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
    memset (want_counts, 0, sizeof (want_counts));
    key.key_counts = want_counts;
    cf_ref_sum_planes (rp.host, n_planes, &key, &want, want_rows,
        want_rows + rh);
    key.previous = d_prev;
    if (add) {
      memset (base_counts, 0, sizeof (base_counts));
      key.key_counts = (guint32 *) (sums + (run % 2) * sums_bytes + counts_at);
    } else {
      cf_test_fill_random (rand_, (guint8 *) base_counts, sizeof (base_counts));
      for (i = 0; i < CF_HIST_BINS; i++)
        base_counts[i] >>= 1;   /* room for the frame's counts */
      CUDA_OK (cudaMemcpy (d_counts, base_counts, sizeof (base_counts),
              cudaMemcpyHostToDevice));
      key.key_counts = d_counts;
    }
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
      memcpy (got_counts, h_sums + counts_at, sizeof (got_counts));
    } else {
      CUDA_OK (cudaMemcpy (got_counts, d_counts, sizeof (got_counts),
              cudaMemcpyDeviceToHost));
    }
    /* without CF_SUM_HIST the counts are left as they were */
    for (i = 0; i < CF_HIST_BINS; i++)
      fail_unless (got_counts[i] == base_counts[i] +
          ((flags & CF_SUM_HIST) ? want_counts[i] : 0), "%s, run %d: key "
          "count %u: GPU %u, CPU %u over %u", what, run, (guint) i,
          got_counts[i] - base_counts[i], want_counts[i], base_counts[i]);
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
  CUDA_OK (cudaFree (d_counts));
  g_free (h_sums);
  g_free (h_prev);
  g_free (got_prev);
  g_free (want_rows);
  g_free (got_rows);
}

static const unsigned sum_flag_sets[] = {
  0, CF_SUM_PROFILES, CF_SUM_BLACK | CF_SUM_KEEP,
  CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF | CF_SUM_KEEP, CF_SUM_DIFF,
  CF_SUM_HIST,
  CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF | CF_SUM_KEEP | CF_SUM_HIST,
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

GST_START_TEST (test_sum_invalid_arguments)
{
  guint8 *d;

  CUDA_OK (cudaMalloc ((void **) &d, 4096));
  {
    CfSamplePlane ok = { d, 64, 16, 4, 4, {0, 1, 2, 3} }, bad;
    CfSumKey key = { CF_SUM_PROFILES | CF_SUM_DIFF, {19595, 38470, 7471, 0},
    24, d + 3072, 16, NULL
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
    /* key counts: none, or not 4-byte aligned */
    key.flags = CF_SUM_HIST;
    fail_if (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    key.key_counts = (guint32 *) (d + 2050);
    fail_if (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    key.key_counts = (guint32 *) ws;    /* in the workspace */
    fail_if (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    key.key_counts = (guint32 *) (d + 2048);
    fail_unless (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    key.flags = 1 << 7;
    fail_if (cf_sum_planes (&ok, 1, &key, stats, rows, rows + 4, ws,
            NULL) == 0);
    CUDA_OK (cudaDeviceSynchronize ());
    CUDA_OK (cudaFree (stats));
    CUDA_OK (cudaFree (rows));
    CUDA_OK (cudaFree (ws));
  }
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

/* ---- high bit depth (#48): planes of 16-bit words ---- */

/* The planes @wp of a @w x @h frame: the statistics and, where plane 0
 * has one word a pixel, the 8-bit key plane from the GPU (into zeroed
 * sums, over a poisoned key plane, zeroing a poisoned next buffer) and
 * from the CPU, whose statistics are left in @want. */
static void
check_word_stats_of (WordPlanes * wp, gint w, gint h, const gchar * what,
    CfWordStats * want)
{
  const gsize sums_bytes = cf_sum_word_sums_bytes (), next_bytes = 4096;
  const gsize key_pitch = GST_ROUND_UP_16 (w) + 16;
  const gboolean keyed = wp->host[0].words_per_pixel == 1;
  guint8 *d_sums, *d_next, *d_key, *h_key = g_malloc (key_pitch * h);
  guint8 *want_key = g_malloc0 (key_pitch * h), *host_sums, *host_next;
  CfWordStats got;
  CfError err;
  gint c, y;
  gsize i;

  cf_ref_sum_word_planes (wp->host, wp->n_planes, want, keyed ? want_key :
      NULL, key_pitch);
  CUDA_OK (cudaMalloc ((void **) &d_sums, sums_bytes));
  CUDA_OK (cudaMalloc ((void **) &d_next, next_bytes));
  CUDA_OK (cudaMalloc ((void **) &d_key, key_pitch * h));
  CUDA_OK (cudaMemset (d_sums, 0, sums_bytes));
  CUDA_OK (cudaMemset (d_next, POISON, next_bytes));
  CUDA_OK (cudaMemset (d_key, POISON, key_pitch * h));
  err = cf_sum_word_planes_add (wp->dev, wp->n_planes, d_sums, keyed ? d_key :
      NULL, key_pitch, d_next, next_bytes, NULL);
  fail_unless (err == 0, "%s: launch: %s", what, cf_error_name (err));
  CUDA_OK (cudaDeviceSynchronize ());
  host_sums = g_malloc (sums_bytes);
  host_next = g_malloc (next_bytes);
  CUDA_OK (cudaMemcpy (host_sums, d_sums, sums_bytes, cudaMemcpyDeviceToHost));
  CUDA_OK (cudaMemcpy (host_next, d_next, next_bytes, cudaMemcpyDeviceToHost));
  CUDA_OK (cudaMemcpy (h_key, d_key, key_pitch * h, cudaMemcpyDeviceToHost));
  cf_sum_word_sums_read (host_sums, &got);
  for (c = 0; c < CF_HIST_WORD_CHANNELS; c++) {
    fail_unless (got.sum[c] == want->sum[c], "%s: channel %d sum %"
        G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, what, c, got.sum[c],
        want->sum[c]);
    fail_unless (got.sum_squares[c] == want->sum_squares[c], "%s: channel %d "
        "squares %" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, what, c,
        got.sum_squares[c], want->sum_squares[c]);
    fail_unless (got.min[c] == want->min[c] && got.max[c] == want->max[c],
        "%s: channel %d min/max %u/%u, want %u/%u", what, c, got.min[c],
        got.max[c], want->min[c], want->max[c]);
  }
  for (i = 0; i < next_bytes; i++)
    fail_unless (host_next[i] == 0, "%s: next buffer byte %d not zeroed",
        what, (gint) i);
  if (keyed)
    for (y = 0; y < h; y++)
      fail_unless (memcmp (h_key + y * key_pitch, want_key + y * key_pitch,
              w) == 0, "%s: key row %d differs", what, y);

  CUDA_OK (cudaFree (d_key));
  CUDA_OK (cudaFree (d_next));
  CUDA_OK (cudaFree (d_sums));
  g_free (host_sums);
  g_free (host_next);
  g_free (h_key);
  g_free (want_key);
}

/* the planes of @layout (cf-kernel-test.h) */
static void
check_word_stats (const WordLayout * layout, gint w, gint h, PitchMode mode,
    gboolean solid)
{
  gchar *what = g_strdup_printf ("%s %dx%d pitch mode %d%s", layout->name, w,
      h, mode, solid ? " solid" : "");
  CfWordStats want;
  WordPlanes wp;

  word_planes_init (&wp, layout->specs, layout->n, layout->depth,
      layout->shift, w, h, mode, solid);
  check_word_stats_of (&wp, w, h, what, &want);
  word_planes_clear (&wp);
  g_free (what);
}

GST_START_TEST (test_sum_words_equals_reference)
{
  guint l, s, mode;

  for (l = 0; l < n_word_layouts; l++)
    for (s = 0; s < G_N_ELEMENTS (sizes); s++) {
      for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
        check_word_stats (&word_layouts[l], sizes[s].w, sizes[s].h, mode,
            FALSE);
      check_word_stats (&word_layouts[l], sizes[s].w, sizes[s].h,
          PITCH_PADDED, TRUE);
    }
}

GST_END_TEST;

/* RGB10A2 and BGR10A2 as a plane of packed 10-bit RGB (cf-kernel-test.h):
 * the reference's statistics of it are those of the components read from
 * the 32-bit pixels, and the GPU's are the reference's, on buffers that
 * end at the last pixel, through both of the kernel's paths (rows on 16
 * bytes, and not) */
GST_START_TEST (test_sum_rgb10a2_equals_reference)
{
  static const struct
  {
    gint w, h;
  } rgb_sizes[] = { {1, 1}, {3, 7}, {17, 5}, {640, 3}, {1921, 1081} };
  guint s, mode, swap, solid;

  for (swap = 0; swap < 2; swap++)
    for (s = 0; s < G_N_ELEMENTS (rgb_sizes); s++)
      for (mode = PITCH_TIGHT; mode <= PITCH_MISALIGNED; mode++)
        for (solid = 0; solid < 2; solid++) {
          gint w = rgb_sizes[s].w, h = rgb_sizes[s].h, x, y, c;
          gchar *what = g_strdup_printf ("%s %dx%d pitch mode %d%s",
              swap ? "BGR10A2" : "RGB10A2", w, h, mode, solid ? " solid" : "");
          CfWordStats want, defined;
          WordPlanes wp;

          rgb10a2_planes_init (&wp, swap, w, h, mode, solid);
          memset (&defined, 0, sizeof (defined));
          for (c = 0; c < CF_HIST_WORD_CHANNELS; c++)
            defined.min[c] = G_MAXUINT32;
          for (y = 0; y < h; y++)
            for (x = 0; x < w; x++)
              for (c = 0; c < 3; c++) {
                guint v = rgb10a2_component (&wp, swap, c, x, y);

                defined.sum[c] += v;
                defined.sum_squares[c] += (guint64) v *v;
                defined.min[c] = MIN (defined.min[c], v);
                defined.max[c] = MAX (defined.max[c], v);
              }
          check_word_stats_of (&wp, w, h, what, &want);
          fail_unless (memcmp (&want, &defined, sizeof (want)) == 0,
              "%s: the reference's statistics are not the components'", what);
          word_planes_clear (&wp);
          g_free (what);
        }
}

GST_END_TEST;

GST_START_TEST (test_sum_words_invalid_arguments)
{
  guint8 *d;
  CfWordPlane pl = { NULL, 64, 4, 4, 1, {0, -1}, 10, 6, 0 };
  const gsize sums = cf_sum_word_sums_bytes ();

  CUDA_OK (cudaMalloc ((void **) &d, 8192));
  pl.data = d;
  fail_unless (cf_sum_word_planes_add (&pl, 1, d + 4096, d + 6144, 64, NULL,
          0, NULL) == 0);
  fail_unless (cf_sum_word_planes_add (&pl, 1, d + 4096, NULL, 0,
          d + 4096 + sums, 64, NULL) == 0);
  fail_if (cf_sum_word_planes_add (&pl, 0, d + 4096, NULL, 0, NULL, 0,
          NULL) == 0);
  fail_if (cf_sum_word_planes_add (&pl, 1, NULL, NULL, 0, NULL, 0, NULL) == 0);
  /* sums not 8-byte aligned; the next buffer over them */
  fail_if (cf_sum_word_planes_add (&pl, 1, d + 4100, NULL, 0, NULL, 0,
          NULL) == 0);
  fail_if (cf_sum_word_planes_add (&pl, 1, d + 4096, NULL, 0, d + 4104, 64,
          NULL) == 0);
  /* a key plane unaligned, too narrow, or of a plane of two words */
  fail_if (cf_sum_word_planes_add (&pl, 1, d + 4096, d + 6145, 64, NULL, 0,
          NULL) == 0);
  fail_if (cf_sum_word_planes_add (&pl, 1, d + 4096, d + 6144, 0, NULL, 0,
          NULL) == 0);
  pl.words_per_pixel = 2;
  fail_if (cf_sum_word_planes_add (&pl, 1, d + 4096, d + 6144, 64, NULL, 0,
          NULL) == 0);
  pl.words_per_pixel = 1;
  pl.depth = 8;
  fail_if (cf_sum_word_planes_add (&pl, 1, d + 4096, NULL, 0, NULL, 0,
          NULL) == 0);
  pl.depth = 10;
  pl.shift = 7;
  fail_if (cf_sum_word_planes_add (&pl, 1, d + 4096, NULL, 0, NULL, 0,
          NULL) == 0);
  /* packed 10-bit RGB: on 4 bytes, and no key plane of it */
  {
    CfWordPlane packed = { d, 64, 4, 4, 2, {-1, -1}, 10, 0, CF_RGB10A2 };

    fail_unless (cf_sum_word_planes_add (&packed, 1, d + 4096, NULL, 0, NULL,
            0, NULL) == 0);
    fail_if (cf_sum_word_planes_add (&packed, 1, d + 4096, d + 6144, 64,
            NULL, 0, NULL) == 0);
    packed.data = d + 1;
    fail_if (cf_sum_word_planes_add (&packed, 1, d + 4096, NULL, 0, NULL, 0,
            NULL) == 0);
  }
  CUDA_OK (cudaDeviceSynchronize ());
  CUDA_OK (cudaFree (d));
}

GST_END_TEST;

CF_KERNEL_TEST_MAIN ("kernels-sum",
    CF_KERNEL_TEST (test_sum_equals_reference),
    CF_KERNEL_TEST (test_sum_regions),
    CF_KERNEL_TEST (test_sum_invalid_arguments),
    CF_KERNEL_TEST (test_sum_words_equals_reference),
    CF_KERNEL_TEST (test_sum_rgb10a2_equals_reference),
    CF_KERNEL_TEST (test_sum_words_invalid_arguments));
