/* How the light levels' kernels (light-codes.cuh, hlg-light.cuh) read a
 * plane of packed 10-bit RGB (CfWordPlane with rgb10a2 set,
 * docs/design/hdr.md): 4 pixels of a row a thread at a time, as one
 * 16-byte vector where the row allows, else as 4 words of 32 bits (the
 * plane is on 4 bytes).  RgbLight is the kernels' view of it, as
 * YCbCrLight (light-reads.cuh) is of Y'CbCr. */
#ifndef CUDAFILTERS_LIGHT_RGB10A2_CUH
#define CUDAFILTERS_LIGHT_RGB10A2_CUH

#include <stdint.h>

namespace {

constexpr int kRgbLightGroup = 4;       /* pixels a thread takes at once */

struct RgbLight
{
  CfWordPlane p;
  CfRgbScale s;
  bool vectors;                 /* data and pitch on 16 bytes */
  int groups_x;

  __device__ long long groups () const
  {
    return (long long) groups_x * p.height;
  }

  /* on_pixel (r, g, b) for each pixel of group @g that lies in the
   * plane: its samples in R, G, B order */
  template < typename OnPixel > __device__ __forceinline__ void
  visit_group (long long g, OnPixel on_pixel) const
  {
    const int y = (int) (g / groups_x);
    const int x0 = (int) (g % groups_x) * kRgbLightGroup;
    const uint32_t *row = (const uint32_t *) ((const uint8_t *) p.data +
        (size_t) y * p.pitch);
    uint32_t px[kRgbLightGroup];
    if (vectors && x0 + kRgbLightGroup <= p.width) {
      const uint4 v = *(const uint4 *) (row + x0);
      px[0] = v.x;
      px[1] = v.y;
      px[2] = v.z;
      px[3] = v.w;
    } else {
#pragma unroll
      for (int k = 0; k < kRgbLightGroup; k++)
        px[k] = x0 + k < p.width ? row[x0 + k] : 0;
    }
    const bool bgr = p.rgb10a2 == CF_BGR10A2;
#pragma unroll
    for (int k = 0; k < kRgbLightGroup; k++) {
      if (x0 + k < p.width) {
        const uint32_t low = px[k] & 1023, mid = (px[k] >> 10) & 1023;
        const uint32_t high = (px[k] >> 20) & 1023;
        on_pixel (bgr ? high : low, mid, bgr ? low : high);
      }
    }
  }

  template < typename OnCode > __device__ __forceinline__ void
  visit_max_codes (long long g, OnCode on_code) const
  {
    visit_group (g,[&](uint32_t r, uint32_t gr, uint32_t b) {
          const uint32_t top = r > gr ? r : gr;
          /* (the code is monotonic: the largest sample's is the
           * largest code) */
          on_code (cf_rgb_sample_code (&s, top > b ? top : b));
        });
  }

  template < typename OnCodes > __device__ __forceinline__ void
  visit_rgb_codes (long long g, OnCodes on_codes) const
  {
    visit_group (g,[&](uint32_t r, uint32_t gr, uint32_t b) {
          const uint32_t codes[3] = { cf_rgb_sample_code (&s, r),
            cf_rgb_sample_code (&s, gr), cf_rgb_sample_code (&s, b)
          };
          on_codes (codes);
        });
  }
};

static inline RgbLight
rgb_light (const CfWordPlane * p, const CfRgbScale * s)
{
  RgbLight l;
  l.p = *p;
  l.s = *s;
  l.vectors = (((uintptr_t) p->data | p->pitch) & 15) == 0;
  l.groups_x = (p->width + kRgbLightGroup - 1) / kRgbLightGroup;
  return l;
}

}                               /* namespace */

#endif
