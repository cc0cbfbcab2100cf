/* kernel-bench's gray rows (a map): cf_gray_from_packed, and NV12's luma
 * plane copied out (cf_gray_copy_luma) as cudagray does.  Neither sets an
 * output's chroma, which cudagray's launch does for output in CUDA memory.
 * The kernel's design is in docs/design/gray.md. */
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
      return cf_gray_copy_luma (in[i], in.pitch, out[i], out.pitch, w, h,
          nullptr, nullptr);
    return cf_gray_from_packed (in[i], in.pitch, out[i], out.pitch, w, h,
        layout, CF_GRAY_MATRIX_BT709, nullptr, nullptr);
  };
  out.poison (0);
  CHECK (launch (0));
  std::vector < uint8_t > got = out.download (0), want (out.bytes ());
  /* cf_gray_copy_luma's reference is a row-by-row memcpy */
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

/* High-bit luma (#48), a plane of 16-bit words as cudagray turns it:
 * P010's (10 bits at the top) into 8 bits with output-depth=8
 * (cf_plane_to_8), or I420_10LE's (10 bits at the bottom) into words
 * MSB-aligned for GRAY16_LE or P010 (cf_plane_to_msb16).  P010's own luma
 * into words is a plain copy, the NV12 rows' kind. */
static Row
bench_gray_words (int w, int h, bool to_8)
{
  const int shift = to_8 ? 6 : 0;
  size_t in_bytes = (size_t) w * 2 * h;
  Row row = make_row ("gray", to_8 ? "words to 8 bits" : "words to MSB16",
      kP010, w, h, false, (double) (in_bytes + (size_t) w * h * (to_8 ? 1 :
              2)));
  row.note = to_8 ? "P010 luma, output-depth=8" : "I420_10LE luma";
  std::string what = describe (row);
  int n = rotation_count ((size_t) row.bytes);
  const Format words = { "GRAY16", 2, false };
  Frames in (n, words, w, h), out (n, to_8 ? kGRAY8 : words, w, h);
  in.fill (false);

  Launch launch =[&](int i) {
    return to_8 ? cf_plane_to_8 (in[i], in.pitch, out[i], out.pitch, w, h, 10,
        shift, nullptr, nullptr) : cf_plane_to_msb16 (in[i], in.pitch, out[i],
        out.pitch, w, h, 10, shift, nullptr, nullptr);
  };
  out.poison (0);
  CHECK (launch (0));
  std::vector < uint8_t > got = out.download (0), want (out.bytes ());
  auto reference =[&] {
    if (to_8)
      cf_ref_plane_to_8 (in.host.data (), in.pitch, want.data (), out.pitch,
          w, h, 10, shift);
    else
      cf_ref_plane_to_msb16 (in.host.data (), in.pitch, want.data (),
          out.pitch, w, h, 10, shift);
  };
  double first_s = seconds_of (reference);
  check_rows_equal (what.c_str (), got.data (), out.pitch, want.data (),
      out.pitch, out.row_bytes, h);
  row.cpu_us = cpu_median_us (first_s, reference);
  time_row (row, launch, false);
  return row;
}

/* RGBA and NV12 at every size on random and solid frames, and RGB at 4K;
 * then the high-bit luma at 4K */
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
  add_case (cases, "gray P010 4K to 8",[=] {
        return bench_gray_words (k4K.w, k4K.h, true);
      });
  add_case (cases, "gray I420_10 4K to MSB16",[=] {
        return bench_gray_words (k4K.w, k4K.h, false);
      });
}
