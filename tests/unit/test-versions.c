/* Unit tests: file versions — hashing (SHA-256, git blob id), the write/read state machine,
 * and that a writer waits until the content it would change is hashed. */
#include "recorder.h"
#include "tracedb.h"
#include "versions.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmpdir;

static char *hex(const uint8_t *b, size_t n)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < n; i++)
        g_string_append_printf(s, "%02x", b[i]);
    return g_string_free(s, FALSE);
}

static int write_file(const char *name, const char *content, struct stat *st)
{
    g_autofree char *p = g_build_filename(tmpdir, name, NULL);
    g_assert_true(g_file_set_contents(p, content, -1, NULL));
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    g_assert_cmpint(fd, >=, 0);
    if (st)
        g_assert_cmpint(fstat(fd, st), ==, 0);
    return fd;
}

static void test_hash_known(void)
{
    uint8_t sha[32], git[20];
    int64_t size = -1;
    int fd = write_file("empty", "", NULL);
    g_assert_cmpint(vers_hash_fd(fd, sha, git, &size), ==, 0);
    close(fd);
    g_assert_cmpint(size, ==, 0);
    g_autofree char *s1 = hex(sha, 32), *g1 = hex(git, 20);
    g_assert_cmpstr(s1, ==, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    g_assert_cmpstr(g1, ==, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"); /* git's empty blob */
    fd = write_file("hello", "hello\n", NULL);
    g_assert_cmpint(vers_hash_fd(fd, sha, git, &size), ==, 0);
    close(fd);
    g_autofree char *s2 = hex(sha, 32), *g2 = hex(git, 20);
    g_assert_cmpstr(s2, ==, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
    g_assert_cmpstr(g2, ==, "ce013625030ba8dba906f756967f9e9ca394464a"); /* git hash-object */
}

struct fixture {
    sqlite3 *db;
    struct rec *rec;
    struct vers *v;
};

static void fx_start(struct fixture *f, const char *name)
{
    g_autofree char *p = g_build_filename(tmpdir, name, NULL);
    g_assert_cmpint(tracedb_create(p, &f->db, NULL, NULL), ==, 0);
    g_assert_cmpint(rec_start(&f->rec, f->db), ==, 0);
    f->v = vers_new(f->rec, 2);
}

static void fx_stop(struct fixture *f)
{
    vers_free(f->v);
    g_assert_cmpint(rec_stop(f->rec, &f->db), ==, 0);
    rec_free(f->rec);
}

static int64_t one(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    g_assert_cmpint(sqlite3_prepare_v2(db, sql, -1, &st, NULL), ==, SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static void test_state_machine(void)
{
    struct fixture f;
    fx_start(&f, "sm.db");
    struct stat st;
    int fd = write_file("f", "one\n", &st);
    int64_t file_id = rec_file_id(f.rec, "/x/f");

    /* First read: a found version, hashed from the fd. */
    bool need = false;
    int64_t v1 = vers_read(f.v, st.st_dev, st.st_ino, file_id, &need);
    g_assert_true(need);
    vers_hash_found(f.v, st.st_dev, st.st_ino, dup(fd));
    g_assert_cmpint(vers_read(f.v, st.st_dev, st.st_ino, file_id, &need), ==, v1);
    g_assert_false(need);

    /* Two writers share one version, on top of v1; readers meanwhile see it. */
    int64_t reads = -1;
    int64_t v2 = vers_write_begin(f.v, st.st_dev, st.st_ino, file_id, false, &reads);
    g_assert_cmpint(v2, >, v1);
    g_assert_cmpint(reads, ==, v1);
    g_assert_cmpint(vers_write_begin(f.v, st.st_dev, st.st_ino, file_id, false, &reads), ==, v2);
    g_assert_cmpint(reads, ==, v2);
    g_assert_cmpint(vers_current(f.v, st.st_dev, st.st_ino), ==, v2);
    vers_write_end(f.v, st.st_dev, st.st_ino, dup(fd));
    vers_write_end(f.v, st.st_dev, st.st_ino, dup(fd));

    /* A failed open that began a version alone: the version before is current again. */
    int64_t v3 = vers_write_begin(f.v, st.st_dev, st.st_ino, file_id, true, &reads);
    g_assert_cmpint(reads, ==, 0);
    vers_write_abort(f.v, st.st_dev, st.st_ino);
    g_assert_cmpint(vers_current(f.v, st.st_dev, st.st_ino), ==, v2);

    /* An unreadable file still gets its version, with the error. */
    struct stat st2;
    int fd2 = write_file("g", "x", &st2);
    int64_t v4 = vers_write_begin(f.v, st2.st_dev, st2.st_ino, file_id, true, NULL);
    vers_write_end(f.v, st2.st_dev, st2.st_ino, -EACCES);
    close(fd2);
    close(fd);
    fx_stop(&f);

    g_assert_cmpint(one(f.db, "SELECT count(*) FROM versions"), ==, 3);
    g_autofree char *q1 = g_strdup_printf("SELECT origin FROM versions WHERE id=%" G_GINT64_FORMAT, v1);
    g_assert_cmpint(one(f.db, q1), ==, TRACEDB_VERSION_FOUND);
    g_autofree char *q2 = g_strdup_printf("SELECT base_id FROM versions WHERE id=%" G_GINT64_FORMAT
                                          " AND origin=2 AND size=4", v2);
    g_assert_cmpint(one(f.db, q2), ==, v1);
    g_autofree char *q3 = g_strdup_printf("SELECT count(*) FROM versions WHERE id=%" G_GINT64_FORMAT, v3);
    g_assert_cmpint(one(f.db, q3), ==, 0);
    g_autofree char *q4 = g_strdup_printf("SELECT hash_error FROM versions WHERE id=%" G_GINT64_FORMAT
                                          " AND sha256 IS NULL", v4);
    g_assert_cmpint(one(f.db, q4), ==, EACCES);
    sqlite3_close(f.db);
}

/* A writer that begins while the content is being hashed waits for the hash: here the found
 * version's hash is not queued until a second thread has been waiting in vers_write_begin. */
struct waiter {
    struct vers *v;
    struct stat st;
    int64_t file_id;
    gint began;
};

static gpointer begin_writer(gpointer p)
{
    struct waiter *w = p;
    vers_write_begin(w->v, w->st.st_dev, w->st.st_ino, w->file_id, true, NULL);
    g_atomic_int_set(&w->began, 1);
    return NULL;
}

static void test_writer_waits_for_hash(void)
{
    struct fixture f;
    fx_start(&f, "wait.db");
    struct waiter w = {.v = f.v};
    int fd = write_file("h", "before\n", &w.st);
    w.file_id = rec_file_id(f.rec, "/x/h");
    bool need;
    int64_t v1 = vers_read(f.v, w.st.st_dev, w.st.st_ino, w.file_id, &need);
    g_assert_true(need);
    GThread *t = g_thread_new("writer", begin_writer, &w);
    g_usleep(100 * 1000);
    g_assert_cmpint(g_atomic_int_get(&w.began), ==, 0); /* still waiting for the hash */
    vers_hash_found(f.v, w.st.st_dev, w.st.st_ino, dup(fd));
    g_thread_join(t);
    g_assert_cmpint(g_atomic_int_get(&w.began), ==, 1);
    g_assert_cmpint(vers_current(f.v, w.st.st_dev, w.st.st_ino), >, v1);
    vers_write_end(f.v, w.st.st_dev, w.st.st_ino, dup(fd));
    close(fd);
    fx_stop(&f);
    g_assert_cmpint(one(f.db, "SELECT count(*) FROM versions WHERE sha256 IS NOT NULL"), ==, 2);
    sqlite3_close(f.db);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    tmpdir = g_dir_make_tmp("bt-unit-XXXXXX", NULL);
    g_test_add_func("/versions/hash-known", test_hash_known);
    g_test_add_func("/versions/state-machine", test_state_machine);
    g_test_add_func("/versions/writer-waits-for-hash", test_writer_waits_for_hash);
    int r = g_test_run();
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        r = 1;
    return r;
}
