/* What the kernel tests (tests/kernels/<op>.c) share, compiled once
 * (cf-kernel-test.c): the pitch modes and frame sizes, planes in host and
 * device memory whose poisoned output is compared byte for byte with the
 * CPU reference, the contents and sample planes of the histograms and
 * statistics, and main(): without a GPU the CUDA runtime sees, the test
 * exits 77 (skipped). */
#ifndef CF_KERNEL_TEST_H
#define CF_KERNEL_TEST_H

#include <gst/check/gstcheck.h>
#include <cuda_runtime_api.h>

#include "cudafilters-kernels.h"
#include "cf-test-util.h"

/* what every output starts as */
#define POISON 0xa5

typedef enum
{
  PITCH_TIGHT,                  /* row bytes exactly */
  PITCH_PADDED,                 /* padded past a multiple of 256: vector paths */
  PITCH_MISALIGNED,             /* odd pitch and start: scalar paths */
} PitchMode;

/* the frame sizes of the grey, histogram and statistics tests */
static const struct
{
  gint w, h;
} sizes[] G_GNUC_UNUSED = {
  {1, 1}, {3, 7}, {16, 1}, {17, 5}, {1, 33}, {64, 2}, {1921, 1081},
};

#define CUDA_OK(call) G_STMT_START {                                    \
  cudaError_t _e = (call);                                              \
  fail_unless (_e == cudaSuccess, "%s: %s", #call, cudaGetErrorName (_e)); \
} G_STMT_END

/* One kernel run on a source and a destination plane, in host and device
 * memory: random source, poisoned destination, and after the run every
 * byte of the destination allocation compared with the expected one
 * (padding and the bytes before a misaligned start included: they must
 * keep their poison). */
typedef struct
{
  gsize src_pitch, dst_pitch, src_off, dst_off, src_size, dst_size;
  guint8 *src, *want;           /* host: the source, the expected output */
  guint8 *d_src, *d_dst;        /* device */
} PlaneCase;

void plane_case_init (PlaneCase * pc, gsize src_row, gsize dst_row, gint rows,
    PitchMode mode);

/* after the source (pc->src) is final: copies it to the device */
void plane_case_upload (PlaneCase * pc);

/* the launch's result @err, then the comparison; frees everything */
void plane_case_finish (PlaneCase * pc, CfError err, const gchar * what);

/* ---- the planes of the histograms and statistics ---- */

typedef enum
{
  CONTENT_RANDOM,
  CONTENT_SOLID,
  CONTENT_GRADIENT,
  CONTENT_TWO_VALUES,           /* noise between two neighbours: short runs */
} Content;

void fill_content (guint8 * data, gsize size, Content content);

/* A plane of w x h pixels of bpp bytes, the channel of each byte (-1: not
 * counted).  Up to three planes, each with its own pitch and a region
 * starting at (rx, ry) of rw x rh pixels (of the first plane: subsampled
 * planes take the samples covering it). */
typedef struct
{
  gint w, h, bpp;
  gint channel[4];
} HistPlaneSpec;

/* the packed layouts (w and h set by the test) */
static const HistPlaneSpec hist_rgba G_GNUC_UNUSED = { 0, 0, 4, {0, 1, 2, 3} };
static const HistPlaneSpec hist_xrgb G_GNUC_UNUSED = { 0, 0, 4, {-1, 0, 1, 2} };
static const HistPlaneSpec hist_bgr G_GNUC_UNUSED = { 0, 0, 3, {2, 1, 0, -1} };
static const HistPlaneSpec hist_gray G_GNUC_UNUSED =
    { 0, 0, 1, {0, -1, -1, -1} };

/* The planes of a case, in host and device memory, with the region. */
typedef struct
{
  gint n_planes;
  CfSamplePlane host[CF_HIST_MAX_PLANES], dev[CF_HIST_MAX_PLANES];
  guint8 *h_data[CF_HIST_MAX_PLANES], *d_data[CF_HIST_MAX_PLANES];
} RegionPlanes;

