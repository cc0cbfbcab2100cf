/* Pipeline benchmark: frames per second and per-frame latency of
 *   appsrc (pre-made frames) ! <element chain> ! fakesink
 * with the frames in
 *   pinned    page-locked memory: the pool the first element proposes in the
 *             allocation query, as any GStreamer producer gets it, or the
 *             benchmark's own cudaHostAlloc memory where that pool is not
 *             page-locked (1.22's cudaupload proposes ordinary memory);
 *   pageable  ordinary system memory;
 *   cuda      GstCudaMemory from a GstCudaBufferPool, caps
 *             video/x-raw(memory:CUDAMemory), on a CUDA context set on the
 *             whole pipeline, so CUDA elements read it in place: no
 *             transfers at all;
 *   system    ordinary system memory, for CPU elements (no PCIe bound);
 *   h264      decoded by nvh264dec, in CUDA memory: an H.264 clip of
 *             --clip-frames frames of --width x --height that the
 *             benchmark encodes first (openh264enc), read by filesrc; the
 *             timed pass is the whole clip, from PLAYING to EOS (no
 *             latency pass), and `--chain identity` gives the decoder's
 *             own rate;
 * and, for pinned and pageable input, the rate PCIe allows, measured in the
 * same run.
 *
 *   pipeline-bench [--chain "cudagray"]... [--input pinned,pageable]
 *                  [--format RGBA] [--width 3840] [--height 2160]
 *                  [--frames 600] [--max-seconds 0] [--latency-frames 100]
 *                  [--out-bytes-per-pixel 1] [--csv FILE]
 *                  [--streams 1,2,4] [--gpus 1] [--threads] [--profile FILE]
 *
 * --chain may be given several times; --input takes a comma-separated list
 * (`both` is pinned,pageable).  The source costs nothing: a few frames are
 * made before the clock starts and pushed round-robin.  Each chain and input
 * runs in a pipeline of its own, in three passes:
 *   warm-up  each source frame once, one at a time;
 *   latency  one frame at a time, from its push into appsrc to its arrival
 *            at fakesink: the pipeline's own latency.  Under load a frame
 *            would also wait behind the frames queued before it, and the
 *            figure would be the benchmark's queue depth over the frame rate;
 *   rate     as fast as the chain takes them, with at most IN_FLIGHT frames
 *            pushed and not yet arrived (a 4-frame appsrc queue and the frame
 *            being processed), timed from the first push to the last
 *            arrival.
 * Arrivals are matched to pushes by index: the pipelines are linear and drop
 * nothing (fakesink does not sync, so there is no QoS), and the count is
 * checked.  --max-seconds bounds the passes of slow (CPU) chains: warm-up a
 * quarter, latency a half, rate the whole of it.
 *
 * A chain whose element is missing is reported as skipped, and the others
 * still run.  --csv appends one row per chain and input that ran, with the
 * header `gpu,pipeline,input,format,width,height,frames,fps,
 * latency_ms_median,latency_ms_p99,pcie_bound_fps,cpu_us_per_frame,cores,
 * streams,gpus`
 * written when the file is created.  The CPU figures are the process's
 * (every thread, user and system) over the timed pass: per frame, and over
 * its wall time, the cores kept busy.  Element messages (the analysis
 * elements' results) are freed as they are posted, in the bus's sync
 * handler, so their cost is counted and none pile up; `--chain identity`
 * gives the cost of the benchmark's own source and sink.
 *
 * --streams N runs each chain as N pipelines at once in this process, each
 * pushed by a thread of its own, their timed passes started together: the
 * row gives the frames of all N over the time from the first push to the
 * last arrival (the aggregate rate), and the CPU over all of them.  The
 * pipelines share one CUDA context a GPU (GstContext, as an application
 * shares it), and --gpus K spreads them over K GPUs, stream s on device
 * s % K.  The latency pass runs with one stream only.  --threads adds
 * the timed pass's CPU time by thread under each row; --profile FILE
 * samples the timed pass's call stacks into FILE, for
 * bench/profile-report.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudabufferpool.h>
#include <gst/cuda/gstcudautils.h>
#include <cuda_runtime_api.h>

#include "cpu-profile.h"

#define N_SOURCE_FRAMES 8
#define IN_FLIGHT 5
/* a frame that takes longer than this is taken for a stuck pipeline */
#define FRAME_TIMEOUT (20 * G_TIME_SPAN_SECOND)

typedef enum
{
  INPUT_PINNED,
  INPUT_PAGEABLE,
  INPUT_CUDA,
  INPUT_SYSTEM,
  INPUT_H264,
  N_INPUTS
} InputKind;

static const gchar *input_names[N_INPUTS] =
    { "pinned", "pageable", "cuda", "system", "h264" };

typedef enum
{
  RUN_NOT_ASKED,
  RUN_OK,
  RUN_FAILED,
  RUN_SKIPPED,
} RunStatus;

typedef struct
{
  RunStatus status;
  gchar *why;                   /* failed or skipped: the reason */
  gchar *note;                  /* ran: anything worth knowing */
  gint frames;                  /* timed */
  double fps;
  /* the process's CPU time over the timed pass, per frame, and over its
   * wall time (the cores it kept busy) */
  double cpu_us_per_frame, cores;
  gint lat_samples;
  double lat_median_ms, lat_p99_ms;
  gchar *threads;               /* --threads: CPU by thread, printed */
} RunResult;


/* results[] of chain c, input k, the m-th stream count */
#define RESULT_INDEX(c, k, m) (((c) * N_INPUTS + (k)) * n_counts + (m))

typedef struct
{
  gint n_frames, lat_frames;
  double max_seconds;
  const gchar *clip;            /* input h264: the clip, and its frames */
  gint clip_frames;
  gboolean threads;             /* report CPU by thread */
  const gchar *profile;         /* sample stacks into this file */
} RunLimits;

/* Arrivals at fakesink, filled by its streaming thread; errors posted on
 * the bus wake the waiting main thread too, so it never waits on a dead
 * pipeline. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gint seen, capacity;
  gint64 *arrival;              /* monotonic time of each arrival, in order */
  gchar *error;
} Arrivals;

static void
on_handoff (GstElement * sink, GstBuffer * buf, GstPad * pad, gpointer data)
{
  Arrivals *a = data;
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&a->lock);
  if (a->seen < a->capacity)
    a->arrival[a->seen] = now;
  a->seen++;
  g_cond_broadcast (&a->cond);
  g_mutex_unlock (&a->lock);
}

