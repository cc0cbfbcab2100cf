/* GstCudaFiltersBase through two subclasses defined here:
 * - cudatestfaulty, a copy filter whose kernels fail with a real CUDA error
 *   on a chosen frame: the failure mid-stream must become an element error
 *   and a flow error, and the next frame must work again;
 * - cudatestprobe, an analysis element (in-place passthrough) that copies
 *   what it sees on the device back to the host: it must see the frame's
 *   exact bytes, in system and in CUDA memory, while the buffer itself goes
 *   downstream untouched (the same buffer, the same bytes);
 * and GstCudaFiltersAnalysis through a third:
 * - cudatestcounter, whose frames each add a value chosen by the test to a
 *   64-bit sum the message posts, and whose work can be held on the GPU's
 *   stream at a gate (a host function that blocks, as a GPU that stopped
 *   answering would): an interval is posted early before its sum would
 *   overflow; FLUSH_START and the change to READY wake a frame waiting for
 *   a slot, for its meta or EOS waiting for the frames in flight, and drop
 *   their results; a GPU that does not finish a frame in 10 s is an element
 *   error, not a hang.
 * Without a GPU only the "cpu" tests run (the interval's arithmetic: the
 * limits of a message's fields, 128-bit sums, the variance's numerator,
 * percentiles of huge counts), then the test exits 77 (skipped). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/cuda/gstcudamemory.h>
#include <cuda_runtime_api.h>

#include "cf-test-util.h"
#include "gstcudafiltersbase.h"
#include "gstcudafiltersanalysis.h"
#include "gstcudafilterspinned.h"

#define FORMATS "{ RGBA, NV12 }"

static void
set_test_element_class (GstElementClass * klass, const gchar * klass_name)
{
  GstCaps *caps = gst_cuda_filters_base_make_caps (FORMATS, FORMATS);

  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
  gst_element_class_add_pad_template (klass,
      gst_pad_template_new ("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
  gst_caps_unref (caps);
  gst_element_class_set_static_metadata (klass, "test element", klass_name,
      "a GstCudaFiltersBase subclass for the tests", "tests");
}

/* ---- cudatestfaulty ---- */

typedef struct
{
  GstCudaFiltersBase parent;
  gint frame, fail_at;
} GstCudaTestFaulty;
typedef GstCudaFiltersBaseClass GstCudaTestFaultyClass;
G_DEFINE_TYPE (GstCudaTestFaulty, gst_cuda_test_faulty,
    GST_TYPE_CUDA_FILTERS_BASE);

static CfError
faulty_process (GstCudaFiltersBase * base, GstBuffer * inbuf,
    const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
    CfStream stream)
{
  GstCudaTestFaulty *self = (GstCudaTestFaulty *) base;
  CfError err = 0;
  guint p;

  /* a real failure from the CUDA runtime, one that leaves the context
   * usable: a 2D copy whose rows are wider than its pitch */
  if (self->frame++ == self->fail_at)
    return cudaMemcpy2DAsync (out->data[0], 16, in->data[0], 16, 32, 2,
        cudaMemcpyDeviceToDevice, (cudaStream_t) stream);
  for (p = 0; err == 0 && p < GST_VIDEO_INFO_N_PLANES (in->info); p++) {
    gsize row_bytes;
    guint rows;
    gst_cuda_filters_base_plane_extent (in->info, p, &row_bytes, &rows);
    err = cf_copy_plane (in->data[p], in->stride[p], out->data[p],
        out->stride[p], row_bytes, rows, stream);
  }
  return err;
}

static void
gst_cuda_test_faulty_class_init (GstCudaTestFaultyClass * klass)
{
  set_test_element_class (GST_ELEMENT_CLASS (klass), "Filter/Video");
  klass->process = faulty_process;
}

static void
gst_cuda_test_faulty_init (GstCudaTestFaulty * self)
{
  self->fail_at = 1;
}

/* ---- cudatestprobe ---- */

