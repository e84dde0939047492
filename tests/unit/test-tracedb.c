/* Unit tests: the schema (create, refuse, version) and the recorder (lossless under load). */
#include "recorder.h"
#include "tracedb.h"
#include "unit-sql.h"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_create_and_reopen(void)
{
    g_autofree char *p = unit_path("a.db");
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    g_assert_cmpint(unit_sql_int(db, "SELECT value FROM meta WHERE key='schema_version'"), ==,
                    TRACEDB_SCHEMA_VERSION);
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM access_kinds"), ==, TRACEDB_ACCESS_KIND_MAX);
    sqlite3_close(db);
    /* An existing trace is replaced, unless a running recorder holds it. */
    int lock = -1;
    g_assert_cmpint(tracedb_create(p, 0600, &db, &lock, NULL), ==, 0);
    g_assert_cmpint(lock, >=, 0);
    sqlite3 *db2 = NULL;
    g_autofree char *err = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db2, NULL, &err), ==, -EBUSY);
    g_assert_nonnull(strstr(err, "another buildtrail run (pid "));
    sqlite3_close(db);
    close(lock);
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    sqlite3_close(db);
    g_assert_cmpint(tracedb_open_readonly(p, &db, NULL), ==, 0);
    sqlite3_close(db);
}

/* Sealing ends WAL mode; while a reader has the trace open it cannot, and says so. */
static void test_seal(void)
{
    g_autofree char *p = unit_path("sealed.db");
    sqlite3 *db = NULL, *reader = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    g_assert_cmpint(tracedb_open_readonly(p, &reader, NULL), ==, 0);
    g_assert_cmpint(unit_sql_int(reader, "SELECT count(*) FROM access_kinds"), >, 0);
    g_assert_cmpint(tracedb_seal(db), ==, -EBUSY);
    sqlite3_close(reader);
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
    g_autofree char *wal = g_strconcat(p, "-wal", NULL);
    g_assert_false(g_file_test(wal, G_FILE_TEST_EXISTS));
    g_assert_cmpint(tracedb_open_readonly(p, &reader, NULL), ==, 0);
    sqlite3_stmt *st = NULL;
    g_assert_cmpint(sqlite3_prepare_v2(reader, "PRAGMA journal_mode", -1, &st, NULL), ==, SQLITE_OK);
    g_assert_cmpint(sqlite3_step(st), ==, SQLITE_ROW);
    g_assert_cmpstr((const char *)sqlite3_column_text(st, 0), ==, "delete");
    sqlite3_finalize(st);
    sqlite3_close(reader);
}

/* A new trace is in WAL mode before it is put in place: publishing writes nothing to it, so a
 * run killed at that moment leaves no hot journal beside the trace in place (t3004 saw one:
 * "attempt to write a readonly database" from every query after SIGKILL). */
static void test_pending_is_wal(void)
{
    g_autofree char *p = unit_path("wal-before.db");
    struct tracedb_pending pend;
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create_pending(p, 0600, &pend, &db, NULL), ==, 0);
    sqlite3_close(db);
    g_autofree char *head = NULL;
    gsize n = 0;
    g_assert_true(g_file_get_contents(pend.tmp_path, &head, &n, NULL));
    g_assert_cmpuint(n, >=, 20);
    /* the file format's read and write versions: 2 is WAL */
    g_assert_cmpint(head[18], ==, 2);
    g_assert_cmpint(head[19], ==, 2);
    tracedb_pending_discard(&pend);
    g_assert_false(g_file_test(pend.tmp_path ? pend.tmp_path : p, G_FILE_TEST_EXISTS));
}

/* What the run writes into its pending trace (the run's row, write_start) is in the trace once
 * published, even when another run checking who holds that trace (check_pending reads its
 * meta) still reads it as the writer closes: that close then cannot checkpoint the WAL, which
 * publishing must not drop. */
