/* GStreamer
 * gst-cudafilters: ordering the elements' work by the streams of
 * GStreamer 1.24+'s CUDA memory.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Since 1.24 a GstCudaMemory carries the stream its producer writes it on,
 * and producers push before their writes are done.  The base class's frame
 * path (gstcudafilterspath.c) orders its work with what is here: one
 * stream waiting for another through an event, and input frames held
 * until the GPU has read them.  Built against gstreamer-cuda-1.0 1.24 and later
 * only (docs/design/gpu-path.md, "Streams"). */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersorder.h"
#include "gstcudafilterswait.h"

#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudastream.h>
#include <gst/cuda/gstcudautils.h>

/**
 * gst_cuda_filters_memory_stream:
 *
 * Returns: the stream @mem's writes and uploads are queued on; NULL (the
 * legacy default stream, which blocking streams wait for anyway) if none.
 */
CUstream
gst_cuda_filters_memory_stream (GstMemory * mem)
{
  return gst_cuda_stream_get_handle (gst_cuda_memory_get_stream
      (GST_CUDA_MEMORY_CAST (mem)));
}

/**
 * gst_cuda_filters_order_streams:
 * @event: recorded on @earlier, for @later to wait on; may be reused at
 *   once, since a wait takes the event's record as it is when queued
 *
 * Work queued on @later from now on starts after the work queued so far on
 * @earlier.  Nothing is waited for on the CPU; nothing is done when either
 * is NULL or both are the same stream.  Call with the context current.
 */
CfError
gst_cuda_filters_order_streams (CUstream later, CUstream earlier, CfEvent event)
{
  CfError err;

  if (!later || !earlier || later == earlier)
    return 0;
  err = cf_event_record (event, (CfStream) earlier);
  if (err == 0)
    err = cf_event_wait_on ((CfStream) later, event);
  return err;
}

/* A build with -DCF_TEST_WITHOUT_STREAM_ORDER neither waits for the input's
 * stream nor holds the input: tests/check/libs/stream-order.c must then fail
 * (docs/development.md). */
#ifdef CF_TEST_WITHOUT_STREAM_ORDER
#define STREAM_ORDER FALSE
#else
#define STREAM_ORDER TRUE
#endif

/**
 * gst_cuda_filters_order_after_memory:
 *
 * Work queued on @stream from now on starts after the work queued so far
 * on @mem's stream: 1.24+ producers push before their writes are done, and
 * mapping for CUDA may have just queued an upload there.
 */
CfError
gst_cuda_filters_order_after_memory (CUstream stream, GstMemory * mem,
    CfEvent event)
{
  if (!STREAM_ORDER)
    return 0;
  return gst_cuda_filters_order_streams (stream,
      gst_cuda_filters_memory_stream (mem), event);
}

/**
 * gst_cuda_filters_order_memory_after:
 *
 * The other way: work queued from now on on @mem's stream starts after the
 * work queued so far on @stream, so that its consumers, which wait for
 * that stream, see our writes.
 */
CfError
gst_cuda_filters_order_memory_after (GstMemory * mem, CUstream stream,
    CfEvent event)
{
  return gst_cuda_filters_order_streams (gst_cuda_filters_memory_stream (mem),
      stream, event);
}

/* Input frames pushed on while the GPU may still read them (on 1.24+ the
 * elements do not wait for the GPU per frame).  Their producer must not
 * write them again before the reads are done, and not every producer
 * orders its writes by a stream: NVDEC's own surfaces go back to the
 * decoder when released, and pinned system memory is written by the CPU.
 * So each frame is held with an event recorded after the reads, and let
 * go once the event is done:
 * - by the streaming thread, as it holds the next frame: it asks the
 *   oldest frames' events (a query each, no wait);
 * - by a thread, for the frames that no next frame follows soon: a
 *   producer with a small pool sends none until one of its frames comes
 *   back.  Where one frame is held, the thread gives the streaming thread
 *   PATIENCE_US to let it go, then waits for its event
 *   (gstcudafilterswait.c).  Where more are (the GPU is behind, and the
 *   next hold would find the oldest still in use), or someone waits for a
 *   frame to go (a hold with all GST_CUDA_FILTERS_MAX_HELD_FRAMES places
 *   taken, wait_empty()), it waits for the oldest at once.
 * Where the GPU keeps up and frames come less than PATIENCE_US apart, the
 * thread so wakes about once in PATIENCE_US, rather than once a frame as
 * when it let every frame go (its wake-ups were a large part of a
 * filter's CPU time: docs/performance.md, "CPU per frame").  Where they
 * come further apart, the thread still lets every frame go, PATIENCE_US
 * after the hold at the earliest.  A frame that no other follows goes back
 * within 2 PATIENCE_US of its hold where the GPU is done by then (the
 * patience restarts when the streaming thread lets the frame before go),
 * so a producer that waits for each frame to come back runs at a few
 * thousand frames a second at most. */
#define PATIENCE_US 250

