/* Kernel benchmark: each kernel on frames already in device memory, against
 * the memory-bandwidth floor measured in the same run, CUB where it does
 * the same work, the origin articles' kernels (bench/seeds.cu) and the CPU
 * reference.  The method and the CSV are described in harness.cuh; the
 * rows of each operation are in its own file (gray.cu, blur.cu, hist.cu,
 * sum.cu, profiles.cu), and a plain read of the frame's in read.cu.
 *
 *   kernel-bench [--csv FILE] [--reps N] [--only NAME-PART]
 *
 * Every row has a case name (the add_*_cases functions list them); --only
 * runs the rows whose name contains NAME-PART, e.g. "sum RGBA 4K", "blur",
 * "seed", or, with a leading '=', the row of that exact name ("=sum RGBA
 * 4K").  --only may be given more than once: the rows that any of them
 * picks, in the usual order. */
#include <set>

#include "harness.cuh"

/* Every row, in the order of the table: ours in RGBA and NV12 at every
 * size on random and solid frames, CUB and the seeds beside them; the
 * seeds' slowest rung on a 720p frame. */
static Cases
all_cases (void)
{
  Cases cases;
  add_gray_cases (cases);
  add_blur_cases (cases);
  add_hist_cases (cases);
  add_sum_cases (cases);
  add_profiles_cases (cases);
  add_read_cases (cases);
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
    write_csv_header (f);
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