static void test_pending_rows_kept(void)
{
    g_autofree char *p = unit_path("kept.db");
    struct tracedb_pending pend;
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create_pending(p, 0600, &pend, &db, NULL), ==, 0);
    g_assert_cmpint(sqlite3_exec(db, "INSERT INTO meta VALUES ('kept', 'yes')", NULL, NULL, NULL),
                    ==, SQLITE_OK);
    sqlite3 *other = NULL; /* the other run's look, in a read transaction */
    sqlite3_stmt *st = NULL;
    g_assert_cmpint(sqlite3_open_v2(pend.tmp_path, &other, SQLITE_OPEN_READONLY, NULL), ==,
                    SQLITE_OK);
    g_assert_cmpint(sqlite3_prepare_v2(other, "SELECT value FROM meta", -1, &st, NULL), ==,
                    SQLITE_OK);
    g_assert_cmpint(sqlite3_step(st), ==, SQLITE_ROW);
    sqlite3_close(db); /* as trace_create does, the other still reading */
    sqlite3_finalize(st);
    sqlite3_close(other);
    db = NULL;
    g_assert_cmpint(tracedb_publish(&pend, &db, NULL, NULL), ==, 0);
    sqlite3_close(db);
    tracedb_pending_discard(&pend);
    g_autofree char *err = NULL;
    g_assert_cmpint(tracedb_open_readonly(p, &db, &err), ==, 0);
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM meta WHERE key = 'kept'"), ==, 1);
    sqlite3_close(db);
}

/* A writer killed in the middle of a rollback-mode transaction (a sealed trace, or the seal's
 * own switch) leaves a hot journal: the trace's owner still reads it, the unfinished write
 * rolled back. */
static void test_hot_journal_read(void)
{
    g_autofree char *p = unit_path("hot.db");
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
    pid_t pid = fork();
    g_assert_cmpint(pid, >=, 0);
    if (pid == 0) {
        sqlite3 *w = NULL;
        if (sqlite3_open(p, &w) != SQLITE_OK ||
            sqlite3_exec(w, "PRAGMA cache_size=1; BEGIN; "
                            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n "
                            "WHERE i < 2000) INSERT INTO meta SELECT 'junk' || i, "
                            "printf('%.500c', 'x') FROM n;", NULL, NULL, NULL) != SQLITE_OK)
            _exit(1);
        _exit(0); /* killed: no COMMIT, no close */
    }
    int status = 0;
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    g_autofree char *j = g_strconcat(p, "-journal", NULL);
    g_assert_true(g_file_test(j, G_FILE_TEST_EXISTS));
    if (geteuid() == 0) { /* another user's trace: not rolled back by us, and said so */
        g_assert_cmpint(chown(p, 1, 1), ==, 0);
        g_assert_cmpint(chown(j, 1, 1), ==, 0);
        g_autofree char *why = NULL;
        g_assert_cmpint(tracedb_open_readonly(p, &db, &why), ==, -EIO);
        g_assert_nonnull(strstr(why, "killed mid-write"));
        g_assert_true(g_file_test(j, G_FILE_TEST_EXISTS));
        g_assert_cmpint(chown(p, 0, 0), ==, 0);
        g_assert_cmpint(chown(j, 0, 0), ==, 0);
    }
    g_autofree char *err = NULL;
    g_assert_cmpint(tracedb_open_readonly(p, &db, &err), ==, 0);
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM meta WHERE key LIKE 'junk%'"), ==, 0);
    sqlite3_close(db);
}

/* A side file that is not SQLite's (a FIFO, a link, a file of the user's) beside a trace:
 * reading the trace neither blocks on it, follows it nor removes it; it is named. */
static void test_side_not_regular(void)
{
    g_autofree char *p = unit_path("sides.db");
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
    g_autofree char *j = g_strconcat(p, "-journal", NULL);
    g_autofree char *w = g_strconcat(p, "-wal", NULL);
    g_autofree char *target = unit_path("target");
    g_assert_true(g_file_set_contents(target, "precious", -1, NULL));
    g_assert_cmpint(chmod(target, 0644), ==, 0);
    alarm(20); /* a reader blocked on the FIFO fails the test instead of hanging it */
    for (int k = 0; k < 2; k++) {
        const char *side = k ? w : j;
        g_assert_cmpint(k ? symlink(target, side) : mkfifo(side, 0644), ==, 0);
        g_autofree char *why = NULL;
        g_assert_cmpint(tracedb_open_readonly(p, &db, &why), ==, -EIO);
        g_assert_nonnull(strstr(why, side));
        g_assert_nonnull(strstr(why, k ? "a symbolic link" : "a FIFO"));
        g_assert_cmpint(unlink(side), ==, 0);
    }
    alarm(0);
    struct stat st;
    g_assert_cmpint(stat(target, &st), ==, 0);
    g_assert_cmpint(st.st_mode & 07777, ==, 0644);
    /* a file of the user's by that name: not taken for a journal (the owner's read-write open,
     * rolling back a hot journal, would have removed it) */
    g_assert_true(g_file_set_contents(j, "my notes, not a journal", -1, NULL));
    g_autofree char *why = NULL;
    g_assert_cmpint(tracedb_open_readonly(p, &db, &why), ==, -EIO);
    g_assert_nonnull(strstr(why, "does not begin as SQLite's journal file does"));
    g_autofree char *notes = NULL;
    g_assert_true(g_file_get_contents(j, &notes, NULL, NULL));
    g_assert_cmpstr(notes, ==, "my notes, not a journal");
    g_assert_cmpint(unlink(j), ==, 0);
    g_assert_cmpint(tracedb_open_readonly(p, &db, NULL), ==, 0);
    sqlite3_close(db);
}

