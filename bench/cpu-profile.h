/* Where a benchmark's CPU time goes: per thread (the scheduler's own
 * accounting), and by sampled call stacks (SIGPROF on the process's CPU
 * time, stacks by backtrace(), written as module+offset for
 * bench/profile-report.py to name). */
#ifndef CPU_PROFILE_H
#define CPU_PROFILE_H

#include <stdio.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct _CpuThreads CpuThreads;

/* every thread of the process now: its id, name and CPU time */
CpuThreads *cpu_threads_snapshot (void);
/* CPU time each thread name took between the snapshots, per frame, largest
 * first; threads that share a name are added together */
void cpu_threads_report (FILE * out, const CpuThreads * before,
    const CpuThreads * after, gint frames);
void cpu_threads_free (CpuThreads * t);

/* sampling: start() arms the timer (FALSE when it cannot), stop() disarms
 * it and appends the samples to path under a "# label" line */
gboolean cpu_profile_start (void);
gboolean cpu_profile_stop (const gchar * path, const gchar * label,
    gint frames);

G_END_DECLS

#endif
