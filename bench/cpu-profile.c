/* Where a benchmark's CPU time goes; see cpu-profile.h.
 *
 * Per thread: /proc/self/task/TID/schedstat's first field, the thread's
 * time on a CPU in ns (stat's utime and stime count whole ticks, too
 * coarse for a few seconds' run).
 *
 * Sampling: ITIMER_PROF fires as the process's CPU time (user and system,
 * every thread) passes each interval; the kernel checks it at its tick and
 * signals the thread that was running, so the samples fall on the threads
 * in proportion to their CPU time.  The handler only stores the stack's
 * addresses (backtrace() is loaded before the timer is armed, so it
 * allocates nothing in the handler); they are named after the run, with
 * dladdr(), as module+offset: static functions, which dladdr() cannot
 * name, are named by profile-report.py from the binary. */
#define _GNU_SOURCE
#include "cpu-profile.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <errno.h>
#include <execinfo.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#define MAX_SAMPLES 200000
#define MAX_DEPTH 48
/* asked for; the kernel's tick (often 4 ms) is the real interval */
#define INTERVAL_US 1000

typedef struct
{
  gint ready;                   /* written whole (a handler may still run
                                 * on another thread as the timer stops) */
  gint tid;
  gint depth;
  gpointer pc[MAX_DEPTH];
} Sample;

typedef struct
{
  gint tid;
  gchar *name;
  gint64 ns;
} ThreadTime;

struct _CpuThreads
{
  GArray *threads;              /* ThreadTime */
};

static Sample *samples;
static gint n_samples;

static gchar *
read_small_file (const gchar * path)
{
  gchar *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return g_strstrip (text);
}

CpuThreads *
cpu_threads_snapshot (void)
{
  CpuThreads *t = g_new0 (CpuThreads, 1);
  GDir *dir = g_dir_open ("/proc/self/task", 0, NULL);
  const gchar *entry;

  t->threads = g_array_new (FALSE, TRUE, sizeof (ThreadTime));
  while (dir && (entry = g_dir_read_name (dir))) {
    gchar *path = g_strdup_printf ("/proc/self/task/%s/schedstat", entry);
    gchar *stat = read_small_file (path);
    ThreadTime tt = { 0, };

    g_free (path);
    if (!stat)
      continue;                 /* it has just ended */
    tt.tid = atoi (entry);
    tt.ns = g_ascii_strtoll (stat, NULL, 10);
    g_free (stat);
    path = g_strdup_printf ("/proc/self/task/%s/comm", entry);
    tt.name = read_small_file (path);
    g_free (path);
    if (!tt.name)
      tt.name = g_strdup ("?");
    g_array_append_val (t->threads, tt);
  }
  if (dir)
    g_dir_close (dir);
  return t;
}

void
cpu_threads_free (CpuThreads * t)
{
  guint i;

  if (!t)
    return;
  for (i = 0; i < t->threads->len; i++)
    g_free (g_array_index (t->threads, ThreadTime, i).name);
  g_array_free (t->threads, TRUE);
  g_free (t);
}

typedef struct
{
  const gchar *name;
  gint64 ns;
  gint count;
} NameTime;

static gint
by_time_desc (gconstpointer a, gconstpointer b)
{
  const NameTime *x = a, *y = b;

  return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : 0;
}

void
cpu_threads_report (FILE * out, const CpuThreads * before,
    const CpuThreads * after, gint frames)
{
  GArray *names = g_array_new (FALSE, TRUE, sizeof (NameTime));
  gint64 total = 0;
  guint i, j;

  for (i = 0; i < after->threads->len; i++) {
    const ThreadTime *a = &g_array_index (after->threads, ThreadTime, i);
    gint64 ns = a->ns;
    NameTime *nt = NULL;

    /* a thread started in between counts from 0 */
    for (j = 0; j < before->threads->len; j++) {
      const ThreadTime *b = &g_array_index (before->threads, ThreadTime, j);
      if (b->tid == a->tid) {
        ns -= b->ns;
        break;
      }
    }
    for (j = 0; j < names->len; j++)
      if (!strcmp (g_array_index (names, NameTime, j).name, a->name))
        nt = &g_array_index (names, NameTime, j);
    if (!nt) {
      NameTime fresh = { a->name, 0, 0 };
      g_array_append_val (names, fresh);
      nt = &g_array_index (names, NameTime, names->len - 1);
    }
    nt->ns += ns;
    nt->count++;
    total += ns;
  }
  g_array_sort (names, by_time_desc);
  fprintf (out, "    CPU by thread (us a frame; threads that ended during "
      "the pass are not counted):\n");
  for (i = 0; i < names->len; i++) {
    const NameTime *nt = &g_array_index (names, NameTime, i);
    if (nt->ns * 1e-3 / MAX (frames, 1) < 0.05)
      continue;
    fprintf (out, "      %-20s x%-3d %8.2f\n", nt->name, nt->count,
        nt->ns * 1e-3 / MAX (frames, 1));
  }
  fprintf (out, "      %-25s %8.2f\n", "all", total * 1e-3 / MAX (frames, 1));
  g_array_free (names, TRUE);
}

