/* GStreamer
 * gst-cudafilters: how the elements' own threads wait for the GPU.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifndef __GST_CUDA_FILTERS_WAIT_H__
#define __GST_CUDA_FILTERS_WAIT_H__

#include <gst/gst.h>
#include <gst/cuda/gstcudacontext.h>

#include "cudafilters-kernels.h"

G_BEGIN_DECLS

/* One thread's waits, one after another: how long the last one took is
 * the guess for the next. */
typedef struct
{
  gint64 last_wait_us;
} GstCudaFiltersWaiter;

void gst_cuda_filters_waiter_thread_init (void);

CfError gst_cuda_filters_waiter_wait (GstCudaFiltersWaiter * waiter,
    GstCudaContext * context, CfEvent event);

CfError gst_cuda_filters_waiter_wait_unless (GstCudaFiltersWaiter * waiter,
    GstCudaContext * context, CfEvent event, const gint * stamp, gint seen);

G_END_DECLS

#endif /* __GST_CUDA_FILTERS_WAIT_H__ */
