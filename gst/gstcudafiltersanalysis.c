/* GStreamer
 * gst-cudafilters: the base class of the analysis elements.
 *
 * This library is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Library General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 */

/**
 * SECTION:gstcudafiltersanalysis
 * @title: GstCudaFiltersAnalysis
 * @short_description: base class of the frame-statistics elements
 *
 * An analysis element passes every frame through untouched and posts what
 * it measured as element messages, the way `level` does, and optionally as
 * a #GstCustomMeta on the frame.  This class owns what cudahist and cudasum
 * share:
 *
 * - the region of interest (`roi-x`, `roi-y`, `roi-width`, `roi-height`)
 *   and the channels of each format;
 * - frames in flight: the streaming thread enqueues a frame's kernels and
 *   pushes the frame on at once; a worker thread waits for the GPU, adds
 *   the frame's result to the interval and posts the messages, in frame
 *   order.  The frame's buffer is held until the GPU has read it.  At most
 *   %MAX_IN_FLIGHT frames are in flight; the next one waits for a slot;
 * - `interval`, `post-messages` and the message's time fields; at EOS the
 *   partial interval is posted, on flush what is pending is dropped and
 *   no result message of a frame before FLUSH_STOP is posted after it.
 *   An interval is posted early, before the frame that would overflow a
 *   field of its message (`frames` is a G_TYPE_UINT), and sums that can
 *   pass 64 bits are kept in 128;
 * - `attach-meta`: the frame waits for its own result, which is attached to
 *   it before it is pushed.
 *
 * The streaming thread's waits for a slot, for a frame's own meta and for
 * the frames in flight at EOS end with FLUSH_START and the change to READY
 * (GST_FLOW_FLUSHING), and a frame the GPU has not finished in
 * GPU_TIMEOUT_S (10) seconds is an element error (GST_FLOW_ERROR).  The
 * waits before GPU memory is freed (release(): caps or context change,
 * stop) wait for the GPU however long it takes, so that nothing is freed
 * under it: a GPU that never answers again blocks them.
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstcudafiltersanalysis.h"

#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <string.h>

GST_DEBUG_CATEGORY_STATIC (gst_cuda_filters_analysis_debug);
#define GST_CAT_DEFAULT gst_cuda_filters_analysis_debug

/* frames whose results may be outstanding at once */
#define MAX_IN_FLIGHT 16
/* device buffers analyse() adds into, in turn: frame n adds into
 * buffer n % N_SUMS and zeroes the next one, whose copy to the host (of
 * frame n + 1 - N_SUMS) its kernels wait for; with 4 that copy is long
 * done, and the kernels of consecutive frames follow each other without
 * waiting for any copy */
#define N_SUMS 4
/* result slots start at this alignment in the pinned block */
#define SLOT_ALIGN 256
/* Seconds the GPU may take over one frame before the element gives up with
 * an error instead of waiting on.  A frame takes microseconds to a few
 * milliseconds, and a busy GPU shared with other work or a display a few
 * hundred; one that has not finished a frame in 10 s has stopped answering
 * (a hung kernel, a device lost or being reset). */
#define GPU_TIMEOUT_S 10

#define DEFAULT_POST_MESSAGES TRUE
#define DEFAULT_INTERVAL 0
#define DEFAULT_ATTACH_META FALSE

enum
{
  PROP_0,
  PROP_POST_MESSAGES,
  PROP_INTERVAL,
  PROP_ATTACH_META,
  PROP_ROI_X,
  PROP_ROI_Y,
  PROP_ROI_WIDTH,
  PROP_ROI_HEIGHT,
};

/* GRAY8, xRGB and xBGR are system memory only: GStreamer's CUDA allocator
 * (1.22 to 1.28) has no layout for them. */
#define CUDA_FORMATS \
  "{ RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, RGB, BGR, I420, NV12, Y444 }"
#define SYS_FORMATS \
  "{ RGBA, BGRA, ARGB, ABGR, RGBx, BGRx, xRGB, xBGR, RGB, BGR, GRAY8, " \
  "I420, NV12, Y444 }"

/* A frame whose result is being computed. */
typedef struct
{
  guint slot;
  guint generation;
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
} Pending;

typedef struct
{
  /* properties, under the object lock */
  gboolean post_messages;
  guint64 interval;
  gboolean attach_meta;
  guint roi_x, roi_y, roi_width, roi_height;

  GstVideoInfo info;
  gsize slot_size, total_size;

  /* the frame of the current transform, between process() and finish() */
  Pending *current;
  /* with attach-meta: the frame waiting for its meta in transform_ip() */
  Pending *meta_frame;
  /* the slot transform_ip() took for process(), or -1 */
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

  /* everything below is under lock */
  GMutex lock;
  GCond cond;
  GThread *worker;
  gboolean quit;
  GQueue queue;                 /* of Pending, oldest first */
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

  /* result slots: pinned host memory, where the kernels' sums are copied
   * to */
  guint8 *slots;
  CfEvent events[MAX_IN_FLIGHT];
  gboolean slot_busy[MAX_IN_FLIGHT];

  /* the buffers analyse() adds into, N_SUMS of them, copied to the slots
   * on a stream of their own (copy_stream) */
  gsize device_size, device_stride;
  CUdeviceptr sums;
  guint sums_next;
  CUstream copy_stream;
  CfEvent added[N_SUMS];        /* the kernels adding into a buffer are done */
  CfEvent copied[N_SUMS];       /* its copy to the host is done */
  gboolean sums_unknown;        /* a frame failed half-way: zero them again */

  /* the interval being summed: frames stays under G_MAXUINT (the message's
   * type) and pixels under 2^64 (add_frame() posts the interval first) */
  gpointer total;
  guint64 frames;
  guint64 pixels;
  GstClockTime start_pts, start_stream_time, start_running_time, end;
  GstCudaFiltersRegion region;
} GstCudaFiltersAnalysisPrivate;

#define gst_cuda_filters_analysis_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstCudaFiltersAnalysis,
    gst_cuda_filters_analysis, GST_TYPE_CUDA_FILTERS_BASE);

#define PRIV(self) ((GstCudaFiltersAnalysisPrivate *) \
    gst_cuda_filters_analysis_get_instance_private (GST_CUDA_FILTERS_ANALYSIS (self)))

