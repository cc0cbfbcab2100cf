/* The harness of kernel-bench: frames, checks, timing and output, shared by
 * the operations' files (gray.cu, blur.cu, hist.cu, sum.cu, profiles.cu),
 * each of which builds its rows with it and registers them as cases.
 *
 * Method.  Each kernel's output is checked against a CPU computation
 * first; a row that differs is reported on stderr, not timed, and makes
 * the program exit 1 at the end.  Then, after warm-up, with its inputs and
 * outputs rotated over enough frames (>= 200 MB, 4x the H100's L2) that
 * the cache cannot hold them (but for the previous frame's keys of the
 * sum rows with a difference: one buffer, as cudasum keeps them, and the
 * "cold-keys" rows rotated; bench_sum in sum.cu):
 * - launch: CUDA events around every launch, median of --reps (200); what
 *   one frame costs when frames come one at a time;
 * - sustained: events around 20 back-to-back launches, divided by 20,
 *   median of up to 30 batches (fewer where they would take more than
 *   kSustainedSeconds); launch latency and ramp-up overlap as they do when
 *   frames queue up.
 * Against:
 * - floor: bytes that must move (each input byte read once, each output
 *   byte written once) over the bandwidth of a 512 MiB device-to-device
 *   copy (bytes read + written over its median time); an analysis kernel
 *   writes next to nothing, so its floor is the frame's bytes read;
 * - copy: a device-to-device cudaMemcpyAsync moving the same bytes (half
 *   read, half written), per launch: the fixed cost any single launch of
 *   this size pays;
 * - cpu: the CPU reference (cf_ref_* of cudafilters-kernels.h) on the same
 *   frame, on our rows only (one per op, format, size and content): the
 *   median of the run that gave the check's result and of more runs while
 *   all fit in kCpuSeconds, at most kCpuMaxRuns.  A blur whose reference
 *   would take longer than kCpuLongestRun is checked on tiles and has no
 *   cpu time (the note gives the estimate).
 * The seeds' rungs can be thousands of times slower than our kernels: each
 * gets as many launches as fit in kSeedSeconds (at most --reps, at least
 * 3, or only the first timed one where 3 would not fit), sustained batches
 * only where 3 of them fit in kSustainedSeconds, and no copy column.
 * Empty fields in the CSV (a dash in the table) were not measured.
 * docs/performance.md reads the results.
 *
 * CSV: a header line, then one line per row, fields not quoted:
 *   gpu,op,variant,format,width,height,content,bytes,launch_us,
 *   sustained_us,floor_us,copy_us,cpu_us
 * (the header on one line; times in microseconds, bytes as for the
 * floor) */
#ifndef CUDAFILTERS_BENCH_KERNEL_BENCH_HARNESS_CUH
#define CUDAFILTERS_BENCH_KERNEL_BENCH_HARNESS_CUH

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>

#include "cudafilters-kernels.h"

#define CHECK(call) do {                                                   \
  cudaError_t e_ = (cudaError_t) (call);                                   \
  if (e_ != cudaSuccess) {                                                 \
    std::fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
        cudaGetErrorName (e_));                                            \
    std::exit (2);                                                         \
  }                                                                        \
} while (0)

static const int kMaxWarmup = 30;
static const size_t kRotateBytes = 200u << 20;

/* Time limits, so that the whole run stays within a few minutes however
 * slow a seed's rung or a CPU reference turns out to be. */
static const double kWarmupSeconds = 0.05;      /* at most 30 launches */
static const double kSustainedSeconds = 0.3;
static const int kPerBatch = 20, kMaxBatches = 30;
static const double kSeedSeconds = 1.0;
static const double kCpuSeconds = 1.0;
static const int kCpuMaxRuns = 5;
static const double kCpuLongestRun = 2.5;

/* Set by main: --reps, the copy bandwidth (bytes read + written per
 * second) and the generator of every frame's content. */
extern int g_reps;
extern double g_bandwidth;
extern std::mt19937_64 g_rng;

/* ---- rows ------------------------------------------------------------- */

/* NaN: not measured (an empty CSV field) */
static const double kNone = NAN;

