/* tracedb — see tracedb.h for the contract. */
#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const access_kind_names[TRACEDB_ACCESS_KIND_MAX + 1] = {
    [TRACEDB_READ] = "read",
    [TRACEDB_WRITE] = "write",
    [TRACEDB_CREATE] = "create",
    [TRACEDB_TRUNCATE] = "truncate",
    [TRACEDB_EXEC] = "exec",
    [TRACEDB_UNLINK] = "unlink",
    [TRACEDB_MKDIR] = "mkdir",
    [TRACEDB_RMDIR] = "rmdir",
    [TRACEDB_RENAME_FROM] = "rename_from",
    [TRACEDB_RENAME_TO] = "rename_to",
    [TRACEDB_LINK] = "link",
    [TRACEDB_SYMLINK] = "symlink",
    [TRACEDB_READDIR] = "readdir",
    [TRACEDB_READLINK] = "readlink",
    [TRACEDB_PROBE] = "probe",
    [TRACEDB_SETATTR] = "setattr",
};

const char *tracedb_access_kind_name(int kind)
{
    if (kind < 1 || kind > TRACEDB_ACCESS_KIND_MAX)
        return NULL;
    return access_kind_names[kind];
}

/* Migrations: migrations[i] takes a database from version i to i+1.  Append only. */
static const struct {
    const char *what;
    const char *sql;
} migrations[] = {
    {"create the version 1 schema",
     /* One row per `buildtrail run`. */
     "CREATE TABLE runs ("
     "  id INTEGER PRIMARY KEY,"
     "  argv BLOB NOT NULL,"              /* the build command, NUL-separated */
     "  cwd TEXT NOT NULL,"
     "  start_realtime_ns INTEGER NOT NULL,"
     "  start_ns INTEGER NOT NULL,"       /* CLOCK_BOOTTIME at start */
     "  end_ns INTEGER,"
     "  exit_status INTEGER,"             /* like a shell's $?: code, or 128+signal */
     "  term_signal INTEGER,"             /* the signal that killed the build, if one did */
     "  state TEXT NOT NULL,"             /* running / finished / interrupted / failed */
     "  root_process_id INTEGER,"
     "  uid INTEGER NOT NULL, gid INTEGER NOT NULL,"
     "  hostname TEXT, version TEXT NOT NULL,"
     "  notes TEXT"                       /* what the recorder wants a reader to know */
     ");"
     /* The directories traced in a run, at the paths the build saw. */
     "CREATE TABLE trees ("
     "  run_id INTEGER NOT NULL REFERENCES runs(id),"
     "  path TEXT NOT NULL,"
     "  role TEXT NOT NULL"               /* workspace / trace / tmp */
     ");"
     /* One row per process image: a fork is a new row, and so is every exec seen. */
     "CREATE TABLE processes ("
     "  id INTEGER PRIMARY KEY,"
     "  pid INTEGER NOT NULL,"            /* in the recorder's pid namespace */
     "  start_ticks INTEGER NOT NULL,"    /* /proc/PID/stat starttime: (pid, start_ticks) is a task */
     "  exec_seq INTEGER NOT NULL DEFAULT 0," /* 0 for the image first seen, then 1, 2, ... */
     "  parent_id INTEGER REFERENCES processes(id)," /* NULL for the build's root (and orphans) */
     "  prev_image_id INTEGER REFERENCES processes(id)," /* the image this one exec'd from */
     "  orphan INTEGER NOT NULL DEFAULT 0," /* reparented before it was seen: parent unknown */
     "  start_ns INTEGER NOT NULL,"       /* CLOCK_BOOTTIME of the task start (10 ms ticks) */
     "  first_seen_ns INTEGER NOT NULL,"
     "  comm TEXT, exe TEXT, cwd TEXT,"
     "  argv BLOB"                        /* NUL-separated, as /proc/PID/cmdline */
     ");"
     "CREATE INDEX processes_parent ON processes(parent_id);"
     "CREATE TABLE files ("
     "  id INTEGER PRIMARY KEY,"
     "  path TEXT NOT NULL UNIQUE"        /* absolute, as the build saw it; raw bytes */
     ");"
     "CREATE TABLE access_kinds (code INTEGER PRIMARY KEY, name TEXT NOT NULL);"
     /* One row per access: per open file handle and process for reads and writes, per
      * operation for the rest. */
     "CREATE TABLE accesses ("
     "  id INTEGER PRIMARY KEY,"
     "  process_id INTEGER REFERENCES processes(id)," /* NULL: the caller could not be identified */
     "  file_id INTEGER NOT NULL REFERENCES files(id),"
     "  kind INTEGER NOT NULL REFERENCES access_kinds(code),"
     "  open_flags INTEGER,"
     "  bytes INTEGER,"
     "  first_ns INTEGER NOT NULL, last_ns INTEGER NOT NULL,"
     "  result INTEGER NOT NULL DEFAULT 0" /* 0, or the errno the build got */
     ");"
     "CREATE INDEX accesses_file ON accesses(file_id, kind);"
     "CREATE INDEX accesses_process ON accesses(process_id);"
     /* The build's stdout and stderr, chunk by chunk, in the order the bytes went out. */
     "CREATE TABLE output ("
     "  seq INTEGER PRIMARY KEY,"
     "  process_id INTEGER REFERENCES processes(id),"
     "  stream INTEGER NOT NULL,"         /* 1 stdout, 2 stderr */
     "  time_ns INTEGER NOT NULL,"
     "  data BLOB NOT NULL"
     ");"
     "CREATE INDEX output_process ON output(process_id);"},
    {"record process exits and how complete the process tree is",
     /* How each process image that was the last of its process ended (process events). */
     "CREATE TABLE exits ("
     "  process_id INTEGER PRIMARY KEY REFERENCES processes(id),"
     "  end_ns INTEGER NOT NULL,"
     "  exit_code INTEGER,"                /* set when it exited */
     "  exit_signal INTEGER"               /* set when a signal killed it */
     ");"
     /* 'complete', or a sentence saying what may be missing and why. */
     "ALTER TABLE runs ADD COLUMN process_tree TEXT;"},
    {"record file versions with content hashes, and bind accesses to them",
     /* One row per content of a file: each write-open ... last close through the mount makes
      * one (origin 2); a file the build read without having written it gets one at its first
      * read (origin 1).  A version belongs to the file's inode, so a rename carries it: the
      * rename_to access names it at the new path. */
     "CREATE TABLE versions ("
     "  id INTEGER PRIMARY KEY,"
     "  file_id INTEGER NOT NULL REFERENCES files(id)," /* where it was made or first read */
     "  origin INTEGER NOT NULL,"          /* 1 found (existed before), 2 written by the build */
     "  base_id INTEGER REFERENCES versions(id)," /* written on top of it (no truncation) */
     "  begin_ns INTEGER NOT NULL,"        /* first write-open, or first read */
     "  end_ns INTEGER NOT NULL,"          /* last writer closed, or when it was hashed */
     "  size INTEGER,"
     "  sha256 BLOB,"                      /* 32 bytes */
     "  sha1 BLOB,"                        /* 20 bytes: SHA-1 of the data (SPDX 2 needs it) */
     "  git_sha1 BLOB,"                    /* 20 bytes: SHA-1 of "blob SIZE\0" + data (git, SWHID) */
     "  hash_error INTEGER"                /* errno when the content could not be read */
     ");"
     "CREATE INDEX versions_file ON versions(file_id);"
     "CREATE INDEX versions_base ON versions(base_id) WHERE base_id IS NOT NULL;"
     /* The version an access read, produced, moved or removed (NULL: none applies). */
     "ALTER TABLE accesses ADD COLUMN version_id INTEGER REFERENCES versions(id);"
     "CREATE INDEX accesses_version ON accesses(version_id, kind) WHERE version_id IS NOT NULL;"},
};