/* ---- the region and its channels -------------------------------------- */

/* The region of interest of @frame and each plane's part of it, with the
 * channel of each byte of a pixel. */
static void
region_of_frame (GstCudaFiltersAnalysis * self,
    const GstCudaFiltersFrame * frame, GstCudaFiltersRegion * r)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  const GstVideoFormatInfo *finfo = frame->info->finfo;
  static const gchar *rgb_names[] = { "R", "G", "B", "A" };
  static const gchar *yuv_names[] = { "Y", "U", "V", "A" };
  gint width = GST_VIDEO_INFO_WIDTH (frame->info);
  gint height = GST_VIDEO_INFO_HEIGHT (frame->info);
  guint c, p;

  memset (r, 0, sizeof (*r));
  GST_OBJECT_LOCK (self);
  r->x = (gint) MIN (priv->roi_x, (guint) width);
  r->y = (gint) MIN (priv->roi_y, (guint) height);
  r->width = width - r->x;
  r->height = height - r->y;
  if (priv->roi_width)
    r->width = (gint) MIN (priv->roi_width, (guint) r->width);
  if (priv->roi_height)
    r->height = (gint) MIN (priv->roi_height, (guint) r->height);
  GST_OBJECT_UNLOCK (self);
  r->pixels = (guint64) r->width * r->height;

  r->n_channels = MIN (GST_VIDEO_FORMAT_INFO_N_COMPONENTS (finfo),
      CF_HIST_MAX_CHANNELS);
  r->n_planes = GST_VIDEO_FORMAT_INFO_N_PLANES (finfo);
  for (p = 0; p < r->n_planes; p++) {
    CfSamplePlane *pl = &r->planes[p];
    memset (pl->channel, 0xff, sizeof (pl->channel));   /* -1: not counted */
  }
  for (c = 0; c < r->n_channels; c++) {
    guint plane = GST_VIDEO_FORMAT_INFO_PLANE (finfo, c);
    CfSamplePlane *pl = &r->planes[plane];
    gint wsub = GST_VIDEO_FORMAT_INFO_W_SUB (finfo, c);
    gint hsub = GST_VIDEO_FORMAT_INFO_H_SUB (finfo, c);
    gint x0 = r->x >> wsub, y0 = r->y >> hsub;

    r->channel_names[c] = GST_VIDEO_FORMAT_INFO_IS_RGB (finfo) ?
        rgb_names[c] : yuv_names[c];
    pl->bytes_per_pixel = GST_VIDEO_FORMAT_INFO_PSTRIDE (finfo, c);
    pl->channel[GST_VIDEO_FORMAT_INFO_POFFSET (finfo, c)] = (int) c;
    /* subsampled planes: every sample that covers part of the region */
    pl->width = r->width ? GST_VIDEO_SUB_SCALE (wsub, r->x + r->width) - x0 : 0;
    pl->height = r->height ? GST_VIDEO_SUB_SCALE (hsub, r->y + r->height) -
        y0 : 0;
    pl->pitch = frame->stride[plane];
    pl->data = frame->data[plane] + (gsize) y0 *pl->pitch +
        (gsize) x0 *pl->bytes_per_pixel;
  }
}

/* ---- results ---------------------------------------------------------- */

static gpointer
slot_data (GstCudaFiltersAnalysisPrivate * priv, guint slot)
{
  return priv->slots + (gsize) slot *priv->slot_size;
}

/* The fields every message and meta has. */
static void
set_common_fields (GstStructure * s, GstClockTime pts, GstClockTime
    stream_time, GstClockTime running_time, GstClockTime duration,
    guint frames, guint64 pixels, const GstCudaFiltersRegion * region)
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

static void
reset_interval (GstCudaFiltersAnalysisPrivate * priv)
{
  priv->frames = 0;
  priv->pixels = 0;
  priv->start_pts = priv->start_stream_time = priv->start_running_time =
      priv->end = GST_CLOCK_TIME_NONE;
}

/* The message for the interval summed so far, or NULL; resets it.  Called
 * with the lock. */
static GstMessage *
take_interval_message (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  GstMessage *msg = NULL;
  gboolean post;

  GST_OBJECT_LOCK (self);
  post = priv->post_messages;
  GST_OBJECT_UNLOCK (self);

  if (post && priv->frames > 0) {
    GstClockTime duration = GST_CLOCK_TIME_IS_VALID (priv->start_pts) &&
        GST_CLOCK_TIME_IS_VALID (priv->end) && priv->end >= priv->start_pts ?
        priv->end - priv->start_pts : GST_CLOCK_TIME_NONE;
    GstStructure *s = gst_structure_new_empty (klass->message_name);

    /* (add_frame() keeps frames within a guint) */
    set_common_fields (s, priv->start_pts, priv->start_stream_time,
        priv->start_running_time, duration, (guint) priv->frames,
        priv->pixels, &priv->region);
    klass->fill_structure (self, s, priv->total, (guint) priv->frames,
        &priv->region);
    msg = gst_message_new_element (GST_OBJECT (self), s);
  }
  reset_interval (priv);
  return msg;
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

/* Adds a finished frame to the interval; returns the message when that
 * ends the interval.  A frame that starts before the interval does (a
 * timestamp gone back without a flush), or that would overflow a field of
 * the message, first ends the interval summed so far, whose message goes
 * to @closed, and starts the next.  Called with the lock. */
static GstMessage *
add_frame (GstCudaFiltersAnalysis * self, Pending * p, GstMessage ** closed)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  gconstpointer result = slot_data (priv, p->slot);
  guint64 interval;

  *closed = NULL;
  if (priv->frames > 0 && GST_CLOCK_TIME_IS_VALID (p->pts) &&
      GST_CLOCK_TIME_IS_VALID (priv->start_pts) && p->pts < priv->start_pts) {
    GST_DEBUG_OBJECT (self, "timestamp %" GST_TIME_FORMAT " before the "
        "interval's start %" GST_TIME_FORMAT ": the interval ends",
        GST_TIME_ARGS (p->pts), GST_TIME_ARGS (priv->start_pts));
    *closed = take_interval_message (self);
  } else if (priv->frames > 0 &&
      (!gst_cuda_filters_analysis_interval_fits (priv->frames, priv->pixels,
              p->region.pixels) || (klass->fits
              && !klass->fits (self, priv->total, result)))) {
    GST_INFO_OBJECT (self, "the interval is full after %" G_GUINT64_FORMAT
        " frames: posted early", priv->frames);
    *closed = take_interval_message (self);
  }
  if (priv->frames == 0) {
    priv->start_pts = p->pts;
    priv->start_stream_time = p->stream_time;
    priv->start_running_time = p->running_time;
  }
  klass->accumulate (self, priv->total, result, (guint) priv->frames);
  priv->frames++;
  priv->pixels += p->region.pixels;
  priv->region = p->region;
  priv->end = GST_CLOCK_TIME_IS_VALID (p->pts) &&
      GST_CLOCK_TIME_IS_VALID (p->duration) ? p->pts + p->duration :
      GST_CLOCK_TIME_NONE;

  GST_OBJECT_LOCK (self);
  interval = priv->interval;
  GST_OBJECT_UNLOCK (self);

  /* without times an interval cannot be measured: every frame is posted.
   * (end >= start_pts: a frame before the start began a new interval) */
  if (interval == 0 || !GST_CLOCK_TIME_IS_VALID (priv->start_pts) ||
      !GST_CLOCK_TIME_IS_VALID (priv->end) || priv->end < priv->start_pts ||
      priv->end - priv->start_pts >= interval)
    return take_interval_message (self);
  return NULL;
}

