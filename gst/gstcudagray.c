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
 * 10- to 16-bit input (P010_10LE, P012_LE, P016_LE, I420_10LE, I420_12LE,
 * Y444_10LE, Y444_12LE, Y444_16LE, GRAY16_LE; in CUDA memory those
 * GStreamer's CUDA allocator has a layout for) gives its luma samples v of
 * depth d MSB-aligned, v << (16 - d), in GRAY16_LE (system memory) or in
 * P010_10LE (up to 10 bits) or P016_LE with neutral chroma 0x8000 (CUDA
 * memory).
 * BGR10A2_LE and RGB10A2_LE are weighted as 8-bit RGB is, into 10 bits,
 * then MSB-aligned.  With #GstCudaGray:output-depth `8` the samples are
 * rounded to 8 bits instead: min ((v + 2^(d-9)) >> (d-8), 255), GRAY8 or
 * NV12/I420.
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

#define GST_TYPE_CUDA_GRAY_OUTPUT_DEPTH (gst_cuda_gray_output_depth_get_type ())
#define DEFAULT_OUTPUT_DEPTH GST_CUDA_GRAY_OUTPUT_DEPTH_AUTO

typedef enum
{
  GST_CUDA_GRAY_OUTPUT_DEPTH_AUTO = 0,
  GST_CUDA_GRAY_OUTPUT_DEPTH_8 = 8,
} GstCudaGrayOutputDepth;

enum
{
  PROP_0,
  PROP_MATRIX,
  PROP_OUTPUT_DEPTH,
};

/* xRGB and xBGR are system memory only: GStreamer's CUDA allocator (1.22 to
 * 1.28) has no layout for them. */
#define CUDA_IN_8 "RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, RGB, BGR, I420, NV12, Y444"
#define SYS_IN_8 \
  "RGBA, BGRA, RGBx, BGRx, ARGB, ABGR, xRGB, xBGR, RGB, BGR, I420, NV12, Y444"
#define CUDA_OUT_8 "NV12, I420"
#define SYS_OUT_8 "GRAY8"

/* 10 to 16 bits (gstcudafiltersbase.h) */
#define CUDA_IN_HIGH CF_CUDA_FORMATS_WORDS ", " CF_FORMATS_RGB10A2
#define SYS_IN_HIGH CF_SYS_FORMATS_WORDS ", " CF_FORMATS_RGB10A2
/* up to 10 bits: the formats whose samples fit P010; deeper: P016 only */
#ifdef HAVE_GST_CUDA_STREAM
#define CUDA_IN_10 "P010_10LE, I420_10LE, Y444_10LE, BGR10A2_LE, RGB10A2_LE"
#else
#define CUDA_IN_10 "P010_10LE, I420_10LE, BGR10A2_LE, RGB10A2_LE"
#endif
#define SYS_IN_10 "P010_10LE, I420_10LE, Y444_10LE, BGR10A2_LE, RGB10A2_LE"
#define CUDA_OUT_10 "P010_10LE"
#define CUDA_OUT_16 "P016_LE"
#define SYS_OUT_HIGH "GRAY16_LE"

struct _GstCudaGray
{
  GstCudaFiltersBase parent;

  /* properties, under the object lock */
  CfGrayMatrix matrix;
  GstCudaGrayOutputDepth output_depth;

  /* from the caps */
  gboolean packed_rgb;
  CfPackedLayout layout;
  /* high-bit input: RGB10A2 (swapped: BGR10A2), or the luma's depth and
   * shift; and whether the output holds 16-bit words */
  gboolean rgb10a2, swap_rb;
  gint in_depth, in_shift;
  gboolean out_words;
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

static GType
gst_cuda_gray_output_depth_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_GRAY_OUTPUT_DEPTH_AUTO, "The input's: 8 bits from 8-bit input, "
          "16-bit words (GRAY16_LE, P010_10LE, P016_LE) from 10 to 16 bits",
        "auto"},
    {GST_CUDA_GRAY_OUTPUT_DEPTH_8, "8 bits (GRAY8, NV12, I420) from any "
          "input, high-bit samples rounded", "8"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaGrayOutputDepth", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Which depths a structure's formats hold: 8 bits, 9 to 10 bits
 * (@shallow), 11 to 16 bits (@deep); any format field, or none, may hold
 * several. */
typedef struct
{
  gboolean eight, shallow, deep;
} Depths;

static Depths
formats_depths (const GstStructure * s)
{
  const GValue *v = gst_structure_get_value (s, "format");
  Depths d = { FALSE, FALSE, FALSE };
  guint i, n;

  if (!v || !(G_VALUE_HOLDS_STRING (v) || GST_VALUE_HOLDS_LIST (v))) {
    d.eight = d.shallow = d.deep = TRUE;
    return d;
  }
  n = GST_VALUE_HOLDS_LIST (v) ? gst_value_list_get_size (v) : 1;
  for (i = 0; i < n; i++) {
    const GValue *f = GST_VALUE_HOLDS_LIST (v) ?
        gst_value_list_get_value (v, i) : v;
    GstVideoFormat format = G_VALUE_HOLDS_STRING (f) ?
        gst_video_format_from_string (g_value_get_string (f)) :
        GST_VIDEO_FORMAT_UNKNOWN;

    if (format == GST_VIDEO_FORMAT_UNKNOWN)
      continue;
    switch (GST_VIDEO_FORMAT_INFO_DEPTH (gst_video_format_get_info (format), 0)) {
      case 8:
        d.eight = TRUE;
        break;
      case 9:
      case 10:
        d.shallow = TRUE;
        break;
      default:
        d.deep = TRUE;
        break;
    }
  }
  return d;
}

/* The formats on the other side of a structure of depths @d, going
 * @direction: 8-bit input gives 8-bit output; high-bit input gives 16-bit
 * words (P010 only up to 10 bits, P016 at any depth), or with
 * output-depth=8, 8 bits. */
static gchar *
other_side_formats (GstPadDirection direction, gboolean cuda, Depths d,
    GstCudaGrayOutputDepth output_depth)
{
  gboolean to_8 = output_depth == GST_CUDA_GRAY_OUTPUT_DEPTH_8;
  gboolean high = d.shallow || d.deep;
  GPtrArray *lists = g_ptr_array_new ();
  gchar *joined, *ret;

  if (direction == GST_PAD_SINK) {
    if (d.eight || (high && to_8))
      g_ptr_array_add (lists, cuda ? CUDA_OUT_8 : SYS_OUT_8);
    if (high && !to_8 && !cuda)
      g_ptr_array_add (lists, SYS_OUT_HIGH);
    if (d.shallow && !to_8 && cuda)
      g_ptr_array_add (lists, CUDA_OUT_10);
    if (high && !to_8 && cuda)
      g_ptr_array_add (lists, CUDA_OUT_16);
  } else {
    /* the output's formats: GRAY16 and P016 (deep) take any depth, P010
     * (shallow) up to 10 bits */
    if (d.eight)
      g_ptr_array_add (lists, cuda ? CUDA_IN_8 : SYS_IN_8);
    if ((d.eight && to_8) || (d.deep && !to_8))
      g_ptr_array_add (lists, cuda ? CUDA_IN_HIGH : SYS_IN_HIGH);
    else if (d.shallow && !to_8)
      g_ptr_array_add (lists, cuda ? CUDA_IN_10 : SYS_IN_10);
  }
  if (lists->len == 0) {
    g_ptr_array_free (lists, TRUE);
    return NULL;
  }
  g_ptr_array_add (lists, NULL);
  joined = g_strjoinv (", ", (gchar **) lists->pdata);
  ret = g_strdup_printf ("{ %s }", joined);
  g_free (joined);
  g_ptr_array_free (lists, TRUE);
  return ret;
}

/* Each structure becomes the same size and rate in the other side's formats,
 * in its own memory type first, then in the other. */
static GstCaps *
gst_cuda_gray_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstCudaGrayOutputDepth output_depth;
  GstCaps *ret = gst_caps_new_empty ();
  guint i, pass;

  GST_OBJECT_LOCK (trans);
  output_depth = GST_CUDA_GRAY (trans)->output_depth;
  GST_OBJECT_UNLOCK (trans);

  for (i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *features = gst_caps_get_features (caps, i);
    gboolean cuda = features && gst_caps_features_contains (features,
        GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
    Depths d = formats_depths (gst_caps_get_structure (caps, i));

    for (pass = 0; pass < 2; pass++) {
      gboolean to_cuda = pass == 0 ? cuda : !cuda;
      gchar *formats = other_side_formats (direction, to_cuda, d,
          output_depth);
      GstStructure *s;

      if (!formats)
        continue;
      s = gst_structure_copy (gst_caps_get_structure (caps, i));
      gst_structure_remove_fields (s, "colorimetry", "chroma-site", NULL);
      gst_cuda_filters_base_set_formats (s, formats);
      g_free (formats);
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
  GstVideoFormat format = GST_VIDEO_INFO_FORMAT (in);
  gint in_depth = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
  gint out_depth = GST_VIDEO_FORMAT_INFO_DEPTH (out->finfo, 0);

  /* caps transform_caps never pairs: 8-bit input has no 16-bit output,
   * and P010 holds no more than 10 bits */
  if ((in_depth <= 8 && out_depth > 8) || (in_depth > 10 && out_depth == 10)) {
    GST_ERROR_OBJECT (self, "no %s output from %s input",
        gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (out)),
        gst_video_format_to_string (format));
    return FALSE;
  }
  self->in_depth = in_depth;
  self->in_shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, 0);
  self->out_words = out_depth > 8;
  /* (their shifts in GstVideoFormatInfo are 0: the bits are placed in
   * kernels/gray) */
  self->rgb10a2 = format == GST_VIDEO_FORMAT_RGB10A2_LE ||
      format == GST_VIDEO_FORMAT_BGR10A2_LE;
  self->swap_rb = format == GST_VIDEO_FORMAT_BGR10A2_LE;
  self->packed_rgb = GST_VIDEO_FORMAT_INFO_IS_RGB (finfo) && !self->rgb10a2;
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
  CfNeutralPlanes neutral = { 0 };
  CfGrayMatrix matrix;
  guint p;

  GST_OBJECT_LOCK (self);
  matrix = self->matrix;
  GST_OBJECT_UNLOCK (self);

  /* NV12/I420 or P010/P016 in CUDA memory: neutral chroma (the middle of
   * the range) makes the frame grey.  The launch of the grey plane sets
   * it as well where the planes allow (CfNeutralPlanes): a launch a frame
   * rather than one a plane (#47). */
  neutral.n_planes = GST_VIDEO_INFO_N_PLANES (out->info) - 1;
  neutral.words = self->out_words;
  /* (the output caps have at most 3 planes; a count over the kernels'
   * limit is refused by them, as an invalid value) */
  for (p = 0; p < (guint) MIN (neutral.n_planes, CF_NEUTRAL_MAX_PLANES); p++) {
    gsize row_bytes;
    guint rows;

    gst_cuda_filters_base_plane_extent (out->info, p + 1, &row_bytes, &rows);
    neutral.data[p] = out->data[p + 1];
    neutral.pitch[p] = out->stride[p + 1];
    neutral.row_bytes[p] = row_bytes;
    neutral.rows[p] = rows;
  }

  if (self->rgb10a2 && self->out_words)
    return cf_gray16_from_rgb10a2 (in->data[0], in->stride[0], out->data[0],
        out->stride[0], width, height, self->swap_rb, matrix, &neutral, stream);
  if (self->rgb10a2)
    return cf_gray8_from_rgb10a2 (in->data[0], in->stride[0], out->data[0],
        out->stride[0], width, height, self->swap_rb, matrix, &neutral, stream);
  if (self->in_depth > 8 && self->out_words)
    return cf_plane_to_msb16 (in->data[0], in->stride[0], out->data[0],
        out->stride[0], width, height, self->in_depth, self->in_shift,
        &neutral, stream);
  if (self->in_depth > 8)
    return cf_plane_to_8 (in->data[0], in->stride[0], out->data[0],
        out->stride[0], width, height, self->in_depth, self->in_shift,
        &neutral, stream);
  if (self->packed_rgb)
    return cf_gray_from_packed (in->data[0], in->stride[0], out->data[0],
        out->stride[0], width, height, self->layout, matrix, &neutral, stream);
  return cf_gray_copy_luma (in->data[0], in->stride[0], out->data[0],
      out->stride[0], width, height, &neutral, stream);
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
    case PROP_OUTPUT_DEPTH:{
      gboolean changed;

      GST_OBJECT_LOCK (self);
      changed = (gint) self->output_depth != g_value_get_enum (value);
      self->output_depth = g_value_get_enum (value);
      GST_OBJECT_UNLOCK (self);
      /* the output's caps follow: negotiated again before the next frame */
      if (changed)
        gst_base_transform_reconfigure_src (GST_BASE_TRANSFORM (self));
      break;
    }
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
    case PROP_OUTPUT_DEPTH:
      GST_OBJECT_LOCK (self);
      g_value_set_enum (value, self->output_depth);
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

  /**
   * GstCudaGray:output-depth:
   *
   * The depth of the output from 10- to 16-bit input: `auto` keeps 16-bit
   * words (GRAY16_LE in system memory, P010_10LE or P016_LE in CUDA
   * memory, the samples MSB-aligned); `8` rounds each sample v of depth d
   * to min ((v + 2^(d-9)) >> (d-8), 255), GRAY8 or NV12/I420.  8-bit input
   * gives 8-bit output either way.  May change while playing: the output
   * is negotiated again.
   */
  g_object_class_install_property (gobject_class, PROP_OUTPUT_DEPTH,
      g_param_spec_enum ("output-depth", "Output depth",
          "Depth of the output from 10- to 16-bit input",
          GST_TYPE_CUDA_GRAY_OUTPUT_DEPTH, DEFAULT_OUTPUT_DEPTH,
          G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
          G_PARAM_STATIC_STRINGS));

  caps = gst_cuda_filters_base_make_caps ("{ " SYS_IN_8 ", " SYS_IN_HIGH " }",
      "{ " CUDA_IN_8 ", " CUDA_IN_HIGH " }");
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  caps = gst_cuda_filters_base_make_caps ("{ " SYS_OUT_8 ", " SYS_OUT_HIGH
      " }", "{ " CUDA_OUT_8 ", " CUDA_OUT_10 ", " CUDA_OUT_16 " }");
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
  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_GRAY_OUTPUT_DEPTH, 0);
  GST_DEBUG_CATEGORY_INIT (gst_cuda_gray_debug, "cudagray", 0,
      "CUDA grey conversion");
}

static void
gst_cuda_gray_init (GstCudaGray * self)
{
  self->matrix = DEFAULT_MATRIX;
  self->output_depth = DEFAULT_OUTPUT_DEPTH;
}
