/* gst-cudafilters tests: video clips with known QC events, made on the CPU.
 *
 * A clip is a list of shots.  Each shot films a scene (a canvas of
 * natural-looking texture: fractal noise with sharp-edged shapes, every
 * scene normalised to the same mean brightness, so that cuts between
 * scenes do not show in the mean, in two contrasts: odd and even scene
 * numbers) with a camera that stays, pans or
 * zooms, and may fade, freeze, go black or sit in letterbox or pillarbox
 * bars that carry a logo.  The shots' fields say what happens, and so what
 * the detectors must find: the clip is its own ground truth.
 */
#ifndef __CF_QC_CLIP_H__
#define __CF_QC_CLIP_H__

#include <glib.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef struct
{
  guint frames;
  /* scene number (a new canvas each); a negative scene is black */
  gint scene;
  /* the camera: centre on the canvas at the first frame, in canvas
   * pixels, and its motion a frame; canvas pixels a frame pixel, and the
   * factor it grows by a frame (a zoom out above 1) */
  gdouble x, y, dx, dy, scale, zoom;
  /* the picture's gain over the shot, from first to last frame (1, 1:
   * none; to 0: a fade to black) */
  gdouble gain_from, gain_to;
  /* every frame shows the shot's first (a freeze) */
  gboolean frozen;
  /* black bars: top and bottom (letterbox) and left and right (pillarbox)
   * rows and columns, and a logo in the bottom (or right) bar */
  guint bar_rows, bar_columns;
  gboolean logo;
  /* a hard cut at the shot's first frame (FALSE: the shot goes on from the
   * previous one, e.g. a freeze in the middle of a pan) */
  gboolean cut;
} CfQcShot;

typedef struct _CfQcClip CfQcClip;

CfQcClip *cf_qc_clip_new (const CfQcShot * shots, guint n_shots, gint width,
    gint height, guint32 seed);
void cf_qc_clip_free (CfQcClip * clip);

/* Noise of up to +-@levels luma levels on the picture (not on black or
 * the bars), new every frame but a frozen one, as a camera's (default 0) */
void cf_qc_clip_set_noise (CfQcClip * clip, guint levels);

guint cf_qc_clip_frames (const CfQcClip * clip);
/* the shot frame @i belongs to, and the frame's index in it */
const CfQcShot *cf_qc_clip_shot_of (const CfQcClip * clip, guint i,
    guint * index_in_shot);

/* Renders frame @i in @format (GST_VIDEO_FORMAT_RGBA, RGBx, BGRA, I420,
 * NV12 or GRAY8) into @frame, mapped for writing.  YUV is limited range
 * (black 16), RGB full range (black 0). */
void cf_qc_clip_render (CfQcClip * clip, guint i, GstVideoFrame * frame);

G_END_DECLS
#endif /* __CF_QC_CLIP_H__ */
