/* schema — the trace's schema: the access kinds' names, the migrations that make each schema
 * version, the schema of a version built in memory, and the check that a trace's tables are
 * exactly those (tracedb.h; tracedb-internal.h). */
#include "tracedb-internal.h"
#include "tracedb.h"

#include <errno.h>
#include <glib.h>
#include <string.h>

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
    {"say why a run failed",
     /* With state 'failed': what failed, as a sentence ("the disk holding the trace ...",
      * "the build's pid-namespace init was killed by signal 9"). */
     "ALTER TABLE runs ADD COLUMN failure TEXT;"},
    {"record each process's environment",
     /* Each distinct environment once (most processes of a build share theirs): NUL-separated
      * NAME=VALUE entries as the process had them at exec; a redacted entry is its NAME alone
      * (no '='): `run --env-redact` and the default secret-looking names. */
     "CREATE TABLE environments (id INTEGER PRIMARY KEY, env BLOB NOT NULL);"
     "ALTER TABLE processes ADD COLUMN env_id INTEGER REFERENCES environments(id);"},
    {"record the options of the run",
     /* buildtrail's own options ("--system -o out.db"), as a shell would quote them. */
     "ALTER TABLE runs ADD COLUMN options TEXT;"},
    {"mark the processes the build left running, killed at its end",
     /* 1: still running when the build's command ended, and killed (SIGKILL) when buildtrail
      * ended the build's pid namespace; natively it would have gone on running. */
     "ALTER TABLE exits ADD COLUMN killed_at_end INTEGER NOT NULL DEFAULT 0;"},
    {"record what the build was refused: files hidden by run --only-inputs",
     /* One row per name hidden from a process: a lookup that answered ENOENT (also a probe
      * access), or a listing that left it out. */
     "CREATE TABLE denials ("
     "  id INTEGER PRIMARY KEY,"
     "  process_id INTEGER REFERENCES processes(id)," /* NULL: the caller could not be identified */
     "  file_id INTEGER NOT NULL REFERENCES files(id),"
     "  how INTEGER NOT NULL,"             /* 1 lookup, 2 listing */
     "  reason INTEGER NOT NULL,"          /* 1 undeclared (--only-inputs) */
     "  package TEXT,"                     /* the installed package owning it, when known */
     "  time_ns INTEGER NOT NULL"
     ");"
     "CREATE INDEX denials_process ON denials(process_id);"
     "CREATE INDEX denials_file ON denials(file_id);"},
    {"record the variations a run made (run --vary, --vary-control)",
     /* One row per variation asked for (launcher/vary.h, docs/repro.md "Variations"): its
      * reprotest name, the side whose value was set, what was set (for people), whether it
      * took effect, and why not (or, applied, what part could not be made). */
     "CREATE TABLE variations ("
     "  name TEXT NOT NULL,"
     "  side TEXT NOT NULL,"               /* 'control' or 'experiment' */
     "  value TEXT,"
     "  applied INTEGER NOT NULL,"         /* 0 or 1 */
     "  why_not TEXT"
     ");"},
};

#define N_MIGRATIONS ((int)G_N_ELEMENTS(migrations))
G_STATIC_ASSERT(N_MIGRATIONS == TRACEDB_SCHEMA_VERSION);

void tdb_append_migrations(GString *sql, int version)
{
    for (int v = 0; v < version && v < N_MIGRATIONS; v++)
        g_string_append(sql, migrations[v].sql);
}

sqlite3 *tracedb_reference_schema(int version)
{
    sqlite3 *ref = NULL;
    if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        sqlite3_close(ref);
        return NULL;
    }
    GString *sql = g_string_new(META_SCHEMA);
    tdb_append_migrations(sql, version);
    int rc = sqlite3_exec(ref, sql->str, NULL, NULL, NULL);
    g_string_free(sql, TRUE);
    if (rc != SQLITE_OK) {
        sqlite3_close(ref);
        return NULL;
    }
    return ref;
}

/* The statements check_table runs, prepared once for all the tables of a schema. */
struct schema_check {
    sqlite3 *db, *ref;
    sqlite3_stmt *object; /* db: type and sql of ?1 */
    sqlite3_stmt *cols[2]; /* db, ref: the columns of ?1 */
};

#define COLUMNS_SQL                                                                                \
    "SELECT name, upper(type), \"notnull\", pk, hidden FROM pragma_table_xinfo(?1) ORDER BY cid"

static int schema_check_init(struct schema_check *c, sqlite3 *db, sqlite3 *ref)
{
    *c = (struct schema_check){db, ref, NULL, {NULL, NULL}};
    int rc = sqlite3_prepare_v2(db, "SELECT type, sql FROM sqlite_schema WHERE name = ?1 "
                                    "COLLATE NOCASE", -1, &c->object, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, COLUMNS_SQL, -1, &c->cols[0], NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(ref, COLUMNS_SQL, -1, &c->cols[1], NULL);
    return rc;
}

static void schema_check_done(struct schema_check *c)
{
    sqlite3_finalize(c->object);
    sqlite3_finalize(c->cols[0]);
    sqlite3_finalize(c->cols[1]);
}

/* The columns of table `name` as PRAGMA table_xinfo gives them (name, declared type, not
 * null, primary key, hidden: generated columns are hidden), one line each, from statement
 * `st` (COLUMNS_SQL); NULL on an error. */
static char *table_columns(sqlite3_stmt *st, const char *name)
{
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    GString *cols = g_string_new(NULL);
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        g_string_append_printf(cols, "%s %s notnull=%d pk=%d hidden=%d\n",
                               (const char *)sqlite3_column_text(st, 0),
                               (const char *)sqlite3_column_text(st, 1),
                               sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
                               sqlite3_column_int(st, 4));
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        g_string_free(cols, TRUE);
        return NULL;
    }
    return g_string_free(cols, FALSE);
}

