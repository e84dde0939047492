/* logorder — the order `buildtrail log` prints the build's output in (pure; unit-tested).
 *
 * Definitions (docs/architecture.md, "Jobs and the log order")
 *   - A build driver is a process whose program is one (progkind_is_build_driver: make and its
 *     kin, ninja, samu); log_is_driver says so.
 *   - A job is a process whose parent is a driver: one command the driver started.  Jobs nest:
 *     a recursive make is (inside) a job of the outer make, and its own children are jobs of
 *     the inner level.
 *   - Every chunk of output belongs to the chain of jobs above its writer, outermost first.
 *   - A driver's echo of a recipe belongs to the job it starts, as with `make -O`: a chunk a
 *     driver wrote whose text (less its final newline) is the command of one of its jobs
 *     started in the same clock tick or later (the job's `command`: sh -c's script, or its
 *     argv joined with spaces) is filed under the earliest such job not yet claimed.
 *   - At each level, the driver's own chunks and its jobs are ordered by start time: a job by
 *     its process start (the kernel's 10 ms ticks), ties broken by the job's first output; a
 *     chunk by its own time.  All of a job's output is printed together, at the job's place,
 *     its echo first.
 *   Without drivers (a plain script) this is the exact order the bytes were written.
 *
 * Contract: log_sort() reorders `chunks` in place and sets each one's `filed_under` (its
 * writer, or the job its echo starts); `procs` maps process id (gint64*) to struct log_proc*
 * and is only read.  log_in_job() says whether a process is job `job` or inside it.
 * log_job_command() gives what a driver echoes for an argv (g_free it); log_proc_by_start()
 * orders jobs by start.  No errors.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct log_proc {
    int64_t id, parent_id;
    int64_t start_ns;
    bool driver;
    const char *command; /* what its program runs, as a driver echoes it (log_job_command of
                          * the image it exec'd into), or NULL */
};

struct log_chunk {
    int64_t seq;
    int64_t process_id;
    int stream;
    int64_t time_ns;
    const char *data;
    size_t len;
    int64_t filed_under; /* set by log_sort: the writer, or the job its echo starts */
};

bool log_is_driver(const char *program);
char *log_job_command(const char *argv, size_t len);
bool log_in_job(GHashTable *procs, int64_t id, int64_t job);
/* Orders struct log_proc* (in a GPtrArray) by start, then id. */
gint log_proc_by_start(gconstpointer a, gconstpointer b);
void log_sort(struct log_chunk *chunks, size_t n, GHashTable *procs, int64_t ns_per_tick);
