/* Helpers shared by the tests (compiled once, cf-test-util.c): GPU
 * detection, random frames with padded strides, the CPU reference of a
 * whole cudagray frame, and harnesses of the analysis elements. */
#ifndef CF_TEST_UTIL_H
#define CF_TEST_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/cuda-gst.h>

#include "cudafilters-kernels.h"

/* meson counts exit code 77 as a skipped test */
#define CF_TEST_SKIP 77

gboolean cf_test_gpu_available (void);
/* whether an element of that name is registered */
gboolean cf_test_element_exists (const gchar * name);


/* The formats cudablur and the analysis elements take in system memory,
 * and those of them tested in CUDA memory (GStreamer's CUDA allocator, 1.22
 * to 1.28, has no GRAY8, xRGB or xBGR). */
static const GstVideoFormat cf_test_sys_formats[] G_GNUC_UNUSED = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_RGBx,
  GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR,
  GST_VIDEO_FORMAT_xRGB, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_BGR, GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420,
  GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y444,
};

static const GstVideoFormat cf_test_cuda_formats[] G_GNUC_UNUSED = {
  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGB,
  GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_Y444,
};

/* The random source of the run, made by cf_test_run_gpu_suite() (or a
 * test's own main()). */
extern GRand *rand_;

/* Fresh random data every run; CF_TEST_SEED=N repeats a run. */
GRand *cf_test_rand (void);

void cf_test_fill_random (GRand * rand, guint8 * data, gsize size);

/* Bytes per row and rows of a plane */
void cf_test_plane_extent (const GstVideoInfo * info, guint plane,
    gsize * row_bytes, guint * rows);

/* A frame of @format and size whose rows are @pad bytes longer than the
 * caps' default stride (0: the default layout, no video meta), filled with
 * random bytes, or with one random colour per byte position if @solid. */
GstBuffer *cf_test_make_frame (GstVideoFormat format, gint width,
    gint height, guint pad, gboolean solid, GRand * rand);

/* The grey plane cudagray must produce for @in (tightly packed). */
guint8 *cf_test_reference_gray (GstBuffer * in, GstVideoFormat format,
    gint width, gint height, CfGrayMatrix matrix);

/* Number of bytes of plane @plane of @buf (mapped with @info, video meta
 * honoured) that differ from @expected (tightly packed, row_bytes wide);
 * the first mismatch is printed. */
guint64 cf_test_count_plane_mismatches (GstBuffer * buf,
    const GstVideoInfo * info, guint plane, const guint8 * expected,
    gsize row_bytes, guint rows);

/* Why @gpu_present said no, when it was more than the GPU. */
extern const gchar *cf_test_skip_reason;

/* main() of a test that needs a GPU: skip (77) without one (or without what
 * @gpu_present also looks for: it sets cf_test_skip_reason), else run
 * @suite with a fresh random source in rand_. */
int cf_test_run_gpu_suite (int *argc, char ***argv,
    gboolean (*gpu_present) (void), Suite * (*make_suite) (void),
    const gchar * name, const gchar * file);

/* The main() of a test that needs a GPU, as GST_CHECK_MAIN() writes it:
 * cf_test_run_gpu_suite() of @name_suite(), the suite "@name". */
