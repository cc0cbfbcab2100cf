/* gst-cudafilters: the kernels' C API.
 *
 * Plain C, no GStreamer and no CUDA headers: callers pass device pointers,
 * sizes in pixels, row pitches in bytes and the stream to launch on.  Every
 * GPU entry point only enqueues work on that stream and returns 0 or a CUDA
 * runtime error code (cudaError_t); cf_error_name() turns it into text.
 *
 * Each GPU entry point has a CPU reference, cf_ref_*(), on host pointers with
 * the same arguments (less the stream) and the identical result, bit for bit.
 */
#ifndef CUDAFILTERS_KERNELS_H
#define CUDAFILTERS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The same type as the driver's CUstream and the runtime's cudaStream_t. */
typedef struct CUstream_st *CfStream;

/* 0 on success, else a cudaError_t value. */
typedef int CfError;

/* cudaErrorMemoryAllocation, for callers without the CUDA headers */
#define CF_ERROR_MEMORY_ALLOCATION 2

const char *cf_error_name (CfError err);

/* Number of CUDA devices the runtime sees; 0 when there is no driver or GPU. */
int cf_device_count (void);

/* ---- grey (map pattern) ----------------------------------------------- */

typedef enum
{
  CF_GRAY_MATRIX_BT601 = 0,
  CF_GRAY_MATRIX_BT709 = 1,
  CF_GRAY_MATRIX_BT2020 = 2,
} CfGrayMatrix;

/* Fixed-point luma weights in units of 1/65536: kr and kb are the matrix's
 * Kr and Kb rounded to nearest, kg is what is left of 65536, so white maps
 * to 255 exactly.
 *   grey = (kr * R + kg * G + kb * B + 32768) >> 16 */
typedef struct
{
  uint32_t kr, kg, kb;
} CfGrayWeights;

CfGrayWeights cf_gray_weights (CfGrayMatrix matrix);

/* Packed RGB layouts: bytes per pixel (3 or 4) and the byte offsets of R, G
 * and B within a pixel.  The fourth byte (alpha or padding) is ignored. */
typedef struct
{
  int bytes_per_pixel;
  int r, g, b;
} CfPackedLayout;

/* The chroma planes of a grey frame, which the grey entry points below
 * set to the neutral value (the middle of the range, which makes the
 * frame grey): bytes of 128 (NV12: one plane of interleaved pairs; I420:
 * two), or with `words` 16-bit little-endian words of 0x8000 (P010,
 * P016).  Each of the n_planes (0 to 2) planes is row_bytes x rows of a
 * pitched device plane, written exactly, the padding left alone; a plane
 * of no rows or bytes is left alone.  NULL, or no planes: the grey plane
 * only.  The planes overlap neither each other nor the grey plane.  Each
 * is within what cf_fill_plane () takes ((row_bytes + 15) / 16 * rows
 * under 2^31 - 256, row_bytes under 2^31) and, for words,
 * cf_fill_plane16 () (row_bytes even, at most 524280 rows).
 *
 * Where every plane's data and pitch are multiples of 16, the planes are
 * filled by more blocks of the launch that writes the grey plane, so that
 * a frame costs one launch, not one a plane: each launch costs CPU time
 * (#47).
 * Otherwise, or where that launch would pass the grid's limits, they are
 * filled by cf_fill_plane () or cf_fill_plane16 () after it: the same
 * bytes either way.  Every argument is checked before anything is
 * launched. */
#define CF_NEUTRAL_MAX_PLANES 2
typedef struct
{
  void *data[CF_NEUTRAL_MAX_PLANES];
  size_t pitch[CF_NEUTRAL_MAX_PLANES];
  size_t row_bytes[CF_NEUTRAL_MAX_PLANES];
  int rows[CF_NEUTRAL_MAX_PLANES];
  int n_planes;
  int words;
} CfNeutralPlanes;

/* dst (one byte per pixel) = grey of src (packed RGB).  Both planes are
 * width x height pixels with their own pitch in bytes.  `neutral`: the
 * frame's chroma planes to set (above), or NULL. */
CfError cf_gray_from_packed (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height,
    CfPackedLayout layout, CfGrayMatrix matrix,
    const CfNeutralPlanes * neutral, CfStream stream);

/* dst = src, row_bytes x rows (a YUV frame's luma plane, kept as it is),
 * and the `neutral` planes set (or NULL): cf_copy_plane () with them.
 * row_bytes and rows more than 0. */
CfError cf_gray_copy_luma (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, size_t row_bytes, int rows,
    const CfNeutralPlanes * neutral, CfStream stream);

