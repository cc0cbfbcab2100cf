/* GStreamer
 * gst-cudafilters: the arithmetic and the value arrays of the analysis
 * elements' messages (declared in gstcudafiltersanalysis.h).
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Exact sums past 64 bits, the variance and percentiles computed from
 * them, and the fields and arrays of values of a message: what cudahist
 * and cudasum build their results with, tested on the CPU in
 * tests/check/libs/analysis.c. */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersanalysis.h"

/**
 * gst_cuda_filters_structure_take_array:
 * @s: the structure
 * @name: the field
 * @type: G_TYPE_UINT64, G_TYPE_UINT or G_TYPE_DOUBLE
 * @n: how many values
 * @values: @n guint64, guint or gdouble
 *
 * Sets field @name of @s to a GstValueArray of @values.  Each value is
 * handed to the array (gst_value_array_append_and_take_value), not copied
 * into it: a message of 4 x 256 counts is built on the worker's thread for
 * every interval, and a copy of each value is work for nothing
 * (docs/design/analysis.md).
 */
void
gst_cuda_filters_structure_take_array (GstStructure * s, const gchar * name,
    GType type, guint n, gconstpointer values)
{
  GValue array = G_VALUE_INIT, initialized = G_VALUE_INIT;
  guint i;

  /* each value a copy of one initialized value of @type, a plain number
   * that owns nothing (the array takes its values the same way, by their
   * bytes), rather than a g_value_init () each: a message holds up to
   * 1024 of them, built for every interval (bench/message-bench) */
  g_value_init (&initialized, type);
  gst_value_array_init (&array, n);
  for (i = 0; i < n; i++) {
    GValue v = initialized;

    if (type == G_TYPE_UINT64)
      g_value_set_uint64 (&v, ((const guint64 *) values)[i]);
    else if (type == G_TYPE_UINT)
      g_value_set_uint (&v, ((const guint *) values)[i]);
    else
      g_value_set_double (&v, ((const gdouble *) values)[i]);
    gst_value_array_append_and_take_value (&array, &v);
  }
  gst_structure_take_value (s, name, &array);
}

/**
 * gst_cuda_filters_structure_set_common:
 * @s: the structure
 * @pts: @stream_time: @running_time: the first frame's times
 * @duration: from the first frame's start to the last frame's end
 * @frames: frames summed
 * @pixels: pixels of the region summed over them
 * @region: the channels' names
 *
 * Sets the fields every message and meta has.
 */
void
gst_cuda_filters_structure_set_common (GstStructure * s, GstClockTime pts,
    GstClockTime stream_time, GstClockTime running_time,
    GstClockTime duration, guint frames, guint64 pixels,
    const GstCudaFiltersRegion * region)
{
  GValue names = G_VALUE_INIT, name = G_VALUE_INIT;
  guint c;

  gst_structure_set (s, "timestamp", G_TYPE_UINT64, pts,
      "stream-time", G_TYPE_UINT64, stream_time,
      "running-time", G_TYPE_UINT64, running_time,
      "duration", G_TYPE_UINT64, duration,
      "frames", G_TYPE_UINT, frames, "pixels", G_TYPE_UINT64, pixels, NULL);
  gst_value_array_init (&names, region->n_channels);
  g_value_init (&name, G_TYPE_STRING);
  for (c = 0; c < region->n_channels; c++) {
    g_value_set_static_string (&name, region->channel_names[c]);
    gst_value_array_append_value (&names, &name);
  }
  g_value_unset (&name);
  gst_structure_take_value (s, "channels", &names);
}

GType
gst_cuda_filters_array_format_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    {GST_CUDA_FILTERS_ARRAY_FORMAT_VALUE_ARRAY, "A GstValueArray, one GValue "
          "a value (as gst-launch-1.0 -m prints it)", "value-array"},
    {GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER, "A GstBuffer of the values packed "
          "in the machine's byte order (guint64 counts, gdouble means)",
        "buffer"},
    {0, NULL, NULL},
  };

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstCudaFiltersArrayFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/**
 * gst_cuda_filters_value_buffers_clear:
 * @reuse: the buffers
 *
 * Lets go of the buffers @reuse holds (those still in a message or meta
 * live on there).
 */