static void test_refuse_foreign(void)
{
    g_autofree char *p = unit_path("notes.txt");
    g_assert_true(g_file_set_contents(p, "precious", -1, NULL));
    sqlite3 *db = NULL;
    g_autofree char *err = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, &err), ==, -EEXIST);
    g_autofree char *content = NULL;
    g_assert_true(g_file_get_contents(p, &content, NULL, NULL));
    g_assert_cmpstr(content, ==, "precious");
    g_autofree char *err2 = NULL;
    g_assert_cmpint(tracedb_open_readonly(p, &db, &err2), ==, -EINVAL);
    g_autofree char *missing = unit_path("missing.db");
    g_autofree char *err3 = NULL;
    g_assert_cmpint(tracedb_open_readonly(missing, &db, &err3), ==, -ENOENT);
}

/* Each named kind set is exactly the kinds its definition names (by name, not by number), and
 * its mask is the same set. */
#define check_set(set, ...) check_set_(set, set##_MASK_IS, __VA_ARGS__)
static void check_set_(const char *set, unsigned mask, const char *const *names)
{
    for (int k = -1; k <= TRACEDB_ACCESS_KIND_MAX + 2; k++) {
        g_autofree char *item = g_strdup_printf("%d", k);
        g_auto(GStrv) items = g_strsplit_set(set, "(,)", -1);
        bool listed = k >= 1 && g_strv_contains((const char *const *)items, item);
        g_assert_cmpint(tracedb_kind_in(mask, k), ==, listed);
    }
    GString *want = g_string_new("(");
    for (const char *const *n = names; *n; n++) {
        int kind = 0;
        for (int k = 1; k <= TRACEDB_ACCESS_KIND_MAX; k++)
            if (!strcmp(tracedb_access_kind_name(k), *n))
                kind = k;
        g_assert_cmpint(kind, >, 0);
        g_string_append_printf(want, "%s%d", n == names ? "" : ",", kind);
    }
    g_string_append_c(want, ')');
    g_assert_cmpstr(set, ==, want->str);
    g_string_free(want, TRUE);
}

#define TRACEDB_KINDS_READ_MASK_IS TRACEDB_MASK_READ
#define TRACEDB_KINDS_OPENED_READ_MASK_IS TRACEDB_MASK_OPENED_READ
#define TRACEDB_KINDS_EXEC_MASK_IS TRACEDB_MASK_EXEC
#define TRACEDB_KINDS_MADE_MASK_IS TRACEDB_MASK_MADE
#define TRACEDB_KINDS_PLACED_MASK_IS TRACEDB_MASK_PLACED
#define TRACEDB_KINDS_GONE_MASK_IS TRACEDB_MASK_GONE
#define TRACEDB_KINDS_RMDIR_MASK_IS TRACEDB_MASK_RMDIR
#define TRACEDB_KINDS_USED_MASK_IS TRACEDB_MASK_USED
#define TRACEDB_KINDS_VERSIONED_MASK_IS TRACEDB_MASK_VERSIONED
#define TRACEDB_KINDS_PRODUCED_MASK_IS TRACEDB_MASK_PRODUCED
#define TRACEDB_KINDS_CHANGED_MASK_IS TRACEDB_MASK_CHANGED
#define TRACEDB_KINDS_WROTE_PATH_MASK_IS TRACEDB_MASK_WROTE_PATH
#define TRACEDB_KINDS_BOUND_MASK_IS TRACEDB_MASK_BOUND
#define TRACEDB_KINDS_FOLLOWED_MASK_IS TRACEDB_MASK_FOLLOWED
#define TRACEDB_KINDS_LISTED_MASK_IS TRACEDB_MASK_LISTED