static GstBusSyncReply
on_bus_sync (GstBus * bus, GstMessage * msg, gpointer data)
{
  Arrivals *a = data;

  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gchar *dbg = NULL;

    gst_message_parse_error (msg, &err, &dbg);
    g_printerr ("error from %s: %s\n%s\n", GST_OBJECT_NAME (msg->src),
        err->message, dbg ? dbg : "");
    g_mutex_lock (&a->lock);
    if (!a->error)
      a->error = g_strdup_printf ("%s: %s", GST_OBJECT_NAME (msg->src),
          err->message);
    g_cond_broadcast (&a->cond);
    g_mutex_unlock (&a->lock);
    g_clear_error (&err);
    g_free (dbg);
  }
  /* the analysis elements' results, freed as they come, in the thread
   * that posts them, as an application reading them would free them: left
   * on the bus, thousands of them pile up (a cudahist message of 4 x 256
   * counts is tens of KB) */
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT)
    return GST_BUS_DROP;
  return GST_BUS_PASS;
}

/* Waits until @n frames arrived; FALSE on an error or after FRAME_TIMEOUT
 * without progress. */
static gboolean
wait_arrivals (Arrivals * a, gint n)
{
  gint64 deadline = g_get_monotonic_time () + FRAME_TIMEOUT;
  gint last = -1;
  gboolean ok;

  g_mutex_lock (&a->lock);
  while (a->seen < n && !a->error) {
    if (a->seen != last) {
      last = a->seen;
      deadline = g_get_monotonic_time () + FRAME_TIMEOUT;
    }
    if (!g_cond_wait_until (&a->cond, &a->lock, deadline))
      break;
  }
  ok = a->seen >= n && !a->error;
  if (!ok && !a->error)
    a->error = g_strdup_printf ("no frame arrived for %d s",
        (gint) (FRAME_TIMEOUT / G_TIME_SPAN_SECOND));
  g_mutex_unlock (&a->lock);
  return ok;
}

static gint
arrived (Arrivals * a)
{
  gint n;

  g_mutex_lock (&a->lock);
  n = a->seen;
  g_mutex_unlock (&a->lock);
  return n;
}

static gint64
arrival_time (Arrivals * a, gint i)
{
  gint64 t;

  g_mutex_lock (&a->lock);
  t = a->arrival[i];
  g_mutex_unlock (&a->lock);
  return t;
}

/* The source frames' content: the same bytes in every run and memory type
 * (content matters to cudahist's atomics). */
static const guint8 *
pattern (gsize size)
{
  static guint8 *data;
  static gsize have;
  guint j;

  if (size > have) {
    g_free (data);
    data = g_malloc (size);
    for (j = 0; j < size; j++)
      data[j] = (guint8) (j * 2654435761u >> 13);
    have = size;
  }
  return data;
}

static gboolean
fill (GstBuffer * buf)
{
  GstMapInfo map;

  if (!gst_buffer_map (buf, &map, GST_MAP_WRITE))
    return FALSE;
  memcpy (map.data, pattern (map.size), map.size);
  gst_buffer_unmap (buf, &map);
  return TRUE;
}

/* Host-device copy bandwidth in bytes/s: median of 40 copies of @bytes,
 * rotated over N_SOURCE_FRAMES host buffers as the pipeline's frames are
 * (one buffer would be served from the CPU's cache and flatter PCIe). */
static double
copy_bandwidth (size_t bytes, gboolean pinned, enum cudaMemcpyKind kind)
{
  void *host[N_SOURCE_FRAMES], *dev;
  float times[40];
  cudaEvent_t a, b;
  int i, j;

  for (i = 0; i < N_SOURCE_FRAMES; i++) {
    if (pinned ? cudaMallocHost (&host[i], bytes) != cudaSuccess :
        !(host[i] = g_malloc (bytes)))
      return 0;
    memset (host[i], 1, bytes);
  }
  if (cudaMalloc (&dev, bytes) != cudaSuccess)
    return 0;
  cudaEventCreate (&a);
  cudaEventCreate (&b);
  for (i = 0; i < 43; i++) {
    void *h = host[i % N_SOURCE_FRAMES];
    cudaEventRecord (a, 0);
    if (kind == cudaMemcpyHostToDevice)
      cudaMemcpyAsync (dev, h, bytes, kind, 0);
    else
      cudaMemcpyAsync (h, dev, bytes, kind, 0);
    cudaEventRecord (b, 0);
    cudaEventSynchronize (b);
    if (i >= 3)
      cudaEventElapsedTime (&times[i - 3], a, b);
  }
  for (i = 0; i < 40; i++)      /* sort for the median */
    for (j = i + 1; j < 40; j++)
      if (times[j] < times[i]) {
        float t = times[i];
        times[i] = times[j];
        times[j] = t;
      }
  cudaEventDestroy (a);
  cudaEventDestroy (b);
  cudaFree (dev);
  for (i = 0; i < N_SOURCE_FRAMES; i++) {
    if (pinned)
      cudaFreeHost (host[i]);
    else
      g_free (host[i]);
  }
  return bytes / (times[20] * 1e-3);
}

static gboolean
is_page_locked (GstBuffer * buf)
{
  struct cudaPointerAttributes attr;
  GstMapInfo map;
  gboolean locked;

  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    return FALSE;
  locked = cudaPointerGetAttributes (&attr, map.data) == cudaSuccess &&
      attr.type == cudaMemoryTypeHost;
  gst_buffer_unmap (buf, &map);
  cudaGetLastError ();          /* an unregistered pointer leaves an error */
  return locked;
}

static void
free_pinned (gpointer data)
{
  cudaFreeHost (data);
}

/* Page-locked memory of our own; portable, because the elements copy from
 * it in their GstCudaContext, not in the runtime's primary context. */
static GstBuffer *
new_pinned_buffer (gsize size)
{
  void *p = NULL;

  if (cudaHostAlloc (&p, size, cudaHostAllocPortable) != cudaSuccess)
    return NULL;
  return gst_buffer_new_wrapped_full (0, p, size, 0, size, p, free_pinned);
}

/* The pinned pool the first element proposes, active, or NULL. */
static GstBufferPool *
proposed_pool (GstElement * first, GstCaps * caps)
{
  GstQuery *q = gst_query_new_allocation (caps, TRUE);
  GstPad *sinkpad = gst_element_get_static_pad (first, "sink");
  GstBufferPool *pool = NULL;

  if (sinkpad && gst_pad_query (sinkpad, q)
      && gst_query_get_n_allocation_pools (q))
    gst_query_parse_nth_allocation_pool (q, 0, &pool, NULL, NULL, NULL);
  gst_clear_object (&sinkpad);
  gst_query_unref (q);
  if (pool && !gst_buffer_pool_set_active (pool, TRUE))
    gst_clear_object (&pool);
  return pool;
}

