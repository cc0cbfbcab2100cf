/* kernel-bench's hist rows (atomics): cf_hist_planes_add as cudahist runs
 * it, cf_hist_planes, CUB's DeviceHistogram and the origin article's
 * global and shared atomics (seeds/002).  The kernels' design is in
 * docs/design/hist.md. */
#include <algorithm>
#include <cmath>
#include <string>

#include <cub/device/device_histogram.cuh>
#include <cub/version.cuh>

#include "harness.cuh"
#include "../seeds.h"

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

/* The high-bit histogram (#48): cf_hist_word_planes_add as cudahist runs
 * it on P010 (10 bits at the top of 16-bit words, 1024 levels) or RGB10A2,
 * taking turns between 3 sums buffers as the 8-bit rows do. */
static Row
bench_hist_words (const Format & fmt, int w, int h, bool solid)
{
  size_t bytes = frame_bytes (fmt, w, h);
  Row row = make_row ("hist", "ours", fmt, w, h, solid, (double) bytes);
  std::string what = describe (row);
  Frames in (rotation_count (bytes), fmt, w, h);
  in.fill (solid);

  auto planes =[&](const uint8_t * frame, CfWordPlane * p) {
    return word_planes (fmt, frame, in.pitch, w, h, p);
  };
  const int nc = (int) (cf_hist_word_sums_bytes (10) / sizeof (uint32_t));
  std::vector < uint32_t > want (nc);
  CfWordPlane hp[CF_HIST_MAX_PLANES];
  const int n_planes = planes (in.host.data (), hp);
  auto reference =[&] {
    cf_ref_hist_word_planes (hp, n_planes, want.data ());
  };
  row.cpu_us = cpu_median_us (seconds_of (reference), reference);

  const size_t sums_bytes = cf_hist_word_sums_bytes (10);
  DeviceArray < uint8_t > sums (3 * sums_bytes);
  int add_launches = 0;
  Launch launch =[&](int i) {
    CfWordPlane p[CF_HIST_MAX_PLANES];
    planes (in[i], p);
    const int n = add_launches++;
    return cf_hist_word_planes_add (p, n_planes, sums.ptr + (n % 3) * sums_bytes,
        sums.ptr + ((n + 1) % 3) * sums_bytes, nullptr);
  };
  sums.poison ();
  CHECK (cudaMemset (sums.ptr, 0, sums_bytes));
  CHECK (launch (0));
  CHECK (launch (1));
  std::vector < uint8_t > host = sums.download ();
  for (int k = 0; k < 2; k++)
    check_values_equal (what.c_str (), k ? "second launch's counts" :
        "counts", (const uint32_t *) (host.data () + k * sums_bytes),
        want.data (), nc);
  time_row (row, launch, false);
  return row;
}

/* The light levels' codes (#48, docs/design/hdr.md): cf_light_codes_add
 * as cudasum light-levels=true runs it on P010 (BT.2020, narrow range),
 * into one counts buffer checked after the first launch and then left to
 * grow (and wrap): the kernel's cost does not depend on it. */
static CfMaxRgb
bt2020_narrow_10 ()
{
  /* gst_cuda_filters_max_rgb_init's coefficients, which the bench cannot
   * link: codes per sample step, in 2^-32 */
  const double kr = 0.2627, kb = 0.0593, kg = 1 - kr - kb;
  const double sy = 4095.0 / (219 * 4), sc = 4095.0 / (224 * 4);
  auto fixed =[](double v) {
    return (int64_t) llround (ldexp (v, CF_MAX_RGB_SHIFT));
  };
  CfMaxRgb m;
  m.offset_y = 64;
  m.offset_c = 512;
  m.y = fixed (sy);
  m.cr_r = fixed (2 * (1 - kr) * sc);
  m.cb_b = fixed (2 * (1 - kb) * sc);
  m.cb_g = fixed (2 * kb * (1 - kb) / kg * sc);
  m.cr_g = fixed (2 * kr * (1 - kr) / kg * sc);
  return m;
}

static CfYCbCrWords
p010_ycbcr (const uint8_t * frame, size_t pitch, int w, int h)
{
  CfYCbCrWords f;
  f.luma = frame;
  f.luma_pitch = pitch;
  f.cb = frame + pitch * h;
  f.cr = frame + pitch * h + 2;
  f.cb_pitch = f.cr_pitch = pitch;
  f.chroma_step = 2;
  f.width = w;
  f.height = h;
  f.sub_x = f.sub_y = 1;
  f.phase_x = f.phase_y = 0;
  f.depth = 10;
  f.shift = 6;
  return f;
}

