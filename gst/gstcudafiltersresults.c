/* GStreamer
 * gst-cudafilters: the results of the analysis elements, from the GPU to
 * the interval (gstcudafiltersresults.h): the slots, the worker and the
 * waits.  The device side, where the kernels' sums go and how they are
 * copied to the slots, is gstcudafiltersresultsdevice.c.
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

#include <string.h>

/* (the analysis base class's: results are its work) */
GST_DEBUG_CATEGORY_EXTERN (gst_cuda_filters_analysis_debug);
#define GST_CAT_DEFAULT gst_cuda_filters_analysis_debug

/* Seconds the GPU may take over one frame before the element gives up with
 * an error instead of waiting on.  A busy GPU shared with other work or a
 * display may be slow; one that has not finished a frame in 10 s has
 * stopped answering (a hung kernel, a device lost or being reset). */
#define GPU_TIMEOUT_S 10

CfResults *
cf_results_new (GstCudaFiltersAnalysis * self, CfResultsAddFunc add,
    CfResultsResetFunc reset, CfResultsObserveFunc observe)
{
  CfResults *r = g_new0 (CfResults, 1);

  r->self = self;
  r->add = add;
  r->reset = reset;
  r->observe = observe;
  r->observed = g_ptr_array_new ();
  r->reserved = -1;
  g_mutex_init (&r->lock);
  g_rec_mutex_init (&r->post_lock);
  g_cond_init (&r->cond);
  g_queue_init (&r->queue);
  return r;
}

void
cf_results_free (CfResults * r)
{
  if (!r)
    return;
  g_mutex_clear (&r->lock);
  g_rec_mutex_clear (&r->post_lock);
  g_cond_clear (&r->cond);
  g_ptr_array_free (r->observed, TRUE);
  g_free (r);
}

void
cf_results_lock (CfResults * r)
{
  g_mutex_lock (&r->lock);
}

void
cf_results_unlock (CfResults * r)
{
  g_mutex_unlock (&r->lock);
}

void
cf_results_set_device_size (CfResults * r, gsize device_size)
{
  r->device_size = device_size;
}

gboolean
cf_results_usable (CfResults * r)
{
  return !r->flushing && r->error == 0 && !r->timed_out;
}

/* After a change that a thread may wait for, with the lock.  A thread
 * counts itself in `waiting`, with the lock, before it waits, so none is
 * missed. */
static void
wake_waiters (CfResults * r)
{
  if (r->waiting > 0)
    g_cond_broadcast (&r->cond);
}

/* With the lock; @deadline (monotonic) or 0 for none. */
static void
wait_on_cond (CfResults * r, gint64 deadline)
{
  r->waiting++;
  if (deadline)
    g_cond_wait_until (&r->cond, &r->lock, deadline);
  else
    g_cond_wait (&r->cond, &r->lock);
  r->waiting--;
}

/* Before its slot is free again: then take_frame() may reuse it. */
static void
frame_clear (CfResultFrame * p)
{
  gst_clear_buffer (&p->buffer);
  gst_clear_object (&p->context);
}

static void
release_slot (CfResults * r, guint slot)
{
  g_mutex_lock (&r->lock);
  r->slot_busy[slot] = FALSE;
  wake_waiters (r);
  g_mutex_unlock (&r->lock);
}

void
cf_results_drop_frame (CfResults * r, CfResultFrame * p)
{
  if (!p)
    return;
  frame_clear (p);
  release_slot (r, p->slot);
}

static CfError
wait_for_gpu (CfResults * r, CfResultFrame * p)
{
  return gst_cuda_filters_waiter_wait (&r->waiter, p->context,
      r->events[p->slot]);
}

/* One wait of a thread that waits for the worker, with the lock held:
 * GST_FLOW_OK when woken (the caller checks what it waits for again),
 * GST_FLOW_FLUSHING when flushing and @interruptible, GST_FLOW_ERROR once
 * the worker has waited GPU_TIMEOUT_S for one frame (or did before).  The
 * worker itself waits on until the GPU is done (gstcudafilterswait.c): it
 * is the streaming thread's waits that end. */
static GstFlowReturn
wait_for_worker (CfResults * r, gboolean interruptible)
{
  const gint64 timeout = GPU_TIMEOUT_S * G_TIME_SPAN_SECOND;
  gint64 now, deadline;

  if (interruptible && r->flushing)
    return GST_FLOW_FLUSHING;
  if (r->timed_out)
    return GST_FLOW_ERROR;
  now = g_get_monotonic_time ();
  if (r->gpu_wait_start > 0) {
    deadline = r->gpu_wait_start + timeout;
    if (now >= deadline) {
      r->timed_out = TRUE;
      return GST_FLOW_ERROR;
    }
  } else {
    /* the worker is not waiting for the GPU (it posts, or is about to
     * wait): look again in a second (it does not wake us when it starts) */
    deadline = now + G_TIME_SPAN_SECOND;
  }
  wait_on_cond (r, deadline);
  return GST_FLOW_OK;
}

