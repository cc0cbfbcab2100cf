/* kernel-bench's gray rows (a map): cf_gray_from_packed, and NV12's luma
 * plane copied out (cf_copy_plane) as cudagray does.  The kernel's design
 * is in docs/design/gray.md. */
#include "harness.cuh"

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

/* RGBA and NV12 at every size on random and solid frames, and RGB at 4K */
void
add_gray_cases (Cases & cases)
{
  for (auto fmt:kRowFormats) {
    for (auto & s:kSizes)
      for (bool solid:kContents)
        add_case (cases, case_name ("gray", *fmt, s, "", solid),[=] {
              return bench_gray (s.w, s.h, *fmt, solid);
            });
    if (fmt == &kRGBA)
      add_case (cases, "gray RGB 4K",[=] {
            return bench_gray (k4K.w, k4K.h, kRGB, false);
          });
  }
}
