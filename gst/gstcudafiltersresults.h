/* GStreamer
 * gst-cudafilters: the results of the analysis elements, from the GPU to
 * the interval.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* How a frame's result gets from the kernels to the analysis base class
 * (gstcudafiltersanalysis.c), without the streaming thread waiting for the
 * GPU: result slots in pinned host memory, the device buffers analyse()
 * adds into and their copy stream, and a worker thread that waits for each
 * frame in turn, hands its result to the interval (the add callback) and
 * posts the messages.  Flushes, errors and a GPU that stops answering end
 * the streaming thread's waits.  Internal to the plugin (cf_results_
 * prefix); docs/design/analysis.md says why it is built so. */

#ifndef __GST_CUDA_FILTERS_RESULTS_H__
#define __GST_CUDA_FILTERS_RESULTS_H__

#include "gstcudafiltersanalysis.h"

G_BEGIN_DECLS

/* frames whose results may be outstanding at once */
#define CF_RESULTS_MAX_IN_FLIGHT 16

/* A frame whose result is being computed: one per slot, kept in the
 * results (no allocation a frame). */
typedef struct
{
  GList link;                   /* in the worker's queue */
  guint slot;
  guint generation;
  guint64 seq;                  /* its place among the frames analysed */
  GstBuffer *buffer;            /* held until the GPU has read it */
  GstCudaContext *context;
  GstClockTime pts, duration, stream_time, running_time;
  GstCudaFiltersRegion region;
  /* under the lock: the worker is done waiting for the GPU (err: how it
   * went), and, with attach-meta, the streaming thread still reads the
   * result (the worker keeps the slot until it is done; until then the
   * streaming thread holds the buffer, and hands it over should it stop
   * waiting) */
  gboolean done, reader;
  CfError err;
} CfResultFrame;

typedef struct _CfResults CfResults;

/* Called by the worker with the lock held, in frame order, for each frame
 * whose result is in and still wanted (no flush since): adds @result to
 * the interval; returns the message due, if any, and in @closed one to
 * post before it. */
typedef GstMessage *(*CfResultsAddFunc) (GstCudaFiltersAnalysis * self,
    const CfResultFrame * frame, gconstpointer result, GstMessage ** closed);
/* Called with the lock held: what was summed so far is dropped (flush). */
typedef void (*CfResultsResetFunc) (GstCudaFiltersAnalysis * self);
/* Called with the lock held: @frame's own @result, for its meta. */
typedef void (*CfResultsReadFunc) (GstCudaFiltersAnalysis * self,
    GstBuffer * buffer, const CfResultFrame * frame, gconstpointer result);

/* Called by the worker once for each frame of the current generation, in
 * order, as soon as the GPU is done with it and before anything reads its
 * result (a meta, @add): it may write into @result, and append to
 * @messages messages to post (the worker posts them, unless a flush comes
 * first).  With the lock. */
typedef void (*CfResultsObserveFunc) (GstCudaFiltersAnalysis * self,
    const CfResultFrame * frame, gpointer result, GPtrArray * messages);

CfResults *cf_results_new (GstCudaFiltersAnalysis * self,
    CfResultsAddFunc add, CfResultsResetFunc reset,
    CfResultsObserveFunc observe);
void cf_results_free (CfResults * r);

/* The lock that the callbacks run under, and that guards the interval. */
void cf_results_lock (CfResults * r);
void cf_results_unlock (CfResults * r);

/* start: clears the errors and starts the worker; stop: ends it (the
 * results are dropped first, cf_results_drop_pending). */
void cf_results_start (CfResults * r);
void cf_results_stop (CfResults * r);

/* Bytes of the device sums of analyse() (the caps changed). */
void cf_results_set_device_size (CfResults * r, gsize device_size);

/* Takes a free slot for the next frame, waiting for the oldest frame in
 * flight if there is none: GST_FLOW_FLUSHING, or GST_FLOW_ERROR (posted)
 * when the results failed or the GPU stopped answering. */
GstFlowReturn cf_results_reserve (CfResults * r);
/* Frees the slot taken by cf_results_reserve() if no frame took it. */
void cf_results_unreserve (CfResults * r);
/* A frame on the reserved slot, or NULL if none is reserved. */
CfResultFrame *cf_results_take_frame (CfResults * r, GstCudaContext * context);
/* Enqueues @frame's kernels (analyse()) on @stream and the copy of its
 * result; on an error @frame is dropped.  Call with the context current. */
CfError cf_results_analyse (CfResults * r, CfResultFrame * frame,
    CfStream stream);
/* The frame goes to the worker, which holds @frame->buffer, if any, until
 * the GPU is done. */
void cf_results_enqueue (CfResults * r, CfResultFrame * frame);
/* A frame that will not reach the worker: its slot is free again. */
void cf_results_drop_frame (CfResults * r, CfResultFrame * frame);

/* attach-meta: waits for the worker to have @frame's result (@frame is
 * queued, @frame->reader set) and, when it has and @buffer is writable,
 * calls @read with it.  A wait that ends early (flush, READY, timeout)
 * hands the worker a reference to @buffer. */
GstFlowReturn cf_results_read (CfResults * r, CfResultFrame * frame,
    GstBuffer * buffer, CfResultsReadFunc read);
/* The streaming thread stops reading @frame: the worker holds @buffer. */
void cf_results_hand_over (CfResults * r, CfResultFrame * frame,
    GstBuffer * buffer);

/* Waits until every queued frame is done and its messages are posted.
 * @interruptible (EOS, new caps): a flush or READY ends the wait with
 * GST_FLOW_FLUSHING, a GPU past the timeout with GST_FLOW_ERROR (not
 * posted).  Otherwise (release(): the slots are about to be freed) it
 * waits whatever happens. */
GstFlowReturn cf_results_drain (CfResults * r, gboolean interruptible);
/* Results in flight are no longer wanted (FLUSH_STOP, stop). */
void cf_results_drop_pending (CfResults * r);
/* FLUSH_START (@drop) or the change to READY: the waits end. */
void cf_results_start_flushing (CfResults * r, gboolean drop);
void cf_results_stop_flushing (CfResults * r);
/* With the lock: no flush, error or timeout, the interval may be posted. */
gboolean cf_results_usable (CfResults * r);
/* Posts an error the results met, once; GST_FLOW_ERROR if there was one. */
GstFlowReturn cf_results_check_error (CfResults * r);
void cf_results_post_timeout_error (CfResults * r);

/* Frees (@can_free: with the context current, nothing in flight) or
 * forgets the slots, the device sums and the copy stream. */
void cf_results_free_slots (CfResults * r, gboolean can_free);

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_RESULTS_H__ */