typedef struct
{
  GstCudaFiltersBase parent;
  guint8 *seen;                 /* plane 0 as the kernels saw it, packed */
  gsize seen_size;
} GstCudaTestProbe;
typedef GstCudaFiltersBaseClass GstCudaTestProbeClass;
G_DEFINE_TYPE (GstCudaTestProbe, gst_cuda_test_probe,
    GST_TYPE_CUDA_FILTERS_BASE);

static CfError
probe_process (GstCudaFiltersBase * base, GstBuffer * inbuf,
    const GstCudaFiltersFrame * in, const GstCudaFiltersFrame * out,
    CfStream stream)
{
  GstCudaTestProbe *self = (GstCudaTestProbe *) base;
  gsize row_bytes;
  guint rows;

  fail_unless (out == NULL, "an analysis element has no output frame");
  gst_cuda_filters_base_plane_extent (in->info, 0, &row_bytes, &rows);
  g_free (self->seen);
  self->seen_size = row_bytes * rows;
  self->seen = g_malloc (self->seen_size);
  /* the base class waits for the stream before the frame moves on */
  return cudaMemcpy2DAsync (self->seen, row_bytes, in->data[0], in->stride[0],
      row_bytes, rows, cudaMemcpyDeviceToHost, (cudaStream_t) stream);
}

static void
gst_cuda_test_probe_finalize (GObject * object)
{
  g_free (((GstCudaTestProbe *) object)->seen);
  G_OBJECT_CLASS (gst_cuda_test_probe_parent_class)->finalize (object);
}

static void
gst_cuda_test_probe_class_init (GstCudaTestProbeClass * klass)
{
  G_OBJECT_CLASS (klass)->finalize = gst_cuda_test_probe_finalize;
  set_test_element_class (GST_ELEMENT_CLASS (klass), "Filter/Analyzer/Video");
  klass->process = probe_process;
  gst_cuda_filters_base_class_set_analysis (klass);
}

static void
gst_cuda_test_probe_init (GstCudaTestProbe * self)
{
}

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
} GstCudaTestCounter;
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

  GST_OBJECT_LOCK (self);
  *(guint64 *) result = self->value;
  GST_OBJECT_UNLOCK (self);
  g_mutex_lock (&gate.lock);
  closed = gate.closed;
  g_mutex_unlock (&gate.lock);
  if (closed)
    err = cudaLaunchHostFunc ((cudaStream_t) stream, gate_host_func, &gate);
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

static void
gst_cuda_test_counter_class_init (GstCudaTestCounterClass * klass)
{
  gst_cuda_filters_analysis_class_add_pad_templates (klass);
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
}

static void
gst_cuda_test_counter_init (GstCudaTestCounter * self)
{
}