void cf_ref_gray_from_packed (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height,
    CfPackedLayout layout, CfGrayMatrix matrix);

/* High bit depth (docs/design/high-bit-depth.md).  A plane of 16-bit
 * little-endian words holds d-bit samples v at bit `shift` (P010: depth
 * 10, shift 6; I420_10LE: depth 10, shift 0): v = (word >> shift) &
 * (2^depth - 1). */

/* dst (16-bit words) = grey of src (32-bit RGB10A2_LE words: R in bits
 * 0-9, G 10-19, B 20-29; with swap_rb BGR10A2_LE, B in bits 0-9), MSB
 * aligned: ((kr * R + kg * G + kb * B + 32768) >> 16) << 6, the 8-bit
 * weights (white stays 1023). */
void cf_ref_gray16_from_rgb10a2 (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int swap_rb,
    CfGrayMatrix matrix);

/* dst (16-bit words) = v << (16 - depth): the samples MSB-aligned, as
 * P010 and GRAY16 hold them.  depth 1 to 16. */
void cf_ref_plane_to_msb16 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift);

/* dst (bytes) = min ((v + 2^(depth - 9)) >> (depth - 8), 255): the 8-bit
 * code whose 2^(depth - 8) multiple is nearest (BT.709, BT.2100).  depth
 * 9 to 16. */
void cf_ref_plane_to_8 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift);

/* The kernels of the three references above, on `stream`: the same bytes.
 * Any alignment; width in pixels (16-bit samples in, 32-bit words for
 * RGB10A2); a depth and shift the reference's (to_8: depth 9 to 16), with
 * depth + shift at most 16.  `neutral`: the frame's chroma planes to set
 * (CfNeutralPlanes), or NULL. */
CfError cf_gray16_from_rgb10a2 (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int swap_rb,
    CfGrayMatrix matrix, const CfNeutralPlanes * neutral, CfStream stream);
/* bytes: cf_ref_gray16_from_rgb10a2, then cf_ref_plane_to_8 at depth 16 */
CfError cf_gray8_from_rgb10a2 (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, int width, int height, int swap_rb,
    CfGrayMatrix matrix, const CfNeutralPlanes * neutral, CfStream stream);
CfError cf_plane_to_msb16 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift,
    const CfNeutralPlanes * neutral, CfStream stream);
CfError cf_plane_to_8 (const void *src, size_t src_pitch, void *dst,
    size_t dst_pitch, int width, int height, int depth, int shift,
    const CfNeutralPlanes * neutral, CfStream stream);

/* ---- Gaussian blur (stencil pattern) ---------------------------------- */

/* in a header of their own, part of this one's API */
#include "cudafilters-kernels-blur.h"

/* ---- histograms (atomic pattern) ------------------------------------- */

#define CF_HIST_BINS 256
#define CF_HIST_MAX_CHANNELS 4
#define CF_HIST_MAX_PLANES 3

/* One plane of a region an analysis reads: width x height pixels of
 * bytes_per_pixel (1 to 4) interleaved 8-bit samples, data pointing at the
 * region's first pixel.  channel[i] is the channel (0 to
 * CF_HIST_MAX_CHANNELS - 1) that byte i of a pixel belongs to, or -1 for a
 * byte not analysed (padding). */
typedef struct
{
  const void *data;
  size_t pitch;
  int width;
  int height;
  int bytes_per_pixel;
  int channel[4];
} CfSamplePlane;

/* Device workspace cf_hist_planes() sums into: cf_hist_workspace_bytes()
 * of device memory, zeroed once with cf_hist_workspace_init(); each launch
 * leaves it zeroed again.  Launches sharing a workspace must be on one
 * stream. */
size_t cf_hist_workspace_bytes (void);
CfError cf_hist_workspace_init (void *workspace, CfStream stream);

/* counts[c * CF_HIST_BINS + v] = number of samples of value v in channel c
 * over all planes (CF_HIST_MAX_CHANNELS * CF_HIST_BINS device words, all
 * written; channels no plane counts into are 0).  At most
 * CF_HIST_MAX_PLANES planes; each channel's count must stay below 2^32;
 * rows of more than 2^31 - 65 bytes are refused. */
CfError cf_hist_planes (const CfSamplePlane * planes, int n_planes,
    uint32_t * counts, void *workspace, CfStream stream);

