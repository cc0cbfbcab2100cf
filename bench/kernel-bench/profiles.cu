/* kernel-bench's profiles rows: ours (cf_sum_planes with CF_SUM_PROFILES
 * alone on a GRAY8 plane, through bench_sum) and the matrix-vector
 * article's kernel shapes (seeds/003). */
#include <string>

#include "sum.cuh"
#include "../seeds.h"

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
 * cf_ref_sum_planes.  (Ours, the "profiles" rows of add_profiles_cases,
 * computes both, and the statistics, in one pass.) */
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
  CfSumKey key = { CF_SUM_PROFILES, {65536, 0, 0, 0}, 24, nullptr, 0, nullptr };
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

/* Ours in GRAY8 at every size on random frames, and on a solid one at 4K;
 * then the article's shapes at 4K. */
void
add_profiles_cases (Cases & cases)
{
  for (auto & s:kSizes)
    for (bool solid:kContents)
      if (!solid || &s == &kSizes[2])
        add_case (cases, case_name ("profiles", kGRAY8, s, "", solid),[=] {
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
    add_case (cases, std::string ("seed profiles ") + rung.name + " 4K",[=] {
          return bench_profiles_seed (k4K.w, k4K.h, rung.rung);
        });
}