static void
counter_set_value (GstHarness * h, guint64 value)
{
  GstCudaTestCounter *self = (GstCudaTestCounter *) h->element;

  GST_OBJECT_LOCK (self);
  self->value = value;
  GST_OBJECT_UNLOCK (self);
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

static void
counter_free (GstHarness * h, GstBus * bus, GstBufferPool * pool)
{
  gate_set_closed (FALSE);
  cf_test_free_harness (h, bus);
  gst_buffer_pool_set_active (pool, FALSE);
  gst_object_unref (pool);
}

/* Frame @i of the stream, zeros, in pinned memory. */
static GstBuffer *
counter_frame (GstBufferPool * pool, guint i)
{
  GstBuffer *buf = NULL;

  fail_unless_equals_int (gst_buffer_pool_acquire_buffer (pool, &buf, NULL),
      GST_FLOW_OK);
  gst_buffer_memset (buf, 0, 0, gst_buffer_get_size (buf));
  GST_BUFFER_PTS (buf) = frame_pts (i);
  GST_BUFFER_DURATION (buf) = frame_pts (i + 1) - frame_pts (i);
  return buf;
}

/* The next message: @frames frames from frame @first on, summing @value. */
static void
expect_counter_message (GstBus * bus, guint first, guint frames,
    guint64 value, const gchar * what)
{
  GstStructure *s = cf_test_next_result (bus, 10 * GST_SECOND);
  guint got_frames;
  guint64 got_value, ts, pixels, want_ts;

  fail_unless (s != NULL, "%s: no message", what);
  fail_unless (gst_structure_has_name (s, "cudatestcounter"), "%s", what);
  fail_unless (gst_structure_get_uint (s, "frames", &got_frames));
  fail_unless (gst_structure_get_uint64 (s, "value", &got_value));
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
  fail_unless (gst_structure_get_uint64 (s, "pixels", &pixels));
  fail_unless_equals_int (got_frames, frames);
  fail_unless (got_value == value, "%s: value %" G_GUINT64_FORMAT
      ", want %" G_GUINT64_FORMAT, what, got_value, value);
  /* (not frame_pts (first) in the macro: it declares a `first` itself) */
  want_ts = frame_pts (first);
  fail_unless_equals_uint64 (ts, want_ts);
  fail_unless_equals_uint64 (pixels, (guint64) 16 * 16 * frames);
  gst_structure_free (s);
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
push_frames (GstHarness * h, GstBufferPool * pool, guint first, guint n)
{
  guint i;

  for (i = first; i < first + n; i++)
    fail_unless_equals_int (gst_harness_push (h, counter_frame (pool, i)),
        GST_FLOW_OK);
}

/* Frame 0, of value 1, with the gate open: the element allocates what it
 * needs; with @message (interval 0), its message is taken off the bus. */
static void
warm_up (GstHarness * h, GstBus * bus, GstBufferPool * pool, gboolean message)
{
  counter_set_value (h, 1);
  push_frames (h, pool, 0, 1);
  if (message)
    expect_counter_message (bus, 0, 1, 1, "frame 0");
}

/* A frame whose slot is still taken (SLOTS frames held at the gate), from
 * a thread, found waiting after a while (it cannot go on: the gate is
 * closed). */
static Pusher *
push_waiting_frame (GstHarness * h, GstBufferPool * pool, guint i)
{
  Pusher *p = pusher_start (h, counter_frame (pool, i), NULL);

  fail_if (pusher_wait (p, 200), "frame %u did not wait", i);
  return p;
}

/* The stream goes on after a flush, from frame @i with value @value: the
 * first message is that frame's, none of a frame before the flush. */
static void
expect_stream_goes_on (GstHarness * h, GstBus * bus, GstBufferPool * pool,
    guint i, guint64 value)
{
  GstSegment segment;

  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&segment, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (h, gst_event_new_segment (&segment)));
  counter_set_value (h, value);
  push_frames (h, pool, i, 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  expect_counter_message (bus, i, 1, value, "the frame after the flush");
  fail_unless (cf_test_next_result (bus, 0) == NULL);
}

/* ---- tests ---- */

GST_START_TEST (test_cuda_failure_mid_stream)
{
  GstHarness *h = gst_harness_new ("cudatestfaulty");
  GstBus *bus = gst_bus_new ();
  GstMessage *msg;
  GError *err = NULL;
  GstBuffer *out;
  gint i;

  gst_element_set_bus (h->element, bus);
  gst_harness_set_src_caps_str (h, "video/x-raw, format=RGBA, width=64, "
      "height=16, framerate=30/1");
  for (i = 0; i < 3; i++) {
    GstBuffer *in = cf_test_make_frame (GST_VIDEO_FORMAT_RGBA, 64, 16, 0,
        FALSE, rand_);
    if (i == 1) {
      gst_buffer_unref (in);
      fail_unless_equals_int (gst_harness_push (h,
              cf_test_make_frame (GST_VIDEO_FORMAT_RGBA, 64, 16, 0, FALSE,
                  rand_)), GST_FLOW_ERROR);
      msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
      fail_unless (msg != NULL, "no error message");
      gst_message_parse_error (msg, &err, NULL);
      fail_unless_equals_string (err->message,
          "CUDA failed while running the kernels: "
          "cudaErrorInvalidPitchValue.");
      g_clear_error (&err);
      gst_message_unref (msg);
      continue;
    }
    /* frames before and after the failure are copied exactly */
    {
      GstMapInfo a, b;
      fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
          GST_FLOW_OK);
      out = gst_harness_pull (h);
      gst_buffer_map (in, &a, GST_MAP_READ);
      gst_buffer_map (out, &b, GST_MAP_READ);
      fail_unless (b.size >= a.size && memcmp (a.data, b.data, a.size) == 0);
      gst_buffer_unmap (in, &a);
      gst_buffer_unmap (out, &b);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
    }
  }
  gst_element_set_bus (h->element, NULL);
  gst_object_unref (bus);
  gst_harness_teardown (h);
}

GST_END_TEST;

static void
check_probe_sees_frame (GstHarness * h, GstVideoFormat format, gint w, gint ht,
    guint pad, gboolean expect_same_buffer)
{
  GstCudaTestProbe *probe =
      (GstCudaTestProbe *) gst_harness_find_element (h, "cudatestprobe");
  GstBuffer *in = cf_test_make_frame (format, w, ht, pad, FALSE, rand_);
  GstBuffer *copy = gst_buffer_copy_deep (in), *out;
  GstVideoInfo info;
  GstVideoFrame frame;
  gsize row_bytes;
  guint rows, y;

  fail_unless_equals_int (gst_harness_push (h, gst_buffer_ref (in)),
      GST_FLOW_OK);
  out = gst_harness_pull (h);
  if (expect_same_buffer)
    fail_unless (out == in, "passthrough must push the same buffer");

  /* what the kernels saw is plane 0 of the frame */
  gst_video_info_set_format (&info, format, w, ht);
  fail_unless (gst_video_frame_map (&frame, &info, copy, GST_MAP_READ));
  cf_test_plane_extent (&info, 0, &row_bytes, &rows);
  fail_unless_equals_int (probe->seen_size, row_bytes * rows);
  for (y = 0; y < rows; y++)
    fail_unless (memcmp (probe->seen + y * row_bytes,
            (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0) +
            y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0), row_bytes) == 0,
        "row %u of plane 0 differs on the device", y);
  gst_video_frame_unmap (&frame);

  /* and the frame itself is untouched */
  if (expect_same_buffer) {
    GstMapInfo a, b;
    gst_buffer_map (copy, &a, GST_MAP_READ);
    gst_buffer_map (out, &b, GST_MAP_READ);
    fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0);
    gst_buffer_unmap (copy, &a);
    gst_buffer_unmap (out, &b);
  }
  gst_buffer_unref (out);
  gst_buffer_unref (in);
  gst_buffer_unref (copy);
  gst_object_unref (probe);
}

