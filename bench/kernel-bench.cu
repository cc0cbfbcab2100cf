/* Kernel benchmark: each kernel on frames already in device memory, against
 * the memory-bandwidth floor measured in the same run, CUB where it does
 * the same work, the origin articles' kernels (bench/seeds.cu) and the CPU
 * reference.
 *
 *   kernel-bench [--csv FILE] [--reps N] [--only NAME-PART]
 *
 * Every row has a case name (main lists them); --only runs the rows whose
 * name contains NAME-PART, e.g. "sum RGBA 4K", "blur", "seed", or, with a
 * leading '=', the row of that exact name ("=sum RGBA 4K").  --only may
 * be given more than once: the rows that any of them picks, in the usual
 * order.
 *
 * Method.  Each kernel's output is checked against a CPU computation
 * first; a row that differs is reported on stderr, not timed, and makes
 * the program exit 1 at the end.  Then, after warm-up, with its inputs and
 * outputs rotated over enough frames (>= 200 MB, 4x the H100's L2) that
 * the cache cannot hold them (but for the previous frame's keys of the
 * sum rows with a difference: one buffer, as cudasum keeps them, and the
 * "cold-keys" rows rotated; bench_sum):
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
 *
 * CSV: a header line, then one line per row, fields not quoted:
 *   gpu,op,variant,format,width,height,content,bytes,launch_us,
 *   sustained_us,floor_us,copy_us,cpu_us
 * (the header on one line; times in microseconds, bytes as for the
 * floor) */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <cub/device/device_histogram.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/version.cuh>
#include <cuda_runtime.h>

#include "cudafilters-kernels.h"
#include "seeds.h"

#define CHECK(call) do {                                                   \
  cudaError_t e_ = (cudaError_t) (call);                                   \
  if (e_ != cudaSuccess) {                                                 \
    std::fprintf (stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
        cudaGetErrorName (e_));                                            \
    std::exit (2);                                                         \
  }                                                                        \
} while (0)

static int g_reps = 200;
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

/* Set by main: the copy bandwidth (bytes read + written per second) and
 * the generator of every frame's content. */
static double g_bandwidth;
static std::mt19937_64 g_rng;

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

[[noreturn]] static void mismatch (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2)));

static void
mismatch (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  std::vfprintf (stderr, fmt, ap);
  va_end (ap);
  std::fputc ('\n', stderr);
  throw Mismatch ();
}

/* ---- frames ----------------------------------------------------------- */

/* The frame formats of the rows: packed (bpp bytes per pixel) or NV12 (a
 * luma plane, then half-height rows of interleaved chroma pairs). */
struct Format
{
  const char *name;
  int bpp;
  bool nv12;
};

static const Format kRGBA = { "RGBA", 4, false }, kRGB = { "RGB", 3, false },
    kNV12 = { "NV12", 1, true }, kGRAY8 = { "GRAY8", 1, false };

static int
rows_of (const Format & fmt, int h)
{
  return fmt.nv12 ? h + (h + 1) / 2 : h;
}

/* The bytes of a frame without row padding */
static size_t
frame_bytes (const Format & fmt, int w, int h)
{
  return (size_t) w * fmt.bpp * rows_of (fmt, h);
}

static int
rotation_count (size_t bytes_per_frame)
{
  return (int) std::max < size_t > (2,
      (kRotateBytes + bytes_per_frame - 1) / bytes_per_frame);
}

/* Random bytes, eight from each draw: filling 8K frames a byte per draw
 * would take a good part of a second. */
static void
fill_random (std::vector < uint8_t > &bytes)
{
  for (size_t i = 0; i < bytes.size (); i += 8) {
    uint64_t r = g_rng ();
    std::memcpy (&bytes[i], &r, std::min < size_t > (8, bytes.size () - i));
  }
}

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
  void fill (bool solid)
  {
    host.assign (bytes (), 0);
    if (!solid) {
      fill_random (host);
    } else {
      /* one row of each kind, copied down the frame */
      uint8_t colour[4];
      for (auto & c:colour)
        c = (uint8_t) g_rng ();
      std::vector < uint8_t > top (row_bytes), bottom (row_bytes);
      for (size_t x = 0; x < row_bytes; x++) {
        top[x] = fmt.nv12 ? colour[0] : colour[x % fmt.bpp];
        bottom[x] = colour[1 + x % 2];  /* NV12's chroma rows */
      }
      for (int y = 0; y < rows; y++)
        std::memcpy (&host[y * pitch], y < height ? top.data () :
            bottom.data (), row_bytes);
    }
    CHECK (cudaMemcpy (ptr[0], host.data (), bytes (),
            cudaMemcpyHostToDevice));
    for (size_t i = 1; i < ptr.size (); i++)
      CHECK (cudaMemcpy (ptr[i], ptr[0], bytes (), cudaMemcpyDeviceToDevice));
  }
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

/* Fails the row where the first row_bytes bytes of some row of two
 * pitched host planes differ. */
static void
check_rows_equal (const char *what, const uint8_t * got, size_t got_pitch,
    const uint8_t * want, size_t want_pitch, size_t row_bytes, int rows)
{
  for (int y = 0; y < rows; y++)
    if (std::memcmp (got + y * got_pitch, want + y * want_pitch,
            row_bytes) != 0)
      mismatch ("%s: GPU differs from the CPU reference in row %d", what, y);
}

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

/* Median time in microseconds of launch(i), i = 0 .. reps-1, each bracketed
 * by its own pair of events, after `warmup` launches. */
static double
time_median_us (const Launch & launch, int reps, int warmup)
{
  std::vector < cudaEvent_t > ev (2 * reps);
  for (auto & e:ev)
    CHECK (cudaEventCreate (&e));
  for (int i = 0; i < warmup; i++)
    CHECK (launch (i));
  for (int i = 0; i < reps; i++) {
    CHECK (cudaEventRecord (ev[2 * i], 0));
    CHECK (launch (i));
    CHECK (cudaEventRecord (ev[2 * i + 1], 0));
  }
  CHECK (cudaDeviceSynchronize ());
  CHECK (cudaGetLastError ());
  std::vector < float >t (reps);
  for (int i = 0; i < reps; i++)
    CHECK (cudaEventElapsedTime (&t[i], ev[2 * i], ev[2 * i + 1]));
  for (auto & e:ev)
    CHECK (cudaEventDestroy (e));
  std::nth_element (t.begin (), t.begin () + reps / 2, t.end ());
  return 1000.0 * t[reps / 2];
}

/* Per-launch time of a batch: launch(i) for kPerBatch consecutive i between
 * one pair of events, divided by kPerBatch; median of `batches`. */
static double
time_sustained_us (const Launch & launch, int batches, int warmup)
{
  std::vector < float >t (batches);
  cudaEvent_t a, b;
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  for (int i = 0; i < warmup; i++)
    CHECK (launch (i));
  for (int k = 0; k < batches; k++) {
    CHECK (cudaEventRecord (a, 0));
    for (int i = 0; i < kPerBatch; i++)
      CHECK (launch (k * kPerBatch + i));
    CHECK (cudaEventRecord (b, 0));
    CHECK (cudaEventSynchronize (b));
    CHECK (cudaEventElapsedTime (&t[k], a, b));
  }
  CHECK (cudaGetLastError ());
  CHECK (cudaEventDestroy (a));
  CHECK (cudaEventDestroy (b));
  std::nth_element (t.begin (), t.begin () + batches / 2, t.end ());
  return 1000.0 * t[batches / 2] / kPerBatch;
}

/* Device-to-device copy bandwidth, counting bytes read plus written. */
static double
measure_copy_bandwidth (void)
{
  size_t bytes = 512u << 20;
  DeviceArray < uint8_t > a (bytes), b (bytes);
  CHECK (cudaMemset (a.ptr, 1, bytes));
  double us = time_median_us ([&](int) {
        return (int) cudaMemcpyAsync (b.ptr, a.ptr, bytes,
            cudaMemcpyDeviceToDevice, 0);
      }, 50, 5);
  return 2.0 * bytes / (us * 1e-6);
}

/* Per-launch time of a plain device copy moving @bytes in all (half read,
 * half written), rotated over 200 MB like the kernels' frames; measured
 * once per size. */