/* A pool of device memory on @ctx for @caps (memory:CUDAMemory), active. */
static GstBufferPool *
cuda_pool (GstCudaContext * ctx, GstCaps * caps, const GstVideoInfo * info)
{
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);

  gst_buffer_pool_config_set_params (config, caps,
      GST_VIDEO_INFO_SIZE (info), 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE))
    gst_clear_object (&pool);
  return pool;
}

/* The CUDA context @element uses, through the context query. */
static GstCudaContext *
element_cuda_context (GstElement * element)
{
  GstQuery *query = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
  GstCudaContext *context = NULL;

  if (gst_element_query (element, query)) {
    GstContext *c;
    gst_query_parse_context (query, &c);
    if (c)
      gst_structure_get (gst_context_get_structure (c), GST_CUDA_CONTEXT_TYPE,
          GST_TYPE_CUDA_CONTEXT, &context, NULL);
  }
  gst_query_unref (query);
  return context;
}

/* The process's CPU time so far (user and system, every thread), in us */
static gint64
cpu_time_us (void)
{
  struct rusage u;

  getrusage (RUSAGE_SELF, &u);
  return (gint64) (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000 +
      u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

static void
push (GstElement * src, GstBuffer * buf, gint64 * pushed, gint index)
{
  pushed[index] = g_get_monotonic_time ();
  gst_app_src_push_buffer (GST_APP_SRC (src), buf);
}

/* One pipeline of a run, and what its passes measured. */
typedef struct
{
  GstElement *pipeline, *src, *first;
  GstBus *bus;
  GstBuffer *frames[N_SOURCE_FRAMES];
  GstBufferPool *pool;
  Arrivals a;
  gint64 *pushed;
  double *lat;
  gint n;                       /* frames pushed so far */
  gint n_lat, n_timed;
  double lat_median_ms;         /* for the budget of the timed pass */
  gboolean h264;                /* fed by nvh264dec from the clip */
  gint64 t0, t_end;             /* the timed pass: first push, last arrival */
  gchar *why, *note;
} Stream;

/* Builds and starts @chain's pipeline with @input frames, and runs the
 * warm-up and (with @latency) latency passes. */
static RunStatus
stream_setup (Stream * st, const gchar * chain, const GstVideoInfo * info,
    InputKind input, const RunLimits * lim, GstCudaContext * cuda_ctx,
    gboolean latency)
{
  gsize size = GST_VIDEO_INFO_SIZE (info);
  gint capacity = 1 + N_SOURCE_FRAMES + lim->lat_frames + lim->n_frames;
  gchar *desc;
  GError *error = NULL;
  GstElement *sink;
  GstCaps *caps = gst_video_info_to_caps (info);
  gint64 t0, budget;
  gint i;

  if (input == INPUT_CUDA)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));

  if (input == INPUT_H264) {
    gint device = 0;
    gchar *decoder;

    /* nvcodec's decoder of each GPU is an element of its own: nvh264dec
     * the first's (device 0), nvh264deviceNdec device N's */
    if (cuda_ctx)
      g_object_get (cuda_ctx, "cuda-device-id", &device, NULL);
    decoder = device == 0 ? g_strdup ("nvh264dec") :
        g_strdup_printf ("nvh264device%ddec", device);
    capacity = lim->clip_frames + 1;
    desc = g_strdup_printf ("filesrc location=\"%s\" ! h264parse ! "
        "%s name=src ! %s ! fakesink name=sink sync=false "
        "signal-handoffs=true", lim->clip, decoder, chain);
    g_free (decoder);
  } else {
    desc = g_strdup_printf ("appsrc name=src format=time max-bytes=%"
        G_GSIZE_FORMAT " ! %s ! fakesink name=sink sync=false "
        "signal-handoffs=true", (gsize) (IN_FLIGHT + 1) * size, chain);
  }
  st->pipeline = gst_parse_launch_full (desc, NULL,
      GST_PARSE_FLAG_FATAL_ERRORS, &error);
  g_free (desc);
  if (!st->pipeline) {
    RunStatus status = g_error_matches (error, GST_PARSE_ERROR,
        GST_PARSE_ERROR_NO_SUCH_ELEMENT) ? RUN_SKIPPED : RUN_FAILED;
    st->why = g_strdup (error->message);
    g_clear_error (&error);
    gst_caps_unref (caps);
    return status;
  }

  g_mutex_init (&st->a.lock);
  g_cond_init (&st->a.cond);
  st->a.capacity = capacity;
  st->a.arrival = g_new0 (gint64, capacity);
  st->pushed = g_new0 (gint64, capacity);
  st->lat = g_new0 (double, MAX (lim->lat_frames, 1));

  st->src = gst_bin_get_by_name (GST_BIN (st->pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (st->pipeline), "sink");
  {
    GstPad *srcpad = gst_element_get_static_pad (st->src, "src");
    GstPad *peer = gst_pad_get_peer (srcpad);
    st->first = gst_pad_get_parent_element (peer);
    gst_object_unref (peer);
    gst_object_unref (srcpad);
  }
  if (input != INPUT_H264)
    gst_app_src_set_caps (GST_APP_SRC (st->src), caps);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &st->a);
  gst_object_unref (sink);
  st->bus = gst_element_get_bus (st->pipeline);
  gst_bus_set_sync_handler (st->bus, on_bus_sync, &st->a, NULL);

  if (cuda_ctx && input != INPUT_SYSTEM) {
    /* the bin hands the context to every CUDA element, ours and nvcodec's:
     * they read CUDA frames in place, and the pipelines of a run share
     * one context a GPU */
    GstContext *context = gst_context_new_cuda_context (cuda_ctx);
    gst_element_set_context (st->pipeline, context);
    gst_context_unref (context);
  }
  if (input == INPUT_CUDA) {
    st->pool = cuda_pool (cuda_ctx, caps, info);
    if (!st->pool) {
      st->why = g_strdup ("could not make a CUDA buffer pool");
      goto failed;
    }
    for (i = 0; i < N_SOURCE_FRAMES; i++) {
      GstMapInfo map;
      if (gst_buffer_pool_acquire_buffer (st->pool, &st->frames[i], NULL) !=
          GST_FLOW_OK || !fill (st->frames[i])) {
        st->why = g_strdup ("could not fill a CUDA frame");
        goto failed;
      }
      /* the host write leaves the device copy stale: upload it now, not
       * in the first element's first map */
      if (!gst_buffer_map (st->frames[i], &map, GST_MAP_READ | GST_MAP_CUDA)) {
        st->why = g_strdup ("could not map a CUDA frame");
        goto failed;
      }
      gst_buffer_unmap (st->frames[i], &map);
    }
  }

  if (input == INPUT_H264) {
    /* decoded and prerolled: the timed pass is the whole clip, from
     * PLAYING to EOS */
    st->h264 = TRUE;
    if (gst_element_set_state (st->pipeline, GST_STATE_PAUSED) ==
        GST_STATE_CHANGE_FAILURE || gst_element_get_state (st->pipeline,
            NULL, NULL, FRAME_TIMEOUT * GST_USECOND) !=
        GST_STATE_CHANGE_SUCCESS || st->a.error) {
      st->why = g_strdup (st->a.error ? st->a.error :
          "the pipeline would not preroll");
      goto failed;
    }
    gst_caps_unref (caps);
    return RUN_OK;
  }

  if (gst_element_set_state (st->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    st->why = g_strdup (st->a.error ? st->a.error :
        "the pipeline would not start");
    goto failed;
  }

  /* one frame to negotiate, so the first element can answer the
   * allocation query */
  if (input == INPUT_CUDA) {
    push (st->src, gst_buffer_ref (st->frames[0]), st->pushed, st->n++);
  } else {
    GstBuffer *warm = gst_buffer_new_allocate (NULL, size, NULL);
    gst_buffer_memset (warm, 0, 0x40, size);
    push (st->src, warm, st->pushed, st->n++);
  }
  if (!wait_arrivals (&st->a, st->n)) {
    st->why = g_strdup_printf ("first frame: %s", st->a.error);
    goto failed;
  }

  if (input == INPUT_CUDA) {
    GstCudaContext *used = element_cuda_context (st->first);
    if (used != cuda_ctx)
      st->note = g_strdup ("the first element did not take the frames' "
          "CUDA context: frames may be copied");
    gst_clear_object (&used);
  } else if (input == INPUT_PINNED) {
    GstBufferPoolAcquireParams dontwait = { 0, };
    GstBuffer *probe = NULL;

    dontwait.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;

    st->pool = proposed_pool (st->first, caps);
    if (st->pool && (gst_buffer_pool_acquire_buffer (st->pool, &probe,
                &dontwait) != GST_FLOW_OK || !is_page_locked (probe))) {
      gst_buffer_pool_set_active (st->pool, FALSE);
      gst_clear_object (&st->pool);
    }
    gst_clear_buffer (&probe);
    /* a pool with fewer buffers than the source frames would block */
    for (i = 0; st->pool && i < N_SOURCE_FRAMES; i++)
      if (gst_buffer_pool_acquire_buffer (st->pool, &st->frames[i],
              &dontwait) != GST_FLOW_OK) {
        while (i >= 0)
          gst_clear_buffer (&st->frames[i--]);
        gst_buffer_pool_set_active (st->pool, FALSE);
        gst_clear_object (&st->pool);
      }
    if (!st->pool)
      st->note = g_strdup ("the chain proposed no page-locked pool: "
          "the benchmark's own cudaHostAlloc memory");
    for (i = 0; i < N_SOURCE_FRAMES; i++) {
      if (!st->pool)
        st->frames[i] = new_pinned_buffer (size);
      if (!st->frames[i] || !fill (st->frames[i])) {
        st->why = g_strdup ("could not make a pinned frame");
        goto failed;
      }
    }
  } else {
    for (i = 0; i < N_SOURCE_FRAMES; i++) {
      st->frames[i] = gst_buffer_new_allocate (NULL, size, NULL);
      fill (st->frames[i]);
    }
  }
  gst_caps_unref (caps);
  caps = NULL;

  /* warm-up pass over the source frames */
  budget = lim->max_seconds * G_TIME_SPAN_SECOND;
  t0 = g_get_monotonic_time ();
  for (i = 0; i < N_SOURCE_FRAMES; i++) {
    if (budget && g_get_monotonic_time () - t0 > budget / 4)
      break;
    push (st->src, gst_buffer_ref (st->frames[i]), st->pushed, st->n++);
    if (!wait_arrivals (&st->a, st->n)) {
      st->why = g_strdup_printf ("warm-up: %s", st->a.error);
      goto failed;
    }
  }

  /* latency: one frame in the pipeline at a time */
  t0 = g_get_monotonic_time ();
  for (i = 0; latency && i < lim->lat_frames; i++) {
    if (budget && g_get_monotonic_time () - t0 > budget / 2)
      break;
    push (st->src, gst_buffer_ref (st->frames[i % N_SOURCE_FRAMES]),
        st->pushed, st->n++);
    if (!wait_arrivals (&st->a, st->n)) {
      st->why = g_strdup_printf ("latency pass: %s", st->a.error);
      goto failed;
    }
    st->lat[st->n_lat++] = (arrival_time (&st->a, st->n - 1) -
        st->pushed[st->n - 1]) * 1e-3;
  }
  if (st->n_lat) {
    double *sorted = g_memdup2 (st->lat, st->n_lat * sizeof (double));
    qsort (sorted, st->n_lat, sizeof (double), cmp_double);
    st->lat_median_ms = sorted[(st->n_lat - 1) / 2];
    g_free (sorted);
  }
  return RUN_OK;

failed:
  if (caps)
    gst_caps_unref (caps);
  return RUN_FAILED;
}

/* The rate pass: as fast as the chain takes them; with a budget, no push
 * that the frames still in flight (at about the latency each) would take
 * past it.  Then EOS.  FALSE, with st->why, when not every frame came. */
static gboolean
stream_timed (Stream * st, const RunLimits * lim)
{
  gint64 budget = lim->max_seconds * G_TIME_SPAN_SECOND;
  GstMessage *msg;
  gboolean ok;
  gint i;

  st->t0 = g_get_monotonic_time ();
  if (st->h264) {
    /* (the first frame, decoded to preroll, counts too) */
    st->n = st->n_timed = lim->clip_frames;
    if (gst_element_set_state (st->pipeline, GST_STATE_PLAYING) ==
        GST_STATE_CHANGE_FAILURE) {
      st->why = g_strdup ("the pipeline would not play");
      return FALSE;
    }
    /* every frame, each within FRAME_TIMEOUT of the one before */
    if (!wait_arrivals (&st->a, st->n)) {
      st->why = g_strdup_printf ("timed pass: %s", st->a.error);
      return FALSE;
    }
  }
  for (i = 0; !st->h264 && i < lim->n_frames; i++) {
    if (budget && g_get_monotonic_time () - st->t0 + (st->n -
            arrived (&st->a)) * st->lat_median_ms * 1e3 > budget)
      break;
    if (st->n - IN_FLIGHT + 1 > 0 && !wait_arrivals (&st->a,
            st->n - IN_FLIGHT + 1)) {
      st->why = g_strdup_printf ("timed pass: %s", st->a.error);
      return FALSE;
    }
    push (st->src, gst_buffer_ref (st->frames[i % N_SOURCE_FRAMES]),
        st->pushed, st->n++);
    st->n_timed++;
  }
  if (!st->h264)
    gst_app_src_end_of_stream (GST_APP_SRC (st->src));
  msg = gst_bus_timed_pop_filtered (st->bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  ok = msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS && !st->a.error &&
      st->a.seen == st->n && st->n_timed > 0;
  if (ok)
    st->t_end = arrival_time (&st->a, st->n - 1);
  else
    st->why = g_strdup_printf ("the run did not end in EOS with every frame "
        "(%d of %d arrived)%s%s", st->a.seen, st->n, st->a.error ? ": " : "",
        st->a.error ? st->a.error : "");
  if (msg)
    gst_message_unref (msg);
  return ok;
}

static void
stream_teardown (Stream * st)
{
  gint i;

  if (!st->pipeline) {
    g_free (st->why);
    return;
  }
  gst_element_set_state (st->pipeline, GST_STATE_NULL);
  for (i = 0; i < N_SOURCE_FRAMES; i++)
    gst_clear_buffer (&st->frames[i]);
  if (st->pool) {
    gst_buffer_pool_set_active (st->pool, FALSE);
    gst_object_unref (st->pool);
  }
  if (st->bus) {
    gst_bus_set_sync_handler (st->bus, NULL, NULL, NULL);
    gst_object_unref (st->bus);
  }
  gst_clear_object (&st->first);
  gst_clear_object (&st->src);
  gst_object_unref (st->pipeline);
  g_free (st->a.arrival);
  g_free (st->a.error);
  g_mutex_clear (&st->a.lock);
  g_cond_clear (&st->a.cond);
  g_free (st->pushed);
  g_free (st->lat);
  g_free (st->why);
  g_free (st->note);
}

/* The streams' timed passes start together, and their threads stay until
 * the CPU time has been read (a thread that ends takes its time with it):
 * each thread waits here. */
typedef struct
{
  GMutex lock;
  GCond cond;
  gboolean open, finished, release;
  Stream *stream;
  const RunLimits *lim;
  gboolean ok;
} StreamGate;

static gpointer
timed_thread (gpointer data)
{
  StreamGate *g = data;
  gboolean ok;

  g_mutex_lock (&g->lock);
  while (!g->open)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
  ok = stream_timed (g->stream, g->lim);
  g_mutex_lock (&g->lock);
  g->ok = ok;
  g->finished = TRUE;
  g_cond_broadcast (&g->cond);
  while (!g->release)
    g_cond_wait (&g->cond, &g->lock);
  g_mutex_unlock (&g->lock);
  return NULL;
}

static void
gate_set (StreamGate * g, gboolean * flag)
{
  g_mutex_lock (&g->lock);
  *flag = TRUE;
  g_cond_broadcast (&g->cond);
  g_mutex_unlock (&g->lock);
}

static gint
frames_timed (const Stream * streams, gint n_streams)
{
  gint s, frames = 0;

  for (s = 0; s < n_streams; s++)
    frames += streams[s].n_timed;
  return frames;
}

/* Adds @what to the note of a run. */
static void
append_note (gchar ** note, const gchar * what)
{
  gchar *old = *note;

  *note = old ? g_strdup_printf ("%s; %s", old, what) : g_strdup (what);
  g_free (old);
}

/* Runs @chain with @input frames in @n_streams pipelines at once, stream s
 * on contexts[s % n_contexts]. */
static RunResult
run (const gchar * chain, const GstVideoInfo * info, InputKind input,
    const RunLimits * lim, GstCudaContext ** contexts, gint n_contexts,
    gint n_streams)
{
  RunResult r = { 0, };
  Stream *streams = g_new0 (Stream, n_streams);
  CpuThreads *threads0 = NULL, *threads1 = NULL;
  StreamGate *gates = NULL;
  GThread **workers = NULL;
  gboolean profiling = FALSE;
  gint64 cpu0, cpu1, t0, t_end = 0;
  gint s, frames = 0;

  r.status = RUN_FAILED;
  for (s = 0; s < n_streams; s++) {
    Stream *st = &streams[s];

    /* latency: one frame in flight in one pipeline, measured alone */
    r.status = stream_setup (st, chain, info, input, lim,
        n_contexts ? contexts[s % n_contexts] : NULL, n_streams == 1);
    if (r.status != RUN_OK) {
      r.why = n_streams == 1 ? g_strdup (st->why) :
          g_strdup_printf ("stream %d: %s", s, st->why);
      goto out;
    }
  }
  for (s = 0; s < n_streams && !r.note; s++)
    if (streams[s].note)
      r.note = n_streams == 1 ? g_strdup (streams[s].note) :
          g_strdup_printf ("stream %d: %s", s, streams[s].note);
  if (streams[0].n_lat) {
    Stream *st = &streams[0];

    qsort (st->lat, st->n_lat, sizeof (double), cmp_double);
    r.lat_samples = st->n_lat;
    /* nearest rank */
    r.lat_median_ms = st->lat[(st->n_lat - 1) / 2];
    r.lat_p99_ms = st->lat[MAX ((gint) (0.99 * st->n_lat + 0.999999) - 1, 0)];
  }

  if (lim->profile && !(profiling = cpu_profile_start ()))
    append_note (&r.note, "could not start sampling");
  if (lim->threads)
    threads0 = cpu_threads_snapshot ();
  cpu0 = cpu_time_us ();
  if (n_streams == 1) {
    r.status = stream_timed (&streams[0], lim) ? RUN_OK : RUN_FAILED;
    if (r.status != RUN_OK)
      r.why = g_strdup (streams[0].why);
    t0 = streams[0].t0;
  } else {
    gates = g_new0 (StreamGate, n_streams);
    workers = g_new0 (GThread *, n_streams);
    for (s = 0; s < n_streams; s++) {
      g_mutex_init (&gates[s].lock);
      g_cond_init (&gates[s].cond);
      gates[s].stream = &streams[s];
      gates[s].lim = lim;
      workers[s] = g_thread_new ("stream", timed_thread, &gates[s]);
    }
    t0 = g_get_monotonic_time ();
    for (s = 0; s < n_streams; s++)
      gate_set (&gates[s], &gates[s].open);
    r.status = RUN_OK;
    for (s = 0; s < n_streams; s++) {
      g_mutex_lock (&gates[s].lock);
      while (!gates[s].finished)
        g_cond_wait (&gates[s].cond, &gates[s].lock);
      g_mutex_unlock (&gates[s].lock);
      if (!gates[s].ok && r.status == RUN_OK) {
        r.status = RUN_FAILED;
        r.why = g_strdup_printf ("stream %d: %s", s, streams[s].why);
      }
    }
  }
  /* every stream's thread is still there: its time counts, and its
   * samples are named */
  cpu1 = cpu_time_us ();
  if (threads0)
    threads1 = cpu_threads_snapshot ();
  if (profiling) {
    gchar *label = g_strdup_printf ("%s\t%s x%d", chain, input_names[input],
        n_streams);
    if (!cpu_profile_stop (lim->profile, label, frames_timed (streams,
                n_streams))) {
      gchar *why = g_strdup_printf ("could not write %s", lim->profile);
      append_note (&r.note, why);
      g_free (why);
    }
    g_free (label);
  }
  for (s = 0; gates && s < n_streams; s++) {
    gate_set (&gates[s], &gates[s].release);
    g_thread_join (workers[s]);
    g_mutex_clear (&gates[s].lock);
    g_cond_clear (&gates[s].cond);
  }
  g_free (gates);
  g_free (workers);
  frames = frames_timed (streams, n_streams);
  for (s = 0; s < n_streams; s++)
    t_end = MAX (t_end, streams[s].t_end);
  if (threads0) {
    gchar *text = NULL;
    gsize len = 0;
    FILE *mem = open_memstream (&text, &len);

    cpu_threads_report (mem, threads0, threads1, frames);
    fclose (mem);
    r.threads = text;
    cpu_threads_free (threads0);
    cpu_threads_free (threads1);
  }
  if (r.status == RUN_OK) {
    r.frames = frames;
    /* from the first push to the last arrival, of all streams; (CPU: to
     * EOS, a little past the last arrival; the benchmark's own pushes
     * count too) */
    r.fps = frames / ((t_end - t0) * 1e-6);
    r.cpu_us_per_frame = (double) (cpu1 - cpu0) / frames;
    r.cores = (double) (cpu1 - cpu0) / (t_end - t0);
  }

out:
  for (s = 0; s < n_streams; s++)
    stream_teardown (&streams[s]);
  g_free (streams);
  return r;
}

/* Encodes the clip input h264 decodes: @frames frames of moving colour
 * bars, @width x @height at 30 frames a second, with openh264enc (which
 * the GPU machine's packed runtime has) into a temporary file.  Returns
 * its path, or NULL and @why. */
static gchar *
make_clip (gint width, gint height, gint frames, RunStatus * status,
    gchar ** why)
{
  gchar *path =
      g_build_filename (g_get_tmp_dir (), "pipeline-bench-XXXXXX.h264",
      NULL);
  gchar *desc;
  GError *error = NULL;
  GstElement *pipeline;
  GstBus *bus;
  GstMessage *msg;
  gint fd = g_mkstemp (path);

  if (fd < 0) {
    *status = RUN_FAILED;
    *why = g_strdup_printf ("could not make %s", path);
    g_free (path);
    return NULL;
  }
  close (fd);
  desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=smpte "
      "horizontal-speed=4 ! video/x-raw,format=I420,width=%d,height=%d,"
      "framerate=30/1 ! openh264enc bitrate=8000000 ! h264parse ! "
      "video/x-h264,stream-format=byte-stream,alignment=au ! "
      "filesink location=\"%s\"", frames, width, height, path);
  pipeline = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &error);
  g_free (desc);
  if (!pipeline) {
    *status = g_error_matches (error, GST_PARSE_ERROR,
        GST_PARSE_ERROR_NO_SUCH_ELEMENT) ? RUN_SKIPPED : RUN_FAILED;
    *why = g_strdup_printf ("making the clip: %s", error->message);
    g_clear_error (&error);
    g_unlink (path);
    g_free (path);
    return NULL;
  }
  bus = gst_element_get_bus (pipeline);
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  msg = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_EOS) {
    *status = RUN_FAILED;
    *why = g_strdup ("making the clip: the encoder failed or took over "
        "10 minutes");
    g_unlink (path);
    g_clear_pointer (&path, g_free);
  }
  if (msg)
    gst_message_unref (msg);
  gst_object_unref (bus);
  gst_object_unref (pipeline);
  return path;
}

