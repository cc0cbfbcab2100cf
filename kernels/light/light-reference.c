/* CPU reference of kernels/light/light.cu: the same counts, and the same
 * HLG light. */
#include "cudafilters-kernels.h"
#include "reference-reads.h"

/* a word at any alignment */
static uint32_t
word_at (const void *plane, size_t pitch, int row, int index)
{
  const uint8_t *p = (const uint8_t *) plane + (size_t) row * pitch +
      (size_t) index * 2;
  return p[0] | (uint32_t) p[1] << 8;
}

/* the samples of pixel (x, y): luma, Cb, Cr */
static void
samples_at (const CfYCbCrWords * f, int x, int y, int32_t samples[3])
{
  const uint32_t mask = (uint32_t) ((1u << f->depth) - 1);
  const int cy = (y + f->phase_y) >> f->sub_y;
  const int ci = ((x + f->phase_x) >> f->sub_x) * f->chroma_step;

  samples[0] = (int32_t) ((word_at (f->luma, f->luma_pitch, y, x) >>
          f->shift) & mask);
  samples[1] = (int32_t) ((word_at (f->cb, f->cb_pitch, cy, ci) >>
          f->shift) & mask);
  samples[2] = (int32_t) ((word_at (f->cr, f->cr_pitch, cy, ci) >>
          f->shift) & mask);
}

void
cf_ref_light_codes_add (const CfYCbCrWords * f, const CfMaxRgb * m,
    uint32_t * counts)
{
  int32_t s[3];
  int x, y;

  for (y = 0; y < f->height; y++)
    for (x = 0; x < f->width; x++) {
      samples_at (f, x, y, s);
      counts[cf_max_rgb_code (m, s[0], s[1], s[2])]++;
    }
}

void
cf_ref_hlg_light_add (const CfYCbCrWords * f, const CfMaxRgb * m,
    const CfHlgTables * tables, CfHlgSums * sums)
{
  int32_t s[3];
  uint32_t codes[3], light;
  int x, y;

  for (y = 0; y < f->height; y++)
    for (x = 0; x < f->width; x++) {
      samples_at (f, x, y, s);
      cf_rgb_codes (m, s[0], s[1], s[2], codes);
      light = cf_hlg_light (tables, codes);
      sums->max = light > sums->max ? light : sums->max;
      sums->sum += light;
    }
}

/* the samples of pixel x of row y of a plane of packed 10-bit RGB, in R,
 * G, B order */
static void
rgb_at (const CfWordPlane * p, int x, int y, uint32_t rgb[3])
{
  uint32_t pixel = cf_read_le32 ((const uint8_t *) p->data +
      (size_t) y * p->pitch + (size_t) x * 4);
  int s;

  for (s = 0; s < 3; s++)
    rgb[cf_rgb10a2_channel (p, s)] = (pixel >> (10 * s)) & 1023;
}

void
cf_ref_light_codes_add_rgb10a2 (const CfWordPlane * p, const CfRgbScale * s,
    uint32_t * counts)
{
  uint32_t rgb[3], top;
  int x, y;

  for (y = 0; y < p->height; y++)
    for (x = 0; x < p->width; x++) {
      rgb_at (p, x, y, rgb);
      top = rgb[0] > rgb[1] ? rgb[0] : rgb[1];
      counts[cf_rgb_sample_code (s, top > rgb[2] ? top : rgb[2])]++;
    }
}

void
cf_ref_hlg_light_add_rgb10a2 (const CfWordPlane * p, const CfRgbScale * s,
    const CfHlgTables * tables, CfHlgSums * sums)
{
  uint32_t rgb[3], codes[3], light;
  int x, y, c;

  for (y = 0; y < p->height; y++)
    for (x = 0; x < p->width; x++) {
      rgb_at (p, x, y, rgb);
      for (c = 0; c < 3; c++)
        codes[c] = cf_rgb_sample_code (s, rgb[c]);
      light = cf_hlg_light (tables, codes);
      sums->max = light > sums->max ? light : sums->max;
      sums->sum += light;
    }
}