/* The same counts without the last step: the blocks add them into `sums`
 * (cf_hist_sums_bytes() of device memory, all zeros before the launch) and
 * nothing more is done on the GPU, where cf_hist_planes() waits for every
 * block to be done and has the last one copy the counts out and zero the
 * workspace, a fixed cost of every launch.  The launch also zeroes
 * `zero_next` (another such buffer, or NULL), so that a caller taking
 * turns between buffers has the next one ready: launch n adds into buffer
 * n % k and zeroes buffer (n + 1) % k, with k at least 2, and one more
 * where a buffer is still being read (e.g. copied to the host) while the
 * next launch runs.  Both buffers are 4-byte aligned and do not overlap.
 * cf_hist_sums_counts() turns a copy of the sums in host memory into the
 * counts of cf_hist_planes(). */
size_t cf_hist_sums_bytes (void);
CfError cf_hist_planes_add (const CfSamplePlane * planes, int n_planes,
    void *sums, void *zero_next, CfStream stream);
void cf_hist_sums_counts (const void *sums, uint32_t * counts);

void cf_ref_hist_planes (const CfSamplePlane * planes, int n_planes,
    uint32_t * counts);

/* High bit depth (#48, docs/design/high-bit-depth.md).  A plane of 16-bit
 * little-endian words: width x height pixels of words_per_pixel (1, or 2
 * for interleaved chroma: P010's UV) words, each holding a sample v of
 * `depth` bits (9 to 16) at bit `shift`: v = (word >> shift) & (2^depth -
 * 1).  channel[i] is the channel (0 to CF_HIST_WORD_CHANNELS - 1) of word
 * i of a pixel, or -1.  A plane may start at any byte; where the second
 * word of a pixel is not counted (channel[1] == -1), the last pixel's
 * second word is not read (cf_word_plane_row_words).
 *
 * rgb10a2 (0 for the planes above) makes the plane one of the packed
 * 10-bit RGB formats: 32-bit little-endian pixels (words_per_pixel 2,
 * depth 10, shift 0; channel[] is not read) of three samples, at bits 0-9,
 * 10-19 and 20-29, and 2 bits of alpha, not counted.  CF_RGB10A2 is
 * RGB10A2_LE (channels R, G, B: 0, 1, 2 from bit 0 up), CF_BGR10A2
 * BGR10A2_LE (B in bits 0-9: channels 2, 1, 0).  Its data and pitch are
 * multiples of 4. */
#define CF_HIST_MAX_LEVELS 4096
#define CF_HIST_WORD_CHANNELS 3
typedef struct
{
  const void *data;
  size_t pitch;
  int width;
  int height;
  int words_per_pixel;
  int channel[2];
  int depth;
  int shift;
  int rgb10a2;
} CfWordPlane;

enum
{
  CF_RGB10A2 = 1,
  CF_BGR10A2 = 2,
};

#ifdef __CUDACC__
#define CF_HOST_DEVICE __host__ __device__
#else
#define CF_HOST_DEVICE
#endif

/* The words of a row of @pl that are read: all of its pixels' words but
 * an uncounted last one. */
static inline CF_HOST_DEVICE int
cf_word_plane_row_words (const CfWordPlane * pl)
{
  return pl->width * pl->words_per_pixel - (pl->width > 0 && !pl->rgb10a2
      && pl->words_per_pixel == 2 && pl->channel[1] < 0);
}

/* The channel of the sample at bits 10 s to 10 s + 9 (s = 0, 1, 2) of a
 * pixel of a plane of packed 10-bit RGB. */
static inline CF_HOST_DEVICE int
cf_rgb10a2_channel (const CfWordPlane * pl, int s)
{
  return pl->rgb10a2 == CF_BGR10A2 ? 2 - s : s;
}

/* A channel of depth d is counted at 2^min(d, 12) levels: the level of v
 * is v >> max(d - 12, 0). */
#define CF_HIST_LEVELS(depth) (1 << ((depth) < 12 ? (depth) : 12))

/* The counts of planes of depth d: counts[c * CF_HIST_LEVELS (d) + level]
 * = the samples of channel c at that level, over all planes,
 * CF_HIST_WORD_CHANNELS * CF_HIST_LEVELS (d) 32-bit words in all
 * (cf_hist_word_sums_bytes (d) bytes; 0 for a depth outside 9-16).
 *
 * cf_hist_word_planes() writes them all into `counts` (device memory).
 * cf_hist_word_planes_add() adds them into `sums` (device memory holding
 * zeros) and zeroes `zero_next` (NULL, or another such buffer that does
 * not overlap it, for the next frame: as cf_hist_planes_add()); both are
 * 4-byte aligned.  At most CF_HIST_MAX_PLANES planes, all of one depth;
 * each count must stay below 2^32. */
size_t cf_hist_word_sums_bytes (int depth);
CfError cf_hist_word_planes (const CfWordPlane * planes, int n_planes,
    uint32_t * counts, CfStream stream);
