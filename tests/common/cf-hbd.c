/* gst-cudafilters tests: high-bit-depth frames and clips (cf-hbd.h). */
#include "cf-hbd.h"
#include "cf-test-hash.h"

/* Sizes above NVDEC's smallest HEVC frame (CuvidGetDecoderCaps; gst-inspect
 * of nvh265dec on the GPU machine gives it), and even: x265 refuses odd
 * sizes in 4:2:0, and nvh265dec gives a 4:4:4 frame of an odd width or
 * height with its last column or row black (seen on the H100 with
 * GStreamer 1.26, at 161x145 and 162x145), where the CPU decode is exact:
 * such clips would test the decoder's edge, not the elements. */
const CfHbdClip cf_hbd_clips[CF_HBD_N_CLIPS] = {
  {"i420-10-352x288", GST_VIDEO_FORMAT_I420_10LE, 352, 288, 6, 0x48a01},
  {"i420-12-352x288", GST_VIDEO_FORMAT_I420_12LE, 352, 288, 6, 0x48a02},
  {"y444-10-162x146", GST_VIDEO_FORMAT_Y444_10LE, 162, 146, 6, 0x48a03},
  {"y444-12-162x146", GST_VIDEO_FORMAT_Y444_12LE, 162, 146, 6, 0x48a04},
};

const GstVideoFormat cf_hbd_word_formats[CF_HBD_N_WORD_FORMATS] = {
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P012_LE,
  GST_VIDEO_FORMAT_P016_LE, GST_VIDEO_FORMAT_I420_10LE,
  GST_VIDEO_FORMAT_I420_12LE, GST_VIDEO_FORMAT_Y444_10LE,
  GST_VIDEO_FORMAT_Y444_12LE, GST_VIDEO_FORMAT_Y444_16LE,
  GST_VIDEO_FORMAT_GRAY16_LE,
};

const GstVideoFormat cf_hbd_cuda_word_formats[] = {
  GST_VIDEO_FORMAT_P010_10LE, GST_VIDEO_FORMAT_P016_LE,
  GST_VIDEO_FORMAT_I420_10LE, GST_VIDEO_FORMAT_Y444_16LE,
#ifdef HAVE_GST_CUDA_STREAM     /* gstreamer-cuda 1.24+ */
  GST_VIDEO_FORMAT_P012_LE, GST_VIDEO_FORMAT_I420_12LE,
  GST_VIDEO_FORMAT_Y444_10LE, GST_VIDEO_FORMAT_Y444_12LE,
#endif
};

const guint cf_hbd_n_cuda_word_formats =
G_N_ELEMENTS (cf_hbd_cuda_word_formats);

gboolean
cf_hbd_is_rgb10a2 (GstVideoFormat format)
{
  return format == GST_VIDEO_FORMAT_RGB10A2_LE ||
      format == GST_VIDEO_FORMAT_BGR10A2_LE;
}

/* The first bit of component @comp (R, G, B, A) of a packed 10-bit RGB
 * pixel, a 32-bit little-endian word: RGB10A2_LE has R in bits 0-9, G
 * 10-19, B 20-29 and A 30-31; BGR10A2_LE B in bits 0-9 and R in 20-29. */
static guint
rgb10a2_bit (const GstVideoFrame * frame, guint comp)
{
  if (comp == 1 || comp == 3)
    return comp * 10;
  return GST_VIDEO_FRAME_FORMAT (frame) == GST_VIDEO_FORMAT_BGR10A2_LE ?
      20 - comp * 10 : comp * 10;
}

static guint8 *
sample_at (const GstVideoFrame * frame, guint comp, gint x, gint y)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  guint offset = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, comp);

  /* GStreamer 1.22's table puts P010/P012/P016's V at byte 1 of the
   * 4-byte UV pair, as NV12's; its 16-bit word starts at byte 2 */
  if (GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, comp) == 4 && offset == 1)
    offset = 2;
  return (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame,
      GST_VIDEO_FORMAT_INFO_PLANE (finfo, comp)) + offset
      + (gsize) y *GST_VIDEO_FRAME_COMP_STRIDE (frame, comp)
  + (gsize) x *GST_VIDEO_FRAME_COMP_PSTRIDE (frame, comp);
}

static void
check_format (const GstVideoFrame * frame)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  guint c;

  /* test data: a format this file does not know is the test's mistake */
  if (cf_hbd_is_rgb10a2 (GST_VIDEO_FRAME_FORMAT (frame)))
    return;
  g_assert (GST_VIDEO_FORMAT_INFO_IS_LE (finfo));
  for (c = 0; c < GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo); c++) {
    g_assert (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c) > 8);
    g_assert (GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c)
        + GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c) <= 16);
  }
}

/* ramps over the range, one direction a component, moving with the frame;
 * texture of a few hundred low-bit units; noise in the lowest bits */
