/* CPU reference of kernels/gray.cu: the same fixed-point arithmetic. */
#include "cudafilters-kernels.h"

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
      uint32_t sum = w.kr * p[layout.r] + w.kg * p[layout.g]
          + w.kb * p[layout.b] + 32768u;
      d[x] = (uint8_t) (sum >> 16);
    }
  }
}
