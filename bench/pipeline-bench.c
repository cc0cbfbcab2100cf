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
 * and, for pinned and pageable input, the rate PCIe allows, measured in the
 * same run.
 *
 *   pipeline-bench [--chain "cudagray"]... [--input pinned,pageable]
 *                  [--format RGBA] [--width 3840] [--height 2160]
 *                  [--frames 600] [--max-seconds 0] [--latency-frames 100]
 *                  [--out-bytes-per-pixel 1] [--csv FILE]
 *                  [--threads] [--profile FILE]
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
 * latency_ms_median,latency_ms_p99,pcie_bound_fps,cpu_us_per_frame,cores`
 * written when the file is created.  The CPU figures are the process's
 * (every thread, user and system) over the timed pass: per frame, and over
 * its wall time, the cores kept busy.  Element messages (the analysis
 * elements' results) are freed as they are posted, in the bus's sync
 * handler, so their cost is counted and none pile up; `--chain identity`
 * gives the cost of the benchmark's own source and sink.  --threads adds
 * the timed pass's CPU time by thread under each row; --profile FILE
 * samples the timed pass's call stacks into FILE, for
 * bench/profile-report.py. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
  N_INPUTS
} InputKind;

static const gchar *input_names[N_INPUTS] =
    { "pinned", "pageable", "cuda", "system" };

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

/* one chain's results, by input */
typedef RunResult RunRow[N_INPUTS];

typedef struct
{
  gint n_frames, lat_frames;
  double max_seconds;
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

/* Runs @chain once with @input frames. */
static RunResult
run (const gchar * chain, const GstVideoInfo * info, InputKind input,
    const RunLimits * lim, GstCudaContext * cuda_ctx)
{
  RunResult r = { 0, };
  gsize size = GST_VIDEO_INFO_SIZE (info);
  gint capacity = 1 + N_SOURCE_FRAMES + lim->lat_frames + lim->n_frames;
  gchar *desc;
  GError *error = NULL;
  GstElement *pipeline, *src, *sink, *first;
  GstBuffer *frames[N_SOURCE_FRAMES] = { NULL, };
  GstBufferPool *pool = NULL;
  GstCaps *caps = gst_video_info_to_caps (info);
  Arrivals a = { 0, };
  GstBus *bus;
  GstMessage *msg;
  gint64 *pushed, t0, budget, cpu0 = 0, cpu1;
  CpuThreads *threads0 = NULL, *threads1 = NULL;
  gboolean profiling = FALSE;
  double *lat;
  gint i, n = 0, n_lat = 0, n_timed = 0;

  r.status = RUN_FAILED;
  if (input == INPUT_CUDA)
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY, NULL));

  desc = g_strdup_printf ("appsrc name=src format=time max-bytes=%"
      G_GSIZE_FORMAT " ! %s ! fakesink name=sink sync=false "
      "signal-handoffs=true", (gsize) (IN_FLIGHT + 1) * size, chain);
  pipeline = gst_parse_launch_full (desc, NULL, GST_PARSE_FLAG_FATAL_ERRORS,
      &error);
  g_free (desc);
  if (!pipeline) {
    r.status = g_error_matches (error, GST_PARSE_ERROR,
        GST_PARSE_ERROR_NO_SUCH_ELEMENT) ? RUN_SKIPPED : RUN_FAILED;
    r.why = g_strdup (error->message);
    g_clear_error (&error);
    gst_caps_unref (caps);
    return r;
  }

  g_mutex_init (&a.lock);
  g_cond_init (&a.cond);
  a.capacity = capacity;
  a.arrival = g_new0 (gint64, capacity);
  pushed = g_new0 (gint64, capacity);
  lat = g_new0 (double, MAX (lim->lat_frames, 1));

  src = gst_bin_get_by_name (GST_BIN (pipeline), "src");
  sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  {
    GstPad *srcpad = gst_element_get_static_pad (src, "src");
    GstPad *peer = gst_pad_get_peer (srcpad);
    first = gst_pad_get_parent_element (peer);
    gst_object_unref (peer);
    gst_object_unref (srcpad);
  }
  gst_app_src_set_caps (GST_APP_SRC (src), caps);
  g_signal_connect (sink, "handoff", G_CALLBACK (on_handoff), &a);
  bus = gst_element_get_bus (pipeline);
  gst_bus_set_sync_handler (bus, on_bus_sync, &a, NULL);

  if (input == INPUT_CUDA) {
    /* the bin hands the context to every CUDA element, ours and nvcodec's,
     * so they all read these frames in place */
    GstContext *context = gst_context_new_cuda_context (cuda_ctx);
    gst_element_set_context (pipeline, context);
    gst_context_unref (context);

    pool = cuda_pool (cuda_ctx, caps, info);
    if (!pool) {
      r.why = g_strdup ("could not make a CUDA buffer pool");
      goto out;
    }
    for (i = 0; i < N_SOURCE_FRAMES; i++) {
      GstMapInfo map;
      if (gst_buffer_pool_acquire_buffer (pool, &frames[i], NULL) !=
          GST_FLOW_OK || !fill (frames[i])) {
        r.why = g_strdup ("could not fill a CUDA frame");
        goto out;
      }
      /* the host write leaves the device copy stale: upload it now, not
       * in the first element's first map */
      if (!gst_buffer_map (frames[i], &map, GST_MAP_READ | GST_MAP_CUDA)) {
        r.why = g_strdup ("could not map a CUDA frame");
        goto out;
      }
      gst_buffer_unmap (frames[i], &map);
    }
  }

  if (gst_element_set_state (pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    r.why = g_strdup (a.error ? a.error : "the pipeline would not start");
    goto out;
  }

  /* one frame to negotiate, so the first element can answer the
   * allocation query */
  if (input == INPUT_CUDA) {
    push (src, gst_buffer_ref (frames[0]), pushed, n++);
  } else {
    GstBuffer *warm = gst_buffer_new_allocate (NULL, size, NULL);
    gst_buffer_memset (warm, 0, 0x40, size);
    push (src, warm, pushed, n++);
  }
  if (!wait_arrivals (&a, n)) {
    r.why = g_strdup_printf ("first frame: %s", a.error);
    goto out;
  }

  if (input == INPUT_CUDA) {
    GstCudaContext *used = element_cuda_context (first);
    if (used != cuda_ctx)
      r.note = g_strdup ("the first element did not take the frames' CUDA "
          "context: frames may be copied");
    gst_clear_object (&used);
  } else if (input == INPUT_PINNED) {
    GstBufferPoolAcquireParams dontwait = { 0, };
    GstBuffer *probe = NULL;

    dontwait.flags = GST_BUFFER_POOL_ACQUIRE_FLAG_DONTWAIT;

    pool = proposed_pool (first, caps);
    if (pool && (gst_buffer_pool_acquire_buffer (pool, &probe, &dontwait) !=
            GST_FLOW_OK || !is_page_locked (probe))) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_clear_object (&pool);
    }
    gst_clear_buffer (&probe);
    /* a pool with fewer buffers than the source frames would block */
    for (i = 0; pool && i < N_SOURCE_FRAMES; i++)
      if (gst_buffer_pool_acquire_buffer (pool, &frames[i],
              &dontwait) != GST_FLOW_OK) {
        while (i >= 0)
          gst_clear_buffer (&frames[i--]);
        gst_buffer_pool_set_active (pool, FALSE);
        gst_clear_object (&pool);
      }
    if (!pool)
      r.note = g_strdup ("the chain proposed no page-locked pool: "
          "the benchmark's own cudaHostAlloc memory");
    for (i = 0; i < N_SOURCE_FRAMES; i++) {
      if (!pool)
        frames[i] = new_pinned_buffer (size);
      if (!frames[i] || !fill (frames[i])) {
        r.why = g_strdup ("could not make a pinned frame");
        goto out;
      }
    }
  } else {
    for (i = 0; i < N_SOURCE_FRAMES; i++) {
      frames[i] = gst_buffer_new_allocate (NULL, size, NULL);
      fill (frames[i]);
    }
  }

  /* warm-up pass over the source frames */
  budget = lim->max_seconds * G_TIME_SPAN_SECOND;
  t0 = g_get_monotonic_time ();
  for (i = 0; i < N_SOURCE_FRAMES; i++) {
    if (budget && g_get_monotonic_time () - t0 > budget / 4)
      break;
    push (src, gst_buffer_ref (frames[i]), pushed, n++);
    if (!wait_arrivals (&a, n)) {
      r.why = g_strdup_printf ("warm-up: %s", a.error);
      goto out;
    }
  }

  /* latency: one frame in the pipeline at a time */
  t0 = g_get_monotonic_time ();
  for (i = 0; i < lim->lat_frames; i++) {
    if (budget && g_get_monotonic_time () - t0 > budget / 2)
      break;
    push (src, gst_buffer_ref (frames[i % N_SOURCE_FRAMES]), pushed, n++);
    if (!wait_arrivals (&a, n)) {
      r.why = g_strdup_printf ("latency pass: %s", a.error);
      goto out;
    }
    lat[n_lat++] = (arrival_time (&a, n - 1) - pushed[n - 1]) * 1e-3;
  }

  /* rate: as fast as the chain takes them; with a budget, no push that the
   * frames still in flight (at about the latency each) would take past it */
  if (n_lat) {
    qsort (lat, n_lat, sizeof (double), cmp_double);
    r.lat_samples = n_lat;
    /* nearest rank */
    r.lat_median_ms = lat[(n_lat - 1) / 2];
    r.lat_p99_ms = lat[MAX ((gint) (0.99 * n_lat + 0.999999) - 1, 0)];
  }
  if (lim->threads)
    threads0 = cpu_threads_snapshot ();
  if (lim->profile && !(profiling = cpu_profile_start ()))
    r.note = g_strdup ("could not start sampling");
  t0 = g_get_monotonic_time ();
  cpu0 = cpu_time_us ();
  for (i = 0; i < lim->n_frames; i++) {
    if (budget && g_get_monotonic_time () - t0 + (n - arrived (&a)) *
        r.lat_median_ms * 1e3 > budget)
      break;
    if (n - IN_FLIGHT + 1 > 0 && !wait_arrivals (&a, n - IN_FLIGHT + 1)) {
      r.why = g_strdup_printf ("timed pass: %s", a.error);
      goto out;
    }
    push (src, gst_buffer_ref (frames[i % N_SOURCE_FRAMES]), pushed, n++);
    n_timed++;
  }
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  cpu1 = cpu_time_us ();
  if (profiling) {
    gchar *label = g_strdup_printf ("%s\t%s", chain, input_names[input]);
    if (!cpu_profile_stop (lim->profile, label, n_timed))
      r.note = g_strdup_printf ("could not write %s", lim->profile);
    g_free (label);
  }
  if (threads0) {
    gchar *text = NULL;
    gsize len = 0;
    FILE *mem = open_memstream (&text, &len);

    threads1 = cpu_threads_snapshot ();
    cpu_threads_report (mem, threads0, threads1, n_timed);
    fclose (mem);
    r.threads = text;
    cpu_threads_free (threads0);
    cpu_threads_free (threads1);
  }
  if (msg && GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS && !a.error &&
      a.seen == n && n_timed > 0) {
    r.status = RUN_OK;
    r.frames = n_timed;
    r.fps = n_timed / ((arrival_time (&a, n - 1) - t0) * 1e-6);
    /* (to EOS: a little past the last arrival; the benchmark's own
     * pushes count too) */
    r.cpu_us_per_frame = (double) (cpu1 - cpu0) / n_timed;
    r.cores = (double) (cpu1 - cpu0) / (arrival_time (&a, n - 1) - t0);
  } else {
    r.why = g_strdup_printf ("the run did not end in EOS with every frame "
        "(%d of %d arrived)%s%s", a.seen, n, a.error ? ": " : "",
        a.error ? a.error : "");
  }
  if (msg)
    gst_message_unref (msg);

out:
  gst_element_set_state (pipeline, GST_STATE_NULL);
  for (i = 0; i < N_SOURCE_FRAMES; i++)
    gst_clear_buffer (&frames[i]);
  if (pool) {
    gst_buffer_pool_set_active (pool, FALSE);
    gst_object_unref (pool);
  }
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (first);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  gst_caps_unref (caps);
  g_free (a.arrival);
  g_free (a.error);
  g_mutex_clear (&a.lock);
  g_cond_clear (&a.cond);
  g_free (pushed);
  g_free (lat);
  return r;
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
          "both, cuda, system)\n", name);
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
  gchar *profile = NULL;
  gint width = 3840, height = 2160, n_chains, c, k;
  gdouble out_bpp = 1.0;
  RunLimits lim = { 600, 100, 0, FALSE, NULL };
  GOptionEntry entries[] = {
    {"chain", 0, 0, G_OPTION_ARG_STRING_ARRAY, &chains, "elements between "
          "appsrc and fakesink; may be repeated (default cudagray)", NULL},
    {"input", 0, 0, G_OPTION_ARG_STRING, &input, "comma-separated: pinned, "
          "pageable, both (the two), cuda, system (both)", NULL},
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
  GstCudaContext *cuda_ctx = NULL;
  gchar *gpu, *cuda_why = NULL;
  double up[2] = { 0, 0 }, down_pinned = 0, in_bytes, out_bytes;
  double bound[2] = { 0, 0 };
  gboolean have_cuda, cuda_format_ok = TRUE, any_failed = FALSE;
  struct cudaDeviceProp prop;
  RunRow *results;

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
  if (lim.n_frames < 1 || lim.lat_frames < 0 || lim.max_seconds < 0) {
    g_printerr ("pipeline-bench: --frames must be at least 1, "
        "--latency-frames and --max-seconds not negative\n");
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
  if (want[INPUT_CUDA]) {
    /* 1.22's CUDA allocator aborts on formats it has no layout for */
    cuda_format_ok = fmt != GST_VIDEO_FORMAT_GRAY8
        && fmt != GST_VIDEO_FORMAT_xRGB && fmt != GST_VIDEO_FORMAT_xBGR;
    if (!cuda_format_ok)
      cuda_why = g_strdup_printf ("GStreamer 1.22's CUDA allocator cannot "
          "hold %s", format);
    else if (!gst_cuda_load_library ())
      cuda_why = g_strdup ("the CUDA driver library could not be loaded");
    else if (!(cuda_ctx = gst_cuda_context_new (0)))
      cuda_why = g_strdup ("no CUDA context on device 0");
    else
      /* registers the CUDA allocator the pool draws from; the elements
       * do this only when they start, after our frames exist */
      gst_cuda_memory_init_once ();
  }

  results = g_new0 (RunRow, n_chains);
  for (c = 0; c < n_chains; c++) {
    for (k = 0; k < N_INPUTS; k++) {
      RunResult *r = &results[c][k];

      if (!want[k])
        continue;
      if (k == INPUT_CUDA && !cuda_ctx) {
        r->status = cuda_format_ok ? RUN_FAILED : RUN_SKIPPED;
        r->why = g_strdup (cuda_why);
      } else if (k == INPUT_PINNED && !have_cuda) {
        r->status = RUN_FAILED;
        r->why = g_strdup ("no CUDA device for pinned memory");
      } else {
        *r = run (chains[c], &info, k, &lim, cuda_ctx);
      }
      if (r->status == RUN_FAILED)
        any_failed = TRUE;
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
  g_print ("%-10s %7s %9s %9s %9s %9s %9s %6s %10s %6s\n", "  input",
      "frames", "fps", "ms/frame", "lat med", "lat p99", "CPU us/f", "cores",
      "PCIe bound", "of it");
  for (c = 0; c < n_chains; c++) {
    g_print ("%s\n", chains[c]);
    for (k = 0; k < N_INPUTS; k++) {
      RunResult *r = &results[c][k];
      double b = k <= INPUT_PAGEABLE ? bound[k] : 0;

      switch (r->status) {
        case RUN_NOT_ASKED:
          break;
        case RUN_OK:
          g_print ("  %-8s %7d %9.1f %9.3f", input_names[k], r->frames,
              r->fps, 1000.0 / r->fps);
          if (r->lat_samples)
            g_print (" %9.3f %9.3f", r->lat_median_ms, r->lat_p99_ms);
          else
            g_print (" %9s %9s", "-", "-");
          g_print (" %9.1f %6.2f", r->cpu_us_per_frame, r->cores);
          if (b > 0)
            g_print (" %10.1f %5.0f%%", b, 100.0 * r->fps / b);
          g_print ("%s%s\n", r->note ? "  note: " : "", r->note ? r->note : "");
          if (r->threads)
            g_print ("%s", r->threads);
          break;
        case RUN_FAILED:
        case RUN_SKIPPED:
          g_print ("  %-8s %s: %s\n", input_names[k],
              r->status == RUN_SKIPPED ? "SKIPPED" : "FAILED", r->why);
          break;
      }
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
            "cpu_us_per_frame,cores\n");
      for (c = 0; c < n_chains; c++)
        for (k = 0; k < N_INPUTS; k++) {
          RunResult *r = &results[c][k];
          double b = k <= INPUT_PAGEABLE ? bound[k] : 0;

          if (r->status != RUN_OK)
            continue;
          csv_string (f, gpu);
          fputc (',', f);
          csv_string (f, chains[c]);
          fprintf (f, ",%s,%s,%d,%d,%d,%.2f,", input_names[k], format,
              width, height, r->frames, r->fps);
          if (r->lat_samples)
            fprintf (f, "%.4f,%.4f,", r->lat_median_ms, r->lat_p99_ms);
          else
            fputs (",,", f);
          if (b > 0)
            fprintf (f, "%.2f", b);
          fprintf (f, ",%.2f,%.3f\n", r->cpu_us_per_frame, r->cores);
        }
      fclose (f);
    }
  }

  for (c = 0; c < n_chains; c++)
    for (k = 0; k < N_INPUTS; k++) {
      g_free (results[c][k].why);
      g_free (results[c][k].note);
      free (results[c][k].threads);
    }
  g_free (results);
  gst_clear_object (&cuda_ctx);
  g_free (cuda_why);
  g_strfreev (chains);
  g_free (gpu);
  g_free (format);
  g_free (csv);
  g_free (input);
  g_free (profile);
  return any_failed ? 1 : 0;
}
