/* kernel-bench's blur rows (a stencil): cf_blur_plane as cudablur runs it,
 * cf_blur_plane_words on P010, and the origin article's direct 2-D stencil
 * (seeds/001).  The kernels'
 * design is in docs/design/blur.md. */
#include <string>

#include "harness.cuh"
#include "../seeds.h"

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
 * half the sigma, as cudablur does for subsampled planes, by one
 * cf_blur_planes (one launch where it can), or `apart`: a cf_blur_plane a
 * plane, as cudablur did before. */
static Row
bench_blur (int w, int h, const Format & fmt, double sigma, bool solid,
    bool apart = false)
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
  Row row = make_row (op, apart ? "ours, planes apart" : "ours", fmt, w, h,
      solid, (double) bytes);
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
    if (!apart) {
      CfBlurPlane planes[CF_BLUR_MAX_PLANES] = { };
      for (size_t k = 0; k < geometry.size () && k < CF_BLUR_MAX_PLANES;
          k++) {
        const Plane & g = geometry[k];
        planes[k] = {in[i] + g.first_row * in.pitch, in.pitch,
            out[i] + g.first_row * out.pitch, out.pitch, g.w, g.h,
            g.channels, &g.kx, &g.ky, {0, 0, 0, 0}};
      }
      return cf_blur_planes (planes, (int) geometry.size (),
          CF_BORDER_REPLICATE, scratch.ptr, nullptr);
    }
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

/* The high-bit blur (#48) as cudablur runs it on P010: the luma plane of
 * words, then the chroma plane (2 channels, half the size, half the
 * sigma), 10 bits at the top of each word.  Checked whole against
 * cf_ref_blur_plane_words. */
static Row
bench_blur_p010 (int w, int h, double sigma, bool solid)
{
  struct Plane
  {
    int first_row, w, h, channels;
    CfBlurKernel kx, ky;
  };
  std::vector < Plane > geometry = {
    {0, w, h, 1, {}, {}}, {h, (w + 1) / 2, (h + 1) / 2, 2, {}, {}}
  };
  for (size_t i = 0; i < geometry.size (); i++) {
    double s = i ? sigma / 2 : sigma;
    int r = cf_blur_radius_for_sigma (s);
    cf_blur_kernel_make (s, r, CF_BLUR_WORD_BITS, &geometry[i].kx);
    cf_blur_kernel_make (s, r, CF_BLUR_WORD_BITS, &geometry[i].ky);
  }
  static const uint16_t no_border[4] = { 0, 0, 0, 0 };

  char op[32];
  std::snprintf (op, sizeof op, "blur s%g", sigma);
  size_t bytes = 2 * frame_bytes (kP010, w, h);
  Row row = make_row (op, "ours", kP010, w, h, solid, (double) bytes);
  row.note = "r" + std::to_string (geometry[0].kx.radius) + ", chroma r" +
      std::to_string (geometry[1].kx.radius) + "; words";
  std::string what = describe (row);
  int n = rotation_count (bytes);
  Frames in (n, kP010, w, h), out (n, kP010, w, h);
  in.fill (solid);
  size_t scratch_bytes = 0;
  for (auto & g:geometry)
    scratch_bytes = std::max (scratch_bytes,
        cf_blur_word_scratch_bytes (g.w, g.h, g.channels));
  DeviceArray < uint8_t > scratch (scratch_bytes);

  /* both planes in one call, as cudablur makes it */
  Launch launch =[&](int i) {
    CfBlurPlane planes[2];
    for (size_t p = 0; p < geometry.size (); p++) {
      const Plane & g = geometry[p];
      planes[p] = { in[i] + g.first_row * in.pitch, in.pitch,
        out[i] + g.first_row * out.pitch, out.pitch, g.w, g.h, g.channels,
        &g.kx, &g.ky, {0, 0, 0, 0}
      };
    }
    return (int) cf_blur_planes_words (planes, 2, 10, 6, CF_BORDER_REPLICATE,
        scratch.ptr, nullptr);
  };
  out.poison (0);
  CHECK (launch (0));
  std::vector < uint8_t > got = out.download (0);
  std::vector < std::vector < uint8_t > >want (geometry.size ());
  auto reference =[&] {
    for (size_t i = 0; i < geometry.size (); i++) {
      const Plane & g = geometry[i];
      want[i].resize ((size_t) 2 * g.w * g.channels * g.h);
      cf_ref_blur_plane_words (&in.host[g.first_row * in.pitch], in.pitch,
          want[i].data (), (size_t) 2 * g.w * g.channels, g.w, g.h,
          g.channels, 10, 6, &g.kx, &g.ky, CF_BORDER_REPLICATE, no_border);
    }
  };
  double first_s = seconds_of (reference);
  for (size_t i = 0; i < geometry.size (); i++) {
    const Plane & g = geometry[i];
    check_rows_equal (what.c_str (), &got[g.first_row * out.pitch],
        out.pitch, want[i].data (), (size_t) 2 * g.w * g.channels,
        (size_t) 2 * g.w * g.channels, g.h);
  }
  row.cpu_us = cpu_median_us (first_s, reference);
  time_row (row, launch, false);
  return row;
}

