/* tracedb — see tracedb.h for the contract.  This file: telling a trace from other files,
 * creating and publishing one, opening one read-only, the run rows; the schema itself and its
 * check are schema.c's (tracedb-internal.h). */
#include "tracedb.h"

#include "longpath.h"
#include "queries.h"
#include "tracedb-internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int tracedb_exec(sqlite3 *db, const char *sql, char **err_detail)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        if (err_detail)
            *err_detail = g_strdup(msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -EIO;
    }
    return 0;
}

static const char sqlite_magic[16] = "SQLite format 3";

/* What the open file `fd` starts with: HEAD_EMPTY, HEAD_SQLITE (SQLite's magic), HEAD_OTHER,
 * or -errno. */
enum { HEAD_EMPTY, HEAD_SQLITE, HEAD_OTHER };

static int fd_head(int fd)
{
    char head[16];
    ssize_t n = pread(fd, head, sizeof head, 0);
    if (n < 0)
        return -errno;
    if (n == 0)
        return HEAD_EMPTY;
    return n == 16 && memcmp(head, sqlite_magic, 16) == 0 ? HEAD_SQLITE : HEAD_OTHER;
}

/* The value of `key` in the meta table of the SQLite file at `path` (g_free it), or NULL when
 * it cannot be read.  Waits up to `busy_ms` for a recorder that holds the file a moment. */
static char *meta_value(const char *path, const char *key, int busy_ms)
{
    sqlite3 *db = NULL;
    char *value = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, LONGPATH_VFS) == SQLITE_OK) {
        sqlite3_busy_timeout(db, busy_ms);
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, TRACEDB_VALUE_MAX);
        sqlite3_stmt *st = NULL;
        /* A meta that is not buildtrail's table (a view could run forever) is not a trace's. */
        bool is_table = tdb_check_meta(db, NULL) == 0;
        if (is_table && sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key=?", -1, &st, NULL) ==
            SQLITE_OK) {
            sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
            const unsigned char *v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_text(st, 0)
                                                                    : NULL;
            value = v ? g_strdup((const char *)v) : NULL;
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return value;
}

/* Is the open file `fd` (a regular file) a buildtrail trace or empty?  1 yes, 0 no, <0 errno.
 * `path` names the same file, for SQLite. */
static int fd_is_trace(int fd, const char *path)
{
    int head = fd_head(fd);
    if (head != HEAD_SQLITE)
        return head < 0 ? head : head == HEAD_EMPTY;
    g_autofree char *format = meta_value(path, "format", 5000);
    return format && !strcmp(format, "buildtrail");
}

const char *tracedb_file_kind(mode_t mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFLNK: return "a symbolic link";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    default: return "not a regular file";
    }
}

/* 1: a buildtrail trace or an empty regular file; 0: something else; <0: errno.  Never blocks
 * (a FIFO or a device is "something else" without being opened) and never follows a link. */