GST_START_TEST (test_analysis_in_system_memory)
{
  GstHarness *h = gst_harness_new ("cudatestprobe");
  GstQuery *q;
  GstCaps *caps;
  GstBufferPool *pool = NULL;
  GstStructure *config;
  GstAllocator *allocator = NULL;

  fail_unless (gst_base_transform_is_passthrough (GST_BASE_TRANSFORM
          (h->element)));
  gst_harness_set_src_caps_str (h, "video/x-raw, format=RGBA, width=1921, "
      "height=1081, framerate=30/1");
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 0, TRUE);
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 44, TRUE);
  gst_harness_set_src_caps_str (h, "video/x-raw, format=NV12, width=3, "
      "height=7, framerate=30/1");
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_NV12, 3, 7, 5, TRUE);

  /* in passthrough, downstream proposes nothing here: ours is pinned */
  caps = gst_caps_from_string ("video/x-raw, format=NV12, width=3, height=7, "
      "framerate=30/1");
  q = gst_query_new_allocation (caps, TRUE);
  fail_unless (gst_pad_peer_query (h->srcpad, q));
  fail_unless (gst_query_get_n_allocation_pools (q) > 0);
  gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
  config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_get_allocator (config, &allocator, NULL);
  fail_unless (allocator != NULL);
  fail_unless_equals_string (allocator->mem_type,
      GST_CUDA_FILTERS_PINNED_MEMORY_TYPE);
  gst_structure_free (config);
  gst_object_unref (pool);
  gst_query_unref (q);
  gst_caps_unref (caps);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_analysis_in_cuda_memory)
{
  GstHarness *h = gst_harness_new_parse ("cudaupload ! "
      "video/x-raw(memory:CUDAMemory) ! cudatestprobe");
  GstElement *probe = gst_harness_find_element (h, "cudatestprobe");
  GstPad *pad = gst_element_get_static_pad (probe, "sink");
  GstCaps *caps;

  gst_harness_set_sink_caps_str (h, "video/x-raw(memory:CUDAMemory)");
  gst_harness_set_src_caps_str (h, "video/x-raw, format=RGBA, width=1921, "
      "height=1081, framerate=30/1");
  /* the buffer out of cudaupload is passed on as it is: not checked by
   * pointer here, the harness sees cudaupload's output through the probe */
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 0, FALSE);
  check_probe_sees_frame (h, GST_VIDEO_FORMAT_RGBA, 1921, 1081, 20, FALSE);
  caps = gst_pad_get_current_caps (pad);
  fail_unless (gst_caps_features_contains (gst_caps_get_features (caps, 0),
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY));
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (probe);
  gst_harness_teardown (h);
}

