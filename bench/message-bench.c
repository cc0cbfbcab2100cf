/* Message benchmark: the CPU time to build and free an analysis element's
 * message, as cudahist posts one a frame: a structure with four arrays
 * of 256 guint64 counts (RGBA), built with the base class's
 * gst_cuda_filters_structure_take_values, then wrapped in an element
 * message and freed.  No GPU.  Buffers are filled again once their
 * message is freed, as the elements do; --no-reuse allocates them anew.
 *
 *   message-bench [--messages 20000] [--channels 4] [--bins 256]
 *                 [--array-format value-array|buffer] [--no-reuse]
 *
 * Prints the median over five rounds of the µs per message to build it
 * and to free it (docs/performance.md, "CPU per frame"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>

#include "gstcudafiltersanalysis.h"

static int
compare_doubles (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  static const char *names[] = { "red", "green", "blue", "alpha" };
  guint n_messages = 20000, channels = 4, bins = 256, i, c, round;
  double build_us[5], free_us[5];
  guint64 *counts;
  GstObject *src;
  GstCudaFiltersArrayFormat format = GST_CUDA_FILTERS_ARRAY_FORMAT_VALUE_ARRAY;
  GstCudaFiltersValueBuffers buffers = { {NULL}, 0 };
  GstCudaFiltersValueBuffers *reuse = &buffers;

  gst_init (&argc, &argv);
  for (i = 1; i < (guint) argc; i++) {
    if (!strcmp (argv[i], "--messages") && i + 1 < (guint) argc)
      n_messages = (guint) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--channels") && i + 1 < (guint) argc)
      channels = (guint) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--bins") && i + 1 < (guint) argc)
      bins = (guint) atoi (argv[++i]);
    else if (!strcmp (argv[i], "--array-format") && i + 1 < (guint) argc &&
        (!strcmp (argv[i + 1], "value-array") ||
            !strcmp (argv[i + 1], "buffer")))
      format = !strcmp (argv[++i], "buffer") ?
          GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER :
          GST_CUDA_FILTERS_ARRAY_FORMAT_VALUE_ARRAY;
    else if (!strcmp (argv[i], "--no-reuse"))
      reuse = NULL;
    else {
      fprintf (stderr, "usage: %s [--messages N] [--channels 1-4] "
          "[--bins N] [--array-format value-array|buffer] [--no-reuse]\n",
          argv[0]);
      return 2;
    }
  }
  if (n_messages < 1 || channels < 1 || channels > 4 || bins < 1) {
    fprintf (stderr, "message-bench: --messages and --bins at least 1, "
        "--channels 1 to 4\n");
    return 2;
  }
  counts = g_new (guint64, bins);
  for (i = 0; i < bins; i++)
    counts[i] = (guint64) g_random_int ();
  src = GST_OBJECT (gst_bin_new ("src"));

  for (round = 0; round < 5; round++) {
    gint64 building = 0, freeing = 0;

    for (i = 0; i < n_messages; i++) {
      gint64 t0 = g_get_monotonic_time (), t1;
      GstStructure *s = gst_structure_new ("cudahist", "timestamp",
          G_TYPE_UINT64, (guint64) i, "bins", G_TYPE_UINT, bins, NULL);
      GstMessage *m;

      for (c = 0; c < channels; c++)
        gst_cuda_filters_structure_take_values (s, names[c], G_TYPE_UINT64,
            bins, counts, format, reuse);
      m = gst_message_new_element (src, s);
      t1 = g_get_monotonic_time ();
      gst_message_unref (m);
      building += t1 - t0;
      freeing += g_get_monotonic_time () - t1;
    }
    build_us[round] = (double) building / n_messages;
    free_us[round] = (double) freeing / n_messages;
  }
  qsort (build_us, 5, sizeof (double), compare_doubles);
  qsort (free_us, 5, sizeof (double), compare_doubles);
  printf ("%u channels x %u counts as %s: build %.2f us, free %.2f us a "
      "message (median of 5 rounds of %u)\n", channels, bins,
      format != GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER ? "value arrays" :
      reuse ? "buffers filled again" : "new buffers", build_us[2],
      free_us[2], n_messages);
  gst_cuda_filters_value_buffers_clear (&buffers);
  gst_object_unref (src);
  g_free (counts);
  return 0;
}