static void
pending_free (Pending * p)
{
  gst_clear_buffer (&p->buffer);
  gst_clear_object (&p->context);
  g_free (p);
}

static void
release_slot (GstCudaFiltersAnalysisPrivate * priv, guint slot)
{
  g_mutex_lock (&priv->lock);
  priv->slot_busy[slot] = FALSE;
  g_cond_broadcast (&priv->cond);
  g_mutex_unlock (&priv->lock);
}

/* A frame that will not reach the worker: its slot is free again. */
static void
drop_frame (GstCudaFiltersAnalysisPrivate * priv, Pending * p)
{
  if (!p)
    return;
  release_slot (priv, p->slot);
  pending_free (p);
}

static CfError
wait_for_gpu (GstCudaFiltersAnalysisPrivate * priv, Pending * p)
{
  CfError err = CF_ERROR_MEMORY_ALLOCATION;

  if (gst_cuda_context_push (p->context)) {
    err = cf_event_wait (priv->events[p->slot]);
    gst_cuda_context_pop (NULL);
  }
  return err;
}

/* One wait of a thread that waits for the worker, with the lock held:
 * GST_FLOW_OK when woken (the caller checks what it waits for again),
 * GST_FLOW_FLUSHING when flushing and @interruptible, GST_FLOW_ERROR once
 * the worker has waited GPU_TIMEOUT_S for one frame (or did before).  The
 * worker itself waits in cuEventSynchronize, which has no timeout and
 * cannot be woken: it is the streaming thread's waits that end. */
static GstFlowReturn
wait_for_worker (GstCudaFiltersAnalysisPrivate * priv, gboolean interruptible)
{
  const gint64 timeout = GPU_TIMEOUT_S * G_TIME_SPAN_SECOND;
  gint64 now, deadline;

  if (interruptible && priv->flushing)
    return GST_FLOW_FLUSHING;
  if (priv->timed_out)
    return GST_FLOW_ERROR;
  now = g_get_monotonic_time ();
  if (priv->gpu_wait_start > 0) {
    deadline = priv->gpu_wait_start + timeout;
    if (now >= deadline) {
      priv->timed_out = TRUE;
      return GST_FLOW_ERROR;
    }
  } else {
    /* the worker is not waiting for the GPU (it posts, or is about to
     * wait): look again in a second (it does not wake us when it starts) */
    deadline = now + G_TIME_SPAN_SECOND;
  }
  g_cond_wait_until (&priv->cond, &priv->lock, deadline);
  return GST_FLOW_OK;
}

/* Posts the element error of a frame whose results failed, once, from
 * whichever thread sees it first: the worker as soon as it happens (the
 * stream may have no next frame, or stop without EOS), the streaming
 * thread where its own frame's meta failed. */
static void
post_results_error (GstCudaFiltersAnalysis * self, CfError err)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  gboolean first;

  g_mutex_lock (&priv->lock);
  first = !priv->error_posted;
  priv->error_posted = TRUE;
  g_mutex_unlock (&priv->lock);
  if (first) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("CUDA failed while computing a frame's results: %s.",
            cf_error_name (err)), (NULL));
  }
}

/* The error of a GPU that stopped answering (wait_for_worker()), once. */
static void
post_timeout_error (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  gboolean first;
  guint queued;

  g_mutex_lock (&priv->lock);
  priv->timed_out = TRUE;
  first = !priv->error_posted;
  priv->error_posted = TRUE;
  queued = g_queue_get_length (&priv->queue);
  g_mutex_unlock (&priv->lock);
  if (first) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("The GPU did not finish a frame within %d seconds.", GPU_TIMEOUT_S),
        ("%u frame(s) in flight; a hung kernel or a lost device?  Their "
            "results are dropped.", queued));
  }
}

/* The error that ends every later frame, posted (once), or GST_FLOW_OK.
 * Called with the lock; returns without it. */
static GstFlowReturn
unlock_and_check_error (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  CfError err = priv->error;
  gboolean timed_out = priv->timed_out;

  g_mutex_unlock (&priv->lock);
  if (err != 0)
    post_results_error (self, err);
  else if (timed_out)
    post_timeout_error (self);
  return err != 0 || timed_out ? GST_FLOW_ERROR : GST_FLOW_OK;
}

/* The worker: waits for the oldest frame's result, sums it, posts what is
 * due, and only then lets the frame go, so that an empty queue means every
 * message is out. */