GST_END_TEST;

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
  GstBufferPool *pool;
  GstBus *bus;
  GstHarness *h = counter_harness (&bus, &pool);

  g_object_set (h->element, "interval", (guint64) 3600 * GST_SECOND, NULL);
  counter_set_value (h, quarter);
  push_frames (h, pool, 0, 10);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  expect_counter_message (bus, 0, 3, 3 * quarter, "frames 0-2");
  expect_counter_message (bus, 3, 3, 3 * quarter, "frames 3-5");
  expect_counter_message (bus, 6, 3, 3 * quarter, "frames 6-8");
  expect_counter_message (bus, 9, 1, quarter, "frame 9, at EOS");
  fail_unless (cf_test_next_result (bus, 0) == NULL);
  counter_free (h, bus, pool);
}

GST_END_TEST;

/* A frame waiting for a slot while the GPU holds every frame in flight:
 * FLUSH_START, from another thread, ends the wait in GST_FLOW_FLUSHING at
 * once, and the results of those frames are never posted. */
GST_START_TEST (test_flush_wakes_frame_waiting_for_slot)
{
  GstBufferPool *pool;
  GstBus *bus;
  GstHarness *h = counter_harness (&bus, &pool);
  Pusher *p;
  gboolean woke;

  warm_up (h, bus, pool, TRUE);
  gate_set_closed (TRUE);
  counter_set_value (h, 5);
  push_frames (h, pool, 1, SLOTS);
  p = push_waiting_frame (h, pool, SLOTS + 1);
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  /* (well within the 10 s of the GPU's timeout) */
  woke = pusher_wait (p, 3000);
  gate_set_closed (FALSE);
  fail_unless (woke, "FLUSH_START did not wake the frame waiting for a slot");
  fail_unless_equals_int (pusher_finish (p), GST_FLOW_FLUSHING);

  expect_stream_goes_on (h, bus, pool, SLOTS + 2, 7);
  counter_free (h, bus, pool);
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
  GstBufferPool *pool;
  GstBus *bus;
  GstHarness *h = counter_harness (&bus, &pool);
  GThread *opener;
  Pusher *p;
  gboolean woke;

  warm_up (h, bus, pool, TRUE);
  gate_set_closed (TRUE);
  counter_set_value (h, 5);
  push_frames (h, pool, 1, SLOTS);
  p = push_waiting_frame (h, pool, SLOTS + 1);
  /* stop() waits for the frames on the GPU: the gate opens once the frame
   * waiting for a slot has returned */
  opener = g_thread_new ("opener", open_gate_after_push, p);
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  woke = GPOINTER_TO_INT (g_thread_join (opener));
  fail_unless (woke, "going to READY did not wake the frame waiting for a "
      "slot");
  fail_unless_equals_int (pusher_finish (p), GST_FLOW_FLUSHING);
  /* no result of the frames on the GPU was posted */
  fail_unless (cf_test_next_result (bus, 0) == NULL);
  counter_free (h, bus, pool);
}