struct Row
{
  std::string op, variant, format;
  int width, height;
  bool solid;
  double bytes;
  double launch_us = kNone, sustained_us = kNone, floor_us = kNone,
      copy_us = kNone, cpu_us = kNone;
  std::string note;
};

/* A check that failed: reported where it happened, the row dropped. */
struct Mismatch
{
};

/* Prints the message on stderr and throws Mismatch. */
[[noreturn]] void mismatch (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2)));

/* ---- frames ----------------------------------------------------------- */

/* The frame formats of the rows: packed (bpp bytes per pixel) or NV12 (a
 * luma plane, then half-height rows of interleaved chroma pairs). */
struct Format
{
  const char *name;
  int bpp;
  bool nv12;
};

extern const Format kRGBA, kRGB, kNV12, kGRAY8, kUV, kP010, kRGB10A2;

static inline int
rows_of (const Format & fmt, int h)
{
  return fmt.nv12 ? h + (h + 1) / 2 : h;
}

/* The bytes of a frame without row padding */
static inline size_t
frame_bytes (const Format & fmt, int w, int h)
{
  return (size_t) w * fmt.bpp * rows_of (fmt, h);
}

static inline int
rotation_count (size_t bytes_per_frame)
{
  return (int) std::max < size_t > (2,
      (kRotateBytes + bytes_per_frame - 1) / bytes_per_frame);
}

void fill_random (std::vector < uint8_t > &bytes);

/* Device memory that is freed on every way out of a row, mismatches
 * included. */
template < typename T > struct DeviceArray
{
  T *ptr = nullptr;
  size_t count;

  explicit DeviceArray (size_t n):count (n)
  {
    CHECK (cudaMalloc (&ptr, n * sizeof (T)));
  }
  ~DeviceArray ()
  {
    cudaFree (ptr);
  }
  DeviceArray (const DeviceArray &) = delete;
  DeviceArray & operator= (const DeviceArray &) = delete;

  /* 0xa5 in every byte, so that what a kernel leaves unwritten shows */
  void poison () const
  {
    CHECK (cudaMemset (ptr, 0xa5, count * sizeof (T)));
  }
  std::vector < T > download () const
  {
    std::vector < T > v (count);
    CHECK (cudaMemcpy (v.data (), ptr, count * sizeof (T),
            cudaMemcpyDeviceToHost));
    return v;
  }
};

/* A set of pitched device frames of one format to rotate over, all holding
 * the same content after fill(); `host` keeps it for the CPU side. */
struct Frames
{
  Format fmt;
  int width, height, rows;
  size_t row_bytes, pitch;
  std::vector < uint8_t * >ptr;
  std::vector < uint8_t > host;

  /* contiguous: rows without padding, for the baselines that read a frame
   * as one run of bytes; else rows 256-byte aligned */
  Frames (int n, const Format & f, int w, int h, bool contiguous = false)
  : fmt (f), width (w), height (h), rows (rows_of (f, h)),
      row_bytes ((size_t) w * f.bpp)
  {
    pitch = contiguous ? row_bytes : (row_bytes + 255) / 256 * 256;
    ptr.resize (n);
    for (auto & p:ptr)
      CHECK (cudaMalloc (&p, pitch * rows));
  }
  ~Frames ()
  {
    for (auto p:ptr)
      cudaFree (p);
  }
  Frames (const Frames &) = delete;
  Frames & operator= (const Frames &) = delete;

  uint8_t *operator[] (int i) const
  {
    return ptr[i % ptr.size ()];
  }
  size_t bytes () const
  {
    return pitch * rows;
  }

  /* Random bytes, or one colour: every pixel the same bytes, or for NV12
   * one luma value and one chroma pair. */
  void fill (bool solid);
  void poison (int i) const
  {
    CHECK (cudaMemset ((*this)[i], 0xa5, bytes ()));
  }
  std::vector < uint8_t > download (int i) const
  {
    std::vector < uint8_t > v (bytes ());
    CHECK (cudaMemcpy (v.data (), (*this)[i], bytes (),
            cudaMemcpyDeviceToHost));
    return v;
  }
};

