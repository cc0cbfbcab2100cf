/* CPU reference of kernels/hist.cu: the same counts. */
#include "cudafilters-kernels.h"

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