static double
same_traffic_copy_us (size_t bytes)
{
  static std::map < size_t, double >measured;
  auto known = measured.find (bytes);
  if (known != measured.end ())
    return known->second;
  size_t half = std::max < size_t > (1, bytes / 2);
  size_t slots = std::max < size_t > (2, kRotateBytes / half);
  DeviceArray < uint8_t > a (half * slots), b (half * slots);
  CHECK (cudaMemset (a.ptr, 7, half * slots));
  double us = time_median_us ([&](int i) {
        size_t o = (i % slots) * half;
        return (int) cudaMemcpyAsync (b.ptr + o, a.ptr + o, half,
            cudaMemcpyDeviceToDevice, 0);
      }, g_reps, kMaxWarmup);
  return measured[bytes] = us;
}

/* Fills a row's GPU times.  Our kernels and CUB's: --reps launches, the
 * sustained batches and the same-traffic copy.  A seed's rung: as many
 * launches as fit in kSeedSeconds (at least 3; only the first timed one
 * where even 3 do not fit), sustained only where 3 batches fit in
 * kSustainedSeconds, no copy. */
static void
time_row (Row & row, const Launch & launch, bool seed)
{
  CHECK (launch (0));           /* the first launch pays lazy loading */
  cudaEvent_t a, b;
  float ms;
  CHECK (cudaEventCreate (&a));
  CHECK (cudaEventCreate (&b));
  CHECK (cudaEventRecord (a, 0));
  CHECK (launch (1));
  CHECK (cudaEventRecord (b, 0));
  CHECK (cudaEventSynchronize (b));
  CHECK (cudaEventElapsedTime (&ms, a, b));
  CHECK (cudaEventDestroy (a));
  CHECK (cudaEventDestroy (b));
  double once_s = std::max (1e-6, ms * 1e-3);

  int warmup = (int) std::min < double >(kMaxWarmup,
      std::ceil (kWarmupSeconds / once_s));
  int reps = g_reps;
  if (seed)
    reps = 3 * once_s > kSeedSeconds ? 0 :
        (int) std::clamp < double >(kSeedSeconds / once_s,
        std::min (3, g_reps), g_reps);
  row.launch_us = reps ? time_median_us (launch, reps, warmup) : 1e6 * once_s;

  int batches = (int) std::min < double >(kMaxBatches,
      kSustainedSeconds / (kPerBatch * once_s));
  if (!seed)
    batches = std::max (batches, 3);
  if (batches >= 3)
    row.sustained_us = time_sustained_us (launch, batches, warmup);
  row.floor_us = row.bytes / g_bandwidth * 1e6;
  if (!seed)
    row.copy_us = same_traffic_copy_us ((size_t) row.bytes);
}

static double
seconds_of (const std::function < void () > &run)
{
  auto start = std::chrono::steady_clock::now ();
  run ();
  return std::chrono::duration < double >(std::chrono::steady_clock::now ()
      - start).count ();
}

/* The cpu column: `first_s` is the run whose result was just checked; more
 * runs while all fit in kCpuSeconds (at most kCpuMaxRuns); the median, in
 * microseconds. */
static double
cpu_median_us (double first_s, const std::function < void () > &run)
{
  int runs = (int) std::clamp < double >(kCpuSeconds / std::max (first_s,
          1e-6), 1, kCpuMaxRuns);
  std::vector < double >t = { first_s };
  for (int i = 1; i < runs; i++)
    t.push_back (seconds_of (run));
  std::nth_element (t.begin (), t.begin () + runs / 2, t.end ());
  return 1e6 * t[runs / 2];
}

static Row
make_row (const std::string & op, const std::string & variant,
    const Format & fmt, int w, int h, bool solid, double bytes)
{
  Row row;
  row.op = op;
  row.variant = variant;
  row.format = fmt.name;
  row.width = w;
  row.height = h;
  row.solid = solid;
  row.bytes = bytes;
  return row;
}

/* "what" of the error messages: the row as the table shows it */
static std::string
describe (const Row & row)
{
  char s[160];
  std::snprintf (s, sizeof s, "%s %s %s %dx%d%s", row.op.c_str (),
      row.variant.c_str (), row.format.c_str (), row.width, row.height,
      row.solid ? " solid" : "");
  return s;
}

/* ---- gray (map) -------------------------------------------------------- */

/* Packed RGB(A) to GRAY8, or NV12's luma plane copied out as the element
 * does. */
static Row
bench_gray (int w, int h, const Format & fmt, bool solid)
{
  bool luma = fmt.nv12;
  const CfPackedLayout layout = { fmt.bpp, 0, 1, 2 };
  size_t in_bytes = (size_t) w * fmt.bpp * h;   /* NV12: the luma plane */
  Row row = make_row ("gray", "ours", fmt, w, h, solid,
      (double) (in_bytes + (size_t) w * h));
  if (luma)
    row.note = "luma copy";
  std::string what = describe (row);
  int n = rotation_count ((size_t) row.bytes);
  Frames in (n, fmt, w, h), out (n, kGRAY8, w, h);
  in.fill (solid);

  Launch launch =[&](int i) {
    if (luma)
      return cf_copy_plane (in[i], in.pitch, out[i], out.pitch, w, h,
          nullptr);
    return cf_gray_from_packed (in[i], in.pitch, out[i], out.pitch, w, h,
        layout, CF_GRAY_MATRIX_BT709, nullptr);
  };
  out.poison (0);
  CHECK (launch (0));
  std::vector < uint8_t > got = out.download (0), want (out.bytes ());
  /* cf_copy_plane's reference is a row-by-row memcpy */
  auto reference =[&] {
    if (luma)
      for (int y = 0; y < h; y++)
        std::memcpy (&want[y * out.pitch], &in.host[y * in.pitch], w);
    else
      cf_ref_gray_from_packed (in.host.data (), in.pitch, want.data (),
          out.pitch, w, h, layout, CF_GRAY_MATRIX_BT709);
  };
  double first_s = seconds_of (reference);
  check_rows_equal (what.c_str (), got.data (), out.pitch, want.data (),
      out.pitch, w, h);
  row.cpu_us = cpu_median_us (first_s, reference);
  time_row (row, launch, false);
  return row;
}

/* ---- blur (stencil) ---------------------------------------------------- */

/* One plane of a blurred frame: what the GPU read and wrote (host copies),
 * and the kernels it was given. */
struct BlurPlane
{
  const uint8_t *src;
  size_t src_pitch;
  const uint8_t *got;
  size_t got_pitch;
  int w, h, channels;
  const CfBlurKernel *kx, *ky;
};

static const uint8_t kNoBorderValue[4] = { 0, 0, 0, 0 };

/* Multiply-adds of cf_ref_blur_plane on cols x rows: its horizontal pass
 * covers ky's radius more rows on each side. */
static double
blur_reference_work (const BlurPlane & p, int cols, int rows)
{
  return (double) p.channels * cols * ((double) (rows + 2 * p.ky->radius) *
      (2 * p.kx->radius + 1) + (double) rows * (2 * p.ky->radius + 1));
}

/* Output tile [x0, x0 + tw) x [y0, y0 + th) checked against the reference
 * run on the region it depends on: the tile and the radius more on each
 * side that is not the frame's border, so that every tile pixel is exact.
 * Adds the reference's seconds and work to *seconds and *work. */
static void
check_blur_tile (const char *what, const BlurPlane & p, int x0, int y0,
    int tw, int th, double *seconds, double *work)
{
  int xa = std::max (0, x0 - p.kx->radius);
  int xb = std::min (p.w, x0 + tw + p.kx->radius);
  int ya = std::max (0, y0 - p.ky->radius);
  int yb = std::min (p.h, y0 + th + p.ky->radius);
  size_t c = p.channels, pitch = (size_t) (xb - xa) * c;
  std::vector < uint8_t > want (pitch * (yb - ya));
  *seconds += seconds_of ([&] {
        cf_ref_blur_plane (p.src + ya * p.src_pitch + xa * c, p.src_pitch,
            want.data (), pitch, xb - xa, yb - ya, p.channels, p.kx, p.ky,
            CF_BORDER_REPLICATE, kNoBorderValue);
      });
  *work += blur_reference_work (p, xb - xa, yb - ya);
  for (int y = y0; y < y0 + th; y++)
    if (std::memcmp (p.got + y * p.got_pitch + x0 * c,
            &want[(y - ya) * pitch + (x0 - xa) * c], tw * c) != 0)
      mismatch ("%s: GPU differs from the CPU reference in row %d "
          "(tile at x %d)", what, y, x0);
}

