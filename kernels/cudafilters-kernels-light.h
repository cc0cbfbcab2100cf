/* gst-cudafilters: the kernels' C API, HDR light levels (#48,
 * docs/design/hdr.md).
 *
 * Part of cudafilters-kernels.h, which includes it where its section
 * was (include that one): the arithmetic of a pixel's codes and light,
 * shared by the kernels, their CPU references and the elements, and the
 * light levels' kernel. */
#ifndef CUDAFILTERS_KERNELS_LIGHT_H
#define CUDAFILTERS_KERNELS_LIGHT_H

#ifndef CUDAFILTERS_KERNELS_H
#error "include cudafilters-kernels.h"
#endif

/* A PQ pixel's light is a function of its max(R', G', B') (docs/design/
 * hdr.md), so the GPU counts each pixel's max(R', G', B') as a code of
 * CF_LIGHT_CODES levels over 0-1, and the CPU turns counts into light.
 * The code is defined by integer arithmetic, the same here, in the
 * kernels and in the CPU reference: each coefficient of the matrix from
 * Y'CbCr sample steps to codes, in 2^-CF_MAX_RGB_SHIFT of a code
 * (gst_cuda_filters_max_rgb_init() makes them); the three components
 * summed in 64 bits; the largest rounded to the nearest code and clamped
 * to 0 - (CF_LIGHT_CODES - 1).  The luma's part is common to the three,
 * so max(R', G', B') = Y's part + the largest chroma part, which is exact
 * and lets a kernel compute the chroma's part once a chroma sample. */
#define CF_LIGHT_CODES 4096
#define CF_MAX_RGB_SHIFT 32

/* R' = y Y + cr_r Cr, G' = y Y - cb_g Cb - cr_g Cr, B' = y Y + cb_b Cb,
 * with Y = luma - offset_y, Cb = cb - offset_c, Cr = cr - offset_c */
typedef struct
{
  int32_t offset_y, offset_c;
  int64_t y, cr_r, cb_b, cb_g, cr_g;
} CfMaxRgb;

#ifdef __CUDACC__
#define CF_HOST_DEVICE_INLINE static inline __host__ __device__
#else
#define CF_HOST_DEVICE_INLINE static inline
#endif

/* the chroma's parts of R', G' and B' */
CF_HOST_DEVICE_INLINE void
cf_rgb_chroma (const CfMaxRgb * m, int32_t cb, int32_t cr, int64_t parts[3])
{
  int64_t b = (int64_t) (cb - m->offset_c), r = (int64_t) (cr - m->offset_c);
  parts[0] = r * m->cr_r;
  parts[1] = -b * m->cb_g - r * m->cr_g;
  parts[2] = b * m->cb_b;
}

/* the chroma's part of max(R', G', B') */
CF_HOST_DEVICE_INLINE int64_t
cf_max_rgb_chroma (const CfMaxRgb * m, int32_t cb, int32_t cr)
{
  int64_t parts[3], top;
  cf_rgb_chroma (m, cb, cr, parts);
  top = parts[0] > parts[1] ? parts[0] : parts[1];
  return top > parts[2] ? top : parts[2];
}

/* a component in 2^-CF_MAX_RGB_SHIFT of a code, rounded to the nearest
 * code and clamped */
CF_HOST_DEVICE_INLINE uint32_t
cf_code_of (int64_t component)
{
  int64_t code;
  if (component <= 0)
    return 0;
  code = (component + ((int64_t) 1 << (CF_MAX_RGB_SHIFT - 1))) >>
      CF_MAX_RGB_SHIFT;
  return code >= CF_LIGHT_CODES ? CF_LIGHT_CODES - 1 : (uint32_t) code;
}

/* the code of a pixel of luma @y whose chroma's part is @chroma */
CF_HOST_DEVICE_INLINE uint32_t
cf_max_rgb_code_of (const CfMaxRgb * m, int32_t y, int64_t chroma)
{
  return cf_code_of ((int64_t) (y - m->offset_y) * m->y + chroma);
}