int tracedb_is_trace(const char *path)
{
    longpath_register();
    struct stat st;
    if (lstat(path, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct stat fst;
    int r = fstat(fd, &fst) < 0 ? -errno : !S_ISREG(fst.st_mode) ? 0 : fd_is_trace(fd, path);
    close(fd);
    return r;
}

int tracedb_is_recording(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    int r = 0;
    if (flock(fd, LOCK_SH | LOCK_NB) < 0)
        r = errno == EWOULDBLOCK ? 1 : -errno;
    close(fd);
    return r;
}

int tdb_set_err(char **err_detail, int e, char *msg)
{
    if (err_detail)
        *err_detail = msg;
    else
        g_free(msg);
    return e;
}

/* Why SQLite failed on `db`, as an errno and a sentence: the system's errno when there is one
 * (ENOSPC says "No space left on device", not "database or disk is full"). */
static int sqlite_failure(sqlite3 *db, int rc, char **err_detail)
{
    int sys = db ? sqlite3_system_errno(db) : 0;
    if ((rc & 0xff) == SQLITE_FULL && !sys)
        sys = ENOSPC;
    if (sys)
        return tdb_set_err(err_detail, -sys, g_strdup(g_strerror(sys)));
    return tdb_set_err(err_detail, -EIO, g_strdup(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
}

/* Under the directory lock: may the file `base` in `dfd` (and its SQLite side files) be
 * replaced?  0 yes (nothing there, an empty regular file, or a trace no run holds), or -errno
 * with the reason.  The side files are checked before SQLite opens the trace: SQLite would take
 * a foreign -journal for a hot journal of the trace. */
static int check_replaceable(int dfd, const char *dpath, const char *base, char **err_detail)
{
    struct stat st;
    bool exists = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!exists && errno != ENOENT)
        return tdb_set_err(err_detail, -errno, g_strdup(g_strerror(errno)));
    if (exists && !S_ISREG(st.st_mode))
        return tdb_set_err(err_detail, -EEXIST, g_strdup_printf("it is %s, not a buildtrail trace",
                                                            tracedb_file_kind(st.st_mode)));
    int fd = -1;
    if (exists && st.st_size > 0) {
        fd = openat(dfd, base, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        int head = fd < 0 ? -errno : fd_head(fd);
        if (head != HEAD_SQLITE) {
            if (fd >= 0)
                close(fd);
            return head < 0 ? tdb_set_err(err_detail, head, g_strdup(g_strerror(-head)))
                            : tdb_set_err(err_detail, -EEXIST,
                                      g_strdup("it exists and is not a buildtrail trace"));
        }
    }
    for (size_t i = 0; i < G_N_ELEMENTS(tdb_side_suffixes); i++) {
        g_autofree char *name = g_strconcat(base, tdb_side_suffixes[i], NULL);
        struct stat ss;
        int e = 0;
        if (fstatat(dfd, name, &ss, AT_SYMLINK_NOFOLLOW) < 0) {
            if (errno == ENOENT)
                continue;
            e = tdb_set_err(err_detail, -errno, g_strdup_printf("%s: %s", name, g_strerror(errno)));
        } else if (fd < 0 || !tdb_sibling_is_sqlites(dfd, name, tdb_side_suffixes[i])) {
            e = tdb_set_err(err_detail, -EEXIST,
                        g_strdup_printf("%s exists beside it and is not that trace's own file; "
                                        "move it away", name));
        }
        if (e) {
            if (fd >= 0)
                close(fd);
            return e;
        }
    }
    if (fd < 0)
        return 0; /* nothing there, or an empty regular file */
    g_autofree char *p = g_build_filename(dpath, base, NULL);
    int r = fd_is_trace(fd, p);
    /* Held: by a recorder, or for a moment by a query checking for one (a few tries). */
    bool busy = false;
    for (int tries = 0; r == 1 && tries < 5; tries++) {
        busy = flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
        if (!busy)
            break;
        g_usleep(20000);
    }
    close(fd);
    if (r < 0)
        return tdb_set_err(err_detail, r, g_strdup(g_strerror(-r)));
    if (r == 0)
        return tdb_set_err(err_detail, -EEXIST, g_strdup("it exists and is not a buildtrail trace"));
    if (busy) {
        g_autofree char *pid = meta_value(p, "recorder_pid", 1000);
        return tdb_set_err(err_detail, -EBUSY,
                       pid ? g_strdup_printf("another buildtrail run (pid %s) is recording it", pid)
                           : g_strdup("another buildtrail run is recording it"));
    }
    return 0;
}

/* Take the creation lock of directory `dfd`: creating a trace takes a moment, and two runs
 * creating one in the same directory must take turns.  Waits up to 10 s.  0 or -errno. */
static int lock_directory(int dfd)
{
    for (int i = 0; i < 200; i++) {
        if (flock(dfd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return -errno;
        g_usleep(50000);
    }
    return -EWOULDBLOCK;
}

/* Make the schema in the new, empty file at `path`. */
static int init_schema(const char *path, char **err_detail)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW,
                             LONGPATH_VFS);
    if (rc != SQLITE_OK) {
        int e = sqlite_failure(db, rc, err_detail);
        sqlite3_close(db);
        return e;
    }
    /* 1 KiB pages: a trace has ~20 tables and indexes and each takes at least one page, which
     * at 4 KiB made a small build's trace a third empty pages (lz4: 256 -> 184 bytes per
     * access); a million-access trace is 3% larger and queries as fast (performance.md). */
    GString *sql = g_string_new("PRAGMA page_size=1024; BEGIN;"
                                META_SCHEMA
                                "INSERT INTO meta VALUES ('format', 'buildtrail');");
    tdb_append_migrations(sql, TRACEDB_SCHEMA_VERSION);
    g_string_append_printf(sql, "INSERT INTO meta VALUES ('schema_version', '%d');"
                                "INSERT INTO meta VALUES ('recorder_pid', '%ld');",
                           TRACEDB_SCHEMA_VERSION, (long)getpid());
    for (int k = 1; k <= TRACEDB_ACCESS_KIND_MAX; k++)
        g_string_append_printf(sql, "INSERT INTO access_kinds VALUES (%d, '%s');", k,
                               tracedb_access_kind_name(k));
    /* WAL now, while the file is still under its temporary name: switching a trace's journal
     * mode is a write, and one made after publishing (as it was) left a hot rollback journal
     * beside the trace in place when the run was killed at that moment, which no read-only
     * reader can roll back. */
    g_string_append(sql, "COMMIT; PRAGMA journal_mode=WAL;");
    char *msg = NULL;
    rc = sqlite3_exec(db, sql->str, NULL, NULL, &msg);
    g_string_free(sql, TRUE);
    sqlite3_free(msg);
    int e = rc == SQLITE_OK ? 0 : sqlite_failure(db, rc, err_detail);
    if (sqlite3_close(db) != SQLITE_OK && !e)
        e = tdb_set_err(err_detail, -EIO, g_strdup("cannot close the new trace"));
    return e;
}

/* Open directory `dpath` and take its creation lock (lock_directory): the fd, or -errno. */
static int open_locked_dir(const char *dpath, char **err_detail)
{
    int dfd = open(dpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0 && errno == EACCES) /* searchable but not readable: no lock, still safe */
        dfd = open(dpath, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return tdb_set_err(err_detail, -errno, g_strdup_printf("its directory %s: %s", dpath,
                                                           g_strerror(errno)));
    int r = lock_directory(dfd);
    if (r == -EBADF) /* an O_PATH descriptor cannot be locked */
        r = 0;
    if (r < 0) {
        close(dfd);
        return tdb_set_err(err_detail, r, g_strdup_printf("cannot lock its directory: %s",
                                                      g_strerror(-r)));
    }
    return dfd;
}

/* The prefix of the temporary names of new traces for `base`: ".buildtrail-new-HASH-" (FNV-1a,
 * 64 bits, of the name), so that a run can see that another is about to publish the same
 * trace. */
#define PENDING_PREFIX ".buildtrail-new-"
static char *pending_prefix(const char *base)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *c = (const unsigned char *)base; *c; c++)
        h = (h ^ *c) * 0x100000001b3ULL;
    return g_strdup_printf(PENDING_PREFIX "%016llx-", (unsigned long long)h);
}

/* Under the directory lock: the new traces of other runs in `dfd`.  One still being made for
 * `base` (its file flock()ed) is -EBUSY; one whose run was killed before publishing it (ours,
 * a regular SQLite or empty file, no lock holder) is removed with its side files.  0 or -errno. */
static int check_pending(int dfd, const char *dpath, const char *base, char **err_detail)
{
    int lfd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lfd < 0)
        return 0; /* not listable (searchable only): nothing to reclaim that we could see */
    DIR *d = fdopendir(lfd);
    if (!d) {
        close(lfd);
        return 0;
    }
    g_autofree char *mine = pending_prefix(base);
    int r = 0;
    struct dirent *de;
    while (r == 0 && (de = readdir(d))) {
        const char *n = de->d_name;
        if (strncmp(n, PENDING_PREFIX, strlen(PENDING_PREFIX)) || !g_str_has_suffix(n, ".db"))
            continue;
        int fd = openat(dfd, n, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        if (fd < 0)
            continue;
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            continue;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
            if (errno == EWOULDBLOCK && !strncmp(n, mine, strlen(mine))) {
                g_autofree char *tp = g_build_filename(dpath, n, NULL);
                g_autofree char *pid = meta_value(tp, "recorder_pid", 1000);
                r = tdb_set_err(err_detail, -EBUSY,
                            pid ? g_strdup_printf("another buildtrail run (pid %s) is recording it "
                                                  "(its build is starting)", pid)
                                : g_strdup("another buildtrail run is recording it (its build "
                                           "is starting)"));
            }
        } else if (st.st_uid == geteuid() && fd_head(fd) != HEAD_OTHER) {
            for (size_t i = 0; i < G_N_ELEMENTS(tdb_side_suffixes); i++) {
                g_autofree char *side = g_strconcat(n, tdb_side_suffixes[i], NULL);
                if (tdb_sibling_is_sqlites(dfd, side, tdb_side_suffixes[i]))
                    unlinkat(dfd, side, 0);
            }
            unlinkat(dfd, n, 0);
        }
        close(fd);
    }
    closedir(d);
    return r;
}

int tracedb_create_pending(const char *path, mode_t mode, struct tracedb_pending *p,
                           sqlite3 **out, char **err_detail)
{
    *p = (struct tracedb_pending){.lock_fd = -1};
    if (longpath_register() < 0)
        return tdb_set_err(err_detail, -ENOSYS, g_strdup("SQLite has no Unix VFS"));
    g_autofree char *dpath = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    if (!strcmp(base, "/") || !strcmp(base, ".") || !strcmp(base, ".."))
        return tdb_set_err(err_detail, -EISDIR, g_strdup("it is a directory"));
    int dfd = open_locked_dir(dpath, err_detail);
    if (dfd < 0)
        return dfd;
    int r = check_replaceable(dfd, dpath, base, err_detail);
    if (r == 0)
        r = check_pending(dfd, dpath, base, err_detail);
    if (r < 0) {
        close(dfd);
        return r;
    }

    /* Build the new trace under a temporary name: `path` stays the old trace until the caller
     * publishes the new one. */
    g_autofree char *prefix = pending_prefix(base);
    g_autofree char *tmp_name = NULL;
    int tfd = -1;
    for (int tries = 0; tfd < 0 && tries < 100; tries++) {
        g_free(tmp_name);
        tmp_name = g_strdup_printf("%s%08x.db", prefix, g_random_int());
        tfd = openat(dfd, tmp_name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
        if (tfd < 0 && errno != EEXIST)
            break;
    }
    if (tfd < 0) {
        int e = errno;
        close(dfd);
        return tdb_set_err(err_detail, -e, g_strdup(g_strerror(e)));
    }
    g_autofree char *tmp_path = g_build_filename(dpath, tmp_name, NULL);
    if (fchmod(tfd, mode) < 0) /* exactly `mode`, whatever the umask */
        r = tdb_set_err(err_detail, -errno, g_strdup(g_strerror(errno)));
    else if (flock(tfd, LOCK_EX | LOCK_NB) < 0)
        r = tdb_set_err(err_detail, -errno, g_strdup(g_strerror(errno)));
    else
        r = init_schema(tmp_path, err_detail);
    close(dfd); /* the directory lock: the new trace is complete and tfd holds its own lock */
    sqlite3 *db = NULL;
    if (r == 0) {
        int rc = sqlite3_open_v2(tmp_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW,
                                 LONGPATH_VFS);
        if (rc != SQLITE_OK) {
            r = sqlite_failure(db, rc, err_detail);
            sqlite3_close(db);
            db = NULL;
        } else {
            /* another run checking who holds it reads its meta a moment (check_pending) */
            sqlite3_busy_timeout(db, 5000);
        }
    }
    p->path = g_strdup(path);
    p->tmp_path = g_steal_pointer(&tmp_path);
    p->lock_fd = tfd;
    if (r < 0) {
        tracedb_pending_discard(p);
        return r;
    }
    *out = db;
    return 0;
}

void tracedb_pending_discard(struct tracedb_pending *p)
{
    if (p->tmp_path)
        tracedb_discard(p->tmp_path);
    if (p->lock_fd >= 0)
        close(p->lock_fd);
    g_clear_pointer(&p->path, g_free);
    g_clear_pointer(&p->tmp_path, g_free);
    p->lock_fd = -1;
}

/* What the trace at `path` recorded (its first run), into *old. */
static void describe_old(const char *path, struct tracedb_replaced *old)
{
    old->exit_status = -1;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, LONGPATH_VFS) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 1000);
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, TRACEDB_VALUE_MAX);
        sqlite3_stmt *st = NULL;
        if (tdb_check_meta(db, NULL) == 0 &&
            sqlite3_prepare_v2(db, "SELECT argv, start_realtime_ns, state, exit_status FROM runs "
                                   "ORDER BY id LIMIT 1", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW) {
            int n = sqlite3_column_bytes(st, 0);
            const void *a = sqlite3_column_blob(st, 0);
            if (a && n > 0) {
                old->argv = g_memdup2(a, (gsize)n);
                old->argv_len = (size_t)n;
            }
            old->start_realtime_ns = sqlite3_column_int64(st, 1);
            const unsigned char *state = sqlite3_column_text(st, 2);
            old->state = state ? g_strdup((const char *)state) : NULL;
            old->exit_status = sqlite3_column_type(st, 3) == SQLITE_NULL
                                   ? -1 : sqlite3_column_int(st, 3);
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
}

void tracedb_replaced_clear(struct tracedb_replaced *old)
{
    g_free(old->argv);
    g_free(old->state);
    *old = (struct tracedb_replaced){0};
}

/* Open the trace at `path` for recording: WAL (a query while the build runs never blocks the
 * recorder), synchronous=NORMAL (a committed batch survives a crash of buildtrail, not of the
 * kernel).  0 or -errno. */
static int open_recording(const char *path, sqlite3 **out, char **err_detail)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW,
                             LONGPATH_VFS);
    g_autofree char *err = NULL;
    int r = 0;
    if (rc != SQLITE_OK)
        r = sqlite_failure(db, rc, err_detail);
    else if (tracedb_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                              "PRAGMA foreign_keys=OFF;"
                              /* a first read opens the WAL in this connection, which then
                               * owns its removal when the trace is sealed */
                              "SELECT count(*) FROM meta;", &err) < 0)
        r = sqlite_failure(db, sqlite3_extended_errcode(db), err_detail);
    if (r < 0) {
        sqlite3_close(db);
        return r;
    }
    *out = db;
    return 0;
}