/* The four corners and the centre of a plane: every border and the
 * interior. */
static void
for_each_tile (int w, int h, int tw, int th,
    const std::function < void (int, int) > &tile)
{
  const int xs[3] = { 0, (w - tw) / 2, w - tw };
  const int ys[3] = { 0, (h - th) / 2, h - th };
  const int pick[5][2] = { {0, 0}, {2, 0}, {0, 2}, {2, 2}, {1, 1} };
  for (auto & k:pick)
    tile (xs[k[0]], ys[k[1]]);
}

/* Checks a blurred frame against cf_ref_blur_plane; returns the cpu column.
 * First on tiles of 64 x 16 pixels, which also measure how fast the
 * reference goes.  If the whole frame is estimated to take at most
 * kCpuLongestRun, it is checked whole and timed; else the tiles are the
 * check and the note gives the estimate. */
static double
check_blur_frame (const char *what, const std::vector < BlurPlane > &planes,
    std::string & note)
{
  double tile_s = 0, tile_work = 0, frame_work = 0;
  for (auto & p:planes) {
    int tw = std::min (64, p.w), th = std::min (16, p.h);
    for_each_tile (p.w, p.h, tw, th,[&](int x0, int y0) {
          check_blur_tile (what, p, x0, y0, tw, th, &tile_s, &tile_work);
        });
    frame_work += blur_reference_work (p, p.w, p.h);
  }
  double estimate_s = tile_s / tile_work * frame_work;
  if (estimate_s > kCpuLongestRun) {
    char s[96];
    std::snprintf (s, sizeof s, "%sCPU ~%.0f s (estimated): checked on "
        "tiles, not timed", note.empty ()? "" : "; ", estimate_s);
    note += s;
    return kNone;
  }
  std::vector < std::vector < uint8_t > >want (planes.size ());
  auto reference =[&] {
    for (size_t i = 0; i < planes.size (); i++) {
      const BlurPlane & p = planes[i];
      want[i].resize ((size_t) p.w * p.channels * p.h);
      cf_ref_blur_plane (p.src, p.src_pitch, want[i].data (),
          (size_t) p.w * p.channels, p.w, p.h, p.channels, p.kx, p.ky,
          CF_BORDER_REPLICATE, kNoBorderValue);
    }
  };
  double first_s = seconds_of (reference);
  for (size_t i = 0; i < planes.size (); i++) {
    const BlurPlane & p = planes[i];
    check_rows_equal (what, p.got, p.got_pitch, want[i].data (),
        (size_t) p.w * p.channels, (size_t) p.w * p.channels, p.h);
  }
  return cpu_median_us (first_s, reference);
}

/* The blur cudablur runs on a frame: RGBA as one plane of 4 channels; NV12
 * as its luma plane, and its chroma plane (2 channels, half the size) with
 * half the sigma, as cudablur does for subsampled planes. */
static Row
bench_blur (int w, int h, const Format & fmt, double sigma, bool solid)
{
  struct Plane
  {
    int first_row, w, h, channels;
    CfBlurKernel kx, ky;
  };
  std::vector < Plane > geometry;
  geometry.push_back ({0, w, h, fmt.nv12 ? 1 : fmt.bpp, {}, {}});
  if (fmt.nv12)
    geometry.push_back ({h, (w + 1) / 2, (h + 1) / 2, 2, {}, {}});
  for (size_t i = 0; i < geometry.size (); i++) {
    double s = i ? sigma / 2 : sigma;
    int r = cf_blur_radius_for_sigma (s);
    cf_blur_kernel_make (s, r, CF_BLUR_H_BITS, &geometry[i].kx);
    cf_blur_kernel_make (s, r, CF_BLUR_V_BITS, &geometry[i].ky);
  }

  char op[32];
  std::snprintf (op, sizeof op, "blur s%g", sigma);
  size_t bytes = 2 * frame_bytes (fmt, w, h);
  Row row = make_row (op, "ours", fmt, w, h, solid, (double) bytes);
  row.note = "r" + std::to_string (geometry[0].kx.radius);
  if (fmt.nv12)
    row.note += ", chroma r" + std::to_string (geometry[1].kx.radius);
  std::string what = describe (row);
  int n = rotation_count (bytes);
  Frames in (n, fmt, w, h), out (n, fmt, w, h);
  in.fill (solid);
  size_t scratch_bytes = 0;
  for (auto & g:geometry)
    scratch_bytes = std::max (scratch_bytes,
        cf_blur_scratch_bytes (g.w, g.h, g.channels));
  DeviceArray < uint8_t > scratch (scratch_bytes);

  /* the planes take turns with the scratch on the one stream */
  Launch launch =[&](int i) {
    int err = 0;
    for (auto & g:geometry)
      if (!err)
        err = cf_blur_plane (in[i] + g.first_row * in.pitch, in.pitch,
            out[i] + g.first_row * out.pitch, out.pitch, g.w, g.h,
            g.channels, &g.kx, &g.ky, CF_BORDER_REPLICATE, kNoBorderValue,
            scratch.ptr, nullptr);
    return err;
  };
  out.poison (0);
  CHECK (launch (0));
  std::vector < uint8_t > got = out.download (0);
  std::vector < BlurPlane > planes;
  for (auto & g:geometry)
    planes.push_back ({&in.host[g.first_row * in.pitch], in.pitch,
            &got[g.first_row * out.pitch], out.pitch, g.w, g.h, g.channels,
            &g.kx, &g.ky});
  row.cpu_us = check_blur_frame (what.c_str (), planes, row.note);
  time_row (row, launch, false);
  return row;
}

/* The origin article's blur (seeds/001) on an RGBA frame, its (2r+1)^2
 * float weights the products of the sampled, normalised Gaussian.  Its
 * rounding is not ours: checked on tiles against the same sums in double
 * precision, within 1. */
static Row
bench_blur_direct (int w, int h, double sigma)
{
  int r = cf_blur_radius_for_sigma (sigma), k = 2 * r + 1;
  std::vector < float >weights (k * k);
  std::vector < double >g (k);
  double sum = 0;
  for (int i = -r; i <= r; i++)
    sum += g[i + r] = std::exp (-i * i / (2 * sigma * sigma));
  for (int j = 0; j < k; j++)
    for (int i = 0; i < k; i++)
      weights[j * k + i] = (float) (g[j] * g[i] / (sum * sum));

  char op[32];
  std::snprintf (op, sizeof op, "blur s%g", sigma);
  size_t bytes = 2 * frame_bytes (kRGBA, w, h);
  Row row = make_row (op, "seed: direct 2D stencil", kRGBA, w, h, false,
      (double) bytes);
  row.note = "r" + std::to_string (r) + "; float, checked within 1 on tiles";
  std::string what = describe (row);
  int n = rotation_count (bytes);
  Frames in (n, kRGBA, w, h), out (n, kRGBA, w, h);
  in.fill (false);
  DeviceArray < float >d_weights (weights.size ());
  CHECK (cudaMemcpy (d_weights.ptr, weights.data (),
          weights.size () * sizeof (float), cudaMemcpyHostToDevice));

  Launch launch =[&](int i) {
    return seed_blur_direct_rgba (in[i], in.pitch, out[i], out.pitch, w, h,
        d_weights.ptr, r);
  };
  out.poison (0);
  CHECK (launch (0));
  std::vector < uint8_t > got = out.download (0);
  for_each_tile (w, h, 64, 16,[&](int x0, int y0) {
        for (int y = y0; y < y0 + 16; y++)
          for (int x = x0; x < x0 + 64; x++)
            for (int c = 0; c < 4; c++) {
              double acc = 0;
              for (int j = -r; j <= r; j++)
                for (int i = -r; i <= r; i++) {
                  int yy = std::clamp (y + j, 0, h - 1);
                  int xx = std::clamp (x + i, 0, w - 1);
                  acc += weights[(j + r) * k + i + r] *
                      (double) in.host[yy * in.pitch + xx * 4 + c];
                }
              int want = std::clamp ((int) std::floor (acc + 0.5), 0, 255);
              int have = got[y * out.pitch + x * 4 + c];
              if (std::abs (have - want) > 1)
                mismatch ("%s: pixel (%d, %d) channel %d is %d, the CPU's "
                    "%d", what.c_str (), x, y, c, have, want);
            }
      });
  time_row (row, launch, true);
  return row;
}