static gpointer
worker_loop (gpointer data)
{
  GstCudaFiltersAnalysis *self = data;
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  for (;;) {
    Pending *p;
    GstMessage *msg = NULL, *closed = NULL;
    CfError err, failed = 0;

    while (!priv->quit && g_queue_is_empty (&priv->queue))
      g_cond_wait (&priv->cond, &priv->lock);
    if (g_queue_is_empty (&priv->queue))
      break;
    p = g_queue_peek_head (&priv->queue);
    priv->gpu_wait_start = g_get_monotonic_time ();
    g_mutex_unlock (&priv->lock);

    err = wait_for_gpu (priv, p);

    g_mutex_lock (&priv->lock);
    priv->gpu_wait_start = 0;
    p->done = TRUE;
    p->err = err;
    g_cond_broadcast (&priv->cond);     /* a frame waiting for its meta */
    g_mutex_unlock (&priv->lock);

    g_rec_mutex_lock (&priv->post_lock);
    g_mutex_lock (&priv->lock);
    if (err != 0) {
      GST_WARNING_OBJECT (self, "frame's results failed: %s",
          cf_error_name (err));
      if (priv->error == 0)
        priv->error = failed = err;
    } else if (p->generation == priv->generation && !priv->flushing &&
        priv->error == 0 && !priv->timed_out) {
      msg = add_frame (self, p, &closed);
    }
    g_mutex_unlock (&priv->lock);

    if (closed) {
      gst_element_post_message (GST_ELEMENT (self), closed);
      /* a bus sync handler may have flushed from this thread meanwhile
       * (post_lock is recursive): then msg is of a frame before it */
      g_mutex_lock (&priv->lock);
      if (msg && p->generation != priv->generation)
        gst_clear_message (&msg);
      g_mutex_unlock (&priv->lock);
    }
    if (msg)
      gst_element_post_message (GST_ELEMENT (self), msg);
    g_rec_mutex_unlock (&priv->post_lock);
    if (failed != 0)
      post_results_error (self, failed);

    g_mutex_lock (&priv->lock);
    /* (the streaming thread reads the slot for a meta, under the lock and
     * without waiting for anything: not for long) */
    while (p->reader)
      g_cond_wait (&priv->cond, &priv->lock);
    g_queue_pop_head (&priv->queue);
    priv->slot_busy[p->slot] = FALSE;
    g_cond_broadcast (&priv->cond);
    g_mutex_unlock (&priv->lock);
    pending_free (p);
    g_mutex_lock (&priv->lock);
  }
  g_mutex_unlock (&priv->lock);
  return NULL;
}

/* Waits until every queued frame is done and its messages are posted.
 *
 * @interruptible (EOS, new caps): a flush or the change to READY ends the
 * wait with GST_FLOW_FLUSHING, and a GPU that takes GPU_TIMEOUT_S over a
 * frame with GST_FLOW_ERROR (the caller posts the error).
 *
 * Otherwise (release(): the slots the GPU copies into are about to be
 * freed, and freeing them under it could crash) it waits for every frame
 * whatever happens; a GPU past the timeout is reported while it waits on. */
static GstFlowReturn
drain (GstCudaFiltersAnalysis * self, gboolean interruptible)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstFlowReturn ret = GST_FLOW_OK;
  gboolean late = FALSE;

  g_mutex_lock (&priv->lock);
  while (priv->worker && !g_queue_is_empty (&priv->queue)) {
    if (late) {
      g_cond_wait (&priv->cond, &priv->lock);
      continue;
    }
    ret = wait_for_worker (priv, interruptible);
    if (ret == GST_FLOW_OK)
      continue;
    if (interruptible)
      break;
    late = TRUE;
    ret = GST_FLOW_OK;
    g_mutex_unlock (&priv->lock);
    post_timeout_error (self);
    g_mutex_lock (&priv->lock);
  }
  g_mutex_unlock (&priv->lock);
  return ret;
}

/* Results of frames in flight are no longer wanted (flush, stop).  Waits
 * for a message being posted (see post_lock). */
static void
drop_pending (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  g_rec_mutex_lock (&priv->post_lock);
  g_mutex_lock (&priv->lock);
  priv->generation++;
  reset_interval (priv);
  g_mutex_unlock (&priv->lock);
  g_rec_mutex_unlock (&priv->post_lock);
}

/* FLUSH_START (from any thread) or the change to READY: the streaming
 * thread's waits end, and the results of the frames in flight are
 * dropped.  post_lock is not taken: a message being posted goes out before
 * FLUSH_STOP, which does wait for it. */
static void
start_flushing (GstCudaFiltersAnalysis * self, gboolean drop)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  priv->flushing = TRUE;
  if (drop) {
    priv->generation++;
    reset_interval (priv);
  }
  g_cond_broadcast (&priv->cond);
  g_mutex_unlock (&priv->lock);
}

/* Posts the partial interval, after every frame in flight is in it;
 * returns how the wait ended (drain()). */
static GstFlowReturn
post_partial_interval (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstMessage *msg = NULL;
  GstFlowReturn ret;

  ret = drain (self, TRUE);
  g_mutex_lock (&priv->lock);
  if (ret == GST_FLOW_OK && !priv->flushing && priv->error == 0 &&
      !priv->timed_out)
    msg = take_interval_message (self);
  g_mutex_unlock (&priv->lock);
  if (msg)
    gst_element_post_message (GST_ELEMENT (self), msg);
  return ret;
}

/* ---- GstCudaFiltersBase vfuncs ------------------------------------------ */

/* With @can_free: called with the context current, nothing in flight.
 * Without, everything is forgotten, not freed (see release in
 * gstcudafiltersbase.h). */
static void
free_slots (GstCudaFiltersAnalysisPrivate * priv, gboolean can_free)
{
  guint i;

  /* (nothing should be in flight; a failed frame's copy may be) */
  if (can_free && priv->copy_stream)
    gst_cuda_result (CuStreamSynchronize (priv->copy_stream));
  for (i = 0; i < MAX_IN_FLIGHT; i++) {
    if (can_free)
      cf_event_destroy (priv->events[i]);
    priv->events[i] = NULL;
  }
  for (i = 0; i < N_SUMS; i++) {
    if (can_free) {
      cf_event_destroy (priv->added[i]);
      cf_event_destroy (priv->copied[i]);
    }
    priv->added[i] = priv->copied[i] = NULL;
  }
  if (can_free && priv->slots)
    gst_cuda_result (CuMemFreeHost (priv->slots));
  priv->slots = NULL;
  if (can_free && priv->sums)
    gst_cuda_result (CuMemFree (priv->sums));
  priv->sums = 0;
  priv->sums_next = 0;
  priv->sums_unknown = FALSE;
  if (can_free && priv->copy_stream)
    gst_cuda_result (CuStreamDestroy (priv->copy_stream));
  priv->copy_stream = NULL;
  g_mutex_lock (&priv->lock);
  memset (priv->slot_busy, 0, sizeof (priv->slot_busy));
  g_mutex_unlock (&priv->lock);
}

