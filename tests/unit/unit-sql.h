/* unit-sql — helpers for the unit tests that make trace databases: a private directory for
 * them, and the number a query gives.  Header-only. */
#pragma once

#include <glib.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>

/* The test program's private directory, made by unit_run() (NULL before it runs). */
static char *unit_tmpdir;

/* NAME in unit_tmpdir; g_free() it. */
static inline char *unit_path(const char *name)
{
    return g_build_filename(unit_tmpdir, name, NULL);
}

/* g_test_run() in a fresh unit_tmpdir, removed afterwards; its result, or 1 if the directory
 * could not be removed. */
static inline int unit_run(void)
{
    unit_tmpdir = g_dir_make_tmp("bt-unit-XXXXXX", NULL);
    g_assert_nonnull(unit_tmpdir);
    int r = g_test_run();
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", unit_tmpdir);
    if (system(cmd) != 0 && r == 0)
        r = 1;
    return r;
}

/* The first column of the first row `sql` gives (-1 when it gives no row); `sql` must prepare. */
static inline int64_t unit_sql_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    g_assert_cmpint(sqlite3_prepare_v2(db, sql, -1, &st, NULL), ==, SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}
