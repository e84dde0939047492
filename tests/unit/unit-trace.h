/* unit-trace — a crafted trace for unit tests: a run started in /w, the rows of `sql`, and
 * a finished, complete end.  Header-only. */
#pragma once

#include "tracedb.h"
#include "unit-sql.h"

/* A trace NAME in unit_tmpdir made of `sql` alone (after the run's start), sealed; g_free(). */
static inline char *unit_crafted_trace(const char *name, const char *sql, int64_t end_ns)
{
    char *p = unit_path(name);
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    static const char args[] = "make";
    struct tracedb_run_start s = {.argv = args, .argv_len = sizeof args, .cwd = "/w",
                                  .start_realtime_ns = 1700000000000000000, .start_ns = 100,
                                  .hostname = "h", .version = "t"};
    g_assert_cmpint(tracedb_write_run_start(db, &s, NULL), ==, 0);
    g_assert_cmpint(tracedb_exec(db, sql, NULL), ==, 0);
    struct tracedb_run_end e = {.end_ns = end_ns, .exit_status = 0,
                                .state = TRACEDB_RUN_FINISHED, .root_process_id = 1, .notes = "",
                                .process_tree = "complete"};
    g_assert_cmpint(tracedb_write_run_end(db, &e, NULL), ==, 0);
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
    return p;
}