#define N_MIGRATIONS ((int)G_N_ELEMENTS(migrations))
G_STATIC_ASSERT(N_MIGRATIONS == TRACEDB_SCHEMA_VERSION);

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

/* 1: a buildtrail trace or an empty file; 0: something else; <0: errno. */
int tracedb_is_trace(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -errno;
    char head[16];
    ssize_t n = read(fd, head, sizeof head);
    int saved = errno;
    close(fd);
    if (n < 0)
        return -saved;
    if (n == 0)
        return 1;
    if (n < 16 || memcmp(head, sqlite_magic, 16) != 0)
        return 0;

    sqlite3 *db = NULL;
    int ret = 0;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_stmt *st = NULL;
        if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key='format'", -1, &st, NULL) ==
                SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW) {
            const unsigned char *v = sqlite3_column_text(st, 0);
            ret = v && strcmp((const char *)v, "buildtrail") == 0;
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return ret;
}

static int migrate(sqlite3 *db, int from, char **err_detail)
{
    for (int v = from; v < N_MIGRATIONS; v++) {
        g_autofree char *err = NULL;
        if (tracedb_exec(db, migrations[v].sql, &err) < 0) {
            if (err_detail)
                *err_detail = g_strdup_printf("schema migration to version %d (%s) failed: %s",
                                              v + 1, migrations[v].what, err);
            return -EIO;
        }
    }
    return 0;
}

