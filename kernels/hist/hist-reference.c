/* CPU reference of kernels/hist.cu: the same counts. */
#include "cudafilters-kernels.h"
#include "reference-reads.h"

#include <string.h>

void
cf_ref_hist_planes (const CfSamplePlane * planes, int n_planes,
    uint32_t * counts)
{
  int p, x, y, b;

  memset (counts, 0, sizeof (uint32_t) * CF_HIST_MAX_CHANNELS * CF_HIST_BINS);
  for (p = 0; p < n_planes; p++) {
    const CfSamplePlane *pl = &planes[p];

    for (y = 0; y < pl->height; y++) {
      const uint8_t *row = (const uint8_t *) pl->data + (size_t) y * pl->pitch;

      for (x = 0; x < pl->width; x++) {
        const uint8_t *px = row + (size_t) x * pl->bytes_per_pixel;

        for (b = 0; b < pl->bytes_per_pixel; b++) {
          if (pl->channel[b] >= 0)
            counts[pl->channel[b] * CF_HIST_BINS + px[b]]++;
        }
      }
    }
  }
}

void
cf_ref_hist_word_planes (const CfWordPlane * planes, int n_planes,
    uint32_t * counts)
{
  int p, x, y, w, levels;

  if (n_planes < 1)
    return;
  levels = CF_HIST_LEVELS (planes[0].depth);
  memset (counts, 0, sizeof (uint32_t) * CF_HIST_WORD_CHANNELS * levels);
  for (p = 0; p < n_planes; p++) {
    const CfWordPlane *pl = &planes[p];
    int level_shift = pl->depth > 12 ? pl->depth - 12 : 0;
    uint32_t mask = (1u << pl->depth) - 1;

    for (y = 0; y < pl->height; y++) {
      const uint8_t *row = (const uint8_t *) pl->data + (size_t) y * pl->pitch;

      for (x = 0; x < pl->width; x++) {
        if (pl->rgb10a2) {
          uint32_t pixel = cf_read_le32 (row + 4 * (size_t) x);
          int k;

          for (k = 0; k < 3; k++)
            counts[cf_rgb10a2_channel (pl, k) * levels +
                (pixel >> (10 * k) & 0x3ff)]++;
          continue;
        }
        for (w = 0; w < pl->words_per_pixel; w++) {
          const uint8_t *s = row + 2 * ((size_t) x * pl->words_per_pixel + w);
          uint32_t v;

          /* (an uncounted word is not read: cf_word_plane_row_words) */
          if (pl->channel[w] < 0)
            continue;
          v = ((s[0] | (uint32_t) s[1] << 8) >> pl->shift) & mask;
          counts[pl->channel[w] * levels + (v >> level_shift)]++;
        }
      }
    }
  }
}
