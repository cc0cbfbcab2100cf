/* GStreamer
 * gst-cudafilters: the light levels of HDR video, defined on the CPU
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* CTA-861.3's content light levels (MaxCLL, MaxFALL) of PQ video, split so
 * that the GPU's part is exact integer work and the rest is done here once:
 *
 * - each pixel's largest non-linear component, max(R', G', B'), as a code
 *   of GST_CUDA_FILTERS_LIGHT_CODES levels over 0-1
 *   (gst_cuda_filters_max_rgb_code(): integer arithmetic, the same on the
 *   GPU), counted into a histogram;
 * - the light of each code in cd/m2 (the PQ EOTF, in double, here);
 * - a frame's largest and average light from its counts.
 *
 * The EOTF is monotonic, so the largest component before it is the largest
 * after it.  docs/design/hdr.md has the definitions and their limits. */

#ifndef __GST_CUDA_FILTERS_HDR_H__
#define __GST_CUDA_FILTERS_HDR_H__

#include <stdint.h>
#include <glib.h>

#include "cudafilters-kernels.h"

G_BEGIN_DECLS

/* codes of max(R', G', B'): 12 bits, finer than the 10-bit samples */
#define GST_CUDA_FILTERS_LIGHT_CODES CF_LIGHT_CODES
/* fraction bits of the fixed-point coefficients */
#define GST_CUDA_FILTERS_MAX_RGB_SHIFT CF_MAX_RGB_SHIFT

/**
 * GstCudaFiltersMaxRgb:
 *
 * How a Y'CbCr pixel of one depth, range and matrix becomes its code of
 * max(R', G', B'): the kernels' #CfMaxRgb (cudafilters-kernels.h), the
 * matrix from (Y', Cb, Cr) sample steps to codes in 2^-32nds of a code,
 * and the offsets subtracted from the samples first.
 */
typedef CfMaxRgb GstCudaFiltersMaxRgb;

gboolean gst_cuda_filters_max_rgb_init (GstCudaFiltersMaxRgb * m,
    guint depth, gboolean full_range, gdouble kr, gdouble kb);

/* The code of max(R', G', B') of one pixel of d-bit samples.  Defined by
 * the kernels' arithmetic (cf_max_rgb_code()), which the GPU runs too. */
static inline guint
gst_cuda_filters_max_rgb_code (const GstCudaFiltersMaxRgb * m, int32_t y,
    int32_t cb, int32_t cr)
{
  return cf_max_rgb_code (m, y, cb, cr);
}

/* Packed R'G'B' (RGB10A2_LE, BGR10A2_LE): the kernels' #CfRgbScale,
 * a sample step in 2^-32nds of a code, and the code of max(R', G', B')
 * of one pixel by it (cf_rgb_sample_code() of the largest sample). */
typedef CfRgbScale GstCudaFiltersRgbScale;

gboolean gst_cuda_filters_rgb_scale_init (GstCudaFiltersRgbScale * s,
    guint depth, gboolean full_range);

static inline guint
gst_cuda_filters_max_rgb_code_rgb (const GstCudaFiltersRgbScale * s,
    uint32_t r, uint32_t g, uint32_t b)
{
  return cf_rgb_sample_code (s, MAX (r, MAX (g, b)));
}

gdouble gst_cuda_filters_pq_eotf (gdouble e);
gdouble gst_cuda_filters_pq_inverse_eotf (gdouble light);

void gst_cuda_filters_light_of_codes_pq (gdouble
    light[GST_CUDA_FILTERS_LIGHT_CODES]);

const gdouble *gst_cuda_filters_light_table_pq (void);

/* HLG (arib-std-b67): the tables of cf_hlg_light() (cudafilters-kernels.h)
 * and the light levels of a frame's integer maximum and sum
 * (docs/design/hdr.md). */
gdouble gst_cuda_filters_hlg_inverse_oetf (gdouble e);
gdouble gst_cuda_filters_hlg_gamma (gdouble peak);
gboolean gst_cuda_filters_hlg_init (CfHlgTables * t, gdouble kr, gdouble kb,
    gdouble peak);
gdouble gst_cuda_filters_hlg_light_sum (guint64 sum, gdouble peak);
void gst_cuda_filters_hlg_light_levels (guint64 max_light, guint64 sum,
    guint64 pixels, gdouble peak, gdouble * max_cd, gdouble * average_cd);

guint64 gst_cuda_filters_light_levels (const guint64
    counts[GST_CUDA_FILTERS_LIGHT_CODES],
    const gdouble light[GST_CUDA_FILTERS_LIGHT_CODES], gdouble * max_light,
    gdouble * average_light);

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_HDR_H__ */