/* The device buffers of analyse(), zeroed on @stream, their events and
 * the copy stream.  Called with the context current. */
static CfError
ensure_sums (GstCudaFiltersAnalysisPrivate * priv, CfStream stream)
{
  CfError err = 0;
  guint i;

  priv->device_stride = GST_ROUND_UP_N (MAX (priv->device_size, 1), SLOT_ALIGN);
  if (!gst_cuda_result (CuMemAlloc (&priv->sums, priv->device_stride * N_SUMS))) {
    priv->sums = 0;
    return CF_ERROR_MEMORY_ALLOCATION;
  }
  if (!gst_cuda_result (CuStreamCreate (&priv->copy_stream,
              CU_STREAM_NON_BLOCKING))) {
    priv->copy_stream = NULL;
    return CF_ERROR_MEMORY_ALLOCATION;
  }
  for (i = 0; i < N_SUMS && err == 0; i++) {
    err = cf_event_create (&priv->added[i]);
    if (err == 0)
      err = cf_event_create (&priv->copied[i]);
  }
  if (err == 0)
    err = cf_fill_plane ((void *) (guintptr) priv->sums,
        priv->device_stride * N_SUMS, priv->device_stride * N_SUMS, 1, 0,
        stream);
  return err;
}

/* Called with the context current. */
static CfError
ensure_slots (GstCudaFiltersAnalysis * self, CfStream stream)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  CfError err = 0;
  guint i;

  if (priv->slots)
    return 0;
  /* the subclass's header, then the sums copied from the device */
  priv->slot_size = GST_ROUND_UP_N (MAX (GST_CUDA_FILTERS_ANALYSIS_GET_CLASS
          (self)->device_offset + priv->device_size, 1), SLOT_ALIGN);
  if (!gst_cuda_result (CuMemAllocHost ((void **) &priv->slots,
              priv->slot_size * MAX_IN_FLIGHT))) {
    priv->slots = NULL;
    return CF_ERROR_MEMORY_ALLOCATION;
  }
  for (i = 0; i < MAX_IN_FLIGHT && err == 0; i++)
    err = cf_event_create (&priv->events[i]);
  if (err == 0)
    err = ensure_sums (priv, stream);
  if (err != 0)
    free_slots (priv, TRUE);    /* all or nothing: the next frame retries */
  return err;
}

static gpointer
sums_data (GstCudaFiltersAnalysisPrivate * priv, guint i)
{
  return (gpointer) (guintptr) (priv->sums + (CUdeviceptr) i *
      priv->device_stride);
}

/* The kernels add into the next buffer on @stream, and the buffer goes to
 * the slot on the copy stream, whose end is what the worker waits for. */
static CfError
analyse_on_device (GstCudaFiltersAnalysis * self, Pending * p, CfStream stream)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  CfStream copy = (CfStream) priv->copy_stream;
  guint n = priv->sums_next, next = (n + 1) % N_SUMS;
  CfError err = 0;

  if (priv->sums_unknown) {
    /* a buffer may have missed its zeroing: all again, once no copy
     * reads them */
    guint i;

    for (i = 0; i < N_SUMS && err == 0; i++)
      err = cf_event_wait (priv->copied[i]);
    if (err == 0)
      err = cf_fill_plane ((void *) (guintptr) priv->sums,
          priv->device_stride * N_SUMS, priv->device_stride * N_SUMS, 1, 0,
          stream);
    if (err != 0)
      return err;
    priv->sums_unknown = FALSE;
  }
  /* the next buffer is zeroed by these kernels: its last copy is out */
  err = cf_event_wait_on (stream, priv->copied[next]);
  if (err == 0)
    err = klass->analyse (self, &p->region, slot_data (priv, p->slot),
        sums_data (priv, n), sums_data (priv, next), stream);
  if (err == 0)
    err = cf_event_record (priv->added[n], stream);
  if (err == 0)
    err = cf_event_wait_on (copy, priv->added[n]);
  if (err == 0)
    err = cf_copy_to_host ((guint8 *) slot_data (priv, p->slot) +
        klass->device_offset, sums_data (priv, n), priv->device_size, copy);
  if (err == 0)
    err = cf_event_record (priv->copied[n], copy);
  if (err == 0)
    err = cf_event_record (priv->events[p->slot], copy);
  priv->sums_next = next;
  priv->sums_unknown = err != 0;
  return err;
}

/* Takes a free slot for the frame transform_ip() is about to process,
 * waiting for the oldest frame in flight if there is none.  Taken here,
 * before the base class runs the frame, so that a wait can end in
 * GST_FLOW_FLUSHING (a flush, the change to READY) or in an error of its
 * own (a GPU that stopped answering) rather than in a CUDA error. */
static GstFlowReturn
reserve_slot (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstFlowReturn ret;
  guint i;

  g_mutex_lock (&priv->lock);
  for (;;) {
    if (priv->error != 0 || priv->timed_out)
      return unlock_and_check_error (self);
    if (priv->flushing) {
      ret = GST_FLOW_FLUSHING;
      break;
    }
    for (i = 0; i < MAX_IN_FLIGHT && priv->slot_busy[i]; i++);
    if (i < MAX_IN_FLIGHT) {
      priv->slot_busy[i] = TRUE;
      priv->reserved = (gint) i;
      ret = GST_FLOW_OK;
      break;
    }
    ret = wait_for_worker (priv, TRUE);
    if (ret == GST_FLOW_ERROR)
      return unlock_and_check_error (self);
    if (ret != GST_FLOW_OK)
      break;
  }
  g_mutex_unlock (&priv->lock);
  return ret;
}