static void test_kind_sets(void)
{
    check_set(TRACEDB_KINDS_READ, (const char *const[]){"read", "exec", NULL});
    check_set(TRACEDB_KINDS_OPENED_READ, (const char *const[]){"read", NULL});
    check_set(TRACEDB_KINDS_EXEC, (const char *const[]){"exec", NULL});
    check_set(TRACEDB_KINDS_MADE, (const char *const[]){"write", "create", "truncate", NULL});
    check_set(TRACEDB_KINDS_PLACED, (const char *const[]){"rename_to", "link", NULL});
    check_set(TRACEDB_KINDS_GONE, (const char *const[]){"unlink", "rename_from", NULL});
    check_set(TRACEDB_KINDS_RMDIR, (const char *const[]){"rmdir", NULL});
    check_set(TRACEDB_KINDS_USED,
              (const char *const[]){"read", "write", "create", "truncate", "exec", NULL});
    check_set(TRACEDB_KINDS_VERSIONED,
              (const char *const[]){"read", "write", "create", "truncate", "exec", "rename_to",
                                    "link", NULL});
    check_set(TRACEDB_KINDS_PRODUCED,
              (const char *const[]){"write", "create", "truncate", "rename_to", "link", NULL});
    check_set(TRACEDB_KINDS_CHANGED,
              (const char *const[]){"write", "create", "truncate", "unlink", "rename_from",
                                    "rename_to", NULL});
    check_set(TRACEDB_KINDS_WROTE_PATH,
              (const char *const[]){"write", "create", "truncate", "mkdir", "rename_to", "link",
                                    "symlink", NULL});
    check_set(TRACEDB_KINDS_BOUND,
              (const char *const[]){"read", "write", "create", "truncate", "exec", "unlink",
                                    "rename_from", "rename_to", "link", "symlink", NULL});
    check_set(TRACEDB_KINDS_FOLLOWED, (const char *const[]){"readlink", NULL});
    check_set(TRACEDB_KINDS_LISTED, (const char *const[]){"readdir", NULL});
}

/* The run row written at the start and at the end reads back, NULLs where nothing was given. */
static void test_run_rows(void)
{
    g_autofree char *p = unit_path("runrow.db");
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    static const char args[] = "make\0-j2";
    struct tracedb_tree trees[] = {{"/w", "workspace"}, {"/tmp", "tmp"}};
    struct tracedb_run_start s = {.argv = args, .argv_len = sizeof args, .cwd = "/w",
                                  .start_realtime_ns = 5, .start_ns = 7, .uid = 1, .gid = 2,
                                  .hostname = "h", .version = "v", .trees = trees, .n_trees = 2};
    g_assert_cmpint(tracedb_write_run_start(db, &s, NULL), ==, 0);
    struct tracedb_run_end e = {.end_ns = 9, .exit_status = -1, .state = TRACEDB_RUN_FINISHED,
                                .notes = "n", .process_tree = "complete"};
    g_assert_cmpint(tracedb_write_run_end(db, &e, NULL), ==, 0);
    sqlite3_stmt *st = NULL;
    g_assert_cmpint(sqlite3_prepare_v2(db, "SELECT state, exit_status IS NULL, term_signal IS NULL, "
                                           "failure IS NULL, root_process_id IS NULL, "
                                           "(SELECT count(*) FROM trees), length(argv) FROM runs",
                                       -1, &st, NULL), ==, SQLITE_OK);
    g_assert_cmpint(sqlite3_step(st), ==, SQLITE_ROW);
    g_assert_cmpstr((const char *)sqlite3_column_text(st, 0), ==, "finished");
    for (int i = 1; i <= 4; i++)
        g_assert_cmpint(sqlite3_column_int(st, i), ==, 1);
    g_assert_cmpint(sqlite3_column_int(st, 5), ==, 2);
    g_assert_cmpint(sqlite3_column_int(st, 6), ==, (int)sizeof args);
    sqlite3_finalize(st);
    /* A second start is refused (one run per trace), with SQLite's message. */
    g_autofree char *err = NULL;
    g_assert_cmpint(tracedb_write_run_start(db, &s, &err), ==, -EIO);
    g_assert_nonnull(err);
    sqlite3_close(db);
}