/* Remove the SQLite side files of `base` in `dfd`, if any. */
static void remove_sides(int dfd, const char *base)
{
    for (size_t i = 0; i < G_N_ELEMENTS(tdb_side_suffixes); i++) {
        g_autofree char *name = g_strconcat(base, tdb_side_suffixes[i], NULL);
        unlinkat(dfd, name, 0);
    }
}

/* Rename the SQLite side files of `from` in `dfd` to those of `to` (those that exist).
 * 0 or -errno (the ones moved before the failure are moved back). */
static int move_sides(int dfd, const char *from, const char *to, char **err_detail)
{
    for (size_t i = 0; i < G_N_ELEMENTS(tdb_side_suffixes); i++) {
        g_autofree char *a = g_strconcat(from, tdb_side_suffixes[i], NULL);
        g_autofree char *b = g_strconcat(to, tdb_side_suffixes[i], NULL);
        if (renameat(dfd, a, dfd, b) == 0 || errno == ENOENT)
            continue;
        int e = tdb_set_err(err_detail, -errno,
                            g_strdup_printf("cannot replace %s: %s", a, g_strerror(errno)));
        while (i-- > 0) {
            g_autofree char *ba = g_strconcat(from, tdb_side_suffixes[i], NULL);
            g_autofree char *bb = g_strconcat(to, tdb_side_suffixes[i], NULL);
            renameat(dfd, bb, dfd, ba);
        }
        return e;
    }
    return 0;
}

