/* Experiment (not part of the plugin): what it costs the CPU to learn that
 * the GPU is done with a frame.  Every element waits once a frame: a
 * filter on 1.22 in cuStreamSynchronize, the analysis elements' results
 * thread and (1.24+) the filters' input-holding thread in
 * cudaEventSynchronize on a blocking-sync event.  pipeline-bench --threads
 * puts 20-25 us of CPU a frame on those waits, half of it in the driver's
 * own cuda-EvtHandlr thread (docs/performance.md, "Where it goes"); this
 * measures the ways to wait, one against another, on one context.
 *
 * A "frame" is one launch of a kernel that spins T us on the GPU (one
 * thread), and an event recorded after it.  Two shapes:
 *   inline   the launching thread waits for each frame before the next
 *            (a filter that synchronises);
 *   worker   the launching thread keeps up to K = 8 frames in flight and a
 *            second thread waits for them in order and hands each slot
 *            back (the analysis elements' results thread);
 * and these waits:
 *   spin          cudaEventSynchronize, default event (the context's
 *                 scheduling: spin on an otherwise idle machine)
 *   blocking      cudaEventSynchronize, cudaEventBlockingSync event
 *   done+blocking the same on an event already complete (the waiter was
 *                 behind): inline only, the host sleeps past the kernel
 *                 first, and that sleep is not CPU
 *   stream-sync   cudaStreamSynchronize (inline only)
 *   poll N        cudaEventQuery, and N us of sleep between queries
 *   host-func     cudaLaunchHostFunc after the event, signalling a
 *                 condition variable the waiter sleeps on
 * For each: frames a second, and the process's CPU time (every thread,
 * the driver's too: getrusage) per frame.  "launch only" is the launch and
 * record without any wait, synchronised every 64 frames.
 *
 *   wait-cost [--frames 20000] [--gpu-us 0,20,100]
 */
#include "experiment.cuh"

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

__global__ void
busy_kernel (long long cycles)
{
  long long t0 = clock64 ();
  while (clock64 () - t0 < cycles);
}