struct _GstCudaFiltersHeldFrames
{
  GMutex lock;
  /* the thread's: a first frame held (while idle), a second (ending its
   * patience), quit, impatient */
  GCond wake;
  /* a frame let go while impatient */
  GCond let_go;
  GThread *thread;
  gboolean quit;
  /* the thread waits for a first frame (a hold wakes it) */
  gboolean idle;
  /* threads waiting for a frame to go (a hold with every place taken,
   * wait_empty()): the thread lets go without patience */
  guint impatient;
  /* the context of the events (prepare) */
  GstCudaContext *context;
  CfEvent done[GST_CUDA_FILTERS_MAX_HELD_FRAMES];
  GstBuffer *buffer[GST_CUDA_FILTERS_MAX_HELD_FRAMES];
  guint head, count;
  /* frames let go so far (wrapping; atomic): whether the oldest frame
   * changed meanwhile, which a wait for it reads without the lock */
  gint released;
  /* waits for an event without the lock: wait_empty() waits for them too,
   * since the streaming thread may let go of the frame waited for, and its
   * event must outlive the wait */
  guint waiting;
  /* waiting for an event failed: the next hold reports it */
  CfError error;
};

GstCudaFiltersHeldFrames *
gst_cuda_filters_held_frames_new (void)
{
  GstCudaFiltersHeldFrames *held = g_new0 (GstCudaFiltersHeldFrames, 1);

  g_mutex_init (&held->lock);
  g_cond_init (&held->wake);
  g_cond_init (&held->let_go);
  return held;
}

/* Frees @held once nothing is held and its thread has ended. */
void
gst_cuda_filters_held_frames_free (GstCudaFiltersHeldFrames * held)
{
  if (!held)
    return;
  gst_cuda_filters_held_frames_stop (held);
  g_mutex_clear (&held->lock);
  g_cond_clear (&held->wake);
  g_cond_clear (&held->let_go);
  g_free (held);
}

/**
 * gst_cuda_filters_held_frames_prepare:
 *
 * Makes the events of @context that frames are held with.  Call with
 * @context current, nothing held.
 */
CfError
gst_cuda_filters_held_frames_prepare (GstCudaFiltersHeldFrames * held,
    GstCudaContext * context)
{
  CfError err = 0;
  guint i;

  g_mutex_lock (&held->lock);
  for (i = 0; i < GST_CUDA_FILTERS_MAX_HELD_FRAMES && err == 0; i++)
    err = cf_event_create (&held->done[i]);
  held->context = context;
  held->error = 0;
  g_mutex_unlock (&held->lock);
  return err;
}

/**
 * gst_cuda_filters_held_frames_unprepare:
 * @context_current: whether the events' context is current, so that they
 *   can be destroyed (without it they are forgotten)
 *
 * Waits until nothing is held, then drops the events and the context.
 */
void
gst_cuda_filters_held_frames_unprepare (GstCudaFiltersHeldFrames * held,
    gboolean context_current)
{
  guint i;

  gst_cuda_filters_held_frames_wait_empty (held);
  g_mutex_lock (&held->lock);
  for (i = 0; i < GST_CUDA_FILTERS_MAX_HELD_FRAMES; i++) {
    if (context_current)
      cf_event_destroy (held->done[i]);
    held->done[i] = NULL;
  }
  held->context = NULL;
  g_mutex_unlock (&held->lock);
}

/* The oldest frame, no longer held.  Call with the lock, count > 0; unref
 * it without. */
static GstBuffer *
take_oldest (GstCudaFiltersHeldFrames * held)
{
  GstBuffer *buffer = held->buffer[held->head];

  held->buffer[held->head] = NULL;
  held->head = (held->head + 1) % GST_CUDA_FILTERS_MAX_HELD_FRAMES;
  held->count--;
  g_atomic_int_inc (&held->released);
  if (held->impatient > 0)
    g_cond_broadcast (&held->let_go);
  return buffer;
}

/* Waits, without the lock, for the event of the oldest frame; then, with
 * it again, takes that frame unless it was let go meanwhile (NULL).
 * The wait is given up at its next ask once the streaming thread lets
 * the frame go: its event may be recorded again for a later frame, and
 * the time spent would mislead the waiter's next first sleep.
 * A failed wait is kept for the next hold to report (held->error).
 */
static GstBuffer *
wait_and_take_oldest (GstCudaFiltersHeldFrames * held,
    GstCudaFiltersWaiter * waiter)
{
  CfEvent done = held->done[held->head];
  gint released = held->released;
  GstCudaContext *context =
      held->context ? gst_object_ref (held->context) : NULL;
  CfError err = CF_ERROR_MEMORY_ALLOCATION;

  held->waiting++;
  g_mutex_unlock (&held->lock);
  if (context)
    err = gst_cuda_filters_waiter_wait_unless (waiter, context, done,
        &held->released, released);
  gst_clear_object (&context);
  g_mutex_lock (&held->lock);
  held->waiting--;
  if (held->released != released) {
    if (held->impatient > 0)
      g_cond_broadcast (&held->let_go);
    return NULL;
  }
  if (err != 0 && held->error == 0)
    held->error = err;
  return take_oldest (held);
}

