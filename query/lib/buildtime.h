/* buildtime — a trace read as the build's timeline: its tasks (one process's life, along its
 * exec chain), when each ran, what each read that another had written, and from those the
 * critical path and the parallelism (critpath.h).  Shared by `critical-path`, `report` and
 * the chrome-trace export, so that the three agree.
 *
 * Contract
 *   - buildtime_load reads q (every process, one scan of the accesses, one of the output, and
 *     one join of reads with the writes of the versions they read); it prints nothing.  A
 *     SQLite error is q's (qdb_failed), as every reader's: the caller checks it before
 *     answering.
 *   - A task's end is its last image's exit; without one (no process events, or still running
 *     when the trace ended) the last thing the trace saw any of its images do (an access,
 *     output), or its children's last end; else its start.  end_known says which.
 *   - Tasks are in start order (then id); a task's id in cp_task is its first image's id,
 *     its parent the task of its first image's parent.
 *   - jobs_allowed: the most jobs any build driver of the build was told it may run
 *     (make -jN / --jobs=N, ninja -jN, MAKEFLAGS=-jN in its argv), 0 when none says, -1 when
 *     one was given -j without a number (no limit).
 *   - buildtime_clear frees it all; the qdb_process pointers are q's.
 */
#pragma once

#include "critpath.h"
#include "qdb.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

struct bt_task {
    const struct qdb_process *first, *last; /* its first image and the one it ended as */
    bool end_known;                         /* the end is an exit the trace recorded */
    int64_t reads;                          /* successful reads and execs of its images */
    guint wstart, wend;                     /* its written files: wfile[wstart .. wend) */
};

struct buildtime {
    GArray *tasks;     /* struct cp_task, start order */
    GArray *info;      /* struct bt_task, the same order */
    GArray *deps;      /* struct cp_dep, on task ids */
    GArray *wfile;     /* int64_t file ids written, per task */
    GHashTable *task_of; /* image id (int64_t*) -> task index + 1 */
    struct critpath cp;
    int jobs_allowed;
    int64_t run_start_ns, run_end_ns; /* the build's span (the root tasks') */
};

void buildtime_load(struct qdb *q, struct buildtime *bt);
void buildtime_clear(struct buildtime *bt);

/* The index of the task image `id` belongs to, or -1. */
gssize buildtime_task_index(const struct buildtime *bt, int64_t image_id);
/* Whether an access of `kind` (a TQ_ACTIVITY row: its bytes, 0 for NULL) made or changed what
 * is at the path — written bytes, created, truncated, renamed to: TRACEDB_KINDS_CHANGED less
 * TRACEDB_KINDS_GONE — the paths a task wrote. */
bool buildtime_wrote_path(int kind, int64_t bytes);

/* The -j a driver's argv allows: N, -1 for no limit, 0 if it does not say (make's short
 * options that take an argument, -C -f -I -o -W -l -O -E, end a cluster: -Cjson is no -j). */
int buildtime_jobs_in_argv(const char *argv, size_t len);