static Row
bench_light_p010 (int w, int h, bool solid)
{
  const Format & fmt = kP010;
  size_t bytes = frame_bytes (fmt, w, h);
  Row row = make_row ("light", "ours", fmt, w, h, solid, (double) bytes);
  std::string what = describe (row);
  Frames in (rotation_count (bytes), fmt, w, h);
  in.fill (solid);
  const CfMaxRgb m = bt2020_narrow_10 ();

  std::vector < uint32_t > want (CF_LIGHT_CODES);
  const CfYCbCrWords hf = p010_ycbcr (in.host.data (), in.pitch, w, h);
  auto reference =[&] {
    std::fill (want.begin (), want.end (), 0u);
    cf_ref_light_codes_add (&hf, &m, want.data ());
  };
  row.cpu_us = cpu_median_us (seconds_of (reference), reference);

  DeviceArray < uint32_t > counts (CF_LIGHT_CODES);
  Launch launch =[&](int i) {
    const CfYCbCrWords f = p010_ycbcr (in[i], in.pitch, w, h);
    return cf_light_codes_add (&f, &m, counts.ptr, nullptr);
  };
  CHECK (cudaMemset (counts.ptr, 0, CF_LIGHT_CODES * sizeof (uint32_t)));
  CHECK (launch (0));
  std::vector < uint32_t > got = counts.download ();
  check_values_equal (what.c_str (), "counts", got.data (), want.data (),
      CF_LIGHT_CODES);
  time_row (row, launch, false);
  return row;
}

/* HLG's tables for BT.2020 and a display of 1000 cd/m2: the arithmetic
 * of gst_cuda_filters_hlg_init, which the bench cannot link */
static void
hlg_tables_1000 (CfHlgTables * t)
{
  const double scale = (double) (1u << CF_HLG_SCALE_BITS), gamma = 1.2;
  const double a = 0.17883277, b = 1.0 - 4.0 * a;
  const double c = 0.5 - a * log (4.0 * a);
  for (int i = 0; i < CF_LIGHT_CODES; i++) {
    const double e = i / (double) (CF_LIGHT_CODES - 1);
    t->scene[i] = (uint32_t) llround ((e <= 0.5 ? e * e / 3.0 :
            (exp ((e - c) / a) + b) / 12.0) * scale);
  }
  t->weights[0] = (uint32_t) lround (0.2627 * 65536);
  t->weights[2] = (uint32_t) lround (0.0593 * 65536);
  t->weights[1] = 65536 - t->weights[0] - t->weights[2];
  for (int i = 0; i < CF_HLG_GAIN_STEPS; i++)
    t->gain[i] = (uint32_t) llround (pow ((i + 0.5) / CF_HLG_GAIN_STEPS,
            gamma - 1.0) * scale);
}

/* HLG's light levels (#48): cf_hlg_light_add as cudasum light-levels=true
 * runs it on HLG P010, into one sum checked after the first launch. */
static Row
bench_hlg_p010 (int w, int h, bool solid)
{
  const Format & fmt = kP010;
  size_t bytes = frame_bytes (fmt, w, h);
  Row row = make_row ("hlg", "ours", fmt, w, h, solid, (double) bytes);
  std::string what = describe (row);
  Frames in (rotation_count (bytes), fmt, w, h);
  in.fill (solid);
  const CfMaxRgb m = bt2020_narrow_10 ();
  std::vector < CfHlgTables > tables (1);
  hlg_tables_1000 (tables.data ());

  CfHlgSums want = { 0, 0, 0 };
  const CfYCbCrWords hf = p010_ycbcr (in.host.data (), in.pitch, w, h);
  auto reference =[&] {
    want.sum = want.max = 0;
    cf_ref_hlg_light_add (&hf, &m, tables.data (), &want);
  };
  row.cpu_us = cpu_median_us (seconds_of (reference), reference);

  DeviceArray < CfHlgTables > d_tables (1);
  CHECK (cudaMemcpy (d_tables.ptr, tables.data (), sizeof (CfHlgTables),
          cudaMemcpyHostToDevice));
  DeviceArray < CfHlgSums > sums (1);
  Launch launch =[&](int i) {
    const CfYCbCrWords f = p010_ycbcr (in[i], in.pitch, w, h);
    return cf_hlg_light_add (&f, &m, d_tables.ptr, sums.ptr, nullptr);
  };
  CHECK (cudaMemset (sums.ptr, 0, sizeof (CfHlgSums)));
  CHECK (launch (0));
  std::vector < CfHlgSums > got = sums.download ();
  const uint64_t got_values[2] = { got[0].sum, got[0].max };
  const uint64_t want_values[2] = { want.sum, want.max };
  check_values_equal (what.c_str (), "sum and max", got_values, want_values,
      2);
  time_row (row, launch, false);
  return row;
}

/* The light levels of packed 10-bit RGB (#48): PQ's codes
 * (cf_light_codes_add_rgb10a2) or HLG's light (cf_hlg_light_add_rgb10a2)
 * of full-range RGB10A2, as cudasum light-levels=true runs them, checked
 * after the first launch. */
