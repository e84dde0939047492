/* sides — what tracedb_open_readonly checks and does about a trace's SQLite side files before
 * it opens the trace (tracedb-internal.h has the contract). */
#include "longpath.h"
#include "tracedb-internal.h"
#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const tdb_side_suffixes[TDB_N_SIDES] = {"-wal", "-shm", "-journal"};

/* Magic numbers of SQLite's side files: a WAL starts with 0x377f0682 or 0x377f0683 (big
 * endian), a rollback journal with d9 d5 05 f9 20 a1 63 d7 (or zeros once committed).  `h`
 * holds the first `n` (up to 8) bytes of the side file `suffix`. */
static bool head_is_sqlites(const unsigned char *h, ssize_t n, const char *suffix)
{
    if (n == 0 || !strcmp(suffix, "-shm")) /* the WAL index has no magic of its own */
        return true;
    if (!strcmp(suffix, "-wal"))
        return n >= 4 && h[0] == 0x37 && h[1] == 0x7f && h[2] == 0x06 && (h[3] & 0xfe) == 0x82;
    static const unsigned char journal[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
    static const unsigned char zeros[8] = {0};
    return n == 8 && (!memcmp(h, journal, 8) || !memcmp(h, zeros, 8));
}

/* The first bytes of the open file `fd` into h[8]: how many, or -1 when it is not a regular
 * file or cannot be read. */
static ssize_t fd_head8(int fd, unsigned char *h)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? pread(fd, h, 8, 0) : -1;
}

bool tdb_sibling_is_sqlites(int dfd, const char *name, const char *suffix)
{
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return false;
    unsigned char h[8] = {0};
    ssize_t n = fd_head8(fd, h);
    close(fd);
    return n >= 0 && head_is_sqlites(h, n, suffix);
}

int tdb_sides_regular(const char *path, char **err_detail)
{
    for (size_t i = 0; i < TDB_N_SIDES; i++) {
        const char *suffix = tdb_side_suffixes[i];
        g_autofree char *side = g_strconcat(path, suffix, NULL);
        struct stat st;
        if (lstat(side, &st) < 0)
            continue;
        if (!S_ISREG(st.st_mode))
            return tdb_set_err(err_detail, -EIO, g_strdup_printf(
                "%s beside it is %s, not SQLite's %s file, which reading the trace would open; "
                "remove or rename it", side, tracedb_file_kind(st.st_mode), suffix + 1));
        /* The -shm has no magic, and is not opened: closing a descriptor of it would drop
         * this process's SQLite locks there (a trace open twice).  One it cannot read, SQLite
         * cannot either, and says so. */
        if (!strcmp(suffix, "-shm"))
            continue;
        int fd = open(side, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        unsigned char h[8] = {0};
        ssize_t n = fd < 0 ? 0 : fd_head8(fd, h);
        if (fd >= 0)
            close(fd);
        if (n >= 0 && !head_is_sqlites(h, n, suffix))
            return tdb_set_err(err_detail, -EIO, g_strdup_printf(
                "%s beside it does not begin as SQLite's %s file does, and SQLite would take it "
                "for the trace's own (and may remove it); move it away", side, suffix + 1));
    }
    return 0;
}

char *tdb_roll_back_hot_journal(const char *path, const struct stat *trace_st)
{
    g_autofree char *j = g_strconcat(path, "-journal", NULL);
    struct stat st;
    if (lstat(j, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0 ||
        st.st_uid != geteuid() || trace_st->st_uid != geteuid())
        return NULL;
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, LONGPATH_VFS);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
    }
    g_autofree char *msg = g_strdup(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    g_autofree char *dir = g_path_get_dirname(path);
    if (access(dir, W_OK) < 0) /* SQLite removes the journal there once it is rolled back */
        return g_strdup_printf("rolling that write back needs its directory %s writable, to "
                               "remove the journal: make it writable (or copy the trace and "
                               "its -journal elsewhere) and read it again", dir);
    return rc == SQLITE_OK ? NULL
                           : g_strdup_printf("rolling that write back failed (%s)", msg);
}
