/* GStreamer
 * gst-cudafilters: cudagray
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-cudagray
 * @title: cudagray
 *
 * Converts video to grey on the GPU.
 *
 * Packed RGB input (RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR)
 * is weighted by the luma coefficients of #GstCudaGray:matrix in 16-bit fixed
 * point, rounded half up:
 *
 *     grey = (kr * R + kg * G + kb * B + 32768) >> 16
 *
 * with kr = round (Kr * 65536), kb = round (Kb * 65536), kg = 65536 - kr - kb
 * (so white stays 255).  BT.601: 19595, 38470, 7471; BT.709: 13933, 46871,
 * 4732; BT.2020: 17216, 44434, 3886.  Alpha and padding bytes are ignored.
 * The GPU and the CPU reference give the same bytes.
 *
 * YUV input (I420, NV12, Y444) keeps its luma plane as it is.
 *
 * Output in system memory is GRAY8.  In `memory:CUDAMemory`, which cannot hold
 * GRAY8 in any GStreamer (1.22 to 1.28), grey is NV12 or I420 with neutral
 * chroma (128), so encoders and the other CUDA elements take it as it is.
 * Frames already in CUDA memory are read in place; system-memory frames are
 * uploaded, ideally from the pinned pool the element proposes upstream.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! cudagray ! videoconvert ! autovideosink
 * ]| Grey on the GPU from system memory, back in system memory.
 * |[
 * gst-launch-1.0 filesrc location=in.mp4 ! qtdemux ! h264parse ! nvh264dec ! cudagray matrix=bt709 ! cudadownload ! videoconvert ! autovideosink
 * ]| A decoded stream that never leaves the GPU until the display.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudagray.h"

#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_gray_debug);
#define GST_CAT_DEFAULT gst_cuda_gray_debug

#define GST_TYPE_CUDA_GRAY_MATRIX (gst_cuda_gray_matrix_get_type ())
#define DEFAULT_MATRIX CF_GRAY_MATRIX_BT601

enum
{
  PROP_0,
  PROP_MATRIX,
};

/* xRGB and xBGR are system memory only: GStreamer's CUDA allocator (1.22 to
 * 1.28) has no layout for them. */
#define CUDA_IN_FORMATS \
  "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, I420, NV12, Y444 }"
#define SYS_IN_FORMATS \
  "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR, I420, NV12, " \
  "Y444 }"
#define CUDA_OUT_FORMATS "{ NV12, I420 }"
#define SYS_OUT_FORMATS "GRAY8"

struct _GstCudaGray
{
  GstCudaFiltersBase parent;

  CfGrayMatrix matrix;          /* property, under the object lock */

  /* from the caps */
  gboolean packed_rgb;
  CfPackedLayout layout;
};

#define gst_cuda_gray_parent_class parent_class
G_DEFINE_TYPE (GstCudaGray, gst_cuda_gray, GST_TYPE_CUDA_FILTERS_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudagray, "cudagray", GST_RANK_NONE,
    GST_TYPE_CUDA_GRAY);

static GType
gst_cuda_gray_matrix_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CF_GRAY_MATRIX_BT601, "ITU-R BT.601 (SD): Kr 0.299, Kb 0.114", "bt601"},
    {CF_GRAY_MATRIX_BT709, "ITU-R BT.709 (HD): Kr 0.2126, Kb 0.0722",
        "bt709"},
    {CF_GRAY_MATRIX_BT2020, "ITU-R BT.2020 (UHD): Kr 0.2627, Kb 0.0593",
        "bt2020"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaGrayMatrix", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Each structure becomes the same size and rate in the other side's formats,
 * in its own memory type first, then in the other. */
static GstCaps *
gst_cuda_gray_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCaps *ret = gst_caps_new_empty ();
  guint i, pass;

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    gboolean cuda = features && gst_caps_features_contains (features,
        GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);

    for (pass = 0; pass < 2; pass++) {
      gboolean to_cuda = pass == 0 ? cuda : !cuda;
      GstStructure *s = gst_structure_copy (gst_caps_get_structure (caps, i));
      const gchar *formats;

      if (direction == GST_PAD_SINK)
        formats = to_cuda ? CUDA_OUT_FORMATS : SYS_OUT_FORMATS;
      else
        formats = to_cuda ? CUDA_IN_FORMATS : SYS_IN_FORMATS;
      gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
      gst_cuda_filters_base_set_formats (s, formats);
      ret = gst_caps_merge_structure_full (ret, s, to_cuda ?
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL) :
          NULL);
    }
  }

  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  GST_DEBUG_OBJECT (trans, "%s %" GST_PTR_FORMAT " -> %" GST_PTR_FORMAT,
      direction == GST_PAD_SINK ? "sink" : "src", caps, ret);
  return ret;
}