CF_HOST_DEVICE_INLINE uint32_t
cf_max_rgb_code (const CfMaxRgb * m, int32_t y, int32_t cb, int32_t cr)
{
  return cf_max_rgb_code_of (m, y, cf_max_rgb_chroma (m, cb, cr));
}

/* The codes of R', G' and B' of a pixel of luma @y whose chroma's parts
 * are @parts, each rounded and clamped as max(R', G', B')'s is (so that
 * their largest is cf_max_rgb_code's). */
CF_HOST_DEVICE_INLINE void
cf_rgb_codes_of (const CfMaxRgb * m, int32_t y, const int64_t parts[3],
    uint32_t codes[3])
{
  int64_t yy = (int64_t) (y - m->offset_y) * m->y;
  codes[0] = cf_code_of (yy + parts[0]);
  codes[1] = cf_code_of (yy + parts[1]);
  codes[2] = cf_code_of (yy + parts[2]);
}

CF_HOST_DEVICE_INLINE void
cf_rgb_codes (const CfMaxRgb * m, int32_t y, int32_t cb, int32_t cr,
    uint32_t codes[3])
{
  int64_t parts[3];
  cf_rgb_chroma (m, cb, cr, parts);
  cf_rgb_codes_of (m, y, parts, codes);
}

/* Packed R'G'B' (a CfWordPlane of packed 10-bit RGB, rgb10a2 set): a
 * sample v's code is cf_code_of ((v - offset) x scale), scale being one
 * sample step in 2^-CF_MAX_RGB_SHIFT of a code, rounded
 * (gst_cuda_filters_rgb_scale_init() makes it from the depth and range),
 * and max(R', G', B')'s code is the largest sample's. */
typedef struct
{
  int32_t offset;
  int32_t reserved;
  int64_t scale;
} CfRgbScale;

CF_HOST_DEVICE_INLINE uint32_t
cf_rgb_sample_code (const CfRgbScale * s, uint32_t v)
{
  return cf_code_of ((int64_t) ((int32_t) v - s->offset) * s->scale);
}

/* HLG (#48, docs/design/hdr.md).  A pixel's display light is the OOTF of
 * its scene light: Lw Ys^(gamma - 1) E for each component's scene light
 * E (the inverse OETF of its code), Ys the scene luminance of the three,
 * so its largest is Lw Ys^(gamma - 1) max(E_R, E_G, E_B).  In integers,
 * from tables the CPU makes once (gst_cuda_filters_hlg_init()):
 *   E   = scene[code]                            2^-24 units, 0 .. 2^24
 *   Ys  = (wr E_R + wg E_G + wb E_B + 2^15) >> 16   (wr + wg + wb = 2^16)
 *   g   = gain[min (Ys >> 8, 65535)]             Ys^(gamma - 1) at the
 *                                                middle of the step, 2^-24
 *   L   = (g max(E) + 2^23) >> 24                Lw 2^-24 units, 0 .. 2^24
 * so a frame's largest light is an integer maximum and its average an
 * integer sum, the same on the GPU and the CPU. */
#define CF_HLG_SCALE_BITS 24
#define CF_HLG_GAIN_STEPS 65536

typedef struct
{
  uint32_t scene[CF_LIGHT_CODES];
  uint32_t weights[3];
  uint32_t gain[CF_HLG_GAIN_STEPS];
} CfHlgTables;

/* the display light of a pixel whose components' scene light is r, g, b */
CF_HOST_DEVICE_INLINE uint32_t
cf_hlg_light_of_scene (const uint32_t weights[3], const uint32_t * gain,
    uint32_t r, uint32_t g, uint32_t b)
{
  uint64_t ys = ((uint64_t) weights[0] * r + (uint64_t) weights[1] * g
      + (uint64_t) weights[2] * b + 32768) >> 16;
  uint64_t step = ys >> (CF_HLG_SCALE_BITS - 16);
  uint32_t top = r > g ? r : g;
  top = top > b ? top : b;
  if (step >= CF_HLG_GAIN_STEPS)
    step = CF_HLG_GAIN_STEPS - 1;
  return (uint32_t) (((uint64_t) gain[step] * top +
          ((uint64_t) 1 << (CF_HLG_SCALE_BITS - 1))) >> CF_HLG_SCALE_BITS);
}

