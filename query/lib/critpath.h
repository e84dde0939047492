/* critpath — the build's critical path and its parallelism, from a process tree with times and
 * the files one process wrote for another (pure: no SQL, no printing; unit-tested on scripted
 * trees in tests/unit/test-critpath.c).
 *
 * Definitions (docs/report.md, "The critical path")
 *   - A task is one process's life (an image and the images it exec'd into): an id, its
 *     parent task (0: none), start and end on one clock.  A dependency says task `reader`
 *     read a file (`file_id`) that task `writer` had finished writing at `ready_ns`.
 *   - The critical path is found walking back from the end of the root task (the one with
 *     no parent that ends last): at time t in task P, the child of P that ended last at or
 *     before t (and after P started) is what P waited for; descend into it while there is
 *     one.  A task with no such child is a step: it ran until t (a parent that started
 *     its first child at once has no time of its own: no step).  Before a step's start s,
 *     it waited for the writer of a file it read that was ready latest at or before s, if
 *     that is no earlier than what its parent was doing (the latest of the parent's other
 *     children ended by s, or the parent's start); otherwise for its parent, and the walk
 *     goes on in the parent at s.  A step its parent started after the previous step
 *     ended, that read a file the previous step (or an ancestor of it) wrote, waited for
 *     that file.  Times only go back, and each task is a step at most
 *     once, so the walk ends after at most 2 × tasks moves.
 *   - Each step: the task, the time it held the path [from_ns, to_ns] (from its start to
 *     where the next step took over), the wait before it (from the end of the previous step
 *     to its start) and what it waited for (the build's start, its parent, or a file).
 *   - Parallelism: at every instant, the number of running tasks that have no running child
 *     (a make waiting on its jobs is not working; its jobs are).
 *   - Tasks whose end is before their start are taken to end at their start.
 * Contract: critpath_compute fills *out (free with critpath_clear); no errors (bad links
 * — a parent that is not a task, a dependency on an unknown task — are ignored).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cp_task {
    int64_t id, parent;  /* parent 0: a root */
    int64_t start_ns, end_ns;
};

struct cp_dep {
    int64_t reader, writer, file_id;
    int64_t ready_ns;    /* when the writer had written it (its last write of it) */
};

enum cp_wait {
    CP_WAIT_START,  /* the first step: from the build's start */
    CP_WAIT_PARENT, /* its parent started it (after the previous step ended) */
    CP_WAIT_FILE,   /* a file the previous step wrote */
};

struct cp_step {
    int64_t task;
    int64_t from_ns, to_ns; /* the part of the wall time this step held */
    int64_t wait_ns;        /* from the end of the previous step (or the start) to from_ns */
    enum cp_wait why;
    int64_t file_id;        /* CP_WAIT_FILE: the file */
    int64_t after_task;     /* the previous step's task (0 for the first) */
};

struct critpath {
    GArray *steps;          /* struct cp_step, in time order */
    int64_t start_ns, end_ns; /* the root's span: the wall time explained */
    int64_t busy_ns;        /* sum of the steps' from..to */
};

void critpath_compute(const struct cp_task *tasks, size_t n, const struct cp_dep *deps,
                      size_t ndeps, struct critpath *out);
/* The same from the task `root` (the run's root process) when it is one of the tasks, else
 * as critpath_compute: an orphan the trace saw without its parent (a daemon the build left,
 * /proc-only mode) that ended after the build is not the build. */
void critpath_compute_from(const struct cp_task *tasks, size_t n, const struct cp_dep *deps,
                           size_t ndeps, int64_t root, struct critpath *out);
void critpath_clear(struct critpath *cp);

/* Parallelism over [start_ns, end_ns) in `buckets` equal slices: avg[i] the time-weighted
 * mean number of working tasks (running, no running child) in slice i, peak[i] the most at
 * once.  *max_out the most at any instant. */
void critpath_parallelism(const struct cp_task *tasks, size_t n, int64_t start_ns,
                          int64_t end_ns, unsigned buckets, double *avg, unsigned *peak,
                          unsigned *max_out);

/* The stretches of at least min_ns during which at most one task was working (the build ran
 * one job at a time), longest first, at most `max`: pairs of int64_t {from, to} in a GArray
 * (g_array_unref it), each with the task that was working then (0: none) in a third slot. */
GArray *critpath_serial_stretches(const struct cp_task *tasks, size_t n, int64_t min_ns,
                                  unsigned max);
