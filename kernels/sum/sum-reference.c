/* CPU reference of kernels/sum.cu: the same sums, one pixel at a time. */
#include "cudafilters-kernels.h"
#include "reference-reads.h"

#include <stdlib.h>
#include <string.h>

static uint32_t
key_of (const uint8_t * px, int bytes_per_pixel, const uint32_t weights[4])
{
  uint32_t acc = 32768;
  int b;

  if (bytes_per_pixel == 1)
    return px[0];
  for (b = 0; b < bytes_per_pixel; b++)
    acc += weights[b] * px[b];
  return acc >> 16;
}

void
cf_ref_sum_planes (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, CfSumStats * stats, uint32_t * row_sums,
    uint32_t * column_sums)
{
  int p, x, y, b, c;
  unsigned flags = key ? key->flags : 0;

  memset (stats, 0, sizeof (*stats));
  for (c = 0; c < CF_HIST_MAX_CHANNELS; c++)
    stats->min[c] = 255;
  if ((flags & CF_SUM_PROFILES) && n_planes > 0) {
    memset (row_sums, 0, sizeof (uint32_t) * planes[0].height);
    memset (column_sums, 0, sizeof (uint32_t) * planes[0].width);
  }

  for (p = 0; p < n_planes; p++) {
    const CfSamplePlane *pl = &planes[p];

    for (y = 0; y < pl->height; y++) {
      const uint8_t *row = (const uint8_t *) pl->data + (size_t) y * pl->pitch;

      for (x = 0; x < pl->width; x++) {
        const uint8_t *px = row + (size_t) x * pl->bytes_per_pixel;

        for (b = 0; b < pl->bytes_per_pixel; b++) {
          uint32_t v = px[b];

          c = pl->channel[b];
          if (c < 0)
            continue;
          stats->sum[c] += v;
          stats->sum_squares[c] += v * v;
          if (v < stats->min[c])
            stats->min[c] = v;
          if (v > stats->max[c])
            stats->max[c] = v;
        }

        if (p == 0 && flags) {
          uint32_t k = key_of (px, pl->bytes_per_pixel, key->weights);
          uint8_t *prev = key->previous ?
              key->previous + (size_t) y * key->previous_pitch + x : NULL;

          if (flags & CF_SUM_PROFILES) {
            row_sums[y] += k;
            column_sums[x] += k;
          }
          if ((flags & CF_SUM_BLACK) && k <= (uint32_t) key->black_threshold)
            stats->black++;
          if (flags & CF_SUM_DIFF)
            stats->abs_diff += (uint64_t) abs ((int) k - (int) *prev);
          if (flags & CF_SUM_KEEP)
            *prev = (uint8_t) k;
          if (flags & CF_SUM_HIST)
            key->key_counts[k]++;
        }
      }
    }
  }
}

static void
add_sample (CfWordStats * stats, int c, uint32_t v)
{
  stats->sum[c] += v;
  stats->sum_squares[c] += (uint64_t) v *v;
  if (v < stats->min[c])
    stats->min[c] = v;
  if (v > stats->max[c])
    stats->max[c] = v;
}

void
cf_ref_sum_word_planes (const CfWordPlane * planes, int n_planes,
    CfWordStats * stats, uint8_t * key8, size_t key8_pitch)
{
  int p, x, y, w, c;

  memset (stats, 0, sizeof (*stats));
  for (c = 0; c < CF_HIST_WORD_CHANNELS; c++)
    stats->min[c] = UINT32_MAX;
  for (p = 0; p < n_planes; p++) {
    const CfWordPlane *pl = &planes[p];
    uint32_t mask = (1u << pl->depth) - 1;

    for (y = 0; y < pl->height; y++) {
      const uint8_t *row = (const uint8_t *) pl->data + (size_t) y * pl->pitch;

      for (x = 0; x < pl->width; x++) {
        if (pl->rgb10a2) {
          uint32_t pixel = cf_read_le32 (row + 4 * (size_t) x);
          int k;

          for (k = 0; k < 3; k++)
            add_sample (stats, cf_rgb10a2_channel (pl, k),
                pixel >> (10 * k) & 0x3ff);
          continue;
        }
        for (w = 0; w < pl->words_per_pixel; w++) {
          const uint8_t *s = row + 2 * ((size_t) x * pl->words_per_pixel + w);
          uint32_t v;

          /* (an uncounted word is not read: cf_word_plane_row_words) */
          if (pl->channel[w] < 0 && !(p == 0 && w == 0 && key8))
            continue;
          v = ((s[0] | (uint32_t) s[1] << 8) >> pl->shift) & mask;

          c = pl->channel[w];
          if (p == 0 && w == 0 && key8)
            key8[(size_t) y * key8_pitch + x] = (uint8_t) (v >> (pl->depth -
                    8));
          if (c >= 0)
            add_sample (stats, c, v);
        }
      }
    }
  }
}