int tracedb_create(const char *path, sqlite3 **out, int *lock_fd, char **err_detail)
{
    int r = tracedb_is_trace(path);
    if (r == 0) {
        if (err_detail)
            *err_detail = g_strdup("exists and is not a buildtrail trace");
        return -EEXIST;
    }
    if (r < 0 && r != -ENOENT) {
        if (err_detail)
            *err_detail = g_strdup(g_strerror(-r));
        return r;
    }
    if (r == 1) {
        /* A trace that a running buildtrail holds is not ours to replace. */
        int held = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (held >= 0) {
            bool busy = flock(held, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
            close(held);
            if (busy) {
                if (err_detail)
                    *err_detail = g_strdup("another buildtrail run is recording it");
                return -EBUSY;
            }
        }
        const char *suffixes[] = {"", "-wal", "-shm", "-journal"};
        for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
            g_autofree char *p = g_strconcat(path, suffixes[i], NULL);
            if (unlink(p) < 0 && errno != ENOENT) {
                int e = errno;
                if (err_detail)
                    *err_detail = g_strdup_printf("cannot replace %s: %s", p, g_strerror(e));
                return -e;
            }
        }
    }

    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                            SQLITE_OPEN_NOFOLLOW, NULL);
    if (rc != SQLITE_OK) {
        int e = errno ? errno : EIO;
        if (err_detail)
            *err_detail = g_strdup(db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return -e;
    }
    g_autofree char *err = NULL;
    /* 1 KiB pages: a trace has ~20 tables and indexes and each takes at least one page, which
     * at 4 KiB made a small build's trace a third empty pages (lz4: 256 -> 184 bytes per
     * access); a million-access trace is 3% larger and queries as fast (performance.md).
     * WAL: readers (a query while the build runs) never block the recorder.  synchronous=NORMAL:
     * a committed batch survives a crash of buildtrail (not of the kernel), at WAL speed. */
    if (tracedb_exec(db, "PRAGMA page_size=1024; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
                         "PRAGMA foreign_keys=OFF;", &err) < 0 ||
        tracedb_exec(db, "BEGIN; CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                         "INSERT INTO meta VALUES ('format', 'buildtrail');", &err) < 0) {
        if (err_detail)
            *err_detail = g_steal_pointer(&err);
        sqlite3_close(db);
        return -EIO;
    }
    int m = migrate(db, 0, err_detail);
    if (m < 0) {
        sqlite3_close(db);
        return m;
    }
    GString *sql = g_string_new(NULL);
    g_string_append_printf(sql, "INSERT INTO meta VALUES ('schema_version', '%d');",
                           TRACEDB_SCHEMA_VERSION);
    for (int k = 1; k <= TRACEDB_ACCESS_KIND_MAX; k++)
        g_string_append_printf(sql, "INSERT INTO access_kinds VALUES (%d, '%s');", k,
                               tracedb_access_kind_name(k));
    g_string_append(sql, "COMMIT;");
    int e = tracedb_exec(db, sql->str, err_detail);
    g_string_free(sql, TRUE);
    if (e < 0) {
        sqlite3_close(db);
        return e;
    }
    if (lock_fd) {
        *lock_fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (*lock_fd >= 0)
            flock(*lock_fd, LOCK_EX | LOCK_NB);
    }
    *out = db;
    return 0;
}

int tracedb_open_readonly(const char *path, sqlite3 **out, char **err_detail)
{
    int r = tracedb_is_trace(path);
    if (r < 0) {
        if (err_detail)
            *err_detail = g_strdup(g_strerror(-r));
        return r;
    }
    if (r == 0) {
        if (err_detail)
            *err_detail = g_strdup("not a buildtrail trace");
        return -EINVAL;
    }
    sqlite3 *db = NULL;
    /* One thread per handle (see the contract): no SQLite mutexes. */
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        if (err_detail)
            *err_detail = g_strdup(db ? sqlite3_errmsg(db) : "cannot open");
        sqlite3_close(db);
        return -EIO;
    }
    sqlite3_busy_timeout(db, 5000);
    int version = -1;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT CAST(value AS INTEGER) FROM meta WHERE key='schema_version'",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    if (version < 1) {
        if (err_detail)
            *err_detail = g_strdup("not a buildtrail trace (no schema version; empty file?)");
        sqlite3_close(db);
        return -EINVAL;
    }
    if (version > TRACEDB_SCHEMA_VERSION) {
        if (err_detail)
            *err_detail = g_strdup_printf("written by a newer buildtrail (schema %d; this one "
                                          "reads up to %d)", version, TRACEDB_SCHEMA_VERSION);
        sqlite3_close(db);
        return -EPROTO;
    }
    *out = db;
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
