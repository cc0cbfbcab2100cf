/* What the kernel tests share: see cf-kernel-test.h. */
#include "cf-kernel-test.h"

void
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

void
plane_case_upload (PlaneCase * pc)
{
  CUDA_OK (cudaMemcpy (pc->d_src, pc->src, pc->src_size,
          cudaMemcpyHostToDevice));
}

void
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

void
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

void
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

void
region_planes_clear (RegionPlanes * rp)
{
  gint p;

  for (p = 0; p < rp->n_planes; p++) {
    CUDA_OK (cudaFree (rp->d_data[p]));
    g_free (rp->h_data[p]);
  }
}

void
word_planes_init (WordPlanes * wp, const WordPlaneSpec * specs, gint n,
    gint depth, gint shift, gint w, gint h, PitchMode mode, gboolean solid)
{
  gint p;

  wp->n_planes = n;
  for (p = 0; p < n; p++) {
    gint pw = (w + specs[p].w_div - 1) / specs[p].w_div;
    gint ph = (h + specs[p].h_div - 1) / specs[p].h_div;
    gsize row = (gsize) pw * specs[p].words_per_pixel * 2;
    gsize pitch = mode == PITCH_TIGHT ? row : mode == PITCH_PADDED ?
        GST_ROUND_UP_N (row, 256) + 256 : row + 3;
    gsize off = mode == PITCH_MISALIGNED ? 5 : 0;
    gsize size = off + pitch * ph;
    CfWordPlane pl = { NULL, pitch, pw, ph, specs[p].words_per_pixel,
      {specs[p].channel[0], specs[p].channel[1]}, depth, shift, 0
    };

    wp->h_data[p] = g_malloc (size);
    cf_test_fill_random (rand_, wp->h_data[p], size);
    if (solid) {
      guint8 word[4];
      gint y;
      gsize x;

      cf_test_fill_random (rand_, word, 4);
      for (y = 0; y < ph; y++)
        for (x = 0; x < row; x++)
          wp->h_data[p][off + y * pitch + x] =
              word[x % (2 * specs[p].words_per_pixel)];
    }
    CUDA_OK (cudaMalloc ((void **) &wp->d_data[p], size));
    CUDA_OK (cudaMemcpy (wp->d_data[p], wp->h_data[p], size,
            cudaMemcpyHostToDevice));
    wp->host[p] = wp->dev[p] = pl;
    wp->host[p].data = wp->h_data[p] + off;
    wp->dev[p].data = wp->d_data[p] + off;
  }
}

void
word_planes_clear (WordPlanes * wp)
{
  gint p;

  for (p = 0; p < wp->n_planes; p++) {
    CUDA_OK (cudaFree (wp->d_data[p]));
    g_free (wp->h_data[p]);
  }
}

void
rgb10a2_planes_init (WordPlanes * wp, gboolean swap_rb, gint w, gint h,
    PitchMode mode, gboolean solid)
{
  gsize row = (gsize) w * 4;
  /* (PITCH_MISALIGNED: on 4 bytes, as packed 10-bit RGB must be, but off
   * 16: the kernels' row path) */
  gsize pitch = mode == PITCH_TIGHT ? row : mode == PITCH_PADDED ?
      GST_ROUND_UP_N (row, 256) + 256 : row + 4;
  gsize off = mode == PITCH_MISALIGNED ? 4 : 0;
  /* the last row exactly: nothing after its last pixel */
  gsize size = off + (h > 0 ? pitch * (h - 1) + row : 0);

  memset (wp, 0, sizeof (*wp));
  wp->n_planes = 1;
  wp->h_data[0] = g_malloc (MAX (size, 1));
  cf_test_fill_random (rand_, wp->h_data[0], size);
  if (solid) {
    guint8 pixel[4];
    gint y;
    gsize x;

    cf_test_fill_random (rand_, pixel, 4);
    for (y = 0; y < h; y++)
      for (x = 0; x < row; x++)
        wp->h_data[0][off + y * pitch + x] = pixel[x % 4];
  }
  CUDA_OK (cudaMalloc ((void **) &wp->d_data[0], MAX (size, 1)));
  CUDA_OK (cudaMemcpy (wp->d_data[0], wp->h_data[0], size,
          cudaMemcpyHostToDevice));
  {
    CfWordPlane pl = { NULL, pitch, w, h, 2, {-1, -1}, 10, 0,
    swap_rb ? CF_BGR10A2 : CF_RGB10A2
    };

    wp->host[0] = wp->dev[0] = pl;
    wp->host[0].data = wp->h_data[0] + off;
    wp->dev[0].data = wp->d_data[0] + off;
  }
}

guint
rgb10a2_component (const WordPlanes * wp, gboolean swap_rb, gint c, gint x,
    gint y)
{
  const CfWordPlane *p0 = &wp->host[0];
  guint32 pixel = GST_READ_UINT32_LE ((const guint8 *) p0->data +
      (gsize) y * p0->pitch + (gsize) x * 4);

  return (pixel >> (10 * (swap_rb ? 2 - c : c))) & 0x3ff;
}

static const WordPlaneSpec p010_planes[] = {
  {1, {0, -1}, 1, 1}, {2, {1, 2}, 2, 2},
}, i420_planes[] = {
  {1, {0, -1}, 1, 1}, {1, {1, -1}, 2, 2}, {1, {2, -1}, 2, 2},
}, y444_planes[] = {
  {1, {0, -1}, 1, 1}, {1, {1, -1}, 1, 1}, {1, {2, -1}, 1, 1},
}, u_only_planes[] = {
  {2, {1, -1}, 2, 2},
}, v_only_planes[] = {
  {2, {-1, 2}, 2, 2},
};

const WordLayout word_layouts[] = {
  {"P010", p010_planes, 2, 10, 6}, {"P012", p010_planes, 2, 12, 4},
  {"P016", p010_planes, 2, 16, 0}, {"I420_10", i420_planes, 3, 10, 0},
  {"I420_12", i420_planes, 3, 12, 0}, {"Y444_16", y444_planes, 3, 16, 0},
  {"GRAY16", y444_planes, 1, 16, 0}, {"U of P010", u_only_planes, 1, 10, 6},
  {"V of P010", v_only_planes, 1, 10, 6}, {"9 bits", y444_planes, 3, 9, 7},
};

const guint n_word_layouts = G_N_ELEMENTS (word_layouts);

/* what cf_kernel_test_run() runs, for make_suite() */
static const gchar *suite_name;
static const CfKernelTest *suite_tests;
static guint n_suite_tests;

static Suite *
make_suite (void)
{
  Suite *s = suite_create (suite_name);
  TCase *tc = tcase_create ("gpu");
  guint i;

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 600);
  /* (tcase_add_test() takes the test's name from its argument) */
  for (i = 0; i < n_suite_tests; i++)
    _tcase_add_test (tc, suite_tests[i].fn, suite_tests[i].name, 0, 0, 0, 1);
  return s;
}

static gboolean
runtime_sees_a_gpu (void)
{
  return cf_device_count () > 0;
}

int
cf_kernel_test_run (int *argc, char ***argv, const gchar * name,
    const CfKernelTest * tests, guint n_tests, const gchar * file)
{
  suite_name = name;
  suite_tests = tests;
  n_suite_tests = n_tests;
  return cf_test_run_gpu_suite (argc, argv, runtime_sees_a_gpu, make_suite,
      name, file);
}