/* Damage is told from "not a trace": an SQLite file of something else, a trace whose meta is
 * unreadable, and an empty file. */
static void test_open_damaged_or_foreign(void)
{
    g_autofree char *other = unit_path("other.sqlite");
    sqlite3 *db = NULL;
    g_assert_cmpint(sqlite3_open(other, &db), ==, SQLITE_OK);
    g_assert_cmpint(sqlite3_exec(db, "CREATE TABLE t(x)", NULL, NULL, NULL), ==, SQLITE_OK);
    sqlite3_close(db);
    g_autofree char *e1 = NULL;
    g_assert_cmpint(tracedb_open_readonly(other, &db, &e1), ==, -EINVAL);
    g_assert_nonnull(strstr(e1, "not a buildtrail trace"));

    g_autofree char *p = unit_path("meta-damaged.db");
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
    /* Page 2 onwards hold the tables; overwrite every page after the first with 0xff. */
    g_autofree char *data = NULL;
    gsize len = 0;
    g_assert_true(g_file_get_contents(p, &data, &len, NULL));
    g_assert_cmpuint(len, >, 4096);
    unsigned page = ((unsigned char)data[16] << 8) | (unsigned char)data[17];
    if (page == 1)
        page = 65536;
    memset(data + page, 0xff, len - page);
    g_assert_true(g_file_set_contents(p, data, (gssize)len, NULL));
    g_autofree char *e2 = NULL;
    g_assert_cmpint(tracedb_open_readonly(p, &db, &e2), ==, -EBADMSG);

    g_autofree char *empty = unit_path("empty.db");
    g_assert_true(g_file_set_contents(empty, "", 0, NULL));
    g_autofree char *e3 = NULL;
    g_assert_cmpint(tracedb_open_readonly(empty, &db, &e3), ==, -EINVAL);
    g_assert_nonnull(strstr(e3, "empty"));
}

static void test_refuse_newer(void)
{
    g_autofree char *p = unit_path("newer.db");
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    g_assert_cmpint(tracedb_exec(db, "UPDATE meta SET value='99' WHERE key='schema_version'",
                                 NULL), ==, 0);
    sqlite3_close(db);
    g_autofree char *err = NULL;
    g_assert_cmpint(tracedb_open_readonly(p, &db, &err), ==, -EPROTO);
    g_assert_nonnull(strstr(err, "newer buildtrail"));
}

/* What is not a trace or an empty regular file is refused without being opened or waited on
 * (a FIFO would block an open), and a side file that is not SQLite's stops the creation. */
static void test_refuse_special(void)
{
    g_autofree char *fifo = unit_path("fifo.db");
    g_assert_cmpint(mkfifo(fifo, 0600), ==, 0);
    sqlite3 *db = NULL;
    g_autofree char *err = NULL;
    g_assert_cmpint(tracedb_create(fifo, 0600, &db, NULL, &err), ==, -EEXIST);
    g_assert_nonnull(strstr(err, "a FIFO"));
    g_assert_cmpint(tracedb_is_trace(fifo), ==, 0);

    g_autofree char *p = unit_path("side.db");
    g_autofree char *wal = g_strconcat(p, "-wal", NULL);
    g_assert_true(g_file_set_contents(wal, "not sqlite's", -1, NULL));
    g_autofree char *err2 = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, &err2), ==, -EEXIST);
    g_assert_nonnull(strstr(err2, "side.db-wal exists beside it"));
    g_assert_false(g_file_test(p, G_FILE_TEST_EXISTS));
    g_autofree char *content = NULL;
    g_assert_true(g_file_get_contents(wal, &content, NULL, NULL));
    g_assert_cmpstr(content, ==, "not sqlite's");
}