/* Packed 10-bit RGB (#48) as cudablur runs it: cf_blur_rgb10a2, four
 * fields a pixel (one pass at radii up to 8, else two through t).
 * Checked whole against cf_ref_blur_rgb10a2. */
static Row
bench_blur_rgb10a2 (int w, int h, double sigma)
{
  CfBlurKernel k;
  cf_blur_kernel_make (sigma, cf_blur_radius_for_sigma (sigma),
      CF_BLUR_WORD_BITS, &k);
  char op[32];
  std::snprintf (op, sizeof op, "blur s%g", sigma);
  size_t bytes = 2 * frame_bytes (kRGB10A2, w, h);
  Row row = make_row (op, "ours", kRGB10A2, w, h, false, (double) bytes);
  row.note = "r" + std::to_string (k.radius) + (k.radius <= 8 ? "; one pass" :
      "; two passes");
  std::string what = describe (row);
  int n = rotation_count (bytes);
  Frames in (n, kRGB10A2, w, h), out (n, kRGB10A2, w, h);
  in.fill (false);
  DeviceArray < uint8_t > scratch (cf_blur_word_scratch_bytes (w, h, 4));

  Launch launch =[&](int i) {
    return (int) cf_blur_rgb10a2 (in[i], in.pitch, out[i], out.pitch, w, h,
        &k, &k, CF_BORDER_REPLICATE, scratch.ptr, nullptr);
  };
  out.poison (0);
  CHECK (launch (0));
  std::vector < uint8_t > got = out.download (0);
  std::vector < uint8_t > want ((size_t) 4 * w * h);
  auto reference =[&] {
    cf_ref_blur_rgb10a2 (in.host.data (), in.pitch, want.data (),
        (size_t) 4 * w, w, h, &k, &k, CF_BORDER_REPLICATE);
  };
  double first_s = seconds_of (reference);
  check_rows_equal (what.c_str (), got.data (), out.pitch, want.data (),
      (size_t) 4 * w, (size_t) 4 * w, h);
  row.cpu_us = cpu_median_us (first_s, reference);
  time_row (row, launch, false);
  return row;
}

/* RGBA and NV12 at every size and a range of sigmas (more at 4K RGBA), on
 * random frames and, at sigma 2.6, solid ones; then the seed at 4K. */
void
add_blur_cases (Cases & cases)
{
  for (auto fmt:kRowFormats)
    for (auto & s:kSizes) {
      std::vector < double >sigmas = { 1.0, 2.6, 5.0, 20.0 };
      if (fmt == &kRGBA && &s == &kSizes[2])
        sigmas = { 1.0, 2.0, 2.6, 5.0, 10.0, 20.0, 50.0 };
      for (double sigma:sigmas) {
        char tail[16];
        std::snprintf (tail, sizeof tail, " s%.1f", sigma);
        for (bool solid:kContents)
          if (!solid || sigma == 2.6)
            add_case (cases, case_name ("blur", *fmt, s, tail, solid),[=] {
                  return bench_blur (s.w, s.h, *fmt, sigma, solid);
                });
      }
    }
  /* NV12's planes on their own, at 4K and 1080p: the luma (one channel,
   * sigma 2.6) and the chroma (two channels, half the size and sigma);
   * and both a launch each, as before cf_blur_planes */
  for (int i: {1, 2}) {
    const Size & s = kSizes[i];
    add_case (cases, case_name ("blur", kNV12, s, " s2.6 apart", false),[=] {
          return bench_blur (s.w, s.h, kNV12, 2.6, false, true);
        });
    const Size half = { s.name, s.w / 2, s.h / 2 };
    add_case (cases, case_name ("blur", kGRAY8, s, " s2.6", false),[=] {
          return bench_blur (s.w, s.h, kGRAY8, 2.6, false);
        });
    add_case (cases, case_name ("blur", kUV, s, " chroma s1.3", false),[=] {
          return bench_blur (half.w, half.h, kUV, 1.3, false);
        });
  }
  for (double sigma: {2.0, 2.6}) {
    char tail[16];
    std::snprintf (tail, sizeof tail, " s%.1f", sigma);
    add_case (cases, std::string ("seed blur direct 2D 4K") + tail,[=] {
          return bench_blur_direct (k4K.w, k4K.h, sigma);
        });
  }
  for (auto & s:kSizes)
    for (bool solid:kContents)
      add_case (cases, case_name ("blur", kP010, s, " s2.6", solid),[=] {
            return bench_blur_p010 (s.w, s.h, 2.6, solid);
          });
  /* at 4K, a sigma of each radius bucket and one of the two passes */
  for (double sigma: {1.0, 4.0, 5.0, 20.0}) {
    char tail[16];
    std::snprintf (tail, sizeof tail, " s%.1f", sigma);
    add_case (cases, case_name ("blur", kP010, k4K, tail, false),[=] {
          return bench_blur_p010 (k4K.w, k4K.h, sigma, false);
        });
  }
  /* packed 10-bit RGB: the one pass's two buckets, and the two passes */
  for (double sigma: {1.0, 2.6, 5.0}) {
    char tail[16];
    std::snprintf (tail, sizeof tail, " s%.1f", sigma);
    add_case (cases, case_name ("blur", kRGB10A2, k4K, tail, false),[=] {
          return bench_blur_rgb10a2 (k4K.w, k4K.h, sigma);
        });
  }
}