CfError cf_hist_word_planes_add (const CfWordPlane * planes, int n_planes,
    void *sums, void *zero_next, CfStream stream);
void cf_ref_hist_word_planes (const CfWordPlane * planes, int n_planes,
    uint32_t * counts);


/* ---- statistics (reduction pattern) ---------------------------------- */

/* Sums of every channel of a frame's region, read in one pass together with
 * the statistics of its "key", a value per pixel of plane 0:
 *   key = (weights[0] * b0 + ... + weights[3] * b3 + 32768) >> 16
 * over the bytes b0..b3 of the pixel (cf_gray_weights() put on the R, G and
 * B bytes give cudagray's grey).  For a plane of 1 byte per pixel (a Y or
 * GRAY8 plane) the key is that byte and the weights are not used.  Each
 * weight must be under 65536 and the key within 0-255; a weight of 65535
 * on one byte alone makes the key that byte. */
typedef enum
{
  CF_SUM_PROFILES = 1 << 0,     /* row_sums and column_sums of the key */
  CF_SUM_BLACK = 1 << 1,        /* black: keys at or under black_threshold */
  CF_SUM_DIFF = 1 << 2,         /* abs_diff: sum of |key - previous key| */
  CF_SUM_KEEP = 1 << 3,         /* store the keys in `previous` */
  CF_SUM_HIST = 1 << 4,         /* the keys' counts, added to key_counts */
} CfSumFlags;

typedef struct
{
  unsigned flags;               /* CfSumFlags */
  uint32_t weights[4];
  int black_threshold;
  /* with CF_SUM_DIFF or CF_SUM_KEEP: the keys of plane 0, one byte per
   * pixel, its pitch a multiple of 16; read (DIFF) before being
   * overwritten (KEEP) */
  uint8_t *previous;
  size_t previous_pitch;
  /* with CF_SUM_HIST: CF_HIST_BINS words, 4-byte aligned, to which the
   * launch adds the count of each key value of plane 0 (device memory;
   * host memory for the reference), apart from the workspace or sums.
   * Nothing zeroes them but the caller (or, inside cf_sum_planes_add's
   * zero_next, a launch before). */
  uint32_t *key_counts;
} CfSumKey;

/* What cf_sum_planes() writes.  min and max are 255 and 0 for a channel
 * with no samples. */
typedef struct
{
  uint64_t sum[CF_HIST_MAX_CHANNELS];
  uint64_t sum_squares[CF_HIST_MAX_CHANNELS];
  uint32_t min[CF_HIST_MAX_CHANNELS];
  uint32_t max[CF_HIST_MAX_CHANNELS];
  uint64_t black;
  uint64_t abs_diff;
} CfSumStats;

/* Device workspace for frames whose plane 0 is at most max_width x
 * max_height: cf_sum_workspace_bytes() of device memory zeroed once (e.g.
 * with cf_fill_plane); each launch leaves it zeroed again.  Launches
 * sharing a workspace must be on one stream. */
size_t cf_sum_workspace_bytes (int max_width, int max_height);

/* Per channel of the planes (as for cf_hist_planes): the sum of the
 * samples, of their squares, their min and max, and what key->flags ask
 * for: with CF_SUM_PROFILES row_sums[y] (planes[0].height words) and
 * column_sums[x] (planes[0].width words) are the sums of the keys of each
 * row and column of plane 0; with CF_SUM_HIST the keys' counts are added
 * to key->key_counts.  stats, row_sums and column_sums may be host
 * memory the device can write (pinned, mapped).  planes[0] must have 1, 3
 * or 4 bytes per pixel when flags are set.  Planes of 2^31 - 64 rows or
 * more are refused. */
CfError cf_sum_planes (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, CfSumStats * stats, uint32_t * row_sums,
    uint32_t * column_sums, void *workspace, CfStream stream);

/* The same without the last step (as cf_hist_planes_add): the blocks add
 * into `sums`, cf_sum_workspace_bytes (planes[0].width, planes[0].height)
 * or more of device memory holding zeros (8-byte aligned), and the launch
 * zeroes `zero_bytes` (a multiple of 4) of `zero_next`, the buffer of a
 * later launch, which may not overlap those sums.  cf_sum_sums_read()
 * turns a host copy of the sums into the statistics, and returns where in
 * it the row sums are (planes[0].height words, then the column sums:
 * planes[0].width words). */
CfError cf_sum_planes_add (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, void *sums, void *zero_next, size_t zero_bytes,
    CfStream stream);
const uint32_t *cf_sum_sums_read (const void *sums, CfSumStats * stats);

