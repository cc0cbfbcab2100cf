/* What the high-bit kernels' launches share (#48: cf_hist_word_planes_add,
 * cf_sum_word_planes_add): the checks of their CfWordPlanes, and one wave
 * of blocks shared by the planes in proportion to their bytes, each block
 * at least kMinBlockBytes (its set-up and adding out cost about as much as
 * reading that many).  Host code only; not part of the C API. */
#ifndef CUDAFILTERS_WORD_PLANES_CUH
#define CUDAFILTERS_WORD_PLANES_CUH

#include "cudafilters-kernels.h"
#include "launch-settings.cuh"

#include <stdint.h>

namespace cf {

struct WordLaunch
{
  /* blocks [first_block[p], first_block[p + 1]) read plane p */
  int first_block[CF_HIST_MAX_PLANES + 1];
  int grid;
};

/* Whether @planes are what the kernels take: 1 to CF_HIST_MAX_PLANES
 * planes, all of one depth of 9 to 16 bits, each of 1 or 2 words a pixel
 * of known channels, or of packed 10-bit RGB on 4 bytes; an empty plane (a
 * region of interest outside the frame) may have no data. */
static inline bool
word_planes_valid (const CfWordPlane * planes, int n_planes)
{
  if (!planes || n_planes < 1 || n_planes > CF_HIST_MAX_PLANES
      || planes[0].depth < 9 || planes[0].depth > 16)
    return false;
  for (int p = 0; p < n_planes; p++) {
    const CfWordPlane & pl = planes[p];
    if (pl.width < 0 || pl.height < 0 || pl.depth != planes[0].depth
        || pl.shift < 0 || pl.depth + pl.shift > 16
        || (pl.words_per_pixel != 1 && pl.words_per_pixel != 2)
        || pl.pitch < (size_t) pl.width * pl.words_per_pixel * 2
        /* (visit_row_words adds up to 3 to twice a row's words) */
        || (long long) pl.width * pl.words_per_pixel > INT32_MAX / 2 - 2
        || (pl.width > 0 && pl.height > 0 && !pl.data))
      return false;
    if (pl.rgb10a2) {
      if ((pl.rgb10a2 != CF_RGB10A2 && pl.rgb10a2 != CF_BGR10A2)
          || pl.words_per_pixel != 2 || pl.depth != 10 || pl.shift != 0
          || ((uintptr_t) pl.data & 3) || (pl.pitch & 3))
        return false;
      continue;
    }
    for (int w = 0; w < pl.words_per_pixel; w++)
      if (pl.channel[w] < -1 || pl.channel[w] >= CF_HIST_WORD_CHANNELS)
        return false;
  }
  return true;
}

/* Whether @a (of @a_bytes) and @b (of @b_bytes, or NULL) overlap. */
static inline bool
buffers_overlap (const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
  return b && (const char *) b < (const char *) a + a_bytes
      && (const char *) a < (const char *) b + b_bytes;
}

/* The most samples a pixel of a plane of @planes holds: its words, or
 * three for packed 10-bit RGB (the histogram's counters a level). */
static inline int
max_samples_per_pixel (const CfWordPlane * planes, int n_planes)
{
  int most = 1;
  for (int p = 0; p < n_planes; p++) {
    const int n = planes[p].rgb10a2 ? 3 : planes[p].words_per_pixel;
    most = n > most ? n : most;
  }
  return most;
}

constexpr double kMinBlockBytes = 16384;

/* The blocks of @kernel (@block_threads, @smem bytes of dynamic shared
 * memory) for valid @planes.  An empty region still gets one block (for
 * the next frame's sums to be zeroed). */
static inline cudaError_t
share_word_blocks (const CfWordPlane * planes, int n_planes,
    const void *kernel, int block_threads, size_t smem, WordLaunch * launch)
{
  double plane_bytes[CF_HIST_MAX_PLANES], all_bytes = 0;
  for (int p = 0; p < n_planes; p++) {
    const CfWordPlane & pl = planes[p];
    plane_bytes[p] = pl.width > 0 && pl.height > 0 ?
        2.0 * pl.width * pl.words_per_pixel * pl.height : 0;
    all_bytes += plane_bytes[p];
  }
  const DeviceInfo *dev;
  int resident;
  cudaError_t err = current_device_info (&dev);
  if (err == cudaSuccess)
    err = resident_blocks_per_sm (kernel, block_threads, smem, &resident);
  if (err != cudaSuccess)
    return err;
  double wave = (double) dev->sm_count * (resident > 0 ? resident : 1);
  double blocks = all_bytes / kMinBlockBytes;
  blocks = blocks < wave ? blocks : wave;
  launch->first_block[0] = 0;
  for (int p = 0; p < n_planes; p++) {
    int n = all_bytes > 0 ? (int) (blocks * plane_bytes[p] / all_bytes) : 0;
    if (plane_bytes[p] > 0 && n < 1)
      n = 1;
    launch->first_block[p + 1] = launch->first_block[p] + n;
  }
  launch->grid = launch->first_block[n_planes];
  if (launch->grid == 0) {
    launch->grid = 1;
    for (int p = 1; p <= n_planes; p++)
      launch->first_block[p] = 1;
  }
  return cudaSuccess;
}

}                               /* namespace cf */

#endif