void
gst_cuda_filters_value_buffers_clear (GstCudaFiltersValueBuffers * reuse)
{
  guint i;

  for (i = 0; i < GST_CUDA_FILTERS_VALUE_BUFFERS; i++)
    gst_clear_buffer (&reuse->buffers[i]);
  reuse->next = 0;
}

/* A buffer of @size bytes holding @values: one of @reuse's that nothing
 * else holds (its message is gone, no copy shares its memory and no one
 * holds a reference to the memory itself) and that has room, filled
 * again, or a new one that @reuse then keeps. */
static GstBuffer *
value_buffer (GstCudaFiltersValueBuffers * reuse, gconstpointer values,
    gsize size)
{
  GstBuffer *buf;
  guint i;

  if (!reuse)
    return gst_buffer_new_memdup (values, size);
  for (i = 0; i < GST_CUDA_FILTERS_VALUE_BUFFERS; i++) {
    gsize max_size;

    buf = reuse->buffers[i];
    if (!buf || GST_MINI_OBJECT_REFCOUNT_VALUE (buf) != 1 ||
        gst_buffer_n_memory (buf) != 1 ||
        GST_MINI_OBJECT_REFCOUNT_VALUE (gst_buffer_peek_memory (buf, 0)) != 1
        || !gst_buffer_is_all_memory_writable (buf))
      continue;
    gst_buffer_get_sizes (buf, NULL, &max_size);
    if (max_size < size)
      continue;
    gst_buffer_set_size (buf, size);
    if (gst_buffer_fill (buf, 0, values, size) != size)
      continue;
    return gst_buffer_ref (buf);
  }
  buf = gst_buffer_new_memdup (values, size);
  gst_clear_buffer (&reuse->buffers[reuse->next]);
  reuse->buffers[reuse->next] = gst_buffer_ref (buf);
  reuse->next = (reuse->next + 1) % GST_CUDA_FILTERS_VALUE_BUFFERS;
  return buf;
}

/**
 * gst_cuda_filters_structure_take_values:
 * @s: the structure
 * @name: the field
 * @type: G_TYPE_UINT64, G_TYPE_UINT or G_TYPE_DOUBLE
 * @n: how many values
 * @values: @n guint64, guint or gdouble
 * @format: how to post them
 * @reuse: (nullable): buffers to fill again where one is free
 *
 * Sets field @name of @s to @values, a long array (a histogram's counts, a
 * profile): as gst_cuda_filters_structure_take_array() does, or, in
 * @format GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER, as a #GstBuffer holding a
 * copy of the @n values as they are in memory.  Building 1024 GValues and
 * the arrays that hold them is about half the CPU time a cudahist frame
 * takes (docs/performance.md); a buffer is one copy, and with @reuse
 * mostly no allocation.
 */
void
gst_cuda_filters_structure_take_values (GstStructure * s, const gchar * name,
    GType type, guint n, gconstpointer values, GstCudaFiltersArrayFormat format,
    GstCudaFiltersValueBuffers * reuse)
{
  GValue v = G_VALUE_INIT;
  gsize size = type == G_TYPE_UINT ? sizeof (guint) : sizeof (guint64);

  if (format != GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER) {
    gst_cuda_filters_structure_take_array (s, name, type, n, values);
    return;
  }
  g_value_init (&v, GST_TYPE_BUFFER);
  g_value_take_boxed (&v, n ? value_buffer (reuse, values, n * size) :
      gst_buffer_new ());
  gst_structure_take_value (s, name, &v);
}