/* ---- hist (atomics) ---------------------------------------------------- */

enum HistImpl
{
  HIST_OURS,                    /* cf_hist_planes_add, as cudahist runs it */
  HIST_OURS_LAST_BLOCK,         /* cf_hist_planes, one launch to final counts */
  HIST_CUB,                     /* DeviceHistogram::MultiHistogramEven */
  HIST_SEED_GLOBAL,
  HIST_SEED_SHARED,
};

static const char *const kHistVariant[] = { "ours", "ours, last block",
  "CUB",
  "seed: global atomics", "seed: shared atomics"
};

/* The planes the histograms and statistics read from a frame: packed, or
 * NV12's luma (channel 0) and chroma (channels 1 and 2). */
static int
sample_planes (const Format & fmt, const uint8_t * frame, size_t pitch, int w,
    int h, CfSamplePlane * planes)
{
  planes[0] = CfSamplePlane { frame, pitch, w, h, fmt.bpp,
      {0, fmt.bpp > 1 ? 1 : -1, fmt.bpp > 2 ? 2 : -1, fmt.bpp > 3 ? 3 : -1} };
  if (!fmt.nv12)
    return 1;
  planes[1] = CfSamplePlane { frame + pitch * h, pitch, (w + 1) / 2,
      (h + 1) / 2, 2, {1, 2, -1, -1} };
  return 2;
}

/* CUB's 256 bins of width 1 from 0 for each of the C channels of a packed
 * plane: the arrays its API takes.  CCCL 3 (CUDA 13) takes them as
 * cuda::std::arrays and deprecates the C arrays that CCCL 2 (CUDA 12)
 * takes. */
template < int C > static int
cub_histograms (void *temp, size_t & temp_bytes, const uint8_t * plane,
    size_t pitch, int w, int h, int *counts)
{
#if CUB_VERSION >= 300000
  ::cuda::std::array < int *, C > hist;
  ::cuda::std::array < int, C > levels, lower, upper;
#else
  int *hist[C];
  int levels[C], lower[C], upper[C];
#endif
  for (int c = 0; c < C; c++) {
    hist[c] = counts + c * CF_HIST_BINS;
    levels[c] = CF_HIST_BINS + 1;
    lower[c] = 0;
    upper[c] = CF_HIST_BINS;
  }
  return cub::DeviceHistogram::MultiHistogramEven < C, C > (temp, temp_bytes,
      plane, hist, levels, lower, upper, w, h, pitch);
}

/* Histograms of every channel: ours (cf_hist_planes), CUB's, or a seed's
 * rung (packed frames of 1 or 4 bytes per pixel, without row padding). */
static Row
bench_hist (int w, int h, const Format & fmt, bool solid, HistImpl impl)
{
  bool seed = impl == HIST_SEED_GLOBAL || impl == HIST_SEED_SHARED;
  size_t bytes = frame_bytes (fmt, w, h);
  Row row = make_row ("hist", kHistVariant[impl], fmt, w, h, solid,
      (double) bytes);
  std::string what = describe (row);
  if (seed && (fmt.nv12 || (fmt.bpp != 1 && fmt.bpp != 4))) {
    std::fprintf (stderr, "%s: the seeds take packed frames of 1 or 4 "
        "bytes per pixel\n", what.c_str ());
    std::exit (2);
  }
  Frames in (rotation_count (bytes), fmt, w, h, seed);
  in.fill (solid);

  /* the CPU's counts: the check of every variant, the cpu column of ours */
  const int nc = CF_HIST_MAX_CHANNELS * CF_HIST_BINS;
  std::vector < uint32_t > want (nc);
  CfSamplePlane hp[CF_HIST_MAX_PLANES];
  int np = sample_planes (fmt, in.host.data (), in.pitch, w, h, hp);
  auto reference =[&] {
    cf_ref_hist_planes (hp, np, want.data ());
  };
  double first_s = seconds_of (reference);
  if (impl == HIST_OURS)
    row.cpu_us = cpu_median_us (first_s, reference);

  DeviceArray < uint32_t > counts (nc);
  DeviceArray < uint8_t > ws (cf_hist_workspace_bytes ());
  CHECK (cf_hist_workspace_init (ws.ptr, nullptr));
  /* cf_hist_planes_add's sums: launch n adds into buffer n % 3 and zeroes
   * buffer (n + 1) % 3, as cudahist does (with 4 buffers, each copied to
   * the host on a stream of its own, which is not timed here) */
  const size_t sums_bytes = cf_hist_sums_bytes ();
  DeviceArray < uint8_t > sums (3 * sums_bytes);
  int add_launches = 0;
  DeviceArray < int >cub_counts (nc);
  size_t temp_bytes = 0;
  /* CUB's channels: a packed frame's, or NV12's luma then chroma pair, in
   * the order of ours */
  auto cub_launch =[&](void *temp, int i) {
    if (!fmt.nv12) {
      switch (fmt.bpp) {
        case 1:
          return cub_histograms < 1 > (temp, temp_bytes, in[i], in.pitch, w,
              h, cub_counts.ptr);
        case 3:
          return cub_histograms < 3 > (temp, temp_bytes, in[i], in.pitch, w,
              h, cub_counts.ptr);
        default:
          return cub_histograms < 4 > (temp, temp_bytes, in[i], in.pitch, w,
              h, cub_counts.ptr);
      }
    }
    size_t luma_bytes = temp_bytes;
    int err = cub_histograms < 1 > (temp, luma_bytes, in[i], in.pitch, w, h,
        cub_counts.ptr);
    if (!err)
      err = cub_histograms < 2 > (temp, temp_bytes, in[i] + in.pitch * h,
          in.pitch, (w + 1) / 2, (h + 1) / 2,
          cub_counts.ptr + CF_HIST_BINS);
    if (!temp)
      temp_bytes = std::max (temp_bytes, luma_bytes);
    return err;
  };
  if (impl == HIST_CUB)
    CHECK (cub_launch (nullptr, 0));
  DeviceArray < uint8_t > temp (std::max < size_t > (1, temp_bytes));

  Launch launch;
  switch (impl) {
    case HIST_OURS_LAST_BLOCK:
      launch =[&](int i) {
        CfSamplePlane p[CF_HIST_MAX_PLANES];
        int k = sample_planes (fmt, in[i], in.pitch, w, h, p);
        return cf_hist_planes (p, k, counts.ptr, ws.ptr, nullptr);
      };
      break;
    case HIST_OURS:
      launch =[&](int i) {
        CfSamplePlane p[CF_HIST_MAX_PLANES];
        int k = sample_planes (fmt, in[i], in.pitch, w, h, p);
        const int n = add_launches++;
        return cf_hist_planes_add (p, k, sums.ptr + (n % 3) * sums_bytes,
            sums.ptr + ((n + 1) % 3) * sums_bytes, nullptr);
      };
      break;
    case HIST_CUB:
      launch =[&](int i) {
        return cub_launch (temp.ptr, i);
      };
      break;
    default:
      /* zeroing the counts is part of a frame's work, as it is in ours */
      launch =[&](int i) {
        int err = cudaMemsetAsync (counts.ptr, 0, nc * sizeof (uint32_t), 0);
        if (!err)
          err = impl == HIST_SEED_GLOBAL ?
              seed_hist_global_atomics (in[i], bytes, fmt.bpp, counts.ptr) :
              seed_hist_shared_atomics (in[i], bytes, fmt.bpp, counts.ptr);
        return err;
      };
  }

  /* a channel no plane counts is 0 in ours, absent from CUB's and the
   * seeds' */
  int channels = fmt.nv12 ? 3 : fmt.bpp;
  counts.poison ();
  cub_counts.poison ();
  if (impl == HIST_OURS) {
    /* the first launch's buffer zeroed, the others poisoned: each launch
     * zeroes the next */
    sums.poison ();
    CHECK (cudaMemset (sums.ptr, 0, sums_bytes));
  }
  CHECK (launch (0));
  if (impl == HIST_OURS) {
    std::vector < uint8_t > host = sums.download ();
    std::vector < uint32_t > got (nc);
    cf_hist_sums_counts (host.data (), got.data ());
    check_values_equal (what.c_str (), "counts", got.data (), want.data (),
        nc);
    CHECK (launch (1));
    host = sums.download ();
    cf_hist_sums_counts (host.data () + sums_bytes, got.data ());
    check_values_equal (what.c_str (), "second launch's counts", got.data (),
        want.data (), nc);
  } else if (impl == HIST_CUB)
    check_values_equal (what.c_str (), "counts", cub_counts.download ().data (),
        want.data (), channels * CF_HIST_BINS);
  else
    check_values_equal (what.c_str (), "counts", counts.download ().data (),
        want.data (), impl == HIST_OURS_LAST_BLOCK ? nc :
        channels * CF_HIST_BINS);
  time_row (row, launch, seed);
  return row;
}

