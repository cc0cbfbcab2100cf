/* GStreamer
 * gst-cudafilters: cudablur
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:element-cudablur
 * @title: cudablur
 *
 * Gaussian blur on the GPU, of any sigma up to 50 (a radius of up to 150
 * pixels), separable, in one pass over the frame.
 *
 * #GstCudaBlur:sigma sets the standard deviation in pixels (0 passes frames
 * through untouched, without a copy); #GstCudaBlur:sigma-y a different one
 * for the vertical direction.  The kernel's radius is derived from sigma as
 * OpenCV's GaussianBlur does for 8-bit images, (round (6 sigma + 1) | 1) / 2
 * (3 for sigma 1, 8 for 2.6, 15 for 5), unless #GstCudaBlur:radius fixes
 * it.  #GstCudaBlur:border says what lies beyond the frame's edges.
 *
 * The arithmetic is fixed point and defined exactly (docs/cudablur.md):
 * 15-bit horizontal weights, an intermediate with 2 fraction bits, 13-bit
 * vertical weights (each exact in half precision), rounding halves up; the
 * GPU and the CPU reference give the same bytes, within 1 of a true
 * Gaussian.
 *
 * Packed RGB formats and GRAY8 blur every channel (alpha too; the padding
 * byte of the x-formats is blurred like the others).  I420, NV12 and Y444
 * blur each plane at its own size; subsampled chroma planes use sigma
 * (and a fixed radius) scaled by their subsampling, so luma and chroma are
 * blurred alike in picture terms.
 *
 * Formats of 10 to 16 bits in 16-bit words (P010_10LE, P012_LE, P016_LE,
 * I420_10LE, I420_12LE, Y444_10LE, Y444_12LE, Y444_16LE, and GRAY16_LE in
 * system memory) are blurred the same way, on each sample's value at its
 * depth, with 28-bit weights and an intermediate with 8 fraction bits
 * (docs/cudablur.md, "High bit depth"): exact against the CPU reference,
 * within 1 of a true Gaussian at every depth.  The packed 10-bit RGB
 * formats (RGB10A2_LE, BGR10A2_LE) blur their four fields alike, R, G and
 * B as 10-bit samples and the 2-bit alpha too (at most 3 out).
 *
 * All properties may change while playing; the next frame uses the new
 * values.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc ! video/x-raw,format=RGBA ! cudablur sigma=3 ! videoconvert ! autovideosink
 * ]| Blur in system memory.
 * |[
 * gst-launch-1.0 videotestsrc ! cudaupload ! cudablur sigma=2 ! cudagray ! cudadownload ! videoconvert ! autovideosink
 * ]| Blur and grey, both on the GPU without a copy in between.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudablur.h"
#include "gstcudablurdevice.h"

#include <string.h>
#include <gst/cuda/gstcudamemory.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_blur_debug);
#define GST_CAT_DEFAULT gst_cuda_blur_debug

#define GST_TYPE_CUDA_BLUR_BORDER (gst_cuda_blur_border_get_type ())

#define DEFAULT_SIGMA 1.2
#define DEFAULT_SIGMA_Y -1.0
#define DEFAULT_RADIUS 0
#define DEFAULT_BORDER CF_BORDER_REPLICATE
#define MAX_SIGMA 50.0

enum
{
  PROP_0,
  PROP_SIGMA,
  PROP_SIGMA_Y,
  PROP_RADIUS,
  PROP_BORDER,
};

/* GRAY8, xRGB and xBGR are system memory only: GStreamer's CUDA allocator
 * (1.22 to 1.28) has no layout for them. */
#define CUDA_FORMATS \
  "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, I420, NV12, Y444, " \
  CF_CUDA_FORMATS_WORDS ", " CF_FORMATS_RGB10A2 " }"
#define SYS_FORMATS \
  "{ RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR, GRAY8, " \
  "I420, NV12, Y444, " CF_SYS_FORMATS_WORDS ", " CF_FORMATS_RGB10A2 " }"

struct _GstCudaBlur
{
  GstCudaFiltersBase parent;

  /* properties, under the object lock */
  gdouble sigma, sigma_y;
  gint radius;
  CfBorder border;

  gboolean caps_equal;          /* input and output caps alike: passthrough
                                 * possible */
  /* the settings of the frame in hand, taken on the streaming thread */
  CfBlurSettings frame;
  /* their weights, and the launches */
  CfBlurDevice device;
};