/* "1,2,4" -> a new array of 3 counts, each at least 1; NULL if not */
static gint *
parse_counts (const gchar * list, gint * n)
{
  gchar **parts = g_strsplit (list, ",", -1);
  gint *counts = g_new0 (gint, MAX (g_strv_length (parts), 1));
  gint i;

  *n = g_strv_length (parts);
  for (i = 0; i < *n; i++) {
    gchar *end;
    gint64 v = g_ascii_strtoll (parts[i], &end, 10);
    if (end == parts[i] || *end || v < 1 || v > 1024) {
      g_clear_pointer (&counts, g_free);
      break;
    }
    counts[i] = (gint) v;
  }
  if (*n == 0)
    g_clear_pointer (&counts, g_free);
  g_strfreev (parts);
  return counts;
}

/* "pinned,pageable" -> want[]; FALSE on an unknown name */
static gboolean
parse_inputs (const gchar * list, gboolean want[N_INPUTS])
{
  gchar **names = g_strsplit (list, ",", -1);
  gboolean ok = TRUE;
  gint i, k;

  for (i = 0; names[i]; i++) {
    const gchar *name = g_strstrip (names[i]);
    gboolean known = FALSE;

    if (!strcmp (name, "both")) {
      want[INPUT_PINNED] = want[INPUT_PAGEABLE] = known = TRUE;
    }
    for (k = 0; k < N_INPUTS; k++)
      if (!strcmp (name, input_names[k]))
        want[k] = known = TRUE;
    if (!known) {
      g_printerr ("pipeline-bench: unknown input '%s' (pinned, pageable, "
          "both, cuda, system, h264)\n", name);
      ok = FALSE;
    }
  }
  g_strfreev (names);
  return ok;
}

