/* GStreamer
 * gst-cudafilters: cudablur
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_CUDA_BLUR_H__
#define __GST_CUDA_BLUR_H__

#include "gstcudafiltersbase.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_BLUR (gst_cuda_blur_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaBlur, gst_cuda_blur, GST, CUDA_BLUR,
    GstCudaFiltersBase);

GST_ELEMENT_REGISTER_DECLARE (cudablur);

G_END_DECLS
#endif /* __GST_CUDA_BLUR_H__ */
