/* How the light levels' kernels (light-codes.cuh, hlg-light.cuh) read a
 * frame of CfYCbCrWords: 8 pixels of a row a thread at a time, their luma
 * as one 16-byte vector where the row allows, and the words of a chroma
 * sample at any alignment.  YCbCrLight is what the kernels see of it
 * (light-rgb10a2.cuh's RgbLight is the same for packed RGB). */
#ifndef CUDAFILTERS_LIGHT_READS_CUH
#define CUDAFILTERS_LIGHT_READS_CUH

#include <stdint.h>

namespace {

constexpr int kLightGroup = 8;          /* pixels a thread takes at once */

/* how the launch reads the frame, the same for every thread */
struct LightReads
{
  bool luma_vectors;            /* rows and luma on 16 bytes */
  bool luma_words;              /* rows and luma on 2 bytes */
  bool chroma_words;            /* cb, cr and chroma rows on 2 bytes */
};

static inline LightReads
light_reads_of (const CfYCbCrWords * f)
{
  LightReads reads;
  reads.luma_vectors = (((uintptr_t) f->luma | f->luma_pitch) & 15) == 0;
  reads.luma_words = (((uintptr_t) f->luma | f->luma_pitch) & 1) == 0;
  reads.chroma_words = (((uintptr_t) f->cb | (uintptr_t) f->cr | f->cb_pitch
          | f->cr_pitch) & 1) == 0;
  return reads;
}

__device__ __forceinline__ uint32_t
word_at (const uint8_t * row, int index, bool aligned)
{
  if (aligned)
    return ((const uint16_t *) row)[index];
  const uint8_t *p = row + 2 * index;
  return p[0] | (uint32_t) p[1] << 8;
}

/* The luma words of pixels x0 .. x0 + 7 of @luma's row (0 past its
 * width) */
__device__ __forceinline__ void
luma_group (const CfYCbCrWords & f, const LightReads & reads,
    const uint8_t * luma, int x0, uint32_t words[kLightGroup])
{
  if (reads.luma_vectors && x0 + kLightGroup <= f.width) {
    const uint4 v = *(const uint4 *) (luma + 2 * x0);
    const uint32_t parts[4] = { v.x, v.y, v.z, v.w };
#pragma unroll
    for (int k = 0; k < 4; k++) {
      words[2 * k] = parts[k] & 0xffff;
      words[2 * k + 1] = parts[k] >> 16;
    }
  } else {
#pragma unroll
    for (int k = 0; k < kLightGroup; k++)
      words[k] = x0 + k < f.width ?
          word_at (luma, x0 + k, reads.luma_words) : 0;
  }
}

/* The rows of pixel row @y: its luma, and the Cb and Cr of its chroma */
struct LightRows
{
  const uint8_t *luma, *cb, *cr;
};

__device__ __forceinline__ LightRows
light_rows (const CfYCbCrWords & f, int y)
{
  const size_t cy = (size_t) ((y + f.phase_y) >> f.sub_y);
  LightRows rows;
  rows.luma = (const uint8_t *) f.luma + (size_t) y * f.luma_pitch;
  rows.cb = (const uint8_t *) f.cb + cy * f.cb_pitch;
  rows.cr = (const uint8_t *) f.cr + cy * f.cr_pitch;
  return rows;
}

/* Group @g of a launch over the frame's groups of kLightGroup pixels of
 * a row (@groups_x a row): on_chroma (cb, cr) at each chroma sample, then
 * on_pixel (luma) for each of the group's pixels in the frame, every
 * sample shifted down and masked to the frame's depth.  kWholeApart:
 * whole groups (most of them) take a copy of the loop without the checks
 * against the width, which the PQ kernel gains from and the HLG kernel,
 * larger, loses by (performance.md, "Packed 10-bit RGB: blur and light
 * levels"). */
template < bool kWholeApart, typename OnChroma, typename OnPixel >
__device__ __forceinline__ void
visit_group (const CfYCbCrWords & f, const LightReads & reads, int groups_x,
    long long g, OnChroma on_chroma, OnPixel on_pixel)
{
  const uint32_t mask = (uint32_t) ((1u << f.depth) - 1);
  const int y = (int) (g / groups_x);
  const int x0 = (int) (g % groups_x) * kLightGroup;
  const LightRows rows = light_rows (f, y);
  uint32_t words[kLightGroup];
  luma_group (f, reads, rows.luma, x0, words);

  int chroma_index = -1;
  auto visit_pixel =[&](int k) {
    const int ci = ((x0 + k + f.phase_x) >> f.sub_x) * f.chroma_step;
    if (ci != chroma_index) {
      const uint32_t cb = word_at (rows.cb, ci, reads.chroma_words);
      const uint32_t cr = word_at (rows.cr, ci, reads.chroma_words);
      on_chroma ((int32_t) ((cb >> f.shift) & mask),
          (int32_t) ((cr >> f.shift) & mask));
      chroma_index = ci;
    }
    on_pixel ((int32_t) ((words[k] >> f.shift) & mask));
  };
  if (kWholeApart && x0 + kLightGroup <= f.width) {
#pragma unroll
    for (int k = 0; k < kLightGroup; k++)
      visit_pixel (k);
  } else {
#pragma unroll
    for (int k = 0; k < kLightGroup; k++)
      if (x0 + k < f.width)
        visit_pixel (k);
  }
}

/* The light kernels' view of a Y'CbCr frame: its groups, and each
 * pixel's code of max(R', G', B') or codes of R', G' and B' (the chroma's
 * parts computed once a chroma sample) */
struct YCbCrLight
{
  CfYCbCrWords f;
  CfMaxRgb m;
  LightReads reads;
  int groups_x;

  __device__ long long groups () const
  {
    return (long long) groups_x * f.height;
  }

  template < typename OnCode > __device__ __forceinline__ void
  visit_max_codes (long long g, OnCode on_code) const
  {
    int64_t chroma = 0;
    visit_group < true > (f, reads, groups_x, g,[&](int32_t cb, int32_t cr) {
          chroma = cf_max_rgb_chroma (&m, cb, cr);
        },[&](int32_t luma) {
          on_code (cf_max_rgb_code_of (&m, luma, chroma));
        });
  }

  template < typename OnCodes > __device__ __forceinline__ void
  visit_rgb_codes (long long g, OnCodes on_codes) const
  {
    int64_t parts[3] = { 0, 0, 0 };
    visit_group < false > (f, reads, groups_x, g,[&](int32_t cb, int32_t cr) {
          cf_rgb_chroma (&m, cb, cr, parts);
        },[&](int32_t luma) {
          uint32_t codes[3];
          cf_rgb_codes_of (&m, luma, parts, codes);
          on_codes (codes);
        });
  }
};

static inline YCbCrLight
ycbcr_light (const CfYCbCrWords * f, const CfMaxRgb * m)
{
  YCbCrLight l;
  l.f = *f;
  l.m = *m;
  l.reads = light_reads_of (f);
  l.groups_x = (f->width + kLightGroup - 1) / kLightGroup;
  return l;
}

}                               /* namespace */

#endif