/* A CSV field, quoted: pipelines hold commas ("video/x-raw,format=GRAY8") */
static void
csv_string (FILE * f, const gchar * s)
{
  fputc ('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc ('"', f);
    fputc (*s, f);
  }
  fputc ('"', f);
}

int
main (int argc, char **argv)
{
  gchar **chains = NULL, *format = NULL, *csv = NULL, *input = NULL;
  gchar *profile = NULL, *streams = NULL, *clip = NULL, *clip_why = NULL;
  RunStatus clip_status = RUN_OK;
  gint n_gpus = 1;
  gint width = 3840, height = 2160, n_chains, c, k;
  gdouble out_bpp = 1.0;
  RunLimits lim = { 600, 100, 0, NULL, 600, FALSE, NULL };
  GOptionEntry entries[] = {
    {"chain", 0, 0, G_OPTION_ARG_STRING_ARRAY, &chains, "elements between "
          "appsrc and fakesink; may be repeated (default cudagray)", NULL},
    {"input", 0, 0, G_OPTION_ARG_STRING, &input, "comma-separated: pinned, "
          "pageable, both (the two), cuda, system, h264 (both)", NULL},
    {"format", 0, 0, G_OPTION_ARG_STRING, &format, "input format (RGBA)",
        NULL},
    {"width", 0, 0, G_OPTION_ARG_INT, &width, "width (3840)", NULL},
    {"height", 0, 0, G_OPTION_ARG_INT, &height, "height (2160)", NULL},
    {"frames", 0, 0, G_OPTION_ARG_INT, &lim.n_frames, "frames timed, at "
          "most (600)", NULL},
    {"max-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &lim.max_seconds, "stop the "
          "timed pass after this long, for slow chains (0: no limit)", NULL},
    {"latency-frames", 0, 0, G_OPTION_ARG_INT, &lim.lat_frames, "frames of "
          "the latency pass, at most (100)", NULL},
    {"out-bytes-per-pixel", 0, 0, G_OPTION_ARG_DOUBLE, &out_bpp,
        "bytes per pixel the chain downloads, for the PCIe bound (1)", NULL},
    {"csv", 0, 0, G_OPTION_ARG_FILENAME, &csv, "append results to FILE",
        NULL},
    {"streams", 0, 0, G_OPTION_ARG_STRING, &streams, "comma-separated: "
          "run each chain as this many pipelines at once, in this process, "
          "one row each (1)", NULL},
    {"clip-frames", 0, 0, G_OPTION_ARG_INT, &lim.clip_frames, "frames of "
          "the H.264 clip that input h264 decodes (600)", NULL},
    {"gpus", 0, 0, G_OPTION_ARG_INT, &n_gpus, "spread the streams over "
          "this many GPUs, stream s on device s % N, one shared CUDA "
          "context a GPU (1)", NULL},
    {"threads", 0, 0, G_OPTION_ARG_NONE, &lim.threads, "report the timed "
          "pass's CPU time by thread", NULL},
    {"profile", 0, 0, G_OPTION_ARG_FILENAME, &profile, "append the timed "
          "pass's sampled call stacks to FILE (bench/profile-report.py "
          "reads it)", NULL},
    {NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- pipeline frame rates");
  GError *error = NULL;
  gboolean want[N_INPUTS] = { FALSE, };
  GstVideoInfo info;
  GstVideoFormat fmt;
  GstCudaContext **contexts = NULL;
  gint n_contexts = 0, n_devices = 0, n_counts, m;
  gint *stream_counts;
  gchar *gpu, *cuda_why = NULL;
  double up[2] = { 0, 0 }, down_pinned = 0, in_bytes, out_bytes;
  double bound[2] = { 0, 0 };
  gboolean have_cuda, cuda_format_ok = TRUE, any_failed = FALSE;
  struct cudaDeviceProp prop;
  RunResult *results;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    g_printerr ("pipeline-bench: %s\n", error->message);
    return 2;
  }
  g_option_context_free (ctx);
  lim.profile = profile;
  if (!chains) {
    chains = g_new0 (gchar *, 2);
    chains[0] = g_strdup ("cudagray");
  }
  n_chains = g_strv_length (chains);
  if (!format)
    format = g_strdup ("RGBA");
  if (!parse_inputs (input ? input : "both", want))
    return 2;
  if (!(stream_counts = parse_counts (streams ? streams : "1", &n_counts))
      || n_gpus < 1) {
    g_printerr ("pipeline-bench: --streams takes counts of 1 or more, "
        "separated by commas; --gpus 1 or more\n");
    return 2;
  }
  if (lim.n_frames < 1 || lim.clip_frames < 1 || lim.lat_frames < 0 ||
      lim.max_seconds < 0) {
    g_printerr ("pipeline-bench: --frames and --clip-frames must be at "
        "least 1, --latency-frames and --max-seconds not negative\n");
    return 2;
  }

  fmt = gst_video_format_from_string (format);
  if (fmt == GST_VIDEO_FORMAT_UNKNOWN
      || !gst_video_info_set_format (&info, fmt, width, height)) {
    g_printerr ("pipeline-bench: cannot make %s %dx%d frames\n", format,
        width, height);
    return 2;
  }
  info.fps_n = 30;
  info.fps_d = 1;
  in_bytes = GST_VIDEO_INFO_SIZE (&info);
  out_bytes = out_bpp * width * height;

  /* CPU-only chains (input system) run without a GPU */
  have_cuda = cudaGetDeviceProperties (&prop, 0) == cudaSuccess;
  gpu = g_strdup (have_cuda ? prop.name : "none");
  if (have_cuda && (want[INPUT_PINNED] || want[INPUT_PAGEABLE])) {
    up[INPUT_PINNED] = copy_bandwidth (in_bytes, TRUE, cudaMemcpyHostToDevice);
    up[INPUT_PAGEABLE] = copy_bandwidth (in_bytes, FALSE,
        cudaMemcpyHostToDevice);
    down_pinned = copy_bandwidth (MAX (out_bytes, 1), TRUE,
        cudaMemcpyDeviceToHost);
    /* upload and download one after the other, as within one synchronous
     * frame */
    for (k = INPUT_PINNED; k <= INPUT_PAGEABLE; k++)
      if (up[k] > 0 && (out_bytes == 0 || down_pinned > 0))
        bound[k] = 1.0 / (in_bytes / up[k] +
            (out_bytes ? out_bytes / down_pinned : 0));
  }
  /* one context a GPU, shared by every pipeline of a run that uses it */
  if (have_cuda && (want[INPUT_PINNED] || want[INPUT_PAGEABLE] ||
          want[INPUT_CUDA] || want[INPUT_H264])) {
    if (cudaGetDeviceCount (&n_devices) != cudaSuccess)
      n_devices = 0;
    if (n_gpus > n_devices) {
      g_printerr ("pipeline-bench: --gpus %d, and this machine has %d\n",
          n_gpus, n_devices);
      return 2;
    } else if (!gst_cuda_load_library ())
      cuda_why = g_strdup ("the CUDA driver library could not be loaded");
    else {
      contexts = g_new0 (GstCudaContext *, n_gpus);
      for (n_contexts = 0; n_contexts < n_gpus; n_contexts++)
        if (!(contexts[n_contexts] = gst_cuda_context_new (n_contexts))) {
          cuda_why = g_strdup_printf ("no CUDA context on device %d",
              n_contexts);
          break;
        }
      if (cuda_why) {
        while (n_contexts > 0)
          gst_object_unref (contexts[--n_contexts]);
      } else {
        /* registers the CUDA allocator the pool draws from; the elements
         * do this only when they start, after our frames exist */
        gst_cuda_memory_init_once ();
      }
    }
  }
  if (want[INPUT_CUDA]) {
    /* 1.22's CUDA allocator aborts on formats it has no layout for */
    cuda_format_ok = fmt != GST_VIDEO_FORMAT_GRAY8
        && fmt != GST_VIDEO_FORMAT_xRGB && fmt != GST_VIDEO_FORMAT_xBGR;
    if (!cuda_format_ok) {
      g_free (cuda_why);
      cuda_why = g_strdup_printf ("GStreamer 1.22's CUDA allocator cannot "
          "hold %s", format);
    } else if (!have_cuda && !cuda_why) {
      cuda_why = g_strdup ("no CUDA device");
    }
  }

  if (want[INPUT_H264] && n_contexts) {
    clip = make_clip (width, height, lim.clip_frames, &clip_status, &clip_why);
    lim.clip = clip;
  }

  results = g_new0 (RunResult, n_chains * N_INPUTS * n_counts);
  for (c = 0; c < n_chains; c++) {
    for (k = 0; k < N_INPUTS; k++) {
      for (m = 0; m < n_counts; m++) {
        RunResult *r = &results[RESULT_INDEX (c, k, m)];

        if (!want[k])
          continue;
        if (k == INPUT_CUDA && (!n_contexts || !cuda_format_ok)) {
          r->status = cuda_format_ok ? RUN_FAILED : RUN_SKIPPED;
          r->why = g_strdup (cuda_why);
        } else if (k == INPUT_H264 && !n_contexts) {
          r->status = RUN_FAILED;
          r->why = g_strdup (cuda_why ? cuda_why : "no CUDA device");
        } else if (k == INPUT_H264 && !clip) {
          r->status = clip_status;
          r->why = g_strdup (clip_why);
        } else if (k == INPUT_PINNED && !have_cuda) {
          r->status = RUN_FAILED;
          r->why = g_strdup ("no CUDA device for pinned memory");
        } else {
          *r = run (chains[c], &info, k, &lim, contexts, n_contexts,
              stream_counts[m]);
        }
        if (r->status == RUN_FAILED)
          any_failed = TRUE;
      }
    }
  }

  g_print ("GPU: %s\n", gpu);
  if (bound[INPUT_PINNED] > 0)
    g_print ("PCIe, measured now: upload pinned %.1f GB/s, pageable %.1f "
        "GB/s; download pinned %.1f GB/s (PCIe bound: %.0f bytes down per "
        "frame)\n", up[INPUT_PINNED] / 1e9, up[INPUT_PAGEABLE] / 1e9,
        down_pinned / 1e9, out_bytes);
  g_print ("appsrc (%s %dx%d) ! CHAIN ! fakesink; latency: one frame in "
      "flight\n", format, width, height);
  if (want[INPUT_H264])
    g_print ("input h264: filesrc (%d frames, %dx%d) ! h264parse ! "
        "nvh264dec ! CHAIN ! fakesink\n", lim.clip_frames, width, height);
  g_print ("%-13s %7s %9s %9s %9s %9s %9s %6s %10s %6s\n", "  input",
      "frames", "fps", "ms/frame", "lat med", "lat p99", "CPU us/f", "cores",
      "PCIe bound", "of it");
  for (c = 0; c < n_chains; c++) {
    g_print ("%s\n", chains[c]);
    for (k = 0; k < N_INPUTS; k++)
      for (m = 0; m < n_counts; m++) {
        RunResult *r = &results[RESULT_INDEX (c, k, m)];
        double b = k <= INPUT_PAGEABLE ? bound[k] : 0;
        gchar *label = stream_counts[m] == 1 ? g_strdup (input_names[k]) :
            g_strdup_printf ("%s x%d", input_names[k], stream_counts[m]);

        switch (r->status) {
          case RUN_NOT_ASKED:
            break;
          case RUN_OK:
            g_print ("  %-11s %7d %9.1f %9.3f", label, r->frames,
                r->fps, 1000.0 / r->fps);
            if (r->lat_samples)
              g_print (" %9.3f %9.3f", r->lat_median_ms, r->lat_p99_ms);
            else
              g_print (" %9s %9s", "-", "-");
            g_print (" %9.1f %6.2f", r->cpu_us_per_frame, r->cores);
            if (b > 0)
              g_print (" %10.1f %5.0f%%", b, 100.0 * r->fps / b);
            g_print ("%s%s\n", r->note ? "  note: " : "",
                r->note ? r->note : "");
            if (r->threads)
              g_print ("%s", r->threads);
            break;
          case RUN_FAILED:
          case RUN_SKIPPED:
            g_print ("  %-11s %s: %s\n", label,
                r->status == RUN_SKIPPED ? "SKIPPED" : "FAILED", r->why);
            break;
        }
        g_free (label);
      }
  }

  if (csv) {
    FILE *f = fopen (csv, "a");

    if (!f) {
      g_printerr ("pipeline-bench: cannot write %s\n", csv);
      any_failed = TRUE;
    } else {
      fseek (f, 0, SEEK_END);
      if (ftell (f) == 0)
        fprintf (f, "gpu,pipeline,input,format,width,height,frames,fps,"
            "latency_ms_median,latency_ms_p99,pcie_bound_fps,"
            "cpu_us_per_frame,cores,streams,gpus\n");
      for (c = 0; c < n_chains; c++)
        for (k = 0; k < N_INPUTS * n_counts; k++) {
          RunResult *r = &results[c * N_INPUTS * n_counts + k];
          gint kind = k / n_counts, streams_run = stream_counts[k % n_counts];
          double b = kind <= INPUT_PAGEABLE ? bound[kind] : 0;

          if (r->status != RUN_OK)
            continue;
          csv_string (f, gpu);
          fputc (',', f);
          csv_string (f, chains[c]);
          fprintf (f, ",%s,%s,%d,%d,%d,%.2f,", input_names[kind],
              kind == INPUT_H264 ? "NV12" : format,
              width, height, r->frames, r->fps);
          if (r->lat_samples)
            fprintf (f, "%.4f,%.4f,", r->lat_median_ms, r->lat_p99_ms);
          else
            fputs (",,", f);
          if (b > 0)
            fprintf (f, "%.2f", b);
          fprintf (f, ",%.2f,%.3f,%d,%d\n", r->cpu_us_per_frame, r->cores,
              streams_run, kind == INPUT_SYSTEM ? 0 : MIN (n_contexts,
                  streams_run));
        }
      fclose (f);
    }
  }

  for (k = 0; k < n_chains * N_INPUTS * n_counts; k++) {
    g_free (results[k].why);
    g_free (results[k].note);
    free (results[k].threads);
  }
  g_free (results);
  while (n_contexts > 0)
    gst_object_unref (contexts[--n_contexts]);
  g_free (contexts);
  g_free (stream_counts);
  g_free (streams);
  if (clip)
    g_unlink (clip);
  g_free (clip);
  g_free (clip_why);
  g_free (cuda_why);
  g_strfreev (chains);
  g_free (gpu);
  g_free (format);
  g_free (csv);
  g_free (input);
  g_free (profile);
  return any_failed ? 1 : 0;
}
