/* GStreamer
 * gst-cudafilters: cudagray
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_CUDA_GRAY_H__
#define __GST_CUDA_GRAY_H__

#include "gstcudafiltersbase.h"

G_BEGIN_DECLS

#define GST_TYPE_CUDA_GRAY (gst_cuda_gray_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaGray, gst_cuda_gray, GST, CUDA_GRAY,
    GstCudaFiltersBase);

GST_ELEMENT_REGISTER_DECLARE (cudagray);

G_END_DECLS
#endif /* __GST_CUDA_GRAY_H__ */