/* The pending trace is WAL (init_schema) and its writer's connection closed: a close that could
 * not checkpoint (another run reading the trace just then to see who holds it: check_pending)
 * left rows in the -wal beside the temporary name, which the swap leaves behind.  They go into
 * the file first.  0, or -errno with the sentence. */
static int checkpoint_pending(const char *tmp_path, char **err_detail)
{
    g_autofree char *wal = g_strconcat(tmp_path, "-wal", NULL);
    struct stat st;
    if (lstat(wal, &st) < 0 || st.st_size == 0)
        return 0;
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_open_v2(tmp_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW,
                             LONGPATH_VFS);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_prepare_v2(db, "PRAGMA wal_checkpoint(TRUNCATE)", -1, &q, NULL);
    }
    if (rc == SQLITE_OK) /* its first column says whether a reader kept it from finishing */
        rc = sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int(q, 0) == 0 ? SQLITE_OK
                                                                           : SQLITE_BUSY;
    sqlite3_finalize(q);
    int r = rc == SQLITE_OK ? 0 : sqlite_failure(db, rc, err_detail);
    sqlite3_close(db);
    return r;
}

int tracedb_publish(struct tracedb_pending *p, sqlite3 **out, struct tracedb_replaced *old,
                    char **err_detail)
{
    if (old)
        *old = (struct tracedb_replaced){0};
    g_autofree char *dpath = g_path_get_dirname(p->path);
    g_autofree char *base = g_path_get_basename(p->path);
    g_autofree char *tmp_name = g_path_get_basename(p->tmp_path);
    int r = checkpoint_pending(p->tmp_path, err_detail);
    if (r < 0)
        return r;
    int dfd = open_locked_dir(dpath, err_detail);
    if (dfd < 0)
        return dfd;
    /* What is there may have changed since the new trace was begun. */
    r = check_replaceable(dfd, dpath, base, err_detail);
    struct stat st;
    bool exists = r == 0 && fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (exists && old) {
        old->existed = true;
        if (st.st_size == 0)
            old->empty = true;
        else
            describe_old(p->path, old);
    }
    /* The old trace's side files go with it, to the temporary name it takes in the swap: a
     * -wal a killed run left holds rows not yet in the trace file, so removing it before the
     * swap would lose them if the old trace has to come back; and it must not stay beside the
     * new trace, which SQLite would take it for. */
    if (r == 0) {
        remove_sides(dfd, tmp_name); /* ours, if a failed step left any */
        r = move_sides(dfd, base, tmp_name, err_detail);
    }
    /* Swap the two (the old one then under the temporary name) where the filesystem can, so
     * that the old trace is back in place if the new one cannot be opened; else rename. */
    bool swapped = false, moved = r == 0;
    if (r == 0) {
        if (exists && renameat2(dfd, tmp_name, dfd, base, RENAME_EXCHANGE) == 0)
            swapped = true;
        else if (renameat2(dfd, tmp_name, dfd, base, exists ? 0 : RENAME_NOREPLACE) < 0 &&
                 !(errno == EINVAL && !exists && renameat(dfd, tmp_name, dfd, base) == 0))
            r = tdb_set_err(err_detail, -errno, g_strdup(g_strerror(errno)));
        if (r < 0) /* nothing was swapped: the side files back beside their trace */
            move_sides(dfd, tmp_name, base, NULL);
    }
    if (r == 0 && p->drop_lock) { /* before SQLite opens it: see tracedb_create */
        close(p->lock_fd);
        p->lock_fd = -1;
    }
    if (r == 0) {
        r = open_recording(p->path, out, err_detail);
        if (r < 0) /* what the failed open made beside it is the new trace's */
            remove_sides(dfd, base);
        if (r < 0 && swapped && renameat2(dfd, tmp_name, dfd, base, RENAME_EXCHANGE) == 0) {
            /* the old trace is back, with its side files; the new one is at the temporary
             * name again */
            move_sides(dfd, tmp_name, base, NULL);
            if (old)
                tracedb_replaced_clear(old);
        } else if (r < 0) {
            /* It is ours and holds nothing of a build: leave nothing behind. */
            tracedb_discard(p->path);
            if (old)
                tracedb_replaced_clear(old);
            g_clear_pointer(&p->tmp_path, g_free);
        } else {
            if (swapped)
                unlinkat(dfd, tmp_name, 0); /* the old trace */
            g_clear_pointer(&p->tmp_path, g_free);
        }
        if (!(r < 0 && swapped)) /* the replaced trace's side files, its trace gone */
            remove_sides(dfd, tmp_name);
    } else if (moved) {
        remove_sides(dfd, tmp_name);
    }
    close(dfd);
    return r;
}