/* The first line of `cols` that is not in `other`, as "'NAME' (TYPE)" (g_free it), or NULL. */
static char *column_missing(const char *cols, const char *other)
{
    g_auto(GStrv) lines = g_strsplit(cols, "\n", -1);
    g_autofree char *in = g_strconcat("\n", other, NULL);
    for (char **l = lines; *l; l++) {
        g_autofree char *line = g_strconcat("\n", *l, "\n", NULL);
        if (**l && !strstr(in, line))
            return g_strdup(*l);
    }
    return NULL;
}

/* SQLite failed (`rc`) reading the schema of `db`: damage if it says the content is wrong,
 * else what it is (-EROFS: no -shm file can be made for a trace left with a -wal; -EIO: a
 * lock held past the busy timeout...), never "damaged" for a trace that is whole.  The
 * error, with the sentence in *why. */
static int check_failed(sqlite3 *db, int rc, char **why)
{
    int primary = rc & 0xff;
    if (primary == SQLITE_NOMEM)
        return tdb_set_err(why, -ENOMEM, g_strdup(g_strerror(ENOMEM)));
    if (tracedb_rc_is_damage(rc) || primary == SQLITE_ERROR)
        return tdb_set_err(why, -EBADMSG, g_strdup(sqlite3_errmsg(db)));
    if (primary == SQLITE_CANTOPEN)
        /* The file is open: what SQLite cannot open is the -shm of a write-ahead log. */
        return tdb_set_err(why, -EROFS, g_strdup("its write-ahead log (the -wal beside it: its "
                                            "run did not finish, or is still going) cannot be "
                                            "read without a -shm file, which cannot be made in "
                                            "its directory"));
    return tdb_set_err(why, -EIO, g_strdup(sqlite3_errmsg(db)));
}

/* Whether table `name` of `db` is a plain table with exactly the columns it has in `ref`:
 * 0, or -EBADMSG with the sentence in *why.  A view, a virtual table, a generated column or
 * a column of another type could make a query run forever or answer from something else. */
static int check_table(struct schema_check *c, const char *name, char **why)
{
    sqlite3 *db = c->db;
    sqlite3_stmt *st = c->object;
    g_autofree char *type = NULL, *sql = NULL;
    int n = 0;
    sqlite3_reset(st);
    int rc = sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n++ == 0) {
            type = g_strdup((const char *)sqlite3_column_text(st, 0));
            sql = g_strdup((const char *)sqlite3_column_text(st, 1));
        }
        rc = SQLITE_OK;
    }
    if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    sqlite3_reset(st);
    if (rc != SQLITE_OK)
        return check_failed(db, rc, why);
    if (n == 0)
        return tdb_set_err(why, -EBADMSG, g_strdup_printf("it has no table '%s'", name));
    if (n > 1 || !type || strcmp(type, "table"))
        return tdb_set_err(why, -EBADMSG, g_strdup_printf("it has a %s '%s' where a table should be",
                                                      n > 1 || !type ? "second object" : type,
                                                      name));
    if (!sql || g_ascii_strncasecmp(sql, "CREATE TABLE", 12))
        return tdb_set_err(why, -EBADMSG, g_strdup_printf("its table '%s' is not a plain table",
                                                      name));
    g_autofree char *have = table_columns(c->cols[0], name), *want = table_columns(c->cols[1], name);
    if (!have)
        return check_failed(db, sqlite3_extended_errcode(db), why);
    if (!want)
        return tdb_set_err(why, -ENOMEM, g_strdup(g_strerror(ENOMEM)));
    if (strcmp(have, want)) {
        g_autofree char *gone = column_missing(want, have), *extra = column_missing(have, want);
        return tdb_set_err(why, -EBADMSG,
                       g_strdup_printf("its table '%s' does not have the columns buildtrail made "
                                       "(%s %s)", name, gone ? "expected" : "unexpected",
                                       gone ? gone : extra ? extra : "order"));
    }
    return 0;
}

/* Every table of a `version` trace (meta included) checked by check_table. */
int tdb_check_schema(sqlite3 *db, int version, char **why)
{
    sqlite3 *ref = tracedb_reference_schema(version);
    struct schema_check c;
    sqlite3_stmt *st = NULL;
    int r = 0;
    int rc = !ref ? SQLITE_NOMEM : schema_check_init(&c, db, ref);
    if (rc != SQLITE_OK)
        r = check_failed(db, rc, why);
    else if (sqlite3_prepare_v2(ref, "SELECT name FROM sqlite_schema WHERE type = 'table' "
                                     "ORDER BY rowid", -1, &st, NULL) != SQLITE_OK)
        r = tdb_set_err(why, -ENOMEM, g_strdup(g_strerror(ENOMEM)));
    while (r == 0 && sqlite3_step(st) == SQLITE_ROW)
        r = check_table(&c, (const char *)sqlite3_column_text(st, 0), why);
    sqlite3_finalize(st);
    if (ref)
        schema_check_done(&c);
    sqlite3_close(ref);
    return r;
}

/* Whether meta in `db` is buildtrail's table: 0, or check_table's error. */
int tdb_check_meta(sqlite3 *db, char **why)
{
    sqlite3 *ref = tracedb_reference_schema(0);
    if (!ref)
        return tdb_set_err(why, -ENOMEM, g_strdup(g_strerror(ENOMEM)));
    struct schema_check c;
    int rc = schema_check_init(&c, db, ref);
    int r = rc == SQLITE_OK ? check_table(&c, "meta", why) : check_failed(db, rc, why);
    schema_check_done(&c);
    sqlite3_close(ref);
    return r;
}
