/* kernel-bench's sum rows (a reduction): cf_sum_planes_add as cudasum runs
 * it, with each set of key statistics and with cudasum's percentiles,
 * cf_sum_planes, CUB's DeviceReduce::Sum and the origin article's ladder
 * (seeds/000).  The kernels' design is in docs/design/sum.md. */
#include <string>

#include <cub/device/device_reduce.cuh>

#include "sum.cuh"
#include "../seeds.h"

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

/* A sum row's op: "sum", "sum all", "sum all+hist", or the flags joined,
 * "sum+profiles" */
static std::string
sum_op (unsigned flags)
{
  const unsigned all = CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF |
      CF_SUM_KEEP;
  if (flags == all)
    return "sum all";
  if (flags == (all | CF_SUM_HIST))
    return "sum all+hist";
  const char *names[] = { "profiles", "black", "diff", "keep", "hist" };
  std::string op = "sum";
  for (int b = 0; b < 5; b++)
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

Row
bench_sum (int w, int h, const Format & fmt, bool solid, unsigned flags,
    SumImpl impl, const char *op, bool cold_keys, bool percentiles,
    bool luma_hist)
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
      (luma_hist ? (size_t) w * h : 0) +
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
   * zeroed, the others poisoned until a launch zeroes them.  With
   * CF_SUM_HIST the key counts follow the sums in each buffer, as in
   * cudasum; cf_sum_planes's are counts of their own. */
  const bool key_counts = (flags & CF_SUM_HIST) != 0;
  const size_t counts_at = (cf_sum_workspace_bytes (w, h) + 255) / 256 * 256;
  const size_t sums_bytes = counts_at +
      (key_counts ? sizeof (uint32_t) * CF_HIST_BINS : 0);
  DeviceArray < uint32_t > last_block_counts (CF_HIST_BINS);
  DeviceArray < uint8_t > sums (3 * sums_bytes);
  sums.poison ();
  CHECK (cudaMemset (sums.ptr, 0, sums_bytes));
  /* with percentiles, cudasum runs cudahist's kernel over the frame before
   * the statistics (gstcudasum.c), into sums of its own: launch n adds
   * into buffer n % 3 and zeroes buffer (n + 1) % 3 */
  const size_t hist_bytes = (cf_hist_sums_bytes () + 255) / 256 * 256;
  DeviceArray < uint8_t > hist_sums (percentiles
      || luma_hist ? 3 * hist_bytes : 1);
  if (percentiles || luma_hist) {
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
  auto counts_of =[&](int n) {
    return reinterpret_cast < uint32_t * >(sums.ptr + (n % 3) * sums_bytes +
        counts_at);
  };
  auto launch_ours =[&](const CfSamplePlane * p, int k, const CfSumKey * kk) {
    CfSumKey with_counts = *kk;
    if (impl == SUM_OURS_LAST_BLOCK) {
      with_counts.key_counts = last_block_counts.ptr;
      return (int) cf_sum_planes (p, k, &with_counts, stats.ptr, row_sums.ptr,
          column_sums.ptr, ws.ptr, nullptr);
    }
    const int n = add_launches++;
    with_counts.key_counts = counts_of (n);
    return (int) cf_sum_planes_add (p, k, &with_counts, sums.ptr + (n % 3) *
        sums_bytes, sums.ptr + ((n + 1) % 3) * sums_bytes, sums_bytes,
        nullptr);
  };
  const int n_previous = cold_keys ? n : 1;
  DeviceArray < uint8_t > previous (prev ? n_previous * prev_bytes : 1);
  CHECK (cudaMemset (previous.ptr, 0, previous.count));
  auto previous_of =[&](int i) {
    return previous.ptr + (size_t) (i % n_previous) * prev_bytes;
  };

  CfGrayWeights gw = cf_gray_weights (CF_GRAY_MATRIX_BT601);
  CfSumKey key = { flags, {gw.kr, gw.kg, gw.kb, 0}, 24, nullptr, prev_pitch,
    nullptr
  };
  if (fmt.bpp == 1) {
    /* one byte per pixel: the key is that byte, the weights unused */
    key.weights[0] = 65536;
    key.weights[1] = key.weights[2] = 0;
  }

  /* the kept keys as a plane of one channel, one byte a pixel */
  auto kept_plane =[&](uint8_t * keys) {
    CfSamplePlane kp = { };
    kp.data = keys;
    kp.pitch = prev_pitch;
    kp.width = w;
    kp.height = h;
    kp.bytes_per_pixel = 1;
    kp.channel[0] = 0;
    kp.channel[1] = kp.channel[2] = kp.channel[3] = -1;
    return kp;
  };

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
  std::vector < uint32_t > counts_want (CF_HIST_BINS);
  CfSumKey hkey = key;
  hkey.previous = prev ? prev_want.data () : nullptr;
  hkey.key_counts = counts_want.data ();
  auto reference =[&] {
    std::fill (counts_want.begin (), counts_want.end (), 0u);
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
    CHECK (cudaMemset (last_block_counts.ptr, 0, sizeof (uint32_t) *
            CF_HIST_BINS));
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
    if (key_counts) {
      std::vector < uint32_t > counts_got (CF_HIST_BINS);
      CHECK (cudaMemcpy (counts_got.data (), impl == SUM_OURS ?
              counts_of (add_launches - 1) : last_block_counts.ptr,
              sizeof (uint32_t) * CF_HIST_BINS, cudaMemcpyDeviceToHost));
      check_values_equal (what.c_str (), "key counts", counts_got.data (),
          counts_want.data (), CF_HIST_BINS);
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
  if (luma_hist) {
    const int nc = CF_HIST_MAX_CHANNELS * CF_HIST_BINS;
    std::vector < uint32_t > counts_want (nc), counts_got (nc);
    CfSamplePlane want_plane = kept_plane (prev_want.data ());
    CfSamplePlane got_plane = kept_plane (previous_of (0));
    cf_ref_hist_planes (&want_plane, 1, counts_want.data ());
    CHECK (launch_hist (&got_plane, 1));
    std::vector < uint8_t > host = hist_sums.download ();
    cf_hist_sums_counts (host.data () + ((hist_launches - 1) % 3) *
        hist_bytes, counts_got.data ());
    check_values_equal (what.c_str (), "luma histogram", counts_got.data (),
        counts_want.data (), nc);
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
    if (!err && luma_hist) {
      CfSamplePlane kp = kept_plane (kk.previous);
      err = launch_hist (&kp, 1);
    }
    return err;
  };
  time_row (row, launch, false);
  return row;
}

/* The high-bit statistics (#48): cf_sum_word_planes_add as cudasum runs
 * it on P010 or RGB10A2, taking turns between 3 sums buffers; with @key
 * (P010 only) the luma also written out at 8 bits, as it is for the
 * profiles and detectors (whose own pass, cf_sum_planes_add on that
 * plane, is not in this row). */
static Row
bench_sum_words (const Format & fmt, int w, int h, bool key)
{
  size_t bytes = frame_bytes (fmt, w, h);
  Row row = make_row ("sum", key ? "ours, luma at 8 bits out" : "ours", fmt,
      w, h, false, (double) (bytes + (key ? (size_t) w * h : 0)));
  std::string what = describe (row);
  Frames in (rotation_count (bytes), fmt, w, h), key8 (1, kGRAY8, w, h);
  in.fill (false);

  auto planes =[&](const uint8_t * frame, CfWordPlane * p) {
    return word_planes (fmt, frame, in.pitch, w, h, p);
  };
  CfWordStats want, got;
  std::vector < uint8_t > want_key (key8.bytes ());
  CfWordPlane hp[CF_HIST_MAX_PLANES];
  const int n_planes = planes (in.host.data (), hp);
  auto reference =[&] {
    cf_ref_sum_word_planes (hp, n_planes, &want, key ? want_key.data () : nullptr,
        key8.pitch);
  };
  row.cpu_us = cpu_median_us (seconds_of (reference), reference);

  const size_t sums_bytes = (cf_sum_word_sums_bytes () + 255) / 256 * 256;
  DeviceArray < uint8_t > sums (3 * sums_bytes);
  int add_launches = 0;
  Launch launch =[&](int i) {
    CfWordPlane p[CF_HIST_MAX_PLANES];
    planes (in[i], p);
    const int n = add_launches++;
    return cf_sum_word_planes_add (p, n_planes, sums.ptr + (n % 3) * sums_bytes,
        key ? key8[0] : nullptr, key8.pitch,
        sums.ptr + ((n + 1) % 3) * sums_bytes, sums_bytes, nullptr);
  };
  sums.poison ();
  CHECK (cudaMemset (sums.ptr, 0, sums_bytes));
  key8.poison (0);
  CHECK (launch (0));
  std::vector < uint8_t > host = sums.download ();
  cf_sum_word_sums_read (host.data (), &got);
  check_values_equal (what.c_str (), "sums", got.sum, want.sum, 3);
  check_values_equal (what.c_str (), "squares", got.sum_squares,
      want.sum_squares, 3);
  check_values_equal (what.c_str (), "min", got.min, want.min, 3);
  check_values_equal (what.c_str (), "max", got.max, want.max, 3);
  if (key) {
    std::vector < uint8_t > got_key = key8.download (0);
    check_rows_equal (what.c_str (), got_key.data (), key8.pitch,
        want_key.data (), key8.pitch, w, h);
  }
  time_row (row, launch, false);
  return row;
}

/* Ours (both ways) and CUB in RGBA and NV12 at every size, RGB at 4K; the
 * seeds' ladder at 720p and 4K; then the key statistics: the profiles,
 * the black count, everything, the previous keys cold, and cudasum's
 * percentiles pass. */
void
add_sum_cases (Cases & cases)
{
  const unsigned all = CF_SUM_PROFILES | CF_SUM_BLACK | CF_SUM_DIFF |
      CF_SUM_KEEP;

  for (auto fmt:kRowFormats) {
    for (auto & s:kSizes) {
      for (bool solid:kContents)
        add_case (cases, case_name ("sum", *fmt, s, "", solid),[=] {
              return bench_sum (s.w, s.h, *fmt, solid, 0, SUM_OURS);
            });
      add_case (cases, case_name ("sum", *fmt, s, " last-block", false),[=] {
            return bench_sum (s.w, s.h, *fmt, false, 0, SUM_OURS_LAST_BLOCK);
          });
      /* a reduction's time does not depend on the values */
      add_case (cases, case_name ("sum", *fmt, s, " CUB DeviceReduce::Sum",
              false),[=] {
            return bench_sum (s.w, s.h, *fmt, false, 0, SUM_CUB);
          });
    }
    if (fmt == &kRGBA)
      add_case (cases, "sum RGB 4K",[=] {
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
        add_case (cases,
            std::string ("seed sum ") + rung.name + " " + s->name,[=] {
              return bench_sum (s->w, s->h, kRGBA, false, 0, rung.impl);
            });

  for (auto fmt:kRowFormats)
    for (auto & s:kSizes)
      for (bool solid:kContents)
        add_case (cases, case_name ("sum", *fmt, s, " profiles", solid),[=] {
              return bench_sum (s.w, s.h, *fmt, solid, CF_SUM_PROFILES,
                  SUM_OURS);
            });
  for (bool key: {false, true})
    add_case (cases, std::string ("sum P010 4K") + (key ? " luma at 8 bits" :
            ""),[=] {
          return bench_sum_words (kP010, k4K.w, k4K.h, key);
        });
  add_case (cases, "sum RGB10A2 4K",[=] {
        return bench_sum_words (kRGB10A2, k4K.w, k4K.h, false);
      });
  add_case (cases, "sum RGBA 4K profiles+black",[=] {
        return bench_sum (k4K.w, k4K.h, kRGBA, false,
            CF_SUM_PROFILES | CF_SUM_BLACK, SUM_OURS);
      });
  for (auto fmt:kRowFormats)
    for (auto & s:kSizes)
      for (SumImpl impl: {SUM_OURS, SUM_OURS_LAST_BLOCK})
        add_case (cases, case_name ("sum", *fmt, s, impl == SUM_OURS ? " all" :
                " all last-block", false),[=] {
              return bench_sum (s.w, s.h, *fmt, false, all, impl);
            });
  for (auto fmt:kRowFormats)
    add_case (cases, case_name ("sum", *fmt, k4K, " all cold-keys", false),[=] {
          return bench_sum (k4K.w, k4K.h, *fmt, false, all, SUM_OURS,
              nullptr, true);
        });
  /* cudasum percentiles=true: the histogram's pass before the
   * statistics', which reads the frame once more between two frames'
   * differences */
  add_case (cases, "sum RGBA 4K percentiles",[=] {
        return bench_sum (k4K.w, k4K.h, kRGBA, false, 0, SUM_OURS,
            "sum+percentiles", false, true);
      });
  /* cudasum detect=crop+black+cut+freeze: everything and the luma's
   * counts in one pass (all+hist, as cudasum runs it), and, to compare,
   * cudahist's kernel over the keys just kept, after the pass
   * (all+cut-hist, as it ran before) */
  for (auto fmt:kRowFormats) {
    for (auto & s:kSizes)
      add_case (cases, case_name ("sum", *fmt, s, " all+hist", false),[=] {
            return bench_sum (s.w, s.h, *fmt, false, all | CF_SUM_HIST,
                SUM_OURS);
          });
    add_case (cases, case_name ("sum", *fmt, k4K, " all+cut-hist", false),[=] {
          return bench_sum (k4K.w, k4K.h, *fmt, false, all, SUM_OURS,
              "sum all+cut-hist", false, false, true);
        });
  }
  add_case (cases, "sum RGBA 4K hist",[=] {
        return bench_sum (k4K.w, k4K.h, kRGBA, false, CF_SUM_HIST, SUM_OURS);
      });
  add_case (cases, "sum NV12 4K hist",[=] {
        return bench_sum (k4K.w, k4K.h, kNV12, false, CF_SUM_HIST, SUM_OURS);
      });
  for (bool cold: {false, true})
    add_case (cases, std::string ("sum RGBA 4K all+percentiles") +
        (cold ? " cold-keys" : ""),[=] {
          return bench_sum (k4K.w, k4K.h, kRGBA, false, all, SUM_OURS,
              "sum all+percentiles", cold, true);
        });
}