/* ---- sum (reduction) --------------------------------------------------- */

/* What a sum row times: cf_sum_planes, or a baseline adding up all the
 * bytes of a frame without row padding into one total (not per channel, no
 * key). */
enum SumImpl
{
  SUM_OURS,                     /* cf_sum_planes_add, as cudasum runs it */
  SUM_OURS_LAST_BLOCK,          /* cf_sum_planes */
  SUM_CUB,                      /* DeviceReduce::Sum */
  SUM_SEED_ONE_THREAD,
  SUM_SEED_ONE_BLOCK,
  SUM_SEED_MANY_BLOCKS,
  SUM_SEED_BLOCK_TREE,
};

static const char *const kSumVariant[] = { "ours", "ours, last block", "CUB",
  "seed: one thread",
  "seed: one block + atomics", "seed: many blocks + atomics",
  "seed: block tree (16x256)"
};

/* Prints every field where got differs from want; true when none does. */
static bool
sum_stats_equal (const char *what, const CfSumStats & got,
    const CfSumStats & want)
{
  bool ok = true;
  auto cmp =[&](const char *field, int c, unsigned long long g,
      unsigned long long r) {
    if (g != r) {
      std::fprintf (stderr, "%s: %s[%d] is %llu, the CPU reference %llu\n",
          what, field, c, g, r);
      ok = false;
    }
  };
  for (int c = 0; c < CF_HIST_MAX_CHANNELS; c++) {
    cmp ("sum", c, got.sum[c], want.sum[c]);
    cmp ("sum_squares", c, got.sum_squares[c], want.sum_squares[c]);
    cmp ("min", c, got.min[c], want.min[c]);
    cmp ("max", c, got.max[c], want.max[c]);
  }
  cmp ("black", 0, got.black, want.black);
  cmp ("abs_diff", 0, got.abs_diff, want.abs_diff);
  return ok;
}

/* A sum row's op: "sum", "sum all", or the flags joined, "sum+profiles" */
static std::string
sum_op (unsigned flags)
{
  const unsigned all = CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF |
      CF_SUM_KEEP;
  if (flags == all)
    return "sum all";
  const char *names[] = { "profiles", "black", "diff", "keep" };
  std::string op = "sum";
  for (int b = 0; b < 4; b++)
    if (flags & (1u << b))
      op += std::string ("+") + names[b];
  return op;
}

/* One total of all the bytes of the frames of `in` (no row padding): CUB's
 * DeviceReduce::Sum or a seed's rung, checked against the CPU's total. */
static void
time_byte_sum (Row & row, const Frames & in, SumImpl impl)
{
  std::string what = describe (row);
  size_t n = in.bytes ();
  unsigned long long want = 0;
  for (uint8_t b:in.host)
    want += b;
  DeviceArray < unsigned long long >total (1);
  size_t temp_bytes = 0;
  if (impl == SUM_CUB)
    CHECK (cub::DeviceReduce::Sum (nullptr, temp_bytes, in[0], total.ptr,
            (int) n));
  DeviceArray < uint8_t > temp (std::max < size_t > (1, temp_bytes));

  Launch launch =[&](int i) {
    if (impl == SUM_CUB)
      return (int) cub::DeviceReduce::Sum (temp.ptr, temp_bytes, in[i],
          total.ptr, (int) n);
    /* the seeds add to the total: zeroing it is part of a frame's work */
    int err = cudaMemsetAsync (total.ptr, 0, sizeof (unsigned long long), 0);
    const uint32_t *words = (const uint32_t *) in[i];
    if (err)
      return err;
    switch (impl) {
      case SUM_SEED_ONE_THREAD:
        return seed_sum_one_thread (words, n / 4, total.ptr);
      case SUM_SEED_ONE_BLOCK:
        return seed_sum_one_block_atomics (words, n / 4, total.ptr);
      case SUM_SEED_MANY_BLOCKS:
        return seed_sum_many_blocks_atomics (words, n / 4, total.ptr);
      default:
        return seed_sum_block_tree (words, n / 4, total.ptr);
    }
  };
  total.poison ();
  CHECK (launch (0));
  unsigned long long got = total.download ()[0];
  if (got != want)
    mismatch ("%s: the total is %llu, the CPU's %llu", what.c_str (), got,
        want);
  time_row (row, launch, impl != SUM_CUB);
}

/* Sums, squares, min and max of every channel, and the key statistics
 * `flags` ask for (BT.601 grey of RGB(A), the byte itself of NV12's luma
 * or GRAY8; black threshold 24).  The previous keys of DIFF and KEEP are
 * one buffer, read and rewritten by every launch, as cudasum keeps them,
 * so what of them L2 still holds from the launch before counts as it does
 * in the element; with cold_keys they rotate with the frames instead, and
 * are never in L2.  A baseline (CUB, seeds) times one total of all the
 * bytes of the same frames instead.  op: the row's op, when not the one
 * the flags name. */
