/* unit-trace — a crafted trace for unit tests: a run started in /w, the rows of `sql`, and
 * a finished, complete end.  Header-only. */
#pragma once

#include "tracedb.h"
#include "unit-sql.h"

/* A new trace NAME in unit_tmpdir (its path in *path: g_free) with the run's start in `cwd`:
 * the rows go in through the returned handle, then unit_trace_end. */
static inline sqlite3 *unit_trace_begin(const char *name, const char *cwd, char **path)
{
    *path = unit_path(name);
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(*path, 0600, &db, NULL, NULL), ==, 0);
    static const char args[] = "make";
    struct tracedb_run_start s = {.argv = args, .argv_len = sizeof args, .cwd = cwd,
                                  .start_realtime_ns = 1700000000000000000, .start_ns = 100,
                                  .hostname = "h", .version = "t"};
    g_assert_cmpint(tracedb_write_run_start(db, &s, NULL), ==, 0);
    return db;
}

/* The run's end (`state`, at end_ns, root process 1, a complete tree), sealed and closed. */
static inline void unit_trace_end(sqlite3 *db, int64_t end_ns, const char *state)
{
    struct tracedb_run_end e = {.end_ns = end_ns, .exit_status = 0, .state = state,
                                .root_process_id = 1, .notes = "", .process_tree = "complete"};
    g_assert_cmpint(tracedb_write_run_end(db, &e, NULL), ==, 0);
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
}

/* A trace NAME in unit_tmpdir made of `sql` alone (after the run's start), sealed; g_free(). */
static inline char *unit_crafted_trace(const char *name, const char *sql, int64_t end_ns)
{
    char *p = NULL;
    sqlite3 *db = unit_trace_begin(name, "/w", &p);
    g_assert_cmpint(tracedb_exec(db, sql, NULL), ==, 0);
    unit_trace_end(db, end_ns, TRACEDB_RUN_FINISHED);
    return p;
}