GST_END_TEST;

/* EOS waits for the frames in flight to post the partial interval: a flush
 * ends that wait, and nothing of the interval is posted. */
GST_START_TEST (test_flush_wakes_eos)
{
  GstBufferPool *pool;
  GstBus *bus;
  GstHarness *h = counter_harness (&bus, &pool);
  Pusher *p;
  gboolean woke;

  g_object_set (h->element, "interval", (guint64) 3600 * GST_SECOND, NULL);
  warm_up (h, bus, pool, FALSE);
  gate_set_closed (TRUE);
  counter_set_value (h, 5);
  push_frames (h, pool, 1, 3);
  p = pusher_start (h, NULL, gst_event_new_eos ());
  fail_if (pusher_wait (p, 200), "EOS did not wait for the frames");
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  woke = pusher_wait (p, 3000);
  gate_set_closed (FALSE);
  fail_unless (woke, "FLUSH_START did not wake EOS waiting for the frames");
  pusher_finish (p);

  expect_stream_goes_on (h, bus, pool, 4, 7);
  counter_free (h, bus, pool);
}

GST_END_TEST;

/* With attach-meta a frame waits for its own result: a flush ends that
 * wait too, and the next frame carries its own result. */
GST_START_TEST (test_flush_wakes_frame_waiting_for_meta)
{
  GstBufferPool *pool;
  GstBus *bus;
  GstHarness *h = counter_harness (&bus, &pool);
  GstCustomMeta *meta;
  GstBuffer *out;
  Pusher *p;
  gboolean woke;
  guint64 value = 0;

  g_object_set (h->element, "attach-meta", TRUE, NULL);
  warm_up (h, bus, pool, TRUE);
  gst_buffer_unref (gst_harness_pull (h));
  gate_set_closed (TRUE);
  counter_set_value (h, 5);
  p = pusher_start (h, counter_frame (pool, 1), NULL);
  fail_if (pusher_wait (p, 200), "the frame did not wait for its result");
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  woke = pusher_wait (p, 3000);
  gate_set_closed (FALSE);
  fail_unless (woke, "FLUSH_START did not wake the frame waiting for its "
      "result");
  fail_unless_equals_int (pusher_finish (p), GST_FLOW_FLUSHING);

  expect_stream_goes_on (h, bus, pool, 2, 7);
  out = gst_harness_pull (h);
  meta = gst_buffer_get_custom_meta (out, "GstCudaTestCounterMeta");
  fail_unless (meta != NULL);
  fail_unless (gst_structure_get_uint64 (gst_custom_meta_get_structure
          (meta), "value", &value));
  fail_unless_equals_uint64 (value, 7);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), frame_pts (2));
  gst_buffer_unref (out);
  counter_free (h, bus, pool);
}

GST_END_TEST;

/* A GPU that stops answering: the frame waiting for a slot fails after 10
 * s with an element error, later frames fail at once, and the results of
 * the frames held are dropped. */