static Row
bench_light_rgb10a2 (int w, int h, bool hlg)
{
  const Format & fmt = kRGB10A2;
  size_t bytes = frame_bytes (fmt, w, h);
  Row row = make_row (hlg ? "hlg" : "light", "ours", fmt, w, h, false,
      (double) bytes);
  std::string what = describe (row);
  Frames in (rotation_count (bytes), fmt, w, h);
  in.fill (false);
  /* gst_cuda_filters_rgb_scale_init (full range, 10 bits) */
  CfRgbScale scale = { 0, 0,
    (int64_t) llround (ldexp (4095.0 / 1023.0, CF_MAX_RGB_SHIFT))
  };
  std::vector < CfHlgTables > tables (1);
  hlg_tables_1000 (tables.data ());
  auto plane =[&](const uint8_t * data) {
    CfWordPlane p = { data, in.pitch, w, h, 2, {-1, -1}, 10, 0, CF_RGB10A2 };
    return p;
  };

  std::vector < uint32_t > want (CF_LIGHT_CODES);
  CfHlgSums want_sums = { 0, 0, 0 };
  const CfWordPlane hp = plane (in.host.data ());
  auto reference =[&] {
    std::fill (want.begin (), want.end (), 0u);
    want_sums.sum = want_sums.max = 0;
    if (hlg)
      cf_ref_hlg_light_add_rgb10a2 (&hp, &scale, tables.data (), &want_sums);
    else
      cf_ref_light_codes_add_rgb10a2 (&hp, &scale, want.data ());
  };
  row.cpu_us = cpu_median_us (seconds_of (reference), reference);

  DeviceArray < uint32_t > counts (CF_LIGHT_CODES);
  DeviceArray < CfHlgTables > d_tables (1);
  DeviceArray < CfHlgSums > sums (1);
  CHECK (cudaMemcpy (d_tables.ptr, tables.data (), sizeof (CfHlgTables),
          cudaMemcpyHostToDevice));
  Launch launch =[&](int i) {
    const CfWordPlane p = plane (in[i]);
    return hlg ? cf_hlg_light_add_rgb10a2 (&p, &scale, d_tables.ptr,
        sums.ptr, nullptr) : cf_light_codes_add_rgb10a2 (&p, &scale,
        counts.ptr, nullptr);
  };
  CHECK (cudaMemset (counts.ptr, 0, CF_LIGHT_CODES * sizeof (uint32_t)));
  CHECK (cudaMemset (sums.ptr, 0, sizeof (CfHlgSums)));
  CHECK (launch (0));
  if (hlg) {
    std::vector < CfHlgSums > got = sums.download ();
    const uint64_t got_values[2] = { got[0].sum, got[0].max };
    const uint64_t want_values[2] = { want_sums.sum, want_sums.max };
    check_values_equal (what.c_str (), "sum and max", got_values,
        want_values, 2);
  } else {
    std::vector < uint32_t > got = counts.download ();
    check_values_equal (what.c_str (), "counts", got.data (), want.data (),
        CF_LIGHT_CODES);
  }
  time_row (row, launch, false);
  return row;
}

/* Ours (both ways), CUB and RGB beside them in RGBA and NV12 at every size
 * on random and solid frames; then the seeds at 4K RGBA; then P010 (and
 * RGB10A2 at 4K), and the light levels (PQ's codes, HLG's light) of P010
 * and, at 4K, of RGB10A2. */
void
add_hist_cases (Cases & cases)
{
  for (auto fmt:kRowFormats) {
    for (auto & s:kSizes)
      for (HistImpl impl: {HIST_OURS, HIST_OURS_LAST_BLOCK, HIST_CUB})
        for (bool solid:kContents)
          add_case (cases, case_name ("hist", *fmt, s,
                  impl == HIST_CUB ? " CUB" :
                  impl == HIST_OURS_LAST_BLOCK ? " last-block" : "", solid),
              [=] {
                return bench_hist (s.w, s.h, *fmt, solid, impl);
              });
    if (fmt == &kRGBA)
      add_case (cases, "hist RGB 4K",[=] {
            return bench_hist (k4K.w, k4K.h, kRGB, false, HIST_OURS);
          });
  }
  for (HistImpl impl: {HIST_SEED_GLOBAL, HIST_SEED_SHARED})
    for (bool solid:kContents)
      add_case (cases, std::string ("seed hist ") + (impl == HIST_SEED_GLOBAL ?
              "global" : "shared") + " atomics 4K" + (solid ? " solid" : ""),
          [=] {
            return bench_hist (k4K.w, k4K.h, kRGBA, solid, impl);
          });
  for (auto & s:kSizes)
    for (bool solid:kContents)
      add_case (cases, case_name ("hist", kP010, s, "", solid),[=] {
            return bench_hist_words (kP010, s.w, s.h, solid);
          });
  add_case (cases, "hist RGB10A2 4K",[=] {
        return bench_hist_words (kRGB10A2, k4K.w, k4K.h, false);
      });
  for (auto & s:kSizes)
    for (bool solid:kContents)
      add_case (cases, case_name ("light", kP010, s, "", solid),[=] {
            return bench_light_p010 (s.w, s.h, solid);
          });
  for (auto & s:kSizes)
    for (bool solid:kContents)
      add_case (cases, case_name ("hlg", kP010, s, "", solid),[=] {
            return bench_hlg_p010 (s.w, s.h, solid);
          });
  for (bool hlg: {false, true})
    add_case (cases, std::string (hlg ? "hlg" : "light") + " RGB10A2 4K",
        [=] {
          return bench_light_rgb10a2 (k4K.w, k4K.h, hlg);
        });
}
