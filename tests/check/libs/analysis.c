/* GstCudaFiltersAnalysis, what the analysis elements (cudahist, cudasum)
 * share, through cudatestcounter, a subclass defined here whose frames each
 * add a value chosen by the test to a 64-bit sum the message posts, and
 * whose work can be held on the GPU's stream at a gate (a host function
 * that blocks, as a GPU that stopped answering would):
 * - a message a frame, in frame order, or an interval's, with its times;
 *   the partial interval at EOS; a timestamp going back; a flush, also
 *   while a message is being posted; post-messages=false; the meta; a
 *   segment in bytes; the region of interest; a short buffer; observe()
 *   of every frame, in order, observe_end() and observe_reset();
 * - an interval is posted early before its sum would overflow; FLUSH_START
 *   and the change to READY wake a frame waiting for a slot, for its meta
 *   or EOS waiting for the frames in flight, and drop their results; a GPU
 *   that does not finish a frame in 10 s is an element error, not a hang;
 *   a frame that fails half-way is an element error, and the frames after
 *   it add into zeroed sums.
 * What needs the elements' own kernels (their results, each format's
 * planes and regions in them) is tested with each element.
 * Without a GPU only the "cpu" tests run (the interval's arithmetic: the
 * limits of a message's fields, 128-bit sums, the variance's numerator,
 * percentiles of huge counts), then the test exits 77 (skipped). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <cuda_runtime_api.h>

#include "cf-test-util.h"
#include "gstcudafiltersanalysis.h"
#include "gstcudafilterspinned.h"

/* ---- cudatestcounter ---- */

/* Held at the gate, a frame's work waits on its stream in a host function
 * until the test opens it: the results thread, waiting for the GPU, waits
 * with it.  Only the test's thread closes and opens it. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean closed;
} Gate;

static Gate gate;

static void CUDART_CB
gate_host_func (void *data)
{
  Gate *g = data;

  g_mutex_lock (&g->lock);
  while (g->closed)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
}

static void
gate_set_closed (gboolean closed)
{
  g_mutex_lock (&gate.lock);
  gate.closed = closed;
  g_cond_broadcast (&gate.cond);
  g_mutex_unlock (&gate.lock);
}

/* 16x16 RGBA, 30 frames a second */
#define COUNTER_CAPS "video/x-raw, format=RGBA, width=16, height=16, " \
    "framerate=30/1"
/* the analysis class's frames in flight (MAX_IN_FLIGHT) */
#define SLOTS 16
/* frames a test may hold at once (the harness keeps those pushed) */
#define POOL_FRAMES (2 * SLOTS + 8)
/* bytes of the header of a result, and of its device part */
#define COUNTER_HEADER 16
#define COUNTER_DEVICE_SIZE 16

typedef struct
{
  GstCudaFiltersAnalysis parent;
  guint64 value;                /* what each frame adds, under the lock */
  /* with observing (set before the first frame): each frame observed is
   * counted, its result gains OBSERVED_MARK, and a message says so */
  gboolean observing;
  guint observed;               /* since the last reset */
  /* with marking (set before the first frame): a frame's device part
   * holds, in its second 8 bytes, what its sums' first 8 held when its
   * frame began (0: zeroed, as every frame's must be), then the frame
   * marks those first 8 bytes with MARK_BYTE; `dirty` counts the frames
   * that found them marked.  Frame `miss_at` (counted from 0) does not
   * zero the next buffer; frame `fail_at` does not either, and fails. */
  gboolean marking;
  guint analysed;               /* frames analysed, under the lock */
  guint miss_at, fail_at;
  gint dirty;                   /* atomic */
} GstCudaTestCounter;

#define MARK_BYTE 0x5A

/* what observing adds to each frame's result, above any test's values */
#define OBSERVED_MARK (G_GUINT64_CONSTANT (1) << 40)
typedef GstCudaFiltersAnalysisClass GstCudaTestCounterClass;
G_DEFINE_TYPE (GstCudaTestCounter, gst_cuda_test_counter,
    GST_TYPE_CUDA_FILTERS_ANALYSIS);

static gsize
counter_total_size (GstCudaFiltersAnalysis * analysis,
    const GstVideoInfo * info)
{
  return sizeof (guint64);
}

static gsize
counter_device_size (GstCudaFiltersAnalysis * analysis,
    const GstVideoInfo * info)
{
  return COUNTER_DEVICE_SIZE;
}

/* The frame's value goes in the result's header; on the GPU only the
 * next buffer is zeroed, after the gate when it is closed. */
static CfError
counter_analyse (GstCudaFiltersAnalysis * analysis,
    const GstCudaFiltersRegion * region, gpointer result, gpointer sums,
    gpointer zero_next, CfStream stream)
{
  GstCudaTestCounter *self = (GstCudaTestCounter *) analysis;
  cudaError_t err = cudaSuccess;
  gboolean closed;
  guint frame;

  GST_OBJECT_LOCK (self);
  *(guint64 *) result = self->value;
  frame = self->analysed++;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&gate.lock);
  closed = gate.closed;
  g_mutex_unlock (&gate.lock);
  if (closed)
    err = cudaLaunchHostFunc ((cudaStream_t) stream, gate_host_func, &gate);
  if (err == cudaSuccess && self->marking) {
    err = cudaMemcpyAsync ((guint8 *) sums + 8, sums, 8,
        cudaMemcpyDeviceToDevice, (cudaStream_t) stream);
    if (err == cudaSuccess)
      err = cf_fill_plane (sums, 8, 8, 1, MARK_BYTE, stream);
    if (err == cudaSuccess && frame == self->fail_at)
      return cudaErrorInvalidValue;
    if (frame == self->miss_at)
      return err;
  }
  if (err != cudaSuccess)
    return err;
  return cf_fill_plane (zero_next, COUNTER_DEVICE_SIZE, COUNTER_DEVICE_SIZE,
      1, 0, stream);
}

static void
counter_accumulate (GstCudaFiltersAnalysis * analysis, gpointer total,
    gconstpointer result, guint frames)
{
  guint64 *sum = total;

  *sum = (frames ? *sum : 0) + *(const guint64 *) result;
}

static gboolean
counter_fits (GstCudaFiltersAnalysis * analysis, gconstpointer total,
    gconstpointer result)
{
  return *(const guint64 *) result <= G_MAXUINT64 - *(const guint64 *) total;
}

static void
counter_fill_structure (GstCudaFiltersAnalysis * analysis, GstStructure * s,
    gconstpointer total, guint frames, const GstCudaFiltersRegion * region)
{
  gst_structure_set (s, "value", G_TYPE_UINT64, *(const guint64 *) total, NULL);
}

/* "cudatestcounter-observed": the frame's value as analyse() left it, its
 * timestamp and how many frames were observed since the last reset, this
 * one included */
static void
counter_observe (GstCudaFiltersAnalysis * analysis,
    const GstCudaFiltersFrameTimes * times,
    const GstCudaFiltersRegion * region, gpointer result, GPtrArray * messages)
{
  GstCudaTestCounter *self = (GstCudaTestCounter *) analysis;
  guint64 *value = result;
  guint64 found;

  if (self->marking) {
    memcpy (&found, (const guint8 *) result + COUNTER_HEADER + 8, 8);
    if (found != 0)
      g_atomic_int_inc (&self->dirty);
  }
  if (!self->observing)
    return;
  self->observed++;
  g_ptr_array_add (messages, gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("cudatestcounter-observed", "value",
              G_TYPE_UINT64, *value, "timestamp", G_TYPE_UINT64, times->pts,
              "observed", G_TYPE_UINT, self->observed, NULL)));
  *value += OBSERVED_MARK;
}

static void
counter_observe_end (GstCudaFiltersAnalysis * analysis, GPtrArray * messages)
{
  GstCudaTestCounter *self = (GstCudaTestCounter *) analysis;

  if (self->observing)
    g_ptr_array_add (messages, gst_message_new_element (GST_OBJECT (self),
            gst_structure_new ("cudatestcounter-end", "observed", G_TYPE_UINT,
                self->observed, NULL)));
}

static void
counter_observe_reset (GstCudaFiltersAnalysis * analysis)
{
  ((GstCudaTestCounter *) analysis)->observed = 0;
}