GST_START_TEST (test_gpu_timeout)
{
  GstBufferPool *pool;
  GstBus *bus;
  GstHarness *h = counter_harness (&bus, &pool);
  GstMessage *msg;
  GError *err = NULL;
  Pusher *p;
  gint64 start, waited;
  gboolean returned;

  warm_up (h, bus, pool, TRUE);
  gate_set_closed (TRUE);
  counter_set_value (h, 5);
  start = g_get_monotonic_time ();
  push_frames (h, pool, 1, SLOTS);
  p = push_waiting_frame (h, pool, SLOTS + 1);
  returned = pusher_wait (p, 25000);
  waited = g_get_monotonic_time () - start;
  if (!returned)
    gate_set_closed (FALSE);
  fail_unless (returned, "the frame still waits after 25 s");
  fail_unless_equals_int (pusher_finish (p), GST_FLOW_ERROR);
  fail_unless (waited >= 10 * G_TIME_SPAN_SECOND - 500 *
      G_TIME_SPAN_MILLISECOND, "failed after %" G_GINT64_FORMAT " us", waited);
  msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  fail_unless (msg != NULL, "no error message");
  gst_message_parse_error (msg, &err, NULL);
  fail_unless_equals_string (err->message,
      "The GPU did not finish a frame within 10 seconds.");
  g_clear_error (&err);
  gst_message_unref (msg);

  /* the next frame fails at once, without a second message */
  start = g_get_monotonic_time ();
  fail_unless_equals_int (gst_harness_push (h, counter_frame (pool,
              SLOTS + 2)), GST_FLOW_ERROR);
  fail_unless (g_get_monotonic_time () - start < G_TIME_SPAN_SECOND);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);

  /* the GPU comes back: the frames held are done (stop() waits for them)
   * and their results dropped */
  gate_set_closed (FALSE);
  fail_unless_equals_int (gst_element_set_state (h->element,
          GST_STATE_READY), GST_STATE_CHANGE_SUCCESS);
  fail_unless (cf_test_next_result (bus, 0) == NULL);
  counter_free (h, bus, pool);
}

GST_END_TEST;

static Suite *
base_suite (void)
{
  Suite *s = suite_create ("base");
  TCase *tc = tcase_create ("gpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_cuda_failure_mid_stream);
  tcase_add_test (tc, test_analysis_in_system_memory);
  tcase_add_test (tc, test_analysis_in_cuda_memory);
  tcase_add_test (tc, test_interval_posted_early);
  tcase_add_test (tc, test_flush_wakes_frame_waiting_for_slot);
  tcase_add_test (tc, test_ready_wakes_frame_waiting_for_slot);
  tcase_add_test (tc, test_flush_wakes_eos);
  tcase_add_test (tc, test_flush_wakes_frame_waiting_for_meta);
  tcase_add_test (tc, test_gpu_timeout);
  return s;
}

static Suite *
base_cpu_suite (void)
{
  Suite *s = suite_create ("base-cpu");
  TCase *tc = tcase_create ("cpu");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_interval_limits);
  tcase_add_test (tc, test_u128_sum);
  tcase_add_test (tc, test_variance_numerator);
  tcase_add_test (tc, test_percentile);
  return s;
}

static gboolean
gpu_present_and_elements_registered (void)
{
  if (!cf_test_gpu_available ())
    return FALSE;
  gst_element_register (NULL, "cudatestfaulty", GST_RANK_NONE,
      gst_cuda_test_faulty_get_type ());
  gst_element_register (NULL, "cudatestprobe", GST_RANK_NONE,
      gst_cuda_test_probe_get_type ());
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
  ret = gst_check_run_suite (base_cpu_suite (), "base-cpu", __FILE__);
  if (ret != 0)
    return ret;
  if (!gpu_present_and_elements_registered ()) {
    g_print ("SKIP: the rest of this test needs a CUDA GPU and there is "
        "none here\n");
    return CF_TEST_SKIP;
  }
  rand_ = cf_test_rand ();
  ret = gst_check_run_suite (base_suite (), "base", __FILE__);
  g_rand_free (rand_);
  return ret;
}