#define CF_TEST_GPU_MAIN(name, gpu_present)                             \
int                                                                     \
main (int argc, char **argv)                                            \
{                                                                       \
  return cf_test_run_gpu_suite (&argc, &argv, gpu_present,              \
      name ## _suite, #name, __FILE__);                                 \
}

/* ---- the suites ---- */

/* An entry of a suite's table: a test (CF_TEST, CF_LOOP_TEST), or the
 * start of a test case (CF_TEST_CASE) that holds the tests after it. */
typedef struct
{
  const gchar *name;            /* as tcase_add_test() would name the test */
  TFun fn;                      /* NULL: a test case */
  gint start, end;              /* a test's loop (a plain test's: 0 to 1) */
  gint timeout;                 /* a test case's, in s; 0: check's default */
} CfTestEntry;

#define CF_TEST_CASE(name, timeout) { name, NULL, 0, 0, timeout }
#define CF_TEST(fn) { #fn, fn, 0, 1, 0 }
#define CF_LOOP_TEST(fn, start, end) { #fn, fn, start, end, 0 }

/* The suite @name of @entries, whose first entry is a CF_TEST_CASE.  The
 * tests are added through gstcheck.h's wrapper, as tcase_add_test() adds
 * them, so that GST_CHECKS still picks the tests to run. */
Suite *cf_test_suite (const gchar * name, const CfTestEntry * entries,
    guint n_entries);

/* Defines @func, a suite function as GST_CHECK_MAIN() and
 * cf_test_run_gpu_suite() take it: the suite @name of the CF_TEST_CASE,
 * CF_TEST and CF_LOOP_TEST entries that follow. */
#define CF_TEST_SUITE(func, name, ...)                                  \
static Suite *                                                          \
func (void)                                                             \
{                                                                       \
  static const CfTestEntry entries[] = { __VA_ARGS__ };                 \
                                                                        \
  return cf_test_suite (name, entries, G_N_ELEMENTS (entries));         \
}

/* ---- harnesses of the analysis elements ---- */

#include <gst/check/gstharness.h>

/* The next element message on @bus, waiting up to 10 s for the worker. */
GstStructure *cf_test_next_result (GstBus * bus, GstClockTime timeout);

GstHarness *cf_test_new_harness (const gchar * launch, GstBus ** bus);

void cf_test_free_harness (GstHarness * h, GstBus * bus);

/* Whether the frames in @a and @b (each mapped with its video meta) have
 * the same pixels. */
gboolean cf_test_frames_equal (GstBuffer * a, GstBuffer * b,
    const GstVideoInfo * info);

typedef enum
{
  FRAME_RANDOM,
  FRAME_SOLID,
  FRAME_GRADIENT,
} FrameKind;

/* A frame of random, solid or gradient content (cf_test_make_frame). */
GstBuffer *make_frame (GstVideoFormat format, gint w, gint h, guint pad,
    FrameKind kind);

/* A region of interest, as the analysis elements' roi-* properties */
typedef struct
{
  guint x, y, w, h;             /* 0 w/h: to the edge */
} Roi;

/* the regions the analysis elements' results are tested on, in frames of
 * 301 x 211 */
static const Roi cf_test_rois[] G_GNUC_UNUSED = {
  {0, 0, 0, 0}, {1, 1, 1, 1}, {3, 5, 17, 9}, {100, 0, 0, 1}, {0, 100, 1, 0},
  {5000, 0, 0, 0},              /* outside: nothing analysed */
  {298, 200, 50, 50},           /* clipped */
};

/* "@element roi-x=… roi-y=… roi-width=… roi-height=…" for @roi (to free):
 * @element is the element and its other properties */
gchar *cf_test_roi_launch (const gchar * element, const Roi * roi);

/* Pushes @in, a frame of @info, through @launch (a pipeline whose last
 * element is an analysis element): the frame comes out with the same
 * bytes, in system memory the very buffer pushed, and the message that
 * comes is returned (to free).  @what names the case in failures. */
GstStructure *cf_test_message_of (const gchar * launch, GstBuffer * in,
    const GstVideoInfo * info, const gchar * what);

/* A harness around @launch with caps of @format, @width x @height at 30
 * frames a second, and a segment that starts at 10 s of running time. */
GstHarness *cf_test_timed_harness (const gchar * launch, GstVideoFormat format,
    gint width, gint height, GstBus ** bus);

/* Pushes a copy of @frame as frame @i of 1/30 s, from 0, and drops what
 * comes out. */
void cf_test_push_timed (GstHarness * h, GstBuffer * frame, guint i);

/* Pushes @in through @h, an analysis element with attach-meta=true, and
 * returns (to free) a copy of the structure of the meta @meta_name on the
 * frame that comes out, named @name as the element's messages are (the
 * fields are theirs). */
GstStructure *cf_test_meta_result (GstHarness * h, GstBuffer * in,
    const gchar * meta_name, const gchar * name);

/* A long array of a message or meta in either array-format: a
 * GstValueArray, or a GstBuffer of 8-byte values packed.  Its length
 * (failing the test when @field is missing or neither), and its value @i
 * (failing when out of range or of another type). */
guint cf_test_array_length (const GstStructure * s, const gchar * field);
guint64 cf_test_array_uint64 (const GstStructure * s, const gchar * field,
    guint i);
/* Entry @i of the GstValueArray @field of @s (a guint; a gdouble),
 * failing when @field is missing. */
guint cf_test_uint_at (const GstStructure * s, const gchar * field, guint i);
gdouble cf_test_double_at (const GstStructure * s, const gchar * field,
    guint i);
/* Fails unless @got is @want to 1e-9 of it (@what, @field and @i name
 * the value). */
void cf_test_check_close (gdouble got, gdouble want, const gchar * what,
    const gchar * field, guint i);
gdouble cf_test_array_double (const GstStructure * s, const gchar * field,
    guint i);
/* Fails unless @field of @s is in the format the element's @launch line
 * asks for: a GstBuffer with `array-format=buffer`, else a GstValueArray. */
void cf_test_check_array_format (const GstStructure * s, const gchar * field,
    const gchar * launch, const gchar * what);

#endif