static void
gst_cuda_test_counter_class_init (GstCudaTestCounterClass * klass)
{
  gst_cuda_filters_analysis_class_add_pad_templates (klass, FALSE);
  gst_element_class_set_static_metadata (GST_ELEMENT_CLASS (klass),
      "test analysis", "Filter/Analyzer/Video",
      "a GstCudaFiltersAnalysis subclass for the tests", "tests");
  gst_cuda_filters_analysis_class_set_names (klass, "cudatestcounter",
      "GstCudaTestCounterMeta");
  klass->total_size = counter_total_size;
  klass->device_size = counter_device_size;
  klass->analyse = counter_analyse;
  klass->device_offset = COUNTER_HEADER;
  klass->accumulate = counter_accumulate;
  klass->fits = counter_fits;
  klass->fill_structure = counter_fill_structure;
  klass->observe = counter_observe;
  klass->observe_end = counter_observe_end;
  klass->observe_reset = counter_observe_reset;
}

static void
gst_cuda_test_counter_init (GstCudaTestCounter * self)
{
  self->miss_at = self->fail_at = G_MAXUINT;
}

static GstClockTime
frame_pts (guint i)
{
  return gst_util_uint64_scale (i, GST_SECOND, 30);
}

/* A harness around cudatestcounter, its bus, and the pinned pool it
 * proposes: frames from there are uploaded by DMA, so that nothing on the
 * CPU waits for a stream held at the gate.  The pool allocates its frames
 * here, and the element its memory with the first frame (warm_up()):
 * CUDA may order an allocation after the work of every stream, which
 * waits at the gate. */
static GstHarness *
counter_harness (GstBus ** bus, GstBufferPool ** pool)
{
  GstHarness *h = gst_harness_new ("cudatestcounter");
  GstCaps *caps = gst_caps_from_string (COUNTER_CAPS);
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstStructure *config;
  GstAllocator *allocator = NULL;

  gate_set_closed (FALSE);
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  gst_harness_set_src_caps (h, gst_caps_ref (caps));
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (gst_query_get_n_allocation_pools (q) > 0);
  *pool = NULL;
  gst_query_parse_nth_allocation_pool (q, 0, pool, NULL, NULL, NULL);
  fail_unless (*pool != NULL);
  config = gst_buffer_pool_get_config (*pool);
  gst_buffer_pool_config_get_allocator (config, &allocator, NULL);
  fail_unless (allocator != NULL);
  fail_unless_equals_string (allocator->mem_type,
      GST_CUDA_FILTERS_PINNED_MEMORY_TYPE);
  gst_structure_free (config);
  fail_unless (gst_buffer_pool_set_active (*pool, TRUE));
  {
    GstBuffer *frames[POOL_FRAMES];
    guint i;

    for (i = 0; i < POOL_FRAMES; i++)
      fail_unless_equals_int (gst_buffer_pool_acquire_buffer (*pool,
              &frames[i], NULL), GST_FLOW_OK);
    for (i = 0; i < POOL_FRAMES; i++)
      gst_buffer_unref (frames[i]);
  }
  gst_query_unref (q);
  gst_caps_unref (caps);
  return h;
}

/* What a test holds of the cudatestcounter it runs (counter_new()): every
 * helper below takes it. */
typedef struct
{
  GstHarness *h;
  GstBus *bus;
  GstBufferPool *pool;
} Counter;

static Counter *
counter_new (void)
{
  Counter *c = g_new0 (Counter, 1);

  c->h = counter_harness (&c->bus, &c->pool);
  return c;
}

static void
counter_free (Counter * c)
{
  gate_set_closed (FALSE);
  cf_test_free_harness (c->h, c->bus);
  gst_buffer_pool_set_active (c->pool, FALSE);
  gst_object_unref (c->pool);
  g_free (c);
}

static void
counter_set_value (Counter * c, guint64 value)
{
  GstCudaTestCounter *self = (GstCudaTestCounter *) c->h->element;

  GST_OBJECT_LOCK (self);
  self->value = value;
  GST_OBJECT_UNLOCK (self);
}

static void
counter_set_interval (Counter * c, guint64 interval)
{
  g_object_set (c->h->element, "interval", interval, NULL);
}

/* Frame @i of the stream, zeros, in pinned memory. */
static GstBuffer *
counter_frame (Counter * c, guint i)
{
  GstBuffer *buf = NULL;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (c->pool, &buf,
          NULL), GST_FLOW_OK);
  gst_buffer_memset (buf, 0, 0, gst_buffer_get_size (buf));
  GST_BUFFER_PTS (buf) = frame_pts (i);
  GST_BUFFER_DURATION (buf) = frame_pts (i + 1) - frame_pts (i);
  return buf;
}

static void
push_eos (Counter * c)
{
  fail_unless (gst_harness_push_event (c->h, gst_event_new_eos ()));
}

/* @s (a message, or a meta's structure named as one) is the result of
 * @frames frames from frame @first on, summing @value, of @pixels pixels
 * each. */
static void
check_counter_result (const GstStructure * s, guint first, guint frames,
    guint64 value, guint64 pixels, const gchar * what)
{
  guint got_frames;
  guint64 got_value, ts, got_pixels, want_ts;

  fail_unless (gst_structure_has_name (s, "cudatestcounter"), "%s", what);
  fail_unless (gst_structure_get_uint (s, "frames", &got_frames));
  fail_unless (gst_structure_get_uint64 (s, "value", &got_value));
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
  fail_unless (gst_structure_get_uint64 (s, "pixels", &got_pixels));
  fail_unless_equals_int (got_frames, frames);
  fail_unless (got_value == value, "%s: value %" G_GUINT64_FORMAT
      ", want %" G_GUINT64_FORMAT, what, got_value, value);
  /* (not frame_pts (first) in the macro: it declares a `first` itself) */
  want_ts = frame_pts (first);
  fail_unless_equals_uint64 (ts, want_ts);
  fail_unless (got_pixels == pixels * frames, "%s: pixels %" G_GUINT64_FORMAT
      ", want %" G_GUINT64_FORMAT, what, got_pixels, pixels * frames);
}

/* The next message on the bus, waiting up to @timeout (for the results
 * thread): the result of @frames frames from frame @first on, summing
 * @value.  To free. */
static GstStructure *
next_counter_message (Counter * c, GstClockTime timeout, guint first,
    guint frames, guint64 value, const gchar * what)
{
  GstStructure *s = cf_test_next_result (c->bus, timeout);

  fail_unless (s != NULL, "%s: no message", what);
  check_counter_result (s, first, frames, value, 16 * 16, what);
  return s;
}

/* The next message: @frames frames from frame @first on, summing @value. */
static void
expect_counter_message (Counter * c, guint first, guint frames,
    guint64 value, const gchar * what)
{
  gst_structure_free (next_counter_message (c, 10 * GST_SECOND, first,
          frames, value, what));
}

/* No message comes within @timeout (0: none is on the bus already). */
static void
expect_no_message (Counter * c, GstClockTime timeout, const gchar * what)
{
  fail_unless (cf_test_next_result (c->bus, timeout) == NULL, "%s", what);
}

/* A push (a frame, or an event) from a thread of its own, which may wait
 * in the element. */
typedef struct
{
  GstHarness *h;
  GstBuffer *buffer;
  GstEvent *event;
  GThread *thread;
  GMutex lock;
  GCond cond;
  gboolean done;
  GstFlowReturn ret;
} Pusher;

static gpointer
pusher_run (gpointer data)
{
  Pusher *p = data;
  GstFlowReturn ret;

  if (p->buffer)
    ret = gst_harness_push (p->h, p->buffer);
  else
    ret = gst_harness_push_event (p->h, p->event) ? GST_FLOW_OK :
        GST_FLOW_ERROR;
  g_mutex_lock (&p->lock);
  p->ret = ret;
  p->done = TRUE;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
  return NULL;
}

static Pusher *
pusher_start (GstHarness * h, GstBuffer * buffer, GstEvent * event)
{
  Pusher *p = g_new0 (Pusher, 1);

  p->h = h;
  p->buffer = buffer;
  p->event = event;
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  p->thread = g_thread_new ("pusher", pusher_run, p);
  return p;
}