static guint
content (guint comp, gint x, gint y, gint w, gint h, guint index,
    guint32 seed, guint depth)
{
  const gint64 top = (1 << depth) - 1;
  gint64 ramp, texture, noise, v;
  guint32 r = cf_test_hash3 (seed ^ (index * 4 + comp), (guint32) x,
      (guint32) y);

  if (x == 0 && y == 0)
    return 0;
  if (x == w - 1 && y == h - 1)
    return (guint) top;
  switch (comp) {
    case 0:
      ramp = (x + (gint64) index * 5) % w * top / MAX (w - 1, 1);
      break;
    case 1:
      ramp = (y + (gint64) index * 3) % h * top / MAX (h - 1, 1);
      break;
    default:
      ramp = ((gint64) x + y + index * 7) % (w + h) * top / MAX (w + h - 1, 1);
      break;
  }
  texture = (((x / 4) ^ (y / 4)) & 15) * (top >> 6) - 8 * (top >> 6);
  noise = r % (1u << (depth - 6));
  v = ramp * 7 / 8 + top / 8 + texture + noise;
  return (guint) CLAMP (v, 0, top);
}

void
cf_hbd_render (GstVideoFrame * frame, guint index, guint32 seed)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  guint c;
  gint x, y;

  check_format (frame);
  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (frame); c++) {
    gint w = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
    gint h = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
    guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, c);

    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++)
        cf_hbd_set_value (frame, c, x, y, depth < 8 ?
            /* RGB10A2's alpha: noise */
            cf_test_hash3 (seed ^ (index * 4 + c), (guint32) x,
                (guint32) y) % (1u << depth) :
            content (c, x, y, w, h, index, seed, depth));
  }
}

guint
cf_hbd_value (const GstVideoFrame * frame, guint comp, gint x, gint y)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  guint depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, comp);

  if (cf_hbd_is_rgb10a2 (GST_VIDEO_FRAME_FORMAT (frame)))
    return (GST_READ_UINT32_LE (sample_at (frame, comp, x, y))
        >> rgb10a2_bit (frame, comp)) & ((1u << depth) - 1);
  return (GST_READ_UINT16_LE (sample_at (frame, comp, x, y))
      >> GST_VIDEO_FORMAT_INFO_SHIFT (finfo, comp)) & ((1u << depth) - 1);
}

void
cf_hbd_set_value (GstVideoFrame * frame, guint comp, gint x, gint y,
    guint value)
{
  if (cf_hbd_is_rgb10a2 (GST_VIDEO_FRAME_FORMAT (frame))) {
    guint8 *p = sample_at (frame, comp, x, y);
    guint bit = rgb10a2_bit (frame, comp);
    guint32 mask = ((1u << GST_VIDEO_FORMAT_INFO_DEPTH (frame->info.finfo,
                comp)) - 1) << bit;

    GST_WRITE_UINT32_LE (p, (GST_READ_UINT32_LE (p) & ~mask) |
        ((value << bit) & mask));
    return;
  }
  GST_WRITE_UINT16_LE (sample_at (frame, comp, x, y),
      value << GST_VIDEO_FORMAT_INFO_SHIFT (frame->info.finfo, comp));
}

guint
cf_hbd_value16 (const GstVideoFrame * frame, guint comp, gint x, gint y)
{
  return cf_hbd_value (frame, comp, x, y)
      << (16 - GST_VIDEO_FORMAT_INFO_DEPTH (frame->info.finfo, comp));
}

gchar *
cf_hbd_compare (const GstVideoFrame * got, const GstVideoFrame * want)
{
  guint c;
  gint x, y;

  check_format (got);
  check_format (want);
  if (GST_VIDEO_FRAME_N_COMPONENTS (got) != GST_VIDEO_FRAME_N_COMPONENTS (want))
    return g_strdup_printf ("%u components, want %u",
        GST_VIDEO_FRAME_N_COMPONENTS (got), GST_VIDEO_FRAME_N_COMPONENTS
        (want));
  for (c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS (want); c++) {
    gint w = GST_VIDEO_FRAME_COMP_WIDTH (want, c);
    gint h = GST_VIDEO_FRAME_COMP_HEIGHT (want, c);

    if (GST_VIDEO_FRAME_COMP_WIDTH (got, c) != w
        || GST_VIDEO_FRAME_COMP_HEIGHT (got, c) != h)
      return g_strdup_printf ("component %u is %dx%d, want %dx%d", c,
          GST_VIDEO_FRAME_COMP_WIDTH (got, c),
          GST_VIDEO_FRAME_COMP_HEIGHT (got, c), w, h);
    for (y = 0; y < h; y++)
      for (x = 0; x < w; x++) {
        guint a = cf_hbd_value16 (got, c, x, y);
        guint b = cf_hbd_value16 (want, c, x, y);

        if (a != b)
          return g_strdup_printf ("component %u at (%d, %d): %u, want %u "
              "(MSB-aligned to 16 bits)", c, x, y, a, b);
      }
  }
  return NULL;
}
