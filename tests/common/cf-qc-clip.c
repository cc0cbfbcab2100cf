/* gst-cudafilters tests: video clips with known QC events (cf-qc-clip.h). */
#include "cf-qc-clip.h"
#include "cf-test-hash.h"

#include <math.h>
#include <string.h>

/* A scene: luma in [0, 1] and chroma in about [-0.12, 0.12], on a canvas
 * three frames wide and high, so that pans and zooms stay on it. */
typedef struct
{
  gint width, height;
  gfloat *luma, *cb, *cr;
} Scene;

struct _CfQcClip
{
  CfQcShot *shots;
  guint n_shots, n_frames;
  gint width, height;
  guint32 seed;
  guint noise;
  GHashTable *scenes;           /* scene number -> Scene */
};

static gfloat
lattice (guint32 seed, gint x, gint y)
{
  return (cf_test_hash3 (seed, (guint32) x,
          (guint32) y) & 0xffffff) / 16777215.0f;
}

static gfloat
smooth (gfloat t)
{
  return t * t * (3.0f - 2.0f * t);
}

/* value noise of lattice spacing @cell, in [0, 1] */
static gfloat
value_noise (guint32 seed, gfloat x, gfloat y, gfloat cell)
{
  gfloat fx = x / cell, fy = y / cell;
  gint ix = (gint) floorf (fx), iy = (gint) floorf (fy);
  gfloat tx = smooth (fx - ix), ty = smooth (fy - iy);
  gfloat a = lattice (seed, ix, iy), b = lattice (seed, ix + 1, iy);
  gfloat c = lattice (seed, ix, iy + 1), d = lattice (seed, ix + 1, iy + 1);

  return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
}

/* fractal noise: octaves from @cell down to 2 pixels, larger ones
 * stronger (about the spectrum of a photograph) */
static gfloat
fractal (guint32 seed, gfloat x, gfloat y, gfloat cell)
{
  gfloat sum = 0.0f, weight = 0.0f;
  guint o = 0;

  for (; cell >= 2.0f; cell /= 2.0f, o++) {
    gfloat a = powf (cell, 0.3f);

    sum += a * value_noise (seed + o * 7919u, x, y, cell);
    weight += a;
  }
  return sum / weight;
}

static void
normalise (gfloat * v, gsize n, gfloat mean, gfloat sd)
{
  gdouble s = 0.0, q = 0.0;
  gfloat m, d;
  gsize i;

  for (i = 0; i < n; i++) {
    s += v[i];
    q += (gdouble) v[i] * v[i];
  }
  m = (gfloat) (s / n);
  d = (gfloat) sqrt (MAX (q / n - (gdouble) m * m, 1e-12));
  for (i = 0; i < n; i++)
    v[i] = CLAMP ((v[i] - m) / d * sd + mean, 0.0f, 1.0f);
}

static Scene *
scene_new (gint width, gint height, guint32 seed, gfloat contrast)
{
  Scene *s = g_new0 (Scene, 1);
  gsize n = (gsize) width * height, i;
  guint k;
  gint x, y;

  s->width = width;
  s->height = height;
  s->luma = g_new (gfloat, n);
  s->cb = g_new (gfloat, n);
  s->cr = g_new (gfloat, n);
  for (y = 0; y < height; y++)
    for (x = 0; x < width; x++) {
      i = (gsize) y *width + x;
      s->luma[i] = fractal (seed, x, y, 256.0f);
      s->cb[i] = value_noise (seed ^ 0xcb, x, y, 300.0f) - 0.5f;
      s->cr[i] = value_noise (seed ^ 0xc7, x, y, 300.0f) - 0.5f;
    }
  /* objects with sharp edges: discs and boxes, lighter or darker */
  for (k = 0; k < 60; k++) {
    guint32 h = cf_test_hash3 (seed, k, 77);
    gint cx = cf_test_hash3 (seed, k, 1) % width, cy =
        cf_test_hash3 (seed, k, 2) % height;
    gint r = 8 + cf_test_hash3 (seed, k, 3) % (MIN (width, height) / 10);
    gfloat shift = ((cf_test_hash3 (seed, k, 4) & 0xff) / 255.0f - 0.5f) * 0.6f;
    gboolean disc = h & 1;

    for (y = MAX (cy - r, 0); y < MIN (cy + r, height); y++)
      for (x = MAX (cx - r, 0); x < MIN (cx + r, width); x++) {
        if (disc && (x - cx) * (x - cx) + (y - cy) * (y - cy) > r * r)
          continue;
        i = (gsize) y *width + x;
        s->luma[i] += shift;
      }
  }
  normalise (s->luma, n, 0.45f, contrast);
  /* no black in the picture: a dark edge of it would be a bar to the
   * detectors, and the script says where the bars are */
  for (i = 0; i < n; i++)
    s->luma[i] = 0.12f + 0.88f * s->luma[i];
  for (i = 0; i < n; i++) {
    s->cb[i] *= 0.25f;
    s->cr[i] *= 0.25f;
  }
  return s;
}