int tracedb_create(const char *path, mode_t mode, sqlite3 **out, int *lock_fd, char **err_detail)
{
    struct tracedb_pending p;
    sqlite3 *db = NULL;
    int r = tracedb_create_pending(path, mode, &p, &db, err_detail);
    if (r < 0)
        return r;
    sqlite3_close(db);
    p.drop_lock = !lock_fd;
    r = tracedb_publish(&p, out, NULL, err_detail);
    if (r < 0) {
        tracedb_pending_discard(&p);
        return r;
    }
    if (lock_fd)
        *lock_fd = p.lock_fd;
    p.lock_fd = -1;
    tracedb_pending_discard(&p);
    return 0;
}

bool tracedb_path_below(const char *dir, const char *path)
{
    size_t n = dir ? strlen(dir) : 0;
    return n > 1 && dir[0] == '/' && !strncmp(path, dir, n) && path[n] == '/';
}

int tracedb_removal_blocked(sqlite3 *db, const char *trace_path, char **dir, char **err)
{
    *dir = NULL;
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, tracedb_sql(TQ_FAILED_RMDIRS), -1, &st, NULL);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *d = (const char *)sqlite3_column_text(st, 0);
        /* shortest first: the highest directory whose removal the trace stopped */
        if (tracedb_path_below(d, trace_path)) {
            *dir = g_strdup(d);
            rc = SQLITE_DONE;
            break;
        }
        rc = SQLITE_OK;
    }
    if (rc != SQLITE_DONE) {
        if (err)
            *err = g_strdup(sqlite3_errmsg(db));
        sqlite3_finalize(st);
        return -EIO;
    }
    sqlite3_finalize(st);
    return 0;
}

