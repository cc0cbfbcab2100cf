/* The arithmetic of grey, gray-reference.c's bit for bit.  gray.cu
 * includes it. */
#ifndef CUDAFILTERS_GRAY_DEVICE_CUH
#define CUDAFILTERS_GRAY_DEVICE_CUH

#include <stdint.h>

namespace {

/* Weights per byte position within a pixel; the alpha/padding byte has 0, so
 * one formula serves every channel order. */
struct ByteWeights
{
  uint32_t w[4];
};

__device__ __forceinline__ uint32_t
gray_of (uint32_t b0, uint32_t b1, uint32_t b2, uint32_t b3,
    const ByteWeights & w)
{
  return (w.w[0] * b0 + w.w[1] * b1 + w.w[2] * b2 + w.w[3] * b3 + 32768u) >> 16;
}

__device__ __forceinline__ uint32_t
byte_at (const uint32_t * words, int i)
{
  return (words[i >> 2] >> (8 * (i & 3))) & 0xffu;
}

}                               /* namespace */

#endif