static gboolean
gst_cuda_gray_set_info (GstCudaFiltersBase * base, const GstVideoInfo * in,
    const GstVideoInfo * out)
{
  GstCudaGray *self = GST_CUDA_GRAY (base);
  const GstVideoFormatInfo *finfo = in->finfo;

  self->packed_rgb = GST_VIDEO_FORMAT_INFO_IS_RGB (finfo);
  if (self->packed_rgb) {
    /* components 0, 1, 2 of packed RGB formats are R, G, B; their pixel
     * offsets say where each sits */
    self->layout.bytes_per_pixel = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, 0);
    self->layout.r = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, 0);
    self->layout.g = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, 1);
    self->layout.b = GST_VIDEO_FORMAT_INFO_POFFSET (finfo, 2);
  }
  return GST_VIDEO_INFO_WIDTH (in) == GST_VIDEO_INFO_WIDTH (out) &&
      GST_VIDEO_INFO_HEIGHT (in) == GST_VIDEO_INFO_HEIGHT (out);
}

static CfError
gst_cuda_gray_process (GstCudaFiltersBase * base, GstBuffer * inbuf,
    const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
    CfStream stream)
{
  GstCudaGray *self = GST_CUDA_GRAY (base);
  gint width = GST_VIDEO_INFO_WIDTH (in->info);
  gint height = GST_VIDEO_INFO_HEIGHT (in->info);
  CfGrayMatrix matrix;
  CfError err;
  guint p;

  GST_OBJECT_LOCK (self);
  matrix = self->matrix;
  GST_OBJECT_UNLOCK (self);

  if (self->packed_rgb)
    err = cf_gray_from_packed (in->data[0], in->stride[0], out->data[0],
        out->stride[0], width, height, self->layout, matrix, stream);
  else
    err = cf_copy_plane (in->data[0], in->stride[0], out->data[0],
        out->stride[0], width, height, stream);

  /* NV12/I420 in CUDA memory: neutral chroma makes the frame grey */
  for (p = 1; err == 0 && p < GST_VIDEO_INFO_N_PLANES (out->info); p++) {
    gsize row_bytes;
    guint rows;

    gst_cuda_filters_base_plane_extent (out->info, p, &row_bytes, &rows);
    err = cf_fill_plane (out->data[p], out->stride[p], row_bytes, rows, 128,
        stream);
  }
  return err;
}

static void
gst_cuda_gray_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaGray *self = GST_CUDA_GRAY (object);

  switch (prop_id) {
    case PROP_MATRIX:
      GST_OBJECT_LOCK (self);
      self->matrix = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_gray_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaGray *self = GST_CUDA_GRAY (object);

  switch (prop_id) {
    case PROP_MATRIX:
      GST_OBJECT_LOCK (self);
      g_value_set_enum (value, self->matrix);
      GST_OBJECT_UNLOCK (self);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
}

static void
gst_cuda_gray_class_init (GstCudaGrayClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaFiltersBaseClass *base_class = GST_CUDA_FILTERS_BASE_CLASS (klass);
  GstCaps *caps;

  gobject_class->set_property = gst_cuda_gray_set_property;
  gobject_class->get_property = gst_cuda_gray_get_property;

  /**
   * GstCudaGray:matrix:
   *
   * The luma coefficients for RGB input.  May change while playing: the next
   * frame uses the new value.  YUV input keeps its luma and ignores it.
   */
  g_object_class_install_property (gobject_class, PROP_MATRIX,
      g_param_spec_enum ("matrix", "Matrix",
          "Luma coefficients for RGB input (YUV input keeps its luma)",
          GST_TYPE_CUDA_GRAY_MATRIX, DEFAULT_MATRIX,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          GST_PARAM_CONTROLLABLE | G_PARAM_STATIC_STRINGS));

  caps = gst_cuda_filters_base_make_caps (SYS_IN_FORMATS, CUDA_IN_FORMATS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_cuda_filters_base_make_caps (SYS_OUT_FORMATS, CUDA_OUT_FORMATS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  gst_element_class_set_static_metadata (element_class,
      "CUDA grey", "Filter/Converter/Video/Hardware",
      "Converts RGB to grey (or keeps YUV luma) on an NVIDIA GPU",
      "gst-cudafilters developers");

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_gray_transform_caps);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_gray_set_info);
  base_class->process = GST_DEBUG_FUNCPTR (gst_cuda_gray_process);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GRAY_MATRIX, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_gray_debug, "cudagray", 0,
      "CUDA grey conversion");
}

static void
gst_cuda_gray_init (GstCudaGray * self)
{
  self->matrix = DEFAULT_MATRIX;
}