/* Whether the push has returned, waiting up to @ms for it. */
static gboolean
pusher_wait (Pusher * p, guint ms)
{
  gint64 deadline = g_get_monotonic_time () + ms * G_TIME_SPAN_MILLISECOND;
  gboolean done;

  g_mutex_lock (&p->lock);
  while (!p->done && g_cond_wait_until (&p->cond, &p->lock, deadline));
  done = p->done;
  g_mutex_unlock (&p->lock);
  return done;
}

/* Joins the thread (open the gate first) and returns what the push did. */
static GstFlowReturn
pusher_finish (Pusher * p)
{
  GstFlowReturn ret;

  g_thread_join (p->thread);
  ret = p->ret;
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
  g_free (p);
  return ret;
}

/* Pushes frames @first to @first + @n - 1, which go on at once. */
static void
push_frames (Counter * c, guint first, guint n)
{
  guint i;

  for (i = first; i < first + n; i++)
    fail_unless_equals_int (gst_harness_push (c->h, counter_frame (c, i)),
        GST_FLOW_OK);
}

/* Frame 0, of value 1, with the gate open: the element allocates what it
 * needs; with @message (interval 0), its message is taken off the bus. */
static void
warm_up (Counter * c, gboolean message)
{
  counter_set_value (c, 1);
  push_frames (c, 0, 1);
  if (message)
    expect_counter_message (c, 0, 1, 1, "frame 0");
}

/* A frame whose slot is still taken (SLOTS frames held at the gate), from
 * a thread, found waiting after a while (it cannot go on: the gate is
 * closed). */
static Pusher *
push_waiting_frame (Counter * c, guint i)
{
  Pusher *p = pusher_start (c->h, counter_frame (c, i), NULL);

  fail_if (pusher_wait (p, 200), "frame %u did not wait", i);
  return p;
}

/* After warm_up(): frames 1 to SLOTS, of value 5, fill every slot, held at
 * the closed gate, and frame SLOTS + 1 waits for a slot. */
static Pusher *
fill_slots (Counter * c)
{
  warm_up (c, TRUE);
  gate_set_closed (TRUE);
  counter_set_value (c, 5);
  push_frames (c, 1, SLOTS);
  return push_waiting_frame (c, SLOTS + 1);
}

/* FLUSH_START ends the wait of @p, @waiting, at the closed gate, which
 * opens after it. */
static void
expect_flush_wakes (Counter * c, Pusher * p, const gchar * waiting)
{
  gboolean woke;

  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_start ()));
  /* (well within the 10 s of the GPU's timeout) */
  woke = pusher_wait (p, 3000);
  gate_set_closed (FALSE);
  fail_unless (woke, "FLUSH_START did not wake %s", waiting);
}

/* The stream goes on after a flush, from frame @i with value @value: the
 * first message is that frame's, none of a frame before the flush. */
static void
expect_stream_goes_on (Counter * c, guint i, guint64 value)
{
  GstSegment segment;

  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (c->h, gst_event_new_segment (&segment)));
  counter_set_value (c, value);
  push_frames (c, i, 1);
  push_eos (c);
  expect_counter_message (c, i, 1, value, "the frame after the flush");
  expect_no_message (c, 0, "a message of a frame before the flush");
}

/* Frame @i, adding @value, which goes on at once. */
static void
push_frame (Counter * c, guint i, guint64 value)
{
  counter_set_value (c, value);
  push_frames (c, i, 1);
}

/* what frame @i adds in the tests of several frames: the sum of frames
 * @first to @first + @n - 1 says which frames it holds */
#define BIT(i) (G_GUINT64_CONSTANT (1) << (i))
#define BITS(first, n) ((BIT (n) - 1) << (first))

/* Frames @first to @first + @n - 1, each adding its BIT(). */
static void
push_bit_frames (Counter * c, guint first, guint n)
{
  guint i;

  for (i = first; i < first + n; i++)
    push_frame (c, i, BIT (i));
}

/* the segment of the timed tests starts at 10 s of running time */
#define SEGMENT_BASE (10 * GST_SECOND)

static void
push_timed_segment (Counter * c)
{
  GstSegment segment;

  gst_segment_init (&segment, GST_FORMAT_TIME);
  segment.base = SEGMENT_BASE;
  fail_unless (gst_harness_push_event (c->h, gst_event_new_segment (&segment)));
}

/* counter_new() in the timed segment */
static Counter *
counter_new_timed (void)
{
  Counter *c = counter_new ();

  push_timed_segment (c);
  return c;
}

/* @s's times are those of frames @first_frame to @first_frame + @frames -
 * 1 of the timed segment (the timestamp: check_counter_result()) */
static void
check_times (const GstStructure * s, guint first_frame, guint frames)
{
  guint64 st, rt, dur;
  GstClockTime start = frame_pts (first_frame);
  GstClockTime end = frame_pts (first_frame + frames);

  fail_unless (gst_structure_get_uint64 (s, "stream-time", &st));
  fail_unless (gst_structure_get_uint64 (s, "running-time", &rt));
  fail_unless (gst_structure_get_uint64 (s, "duration", &dur));
  fail_unless_equals_uint64 (st, start);
  fail_unless_equals_uint64 (rt, start + SEGMENT_BASE);
  fail_unless_equals_uint64 (dur, end - start);
}

/* The next message on the bus (waiting up to @timeout): frames @first to
 * @first + @frames - 1 of the timed segment, summing @value, with their
 * times. */
static void
expect_timed_message (Counter * c, GstClockTime timeout, guint first,
    guint frames, guint64 value, const gchar * what)
{
  GstStructure *s = next_counter_message (c, timeout, first, frames, value,
      what);

  check_times (s, first, frames);
  gst_structure_free (s);
}

/* A gate in the bus's sync handler, which runs in the thread that posts:
 * the element's results thread holds a message there until the test opens
 * the gate, while another thread flushes.  `order` records what happened
 * first. */
typedef struct
{
  GMutex lock;
  GCond cond;
  GstHarness *h;
  gboolean in_post, open, flush_stop_seen, flush_pushed;
  gchar order[4];
  guint n_order;
} PostGate;

/* with the lock */
static void
post_gate_record (PostGate * g, gchar what)
{
  if (g->n_order < sizeof (g->order) - 1)
    g->order[g->n_order++] = what;
}

static GstBusSyncReply
post_gate_sync_handler (GstBus * bus, GstMessage * msg, gpointer data)
{
  PostGate *g = data;

  if (GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return GST_BUS_PASS;
  g_mutex_lock (&g->lock);
  g->in_post = TRUE;
  g_cond_broadcast (&g->cond);
  while (!g->open)
    g_cond_wait (&g->cond, &g->lock);
  post_gate_record (g, 'm');
  g_mutex_unlock (&g->lock);
  return GST_BUS_PASS;
}

/* FLUSH_STOP reaching the element's sink pad, before the element handles
 * it */
static GstPadProbeReturn
post_gate_flush_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  PostGate *g = data;

  if (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info)) == GST_EVENT_FLUSH_STOP) {
    g_mutex_lock (&g->lock);
    g->flush_stop_seen = TRUE;
    g_cond_broadcast (&g->cond);
    g_mutex_unlock (&g->lock);
  }
  return GST_PAD_PROBE_OK;
}

static gpointer
flush_from_thread (gpointer data)
{
  PostGate *g = data;
  /* (checked by the test's thread: check's failures belong there) */
  gboolean pushed = gst_harness_push_event (g->h,
      gst_event_new_flush_start ());

  pushed &= gst_harness_push_event (g->h, gst_event_new_flush_stop (TRUE));
  g_mutex_lock (&g->lock);
  post_gate_record (g, 'f');
  g->flush_pushed = pushed;
  g_mutex_unlock (&g->lock);
  return NULL;
}

/* ---- the analysis class: intervals exact for any length (no GPU) ---- */

/* a * b, 128 bits */
static GstCudaFiltersU128
mul_64x64 (guint64 a, guint64 b)
{
  guint64 a0 = (guint32) a, a1 = a >> 32, b0 = (guint32) b, b1 = b >> 32;
  guint64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  guint64 middle = (p00 >> 32) + (guint32) p01 + (guint32) p10;
  GstCudaFiltersU128 r;

  r.lo = (middle << 32) | (guint32) p00;
  r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
  return r;
}