void tracedb_discard(const char *path)
{
    unlink(path);
    for (size_t i = 0; i < G_N_ELEMENTS(tdb_side_suffixes); i++) {
        g_autofree char *p = g_strconcat(path, tdb_side_suffixes[i], NULL);
        unlink(p);
    }
}

bool tracedb_rc_is_damage(int rc)
{
    int primary = rc & 0xff;
    return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB || primary == SQLITE_FORMAT ||
           rc == SQLITE_IOERR_SHORT_READ;
}

int tracedb_open_readonly(const char *path, sqlite3 **out, char **err_detail)
{
    longpath_register();
    struct stat st;
    if (stat(path, &st) < 0)
        return tdb_set_err(err_detail, -errno, g_strdup(g_strerror(errno)));
    if (!S_ISREG(st.st_mode))
        return tdb_set_err(err_detail, -EINVAL,
                       g_strdup_printf("not a buildtrail trace (%s)", tracedb_file_kind(st.st_mode)));
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return tdb_set_err(err_detail, -errno, g_strdup(g_strerror(errno)));
    int head = fd_head(fd);
    close(fd);
    if (head < 0)
        return tdb_set_err(err_detail, head, g_strdup(g_strerror(-head)));
    if (head == HEAD_EMPTY)
        return tdb_set_err(err_detail, -EINVAL, g_strdup("not a buildtrail trace (an empty file)"));
    if (head != HEAD_SQLITE)
        return tdb_set_err(err_detail, -EINVAL, g_strdup("not a buildtrail trace"));
    g_autofree char *real = realpath(path, NULL); /* where SQLite looks for the side files */
    int sides = tdb_sides_regular(real ? real : path, err_detail);
    if (sides < 0)
        return sides;
    g_autofree char *not_rolled_back = tdb_roll_back_hot_journal(real ? real : path, &st);

    sqlite3 *db = NULL;
    /* One thread per handle (see the contract): no SQLite mutexes. */
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, LONGPATH_VFS);
    if (rc != SQLITE_OK) {
        char *msg = g_strdup(db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return tdb_set_err(err_detail, tracedb_rc_is_damage(rc) ? -EBADMSG : -EIO, msg);
    }
    sqlite3_busy_timeout(db, 5000);
    /* No value the recorder writes is longer (a longer one is refused as damage, not loaded). */
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH, TRACEDB_VALUE_MAX);
    /* meta tells ours from other SQLite files; an error reading it (not "no such table") is
     * damage to a file that has SQLite's magic.  It must be a table before it is read: a view
     * there could run forever. */
    g_autofree char *format = NULL;
    int version = -1;
    sqlite3_stmt *q = NULL;
    {
        char *why = NULL;
        int e = tdb_check_meta(db, &why);
        if (e < 0 && (sqlite3_extended_errcode(db) & 0xff) == SQLITE_READONLY) {
            sqlite3_close(db);
            g_free(why);
            return tdb_set_err(err_detail, -EIO, g_strdup_printf(
                "a run writing it was killed mid-write (%s-journal beside it); %s", path,
                not_rolled_back ? not_rolled_back
                                : "only its owner can read it, which rolls that write back"));
        }
        if (e < 0) {
            sqlite3_close(db);
            if (g_str_has_prefix(why, "it has no table")) {
                g_free(why);
                return tdb_set_err(err_detail, -EINVAL, g_strdup("not a buildtrail trace (an SQLite "
                                                             "database of something else)"));
            }
            return tdb_set_err(err_detail, e, why);
        }
    }
    rc = sqlite3_prepare_v2(db, "SELECT key, value FROM meta WHERE key IN ('format','schema_version')",
                            -1, &q, NULL);
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
            const char *k = (const char *)sqlite3_column_text(q, 0);
            const char *v = (const char *)sqlite3_column_text(q, 1);
            if (k && v && !strcmp(k, "format"))
                format = g_strdup(v);
            else if (k && v && !strcmp(k, "schema_version"))
                version = atoi(v);
        }
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
    }
    sqlite3_finalize(q);
    int r = 0;
    char *msg = NULL;
    if (rc != SQLITE_OK) {
        bool no_meta = (rc & 0xff) == SQLITE_ERROR && strstr(sqlite3_errmsg(db), "no such table");
        if (no_meta) {
            r = -EINVAL;
            msg = g_strdup("not a buildtrail trace (an SQLite database of something else)");
        } else {
            r = tracedb_rc_is_damage(rc) || (rc & 0xff) == SQLITE_ERROR ? -EBADMSG : -EIO;
            msg = g_strdup(sqlite3_errmsg(db));
        }
    } else if (!format || strcmp(format, "buildtrail")) {
        r = -EINVAL;
        msg = g_strdup("not a buildtrail trace");
    } else if (version < 1) {
        r = -EBADMSG;
        msg = g_strdup("it has no schema version");
    } else if (version > TRACEDB_SCHEMA_VERSION) {
        r = -EPROTO;
        msg = g_strdup_printf("written by a newer buildtrail (schema %d; this one reads up to %d)",
                              version, TRACEDB_SCHEMA_VERSION);
    } else {
        r = tdb_check_schema(db, version, &msg);
    }
    if (r < 0) {
        sqlite3_close(db);
        return tdb_set_err(err_detail, r, msg);
    }
    *out = db;
    return 0;
}