void region_planes_init (RegionPlanes * rp, const HistPlaneSpec * spec,
    gint n_planes, gint rx, gint ry, gint rw, gint rh, PitchMode mode,
    Content content);

void region_planes_clear (RegionPlanes * rp);

/* A plane of 16-bit words of a high-bit layout (#48): its words per pixel
 * and their channels, and its subsampling. */
typedef struct
{
  gint words_per_pixel, channel[2];
  gint w_div, h_div;
} WordPlaneSpec;

/* The planes of @specs for a @w x @h frame at @depth and @shift, in host
 * and device memory: random words (stray bits outside the samples
 * included), or with @solid one random word a word of a pixel. */
typedef struct
{
  gint n_planes;
  CfWordPlane host[CF_HIST_MAX_PLANES], dev[CF_HIST_MAX_PLANES];
  guint8 *h_data[CF_HIST_MAX_PLANES], *d_data[CF_HIST_MAX_PLANES];
} WordPlanes;

void word_planes_init (WordPlanes * wp, const WordPlaneSpec * specs, gint n,
    gint depth, gint shift, gint w, gint h, PitchMode mode, gboolean solid);

void word_planes_clear (WordPlanes * wp);

/* A @w x @h frame of RGB10A2_LE (BGR10A2_LE with @swap_rb: B in bits 0-9)
 * as the elements give it to the kernels: one plane of packed 10-bit RGB
 * (CfWordPlane's rgb10a2).  The buffer is exactly its rows (@mode's pitch;
 * PITCH_MISALIGNED: a pitch and start 4 bytes off 16 rather than odd, as
 * packed 10-bit RGB must be on 4 bytes), random bits (or one random pixel
 * everywhere, @solid), so that a read past the last pixel is a read past
 * the buffer. */
void rgb10a2_planes_init (WordPlanes * wp, gboolean swap_rb, gint w, gint h,
    PitchMode mode, gboolean solid);

/* The 10-bit component @c (0 R, 1 G, 2 B) of pixel (@x, @y) of
 * rgb10a2_planes_init()'s host frame, read as a 32-bit word: the
 * definition the planes are checked against. */
guint rgb10a2_component (const WordPlanes * wp, gboolean swap_rb, gint c,
    gint x, gint y);

/* the high-bit layouts of the kernel tests: every one the elements take,
 * a plane of one channel of two words, and 9 bits */
typedef struct
{
  const gchar *name;
  const WordPlaneSpec *specs;
  gint n, depth, shift;
} WordLayout;

extern const WordLayout word_layouts[];
extern const guint n_word_layouts;

/* ---- the program ---- */

/* A test of a kernel program (a GST_START_TEST), under the name
 * tcase_add_test() would give it. */
typedef struct
{
  const gchar *name;
  TFun fn;
} CfKernelTest;

#define CF_KERNEL_TEST(fn) { #fn, fn }

/* main() of a kernel test: exits 77 (skipped) where the CUDA runtime sees
 * no GPU, else runs @tests in a suite @name of one test case, "gpu", whose
 * tests may take 600 s, with a fresh random source in rand_. */
int cf_kernel_test_run (int *argc, char ***argv, const gchar * name,
    const CfKernelTest * tests, guint n_tests, const gchar * file);

/* The program's main(), as GST_CHECK_MAIN() writes it: the suite @name of
 * the CF_KERNEL_TEST()s that follow. */
#define CF_KERNEL_TEST_MAIN(name, ...)                                  \
int                                                                     \
main (int argc, char **argv)                                            \
{                                                                       \
  static const CfKernelTest tests[] = { __VA_ARGS__ };                  \
                                                                        \
  return cf_kernel_test_run (&argc, &argv, name, tests,                 \
      G_N_ELEMENTS (tests), __FILE__);                                  \
}

#endif