/* The mode asked for, whatever the umask; nothing but the trace is left in its directory. */
static void test_mode_and_no_temporaries(void)
{
    g_autofree char *dir = unit_path("modes");
    g_assert_cmpint(g_mkdir(dir, 0755), ==, 0);
    g_autofree char *p = g_build_filename(dir, "t.db", NULL);
    mode_t old = umask(077);
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0644, &db, NULL, NULL), ==, 0);
    umask(old);
    struct stat st;
    g_assert_cmpint(stat(p, &st), ==, 0);
    g_assert_cmpint(st.st_mode & 0777, ==, 0644);
    sqlite3_close(db);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const char *name;
    while ((name = g_dir_read_name(d)))
        g_assert_cmpstr(name, ==, "t.db");
}

/* Past SQLite's 512-byte path limit: create, write, seal and read back. */
static void test_long_path(void)
{
    GString *dir = g_string_new(unit_tmpdir);
    while (dir->len < 700)
        g_string_append(dir, "/a-directory-name-of-some-length");
    g_assert_cmpint(g_mkdir_with_parents(dir->str, 0755), ==, 0);
    g_autofree char *p = g_build_filename(dir->str, "long.db", NULL);
    g_string_free(dir, TRUE);
    sqlite3 *db = NULL, *reader = NULL;
    g_autofree char *err = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, &err), ==, 0);
    g_assert_cmpint(tracedb_exec(db, "INSERT INTO files (id, path) VALUES (1, '/x')", NULL), ==, 0);
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
    g_assert_cmpint(tracedb_open_readonly(p, &reader, NULL), ==, 0);
    g_assert_cmpint(unit_sql_int(reader, "SELECT count(*) FROM files"), ==, 1);
    sqlite3_close(reader);
}

#define PRODUCERS 4
#define PER_PRODUCER 50000 /* together well past REC_QUEUE_MAX: producers must wait, not drop */

struct producer {
    struct rec *rec;
    int index;
};

static void *produce(void *arg)
{
    struct producer *p = arg;
    for (int i = 0; i < PER_PRODUCER; i++) {
        char path[64];
        snprintf(path, sizeof path, "/w/p%d/f%d", p->index, i % 1000);
        struct rec_access a = {.process_id = p->index + 1, .file_id = rec_file_id(p->rec, path),
                               .kind = TRACEDB_READ, .open_flags = 0, .bytes = i,
                               .first_ns = i, .last_ns = i};
        rec_add_access(p->rec, &a);
    }
    return NULL;
}

static void test_recorder_lossless(void)
{
    g_autofree char *p = unit_path("rec.db");
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    struct rec *rec = NULL;
    g_assert_cmpint(rec_start(&rec, db), ==, 0);
    for (int i = 0; i < PRODUCERS; i++) {
        struct rec_process rp = {.id = i + 1, .pid = 100 + i, .start_ticks = 5, .comm = "x",
                                 .argv = "x\0y", .argv_len = 4};
        rec_add_process(rec, &rp);
    }
    rec_add_output(rec, 1, TRACEDB_STDOUT, 1, "hello\n", 6);
    pthread_t t[PRODUCERS];
    struct producer pr[PRODUCERS];
    for (int i = 0; i < PRODUCERS; i++) {
        pr[i] = (struct producer){rec, i};
        pthread_create(&t[i], NULL, produce, &pr[i]);
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(t[i], NULL);
    sqlite3 *back = NULL;
    g_assert_cmpint(rec_stop(rec, &back), ==, 0);
    g_assert_true(back == db);
    rec_free(rec);
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM accesses"), ==, PRODUCERS * PER_PRODUCER);
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM files"), ==, PRODUCERS * 1000);
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM processes"), ==, PRODUCERS);
    g_assert_cmpint(unit_sql_int(db, "SELECT length(argv) FROM processes WHERE id=1"), ==, 4);
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM output "
                                     "WHERE data=CAST('hello\n' AS BLOB)"), ==, 1);
    /* Each access points at a file of its own producer. */
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM accesses a JOIN files f ON f.id=a.file_id "
                              "WHERE f.path NOT LIKE '/w/p' || (a.process_id-1) || '/%'"), ==, 0);
    sqlite3_close(db);
}

static void test_notes_unseen(void)
{
    char *why = tracedb_notes_unseen("unseen=a build process made a mount namespace of its own; "
                                     "events=3; requests: open=1");
    g_assert_cmpstr(why, ==, "a build process made a mount namespace of its own");
    g_free(why);
    why = tracedb_notes_unseen("unseen=last");
    g_assert_cmpstr(why, ==, "last");
    g_free(why);
    /* Only as the first entry: never a word inside another one. */
    g_assert_null(tracedb_notes_unseen("events=3; unseen=x; requests: open=1"));
    g_assert_null(tracedb_notes_unseen("system_trees=watched (unseen=x); requests: open=1"));
    g_assert_null(tracedb_notes_unseen(""));
    g_assert_null(tracedb_notes_unseen(NULL));
}