GST_START_TEST (test_interval_limits)
{
  fail_unless (gst_cuda_filters_analysis_interval_fits (1, 256, 256));
  /* `frames` is posted as a guint: the 4294967295th frame joins the
   * interval, the next starts another */
  fail_unless (gst_cuda_filters_analysis_interval_fits (G_MAXUINT - 1, 0, 1));
  fail_if (gst_cuda_filters_analysis_interval_fits (G_MAXUINT, 0, 1));
  /* and `pixels` as a guint64 */
  fail_unless (gst_cuda_filters_analysis_interval_fits (7,
          G_MAXUINT64 - 100, 100));
  fail_if (gst_cuda_filters_analysis_interval_fits (7, G_MAXUINT64 - 100, 101));
  /* frames of G_MAXUINT pixels, the largest caps allow, reach the frames'
   * limit first */
  fail_unless (gst_cuda_filters_analysis_interval_fits (G_MAXUINT - 1,
          (guint64) (G_MAXUINT - 1) * G_MAXUINT, G_MAXUINT));
}

GST_END_TEST;

GST_START_TEST (test_u128_sum)
{
  /* a 4K frame's sum of squares of one channel, 5.4e11: 64 bits wrap after
   * 3.4e7 frames, 6.5 days at 60 fps */
  const guint64 per_frame = (guint64) 3840 * 2160 * 255 * 255;
  const guint64 frames = 40000000;
  GstCudaFiltersU128 sum = { 0, 0 }, want = mul_64x64 (frames, per_frame);
  guint64 i;

  for (i = 0; i < frames; i++)
    gst_cuda_filters_u128_add (&sum, per_frame);
  fail_unless (want.hi == 1, "the test should pass 2^64");
  fail_unless (sum.hi == want.hi && sum.lo == want.lo, "sum %"
      G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT ":%"
      G_GUINT64_FORMAT, sum.hi, sum.lo, want.hi, want.lo);

  /* the carry at the edge */
  sum.hi = 0;
  sum.lo = G_MAXUINT64;
  gst_cuda_filters_u128_add (&sum, 1);
  fail_unless (sum.hi == 1 && sum.lo == 0);
  gst_cuda_filters_u128_add (&sum, G_MAXUINT64);
  fail_unless (sum.hi == 1 && sum.lo == G_MAXUINT64);
  gst_cuda_filters_u128_add (&sum, 2);
  fail_unless (sum.hi == 2 && sum.lo == 1);
}

GST_END_TEST;

GST_START_TEST (test_variance_numerator)
{
  GstCudaFiltersU128 q = { 30, 0 };
  guint64 n, k, s;
  gdouble got, want;

  /* 1, 2, 3, 4: 4 * 30 - 10^2 */
  fail_unless (gst_cuda_filters_variance_numerator (4, 10, &q) == 20.0);
  q.lo = 0;
  fail_unless (gst_cuda_filters_variance_numerator (0, 0, &q) == 0.0);

  /* 2^56 + 1 samples of 255: n q - s^2 = 0 exactly, with n q about 2^128
   * (in floating point the two terms round apart) */
  n = (G_GUINT64_CONSTANT (1) << 56) + 1;
  q = mul_64x64 (n, 255 * 255);
  fail_unless (gst_cuda_filters_variance_numerator (n, 255 * n, &q) == 0.0);

  /* 2^57 - 2 samples, half 0 and half 255 (the sum just under 2^64): n q
   * passes 2^128, and n q - s^2 = s^2 (a standard deviation of 127.5) */
  n = (G_GUINT64_CONSTANT (1) << 57) - 2;
  k = n / 2;
  s = 255 * k;
  q = mul_64x64 (k, 255 * 255);
  fail_unless (q.hi > 0);
  got = gst_cuda_filters_variance_numerator (n, s, &q);
  want = (gdouble) s *(gdouble) s;
  fail_unless (got > 0 && ABS (got / want - 1.0) < 1e-14, "numerator %g, "
      "want %g", got, want);
}

GST_END_TEST;

/* Long arrays in both formats hold the same values: a GstValueArray of
 * them, or a GstBuffer of them as they lie in memory; none is a buffer of
 * no bytes. */
GST_START_TEST (test_array_formats)
{
  GstStructure *s = gst_structure_new_empty ("test");
  GRand *rand = g_rand_new ();
  guint64 counts[301], first;
  gdouble means[7];
  guint i;

  for (i = 0; i < G_N_ELEMENTS (counts); i++)
    counts[i] = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
  for (i = 0; i < G_N_ELEMENTS (means); i++)
    means[i] = g_rand_double_range (rand, 0, 255);
  gst_cuda_filters_structure_take_values (s, "counts", G_TYPE_UINT64,
      G_N_ELEMENTS (counts), counts, GST_CUDA_FILTERS_ARRAY_FORMAT_VALUE_ARRAY,
      NULL);
  gst_cuda_filters_structure_take_values (s, "counts-buffer", G_TYPE_UINT64,
      G_N_ELEMENTS (counts), counts, GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER,
      NULL);
  gst_cuda_filters_structure_take_values (s, "means", G_TYPE_DOUBLE,
      G_N_ELEMENTS (means), means, GST_CUDA_FILTERS_ARRAY_FORMAT_VALUE_ARRAY,
      NULL);
  gst_cuda_filters_structure_take_values (s, "means-buffer", G_TYPE_DOUBLE,
      G_N_ELEMENTS (means), means, GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER, NULL);
  gst_cuda_filters_structure_take_values (s, "none", G_TYPE_DOUBLE, 0, means,
      GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER, NULL);
  /* the values are copied: changing them now changes nothing */
  first = counts[0];
  counts[0] = ~first;

  fail_unless (GST_VALUE_HOLDS_ARRAY (gst_structure_get_value (s, "counts")));
  fail_unless (GST_VALUE_HOLDS_BUFFER (gst_structure_get_value (s,
              "counts-buffer")));
  fail_unless_equals_int (cf_test_array_length (s, "counts"),
      G_N_ELEMENTS (counts));
  fail_unless_equals_int (cf_test_array_length (s, "counts-buffer"),
      G_N_ELEMENTS (counts));
  for (i = 0; i < G_N_ELEMENTS (counts); i++) {
    guint64 want = i ? counts[i] : first;
    fail_unless (cf_test_array_uint64 (s, "counts", i) == want);
    fail_unless (cf_test_array_uint64 (s, "counts-buffer", i) == want);
  }
  fail_unless_equals_int (cf_test_array_length (s, "means-buffer"),
      G_N_ELEMENTS (means));
  for (i = 0; i < G_N_ELEMENTS (means); i++) {
    fail_unless (cf_test_array_double (s, "means", i) == means[i]);
    fail_unless (cf_test_array_double (s, "means-buffer", i) == means[i]);
  }
  fail_unless (GST_VALUE_HOLDS_BUFFER (gst_structure_get_value (s, "none")));
  fail_unless_equals_int (cf_test_array_length (s, "none"), 0);
  g_rand_free (rand);
  gst_structure_free (s);
}

GST_END_TEST;

static GstBuffer *
values_buffer (const GstStructure * s, const gchar * name)
{
  return gst_value_get_buffer (gst_structure_get_value (s, name));
}

/* A structure with @n random counts in field "counts" as a buffer filled
 * through @reuse; the counts go to @counts */
static GstStructure *
reused_counts (GstCudaFiltersValueBuffers * reuse, GRand * rand, guint n,
    guint64 * counts)
{
  GstStructure *s = gst_structure_new_empty ("test");
  guint i;

  for (i = 0; i < n; i++)
    counts[i] = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
  gst_cuda_filters_structure_take_values (s, "counts", G_TYPE_UINT64, n,
      counts, GST_CUDA_FILTERS_ARRAY_FORMAT_BUFFER, reuse);
  return s;
}

static void
check_counts (const GstStructure * s, const guint64 * counts, guint n)
{
  guint i;

  fail_unless_equals_int (cf_test_array_length (s, "counts"), n);
  for (i = 0; i < n; i++)
    fail_unless (cf_test_array_uint64 (s, "counts", i) == counts[i]);
}