/* Posts the element error of a frame whose results failed, once, from
 * whichever thread sees it first: the worker as soon as it happens (the
 * stream may have no next frame, or stop without EOS), the streaming
 * thread where its own frame's meta failed. */
static void
post_results_error (CfResults * r, CfError err)
{
  gboolean first;

  g_mutex_lock (&r->lock);
  first = !r->error_posted;
  r->error_posted = TRUE;
  g_mutex_unlock (&r->lock);
  if (first) {
    GST_ELEMENT_ERROR (r->self, STREAM, FAILED,
        ("CUDA failed while computing a frame's results: %s.",
            cf_error_name (err)), (NULL));
  }
}

/* The error of a GPU that stopped answering (wait_for_worker()), once. */
void
cf_results_post_timeout_error (CfResults * r)
{
  gboolean first;
  guint queued;

  g_mutex_lock (&r->lock);
  r->timed_out = TRUE;
  first = !r->error_posted;
  r->error_posted = TRUE;
  queued = g_queue_get_length (&r->queue);
  g_mutex_unlock (&r->lock);
  if (first) {
    GST_ELEMENT_ERROR (r->self, STREAM, FAILED,
        ("The GPU did not finish a frame within %d seconds.", GPU_TIMEOUT_S),
        ("%u frame(s) in flight; a hung kernel or a lost device?  Their "
            "results are dropped.", queued));
  }
}

/* The error that ends every later frame, posted (once), or GST_FLOW_OK.
 * Called with the lock; returns without it. */
static GstFlowReturn
unlock_and_check_error (CfResults * r)
{
  CfError err = r->error;
  gboolean timed_out = r->timed_out;

  g_mutex_unlock (&r->lock);
  if (err != 0)
    post_results_error (r, err);
  else if (timed_out)
    cf_results_post_timeout_error (r);
  return err != 0 || timed_out ? GST_FLOW_ERROR : GST_FLOW_OK;
}

GstFlowReturn
cf_results_check_error (CfResults * r)
{
  g_mutex_lock (&r->lock);
  return unlock_and_check_error (r);
}

/* Whether @p is of the stream since the last flush. */
static gboolean
is_current (CfResults * r, const CfResultFrame * p)
{
  gboolean current;

  g_mutex_lock (&r->lock);
  current = p->generation == r->generation;
  g_mutex_unlock (&r->lock);
  return current;
}

/* Sends what observe() found for @p, unless a flush has come since: its
 * messages (@events FALSE: the worker, with post_lock) or its events,
 * upstream from the sink pad (@events TRUE: without post_lock, for
 * upstream elements handle them in this thread and may take locks that a
 * flushing streaming thread holds while it waits for post_lock).  Each
 * one sent, or dropped, is taken out of r->observed. */
static void
send_observed (CfResults * r, const CfResultFrame * p, gboolean events)
{
  guint i;

  for (i = 0; i < r->observed->len; i++) {
    GstMiniObject *m = g_ptr_array_index (r->observed, i);

    if (!m || !GST_IS_EVENT (m) != !events)
      continue;
    g_ptr_array_index (r->observed, i) = NULL;
    if (!is_current (r, p))
      gst_mini_object_unref (m);
    else if (events)
      gst_pad_push_event (GST_BASE_TRANSFORM_SINK_PAD (r->self),
          GST_EVENT_CAST (m));
    else
      gst_element_post_message (GST_ELEMENT (r->self), GST_MESSAGE_CAST (m));
  }
}

/* The worker: waits for the oldest frame's result, sums it, posts what is
 * due, and only then lets the frame go, so that an empty queue means every
 * message is out. */
