/* gst-cudafilters tests: high-bit-depth frames and clips (#48).
 *
 * Frames of 10-, 12- and 16-bit formats with content that uses every bit
 * (not 8-bit values scaled up), made the same way each time from a seed,
 * so that a decoder's output can be compared with the frames that were
 * encoded.  The clips are encoded losslessly with x265enc where the tests
 * are built (tests/clips/make-hbd-clips.c), since the GPU machine has no encoder:
 * decoding one must give back exactly the frames cf_hbd_render() makes.
 *
 * Samples are compared as component values, whatever the layout: a P010
 * word holds v << 6, an I420_10LE word holds v, and both are the same
 * 10-bit v.  Across depths (NVDEC hands out 12-bit streams as P016_LE on
 * GStreamer 1.22) the values are compared MSB-aligned: v << (16 - depth).
 */
#ifndef __CF_HBD_H__
#define __CF_HBD_H__

#include <glib.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

typedef struct
{
  const gchar *name;            /* the clip's file is NAME.h265 */
  GstVideoFormat format;        /* what is encoded */
  gint width, height;
  guint frames;
  guint32 seed;
} CfHbdClip;

/* The formats of 16-bit words per sample the elements take in system
 * memory, and those of them GStreamer's CUDA allocator has a layout for
 * (the elements' caps: fewer on 1.22). */
#define CF_HBD_N_WORD_FORMATS 9
extern const GstVideoFormat cf_hbd_word_formats[CF_HBD_N_WORD_FORMATS];
extern const GstVideoFormat cf_hbd_cuda_word_formats[];
extern const guint cf_hbd_n_cuda_word_formats;

/* The clips tests/clips/make-hbd-clips.c encodes. */
#define CF_HBD_N_CLIPS 4
extern const CfHbdClip cf_hbd_clips[CF_HBD_N_CLIPS];

/* Whether @format is one of the packed 10-bit RGB formats (RGB10A2_LE,
 * BGR10A2_LE), which the functions below also take. */
gboolean cf_hbd_is_rgb10a2 (GstVideoFormat format);

/* Fills @frame (mapped for writing, a format of 16-bit words per sample:
 * I420_10LE, I420_12LE, Y444_10LE, Y444_12LE, Y444_16LE, P010_10LE,
 * P012_LE, P016_LE, GRAY16_LE; or RGB10A2_LE, BGR10A2_LE) with frame
 * @index of @seed: smooth ramps over the whole range with texture and
 * noise in the low bits, moving from frame to frame, and a corner of each
 * component at 0 and one at the top value (RGB10A2's 2-bit alpha: noise).
 * The padding of the rows is left as it is. */
void cf_hbd_render (GstVideoFrame * frame, guint index, guint32 seed);

/* The value of component @comp at (@x, @y) of @frame, in the format's
 * depth; and the same MSB-aligned to 16 bits. */
guint cf_hbd_value (const GstVideoFrame * frame, guint comp, gint x, gint y);
guint cf_hbd_value16 (const GstVideoFrame * frame, guint comp, gint x,
    gint y);
/* Sets that value (in the format's depth; the word's other bits zero, but
 * a packed 10-bit RGB pixel's other components'). */
void cf_hbd_set_value (GstVideoFrame * frame, guint comp, gint x, gint y,
    guint value);

/* NULL when every component of @got holds @want's values (MSB-aligned:
 * the formats may differ in depth and layout, not in size or
 * subsampling); else where they differ, to be freed. */
gchar *cf_hbd_compare (const GstVideoFrame * got, const GstVideoFrame * want);

G_END_DECLS
#endif /* __CF_HBD_H__ */
