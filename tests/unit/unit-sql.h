/* unit-sql — one helper for the unit tests that look into a trace database.  Header-only. */
#pragma once

#include <glib.h>
#include <sqlite3.h>
#include <stdint.h>

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