static Row
bench_sum (int w, int h, const Format & fmt, bool solid, unsigned flags,
    SumImpl impl, const char *op = nullptr, bool cold_keys = false,
    bool percentiles = false)
{
  size_t fbytes = frame_bytes (fmt, w, h);
  if (impl != SUM_OURS && impl != SUM_OURS_LAST_BLOCK) {
    Row row = make_row ("sum", kSumVariant[impl], fmt, w, h, solid,
        (double) fbytes);
    row.note = "one total of all bytes";
    if (flags || fbytes % 4) {
      std::fprintf (stderr, "%s: the byte-sum baselines take no key, and "
          "whole 32-bit words\n", describe (row).c_str ());
      std::exit (2);
    }
    Frames in (rotation_count (fbytes), fmt, w, h, true);
    in.fill (solid);
    time_byte_sum (row, in, impl);
    return row;
  }

  bool prev = (flags & (CF_SUM_DIFF | CF_SUM_KEEP)) != 0;
  size_t prev_pitch = ((size_t) w + 15) / 16 * 16;
  size_t prev_bytes = prev_pitch * h;
  /* floor: the frame read, the previous keys read (DIFF) and the new ones
   * written (KEEP), the profiles written */
  size_t bytes = fbytes +
      ((flags & CF_SUM_DIFF) ? (size_t) w * h : 0) +
      ((flags & CF_SUM_KEEP) ? (size_t) w * h : 0) +
      ((flags & CF_SUM_PROFILES) ? sizeof (uint32_t) * ((size_t) w + h) : 0);
  /* the cold-keys rows are a variant of their own, so that the CSV and the
   * plots keep them apart from the rows with one keys buffer */
  Row row = make_row (op ? op : sum_op (flags),
      cold_keys ? "ours, keys cold" : kSumVariant[impl], fmt, w, h, solid,
      (double) bytes);
  if (cold_keys)
    row.note = "previous keys rotated";
  std::string what = describe (row);
  /* only rotated keys take a share of the bytes that the rotation spreads
   * over */
  int n = rotation_count (fbytes + (cold_keys ? prev_bytes : 0));
  Frames in (n, fmt, w, h);
  in.fill (solid);

  DeviceArray < CfSumStats > stats (1);
  DeviceArray < uint32_t > row_sums (h), column_sums (w);
  DeviceArray < uint8_t > ws (cf_sum_workspace_bytes (w, h));
  CHECK (cudaMemset (ws.ptr, 0, ws.count));
  /* cf_sum_planes_add's sums: launch n adds into buffer n % 3 and zeroes
   * buffer (n + 1) % 3, as cudasum does (with 4 buffers, each copied to
   * the host on a stream of its own, which is not timed here); the first
   * zeroed, the others poisoned until a launch zeroes them */
  const size_t sums_bytes = (cf_sum_workspace_bytes (w, h) + 255) / 256 * 256;
  DeviceArray < uint8_t > sums (3 * sums_bytes);
  sums.poison ();
  CHECK (cudaMemset (sums.ptr, 0, sums_bytes));
  /* with percentiles, cudasum runs cudahist's kernel over the frame before
   * the statistics (gstcudasum.c), into sums of its own: launch n adds
   * into buffer n % 3 and zeroes buffer (n + 1) % 3 */
  const size_t hist_bytes = (cf_hist_sums_bytes () + 255) / 256 * 256;
  DeviceArray < uint8_t > hist_sums (percentiles ? 3 * hist_bytes : 1);
  if (percentiles) {
    hist_sums.poison ();
    CHECK (cudaMemset (hist_sums.ptr, 0, hist_bytes));
  }
  int hist_launches = 0;
  auto launch_hist =[&](const CfSamplePlane * p, int k) {
    const int n = hist_launches++;
    return (int) cf_hist_planes_add (p, k, hist_sums.ptr + (n % 3) *
        hist_bytes, hist_sums.ptr + ((n + 1) % 3) * hist_bytes, nullptr);
  };
  int add_launches = 0;
  auto launch_ours =[&](const CfSamplePlane * p, int k, const CfSumKey * kk) {
    if (impl == SUM_OURS_LAST_BLOCK)
      return (int) cf_sum_planes (p, k, kk, stats.ptr, row_sums.ptr,
          column_sums.ptr, ws.ptr, nullptr);
    const int n = add_launches++;
    return (int) cf_sum_planes_add (p, k, kk, sums.ptr + (n % 3) * sums_bytes,
        sums.ptr + ((n + 1) % 3) * sums_bytes, sums_bytes, nullptr);
  };
  const int n_previous = cold_keys ? n : 1;
  DeviceArray < uint8_t > previous (prev ? n_previous * prev_bytes : 1);
  CHECK (cudaMemset (previous.ptr, 0, previous.count));
  auto previous_of =[&](int i) {
    return previous.ptr + (size_t) (i % n_previous) * prev_bytes;
  };

  CfGrayWeights gw = cf_gray_weights (CF_GRAY_MATRIX_BT601);
  CfSumKey key = { flags, {gw.kr, gw.kg, gw.kb, 0}, 24, nullptr, prev_pitch };
  if (fmt.bpp == 1) {
    /* one byte per pixel: the key is that byte, the weights unused */
    key.weights[0] = 65536;
    key.weights[1] = key.weights[2] = 0;
  }

  CfSamplePlane hp[CF_HIST_MAX_PLANES], dp[CF_HIST_MAX_PLANES];
  int np = sample_planes (fmt, in.host.data (), in.pitch, w, h, hp);
  sample_planes (fmt, in[0], in.pitch, w, h, dp);
  CfSumStats want, got;
  std::vector < uint8_t > prev_want, prev_got (prev ? prev_bytes : 0);
  if (prev) {
    /* `previous` holds keys: KEEP those of another frame first, so that
     * DIFF has something to differ from */
    std::vector < uint8_t > other (in.bytes ());
    fill_random (other);
    DeviceArray < uint8_t > d_other (other.size ());
    CHECK (cudaMemcpy (d_other.ptr, other.data (), other.size (),
            cudaMemcpyHostToDevice));
    prev_want.assign (prev_bytes, 0);
    CfSumKey keep = key;
    keep.flags = CF_SUM_KEEP;
    keep.previous = prev_want.data ();
    CfSamplePlane other_pl[CF_HIST_MAX_PLANES];
    sample_planes (fmt, other.data (), in.pitch, w, h, other_pl);
    cf_ref_sum_planes (other_pl, np, &keep, &want, nullptr, nullptr);
    keep.previous = previous_of (0);
    sample_planes (fmt, d_other.ptr, in.pitch, w, h, other_pl);
    stats.poison ();
    CHECK (cf_sum_planes (other_pl, np, &keep, stats.ptr, nullptr, nullptr,
            ws.ptr, nullptr));
    CHECK (cudaMemcpy (&got, stats.ptr, sizeof got, cudaMemcpyDeviceToHost));
    if (!sum_stats_equal (what.c_str (), got, want))
      mismatch ("%s: the statistics of KEEP differ", what.c_str ());
    CHECK (cudaMemcpy (prev_got.data (), previous_of (0), prev_bytes,
            cudaMemcpyDeviceToHost));
    check_rows_equal (what.c_str (), prev_got.data (), prev_pitch,
        prev_want.data (), prev_pitch, w, h);
  }

  /* correct first: frame 0 against the CPU reference */
  std::vector < uint32_t > rows_want (h), cols_want (w);
  CfSumKey hkey = key;
  hkey.previous = prev ? prev_want.data () : nullptr;
  auto reference =[&] {
    cf_ref_sum_planes (hp, np, &hkey, &want, rows_want.data (),
        cols_want.data ());
  };
  double first_s = seconds_of (reference);
  CfSumKey dkey = key;
  dkey.previous = prev ? previous_of (0) : nullptr;
  /* twice where the result does not change, so a workspace not left zeroed
   * shows */
  for (int run = 0; run < ((flags & CF_SUM_KEEP) ? 1 : 2); run++) {
    stats.poison ();
    row_sums.poison ();
    column_sums.poison ();
    CHECK (launch_ours (dp, np, &dkey));
    std::vector < uint32_t > rows_got (h), cols_got (w);
    if (impl == SUM_OURS) {
      std::vector < uint8_t > host (sums_bytes);
      CHECK (cudaMemcpy (host.data (), sums.ptr + ((add_launches - 1) % 3) *
              sums_bytes, sums_bytes, cudaMemcpyDeviceToHost));
      const uint32_t *r = cf_sum_sums_read (host.data (), &got);
      std::copy (r, r + h, rows_got.begin ());
      std::copy (r + h, r + h + w, cols_got.begin ());
    } else {
      CHECK (cudaMemcpy (&got, stats.ptr, sizeof got,
              cudaMemcpyDeviceToHost));
      rows_got = row_sums.download ();
      cols_got = column_sums.download ();
    }
    if (!sum_stats_equal (what.c_str (), got, want))
      mismatch ("%s: the statistics differ", what.c_str ());
    if (flags & CF_SUM_PROFILES) {
      check_values_equal (what.c_str (), "row_sums", rows_got.data (),
          rows_want.data (), h);
      check_values_equal (what.c_str (), "column_sums", cols_got.data (),
          cols_want.data (), w);
    }
    if (flags & CF_SUM_KEEP) {
      CHECK (cudaMemcpy (prev_got.data (), previous_of (0), prev_bytes,
              cudaMemcpyDeviceToHost));
      check_rows_equal (what.c_str (), prev_got.data (), prev_pitch,
          prev_want.data (), prev_pitch, w, h);
    }
  }
  if (percentiles) {
    const int nc = CF_HIST_MAX_CHANNELS * CF_HIST_BINS;
    std::vector < uint32_t > counts_want (nc), counts_got (nc);
    cf_ref_hist_planes (hp, np, counts_want.data ());
    CHECK (launch_hist (dp, np));
    std::vector < uint8_t > host = hist_sums.download ();
    cf_hist_sums_counts (host.data (), counts_got.data ());
    check_values_equal (what.c_str (), "percentiles' counts",
        counts_got.data (), counts_want.data (), nc);
  }
  /* only now: runs again of KEEP overwrite prev_want */
  row.cpu_us = cpu_median_us (first_s, reference);

  Launch launch =[&](int i) {
    CfSamplePlane p[CF_HIST_MAX_PLANES];
    int k = sample_planes (fmt, in[i], in.pitch, w, h, p);
    CfSumKey kk = key;
    if (prev)
      kk.previous = previous_of (i);
    int err = percentiles ? launch_hist (p, k) : 0;
    if (!err)
      err = launch_ours (p, k, &kk);
    return err;
  };
  time_row (row, launch, false);
  return row;
}

/* ---- profiles: the matrix-vector article ------------------------------- */