/**
 * gst_cuda_filters_analysis_interval_fits:
 * @frames: frames in the interval so far
 * @pixels: their pixels
 * @frame_pixels: the next frame's
 *
 * Whether the next frame can join the interval with the message's
 * `frames` (a G_TYPE_UINT) and `pixels` (a G_TYPE_UINT64) still exact.
 * Each frame has at most G_MAXUINT pixels (its caps are refused from 4 GiB
 * on), so `pixels` would not overflow before `frames` does.  Checked all
 * the same: the elements' sums are bounded by it (a histogram's counts of a
 * channel are its samples, at most the pixels).
 */
gboolean
gst_cuda_filters_analysis_interval_fits (guint64 frames, guint64 pixels,
    guint64 frame_pixels)
{
  return frames < G_MAXUINT && frame_pixels <= G_MAXUINT64 - pixels;
}

/**
 * gst_cuda_filters_variance_numerator:
 * @n: samples
 * @sum: their sum
 * @sum_squares: the sum of their squares
 *
 * n sum_squares - sum^2, the numerator of the population variance
 * (variance = numerator / n^2), computed exactly and rounded once to a
 * double.  With @n and @sum in 64 bits and @sum_squares in 128, the
 * product takes 192 bits: an interval of 2^57 samples of 0 and 255 already
 * passes 2^128.  Without a 128-bit integer type (not GCC or Clang) it is
 * computed in long double, exactly only while the terms fit its mantissa.
 * A numerator below 0 (impossible for real samples) is 0.
 */
gdouble
gst_cuda_filters_variance_numerator (guint64 n, guint64 sum,
    const GstCudaFiltersU128 * sum_squares)
{
#ifdef __SIZEOF_INT128__
  typedef unsigned __int128 u128;
  /* n q as three 64-bit limbs l2 l1 l0: n q.lo + 2^64 n q.hi */
  u128 low = (u128) n * sum_squares->lo;
  u128 high = (u128) n * sum_squares->hi;
  u128 middle = (low >> 64) + (guint64) high;
  guint64 l0 = (guint64) low, l1 = (guint64) middle;
  guint64 l2 = (guint64) (high >> 64) + (guint64) (middle >> 64);
  /* minus s^2, two limbs */
  u128 ss = (u128) sum * sum;
  guint64 s0 = (guint64) ss, s1 = (guint64) (ss >> 64);
  guint64 d0, d1, d2, borrow;

  if (l2 == 0 && (l1 < s1 || (l1 == s1 && l0 <= s0)))
    return 0.0;
  d0 = l0 - s0;
  borrow = l0 < s0;
  d1 = l1 - s1 - borrow;
  borrow = l1 < s1 || (l1 == s1 && borrow);
  d2 = l2 - borrow;
  /* the top 128 bits first, then the rest: one rounding where it counts */
  if (d2 == 0)
    return (gdouble) (((u128) d1 << 64) | d0);
  return (gdouble) (((u128) d2 << 64) | d1) * 18446744073709551616.0 +
      (gdouble) d0;
#else
  long double q = (long double) sum_squares->hi * 18446744073709551616.0L +
      (long double) sum_squares->lo;
  long double numerator = (long double) n * q - (long double) sum * sum;

  return numerator > 0 ? (gdouble) numerator : 0.0;
#endif
}

/**
 * gst_cuda_filters_percentile:
 * @counts: @n_values counts, of the values 0 to @n_values - 1
 * @n_values: how many
 * @n: their sum, the number of samples
 * @p: the percentile, 0 to 100
 *
 * Returns: the smallest value v with at least ceil (p n / 100) samples
 * <= v (at least 1 sample: the 0th percentile is the minimum); 0 without
 * samples.  The rank is computed without forming p n, which passes 64 bits
 * from n = 2^64 / 100 on.
 */
guint
gst_cuda_filters_percentile (const guint64 * counts, guint n_values,
    guint64 n, guint p)
{
  guint64 rank = n / 100 * p + (n % 100 * p + 99) / 100, seen = 0;
  guint v;

  if (n == 0 || n_values == 0)
    return 0;
  if (rank == 0)
    rank = 1;
  for (v = 0; v < n_values; v++) {
    seen += counts[v];
    if (seen >= rank)
      return v;
  }
  return n_values - 1;
}