/* Bind helpers for the writers below: each keeps the first failure in *rc. */
static void bind_text(sqlite3_stmt *st, int i, const char *s, int *rc)
{
    if (*rc == SQLITE_OK)
        *rc = s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static void bind_int64(sqlite3_stmt *st, int i, int64_t v, bool present, int *rc)
{
    if (*rc == SQLITE_OK)
        *rc = present ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
}

/* Step a bound statement to its end and finalize it; *rc keeps the first failure. */
static void step_done(sqlite3_stmt *st, int *rc)
{
    if (*rc == SQLITE_OK && sqlite3_step(st) != SQLITE_DONE)
        *rc = SQLITE_ERROR;
    sqlite3_finalize(st);
}

int tracedb_write_run_start(sqlite3 *db, const struct tracedb_run_start *r, char **err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "INSERT INTO runs (id, argv, cwd, start_realtime_ns, start_ns, "
                                    "state, uid, gid, hostname, version, options) "
                                    "VALUES (1,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_blob(st, 1, r->argv, (int)r->argv_len, SQLITE_TRANSIENT);
    bind_text(st, 2, r->cwd, &rc);
    bind_int64(st, 3, r->start_realtime_ns, true, &rc);
    bind_int64(st, 4, r->start_ns, true, &rc);
    bind_text(st, 5, TRACEDB_RUN_RUNNING, &rc);
    bind_int64(st, 6, r->uid, true, &rc);
    bind_int64(st, 7, r->gid, true, &rc);
    bind_text(st, 8, r->hostname, &rc);
    bind_text(st, 9, r->version, &rc);
    bind_text(st, 10, r->options, &rc);
    step_done(st, &rc);
    for (int i = 0; rc == SQLITE_OK && i < r->n_trees; i++) {
        st = NULL;
        rc = sqlite3_prepare_v2(db, "INSERT INTO trees (run_id, path, role) VALUES (1, ?, ?)", -1,
                                &st, NULL);
        bind_text(st, 1, r->trees[i].path, &rc);
        bind_text(st, 2, r->trees[i].role, &rc);
        step_done(st, &rc);
    }
    for (int i = 0; rc == SQLITE_OK && i < r->n_variations; i++) {
        const struct tracedb_variation *v = &r->variations[i];
        st = NULL;
        rc = sqlite3_prepare_v2(db, "INSERT INTO variations (name, side, value, applied, why_not) "
                                    "VALUES (?, ?, ?, ?, ?)", -1, &st, NULL);
        bind_text(st, 1, v->name, &rc);
        bind_text(st, 2, v->side, &rc);
        bind_text(st, 3, v->value, &rc);
        bind_int64(st, 4, v->applied, true, &rc);
        bind_text(st, 5, v->why_not, &rc);
        step_done(st, &rc);
    }
    if (rc != SQLITE_OK)
        return tdb_set_err(err, -EIO, g_strdup(sqlite3_errmsg(db)));
    return 0;
}

bool tracedb_tree_complete(const char *process_tree)
{
    /* Only what the recorder writes for a whole tree: anything else (garbage included) is
     * not a claim of completeness. */
    return process_tree && (!strcmp(process_tree, "complete") ||
                            g_str_has_prefix(process_tree, "complete, "));
}

char *tracedb_notes_unseen(const char *notes)
{
    /* The first entry when present: never a word inside another entry. */
    if (!notes || strncmp(notes, "unseen=", strlen("unseen=")))
        return NULL;
    const char *at = notes + strlen("unseen=");
    const char *end = strstr(at, "; ");
    return end ? g_strndup(at, (gsize)(end - at)) : g_strdup(at);
}

int tracedb_count(sqlite3 *db, int schema_version, struct tracedb_counts *c, char **err)
{
    *c = (struct tracedb_counts){0};
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, tracedb_sql(schema_version >= 3 ? TQ_COUNTS : TQ_COUNTS_V2),
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            int64_t *out[] = {&c->processes, &c->images, &c->files_read, &c->files_written,
                              &c->versions_written, &c->output_bytes};
            for (int i = 0; i < (int)G_N_ELEMENTS(out); i++)
                *out[i] = sqlite3_column_int64(st, i);
            rc = SQLITE_OK;
        }
    }
    if (rc != SQLITE_OK && err)
        *err = g_strdup(sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
}

