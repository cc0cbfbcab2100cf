/* GStreamer
 * gst-cudafilters: cudasum
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_CUDA_SUM_H__
#define __GST_CUDA_SUM_H__

#include "gstcudafiltersanalysis.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_SUM (gst_cuda_sum_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaSum, gst_cuda_sum, GST, CUDA_SUM,
    GstCudaFiltersAnalysis);

GST_ELEMENT_REGISTER_DECLARE (cudasum);

G_END_DECLS
#endif /* __GST_CUDA_SUM_H__ */
