/* gst-cudafilters tests: the hash their made-up content comes from. */
#ifndef __CF_TEST_HASH_H__
#define __CF_TEST_HASH_H__

#include <glib.h>

/* A well-mixed 32-bit hash of three values: the noise and texture of the
 * QC clips (cf-qc-clip.c) and of the high-bit frames (cf-hbd.c), the same
 * on every machine. */
static inline guint32
cf_test_hash3 (guint32 a, guint32 b, guint32 c)
{
  guint32 h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u ^
      (c + 0x165667B1u) * 0xC2B2AE3Du;

  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12;
  h *= 0x297A2D39u;
  h ^= h >> 15;
  return h;
}

#endif /* __CF_TEST_HASH_H__ */
