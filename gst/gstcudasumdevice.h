/* GStreamer
 * gst-cudafilters: cudasum's device side
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The GPU half of cudasum (gstcudasum.c holds the element): how its
 * device memory is laid out (the scratch memory that keeps the previous
 * frame's luma, and a frame's device sums), and the launches that fill a
 * frame's result (gstcudasumresult.h) from its region. */

#ifndef __GST_CUDA_SUM_DEVICE_H__
#define __GST_CUDA_SUM_DEVICE_H__

#include "gstcudasumresult.h"

G_BEGIN_DECLS

/* what a frame is to be summed for: the properties, read once a frame */
typedef struct
{
  gboolean percentiles;
  gboolean profiles;
  guint detect;
  guint black_threshold;
  /* the matrix of the light levels' codes of Y'CbCr, or the scale of
   * packed R'G'B''s, or NULL for none */
  const CfMaxRgb *light;
  const CfRgbScale *light_rgb;
  /* with either, for HLG: its tables, which the element changes only with
   * hlg_serial, and their display peak (otherwise NULL: PQ) */
  const CfHlgTables *hlg;
  guint hlg_serial;
  gdouble hlg_peak;
} CfSumSettings;

/* The streaming thread's: the frame size the scratch memory is laid out
 * for, that memory, the region whose luma it keeps for `cut` and
 * `freeze`, and which HLG tables it holds. */
typedef struct
{
  gint frame_width, frame_height;
  gpointer scratch;
  gsize scratch_size;
  gboolean previous_valid;
  gint previous_x, previous_y, previous_width, previous_height;
  gboolean hlg_uploaded;
  guint hlg_serial;
} CfSumDevice;

gsize cf_sum_device_sums_bytes (const GstVideoInfo * info);
void cf_sum_device_set_size (CfSumDevice * d, gint width, gint height);
void cf_sum_device_forget_previous (CfSumDevice * d);
void cf_sum_device_forget_scratch (CfSumDevice * d);
CfError cf_sum_device_analyse (CfSumDevice * d, GstCudaFiltersBase * base,
    const CfSumSettings * settings, const GstCudaFiltersRegion * region,
    SumResult * r, gpointer sums, gpointer zero_next, CfStream stream);

G_END_DECLS
#endif /* __GST_CUDA_SUM_DEVICE_H__ */