/* The buffers of long arrays are filled again once nothing else holds
 * them: never while a message (or a copy sharing the memory) still does,
 * never one too small, and never more than GST_CUDA_FILTERS_VALUE_BUFFERS
 * kept. */
GST_START_TEST (test_value_buffers_reused)
{
  GstCudaFiltersValueBuffers reuse = { {NULL}, 0 };
  GRand *rand = g_rand_new ();
  guint64 a[256], b[256], c[512], d[100];
  GstStructure *held[GST_CUDA_FILTERS_VALUE_BUFFERS + 4];
  GstStructure *s1, *s2, *s3;
  GstBuffer *first, *copy;
  guint i;

  s1 = reused_counts (&reuse, rand, 256, a);
  first = values_buffer (s1, "counts");
  /* held by its message: a new one */
  s2 = reused_counts (&reuse, rand, 256, b);
  fail_if (values_buffer (s2, "counts") == first);
  check_counts (s1, a, 256);
  check_counts (s2, b, 256);
  /* the message gone: its buffer again, with the new values */
  gst_structure_free (s1);
  s1 = reused_counts (&reuse, rand, 256, a);
  fail_unless (values_buffer (s1, "counts") == first);
  check_counts (s1, a, 256);
  check_counts (s2, b, 256);
  /* too small for 512: a new one; then a smaller array fits it */
  gst_structure_free (s1);
  s3 = reused_counts (&reuse, rand, 512, c);
  fail_if (values_buffer (s3, "counts") == first);
  check_counts (s3, c, 512);
  s1 = reused_counts (&reuse, rand, 100, d);
  fail_unless (values_buffer (s1, "counts") == first);
  check_counts (s1, d, 100);
  check_counts (s3, c, 512);
  /* a copy that shares the memory keeps it from being written */
  copy = gst_buffer_copy (values_buffer (s1, "counts"));
  gst_structure_free (s1);
  s1 = reused_counts (&reuse, rand, 100, a);
  fail_if (values_buffer (s1, "counts") == first);
  {
    GstStructure *was = gst_structure_new ("test", "counts", GST_TYPE_BUFFER,
        copy, NULL);
    check_counts (was, d, 100);
    gst_structure_free (was);
  }
  gst_buffer_unref (copy);
  /* so does a reference to the memory alone */
  gst_structure_free (s1);
  s1 = reused_counts (&reuse, rand, 100, d);
  {
    GstBuffer *buf = values_buffer (s1, "counts");
    GstMemory *mem = gst_buffer_get_memory (buf, 0);
    GstMapInfo map;

    gst_structure_free (s1);
    s1 = reused_counts (&reuse, rand, 100, a);
    fail_if (values_buffer (s1, "counts") == buf);
    fail_unless (gst_memory_map (mem, &map, GST_MAP_READ));
    fail_unless (memcmp (map.data, d, sizeof (d)) == 0);
    gst_memory_unmap (mem, &map);
    gst_memory_unref (mem);
  }
  gst_structure_free (s1);
  gst_structure_free (s2);
  gst_structure_free (s3);

  /* more messages held than buffers kept: each its own buffer, and the
   * values of all right */
  for (i = 0; i < G_N_ELEMENTS (held); i++) {
    guint k;

    held[i] = reused_counts (&reuse, rand, 256, a);
    /* the first: a buffer of 256 made smaller (100) grown back */
    if (i == 0)
      fail_unless (values_buffer (held[0], "counts") == first);
    for (k = 0; k < i; k++)
      fail_if (values_buffer (held[i], "counts") ==
          values_buffer (held[k], "counts"));
    check_counts (held[i], a, 256);
  }
  for (i = 0; i < G_N_ELEMENTS (held); i++)
    gst_structure_free (held[i]);
  gst_cuda_filters_value_buffers_clear (&reuse);
  for (i = 0; i < GST_CUDA_FILTERS_VALUE_BUFFERS; i++)
    fail_unless (reuse.buffers[i] == NULL);
  g_rand_free (rand);
}

GST_END_TEST;

GST_START_TEST (test_percentile)
{
  guint64 counts[256] = { 0, };
  guint v;

  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256, 0, 50), 0);
  /* 101 samples, one of each of 0 to 100: the rank is ceil (p n / 100) */
  for (v = 0; v <= 100; v++)
    counts[v] = 1;
  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256, 101, 0), 0);
  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256, 101, 10),
      10);
  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256, 101, 50),
      50);
  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256, 101, 90),
      90);
  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256, 101,
          100), 100);
  /* 2^63 samples, half 0 and half 255: p n passes 64 bits */
  memset (counts, 0, sizeof (counts));
  counts[0] = counts[255] = G_GUINT64_CONSTANT (1) << 62;
  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256,
          G_GUINT64_CONSTANT (1) << 63, 10), 0);
  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256,
          G_GUINT64_CONSTANT (1) << 63, 50), 0);
  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256,
          G_GUINT64_CONSTANT (1) << 63, 51), 255);
  fail_unless_equals_int (gst_cuda_filters_percentile (counts, 256,
          G_GUINT64_CONSTANT (1) << 63, 90), 255);
}

GST_END_TEST;

/* ---- the analysis class on the GPU ---- */

/* Frames that would take the posted 64-bit sum past 2^64 - 1 start a new
 * interval, however long the interval is: 3 frames of 2^62 fit, a 4th does
 * not. */
GST_START_TEST (test_interval_posted_early)
{
  const guint64 quarter = G_GUINT64_CONSTANT (1) << 62;
  Counter *c = counter_new ();

  counter_set_interval (c, 3600 * GST_SECOND);
  counter_set_value (c, quarter);
  push_frames (c, 0, 10);
  push_eos (c);
  expect_counter_message (c, 0, 3, 3 * quarter, "frames 0-2");
  expect_counter_message (c, 3, 3, 3 * quarter, "frames 3-5");
  expect_counter_message (c, 6, 3, 3 * quarter, "frames 6-8");
  expect_counter_message (c, 9, 1, quarter, "frame 9, at EOS");
  expect_no_message (c, 0, "a message more at EOS");
  counter_free (c);
}

GST_END_TEST;

/* A frame waiting for a slot while the GPU holds every frame in flight:
 * FLUSH_START, from another thread, ends the wait in GST_FLOW_FLUSHING at
 * once, and the results of those frames are never posted. */
GST_START_TEST (test_flush_wakes_frame_waiting_for_slot)
{
  Counter *c = counter_new ();
  Pusher *p = fill_slots (c);

  expect_flush_wakes (c, p, "the frame waiting for a slot");
  fail_unless_equals_int (pusher_finish (p), GST_FLOW_FLUSHING);

  expect_stream_goes_on (c, SLOTS + 2, 7);
  counter_free (c);
}

GST_END_TEST;

/* Opens the gate once the push has returned, or after 5 s (then the test
 * fails, but does not hang). */
static gpointer
open_gate_after_push (gpointer data)
{
  gboolean woke = pusher_wait (data, 5000);

  gate_set_closed (FALSE);
  return GINT_TO_POINTER (woke);
}

/* The change to READY ends the wait for a slot too: the pads' deactivation
 * waits for the streaming thread to leave the element. */
