/* GStreamer
 * gst-cudafilters: the state of the analysis elements' results, shared by
 * gstcudafiltersresults.c (the slots, the worker, the waits) and
 * gstcudafiltersresultsdevice.c (the device buffers and the copies).
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/* Internal to the plugin: the rest of it uses gstcudafiltersresults.h. */

#ifndef __GST_CUDA_FILTERS_RESULTS_PRIVATE_H__
#define __GST_CUDA_FILTERS_RESULTS_PRIVATE_H__

#include "gstcudafiltersresults.h"
#include "gstcudafilterswait.h"

G_BEGIN_DECLS

/* device buffers analyse() adds into, in turn: a frame adds into one and
 * zeroes the next, whose copy to the host (of the frame CF_RESULTS_N_SUMS
 * - 1 before) must be done first.  One more than the slots: a frame has a
 * slot only once the frame CF_RESULTS_MAX_IN_FLIGHT before it has left the
 * worker, which saw its copy done, so no frame's kernels wait for a copy,
 * and the streaming thread queues no wait for one (but after a frame
 * dropped on the way, or whose wait failed) */
#define CF_RESULTS_N_SUMS (CF_RESULTS_MAX_IN_FLIGHT + 1)

struct _CfResults
{
  GstCudaFiltersAnalysis *self;
  CfResultsAddFunc add;
  CfResultsResetFunc reset;
  CfResultsObserveFunc observe;
  /* the worker's: what observe() found in the frame it handles (messages
   * and events, each set to NULL once sent), one array for every frame */
  GPtrArray *observed;

  /* the slot reserve() took for the next frame, or -1 */
  gint reserved;

  /* Held by the worker from checking a frame's generation until its
   * messages are posted, and by FLUSH_STOP to bump the generation: once
   * FLUSH_STOP has been handled, no result message of a frame before it
   * can follow (the ordering `level` gets from posting under the stream
   * lock).  So a bus sync handler, which runs on the worker's thread
   * while a message is posted, must not wait for a thread that flushes.
   * Taken before `lock`; recursive, so that a sync handler that flushes
   * from the worker's own thread does not deadlock (the message it is
   * handling then reaches the bus after that flush). */
  GRecMutex post_lock;

  /* from here to the slots, under lock but where said otherwise */
  GMutex lock;
  GCond cond;
  /* threads in a wait on cond (wake_waiters()): a broadcast is a system
   * call, and the worker's two a frame mostly find no thread waiting */
  guint waiting;
  GThread *worker;
  GstCudaFiltersWaiter waiter;  /* the worker's own: not under the lock */
  gboolean quit;
  GQueue queue;                 /* of CfResultFrame, oldest first */
  guint generation;             /* bumped on flush: results dropped */
  CfError error;                /* a failure seen by the worker */
  gboolean error_posted;        /* its element error is on the bus */
  /* FLUSH_START to FLUSH_STOP, and from PAUSED_TO_READY on: the streaming
   * thread's waits end with GST_FLOW_FLUSHING */
  gboolean flushing;
  /* when the worker began waiting for the GPU (monotonic, us), 0 when it
   * does not wait; and whether that took longer than GPU_TIMEOUT_S */
  gint64 gpu_wait_start;
  gboolean timed_out;
  /* the sequence number of the last frame whose copy the worker has seen
   * done (frames are copied in order) */
  guint64 copied_seq;

  /* result slots: pinned host memory, where the kernels' sums are copied
   * to.  The block and the events are made and freed by the streaming
   * thread (ensure_slots(), free_slots() once nothing is in flight), and
   * a slot is read by whichever thread holds it; slot_busy is under the
   * lock, and a frame is its slot's holder's. */
  gsize slot_size;
  guint8 *slots;
  CfEvent events[CF_RESULTS_MAX_IN_FLIGHT];
  gboolean slot_busy[CF_RESULTS_MAX_IN_FLIGHT];
  /* the frame on each busy slot */
  CfResultFrame frames[CF_RESULTS_MAX_IN_FLIGHT];

  /* The rest is the streaming thread's, not under the lock (and
   * free_slots()'s, once nothing is in flight). */

  /* the buffers analyse() adds into, CF_RESULTS_N_SUMS of them, copied to
   * the slots on a stream of their own (copy_stream) */
  gsize device_size, device_stride;
  CUdeviceptr sums;
  guint sums_next;
  CUstream copy_stream;
  /* a frame's kernels are done (and, after a failed frame, all that the
   * copy stream holds) */
  CfEvent added;
  /* Frames analysed so far (a frame's sequence number, from 1; never
   * reset, as copied_seq is not), copied_seq as last read, and the last
   * frame whose copy reads each buffer (0: none since they were zeroed)
   * and its slot, whose event follows that copy.  A frame whose copy the
   * worker has seen done needs no wait.  One that it has not seen still
   * holds its slot, so the slot's event is that copy's; or it was dropped,
   * or its wait failed, and the slot's event is that copy's or a later
   * copy's on the same stream: a longer wait, never a shorter one.  So no
   * event is recorded a buffer. */
  guint64 seq, known_copied;
  guint64 sums_user[CF_RESULTS_N_SUMS];
  guint sums_user_slot[CF_RESULTS_N_SUMS];
  gboolean sums_unknown;        /* a frame failed half-way: zero them again */
};

/* Slot @slot's bytes: the subclass's header, then the sums copied from
 * the device. */
static inline gpointer
cf_results_slot_data (CfResults * r, guint slot)
{
  return r->slots + (gsize) slot *r->slot_size;
}

G_END_DECLS
#endif /* __GST_CUDA_FILTERS_RESULTS_PRIVATE_H__ */
