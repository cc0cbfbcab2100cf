/* kernel-bench's harness: frames, checks, timing and output (the method is
 * in harness.cuh). */
#include <chrono>
#include <cstdarg>
#include <map>

#include "harness.cuh"

int g_reps = 200;
double g_bandwidth;
std::mt19937_64 g_rng;

const Format kRGBA = { "RGBA", 4, false }, kRGB = { "RGB", 3, false },
    kNV12 = { "NV12", 1, true }, kGRAY8 = { "GRAY8", 1, false },
    /* two channels a pixel: NV12's chroma plane on its own */
    kUV = { "UV", 2, false },
    /* NV12's layout in 16-bit words, each holding 10 bits at the top */
    kP010 = { "P010", 2, true },
    /* 32-bit pixels of three 10-bit components (R, G, B) and 2-bit alpha */
    kRGB10A2 = { "RGB10A2", 4, false };

const Size kSizes[4] = {
  {"720p", 1280, 720}, {"1080p", 1920, 1080}, {"4K", 3840, 2160},
  {"8K", 7680, 4320},
};

const Size & k720p = kSizes[0], &k4K = kSizes[2];

const Format *const kRowFormats[2] = { &kRGBA, &kNV12 };
const bool kContents[2] = { false, true };

/* ---- rows ------------------------------------------------------------- */

void
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

/* Random bytes, eight from each draw: filling 8K frames a byte per draw
 * would take a good part of a second. */
void
fill_random (std::vector < uint8_t > &bytes)
{
  for (size_t i = 0; i < bytes.size (); i += 8) {
    uint64_t r = g_rng ();
    std::memcpy (&bytes[i], &r, std::min < size_t > (8, bytes.size () - i));
  }
}

void
Frames::fill (bool solid)
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
      bottom[x] = colour[1 + x % 2];    /* NV12's chroma rows */
    }
    for (int y = 0; y < rows; y++)
      std::memcpy (&host[y * pitch], y < height ? top.data () :
          bottom.data (), row_bytes);
  }
  CHECK (cudaMemcpy (ptr[0], host.data (), bytes (), cudaMemcpyHostToDevice));
  for (size_t i = 1; i < ptr.size (); i++)
    CHECK (cudaMemcpy (ptr[i], ptr[0], bytes (), cudaMemcpyDeviceToDevice));
}

int
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

int
p010_planes (const uint8_t * frame, size_t pitch, int w, int h,
    CfWordPlane * planes)
{
  planes[0] = CfWordPlane { frame, pitch, w, h, 1, {0, -1}, 10, 6, 0 };
  planes[1] = CfWordPlane { frame + pitch * h, pitch, (w + 1) / 2,
      (h + 1) / 2, 2, {1, 2}, 10, 6, 0 };
  return 2;
}

int
word_planes (const Format & fmt, const uint8_t * frame, size_t pitch, int w,
    int h, CfWordPlane * planes)
{
  if (&fmt == &kP010)
    return p010_planes (frame, pitch, w, h, planes);
  planes[0] = CfWordPlane { frame, pitch, w, h, 2, {-1, -1}, 10, 0,
    CF_RGB10A2
  };
  return 1;
}

/* ---- checks ----------------------------------------------------------- */

void
check_rows_equal (const char *what, const uint8_t * got, size_t got_pitch,
    const uint8_t * want, size_t want_pitch, size_t row_bytes, int rows)
{
  for (int y = 0; y < rows; y++)
    if (std::memcmp (got + y * got_pitch, want + y * want_pitch,
            row_bytes) != 0)
      mismatch ("%s: GPU differs from the CPU reference in row %d", what, y);
}

/* ---- timing ----------------------------------------------------------- */

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

double
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

/* Our kernels and CUB's: --reps launches, the sustained batches and the
 * same-traffic copy.  A seed's rung: as many launches as fit in
 * kSeedSeconds (at least 3; only the first timed one where even 3 do not
 * fit), sustained only where 3 batches fit in kSustainedSeconds, no
 * copy. */
void
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

double
seconds_of (const std::function < void () > &run)
{
  auto start = std::chrono::steady_clock::now ();
  run ();
  return std::chrono::duration < double >(std::chrono::steady_clock::now ()
      - start).count ();
}

double
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

/* ---- cases ------------------------------------------------------------ */

Row
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

std::string
describe (const Row & row)
{
  char s[160];
  std::snprintf (s, sizeof s, "%s %s %s %dx%d%s", row.op.c_str (),
      row.variant.c_str (), row.format.c_str (), row.width, row.height,
      row.solid ? " solid" : "");
  return s;
}

std::string
case_name (const char *op, const Format & fmt, const Size & s,
    const char *tail, bool solid)
{
  return std::string (op) + " " + fmt.name + " " + s.name + tail +
      (solid ? " solid" : "");
}

void
add_case (Cases & cases, const std::string & name,
    std::function < Row () > run)
{
  cases.push_back ({name, run});
}

/* ---- output ----------------------------------------------------------- */

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

void
print_header (void)
{
  std::printf ("\n%-18s %-27s %-5s %-9s %-6s %6s | %8s %6s | %9s %6s | "
      "%8s | %8s %6s | %11s %7s | %s\n", "op", "variant", "fmt", "size",
      "data", "MB", "launch", "xfloor", "sustained", "xfloor", "floor",
      "copy", "xcopy", "cpu", "cpu/gpu", "note");
}

void
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

void
write_csv_header (FILE * f)
{
  std::fprintf (f, "gpu,op,variant,format,width,height,content,bytes,"
      "launch_us,sustained_us,floor_us,copy_us,cpu_us\n");
}

void
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