/* a pixel's display light from its codes of R', G', B', in Lw 2^-24 */
CF_HOST_DEVICE_INLINE uint32_t
cf_hlg_light (const CfHlgTables * t, const uint32_t codes[3])
{
  return cf_hlg_light_of_scene (t->weights, t->gain, t->scene[codes[0]],
      t->scene[codes[1]], t->scene[codes[2]]);
}

/* A region of a Y'CbCr frame of 16-bit little-endian words, each holding
 * a sample of `depth` bits (9 to 16) at bit `shift`.  Pixel (x, y) of the
 * region has luma word x of row y, and Cb and Cr word
 * ((x + phase_x) >> sub_x) * chroma_step of chroma row
 * (y + phase_y) >> sub_y: sub_x, sub_y are 1 where the chroma is
 * subsampled (4:2:0), and phase_x, phase_y where the region starts on the
 * second pixel of a chroma sample.  chroma_step is 2 where Cb and Cr
 * alternate in one plane (P010: cr = cb + 2 bytes, cr_pitch =
 * cb_pitch), else 1; the pitches hold at least a row's words
 * (chroma_step a chroma sample).  Any alignment. */
typedef struct
{
  const void *luma;
  size_t luma_pitch;
  const void *cb, *cr;
  size_t cb_pitch, cr_pitch;
  int chroma_step;
  int width, height;
  int sub_x, sub_y;
  int phase_x, phase_y;
  int depth, shift;
} CfYCbCrWords;

/* Adds to counts[code] (device memory, CF_LIGHT_CODES 32-bit words,
 * 4-byte aligned) the region's pixels of each code of max(R', G', B').
 * Each count must stay below 2^32. */
CfError cf_light_codes_add (const CfYCbCrWords * frame, const CfMaxRgb * m,
    uint32_t * counts, CfStream stream);
void cf_ref_light_codes_add (const CfYCbCrWords * frame, const CfMaxRgb * m,
    uint32_t * counts);

/* A frame's HLG light: the largest cf_hlg_light() of its pixels and
 * their sum (below 2^24 a pixel, so 64 bits hold any frame's). */
typedef struct
{
  uint64_t sum;
  uint32_t max;
  uint32_t reserved;
} CfHlgSums;

/* Adds the region's pixels' HLG light, from the codes of their R', G',
 * B' (cf_rgb_codes), to @sums (device memory, 8-byte aligned): the
 * largest into max, each into sum.  @tables: device memory, 4-byte
 * aligned, filled by gst_cuda_filters_hlg_init() and copied there. */
CfError cf_hlg_light_add (const CfYCbCrWords * frame, const CfMaxRgb * m,
    const CfHlgTables * tables, CfHlgSums * sums, CfStream stream);
void cf_ref_hlg_light_add (const CfYCbCrWords * frame, const CfMaxRgb * m,
    const CfHlgTables * tables, CfHlgSums * sums);

/* The same two for a plane of packed 10-bit RGB (@plane: one
 * CfWordPlane with rgb10a2 set, as cf_hist_word_planes takes it): PQ's
 * codes of each pixel's max(R', G', B') counted, or HLG's light of the
 * codes of its R', G' and B' added, each sample's code by @s. */
CfError cf_light_codes_add_rgb10a2 (const CfWordPlane * plane,
    const CfRgbScale * s, uint32_t * counts, CfStream stream);
void cf_ref_light_codes_add_rgb10a2 (const CfWordPlane * plane,
    const CfRgbScale * s, uint32_t * counts);
CfError cf_hlg_light_add_rgb10a2 (const CfWordPlane * plane,
    const CfRgbScale * s, const CfHlgTables * tables, CfHlgSums * sums,
    CfStream stream);
void cf_ref_hlg_light_add_rgb10a2 (const CfWordPlane * plane,
    const CfRgbScale * s, const CfHlgTables * tables, CfHlgSums * sums);

#endif /* CUDAFILTERS_KERNELS_LIGHT_H */