GST_START_TEST (test_ready_wakes_frame_waiting_for_slot)
{
  Counter *c = counter_new ();
  Pusher *p = fill_slots (c);
  GThread *opener;
  gboolean woke;

  /* stop() waits for the frames on the GPU: the gate opens once the frame
   * waiting for a slot has returned */
  opener = g_thread_new ("opener", open_gate_after_push, p);
  fail_unless_equals_int (gst_element_set_state (c->h->element,
          GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  woke = GPOINTER_TO_INT (g_thread_join (opener));
  fail_unless (woke, "going to READY did not wake the frame waiting for a "
      "slot");
  fail_unless_equals_int (pusher_finish (p), GST_FLOW_FLUSHING);
  expect_no_message (c, 0, "a result of the frames on the GPU was posted");
  counter_free (c);
}

GST_END_TEST;

/* EOS waits for the frames in flight to post the partial interval: a flush
 * ends that wait, and nothing of the interval is posted. */
GST_START_TEST (test_flush_wakes_eos)
{
  Counter *c = counter_new ();
  Pusher *p;

  counter_set_interval (c, 3600 * GST_SECOND);
  warm_up (c, FALSE);
  gate_set_closed (TRUE);
  counter_set_value (c, 5);
  push_frames (c, 1, 3);
  p = pusher_start (c->h, NULL, gst_event_new_eos ());
  fail_if (pusher_wait (p, 200), "EOS did not wait for the frames");
  expect_flush_wakes (c, p, "EOS waiting for the frames");
  pusher_finish (p);

  expect_stream_goes_on (c, 4, 7);
  counter_free (c);
}

GST_END_TEST;

/* With attach-meta a frame waits for its own result: a flush ends that
 * wait too, and the next frame carries its own result. */
GST_START_TEST (test_flush_wakes_frame_waiting_for_meta)
{
  Counter *c = counter_new ();
  GstCustomMeta *meta;
  GstBuffer *out;
  Pusher *p;
  guint64 value = 0;

  g_object_set (c->h->element, "attach-meta", TRUE, NULL);
  warm_up (c, TRUE);
  gst_buffer_unref (gst_harness_pull (c->h));
  gate_set_closed (TRUE);
  counter_set_value (c, 5);
  p = pusher_start (c->h, counter_frame (c, 1), NULL);
  fail_if (pusher_wait (p, 200), "the frame did not wait for its result");
  expect_flush_wakes (c, p, "the frame waiting for its result");
  fail_unless_equals_int (pusher_finish (p), GST_FLOW_FLUSHING);

  expect_stream_goes_on (c, 2, 7);
  out = gst_harness_pull (c->h);
  meta = gst_buffer_get_custom_meta (out, "GstCudaTestCounterMeta");
  fail_unless (meta != NULL);
  fail_unless (gst_structure_get_uint64 (gst_custom_meta_get_structure
          (meta), "value", &value));
  fail_unless_equals_uint64 (value, 7);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), frame_pts (2));
  gst_buffer_unref (out);
  counter_free (c);
}

GST_END_TEST;

/* A GPU that stops answering: the frame waiting for a slot fails after 10
 * s with an element error, later frames fail at once, and the results of
 * the frames held are dropped. */
GST_START_TEST (test_gpu_timeout)
{
  Counter *c = counter_new ();
  GstMessage *msg;
  GError *err = NULL;
  Pusher *p;
  gint64 start, waited;
  gboolean returned;

  warm_up (c, TRUE);
  gate_set_closed (TRUE);
  counter_set_value (c, 5);
  /* (not fill_slots(): the wait is timed from the first frame held) */
  start = g_get_monotonic_time ();
  push_frames (c, 1, SLOTS);
  p = push_waiting_frame (c, SLOTS + 1);
  returned = pusher_wait (p, 25000);
  waited = g_get_monotonic_time () - start;
  if (!returned)
    gate_set_closed (FALSE);
  fail_unless (returned, "the frame still waits after 25 s");
  fail_unless_equals_int (pusher_finish (p), GST_FLOW_ERROR);
  fail_unless (waited >= 10 * G_TIME_SPAN_SECOND - 500 *
      G_TIME_SPAN_MILLISECOND, "failed after %" G_GINT64_FORMAT " us", waited);
  msg = gst_bus_pop_filtered (c->bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless_equals_string (err->message,
      "The GPU did not finish a frame within 10 seconds.");
  g_clear_error (&err);
  gst_message_unref (msg);

  /* the next frame fails at once, without a second message */
  start = g_get_monotonic_time ();
  fail_unless_equals_int (gst_harness_push (c->h, counter_frame (c,
              SLOTS + 2)), GST_FLOW_ERROR);
  fail_unless (g_get_monotonic_time () - start < G_TIME_SPAN_SECOND);
  fail_unless (gst_bus_pop_filtered (c->bus, GST_MESSAGE_ERROR) == NULL);

  /* the GPU comes back: the frames held are done (stop() waits for them)
   * and their results dropped */
  gate_set_closed (FALSE);
  fail_unless_equals_int (gst_element_set_state (c->h->element,
          GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  expect_no_message (c, 0, "a result of the frames held was posted");
  counter_free (c);
}

GST_END_TEST;

/* ---- what the analysis elements share, on the GPU ---- */

/* Without an interval, a message a frame: in frame order, each with the
 * frame's own result and times; none more at EOS. */
GST_START_TEST (test_messages_every_frame)
{
  Counter *c = counter_new_timed ();
  guint i;

  push_bit_frames (c, 0, 12);
  for (i = 0; i < 12; i++)
    expect_timed_message (c, 10 * GST_SECOND, i, 1, BIT (i), "every frame");
  push_eos (c);
  expect_no_message (c, 0, "a message more at EOS");
  counter_free (c);
}

GST_END_TEST;

GST_START_TEST (test_interval_and_eos)
{
  Counter *c = counter_new_timed ();
  guint i;

  /* 0.1 s: three frames of 1/30 s each */
  counter_set_interval (c, 100 * GST_MSECOND);
  push_bit_frames (c, 0, 10);
  for (i = 0; i < 3; i++)
    expect_timed_message (c, 10 * GST_SECOND, 3 * i, 3, BITS (3 * i, 3),
        "interval");
  expect_no_message (c, 100 * GST_MSECOND,
      "the partial interval was posted before EOS");
  /* EOS posts the last, partial interval before it goes on */
  push_eos (c);
  expect_timed_message (c, 0, 9, 1, BIT (9), "partial interval at EOS");
  counter_free (c);
}

GST_END_TEST;

/* A timestamp that goes back without a flush ends the interval summed so
 * far, and its frame starts the next. */
GST_START_TEST (test_timestamp_back)
{
  static const guint order[] = { 5, 6, 7, 2, 3 };
  Counter *c = counter_new_timed ();
  guint i;

  counter_set_interval (c, GST_SECOND);
  for (i = 0; i < G_N_ELEMENTS (order); i++)
    push_frame (c, order[i], BIT (order[i]));
  expect_timed_message (c, 10 * GST_SECOND, 5, 3, BITS (5, 3),
      "before going back");
  expect_no_message (c, 100 * GST_MSECOND,
      "the interval after going back was posted before EOS");
  push_eos (c);
  expect_timed_message (c, 0, 2, 2, BITS (2, 2), "after going back, at EOS");
  expect_no_message (c, 0, "a message more at EOS");
  counter_free (c);
}

GST_END_TEST;

/* One frame both ends the interval before it (its timestamp went back) and
 * fills an interval of its own (it lasts longer than `interval`): two
 * messages from one frame, the earlier interval's first. */
GST_START_TEST (test_timestamp_back_whole_interval)
{
  Counter *c = counter_new_timed ();
  GstBuffer *long_frame;
  GstStructure *s;
  guint64 dur;

  counter_set_interval (c, 500 * GST_MSECOND);
  push_bit_frames (c, 5, 3);
  long_frame = counter_frame (c, 2);
  GST_BUFFER_DURATION (long_frame) = GST_SECOND;
  counter_set_value (c, BIT (2));
  fail_unless_equals_int (gst_harness_push (c->h, long_frame), GST_FLOW_OK);

  expect_timed_message (c, 10 * GST_SECOND, 5, 3, BITS (5, 3),
      "before going back");
  s = next_counter_message (c, 10 * GST_SECOND, 2, 1, BIT (2),
      "the long frame");
  fail_unless (gst_structure_get_uint64 (s, "duration", &dur));
  fail_unless_equals_uint64 (dur, GST_SECOND);
  gst_structure_free (s);
  push_eos (c);
  expect_no_message (c, 0, "a message at EOS for an interval already posted");
  counter_free (c);
}

GST_END_TEST;

/* The next message is "cudatestcounter-observed" of frame @i, of value
 * @value, the @observed-th since the last reset. */
static void
expect_observed (Counter * c, guint i, guint64 value, guint observed)
{
  GstStructure *s = cf_test_next_result (c->bus, 10 * GST_SECOND);
  guint64 got_value, ts;
  guint got_observed;

  fail_unless (s != NULL, "frame %u: no message", i);
  fail_unless (gst_structure_has_name (s, "cudatestcounter-observed"),
      "frame %u: %" GST_PTR_FORMAT " where its observation was due", i, s);
  fail_unless (gst_structure_get_uint64 (s, "value", &got_value));
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
  fail_unless (gst_structure_get_uint (s, "observed", &got_observed));
  fail_unless_equals_uint64 (got_value, value);
  fail_unless_equals_uint64 (ts, frame_pts (i));
  fail_unless_equals_int (got_observed, observed);
  gst_structure_free (s);
}

static void
expect_observe_end (Counter * c, guint observed)
{
  GstStructure *s = cf_test_next_result (c->bus, 10 * GST_SECOND);
  guint got_observed;

  fail_unless (s != NULL, "no message at EOS");
  fail_unless (gst_structure_has_name (s, "cudatestcounter-end"),
      "%" GST_PTR_FORMAT " where the end of observing was due", s);
  fail_unless (gst_structure_get_uint (s, "observed", &got_observed));
  fail_unless_equals_int (got_observed, observed);
  gst_structure_free (s);
}

/* observe() sees every frame once, in order, before the interval sums it
 * (what it writes into the result is in the sum); its messages come in
 * stream order with the intervals' (a frame's after the interval that
 * ended before it, before the interval it ends); observe_end() comes at
 * EOS after the last interval, and a flush resets what was observed. */
GST_START_TEST (test_observe)
{
  Counter *c = counter_new ();
  guint i;

  ((GstCudaTestCounter *) c->h->element)->observing = TRUE;
  push_timed_segment (c);
  counter_set_interval (c, 100 * GST_MSECOND);  /* three frames */
  push_bit_frames (c, 0, 7);
  for (i = 0; i < 6; i++) {
    expect_observed (c, i, BIT (i), i + 1);
    if (i % 3 == 2)
      expect_timed_message (c, 10 * GST_SECOND, i - 2, 3,
          BITS (i - 2, 3) + 3 * OBSERVED_MARK, "interval of observed frames");
  }
  expect_observed (c, 6, BIT (6), 7);
  push_eos (c);
  expect_timed_message (c, 0, 6, 1, BIT (6) + OBSERVED_MARK,
      "partial interval at EOS");
  expect_observe_end (c, 7);
  expect_no_message (c, 0, "a message more at EOS");

  /* a flush: observing starts again */
  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_stop (TRUE)));
  push_timed_segment (c);
  push_bit_frames (c, 0, 2);
  for (i = 0; i < 2; i++)
    expect_observed (c, i, BIT (i), i + 1);
  push_eos (c);
  expect_timed_message (c, 0, 0, 2, BITS (0, 2) + 2 * OBSERVED_MARK,
      "after a flush");
  expect_observe_end (c, 2);

  /* a timestamp going back: the interval it ends comes before what
   * observing that frame found */
  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_stop (TRUE)));
  push_timed_segment (c);
  counter_set_interval (c, GST_SECOND);
  push_bit_frames (c, 5, 3);
  push_frame (c, 2, BIT (2));
  for (i = 0; i < 3; i++)
    expect_observed (c, 5 + i, BIT (5 + i), i + 1);
  expect_timed_message (c, 10 * GST_SECOND, 5, 3,
      BITS (5, 3) + 3 * OBSERVED_MARK, "the interval before going back");
  expect_observed (c, 2, BIT (2), 4);
  push_eos (c);
  expect_timed_message (c, 0, 2, 1, BIT (2) + OBSERVED_MARK,
      "after going back, at EOS");
  expect_observe_end (c, 4);
  counter_free (c);
}