static CfError
gst_cuda_filters_analysis_process (GstCudaFiltersBase * base,
    GstBuffer * inbuf, const GstCudaFiltersFrame * in,
    const GstCudaFiltersFrame * out, CfStream stream)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (base);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstSegment *segment = &GST_BASE_TRANSFORM (self)->segment;
  Pending *p;
  CfError err;
  gint slot;

  /* (transform_ip() took a slot; the base class calls this from there
   * only) */
  g_return_val_if_fail (priv->reserved >= 0, CF_ERROR_MEMORY_ALLOCATION);
  if ((err = ensure_slots (self, stream)) != 0)
    return err;
  slot = priv->reserved;
  priv->reserved = -1;

  p = g_new0 (Pending, 1);
  p->slot = slot;
  p->context = gst_object_ref (gst_cuda_filters_base_get_context (base));
  p->pts = GST_BUFFER_PTS (inbuf);
  p->duration = GST_BUFFER_DURATION (inbuf);
  if (!GST_CLOCK_TIME_IS_VALID (p->duration) &&
      GST_VIDEO_INFO_FPS_N (&priv->info) > 0)
    p->duration = gst_util_uint64_scale_int (GST_SECOND,
        GST_VIDEO_INFO_FPS_D (&priv->info), GST_VIDEO_INFO_FPS_N (&priv->info));
  /* a segment in another format (appsrc's default is bytes) has no times
   * to give, and the conversions would fail a precondition a frame */
  p->stream_time = p->running_time = GST_CLOCK_TIME_NONE;
  if (segment->format == GST_FORMAT_TIME) {
    p->stream_time = gst_segment_to_stream_time (segment, GST_FORMAT_TIME,
        p->pts);
    p->running_time = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        p->pts);
  }
  region_of_frame (self, in, &p->region);

  err = analyse_on_device (self, p, stream);
  if (err != 0) {
    drop_frame (priv, p);
    return err;
  }
  priv->current = p;
  return 0;
}

static void
enqueue (GstCudaFiltersAnalysis * self, Pending * p)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  g_mutex_lock (&priv->lock);
  p->generation = priv->generation;
  g_queue_push_tail (&priv->queue, p);
  g_cond_broadcast (&priv->cond);
  g_mutex_unlock (&priv->lock);
}

/* After process(): the frame's work is enqueued.  It goes to the worker,
 * which holds the buffer until the GPU has read it; with attach-meta the
 * streaming thread holds it while it waits in transform_ip() for the
 * worker to see the result, and reads it there. */
static CfError
gst_cuda_filters_analysis_finish (GstCudaFiltersBase * base,
    GstBuffer * inbuf, CfStream stream)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (base);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  Pending *p = priv->current;
  gboolean attach_meta;

  priv->current = NULL;
  if (!p)
    return 0;
  GST_OBJECT_LOCK (self);
  attach_meta = priv->attach_meta;
  GST_OBJECT_UNLOCK (self);
  if (attach_meta) {
    p->reader = TRUE;
    priv->meta_frame = p;
  } else {
    p->buffer = gst_buffer_ref (inbuf);
  }
  enqueue (self, p);
  return 0;
}

static void
gst_cuda_filters_analysis_release (GstCudaFiltersBase * base, gboolean can_free)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (base);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  drain (self, FALSE);
  /* (a frame that process() took but finish() never saw) */
  drop_frame (priv, priv->current);
  priv->current = NULL;
  free_slots (priv, can_free);
}

static gboolean
gst_cuda_filters_analysis_set_info (GstCudaFiltersBase * base,
    const GstVideoInfo * in_info, const GstVideoInfo * out_info)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (base);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  gsize total_size = klass->total_size (self, in_info);

  /* what was summed under the old caps is posted as it is (unless a flush
   * drops it; a GPU that stopped answering fails the next frame) */
  if (post_partial_interval (self) == GST_FLOW_ERROR)
    post_timeout_error (self);

  g_mutex_lock (&priv->lock);
  priv->info = *in_info;
  priv->device_size = klass->device_size (self, in_info);
  if (total_size != priv->total_size || !priv->total) {
    g_free (priv->total);
    priv->total = g_malloc0 (MAX (total_size, 1));
    priv->total_size = total_size;
  }
  g_mutex_unlock (&priv->lock);
  /* the base class releases the old slots next, with the context current */
  return TRUE;
}

/* ---- GstBaseTransform vfuncs ------------------------------------------ */

static GstFlowReturn
gst_cuda_filters_analysis_prepare_output_buffer (GstBaseTransform * trans,
    GstBuffer * input, GstBuffer ** outbuf)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (trans);
  gboolean attach_meta;

  GST_OBJECT_LOCK (trans);
  attach_meta = priv->attach_meta;
  GST_OBJECT_UNLOCK (trans);

  /* a meta needs a writable buffer; a copy shares the frame's memory */
  if (attach_meta && !gst_buffer_is_writable (input))
    *outbuf = gst_buffer_copy (input);
  else
    *outbuf = input;
  return GST_FLOW_OK;
}

/* attach-meta: waits for the worker to have @p's result (@p is queued) and
 * attaches it to @buf.  A wait that ends early (flush, READY, timeout)
 * hands the worker a reference to @buf, which it holds until the GPU has
 * read the frame. */
