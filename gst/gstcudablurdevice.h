/* GStreamer
 * gst-cudafilters: cudablur's device side
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The GPU half of cudablur (gstcudablur.c holds the element): the
 * weights made from its settings, and the launches that blur a frame's
 * planes with them. */

#ifndef __GST_CUDA_BLUR_DEVICE_H__
#define __GST_CUDA_BLUR_DEVICE_H__

#include "gstcudafiltersbase.h"

G_BEGIN_DECLS

/* what the weights are made from: sigma_y is the effective one */
typedef struct
{
  double sigma_x, sigma_y;
  gint radius;
  CfBorder border;
} CfBlurSettings;

/* The streaming thread's: the weights of the settings they were made
 * for, per subsampling level (0: full size, 1: half), for 8-bit samples
 * and for words; remade only when the settings change. */
typedef struct
{
  CfBlurSettings made_for;
  gboolean made;
  CfBlurKernel kx[2], ky[2];
  CfBlurKernel word_kx[2], word_ky[2];
} CfBlurDevice;

/* the weights of s, unless made already (TRUE where it made them) */
gboolean cf_blur_device_make_weights (CfBlurDevice * d,
    const CfBlurSettings * s);
/* every plane of in blurred into out with the weights made last */
CfError cf_blur_device_blur (CfBlurDevice * d, GstCudaFiltersBase * base,
    const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
    CfBorder border, CfStream stream);

G_END_DECLS
#endif /* __GST_CUDA_BLUR_DEVICE_H__ */