GST_END_TEST;

GST_START_TEST (test_no_messages)
{
  Counter *c = counter_new_timed ();
  guint i;

  g_object_set (c->h->element, "post-messages", FALSE, NULL);
  for (i = 0; i < 5; i++) {
    push_frame (c, i, BIT (i));
    gst_buffer_unref (gst_harness_pull (c->h));
  }
  push_eos (c);
  expect_no_message (c, 200 * GST_MSECOND, "a message with post-messages "
      "off");
  counter_free (c);
}

GST_END_TEST;

GST_START_TEST (test_flush)
{
  Counter *c = counter_new_timed ();
  guint i;

  counter_set_interval (c, GST_SECOND);
  push_bit_frames (c, 0, 5);
  /* a flush drops the interval being summed */
  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (c->h, gst_event_new_flush_stop (TRUE)));
  push_timed_segment (c);
  for (i = 0; i < 2; i++)
    push_frame (c, i, BIT (8 + i));
  push_eos (c);
  expect_timed_message (c, 0, 0, 2, BITS (8, 2), "after a flush");
  expect_no_message (c, 0, "a message of the interval flushed");
  counter_free (c);
}

GST_END_TEST;

/* A flush that arrives while a frame's message is being posted waits for
 * it: no message of a frame before FLUSH_STOP comes after it. */
GST_START_TEST (test_flush_while_posting)
{
  Counter *c = counter_new_timed ();
  /* on the heap: should a check fail, the results thread may still be
   * at the gate */
  PostGate *pg = g_new0 (PostGate, 1);
  GstPad *sinkpad = gst_element_get_static_pad (c->h->element, "sink");
  GThread *flusher;
  gchar order[sizeof (pg->order)];
  gboolean seen;
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;

  g_mutex_init (&pg->lock);
  g_cond_init (&pg->cond);
  pg->h = c->h;
  gst_bus_set_sync_handler (c->bus, post_gate_sync_handler, pg, NULL);
  fail_unless (sinkpad != NULL);
  gst_pad_add_probe (sinkpad, GST_PAD_PROBE_TYPE_EVENT_FLUSH,
      post_gate_flush_probe, pg, NULL);

  push_frame (c, 0, BIT (0));
  g_mutex_lock (&pg->lock);
  while (!pg->in_post && g_cond_wait_until (&pg->cond, &pg->lock, deadline));
  seen = pg->in_post;
  g_mutex_unlock (&pg->lock);
  fail_unless (seen, "frame 0's message was never posted");

  /* the flush starts while the message waits at the gate; once FLUSH_STOP
   * has reached the element, and a while after, the gate opens: had
   * nothing held the flush, it would have finished by then */
  flusher = g_thread_new ("flusher", flush_from_thread, pg);
  g_mutex_lock (&pg->lock);
  while (!pg->flush_stop_seen && g_cond_wait_until (&pg->cond, &pg->lock,
          deadline));
  seen = pg->flush_stop_seen;
  g_mutex_unlock (&pg->lock);
  if (seen)
    g_usleep (100 * 1000);
  g_mutex_lock (&pg->lock);
  pg->open = TRUE;
  g_cond_broadcast (&pg->cond);
  g_mutex_unlock (&pg->lock);
  g_thread_join (flusher);
  fail_unless (seen, "FLUSH_STOP never reached the element");
  fail_unless (pg->flush_pushed);
  g_mutex_lock (&pg->lock);
  memcpy (order, pg->order, sizeof (order));
  g_mutex_unlock (&pg->lock);
  fail_unless_equals_string (order, "mf");

  /* the frame before the flush has its message, the one after it its own */
  push_timed_segment (c);
  push_frame (c, 3, BIT (3));
  push_eos (c);
  expect_timed_message (c, 0, 0, 1, BIT (0), "the frame before the flush");
  expect_timed_message (c, 0, 3, 1, BIT (3), "the frame after the flush");
  expect_no_message (c, 0, "a message more at EOS");
  g_mutex_lock (&pg->lock);
  memcpy (order, pg->order, sizeof (order));
  g_mutex_unlock (&pg->lock);
  fail_unless_equals_string (order, "mfm");

  gst_bus_set_sync_handler (c->bus, NULL, NULL, NULL);
  gst_object_unref (sinkpad);
  counter_free (c);
  g_cond_clear (&pg->cond);
  g_mutex_clear (&pg->lock);
  g_free (pg);
}

GST_END_TEST;

/* With attach-meta every frame carries its own result (the message's
 * fields, the structure named after the meta), and the message still
 * comes. */