/* Count the files in the directory of `path` whose names start with ".buildtrail-new". */
static int pending_files(const char *path)
{
    g_autofree char *dir = g_path_get_dirname(path);
    GDir *d = g_dir_open(dir, 0, NULL);
    int n = 0;
    for (const char *e; d && (e = g_dir_read_name(d));)
        n += g_str_has_prefix(e, ".buildtrail-new");
    if (d)
        g_dir_close(d);
    return n;
}

/* A new trace is made beside the old one and takes its place only when published: a second
 * run meanwhile is refused (-EBUSY), a run killed before publishing leaves a temporary file
 * that the next run removes, and a discarded one leaves the old trace as it was. */
static void test_pending(void)
{
    g_autofree char *p = unit_path("pending.db");
    g_autofree char *other = unit_path("other.db");
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    struct tracedb_run_start start = {.argv = "old", .argv_len = 3, .cwd = "/", .start_realtime_ns = 1,
                                      .hostname = "h", .version = "v"};
    g_assert_cmpint(tracedb_write_run_start(db, &start, NULL), ==, 0);
    struct tracedb_run_end end = {.end_ns = 2, .exit_status = 3, .state = TRACEDB_RUN_FINISHED};
    g_assert_cmpint(tracedb_write_run_end(db, &end, NULL), ==, 0);
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
    g_autofree char *before = NULL;
    gsize before_len = 0;
    g_assert_true(g_file_get_contents(p, &before, &before_len, NULL));

    struct tracedb_pending a, b;
    sqlite3 *adb = NULL, *bdb = NULL;
    g_assert_cmpint(tracedb_create_pending(p, 0600, &a, &adb, NULL), ==, 0);
    sqlite3_close(adb);
    g_assert_cmpint(pending_files(p), ==, 1);
    /* Another run on the same path: refused while this one is pending. */
    g_autofree char *err = NULL;
    g_assert_cmpint(tracedb_create_pending(p, 0600, &b, &bdb, &err), ==, -EBUSY);
    g_assert_nonnull(strstr(err, "is recording it"));
    /* Another path in the same directory: not concerned. */
    g_assert_cmpint(tracedb_create_pending(other, 0600, &b, &bdb, NULL), ==, 0);
    sqlite3_close(bdb);
    tracedb_pending_discard(&b);
    /* Discarded (its build never started): the old trace is as it was, nothing is left. */
    tracedb_pending_discard(&a);
    g_assert_cmpint(pending_files(p), ==, 0);
    g_autofree char *after = NULL;
    gsize after_len = 0;
    g_assert_true(g_file_get_contents(p, &after, &after_len, NULL));
    g_assert_cmpmem(before, before_len, after, after_len);

    /* Killed before publishing (its lock gone, its file left): the next run removes it. */
    g_assert_cmpint(tracedb_create_pending(p, 0600, &a, &adb, NULL), ==, 0);
    sqlite3_close(adb);
    close(a.lock_fd);
    a.lock_fd = -1;
    g_free(a.tmp_path);
    g_free(a.path);
    g_assert_cmpint(pending_files(p), ==, 1);
    g_assert_cmpint(tracedb_create_pending(p, 0600, &a, &adb, NULL), ==, 0);
    sqlite3_close(adb);
    g_assert_cmpint(pending_files(p), ==, 1);

    /* Published: in place, WAL, and it says what it replaced. */
    struct tracedb_replaced old;
    g_assert_cmpint(tracedb_publish(&a, &adb, &old, NULL), ==, 0);
    g_assert_true(old.existed);
    g_assert_false(old.empty);
    g_assert_cmpmem(old.argv, old.argv_len, "old", 3);
    g_assert_cmpstr(old.state, ==, "finished");
    g_assert_cmpint(old.exit_status, ==, 3);
    tracedb_replaced_clear(&old);
    g_assert_cmpint(pending_files(p), ==, 0);
    g_assert_cmpint(unit_sql_int(adb, "SELECT count(*) FROM runs"), ==, 0);
    /* and held: another run is refused */
    g_assert_cmpint(tracedb_create_pending(p, 0600, &b, &bdb, NULL), ==, -EBUSY);
    sqlite3_close(adb);
    tracedb_pending_discard(&a);
}

