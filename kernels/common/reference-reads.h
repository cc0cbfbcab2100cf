/* What the CPU references (kernels/<op>/<op>-reference.c) share of their
 * reads: C, host only, not part of the kernels' API. */
#ifndef CUDAFILTERS_REFERENCE_READS_H
#define CUDAFILTERS_REFERENCE_READS_H

#include <stdint.h>

/* The 32-bit little-endian word at @p, at any alignment: a pixel of
 * packed 10-bit RGB. */
static inline uint32_t
cf_read_le32 (const void *p)
{
  const uint8_t *b = (const uint8_t *) p;
  return b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 |
      (uint32_t) b[3] << 24;
}

#endif
