/* logorder — the order `buildtrail log` prints the build's output in (pure; unit-tested).
 *
 * Definitions (docs/architecture.md, "Jobs and the log order")
 *   - A build driver is a process whose program is one (progkind_is_build_driver: make and its
 *     kin, ninja, samu); log_is_driver says so.
 *   - A job is a process whose parent is a driver: one command the driver started.  Jobs nest:
 *     a recursive make is (inside) a job of the outer make, and its own children are jobs of
 *     the inner level.
 *   - Every chunk of output belongs to the chain of jobs above its writer, outermost first.
 *   - At each level, the driver's own chunks and its jobs are ordered by start time: a job by
 *     its process start (the kernel's 10 ms ticks), ties broken by the job's first output; a
 *     chunk by its own time.  All of a job's output is printed together, at the job's place.
 *   Without drivers (a plain script) this is the exact order the bytes were written.
 *
 * Contract: log_sort() reorders `chunks` in place; `procs` maps process id (gint64*) to
 * struct log_proc* and is only read.  No allocation survives the call; no errors.
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
};

struct log_chunk {
    int64_t seq;
    int64_t process_id;
    int stream;
    int64_t time_ns;
    const char *data;
    size_t len;
};

bool log_is_driver(const char *program);
void log_sort(struct log_chunk *chunks, size_t n, GHashTable *procs, int64_t ns_per_tick);