#define gst_cuda_blur_parent_class parent_class
G_DEFINE_TYPE (GstCudaBlur, gst_cuda_blur, GST_TYPE_CUDA_FILTERS_BASE);
GST_ELEMENT_REGISTER_DEFINE (cudablur, "cudablur", GST_RANK_NONE,
    GST_TYPE_CUDA_BLUR);

static GType
gst_cuda_blur_border_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {CF_BORDER_REPLICATE, "Repeat the edge pixel (aaa|abcd|ddd)",
        "replicate"},
    {CF_BORDER_REFLECT_101, "Mirror without repeating the edge "
          "(dcb|abcd|cba)", "reflect-101"},
    {CF_BORDER_CONSTANT, "Black beyond the edges (RGB 0, Y 16, U and V "
          "128, alpha 0)", "constant"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaBlurBorder", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
settings_are_identity (const CfBlurSettings * s)
{
  return s->sigma_x == 0 && s->sigma_y == 0;
}

static CfBlurSettings
current_settings (GstCudaBlur * self)
{
  CfBlurSettings s;

  memset (&s, 0, sizeof (s));   /* compared with memcmp */
  GST_OBJECT_LOCK (self);
  s.sigma_x = self->sigma;
  s.sigma_y = self->sigma_y < 0 ? self->sigma : self->sigma_y;
  s.radius = self->radius;
  s.border = self->border;
  GST_OBJECT_UNLOCK (self);
  return s;
}

/* Takes the settings for the next frame, on the streaming thread only:
 * sigma 0 both ways with alike caps passes frames through untouched.  A
 * change in either direction renegotiates the output pool.  (Never from
 * the property setter: GstBaseTransform reads passthrough more than once
 * per frame without a lock, and a change in between pushes an output
 * buffer that nothing wrote.) */
static void
update_passthrough (GstCudaBlur * self)
{
  GstBaseTransform *trans = GST_BASE_TRANSFORM (self);
  gboolean passthrough;

  self->frame = current_settings (self);
  passthrough = settings_are_identity (&self->frame) && self->caps_equal;

  if (passthrough != gst_base_transform_is_passthrough (trans)) {
    GST_DEBUG_OBJECT (self, "passthrough %d", passthrough);
    gst_base_transform_set_passthrough (trans, passthrough);
    gst_base_transform_reconfigure_src (trans);
  }
}

/* Each structure keeps its format and size, in its own memory type first,
 * then in the other. */
static GstCaps *
gst_cuda_blur_transform_caps (GstBaseTransform * trans,
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
      ret = gst_caps_merge_structure_full (ret,
          gst_structure_copy (gst_caps_get_structure (caps, i)),
          to_cuda ? gst_caps_features_new
          (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL) : NULL);
    }
  }
  if (filter) {
    GstCaps *tmp = gst_caps_intersect_full (filter, ret,
        GST_CAPS_INTERSECT_FIRST);
    gst_caps_unref (ret);
    ret = tmp;
  }
  return ret;
}

static gboolean
gst_cuda_blur_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps * outcaps)
{
  GstCudaBlur *self = GST_CUDA_BLUR (trans);

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->set_caps (trans, incaps,
          outcaps))
    return FALSE;
  self->caps_equal = gst_caps_is_equal (incaps, outcaps);
  update_passthrough (self);
  return TRUE;
}

static CfError
gst_cuda_blur_process (GstCudaFiltersBase * base, GstBuffer * inbuf,
    const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
    CfStream stream)
{
  GstCudaBlur *self = GST_CUDA_BLUR (base);
  const CfBlurSettings *s = &self->frame;

  if (cf_blur_device_make_weights (&self->device, s))
    GST_DEBUG_OBJECT (self, "kernels for sigma %g x %g: radius %d x %d",
        s->sigma_x, s->sigma_y, self->device.kx[0].radius,
        self->device.ky[0].radius);
  return cf_blur_device_blur (&self->device, base, in, out, s->border, stream);
}

static gboolean
gst_cuda_blur_set_info (GstCudaFiltersBase * base, const GstVideoInfo * in,
    const GstVideoInfo * out)
{
  return GST_VIDEO_INFO_FORMAT (in) == GST_VIDEO_INFO_FORMAT (out) &&
      GST_VIDEO_INFO_WIDTH (in) == GST_VIDEO_INFO_WIDTH (out) &&
      GST_VIDEO_INFO_HEIGHT (in) == GST_VIDEO_INFO_HEIGHT (out);
}

static void
gst_cuda_blur_before_transform (GstBaseTransform * trans, GstBuffer * buffer)
{
  /* the base class syncs controlled properties first */
  GST_BASE_TRANSFORM_CLASS (parent_class)->before_transform (trans, buffer);
  update_passthrough (GST_CUDA_BLUR (trans));
}

