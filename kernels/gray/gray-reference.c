/* CPU reference of kernels/gray.cu: the same fixed-point arithmetic; and
 * of the high-bit-depth grey to come (cudafilters-kernels.h). */
#include "cudafilters-kernels.h"
#include "reference-reads.h"

#include <math.h>

CfGrayWeights
cf_gray_weights (CfGrayMatrix matrix)
{
  /* Kr and Kb of ITU-R BT.601, BT.709 and BT.2020 */
  static const double k[3][2] = {
    {0.299, 0.114},
    {0.2126, 0.0722},
    {0.2627, 0.0593},
  };
  int m = (matrix >= CF_GRAY_MATRIX_BT601 && matrix <= CF_GRAY_MATRIX_BT2020)
      ? (int) matrix : (int) CF_GRAY_MATRIX_BT601;
  CfGrayWeights w;

  w.kr = (uint32_t) lround (k[m][0] * 65536.0);
  w.kb = (uint32_t) lround (k[m][1] * 65536.0);
  w.kg = 65536u - w.kr - w.kb;
  return w;
}

/* the one rule of grey: weights summing to 65536, rounded half up */
static uint32_t
weigh (CfGrayWeights w, uint32_t r, uint32_t g, uint32_t b)
{
  return (w.kr * r + w.kg * g + w.kb * b + 32768u) >> 16;
}

void
cf_ref_gray_from_packed (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, CfPackedLayout layout,
    CfGrayMatrix matrix)
{
  CfGrayWeights w = cf_gray_weights (matrix);
  int x, y;

  for (y = 0; y < height; y++) {
    const uint8_t *s = (const uint8_t *) src + (size_t) y * src_pitch;
    uint8_t *d = (uint8_t *) dst + (size_t) y * dst_pitch;

    for (x = 0; x < width; x++) {
      const uint8_t *p = s + (size_t) x * layout.bytes_per_pixel;
      d[x] = (uint8_t) weigh (w, p[layout.r], p[layout.g], p[layout.b]);
    }
  }
}

static uint32_t
sample (const uint8_t * row, int x, int depth, int shift)
{
  uint32_t word = row[2 * x] | (uint32_t) row[2 * x + 1] << 8;

  return (word >> shift) & ((1u << depth) - 1);
}

static void
put16 (uint8_t * row, int x, uint32_t value)
{
  row[2 * x] = (uint8_t) value;
  row[2 * x + 1] = (uint8_t) (value >> 8);
}

void
cf_ref_gray16_from_rgb10a2 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int swap_rb, CfGrayMatrix matrix)
{
  CfGrayWeights w = cf_gray_weights (matrix);
  int x, y;

  for (y = 0; y < height; y++) {
    const uint8_t *s = (const uint8_t *) src + (size_t) y * src_pitch;
    uint8_t *d = (uint8_t *) dst + (size_t) y * dst_pitch;

    for (x = 0; x < width; x++) {
      uint32_t word = cf_read_le32 (s + (size_t) x * 4);
      uint32_t lo = word & 1023, g = (word >> 10) & 1023;
      uint32_t hi = (word >> 20) & 1023;
      uint32_t r = swap_rb ? hi : lo, b = swap_rb ? lo : hi;

      put16 (d, x, weigh (w, r, g, b) << 6);
    }
  }
}

/* Each d-bit sample of a plane of 16-bit words, MSB-aligned into 16-bit
 * words or (to_8) rounded to bytes. */
static void
convert_samples (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift, int to_8)
{
  int x, y;

  for (y = 0; y < height; y++) {
    const uint8_t *s = (const uint8_t *) src + (size_t) y * src_pitch;
    uint8_t *d = (uint8_t *) dst + (size_t) y * dst_pitch;

    for (x = 0; x < width; x++) {
      uint32_t v = sample (s, x, depth, shift);

      if (to_8) {
        v = (v + (1u << (depth - 9))) >> (depth - 8);
        d[x] = (uint8_t) (v > 255 ? 255 : v);
      } else {
        put16 (d, x, v << (16 - depth));
      }
    }
  }
}

void
cf_ref_plane_to_msb16 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift)
{
  convert_samples (src, src_pitch, dst, dst_pitch, width, height, depth,
      shift, 0);
}

void
cf_ref_plane_to_8 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift)
{
  convert_samples (src, src_pitch, dst, dst_pitch, width, height, depth,
      shift, 1);
}
