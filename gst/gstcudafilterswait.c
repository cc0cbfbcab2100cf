/* GStreamer
 * gst-cudafilters: how the elements' own threads wait for the GPU.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* The elements' helper threads (held input frames, analysis results) wait
 * for frames' events.  A thread blocked on a blocking-sync event is
 * woken through the driver's event-handler thread, which costs more CPU a
 * frame than asking (docs/performance.md, "The cost of each way to
 * wait").  These threads ask instead whether the event is done, and
 * sleep between asks: first for three quarters of what the last wait took,
 * at most MAX_SLEEP_US (frames in a stream take about as long as each
 * other), then for short and doubling spans up to MAX_SLEEP_US, for as
 * long as it takes: a GPU that never finishes is asked every MAX_SLEEP_US.
 * Their queues hold several frames, so learning of a frame a little late
 * does not slow the stream, not even attach-meta's, whose streaming thread
 * waits on the results thread (docs/performance.md, "Waiting by
 * asking"). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafilterswait.h"

#ifdef __linux__
#include <sys/prctl.h>
#endif

/* the spans slept between asks: the first guess is clamped to
 * [MIN_SLEEP_US, MAX_SLEEP_US], and later ones start at MIN_SLEEP_US and
 * double up to MAX_SLEEP_US */
#define MIN_SLEEP_US 20
#define MAX_SLEEP_US 250
/* nanoseconds a sleep of this thread may overrun: Linux's default slack
 * is larger than the shortest sleep above */
#define TIMER_SLACK_NS 5000

/**
 * gst_cuda_filters_waiter_thread_init:
 *
 * Called once by a thread of the plugin's own that waits with a waiter:
 * lets its sleeps end closer to when they are due.
 */
void
gst_cuda_filters_waiter_thread_init (void)
{
#ifdef __linux__
  (void) prctl (PR_SET_TIMERSLACK, (unsigned long) TIMER_SLACK_NS, 0, 0, 0);
#endif
}

/**
 * gst_cuda_filters_waiter_wait:
 * @event: recorded in @context
 *
 * Returns once the work before @event's record is done: 0, or the error
 * of that work.  Pushes @context for the while.
 */
CfError
gst_cuda_filters_waiter_wait (GstCudaFiltersWaiter * waiter,
    GstCudaContext * context, CfEvent event)
{
  return gst_cuda_filters_waiter_wait_unless (waiter, context, event, NULL, 0);
}

/**
 * gst_cuda_filters_waiter_wait_unless:
 * @stamp: (nullable): read between asks (atomically)
 *
 * As gst_cuda_filters_waiter_wait(), but gives up, returning 0, once
 * *@stamp is no longer @seen: another thread has had what was waited for.
 * A wait given up does not count as the last wait, whose length sets the
 * next first sleep.
 */
CfError
gst_cuda_filters_waiter_wait_unless (GstCudaFiltersWaiter * waiter,
    GstCudaContext * context, CfEvent event, const gint * stamp, gint seen)
{
  gint64 start, sleep_us, next_us = MIN_SLEEP_US;
  gboolean given_up = FALSE;
  int done;

  if (!gst_cuda_context_push (context))
    return CF_ERROR_MEMORY_ALLOCATION;
  done = cf_event_done (event);
  if (done == 0) {
    start = g_get_monotonic_time ();
    sleep_us = CLAMP (waiter->last_wait_us * 3 / 4, MIN_SLEEP_US, MAX_SLEEP_US);
    for (;;) {
      g_usleep (sleep_us);
      if (stamp && g_atomic_int_get (stamp) != seen) {
        given_up = TRUE;
        break;
      }
      done = cf_event_done (event);
      if (done != 0)
        break;
      sleep_us = next_us;
      next_us = MIN (next_us * 2, MAX_SLEEP_US);
    }
    if (!given_up)
      waiter->last_wait_us = g_get_monotonic_time () - start;
  } else {
    waiter->last_wait_us = 0;
  }
  gst_cuda_context_pop (NULL);
  return done < 0 ? (CfError) - done : 0;
}