static void
gst_cuda_blur_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaBlur *self = GST_CUDA_BLUR (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SIGMA:
      self->sigma = g_value_get_double (value);
      break;
    case PROP_SIGMA_Y:
      self->sigma_y = g_value_get_double (value);
      if (self->sigma_y < 0 && self->sigma_y != -1) {
        GST_WARNING_OBJECT (self, "sigma-y %g is not a sigma: taken as -1 "
            "(the same as sigma)", self->sigma_y);
        self->sigma_y = -1;
      }
      break;
    case PROP_RADIUS:
      self->radius = g_value_get_int (value);
      break;
    case PROP_BORDER:
      self->border = g_value_get_enum (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
  /* (passthrough follows at the next frame: update_passthrough) */
}

static void
gst_cuda_blur_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstCudaBlur *self = GST_CUDA_BLUR (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_SIGMA:
      g_value_set_double (value, self->sigma);
      break;
    case PROP_SIGMA_Y:
      g_value_set_double (value, self->sigma_y);
      break;
    case PROP_RADIUS:
      g_value_set_int (value, self->radius);
      break;
    case PROP_BORDER:
      g_value_set_enum (value, self->border);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_cuda_blur_class_init (GstCudaBlurClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaFiltersBaseClass *base_class = GST_CUDA_FILTERS_BASE_CLASS (klass);
  GstCaps *caps;

  gobject_class->set_property = gst_cuda_blur_set_property;
  gobject_class->get_property = gst_cuda_blur_get_property;

  /**
   * GstCudaBlur:sigma:
   *
   * Standard deviation of the Gaussian in pixels; 0 passes frames through
   * untouched (when the vertical sigma is 0 too).
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA,
      g_param_spec_double ("sigma", "Sigma",
          "Standard deviation of the Gaussian in pixels (0 = no blur, "
          "frames pass through)", 0, MAX_SIGMA, DEFAULT_SIGMA,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          GST_PARAM_CONTROLLABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaBlur:sigma-y:
   *
   * Standard deviation in the vertical direction; -1 takes #GstCudaBlur:sigma.
   * Other negative values are not sigmas: they are taken as -1, with a
   * warning.
   */
  g_object_class_install_property (gobject_class, PROP_SIGMA_Y,
      g_param_spec_double ("sigma-y", "Vertical sigma",
          "Standard deviation in the vertical direction (-1 = same as sigma; "
          "other negative values are taken as -1)",
          -1, MAX_SIGMA, DEFAULT_SIGMA_Y,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          GST_PARAM_CONTROLLABLE | G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaBlur:radius:
   *
   * Taps on each side of the centre, in both directions; 0 derives it from
   * sigma as OpenCV does for 8-bit images ((round (6 sigma + 1) | 1) / 2).
   */
  g_object_class_install_property (gobject_class, PROP_RADIUS,
      g_param_spec_int ("radius", "Radius",
          "Kernel radius in pixels (0 = derived from sigma, as OpenCV does)",
          0, CF_BLUR_MAX_RADIUS, DEFAULT_RADIUS,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));
  /**
   * GstCudaBlur:border:
   *
   * What the kernel sees beyond the frame's edges.
   */
  g_object_class_install_property (gobject_class, PROP_BORDER,
      g_param_spec_enum ("border", "Border",
          "What lies beyond the frame's edges", GST_TYPE_CUDA_BLUR_BORDER,
          DEFAULT_BORDER, G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));

  caps = gst_cuda_filters_base_make_caps (SYS_FORMATS, CUDA_FORMATS);
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);

  gst_element_class_set_static_metadata (element_class,
      "CUDA Gaussian blur", "Filter/Effect/Video/Hardware",
      "Blurs video with a Gaussian of any sigma on an NVIDIA GPU",
      "gst-cudafilters developers");

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_cuda_blur_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_cuda_blur_set_caps);
  trans_class->before_transform =
      GST_DEBUG_FUNCPTR (gst_cuda_blur_before_transform);
  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_blur_set_info);
  base_class->process = GST_DEBUG_FUNCPTR (gst_cuda_blur_process);

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_BLUR_BORDER, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_blur_debug, "cudablur", 0,
      "CUDA Gaussian blur");
}

static void
gst_cuda_blur_init (GstCudaBlur * self)
{
  self->sigma = DEFAULT_SIGMA;
  self->sigma_y = DEFAULT_SIGMA_Y;
  self->radius = DEFAULT_RADIUS;
  self->border = DEFAULT_BORDER;
}
