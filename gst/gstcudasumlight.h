/* GStreamer
 * gst-cudafilters: cudasum's light levels of the caps
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* What cudasum measures light levels with (docs/design/hdr.md): where
 * the caps are PQ or HLG Y'CbCr above 8 bits, their matrix of R'G'B'
 * codes; where they are PQ or HLG packed 10-bit RGB, their scale of
 * codes; else why there are none; and for HLG the tables of the display
 * peak last asked for.  The streaming thread's. */

#ifndef __GST_CUDA_SUM_LIGHT_H__
#define __GST_CUDA_SUM_LIGHT_H__

#include "gstcudasumdevice.h"

G_BEGIN_DECLS

typedef struct
{
  CfMaxRgb matrix;
  CfRgbScale rgb_scale;
  gboolean packed_rgb;          /* rgb_scale's caps, else matrix's */
  const gchar *none;            /* why the caps have none, or NULL */
  gboolean warned;              /* that none was said, once a caps */
  gboolean hlg;                 /* HLG's caps, else PQ's */
  gdouble kr, kb;               /* their luminance weights */
  CfHlgTables *tables;          /* HLG's, of tables_peak (0: none yet) */
  gdouble tables_peak;
  guint serial;                 /* counts the tables made */
} CfSumLight;

void cf_sum_light_set_caps (CfSumLight * l, const GstVideoInfo * info);
const gchar *cf_sum_light_settings (CfSumLight * l, gboolean on,
    gdouble peak, CfSumSettings * settings);
void cf_sum_light_clear (CfSumLight * l);

G_END_DECLS
#endif /* __GST_CUDA_SUM_LIGHT_H__ */