static void
scene_free (gpointer data)
{
  Scene *s = data;

  g_free (s->luma);
  g_free (s->cb);
  g_free (s->cr);
  g_free (s);
}

CfQcClip *
cf_qc_clip_new (const CfQcShot * shots, guint n_shots, gint width,
    gint height, guint32 seed)
{
  CfQcClip *clip = g_new0 (CfQcClip, 1);
  guint i;

  clip->shots = g_memdup2 (shots, sizeof (CfQcShot) * n_shots);
  clip->n_shots = n_shots;
  for (i = 0; i < n_shots; i++)
    clip->n_frames += shots[i].frames;
  clip->width = width;
  clip->height = height;
  clip->seed = seed;
  clip->scenes = g_hash_table_new_full (NULL, NULL, NULL, scene_free);
  return clip;
}

void
cf_qc_clip_free (CfQcClip * clip)
{
  g_hash_table_destroy (clip->scenes);
  g_free (clip->shots);
  g_free (clip);
}

void
cf_qc_clip_set_noise (CfQcClip * clip, guint levels)
{
  clip->noise = levels;
}

guint
cf_qc_clip_frames (const CfQcClip * clip)
{
  return clip->n_frames;
}

const CfQcShot *
cf_qc_clip_shot_of (const CfQcClip * clip, guint i, guint * index_in_shot)
{
  guint s;

  for (s = 0; s < clip->n_shots; s++) {
    if (i < clip->shots[s].frames) {
      if (index_in_shot)
        *index_in_shot = i;
      return &clip->shots[s];
    }
    i -= clip->shots[s].frames;
  }
  return NULL;
}

static Scene *
scene_of (CfQcClip * clip, gint number)
{
  Scene *s = g_hash_table_lookup (clip->scenes, GINT_TO_POINTER (number));

  if (!s) {
    /* the same mean brightness, and two contrasts, so that a cut between
     * scenes of odd and even numbers changes the shape of the histogram */
    s = scene_new (3 * clip->width, 3 * clip->height,
        cf_test_hash3 (clip->seed, (guint32) number, 12345),
        number % 2 ? 0.19f : 0.14f);
    g_hash_table_insert (clip->scenes, GINT_TO_POINTER (number), s);
  }
  return s;
}

/* bilinear, the canvas's edge repeated outside it */
static gfloat
sample (const Scene * s, const gfloat * v, gdouble x, gdouble y)
{
  gint ix, iy, x1, y1;
  gfloat tx, ty, a, b, c, d;

  x = CLAMP (x, 0.0, s->width - 1.0);
  y = CLAMP (y, 0.0, s->height - 1.0);
  ix = (gint) x;
  iy = (gint) y;
  tx = (gfloat) (x - ix);
  ty = (gfloat) (y - iy);
  x1 = MIN (ix + 1, s->width - 1);
  y1 = MIN (iy + 1, s->height - 1);
  a = v[(gsize) iy * s->width + ix];
  b = v[(gsize) iy * s->width + x1];
  c = v[(gsize) y1 * s->width + ix];
  d = v[(gsize) y1 * s->width + x1];
  return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
}

/* A logo: white letters on a box a little lighter than black */
static gboolean
logo_pixel (gint u, gint v, gint w, gint h, gboolean * letter)
{
  if (u < 0 || v < 0 || u >= w || v >= h)
    return FALSE;
  *letter = v > h / 5 && v < h - h / 5 && (u / MAX (h / 6, 1)) % 3 != 2 &&
      (u + v) % 7 < 4;
  return TRUE;
}

/* Y'CbCr of one pixel of frame @i, full range, in [0, 1] and about
 * [-0.5, 0.5] */