enum ProfileRung
{
  PROFILE_NAIVE_ROWS,
  PROFILE_COALESCED_COLUMNS,
  PROFILE_BLOCK_PER_ROW,
  PROFILE_WARP_PER_ROW,
};

static const char *const kProfileVariant[] = { "seed: naive rows",
  "seed: coalesced columns", "seed: block per row", "seed: warp per row"
};

/* One of the article's kernel shapes (seeds/003) on a GRAY8 plane: its
 * row sums, or its column sums, checked against those of
 * cf_ref_sum_planes.  (Ours is the "profiles" row of bench_sum: both, and
 * the statistics, in one pass.) */
static Row
bench_profiles_seed (int w, int h, ProfileRung rung)
{
  bool columns = rung == PROFILE_COALESCED_COLUMNS;
  int sums = columns ? w : h;
  size_t bytes = (size_t) w * h + sizeof (uint32_t) * sums;
  Row row = make_row ("profiles", kProfileVariant[rung], kGRAY8, w, h, false,
      (double) bytes);
  row.note = columns ? "column sums only" : "row sums only";
  std::string what = describe (row);
  Frames in (rotation_count (bytes), kGRAY8, w, h);
  in.fill (false);

  CfSamplePlane hp[CF_HIST_MAX_PLANES];
  int np = sample_planes (kGRAY8, in.host.data (), in.pitch, w, h, hp);
  CfSumKey key = { CF_SUM_PROFILES, {65536, 0, 0, 0}, 24, nullptr, 0 };
  CfSumStats stats;
  std::vector < uint32_t > rows_want (h), cols_want (w);
  cf_ref_sum_planes (hp, np, &key, &stats, rows_want.data (),
      cols_want.data ());

  DeviceArray < uint32_t > out (sums);
  Launch launch =[&](int i) {
    switch (rung) {
      case PROFILE_NAIVE_ROWS:
        return seed_row_sums_thread_per_row (in[i], in.pitch, w, h, out.ptr);
      case PROFILE_COALESCED_COLUMNS:
        return seed_column_sums_thread_per_column (in[i], in.pitch, w, h,
            out.ptr);
      case PROFILE_BLOCK_PER_ROW:
        return seed_row_sums_block_per_row (in[i], in.pitch, w, h, out.ptr);
      default:
        return seed_row_sums_warp_per_row (in[i], in.pitch, w, h, out.ptr);
    }
  };
  out.poison ();
  CHECK (launch (0));
  check_values_equal (what.c_str (), columns ? "column_sums" : "row_sums",
      out.download ().data (), columns ? cols_want.data () : rows_want.data (),
      sums);
  time_row (row, launch, true);
  return row;
}

/* ---- output ------------------------------------------------------------ */

/* A time or ratio for the table: a dash when not measured */
static std::string
cell (double v, int width, int decimals)
{
  char s[32];
  if (std::isnan (v))
    std::snprintf (s, sizeof s, "%*s", width, "-");
  else
    std::snprintf (s, sizeof s, "%*.*f", width, decimals, v);
  return s;
}

/* A time for the CSV: empty when not measured */
static std::string
csv_time (double v)
{
  char s[32];
  if (std::isnan (v))
    return "";
  std::snprintf (s, sizeof s, "%.3f", v);
  return s;
}

/* Text for a CSV field: the fields are not quoted, so no commas */
static std::string
csv_text (std::string s)
{
  std::replace (s.begin (), s.end (), ',', ';');
  std::replace (s.begin (), s.end (), '"', '\'');
  return s;
}

static void
print_header (void)
{
  std::printf ("\n%-18s %-27s %-5s %-9s %-6s %6s | %8s %6s | %9s %6s | "
      "%8s | %8s %6s | %11s %7s | %s\n", "op", "variant", "fmt", "size",
      "data", "MB", "launch", "xfloor", "sustained", "xfloor", "floor",
      "copy", "xcopy", "cpu", "cpu/gpu", "note");
}

static void
print_row (const Row & r)
{
  char size[32];
  std::snprintf (size, sizeof size, "%dx%d", r.width, r.height);
  std::printf ("%-18s %-27s %-5s %-9s %-6s %6.1f | %s %s | %s %s | %s | "
      "%s %s | %s %s | %s\n", r.op.c_str (), r.variant.c_str (),
      r.format.c_str (), size, r.solid ? "solid" : "random", r.bytes / 1e6,
      cell (r.launch_us, 8, 2).c_str (),
      cell (r.launch_us / r.floor_us, 6, 2).c_str (),
      cell (r.sustained_us, 9, 2).c_str (),
      cell (r.sustained_us / r.floor_us, 6, 2).c_str (),
      cell (r.floor_us, 8, 2).c_str (), cell (r.copy_us, 8, 2).c_str (),
      cell (r.launch_us / r.copy_us, 6, 2).c_str (),
      cell (r.cpu_us, 11, 1).c_str (),
      cell (r.cpu_us / r.launch_us, 7, 1).c_str (), r.note.c_str ());
  std::fflush (stdout);
}

static void
write_csv_row (FILE * f, const char *gpu, const Row & r)
{
  std::fprintf (f, "%s,%s,%s,%s,%d,%d,%s,%.0f,%s,%s,%s,%s,%s\n",
      csv_text (gpu).c_str (), csv_text (r.op).c_str (),
      csv_text (r.variant).c_str (), r.format.c_str (), r.width, r.height,
      r.solid ? "solid" : "random", r.bytes, csv_time (r.launch_us).c_str (),
      csv_time (r.sustained_us).c_str (), csv_time (r.floor_us).c_str (),
      csv_time (r.copy_us).c_str (), csv_time (r.cpu_us).c_str ());
  std::fflush (f);
}

/* ---- the rows ---------------------------------------------------------- */

struct Size
{
  const char *name;
  int w, h;
};

static const Size kSizes[] = {
  {"720p", 1280, 720}, {"1080p", 1920, 1080}, {"4K", 3840, 2160},
  {"8K", 7680, 4320},
};

static const Size k720p = kSizes[0], k4K = kSizes[2];

typedef std::vector < std::pair < std::string, std::function < Row () > > >
    Cases;

/* Every row by name, so that --only can pick some (e.g. for a profiler).
 * Ours in RGBA and NV12 at every size on random and solid frames, CUB and
 * the seeds beside them; the seeds' slowest rung on a 720p frame. */