static double
now_us ()
{
  timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static double
cpu_us ()
{
  rusage u;
  getrusage (RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e6 +
      u.ru_utime.tv_usec + u.ru_stime.tv_usec;
}

enum Wait
{ SPIN, BLOCKING, DONE_BLOCKING, STREAM_SYNC, POLL, HOST_FUNC, NONE };

struct Mode
{
  const char *name;
  Wait wait;
  int poll_us;
};

/* host-func: the waiter's flag and condition, one a slot */
struct Signal
{
  std::mutex lock;
  std::condition_variable cond;
  bool done = false;
};

static void CUDART_CB
on_done (void *data)
{
  Signal *s = (Signal *) data;
  std::lock_guard < std::mutex > g (s->lock);
  s->done = true;
  s->cond.notify_one ();
}

static void
wait_for (const Mode & m, cudaEvent_t ev, cudaStream_t stream, Signal * sig)
{
  switch (m.wait) {
    case SPIN:
    case BLOCKING:
    case DONE_BLOCKING:
      CHECK (cudaEventSynchronize (ev));
      break;
    case STREAM_SYNC:
      CHECK (cudaStreamSynchronize (stream));
      break;
    case POLL:
      for (;;) {
        cudaError_t e = cudaEventQuery (ev);
        if (e == cudaSuccess)
          break;
        if (e != cudaErrorNotReady)
          CHECK (e);
        usleep (m.poll_us);
      }
      break;
    case HOST_FUNC:{
      std::unique_lock < std::mutex > g (sig->lock);
      sig->cond.wait (g,[sig] {
            return sig->done;}
      );
      sig->done = false;
      break;
    }
    case NONE:
      break;
  }
}

static void
enqueue (const Mode & m, long long cycles, cudaEvent_t ev,
    cudaStream_t stream, Signal * sig)
{
  busy_kernel <<< 1, 1, 0, stream >>> (cycles);
  CHECK (cudaEventRecord (ev, stream));
  if (m.wait == HOST_FUNC)
    CHECK (cudaLaunchHostFunc (stream, on_done, sig));
}

struct Result
{
  double fps, cpu_per_frame;
};

static Result
run_inline (const Mode & m, long long cycles, int gpu_us, int frames)
{
  cudaStream_t stream;
  cudaEvent_t ev;
  Signal sig;
  unsigned flags = cudaEventDisableTiming;

  if (m.wait == BLOCKING || m.wait == DONE_BLOCKING)
    flags |= cudaEventBlockingSync;
  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  CHECK (cudaEventCreateWithFlags (&ev, flags));
  for (int i = 0; i < 100; i++) {
    enqueue (m, cycles, ev, stream, &sig);
    wait_for (m, ev, stream, &sig);
  }
  CHECK (cudaStreamSynchronize (stream));
  double w0 = now_us (), c0 = cpu_us (), slept = 0;
  for (int i = 0; i < frames; i++) {
    enqueue (m, cycles, ev, stream, &sig);
    if (m.wait == DONE_BLOCKING) {
      double s0 = now_us ();
      usleep (gpu_us + 50);
      slept += now_us () - s0;
    }
    if (m.wait == NONE) {
      if (i % 64 == 63)
        CHECK (cudaStreamSynchronize (stream));
    } else {
      wait_for (m, ev, stream, &sig);
    }
  }
  CHECK (cudaStreamSynchronize (stream));
  double wall = now_us () - w0 - slept, cpu = cpu_us () - c0;
  CHECK (cudaEventDestroy (ev));
  CHECK (cudaStreamDestroy (stream));
  return { frames / (wall * 1e-6), cpu / frames };
}

#define K 8

static Result
run_worker (const Mode & m, long long cycles, int frames)
{
  cudaStream_t stream;
  cudaEvent_t ev[K];
  Signal sig[K];
  unsigned flags = cudaEventDisableTiming;
  std::mutex lock;
  std::condition_variable cond;
  int launched = 0, finished = 0;

  if (m.wait == BLOCKING)
    flags |= cudaEventBlockingSync;
  CHECK (cudaStreamCreateWithFlags (&stream, cudaStreamNonBlocking));
  for (auto & e:ev)
    CHECK (cudaEventCreateWithFlags (&e, flags));

  int device;
  CHECK (cudaGetDevice (&device));
  std::thread waiter ([&] {
        CHECK (cudaSetDevice (device));
        for (int i = 0; i < frames; i++) {
        {
        std::unique_lock < std::mutex > g (lock); cond.wait (g,[&] {
            return launched > i;}
        );}
        wait_for (m, ev[i % K], stream, &sig[i % K]);
        std::lock_guard < std::mutex > g (lock); finished = i + 1;
        cond.notify_all ();}
      }
  );
  double w0 = now_us (), c0 = cpu_us ();
  for (int i = 0; i < frames; i++) {
    {
      std::unique_lock < std::mutex > g (lock);
      cond.wait (g,[&] {
            return i - finished < K;}
      );
    }
    enqueue (m, cycles, ev[i % K], stream, &sig[i % K]);
    std::lock_guard < std::mutex > g (lock);
    launched = i + 1;
    cond.notify_all ();
  }
  waiter.join ();
  double wall = now_us () - w0, cpu = cpu_us () - c0;
  for (auto & e:ev)
    CHECK (cudaEventDestroy (e));
  CHECK (cudaStreamDestroy (stream));
  return { frames / (wall * 1e-6), cpu / frames };
}

int
main (int argc, char **argv)
{
  int frames = 20000;
  std::vector < int >gpu_us = { 0, 20, 100 };

  for (int i = 1; i < argc; i++) {
    if (!strcmp (argv[i], "--frames") && i + 1 < argc) {
      frames = atoi (argv[++i]);
    } else if (!strcmp (argv[i], "--gpu-us") && i + 1 < argc) {
      gpu_us.clear ();
      std::string list = argv[++i];
      size_t p = 0;
      while (p <= list.size ()) {
        size_t q = list.find (',', p);
        gpu_us.push_back (atoi (list.substr (p, q - p).c_str ()));
        if (q == std::string::npos)
          break;
        p = q + 1;
      }
    } else {
      fprintf (stderr, "usage: %s [--frames N] [--gpu-us 0,20,100]\n",
          argv[0]);
      return 2;
    }
  }

  cudaDeviceProp prop;
  int clock_khz;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  CHECK (cudaDeviceGetAttribute (&clock_khz, cudaDevAttrClockRate, 0));
  printf ("GPU: %s; %d frames a row; CPU: the process's (every thread) "
      "per frame\n", prop.name, frames);
  printf ("%-8s %-15s %7s %10s %10s\n", "shape", "wait", "GPU us", "fps",
      "CPU us/f");

  static const Mode inline_modes[] = {
    {"launch only", NONE, 0}, {"spin", SPIN, 0}, {"blocking", BLOCKING, 0},
    {"done+blocking", DONE_BLOCKING, 0}, {"stream-sync", STREAM_SYNC, 0},
    {"poll 0", POLL, 0}, {"poll 20", POLL, 20}, {"poll 100", POLL, 100},
    {"host-func", HOST_FUNC, 0},
  };
  static const Mode worker_modes[] = {
    {"spin", SPIN, 0}, {"blocking", BLOCKING, 0}, {"poll 20", POLL, 20},
    {"poll 100", POLL, 100}, {"host-func", HOST_FUNC, 0},
  };
  for (int t:gpu_us) {
    /* (the clock rate is the boost clock's: the spin is at least t us) */
    long long cycles = (long long) t *clock_khz / 1000;
    for (const Mode & m:inline_modes) {
      Result r = run_inline (m, cycles, t, frames);
      printf ("%-8s %-15s %7d %10.0f %10.2f\n", "inline", m.name, t, r.fps,
          r.cpu_per_frame);
    }
    for (const Mode & m:worker_modes) {
      Result r = run_worker (m, cycles, frames);
      printf ("%-8s %-15s %7d %10.0f %10.2f\n", "worker", m.name, t, r.fps,
          r.cpu_per_frame);
    }
  }
  return 0;
}
