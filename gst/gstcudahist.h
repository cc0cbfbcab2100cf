/* GStreamer
 * gst-cudafilters: cudahist
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */
#ifndef __GST_CUDA_HIST_H__
#define __GST_CUDA_HIST_H__

#include "gstcudafiltersanalysis.h"

G_BEGIN_DECLS
#define GST_TYPE_CUDA_HIST (gst_cuda_hist_get_type ())
G_DECLARE_FINAL_TYPE (GstCudaHist, gst_cuda_hist, GST, CUDA_HIST,
    GstCudaFiltersAnalysis);

GST_ELEMENT_REGISTER_DECLARE (cudahist);

G_END_DECLS
#endif /* __GST_CUDA_HIST_H__ */