static gpointer
worker_loop (gpointer data)
{
  CfResults *r = data;
  GstElement *element = GST_ELEMENT (r->self);

  gst_cuda_filters_waiter_thread_init ();
  g_mutex_lock (&r->lock);
  for (;;) {
    CfResultFrame *p;
    GstMessage *msg = NULL, *closed = NULL;
    gboolean observed_any = FALSE;
    CfError err, failed = 0;

    while (!r->quit && g_queue_is_empty (&r->queue))
      wait_on_cond (r, 0);
    if (g_queue_is_empty (&r->queue))
      break;
    p = g_queue_peek_head (&r->queue);
    r->gpu_wait_start = g_get_monotonic_time ();
    g_mutex_unlock (&r->lock);

    err = wait_for_gpu (r, p);

    g_mutex_lock (&r->lock);
    r->gpu_wait_start = 0;
    /* its copy is done, and so is every earlier frame's */
    if (err == 0 && p->seq > r->copied_seq)
      r->copied_seq = p->seq;
    if (err == 0 && r->observe && p->generation == r->generation &&
        cf_results_usable (r)) {
      g_ptr_array_set_size (r->observed, 0);
      r->observe (r->self, p, cf_results_slot_data (r, p->slot), r->observed);
      observed_any = r->observed->len > 0;
    }
    p->done = TRUE;
    p->err = err;
    wake_waiters (r);           /* a frame waiting for its meta */
    g_mutex_unlock (&r->lock);

    g_rec_mutex_lock (&r->post_lock);
    g_mutex_lock (&r->lock);
    if (err != 0) {
      GST_WARNING_OBJECT (r->self, "frame's results failed: %s",
          cf_error_name (err));
      if (r->error == 0)
        r->error = failed = err;
    } else if (p->generation == r->generation && cf_results_usable (r)) {
      msg = r->add (r->self, p, cf_results_slot_data (r, p->slot), &closed);
    }
    g_mutex_unlock (&r->lock);

    /* in stream order: the interval that ended before this frame, what
     * observing this frame found, the interval this frame ends */
    if (closed)
      gst_element_post_message (element, closed);
    if (observed_any)
      send_observed (r, p, FALSE);
    if (msg && (closed || observed_any)) {
      /* a bus sync handler may have flushed from this thread meanwhile
       * (post_lock is recursive): then msg is of a frame before it */
      g_mutex_lock (&r->lock);
      if (p->generation != r->generation)
        gst_clear_message (&msg);
      g_mutex_unlock (&r->lock);
    }
    if (msg)
      gst_element_post_message (element, msg);
    g_rec_mutex_unlock (&r->post_lock);
    if (observed_any)
      send_observed (r, p, TRUE);
    if (failed != 0)
      post_results_error (r, failed);

    g_mutex_lock (&r->lock);
    /* (the streaming thread reads the slot for a meta, under the lock and
     * without waiting for anything: not for long) */
    while (p->reader)
      wait_on_cond (r, 0);
    /* the buffer may go back to its pool, perhaps the decoder's: outside
     * the lock, and before the frame leaves the queue, so that a drained
     * queue holds nothing and a slot is free only once its frame is
     * cleared (take_frame() reuses it) */
    g_mutex_unlock (&r->lock);
    frame_clear (p);
    g_mutex_lock (&r->lock);
    g_queue_pop_head_link (&r->queue);
    r->slot_busy[p->slot] = FALSE;
    wake_waiters (r);
  }
  g_mutex_unlock (&r->lock);
  return NULL;
}

void
cf_results_start (CfResults * r)
{
  g_mutex_lock (&r->lock);
  r->quit = FALSE;
  r->error = 0;
  r->error_posted = FALSE;
  r->flushing = FALSE;
  r->timed_out = FALSE;
  r->gpu_wait_start = 0;
  r->reset (r->self);
  r->worker = g_thread_new ("cudafilters-results", worker_loop, r);
  g_mutex_unlock (&r->lock);
}

void
cf_results_stop (CfResults * r)
{
  GThread *worker;

  g_mutex_lock (&r->lock);
  r->quit = TRUE;
  worker = r->worker;
  r->worker = NULL;
  wake_waiters (r);
  g_mutex_unlock (&r->lock);
  if (worker)
    g_thread_join (worker);
}

/* Waits until every queued frame is done and its messages are posted
 * (gstcudafiltersresults.h).  Without @interruptible, the slots the GPU
 * copies into are about to be freed, and freeing them under it could
 * crash: a GPU past the timeout is reported while it waits on. */
GstFlowReturn
cf_results_drain (CfResults * r, gboolean interruptible)
{
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean late = FALSE;

  g_mutex_lock (&r->lock);
  while (r->worker && !g_queue_is_empty (&r->queue)) {
    if (late) {
      wait_on_cond (r, 0);
      continue;
    }
    ret = wait_for_worker (r, interruptible);
    if (ret == GST_FLOW_OK)
      continue;
    if (interruptible)
      break;
    late = TRUE;
    ret = GST_FLOW_OK;
    g_mutex_unlock (&r->lock);
    cf_results_post_timeout_error (r);
    g_mutex_lock (&r->lock);
  }
  g_mutex_unlock (&r->lock);
  return ret;
}