/* The trace a killed run left (rows still in its -wal) comes back whole when the new trace
 * that was to replace it cannot be opened: its -wal went away with it to the temporary name
 * and comes back with it (it was removed before the swap: the rows were lost).  Replaced for
 * good, its -wal goes too and is never read as the new trace's. */
static void test_publish_keeps_old_wal(void)
{
    g_autofree char *p = unit_path("killed.db");
    g_autofree char *wal = g_strconcat(p, "-wal", NULL);
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    sqlite3_close(db);
    pid_t child = fork();
    g_assert_cmpint(child, >=, 0);
    if (child == 0) { /* a recorder killed after its last commit, before any checkpoint */
        sqlite3 *k = NULL;
        if (sqlite3_open(p, &k) != SQLITE_OK ||
            sqlite3_exec(k, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0;"
                            "INSERT INTO meta VALUES ('only_in_wal', 'x');",
                         NULL, NULL, NULL) != SQLITE_OK)
            _exit(1);
        _exit(0);
    }
    int status = 0;
    g_assert_cmpint(waitpid(child, &status, 0), ==, child);
    g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    g_assert_true(g_file_test(wal, G_FILE_TEST_EXISTS));

    /* A new trace that cannot be opened once in place: not a database any more. */
    struct tracedb_pending a;
    g_assert_cmpint(tracedb_create_pending(p, 0600, &a, &db, NULL), ==, 0);
    sqlite3_close(db);
    char junk[4096];
    memset(junk, 'x', sizeof junk);
    g_assert_true(g_file_set_contents(a.tmp_path, junk, sizeof junk, NULL));
    struct tracedb_replaced old;
    g_assert_cmpint(tracedb_publish(&a, &db, &old, NULL), <, 0);
    tracedb_pending_discard(&a);
    g_assert_true(g_file_test(wal, G_FILE_TEST_EXISTS));
    g_assert_cmpint(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM meta WHERE key='only_in_wal'"), ==, 1);
    sqlite3_close(db);

    /* Now replaced: the new trace holds nothing of the old one's -wal, nothing is left. */
    g_assert_cmpint(tracedb_create_pending(p, 0600, &a, &db, NULL), ==, 0);
    sqlite3_close(db);
    g_assert_cmpint(tracedb_publish(&a, &db, &old, NULL), ==, 0);
    tracedb_replaced_clear(&old);
    g_assert_cmpint(unit_sql_int(db, "SELECT count(*) FROM meta WHERE key='only_in_wal'"), ==, 0);
    sqlite3_close(db);
    tracedb_pending_discard(&a);
    g_assert_cmpint(pending_files(p), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tracedb/notes-unseen", test_notes_unseen);
    g_test_add_func("/tracedb/create", test_create_and_reopen);
    g_test_add_func("/tracedb/pending", test_pending);
    g_test_add_func("/tracedb/publish-keeps-old-wal", test_publish_keeps_old_wal);
    g_test_add_func("/tracedb/seal", test_seal);
    g_test_add_func("/tracedb/pending-is-wal", test_pending_is_wal);
    g_test_add_func("/tracedb/pending-rows-kept", test_pending_rows_kept);
    g_test_add_func("/tracedb/hot-journal-read", test_hot_journal_read);
    g_test_add_func("/tracedb/side-not-regular", test_side_not_regular);
    g_test_add_func("/tracedb/refuse-foreign", test_refuse_foreign);
    g_test_add_func("/tracedb/refuse-newer", test_refuse_newer);
    g_test_add_func("/tracedb/kind-sets", test_kind_sets);
    g_test_add_func("/tracedb/run-rows", test_run_rows);
    g_test_add_func("/tracedb/open-damaged-or-foreign", test_open_damaged_or_foreign);
    g_test_add_func("/tracedb/refuse-special", test_refuse_special);
    g_test_add_func("/tracedb/mode", test_mode_and_no_temporaries);
    g_test_add_func("/tracedb/long-path", test_long_path);
    g_test_add_func("/recorder/lossless", test_recorder_lossless);
    return unit_run();
}