static void
on_sigprof (int sig, siginfo_t * info, void *context)
{
  int saved = errno;
  gint i = g_atomic_int_add (&n_samples, 1);

  if (i < MAX_SAMPLES) {
    samples[i].tid = (gint) syscall (SYS_gettid);
    samples[i].depth = backtrace (samples[i].pc, MAX_DEPTH);
    g_atomic_int_set (&samples[i].ready, 1);
  }
  errno = saved;
}

static void
set_timer (gint interval_us)
{
  struct itimerval it = { {0, interval_us}, {0, interval_us} };

  setitimer (ITIMER_PROF, &it, NULL);
}

gboolean
cpu_profile_start (void)
{
  struct sigaction sa;
  gpointer warm[4];

  if (!samples) {
    samples = g_new (Sample, MAX_SAMPLES);
    /* every page touched now, not by the handler while it samples */
    memset (samples, 0, sizeof (Sample) * MAX_SAMPLES);
  }
  n_samples = 0;
  /* the first backtrace() loads libgcc's unwinder, which allocates */
  backtrace (warm, G_N_ELEMENTS (warm));
  memset (&sa, 0, sizeof (sa));
  sa.sa_sigaction = on_sigprof;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset (&sa.sa_mask);
  if (sigaction (SIGPROF, &sa, NULL) != 0)
    return FALSE;
  set_timer (INTERVAL_US);
  return TRUE;
}

/* module+offset[:symbol] of one address */
static gchar *
name_address (gpointer pc)
{
  Dl_info dl;
  const gchar *base;

  if (!dladdr (pc, &dl) || !dl.dli_fname)
    return g_strdup_printf ("?+%p", pc);
  base = strrchr (dl.dli_fname, '/');
  base = base ? base + 1 : dl.dli_fname;
  if (!*base)
    base = "main";
  if (dl.dli_sname)
    return g_strdup_printf ("%s+0x%lx:%s", base,
        (unsigned long) ((guintptr) pc - (guintptr) dl.dli_fbase),
        dl.dli_sname);
  return g_strdup_printf ("%s+0x%lx", base,
      (unsigned long) ((guintptr) pc - (guintptr) dl.dli_fbase));
}

gboolean
cpu_profile_stop (const gchar * path, const gchar * label, gint frames)
{
  GHashTable *names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  GHashTable *threads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  FILE *f;
  gint i, d, n;

  set_timer (0);
  signal (SIGPROF, SIG_IGN);
  n = MIN (g_atomic_int_get (&n_samples), MAX_SAMPLES);
  f = fopen (path, "a");
  if (!f) {
    for (i = 0; i < n; i++)
      samples[i].ready = 0;
    g_hash_table_unref (names);
    g_hash_table_unref (threads);
    return FALSE;
  }
  fprintf (f, "# %s\t%d samples\t%d frames\n", label, n, frames);
  for (i = 0; i < n; i++) {
    Sample *s = &samples[i];
    const gchar *thread;

    if (!g_atomic_int_get (&s->ready))
      continue;
    thread = g_hash_table_lookup (threads, GINT_TO_POINTER (s->tid));

    if (!thread) {
      gchar *p = g_strdup_printf ("/proc/self/task/%d/comm", s->tid);
      gchar *comm = read_small_file (p);
      g_free (p);
      thread = comm ? comm : g_strdup ("?");
      g_hash_table_insert (threads, GINT_TO_POINTER (s->tid),
          (gpointer) thread);
    }
    fprintf (f, "%d\t%s\t", s->tid, thread);
    /* frame 0 is this handler */
    for (d = 1; d < s->depth; d++) {
      const gchar *name = g_hash_table_lookup (names, s->pc[d]);
      if (!name) {
        name = name_address (s->pc[d]);
        g_hash_table_insert (names, s->pc[d], (gpointer) name);
      }
      fprintf (f, "%s%s", d > 1 ? ";" : "", name);
    }
    fputc ('\n', f);
  }
  fclose (f);
  for (i = 0; i < n; i++)
    samples[i].ready = 0;
  g_hash_table_unref (names);
  g_hash_table_unref (threads);
  return TRUE;
}
