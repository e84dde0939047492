/* Unit tests: file versions — hashing (SHA-256, git blob id), the write/read state machine,
 * and that a writer waits until the content it would change is hashed. */
#include "recorder.h"
#include "tracedb.h"
#include "unit-sql.h"
#include "versions.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *hex(const uint8_t *b, size_t n)
{
    GString *s = g_string_new(NULL);
    for (size_t i = 0; i < n; i++)
        g_string_append_printf(s, "%02x", b[i]);
    return g_string_free(s, FALSE);
}

static int write_file(const char *name, const char *content, struct stat *st)
{
    g_autofree char *p = unit_path(name);
    g_assert_true(g_file_set_contents(p, content, -1, NULL));
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    g_assert_cmpint(fd, >=, 0);
    if (st)
        g_assert_cmpint(fstat(fd, st), ==, 0);
    return fd;
}

static void test_hash_known(void)
{
    uint8_t sha[32], sha1[20], git[20];
    int64_t size = -1;
    int fd = write_file("empty", "", NULL);
    g_assert_cmpint(vers_hash_fd(fd, 0, sha, sha1, git, &size), ==, 0);
    close(fd);
    g_assert_cmpint(size, ==, 0);
    g_autofree char *s1 = hex(sha, 32), *g1 = hex(git, 20);
    g_assert_cmpstr(s1, ==, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    g_assert_cmpstr(g1, ==, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"); /* git's empty blob */
    fd = write_file("hello", "hello\n", NULL);
    g_assert_cmpint(vers_hash_fd(fd, 0, sha, sha1, git, &size), ==, 0);
    close(fd);
    g_autofree char *s2 = hex(sha, 32), *g2 = hex(git, 20), *p2 = hex(sha1, 20);
    g_assert_cmpstr(p2, ==, "f572d396fae9206628714fb2ce00f72e94f2258f"); /* sha1sum */
    g_assert_cmpstr(s2, ==, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
    g_assert_cmpstr(g2, ==, "ce013625030ba8dba906f756967f9e9ca394464a"); /* git hash-object */
    /* Over the limit: not hashed, but its size is known. */
    fd = write_file("big", "0123456789", NULL);
    g_assert_cmpint(vers_hash_fd(fd, 9, sha, sha1, git, &size), ==, -EFBIG);
    g_assert_cmpint(size, ==, 10);
    g_assert_cmpint(vers_hash_fd(fd, 10, sha, sha1, git, &size), ==, 0);
    close(fd);
}

struct fixture {
    sqlite3 *db;
    struct rec *rec;
    struct vers *v;
};

static void fx_start(struct fixture *f, const char *name)
{
    g_autofree char *p = unit_path(name);
    g_assert_cmpint(tracedb_create(p, 0600, &f->db, NULL, NULL), ==, 0);
    g_assert_cmpint(rec_start(&f->rec, f->db), ==, 0);
    f->v = vers_new(f->rec, 2, 0);
}

static void fx_stop(struct fixture *f)
{
    vers_free(f->v);
    g_assert_cmpint(rec_stop(f->rec, &f->db), ==, 0);
    rec_free(f->rec);
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
    int64_t reads = -1, v2 = 0, v2b = 0, v3 = 0, v4 = 0;
    struct vers_writer *a = vers_write_begin(f.v, st.st_dev, st.st_ino, file_id, false, &v2, &reads);
    g_assert_cmpint(v2, >, v1);
    g_assert_cmpint(reads, ==, v1);
    struct vers_writer *b = vers_write_begin(f.v, st.st_dev, st.st_ino, file_id, false, &v2b, &reads);
    g_assert_cmpint(v2b, ==, v2);
    g_assert_cmpint(reads, ==, v2);
    g_assert_cmpint(vers_current(f.v, st.st_dev, st.st_ino), ==, v2);
    vers_write_end(f.v, a, dup(fd));
    vers_write_end(f.v, b, dup(fd));

    /* A failed open that began a version alone: the version before is current again. */
    struct vers_writer *c = vers_write_begin(f.v, st.st_dev, st.st_ino, file_id, true, &v3, &reads);
    g_assert_cmpint(reads, ==, 0);
    vers_write_abort(f.v, c);
    g_assert_cmpint(vers_current(f.v, st.st_dev, st.st_ino), ==, v2);

    /* An unreadable file still gets its version, with the error. */
    struct stat st2;
    int fd2 = write_file("g", "x", &st2);
    struct vers_writer *d = vers_write_begin(f.v, st2.st_dev, st2.st_ino, file_id, true, &v4, NULL);
    vers_write_end(f.v, d, -EACCES);
    close(fd2);
    close(fd);
    fx_stop(&f);

    g_assert_cmpint(unit_sql_int(f.db, "SELECT count(*) FROM versions"), ==, 3);
    g_autofree char *q1 = g_strdup_printf("SELECT origin FROM versions WHERE id=%" G_GINT64_FORMAT, v1);
    g_assert_cmpint(unit_sql_int(f.db, q1), ==, TRACEDB_VERSION_FOUND);
    g_autofree char *q2 = g_strdup_printf("SELECT base_id FROM versions WHERE id=%" G_GINT64_FORMAT
                                          " AND origin=2 AND size=4", v2);
    g_assert_cmpint(unit_sql_int(f.db, q2), ==, v1);
    g_autofree char *q3 = g_strdup_printf("SELECT count(*) FROM versions WHERE id=%" G_GINT64_FORMAT, v3);
    g_assert_cmpint(unit_sql_int(f.db, q3), ==, 0);
    g_autofree char *q4 = g_strdup_printf("SELECT hash_error FROM versions WHERE id=%" G_GINT64_FORMAT
                                          " AND sha256 IS NULL", v4);
    g_assert_cmpint(unit_sql_int(f.db, q4), ==, EACCES);
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

static struct vers_writer *begun;

static gpointer begin_writer(gpointer p)
{
    struct waiter *w = p;
    begun = vers_write_begin(w->v, w->st.st_dev, w->st.st_ino, w->file_id, true, NULL, NULL);
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
    vers_write_end(f.v, begun, dup(fd));
    close(fd);
    fx_stop(&f);
    g_assert_cmpint(unit_sql_int(f.db, "SELECT count(*) FROM versions WHERE sha256 IS NOT NULL"), ==, 2);
    sqlite3_close(f.db);
}

/* A writer closed its file (FLUSH) but its release has not come yet when the next writer
 * truncates the file: its version is finished and hashed first, with the content its readers
 * saw, and its late release changes nothing. */
static void test_late_release(void)
{
    struct fixture f;
    fx_start(&f, "late.db");
    struct stat st;
    g_autofree char *p = unit_path("late");
    int fd = write_file("late", "", &st);
    close(fd);
    int64_t file_id = rec_file_id(f.rec, "/x/late");
    int64_t v1 = 0, v2 = 0;
    struct vers_writer *a = vers_write_begin(f.v, st.st_dev, st.st_ino, file_id, true, &v1, NULL);
    int wfd = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
    vers_write_opened(f.v, a, wfd);
    vers_write_dirty(a);
    g_assert_cmpint(write(wfd, "first\n", 6), ==, 6);
    vers_write_flushed(f.v, a); /* closed; RELEASE still in flight */
    bool need;
    g_assert_cmpint(vers_read(f.v, st.st_dev, st.st_ino, file_id, &need), ==, v1); /* a reader */
    struct vers_writer *b = vers_write_begin(f.v, st.st_dev, st.st_ino, file_id, true, &v2, NULL);
    g_assert_cmpint(v2, >, v1); /* a new version, not joined to the finished one */
    int wfd2 = open(p, O_WRONLY | O_TRUNC | O_CLOEXEC);
    vers_write_opened(f.v, b, wfd2);
    g_assert_cmpint(write(wfd2, "second\n", 7), ==, 7);
    vers_write_end(f.v, a, -EBADF); /* the late release */
    vers_write_end(f.v, b, open(p, O_RDONLY | O_CLOEXEC));
    close(wfd);
    close(wfd2);
    fx_stop(&f);
    g_autofree char *q2 = g_strdup_printf("SELECT size FROM versions WHERE id=%" G_GINT64_FORMAT, v1);
    g_assert_cmpint(unit_sql_int(f.db, q2), ==, 6);
    g_autofree char *q3 = g_strdup_printf("SELECT size FROM versions WHERE id=%" G_GINT64_FORMAT, v2);
    g_assert_cmpint(unit_sql_int(f.db, q3), ==, 7);
    sqlite3_close(f.db);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/versions/hash-known", test_hash_known);
    g_test_add_func("/versions/state-machine", test_state_machine);
    g_test_add_func("/versions/writer-waits-for-hash", test_writer_waits_for_hash);
    g_test_add_func("/versions/late-release", test_late_release);
    return unit_run();
}