static gboolean
pixel (CfQcClip * clip, const CfQcShot * shot, guint k, gint x, gint y,
    gfloat * luma, gfloat * cb, gfloat * cr)
{
  gint w = clip->width, h = clip->height;
  guint last = MAX (shot->frames, 2) - 1;
  gdouble t = (gdouble) k / last;
  gdouble gain = shot->gain_from + (shot->gain_to - shot->gain_from) * t;
  gboolean letter;
  Scene *s;
  gdouble scale, cx, cy;

  *luma = *cb = *cr = 0.0f;
  if ((gint) shot->bar_rows > 0 && (y < (gint) shot->bar_rows ||
          y >= h - (gint) shot->bar_rows)) {
    gint bar = shot->bar_rows;
    if (shot->logo && logo_pixel (x - w * 3 / 4, y - (h - bar + bar / 4),
            w / 8, bar / 2, &letter))
      *luma = letter ? 0.92f : 0.12f;
    return FALSE;
  }
  if ((gint) shot->bar_columns > 0 && (x < (gint) shot->bar_columns ||
          x >= w - (gint) shot->bar_columns)) {
    gint bar = shot->bar_columns;
    if (shot->logo && logo_pixel (x - (w - bar + bar / 4), y - h * 3 / 4,
            bar / 2, h / 10, &letter))
      *luma = letter ? 0.92f : 0.12f;
    return FALSE;
  }
  if (shot->scene < 0)
    return FALSE;
  s = scene_of (clip, shot->scene);
  scale = shot->scale * pow (shot->zoom, k);
  cx = s->width / 2.0 + shot->x + shot->dx * k + (x - w / 2.0) * scale;
  cy = s->height / 2.0 + shot->y + shot->dy * k + (y - h / 2.0) * scale;
  *luma = (gfloat) (sample (s, s->luma, cx, cy) * gain);
  *cb = (gfloat) (sample (s, s->cb, cx, cy) * gain);
  *cr = (gfloat) (sample (s, s->cr, cx, cy) * gain);
  return TRUE;
}

static guint8
to_byte (gdouble v)
{
  return (guint8) CLAMP (floor (v + 0.5), 0.0, 255.0);
}

void
cf_qc_clip_render (CfQcClip * clip, guint i, GstVideoFrame * frame)
{
  GstVideoFormat format = GST_VIDEO_FRAME_FORMAT (frame);
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  gboolean yuv = GST_VIDEO_FORMAT_INFO_IS_YUV (finfo) ||
      format == GST_VIDEO_FORMAT_GRAY8;
  guint k, still;
  const CfQcShot *shot = cf_qc_clip_shot_of (clip, i, &k);
  gint x, y, c;

  g_return_if_fail (shot != NULL);
  g_return_if_fail (GST_VIDEO_FRAME_WIDTH (frame) == clip->width &&
      GST_VIDEO_FRAME_HEIGHT (frame) == clip->height);
  /* a freeze shows the shot's first frame, its noise too */
  still = shot->frozen ? i - k : i;
  if (shot->frozen)
    k = 0;
  for (y = 0; y < clip->height; y++)
    for (x = 0; x < clip->width; x++) {
      gfloat l, b, r;

      if (pixel (clip, shot, k, x, y, &l, &b, &r) && clip->noise > 0)
        l += ((gint) (cf_test_hash3 (clip->seed ^ 0x5eed, still, (guint32) (y *
                        clip->width + x)) % (2 * clip->noise + 1)) -
            (gint) clip->noise) / 219.0f;
      if (yuv) {
        guint8 *py = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (frame, 0) +
            y * GST_VIDEO_FRAME_COMP_STRIDE (frame, 0) +
            x * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0);
        *py = to_byte (16.0 + 219.0 * l);
        if (format != GST_VIDEO_FORMAT_GRAY8 && !(x & 1) && !(y & 1)) {
          for (c = 1; c < 3; c++) {
            guint8 *pc = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (frame, c) +
                (y / 2) * GST_VIDEO_FRAME_COMP_STRIDE (frame, c) +
                (x / 2) * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);
            *pc = to_byte (128.0 + 224.0 * (c == 1 ? b : r));
          }
        }
      } else {
        gdouble Y = 255.0 * l, Cb = 255.0 * b, Cr = 255.0 * r;
        gdouble rgb[3] = { Y + 1.402 * Cr, Y - 0.344136 * Cb - 0.714136 * Cr,
          Y + 1.772 * Cb
        };
        for (c = 0; c < 3; c++) {
          guint8 *p = (guint8 *) GST_VIDEO_FRAME_COMP_DATA (frame, c) +
              y * GST_VIDEO_FRAME_COMP_STRIDE (frame, c) +
              x * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c);
          *p = to_byte (rgb[c]);
        }
        if (GST_VIDEO_FORMAT_INFO_HAS_ALPHA (finfo))
          *((guint8 *) GST_VIDEO_FRAME_COMP_DATA (frame, 3) +
              y * GST_VIDEO_FRAME_COMP_STRIDE (frame, 3) +
              x * GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 3)) = 255;
      }
    }
}
