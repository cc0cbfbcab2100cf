/* CPU reference of kernels/light/light.cu: the same counts. */
#include "cudafilters-kernels.h"

/* a word at any alignment */
static uint32_t
word_at (const void *plane, size_t pitch, int row, int index)
{
  const uint8_t *p = (const uint8_t *) plane + (size_t) row * pitch +
      (size_t) index * 2;
  return p[0] | (uint32_t) p[1] << 8;
}

void
cf_ref_light_codes_add (const CfYCbCrWords * f, const CfMaxRgb * m,
    uint32_t * counts)
{
  const uint32_t mask = (uint32_t) ((1u << f->depth) - 1);
  int x, y;

  for (y = 0; y < f->height; y++) {
    const int cy = (y + f->phase_y) >> f->sub_y;

    for (x = 0; x < f->width; x++) {
      const int ci = ((x + f->phase_x) >> f->sub_x) * f->chroma_step;
      uint32_t luma = word_at (f->luma, f->luma_pitch, y, x) >> f->shift;
      uint32_t cb = word_at (f->cb, f->chroma_pitch, cy, ci) >> f->shift;
      uint32_t cr = word_at (f->cr, f->chroma_pitch, cy, ci) >> f->shift;

      counts[cf_max_rgb_code (m, (int32_t) (luma & mask),
              (int32_t) (cb & mask), (int32_t) (cr & mask))]++;
    }
  }
}
