/* GStreamer
 * gst-cudafilters: the device side of the analysis elements' results
 * (gstcudafiltersresults.h): the buffers the kernels add into, and their
 * copies to the slots.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersresultsprivate.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <string.h>

/* result slots start at this alignment in the pinned block */
#define SLOT_ALIGN 256

/* With @can_free: called with the context current, nothing in flight.
 * Without, everything is forgotten, not freed (see release in
 * gstcudafiltersbase.h). */
void
cf_results_free_slots (CfResults * r, gboolean can_free)
{
  guint i;

  /* (nothing should be in flight; a failed frame's copy may be) */
  if (can_free && r->copy_stream)
    gst_cuda_result (CuStreamSynchronize (r->copy_stream));
  for (i = 0; i < CF_RESULTS_MAX_IN_FLIGHT; i++) {
    if (can_free)
      cf_event_destroy (r->events[i]);
    r->events[i] = NULL;
  }
  if (can_free)
    cf_event_destroy (r->added);
  r->added = NULL;
  /* (seq goes on counting, since copied_seq is never reset) */
  memset (r->sums_user, 0, sizeof (r->sums_user));
  if (can_free && r->slots)
    gst_cuda_result (CuMemFreeHost (r->slots));
  r->slots = NULL;
  if (can_free && r->sums)
    gst_cuda_result (CuMemFree (r->sums));
  r->sums = 0;
  r->sums_next = 0;
  r->sums_unknown = FALSE;
  if (can_free && r->copy_stream)
    gst_cuda_result (CuStreamDestroy (r->copy_stream));
  r->copy_stream = NULL;
  g_mutex_lock (&r->lock);
  memset (r->slot_busy, 0, sizeof (r->slot_busy));
  g_mutex_unlock (&r->lock);
}

/* The device buffers of analyse(), zeroed on @stream, their events and
 * the copy stream.  Called with the context current. */
static CfError
ensure_sums (CfResults * r, CfStream stream)
{
  CfError err;

  r->device_stride = GST_ROUND_UP_N (MAX (r->device_size, 1), SLOT_ALIGN);
  if (!gst_cuda_result (CuMemAlloc (&r->sums,
              r->device_stride * CF_RESULTS_N_SUMS))) {
    r->sums = 0;
    return CF_ERROR_MEMORY_ALLOCATION;
  }
  if (!gst_cuda_result (CuStreamCreate (&r->copy_stream,
              CU_STREAM_NON_BLOCKING))) {
    r->copy_stream = NULL;
    return CF_ERROR_MEMORY_ALLOCATION;
  }
  err = cf_event_create (&r->added);
  if (err == 0)
    err = cf_fill_plane ((void *) (guintptr) r->sums,
        r->device_stride * CF_RESULTS_N_SUMS,
        r->device_stride * CF_RESULTS_N_SUMS, 1, 0, stream);
  return err;
}

/* Called with the context current. */
static CfError
ensure_slots (CfResults * r, CfStream stream)
{
  CfError err = 0;
  guint i;

  if (r->slots)
    return 0;
  /* the subclass's header, then the sums copied from the device */
  r->slot_size = GST_ROUND_UP_N (MAX (GST_CUDA_FILTERS_ANALYSIS_GET_CLASS
          (r->self)->device_offset + r->device_size, 1), SLOT_ALIGN);
  if (!gst_cuda_result (CuMemAllocHost ((void **) &r->slots,
              r->slot_size * CF_RESULTS_MAX_IN_FLIGHT))) {
    r->slots = NULL;
    return CF_ERROR_MEMORY_ALLOCATION;
  }
  for (i = 0; i < CF_RESULTS_MAX_IN_FLIGHT && err == 0; i++)
    err = cf_event_create (&r->events[i]);
  if (err == 0)
    err = ensure_sums (r, stream);
  if (err != 0)
    cf_results_free_slots (r, TRUE);    /* all or nothing: the next frame retries */
  return err;
}

static gpointer
sums_data (CfResults * r, guint i)
{
  return (gpointer) (guintptr) (r->sums + (CUdeviceptr) i * r->device_stride);
}

/* @stream waits until the last copy that reads sums buffer @i is done.
 * The lock is taken only when what was read of copied_seq before does
 * not tell: the worker holds it while it builds a message. */
static CfError
wait_for_copy (CfResults * r, guint i, CfStream stream)
{
  if (r->sums_user[i] <= r->known_copied)
    return 0;
  g_mutex_lock (&r->lock);
  r->known_copied = r->copied_seq;
  g_mutex_unlock (&r->lock);
  if (r->sums_user[i] <= r->known_copied)
    return 0;
  return cf_event_wait_on (stream, r->events[r->sums_user_slot[i]]);
}

/* The kernels add into the next buffer on @stream, and the buffer goes to
 * the slot on the copy stream, whose end is what the worker waits for. */
static CfError
analyse_on_device (CfResults * r, CfResultFrame * p, CfStream stream)
{
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (r->self);
  CfStream copy = (CfStream) r->copy_stream;
  guint8 *slot = cf_results_slot_data (r, p->slot);
  guint n = r->sums_next, next = (n + 1) % CF_RESULTS_N_SUMS;
  CfError err = 0;

  if (r->sums_unknown) {
    /* a buffer may have missed its zeroing: all again, once no copy
     * reads them (the failed frame's may have been queued without the
     * event after it: so all that the copy stream has) */
    GstCudaFiltersWaiter waiter = { 0 };

    err = cf_event_record (r->added, copy);
    if (err == 0)
      err = gst_cuda_filters_waiter_wait (&waiter, p->context, r->added);
    if (err == 0)
      err = cf_fill_plane ((void *) (guintptr) r->sums,
          r->device_stride * CF_RESULTS_N_SUMS,
          r->device_stride * CF_RESULTS_N_SUMS, 1, 0, stream);
    if (err != 0)
      return err;
    memset (r->sums_user, 0, sizeof (r->sums_user));
    r->sums_unknown = FALSE;
  }
  p->seq = ++r->seq;
  /* the next buffer is zeroed by these kernels: its last copy is out */
  err = wait_for_copy (r, next, stream);
  if (err == 0)
    err = klass->analyse (r->self, &p->region, slot, sums_data (r, n),
        sums_data (r, next), stream);
  if (err == 0)
    err = cf_event_record (r->added, stream);
  if (err == 0)
    err = cf_event_wait_on (copy, r->added);
  if (err == 0)
    err = cf_copy_to_host (slot + klass->device_offset, sums_data (r, n),
        r->device_size, copy);
  if (err == 0)
    err = cf_event_record (r->events[p->slot], copy);
  r->sums_user[n] = p->seq;
  r->sums_user_slot[n] = p->slot;
  r->sums_next = next;
  r->sums_unknown = err != 0;
  return err;
}

CfError
cf_results_analyse (CfResults * r, CfResultFrame * p, CfStream stream)
{
  CfError err = ensure_slots (r, stream);

  if (err == 0)
    err = analyse_on_device (r, p, stream);
  if (err != 0)
    cf_results_drop_frame (r, p);
  return err;
}