static GstFlowReturn
attach_result_meta (GstCudaFiltersAnalysis * self, GstBuffer * buf, Pending * p)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstCudaFiltersAnalysisClass *klass =
      GST_CUDA_FILTERS_ANALYSIS_GET_CLASS (self);
  gboolean writable = gst_buffer_is_writable (buf);
  GstFlowReturn ret = GST_FLOW_OK;
  CfError err;

  g_mutex_lock (&priv->lock);
  while (!p->done && (ret = wait_for_worker (priv, TRUE)) == GST_FLOW_OK);
  if (!p->done) {
    p->buffer = gst_buffer_ref (buf);
    p->reader = FALSE;
    g_cond_broadcast (&priv->cond);
    g_mutex_unlock (&priv->lock);
    if (ret == GST_FLOW_ERROR)
      post_timeout_error (self);
    return ret;
  }

  err = p->err;
  if (err == 0 && writable) {
    GstCustomMeta *meta = gst_buffer_add_custom_meta (buf, klass->meta_name);
    GstStructure *s = gst_custom_meta_get_structure (meta);
    gpointer total = g_malloc0 (MAX (priv->total_size, 1));

    set_common_fields (s, p->pts, p->stream_time, p->running_time,
        p->duration, 1, p->region.pixels, &p->region);
    /* under the lock: the subclass's callbacks run one at a time */
    klass->accumulate (self, total, slot_data (priv, p->slot), 0);
    klass->fill_structure (self, s, total, 1, &p->region);
    g_free (total);
  }
  /* the worker may let the slot go */
  p->reader = FALSE;
  g_cond_broadcast (&priv->cond);
  g_mutex_unlock (&priv->lock);

  if (err != 0) {
    post_results_error (self, err);
    return GST_FLOW_ERROR;
  }
  if (!writable)
    GST_WARNING_OBJECT (self, "buffer not writable, no meta attached");
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_cuda_filters_analysis_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (trans);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GstFlowReturn ret;
  Pending *p;

  ret = reserve_slot (self);
  if (ret != GST_FLOW_OK)
    return ret;

  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->transform_ip (trans, buf);

  /* the slot if process() was not reached, the frame if finish() was not */
  if (priv->reserved >= 0)
    release_slot (priv, (guint) priv->reserved);
  priv->reserved = -1;
  drop_frame (priv, priv->current);
  priv->current = NULL;

  p = priv->meta_frame;
  priv->meta_frame = NULL;
  if (!p)
    return ret;
  if (ret != GST_FLOW_OK) {
    /* (not after finish(), which is the last step) */
    g_mutex_lock (&priv->lock);
    p->buffer = gst_buffer_ref (buf);
    p->reader = FALSE;
    g_cond_broadcast (&priv->cond);
    g_mutex_unlock (&priv->lock);
    return ret;
  }
  return attach_result_meta (self, buf, p);
}

static gboolean
gst_cuda_filters_analysis_sink_event (GstBaseTransform * trans,
    GstEvent * event)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (trans);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      /* (a flush ends the wait: nothing to post then) */
      if (post_partial_interval (self) != GST_FLOW_FLUSHING) {
        g_mutex_lock (&priv->lock);
        unlock_and_check_error (self);
      }
      break;
    case GST_EVENT_FLUSH_START:
      /* (not serialized: the streaming thread may be waiting) */
      start_flushing (self, TRUE);
      break;
    case GST_EVENT_FLUSH_STOP:
      drop_pending (self);
      g_mutex_lock (&priv->lock);
      priv->flushing = FALSE;
      g_mutex_unlock (&priv->lock);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_cuda_filters_analysis_start (GstBaseTransform * trans)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (trans);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->start (trans))
    return FALSE;
  g_mutex_lock (&priv->lock);
  priv->quit = FALSE;
  priv->error = 0;
  priv->error_posted = FALSE;
  priv->flushing = FALSE;
  priv->timed_out = FALSE;
  priv->gpu_wait_start = 0;
  reset_interval (priv);
  priv->worker = g_thread_new ("cudafilters-results", worker_loop, self);
  g_mutex_unlock (&priv->lock);
  return TRUE;
}

static gboolean
gst_cuda_filters_analysis_stop (GstBaseTransform * trans)
{
  GstCudaFiltersAnalysis *self = GST_CUDA_FILTERS_ANALYSIS (trans);
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);
  GThread *worker;
  gboolean ret;

  /* frames still in flight are waited for, their results dropped */
  drop_pending (self);
  ret = GST_BASE_TRANSFORM_CLASS (parent_class)->stop (trans);

  g_mutex_lock (&priv->lock);
  priv->quit = TRUE;
  worker = priv->worker;
  priv->worker = NULL;
  g_cond_broadcast (&priv->cond);
  g_mutex_unlock (&priv->lock);
  if (worker)
    g_thread_join (worker);
  return ret;
}

/* ---- GstElement vfuncs ------------------------------------------------ */

static GstStateChangeReturn
gst_cuda_filters_analysis_change_state (GstElement * element,
    GstStateChange transition)
{
  /* Before the pads are deactivated, which waits for the streaming thread
   * to leave the chain function: it may be waiting for the GPU.  stop()
   * drops the results. */
  if (transition == GST_STATE_CHANGE_PAUSED_TO_READY)
    start_flushing (GST_CUDA_FILTERS_ANALYSIS (element), FALSE);
  return GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
}

/* ---- GObject ---------------------------------------------------------- */