static gpointer
held_frames_loop (gpointer data)
{
  GstCudaFiltersHeldFrames *held = data;
  GstCudaFiltersWaiter waiter = { 0 };

  gst_cuda_filters_waiter_thread_init ();
  g_mutex_lock (&held->lock);
  for (;;) {
    GstBuffer *buffer;

    if (held->count == 0) {
      if (held->quit)
        break;
      held->idle = TRUE;
      g_cond_wait (&held->wake, &held->lock);
      held->idle = FALSE;
      continue;
    }
    if (held->count == 1 && !held->quit && held->impatient == 0) {
      /* patience: the streaming thread may let the frame go; not while
       * the GPU is a frame or more behind (count > 1), where it would not */
      gint released = held->released;
      gint64 until = g_get_monotonic_time () + PATIENCE_US;

      while (held->released == released && held->count == 1 &&
          !held->quit && held->impatient == 0 &&
          g_cond_wait_until (&held->wake, &held->lock, until));
      if (held->released != released)
        continue;
    }
    buffer = wait_and_take_oldest (held, &waiter);
    if (buffer) {
      /* back to its pool, perhaps the decoder's: outside the lock */
      g_mutex_unlock (&held->lock);
      gst_buffer_unref (buffer);
      g_mutex_lock (&held->lock);
    }
  }
  g_mutex_unlock (&held->lock);
  return NULL;
}

/**
 * gst_cuda_filters_held_frames_hold:
 *
 * Holds @buffer until the work queued so far on @stream is done, first
 * letting go of the frames whose work is done.  Waits for the oldest when
 * GST_CUDA_FILTERS_MAX_HELD_FRAMES are held (the GPU is that far behind).
 * Call with the context of prepare() current, from one thread at a time.
 */
CfError
gst_cuda_filters_held_frames_hold (GstCudaFiltersHeldFrames * held,
    GstBuffer * buffer, CUstream stream)
{
  GstBuffer *let_go[GST_CUDA_FILTERS_MAX_HELD_FRAMES];
  guint n_let_go = 0, slot, i;
  CfError err;

  g_mutex_lock (&held->lock);
  while (held->count > 0) {
    int done = cf_event_done (held->done[held->head]);

    if (done < 0 && held->error == 0)
      held->error = (CfError) - done;
    if (done != 0) {
      let_go[n_let_go++] = take_oldest (held);
    } else if (held->count == GST_CUDA_FILTERS_MAX_HELD_FRAMES) {
      /* the GPU is that far behind: the thread waits for the oldest, as
       * it does best (its sleeps follow the GPU's pace) */
      held->impatient++;
      g_cond_signal (&held->wake);
      while (held->count == GST_CUDA_FILTERS_MAX_HELD_FRAMES)
        g_cond_wait (&held->let_go, &held->lock);
      held->impatient--;
    } else {
      break;
    }
  }
  err = held->error;
  if (err == 0) {
    slot = (held->head + held->count) % GST_CUDA_FILTERS_MAX_HELD_FRAMES;
    err = cf_event_record (held->done[slot], (CfStream) stream);
    if (err == 0) {
      held->buffer[slot] = gst_buffer_ref (buffer);
      held->count++;
      /* the thread waits for a first frame, or is patient with one */
      if (!held->thread)
        held->thread = g_thread_new ("cudafilters-held", held_frames_loop,
            held);
      else if (held->idle || held->count == 2)
        g_cond_signal (&held->wake);
    }
  }
  g_mutex_unlock (&held->lock);
  /* back to their pools, outside the lock */
  for (i = 0; i < n_let_go; i++)
    gst_buffer_unref (let_go[i]);
  return err;
}

/**
 * gst_cuda_filters_hold_input:
 *
 * The input may still be read by the GPU when it is pushed on: held until
 * the work queued so far on @stream is done.
 */
CfError
gst_cuda_filters_hold_input (GstCudaFiltersHeldFrames * held,
    GstBuffer * buffer, CUstream stream)
{
  if (!STREAM_ORDER)
    return 0;
  return gst_cuda_filters_held_frames_hold (held, buffer, stream);
}

/* Waits until every held frame is let go: the thread lets them go
 * without patience meanwhile. */
void
gst_cuda_filters_held_frames_wait_empty (GstCudaFiltersHeldFrames * held)
{
  g_mutex_lock (&held->lock);
  held->impatient++;
  g_cond_signal (&held->wake);
  while (held->count > 0 || held->waiting > 0)
    g_cond_wait (&held->let_go, &held->lock);
  held->impatient--;
  g_mutex_unlock (&held->lock);
}

/* Ends the thread (at stop, or at dispose when the element was never
 * stopped), once nothing is held. */
void
gst_cuda_filters_held_frames_stop (GstCudaFiltersHeldFrames * held)
{
  GThread *thread;

  gst_cuda_filters_held_frames_wait_empty (held);
  g_mutex_lock (&held->lock);
  held->quit = TRUE;
  thread = held->thread;
  held->thread = NULL;
  g_cond_signal (&held->wake);
  g_mutex_unlock (&held->lock);
  if (thread)
    g_thread_join (thread);
  held->quit = FALSE;
}