GST_START_TEST (test_meta)
{
  Counter *c = counter_new_timed ();
  guint i;

  g_object_set (c->h->element, "attach-meta", TRUE, NULL);
  for (i = 0; i < 4; i++) {
    GstCustomMeta *meta;
    GstStructure *s;
    GstBuffer *out;

    push_frame (c, i, BIT (i));
    out = gst_harness_pull (c->h);
    meta = gst_buffer_get_custom_meta (out, "GstCudaTestCounterMeta");
    fail_unless (meta != NULL, "no meta on frame %u", i);
    s = gst_custom_meta_get_structure (meta);
    gst_structure_set_name (s, "cudatestcounter");
    check_counter_result (s, i, 1, BIT (i), 16 * 16, "meta");
    check_times (s, i, 1);
    expect_timed_message (c, 10 * GST_SECOND, i, 1, BIT (i),
        "message with meta");
    gst_buffer_unref (out);
  }
  counter_free (c);
}

GST_END_TEST;

/* A segment in bytes (appsrc's default format): a message a frame all the
 * same, its buffer timestamp and no stream or running time, and no
 * critical from converting times through such a segment (gst-check
 * fails a test on one). */
GST_START_TEST (test_bytes_segment)
{
  Counter *c = counter_new ();
  GstSegment segment;
  GstStructure *s;
  guint64 st, rt;

  gst_segment_init (&segment, GST_FORMAT_BYTES);
  fail_unless (gst_harness_push_event (c->h, gst_event_new_segment (&segment)));
  push_frame (c, 3, BIT (3));
  s = next_counter_message (c, 10 * GST_SECOND, 3, 1, BIT (3), "bytes segment");
  fail_unless (gst_structure_get_uint64 (s, "stream-time", &st));
  fail_unless (gst_structure_get_uint64 (s, "running-time", &rt));
  fail_unless_equals_uint64 (st, GST_CLOCK_TIME_NONE);
  fail_unless_equals_uint64 (rt, GST_CLOCK_TIME_NONE);
  gst_structure_free (s);
  counter_free (c);
}

GST_END_TEST;

/* The region of interest, clipped to the frame, and its pixels in the
 * message (what the elements make of the region's samples is tested with
 * each). */
GST_START_TEST (test_region_of_interest)
{
  static const struct
  {
    guint x, y, w, h;           /* 0 w/h: to the edge */
    guint64 pixels;
  } rois[] = {
    {0, 0, 0, 0, 256}, {1, 1, 1, 1, 1}, {3, 5, 7, 9, 63}, {4, 0, 0, 1, 12},
    {0, 4, 1, 0, 12},
    {5000, 0, 0, 0, 0},         /* outside: nothing */
    {10, 12, 50, 50, 24},       /* clipped */
  };
  Counter *c = counter_new ();
  guint i;

  for (i = 0; i < G_N_ELEMENTS (rois); i++) {
    gchar *what = g_strdup_printf ("region %u,%u %ux%u", rois[i].x, rois[i].y,
        rois[i].w, rois[i].h);
    GstStructure *s;

    g_object_set (c->h->element, "roi-x", rois[i].x, "roi-y", rois[i].y,
        "roi-width", rois[i].w, "roi-height", rois[i].h, NULL);
    push_frame (c, i, BIT (i));
    s = cf_test_next_result (c->bus, 10 * GST_SECOND);
    fail_unless (s != NULL, "%s: no message", what);
    check_counter_result (s, i, 1, BIT (i), rois[i].pixels, what);
    gst_structure_free (s);
    g_free (what);
  }
  counter_free (c);
}

GST_END_TEST;

/* Frames @first to @first + @n - 1, each result's message waited for */
static void
push_frames_each_posted (Counter * c, guint first, guint n)
{
  guint i;

  for (i = first; i < first + n; i++) {
    fail_unless_equals_int (gst_harness_push (c->h, counter_frame (c, i)),
        GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (c->h));
    expect_counter_message (c, i, 1, 0, "a marking frame");
  }
}

/* A frame whose work failed half-way (its kernels added into its sums
 * but did not zero the next buffer, which the next frame adds into): an
 * element error for it, and every frame after it adds into zeroed sums,
 * each buffer used again since.  First, the same miss without the error
 * (a frame that skips the zeroing and does not say so) shows that the
 * counter sees a buffer not zeroed. */
GST_START_TEST (test_frame_failed_half_way)
{
  Counter *c = counter_new ();
  GstCudaTestCounter *self = (GstCudaTestCounter *) c->h->element;
  GstMessage *msg;
  GError *err = NULL;

  self->marking = TRUE;
  self->miss_at = 40;
  self->fail_at = 60;
  /* every sums buffer used (and marked) before the miss: 40 frames, more
   * than the results' buffers (CF_RESULTS_N_SUMS, 17); were there more
   * than 40, frame 41 would find its buffer unmarked and the test fail */
  push_frames_each_posted (c, 0, 40);
  fail_unless_equals_int (g_atomic_int_get (&self->dirty), 0);
  push_frames_each_posted (c, 40, 20);
  fail_unless_equals_int (g_atomic_int_get (&self->dirty), 1);
  g_atomic_int_set (&self->dirty, 0);

  fail_unless_equals_int (gst_harness_push (c->h, counter_frame (c, 60)),
      GST_FLOW_ERROR);
  msg = gst_bus_timed_pop_filtered (c->bus, GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message for the failed frame");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_str_has_prefix (err->message, "CUDA failed while "), "%s",
      err->message);
  g_clear_error (&err);
  gst_message_unref (msg);
  push_frames_each_posted (c, 61, 40);
  fail_unless_equals_int (g_atomic_int_get (&self->dirty), 0);
  counter_free (c);
}

GST_END_TEST;

/* A frame shorter than its caps say: a flow error and an error message. */
GST_START_TEST (test_short_buffer)
{
  Counter *c = counter_new ();
  GstMessage *msg;

  fail_unless_equals_int (gst_harness_push (c->h,
          gst_buffer_new_allocate (NULL, 16 * 4 * 15, NULL)), GST_FLOW_ERROR);
  msg = gst_bus_timed_pop_filtered (c->bus, GST_SECOND, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL);
  gst_message_unref (msg);
  counter_free (c);
}

GST_END_TEST;

CF_TEST_SUITE (analysis_suite, "analysis",
    CF_TEST_CASE ("gpu", 0),
    CF_TEST (test_messages_every_frame),
    CF_TEST (test_interval_and_eos),
    CF_TEST (test_observe),
    CF_TEST (test_timestamp_back),
    CF_TEST (test_timestamp_back_whole_interval),
    CF_TEST (test_no_messages),
    CF_TEST (test_flush),
    CF_TEST (test_flush_while_posting),
    CF_TEST (test_meta),
    CF_TEST (test_bytes_segment),
    CF_TEST (test_region_of_interest),
    CF_TEST (test_short_buffer),
    CF_TEST (test_interval_posted_early),
    CF_TEST (test_flush_wakes_frame_waiting_for_slot),
    CF_TEST (test_ready_wakes_frame_waiting_for_slot),
    CF_TEST (test_flush_wakes_eos),
    CF_TEST (test_flush_wakes_frame_waiting_for_meta),
    CF_TEST (test_gpu_timeout), CF_TEST (test_frame_failed_half_way));

CF_TEST_SUITE (analysis_cpu_suite, "analysis-cpu",
    CF_TEST_CASE ("cpu", 0),
    CF_TEST (test_interval_limits),
    CF_TEST (test_u128_sum),
    CF_TEST (test_variance_numerator), CF_TEST (test_percentile),
    CF_TEST (test_array_formats), CF_TEST (test_value_buffers_reused));

static gboolean
gpu_present_and_element_registered (void)
{
  if (!cf_test_gpu_available ())
    return FALSE;
  gst_element_register (NULL, "cudatestcounter", GST_RANK_NONE,
      gst_cuda_test_counter_get_type ());
  return TRUE;
}

/* The "cpu" tests run everywhere (a failure fails the test); the rest
 * needs a GPU, without which the test is skipped (77) after them. */
int
main (int argc, char **argv)
{
  int ret;

  gst_check_init (&argc, &argv);
  g_mutex_init (&gate.lock);
  g_cond_init (&gate.cond);
  ret = gst_check_run_suite (analysis_cpu_suite (), "analysis-cpu", __FILE__);
  if (ret != 0)
    return ret;
  if (!gpu_present_and_element_registered ()) {
    g_print ("SKIP: the rest of this test needs a CUDA GPU and there is "
        "none here\n");
    return CF_TEST_SKIP;
  }
  return gst_check_run_suite (analysis_suite (), "analysis", __FILE__);
}