static void
gst_cuda_filters_analysis_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_POST_MESSAGES:
      priv->post_messages = g_value_get_boolean (value);
      break;
    case PROP_INTERVAL:
      priv->interval = g_value_get_uint64 (value);
      break;
    case PROP_ATTACH_META:
      priv->attach_meta = g_value_get_boolean (value);
      break;
    case PROP_ROI_X:
      priv->roi_x = g_value_get_uint (value);
      break;
    case PROP_ROI_Y:
      priv->roi_y = g_value_get_uint (value);
      break;
    case PROP_ROI_WIDTH:
      priv->roi_width = g_value_get_uint (value);
      break;
    case PROP_ROI_HEIGHT:
      priv->roi_height = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cuda_filters_analysis_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_POST_MESSAGES:
      g_value_set_boolean (value, priv->post_messages);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, priv->interval);
      break;
    case PROP_ATTACH_META:
      g_value_set_boolean (value, priv->attach_meta);
      break;
    case PROP_ROI_X:
      g_value_set_uint (value, priv->roi_x);
      break;
    case PROP_ROI_Y:
      g_value_set_uint (value, priv->roi_y);
      break;
    case PROP_ROI_WIDTH:
      g_value_set_uint (value, priv->roi_width);
      break;
    case PROP_ROI_HEIGHT:
      g_value_set_uint (value, priv->roi_height);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_cuda_filters_analysis_finalize (GObject * object)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (object);

  g_free (priv->total);
  g_mutex_clear (&priv->lock);
  g_rec_mutex_clear (&priv->post_lock);
  g_cond_clear (&priv->cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_cuda_filters_analysis_class_init (GstCudaFiltersAnalysisClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstCudaFiltersBaseClass *base_class = GST_CUDA_FILTERS_BASE_CLASS (klass);
  const GParamFlags flags = G_PARAM_READWRITE | GST_PARAM_MUTABLE_PLAYING |
      G_PARAM_STATIC_STRINGS;

  gobject_class->set_property = gst_cuda_filters_analysis_set_property;
  gobject_class->get_property = gst_cuda_filters_analysis_get_property;
  gobject_class->finalize = gst_cuda_filters_analysis_finalize;

  /**
   * GstCudaFiltersAnalysis:post-messages:
   *
   * Post an element message with the results of every interval.
   */
  g_object_class_install_property (gobject_class, PROP_POST_MESSAGES,
      g_param_spec_boolean ("post-messages", "Post messages",
          "Post an element message with the results of every interval",
          DEFAULT_POST_MESSAGES, flags));
  /**
   * GstCudaFiltersAnalysis:interval:
   *
   * Stream time a message sums, in nanoseconds: the frames up to the one
   * that ends at least this long after the first began.  0 posts every
   * frame.  Frames without a timestamp, or without a duration or frame
   * rate, are posted one by one.  A message is posted early, before the
   * frame that would overflow one of its fields: `frames` (a G_TYPE_UINT)
   * after 4294967295 frames, and a 64-bit sum of the element (cudasum's
   * `sum`) before it passes 2^64.  The next message goes on from there.
   */
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Stream time summed into one message, in nanoseconds "
          "(0 = every frame; posted early before a field would overflow)",
          0, G_MAXUINT64, DEFAULT_INTERVAL, flags));
  /**
   * GstCudaFiltersAnalysis:attach-meta:
   *
   * Attach each frame's own results to it as a #GstCustomMeta with the
   * message's fields.  The frame then waits for its results before it is
   * pushed, instead of going on while they are computed.
   */
  g_object_class_install_property (gobject_class, PROP_ATTACH_META,
      g_param_spec_boolean ("attach-meta", "Attach meta",
          "Attach each frame's results to it as a GstCustomMeta (the frame "
          "then waits for them)", DEFAULT_ATTACH_META, flags));
  /**
   * GstCudaFiltersAnalysis:roi-x:
   *
   * Left edge of the region analysed, in pixels.  The region is clipped to
   * the frame; subsampled chroma takes every sample that covers part of it.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_X,
      g_param_spec_uint ("roi-x", "ROI x",
          "Left edge of the region analysed, in pixels", 0, G_MAXINT, 0,
          flags));
  /**
   * GstCudaFiltersAnalysis:roi-y:
   *
   * Top edge of the region analysed, in pixels.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_Y,
      g_param_spec_uint ("roi-y", "ROI y",
          "Top edge of the region analysed, in pixels", 0, G_MAXINT, 0, flags));
  /**
   * GstCudaFiltersAnalysis:roi-width:
   *
   * Width of the region analysed, in pixels; 0 reaches the right edge.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_WIDTH,
      g_param_spec_uint ("roi-width", "ROI width",
          "Width of the region analysed, in pixels (0 = to the right edge)",
          0, G_MAXINT, 0, flags));
  /**
   * GstCudaFiltersAnalysis:roi-height:
   *
   * Height of the region analysed, in pixels; 0 reaches the bottom edge.
   */
  g_object_class_install_property (gobject_class, PROP_ROI_HEIGHT,
      g_param_spec_uint ("roi-height", "ROI height",
          "Height of the region analysed, in pixels (0 = to the bottom edge)",
          0, G_MAXINT, 0, flags));

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_change_state);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_stop);
  trans_class->sink_event =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_sink_event);
  trans_class->prepare_output_buffer =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_prepare_output_buffer);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_transform_ip);

  base_class->set_info = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_set_info);
  base_class->process = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_process);
  base_class->finish = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_finish);
  base_class->release = GST_DEBUG_FUNCPTR (gst_cuda_filters_analysis_release);
  gst_cuda_filters_base_class_set_analysis (base_class);
  /* each frame is held until its result is read back */
  base_class->held_frames = MAX_IN_FLIGHT;

  GST_DEBUG_CATEGORY_INIT (gst_cuda_filters_analysis_debug,
      "cudafiltersanalysis", 0, "gst-cudafilters analysis base class");

  gst_type_mark_as_plugin_api (GST_TYPE_CUDA_FILTERS_ANALYSIS, 0);
}

static void
gst_cuda_filters_analysis_init (GstCudaFiltersAnalysis * self)
{
  GstCudaFiltersAnalysisPrivate *priv = PRIV (self);

  priv->post_messages = DEFAULT_POST_MESSAGES;
  priv->interval = DEFAULT_INTERVAL;
  priv->attach_meta = DEFAULT_ATTACH_META;
  g_mutex_init (&priv->lock);
  g_rec_mutex_init (&priv->post_lock);
  g_cond_init (&priv->cond);
  g_queue_init (&priv->queue);
  priv->reserved = -1;
  reset_interval (priv);
}

/**
 * gst_cuda_filters_analysis_class_add_pad_templates:
 *
 * The formats every analysis element takes, in system and CUDA memory, on
 * both pads.
 */
void
gst_cuda_filters_analysis_class_add_pad_templates (GstCudaFiltersAnalysisClass
    * klass)
{
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstCaps *caps = gst_cuda_filters_base_make_caps (SYS_FORMATS, CUDA_FORMATS);

  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (element_class,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
}

/**
 * gst_cuda_filters_analysis_class_set_names:
 * @message_name: name of the element messages, e.g. "cudahist"
 * @meta_name: name of the #GstCustomMeta, e.g. "GstCudaHistMeta",
 *   registered here
 */
void
gst_cuda_filters_analysis_class_set_names (GstCudaFiltersAnalysisClass *
    klass, const gchar * message_name, const gchar * meta_name)
{
  /* no tags: the meta describes the frame's content as analysed and is
   * copied with the buffer */
  static const gchar *tags[] = { NULL };

  klass->message_name = message_name;
  klass->meta_name = meta_name;
  if (!gst_meta_get_info (meta_name))
    gst_meta_register_custom (meta_name, tags, NULL, NULL, NULL);
}

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
 * into it: a message of 4 x 256 counts then takes about 65 instead of
 * 115 us to build on a 2-core development machine.  (On the H100's host
 * that was not what limits cudahist's frame rate with frames already on
 * the GPU: see docs/notes.md.)
 */
void
gst_cuda_filters_structure_take_array (GstStructure * s, const gchar * name,
    GType type, guint n, gconstpointer values)
{
  GValue array = G_VALUE_INIT;
  guint i;

  gst_value_array_init (&array, n);
  for (i = 0; i < n; i++) {
    GValue v = G_VALUE_INIT;

    g_value_init (&v, type);
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