static Cases
all_cases (void)
{
  Cases cases;
  auto add =[&](const std::string & name, std::function < Row () > run) {
    cases.push_back ({name, run});
  };
  auto name =[](const char *op, const Format & fmt, const Size & s,
      const char *tail, bool solid) {
    return std::string (op) + " " + fmt.name + " " + s.name + tail +
        (solid ? " solid" : "");
  };
  const Format *formats[] = { &kRGBA, &kNV12 };
  const bool contents[] = { false, true };
  const unsigned all = CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF |
      CF_SUM_KEEP;

  for (auto fmt:formats) {
    for (auto & s:kSizes)
      for (bool solid:contents)
        add (name ("gray", *fmt, s, "", solid),[=] {
              return bench_gray (s.w, s.h, *fmt, solid);
            });
    if (fmt == &kRGBA)
      add ("gray RGB 4K",[=] {
            return bench_gray (k4K.w, k4K.h, kRGB, false);
          });
  }

  for (auto fmt:formats)
    for (auto & s:kSizes) {
      std::vector < double >sigmas = { 1.0, 2.6, 5.0, 20.0 };
      if (fmt == &kRGBA && &s == &kSizes[2])
        sigmas = { 1.0, 2.0, 2.6, 5.0, 10.0, 20.0, 50.0 };
      for (double sigma:sigmas) {
        char tail[16];
        std::snprintf (tail, sizeof tail, " s%.1f", sigma);
        for (bool solid:contents)
          if (!solid || sigma == 2.6)
            add (name ("blur", *fmt, s, tail, solid),[=] {
                  return bench_blur (s.w, s.h, *fmt, sigma, solid);
                });
      }
    }
  for (double sigma: {2.0, 2.6}) {
    char tail[16];
    std::snprintf (tail, sizeof tail, " s%.1f", sigma);
    add (std::string ("seed blur direct 2D 4K") + tail,[=] {
          return bench_blur_direct (k4K.w, k4K.h, sigma);
        });
  }

  for (auto fmt:formats) {
    for (auto & s:kSizes)
      for (HistImpl impl: {HIST_OURS, HIST_OURS_LAST_BLOCK, HIST_CUB})
        for (bool solid:contents)
          add (name ("hist", *fmt, s, impl == HIST_CUB ? " CUB" :
                  impl == HIST_OURS_LAST_BLOCK ? " last-block" : "", solid),
              [=] {
                return bench_hist (s.w, s.h, *fmt, solid, impl);
              });
    if (fmt == &kRGBA)
      add ("hist RGB 4K",[=] {
            return bench_hist (k4K.w, k4K.h, kRGB, false, HIST_OURS);
          });
  }
  for (HistImpl impl: {HIST_SEED_GLOBAL, HIST_SEED_SHARED})
    for (bool solid:contents)
      add (std::string ("seed hist ") + (impl == HIST_SEED_GLOBAL ?
              "global" : "shared") + " atomics 4K" + (solid ? " solid" : ""),
          [=] {
            return bench_hist (k4K.w, k4K.h, kRGBA, solid, impl);
          });

  for (auto fmt:formats) {
    for (auto & s:kSizes) {
      for (bool solid:contents)
        add (name ("sum", *fmt, s, "", solid),[=] {
              return bench_sum (s.w, s.h, *fmt, solid, 0, SUM_OURS);
            });
      add (name ("sum", *fmt, s, " last-block", false),[=] {
            return bench_sum (s.w, s.h, *fmt, false, 0, SUM_OURS_LAST_BLOCK);
          });
      /* a reduction's time does not depend on the values */
      add (name ("sum", *fmt, s, " CUB DeviceReduce::Sum", false),[=] {
            return bench_sum (s.w, s.h, *fmt, false, 0, SUM_CUB);
          });
    }
    if (fmt == &kRGBA)
      add ("sum RGB 4K",[=] {
            return bench_sum (k4K.w, k4K.h, kRGB, false, 0, SUM_OURS);
          });
  }
  struct
  {
    SumImpl impl;
    const char *name;
  } const sum_rungs[] = {
    {SUM_SEED_ONE_THREAD, "one thread"},
    {SUM_SEED_ONE_BLOCK, "one block + atomics"},
    {SUM_SEED_MANY_BLOCKS, "many blocks + atomics"},
    {SUM_SEED_BLOCK_TREE, "block tree"},
  };
  /* one thread over a 4K frame would take seconds a launch */
  for (const Size * s: {&k720p, &k4K})
    for (auto & rung:sum_rungs)
      if (s == &k720p || rung.impl != SUM_SEED_ONE_THREAD)
        add (std::string ("seed sum ") + rung.name + " " + s->name,[=] {
              return bench_sum (s->w, s->h, kRGBA, false, 0, rung.impl);
            });

  for (auto fmt:formats)
    for (auto & s:kSizes)
      for (bool solid:contents)
        add (name ("sum", *fmt, s, " profiles", solid),[=] {
              return bench_sum (s.w, s.h, *fmt, solid, CF_SUM_PROFILES,
                  SUM_OURS);
            });
  add ("sum RGBA 4K profiles+black",[=] {
        return bench_sum (k4K.w, k4K.h, kRGBA, false,
            CF_SUM_PROFILES | CF_SUM_BLACK, SUM_OURS);
      });
  for (auto fmt:formats)
    for (auto & s:kSizes)
      for (SumImpl impl: {SUM_OURS, SUM_OURS_LAST_BLOCK})
        add (name ("sum", *fmt, s, impl == SUM_OURS ? " all" :
                " all last-block", false),[=] {
              return bench_sum (s.w, s.h, *fmt, false, all, impl);
            });
  for (auto fmt:formats)
    add (name ("sum", *fmt, k4K, " all cold-keys", false),[=] {
          return bench_sum (k4K.w, k4K.h, *fmt, false, all, SUM_OURS,
              nullptr, true);
        });
  /* cudasum percentiles=true: the histogram's pass before the
   * statistics', which reads the frame once more between two frames'
   * differences */
  add ("sum RGBA 4K percentiles",[=] {
        return bench_sum (k4K.w, k4K.h, kRGBA, false, 0, SUM_OURS,
            "sum+percentiles", false, true);
      });
  for (bool cold: {false, true})
    add (std::string ("sum RGBA 4K all+percentiles") + (cold ? " cold-keys" :
            ""),[=] {
          return bench_sum (k4K.w, k4K.h, kRGBA, false, all, SUM_OURS,
              "sum all+percentiles", cold, true);
        });

  for (auto & s:kSizes)
    for (bool solid:contents)
      if (!solid || &s == &kSizes[2])
        add (name ("profiles", kGRAY8, s, "", solid),[=] {
              return bench_sum (s.w, s.h, kGRAY8, solid, CF_SUM_PROFILES,
                  SUM_OURS, "profiles");
            });
  struct
  {
    ProfileRung rung;
    const char *name;
  } const profile_rungs[] = {
    {PROFILE_NAIVE_ROWS, "naive rows"},
    {PROFILE_COALESCED_COLUMNS, "coalesced columns"},
    {PROFILE_BLOCK_PER_ROW, "block per row"},
    {PROFILE_WARP_PER_ROW, "warp per row"},
  };
  for (auto & rung:profile_rungs)
    add (std::string ("seed profiles ") + rung.name + " 4K",[=] {
          return bench_profiles_seed (k4K.w, k4K.h, rung.rung);
        });
  return cases;
}

int
main (int argc, char **argv)
{
  const char *csv = nullptr;
  std::vector < std::string > only;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp (argv[i], "--csv") && i + 1 < argc)
      csv = argv[++i];
    else if (!std::strcmp (argv[i], "--only") && i + 1 < argc)
      only.push_back (argv[++i]);
    else if (!std::strcmp (argv[i], "--reps") && i + 1 < argc)
      g_reps = std::max (1, std::atoi (argv[++i]));
    else {
      std::fprintf (stderr, "usage: %s [--csv FILE] [--reps N] "
          "[--only NAME-PART]\n", argv[0]);
      return 2;
    }
  }
  Cases cases = all_cases ();
  std::set < std::string > names;
  for (auto & c:cases)
    if (!names.insert (c.first).second) {
      std::fprintf (stderr, "kernel-bench: two rows named \"%s\"\n",
          c.first.c_str ());
      return 2;
    }
  if (cf_device_count () == 0) {
    std::fprintf (stderr, "kernel-bench: no CUDA device\n");
    return 1;
  }

  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  g_bandwidth = measure_copy_bandwidth ();
  g_rng.seed (std::random_device {} ());
  std::printf ("GPU: %s, %d SMs, L2 %d MB; device-to-device copy: %.0f GB/s "
      "(read + write)\n", prop.name, prop.multiProcessorCount,
      prop.l2CacheSize >> 20, g_bandwidth / 1e9);

  FILE *f = nullptr;
  if (csv) {
    f = std::fopen (csv, "w");
    if (!f) {
      std::perror (csv);
      return 2;
    }
    std::fprintf (f, "gpu,op,variant,format,width,height,content,bytes,"
        "launch_us,sustained_us,floor_us,copy_us,cpu_us\n");
  }
  print_header ();
  std::vector < std::string > failed;
  for (auto & c:cases) {
    bool picked = only.empty ();
    for (auto & o:only)
      picked = picked || (o[0] == '=' ? c.first == o.substr (1) :
          c.first.find (o) != std::string::npos);
    if (!picked)
      continue;
    try {
      Row row = c.second ();
      print_row (row);
      if (f)
        write_csv_row (f, prop.name, row);
    }
    catch (const Mismatch &) {
      failed.push_back (c.first);
    }
  }
  std::printf ("(times in microseconds; launch = one launch between events, "
      "sustained = back-to-back launches; floor = bytes / copy bandwidth; "
      "copy = a device copy moving the same bytes, per launch; cpu = the "
      "CPU reference, on our rows; - = not measured)\n");
  if (f)
    std::fclose (f);
  if (!failed.empty ()) {
    std::fprintf (stderr, "kernel-bench: %zu row(s) differ from the CPU and "
        "were not timed:\n", failed.size ());
    for (auto & name:failed)
      std::fprintf (stderr, "  %s\n", name.c_str ());
    return 1;
  }
  return 0;
}