/* Waits for a message being posted (see post_lock). */
void
cf_results_drop_pending (CfResults * r)
{
  g_rec_mutex_lock (&r->post_lock);
  g_mutex_lock (&r->lock);
  r->generation++;
  r->reset (r->self);
  g_mutex_unlock (&r->lock);
  g_rec_mutex_unlock (&r->post_lock);
}

/* FLUSH_START (from any thread) or the change to READY.  post_lock is not
 * taken: a message being posted goes out before FLUSH_STOP, which does
 * wait for it. */
void
cf_results_start_flushing (CfResults * r, gboolean drop)
{
  g_mutex_lock (&r->lock);
  r->flushing = TRUE;
  if (drop) {
    r->generation++;
    r->reset (r->self);
  }
  wake_waiters (r);
  g_mutex_unlock (&r->lock);
}

void
cf_results_stop_flushing (CfResults * r)
{
  g_mutex_lock (&r->lock);
  r->flushing = FALSE;
  g_mutex_unlock (&r->lock);
}

/* Taken before the base class runs the frame, so that a wait can end in
 * GST_FLOW_FLUSHING (a flush, the change to READY) or in an error of its
 * own (a GPU that stopped answering) rather than in a CUDA error. */
GstFlowReturn
cf_results_reserve (CfResults * r)
{
  GstFlowReturn ret;
  guint i;

  g_mutex_lock (&r->lock);
  for (;;) {
    if (r->error != 0 || r->timed_out)
      return unlock_and_check_error (r);
    if (r->flushing) {
      ret = GST_FLOW_FLUSHING;
      break;
    }
    for (i = 0; i < CF_RESULTS_MAX_IN_FLIGHT && r->slot_busy[i]; i++);
    if (i < CF_RESULTS_MAX_IN_FLIGHT) {
      r->slot_busy[i] = TRUE;
      r->reserved = (gint) i;
      ret = GST_FLOW_OK;
      break;
    }
    ret = wait_for_worker (r, TRUE);
    if (ret == GST_FLOW_ERROR)
      return unlock_and_check_error (r);
    if (ret != GST_FLOW_OK)
      break;
  }
  g_mutex_unlock (&r->lock);
  return ret;
}

void
cf_results_unreserve (CfResults * r)
{
  if (r->reserved >= 0)
    release_slot (r, (guint) r->reserved);
  r->reserved = -1;
}

CfResultFrame *
cf_results_take_frame (CfResults * r, GstCudaContext * context)
{
  CfResultFrame *p;

  /* (transform_ip() took a slot; the base class calls process() from
   * there only) */
  g_return_val_if_fail (r->reserved >= 0, NULL);
  p = &r->frames[r->reserved];
  memset (p, 0, sizeof (*p));
  p->link.data = p;
  p->slot = (guint) r->reserved;
  r->reserved = -1;
  p->context = gst_object_ref (context);
  return p;
}

void
cf_results_enqueue (CfResults * r, CfResultFrame * p)
{
  g_mutex_lock (&r->lock);
  p->generation = r->generation;
  g_queue_push_tail_link (&r->queue, &p->link);
  wake_waiters (r);
  g_mutex_unlock (&r->lock);
}

void
cf_results_hand_over (CfResults * r, CfResultFrame * p, GstBuffer * buffer)
{
  g_mutex_lock (&r->lock);
  p->buffer = gst_buffer_ref (buffer);
  p->reader = FALSE;
  wake_waiters (r);
  g_mutex_unlock (&r->lock);
}

GstFlowReturn
cf_results_read (CfResults * r, CfResultFrame * p, GstBuffer * buf,
    CfResultsReadFunc read)
{
  gboolean writable = gst_buffer_is_writable (buf);
  GstFlowReturn ret = GST_FLOW_OK;
  CfError err;

  g_mutex_lock (&r->lock);
  while (!p->done && (ret = wait_for_worker (r, TRUE)) == GST_FLOW_OK);
  if (!p->done) {
    p->buffer = gst_buffer_ref (buf);
    p->reader = FALSE;
    wake_waiters (r);
    g_mutex_unlock (&r->lock);
    if (ret == GST_FLOW_ERROR)
      cf_results_post_timeout_error (r);
    return ret;
  }

  err = p->err;
  /* under the lock: the subclass's callbacks run one at a time */
  if (err == 0 && writable)
    read (r->self, buf, p, cf_results_slot_data (r, p->slot));
  /* the worker may let the slot go */
  p->reader = FALSE;
  wake_waiters (r);
  g_mutex_unlock (&r->lock);

  if (err != 0) {
    post_results_error (r, err);
    return GST_FLOW_ERROR;
  }
  if (!writable)
    GST_WARNING_OBJECT (r->self, "buffer not writable, no meta attached");
  return GST_FLOW_OK;
}