int tracedb_write_run_end(sqlite3 *db, const struct tracedb_run_end *r, char **err)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "UPDATE runs SET end_ns=?, exit_status=?, term_signal=?, "
                                    "state=?, root_process_id=?, notes=?, process_tree=?, "
                                    "failure=? WHERE id=1", -1, &st, NULL);
    bind_int64(st, 1, r->end_ns, true, &rc);
    bind_int64(st, 2, r->exit_status, r->exit_status >= 0, &rc);
    bind_int64(st, 3, r->term_signal, r->term_signal > 0, &rc);
    bind_text(st, 4, r->state, &rc);
    bind_int64(st, 5, r->root_process_id, r->root_process_id > 0, &rc);
    bind_text(st, 6, r->notes, &rc);
    bind_text(st, 7, r->process_tree, &rc);
    bind_text(st, 8, r->failure, &rc);
    step_done(st, &rc);
    if (rc != SQLITE_OK)
        return tdb_set_err(err, -EIO, g_strdup(sqlite3_errmsg(db)));
    return 0;
}

int tracedb_seal(sqlite3 *db)
{
    sqlite3_stmt *st = NULL;
    int r = -EIO;
    if (sqlite3_prepare_v2(db, "PRAGMA journal_mode=DELETE", -1, &st, NULL) == SQLITE_OK) {
        int rc = sqlite3_step(st);
        const unsigned char *mode = rc == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
        if (mode && !strcmp((const char *)mode, "delete"))
            r = 0;
        else if (rc == SQLITE_BUSY || (mode && !strcmp((const char *)mode, "wal")))
            r = -EBUSY;
    }
    sqlite3_finalize(st);
    return r;
}