/* High bit depth (#48): the statistics of planes of 16-bit words
 * (CfWordPlane, as for cf_hist_word_planes; all of one depth), per
 * channel: the sum of the samples' values, of their squares, their min
 * and max (G_MAXUINT32 and 0 for a channel with no samples).  With `key8`
 * (device memory; 16-byte aligned, its pitch a multiple of 16, at least
 * planes[0].width bytes), plane 0, which must have one word a pixel, is
 * also written there at 8 bits, v >> (depth - 8): the key that
 * cf_sum_planes_add() then reads for the profiles and detectors, in
 * 8-bit units.
 *
 * cf_sum_word_planes_add() adds the statistics into `sums`
 * (cf_sum_word_sums_bytes() of device memory holding zeros, 8-byte
 * aligned) and zeroes `zero_bytes` (a multiple of 4) of `zero_next`, the
 * buffer of a later launch, which may not overlap those sums.
 * cf_sum_word_sums_read() turns a host copy of the sums into the
 * statistics.  A frame's sums stay within 64 bits: it has fewer than 2^32
 * samples a channel (GStreamer's frames are under 4 GiB), each square
 * under 2^32. */
typedef struct
{
  uint64_t sum[CF_HIST_WORD_CHANNELS];
  uint64_t sum_squares[CF_HIST_WORD_CHANNELS];
  uint32_t min[CF_HIST_WORD_CHANNELS];
  uint32_t max[CF_HIST_WORD_CHANNELS];
} CfWordStats;

size_t cf_sum_word_sums_bytes (void);
CfError cf_sum_word_planes_add (const CfWordPlane * planes, int n_planes,
    void *sums, uint8_t * key8, size_t key8_pitch, void *zero_next,
    size_t zero_bytes, CfStream stream);
void cf_sum_word_sums_read (const void *sums, CfWordStats * stats);
/* The reference; `key8` is host memory here (or NULL). */
void cf_ref_sum_word_planes (const CfWordPlane * planes, int n_planes,
    CfWordStats * stats, uint8_t * key8, size_t key8_pitch);

/* The reference; `previous` is host memory here. */
void cf_ref_sum_planes (const CfSamplePlane * planes, int n_planes,
    const CfSumKey * key, CfSumStats * stats, uint32_t * row_sums,
    uint32_t * column_sums);

/* ---- events ----------------------------------------------------------- */

/* A point in a stream, for other streams to wait for, and for the host to
 * ask about: no host call blocks on one (gst/gstcudafilterswait.c says
 * how the elements wait). */
typedef struct CUevent_st *CfEvent;

CfError cf_event_create (CfEvent * event);
CfError cf_event_record (CfEvent event, CfStream stream);
/* 1 when done, 0 when not yet, else the error of the work (negated). */
int cf_event_done (CfEvent event);
void cf_event_destroy (CfEvent event);
/* Work queued on `stream` after this waits for the work before the
 * event's last record (none: nothing to wait for). */
CfError cf_event_wait_on (CfStream stream, CfEvent event);

/* Queues a copy of `bytes` of device memory to host memory (pinned, for the
 * copy to run while the host goes on). */
CfError cf_copy_to_host (void *host, const void *device, size_t bytes,
    CfStream stream);

/* Copies `bytes` of host memory (any) to device memory after the work
 * queued on `stream`, and returns once it is done: for tables made on
 * the CPU now and then, not for frames. */
CfError cf_copy_to_device (void *device, const void *host, size_t bytes,
    CfStream stream);

/* ---- HDR light levels (atomics pattern, #48) --------------------------- */

/* in a header of their own, part of this one's API */
#include "cudafilters-kernels-light.h"

/* ---- plane helpers ---------------------------------------------------- */

/* Copies row_bytes x rows between two pitched device planes.  The CPU
 * reference is a row-by-row memcpy. */
CfError cf_copy_plane (const void *src, size_t src_pitch,
    void *dst, size_t dst_pitch, size_t row_bytes, int rows, CfStream stream);

/* Sets row_bytes x rows of a pitched device plane to value. */
CfError cf_fill_plane (void *dst, size_t pitch, size_t row_bytes, int rows,
    uint8_t value, CfStream stream);

/* Sets words_per_row x rows 16-bit little-endian words of a pitched device
 * plane to value (the neutral chroma of P010/P016: 0x8000).  Any
 * alignment. */
CfError cf_fill_plane16 (void *dst, size_t pitch, int words_per_row,
    int rows, uint16_t value, CfStream stream);

#ifdef __cplusplus
}
#endif
#endif /* CUDAFILTERS_KERNELS_H */