/* The planes the histograms and statistics read from a frame: packed, or
 * NV12's luma (channel 0) and chroma (channels 1 and 2). */
int sample_planes (const Format & fmt, const uint8_t * frame, size_t pitch,
    int w, int h, CfSamplePlane * planes);

/* The same of a P010 frame (kP010) for the high-bit kernels: its luma
 * (channel 0) and chroma (channels 1 and 2), 10 bits at the top of each
 * word.  Returns 2. */
int p010_planes (const uint8_t * frame, size_t pitch, int w, int h,
    CfWordPlane * planes);

/* The planes of words of a frame of @fmt, kP010 or kRGB10A2 (one plane of
 * packed 10-bit RGB: cudafilters-kernels.h, CfWordPlane).  Returns their
 * number. */
int word_planes (const Format & fmt, const uint8_t * frame, size_t pitch,
    int w, int h, CfWordPlane * planes);

/* ---- checks ----------------------------------------------------------- */

/* Fails the row where the first row_bytes bytes of some row of two
 * pitched host planes differ. */
void check_rows_equal (const char *what, const uint8_t * got,
    size_t got_pitch, const uint8_t * want, size_t want_pitch,
    size_t row_bytes, int rows);

/* Fails the row where two arrays of counts or sums differ. */
template < typename G, typename W > static void
check_values_equal (const char *what, const char *which, const G * got,
    const W * want, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if ((unsigned long long) got[i] != (unsigned long long) want[i])
      mismatch ("%s: %s[%zu] is %llu, the CPU's %llu", what, which, i,
          (unsigned long long) got[i], (unsigned long long) want[i]);
}

/* ---- timing ----------------------------------------------------------- */

/* One frame's work on rotation slot i: 0 or a CUDA error */
typedef std::function < int (int) > Launch;

/* Device-to-device copy bandwidth, counting bytes read plus written. */
double measure_copy_bandwidth (void);

/* Fills a row's GPU times (launch, sustained, floor, copy); seed: a seed's
 * rung, timed within kSeedSeconds and without the copy column. */
void time_row (Row & row, const Launch & launch, bool seed);

/* Seconds that run() takes */
double seconds_of (const std::function < void () > &run);

/* The cpu column: `first_s` is the run whose result was just checked; more
 * runs while all fit in kCpuSeconds (at most kCpuMaxRuns); the median, in
 * microseconds. */
double cpu_median_us (double first_s, const std::function < void () > &run);

/* ---- cases ------------------------------------------------------------ */

Row make_row (const std::string & op, const std::string & variant,
    const Format & fmt, int w, int h, bool solid, double bytes);

/* "what" of the error messages: the row as the table shows it */
std::string describe (const Row & row);

struct Size
{
  const char *name;
  int w, h;
};

/* 720p, 1080p, 4K and 8K */
extern const Size kSizes[4];
extern const Size & k720p, &k4K;

/* Every row by name, so that --only can pick some (e.g. for a profiler). */
typedef std::vector < std::pair < std::string, std::function < Row () > > >
    Cases;

/* The formats of the rows at every size, and their two contents: random
 * frames (false) and solid ones (true). */
extern const Format *const kRowFormats[2];
extern const bool kContents[2];

/* Appends the row @name, measured by @run. */
void add_case (Cases & cases, const std::string & name,
    std::function < Row () > run);

/* The usual name of a row: "OP FORMAT SIZE[TAIL][ solid]" */
std::string case_name (const char *op, const Format & fmt, const Size & s,
    const char *tail, bool solid);

/* Each operation's file adds its rows; main calls them in this order,
 * which is the order of the table and the CSV. */
void add_gray_cases (Cases & cases);
void add_blur_cases (Cases & cases);
void add_hist_cases (Cases & cases);
void add_sum_cases (Cases & cases);
void add_profiles_cases (Cases & cases);
void add_read_cases (Cases & cases);

/* ---- output ----------------------------------------------------------- */

void print_header (void);
void print_row (const Row & r);
void write_csv_header (FILE * f);
void write_csv_row (FILE * f, const char *gpu, const Row & r);

#endif /* CUDAFILTERS_BENCH_KERNEL_BENCH_HARNESS_CUH */
