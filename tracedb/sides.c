/* sides — what tracedb_open_readonly checks and does about a trace's SQLite side files before
 * it opens the trace (tracedb-internal.h has the contract). */
#include "longpath.h"
#include "tracedb-internal.h"
#include "tracedb.h"

#include <errno.h>
#include <glib.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const tdb_side_suffixes[TDB_N_SIDES] = {"-wal", "-shm", "-journal"};

int tdb_sides_regular(const char *path, char **err_detail)
{
    g_autofree char *real = realpath(path, NULL); /* where SQLite looks: beside the target */
    for (size_t i = 0; i < TDB_N_SIDES; i++) {
        g_autofree char *side = g_strconcat(real ? real : path, tdb_side_suffixes[i], NULL);
        struct stat st;
        if (lstat(side, &st) == 0 && !S_ISREG(st.st_mode))
            return tdb_set_err(err_detail, -EIO, g_strdup_printf(
                "%s beside it is %s, not SQLite's %s file, which reading the trace would open; "
                "remove or rename it", side, tracedb_file_kind(st.st_mode),
                tdb_side_suffixes[i] + 1));
    }
    return 0;
}

char *tdb_roll_back_hot_journal(const char *path, const struct stat *trace_st)
{
    g_autofree char *real = realpath(path, NULL);
    const char *at = real ? real : path;
    g_autofree char *j = g_strconcat(at, "-journal", NULL);
    struct stat st;
    if (lstat(j, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
        st.st_uid != geteuid() || trace_st->st_uid != geteuid())
        return NULL;
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(at, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, LONGPATH_VFS);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
    }
    g_autofree char *msg = g_strdup(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    g_autofree char *dir = g_path_get_dirname(at);
    if (access(dir, W_OK) < 0) /* SQLite removes the journal there once it is rolled back */
        return g_strdup_printf("rolling that write back needs its directory %s writable, to "
                               "remove the journal: make it writable (or copy the trace and "
                               "its -journal elsewhere) and read it again", dir);
    return rc == SQLITE_OK ? NULL
                           : g_strdup_printf("rolling that write back failed (%s)", msg);
}
