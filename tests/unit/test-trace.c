/* The trace's life in a run (launcher/trace.h): its statements prepare on a trace of this
 * schema, -o's forms resolve as documented, a trace whose command never started leaves
 * nothing behind, and the process tree's note says what the watcher lost. */
#include "trace.h"

#include "stmt.h"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

static char *tmpdir(void)
{
    g_autoptr(GError) e = NULL;
    char *d = g_dir_make_tmp("test-trace-XXXXXX", &e);
    g_assert_no_error(e);
    return d;
}

/* Every statement trace.c declares prepares on a new trace. */
static void test_statements(void)
{
    g_autofree char *dir = tmpdir();
    g_autofree char *path = g_build_filename(dir, "t.db", NULL);
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(path, 0600, &db, NULL, NULL), ==, 0);
    size_t n = 0, mine = 0;
    const struct tracedb_statement *const *all = tracedb_statements(&n);
    for (size_t i = 0; i < n; i++) {
        if (!g_str_has_suffix(all[i]->file, "launcher/trace.c"))
            continue;
        mine++;
        g_assert_cmpint(all[i]->min_schema, <=, TRACEDB_SCHEMA_VERSION);
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db, all[i]->sql, -1, &st, NULL);
        if (rc != SQLITE_OK)
            g_error("%s: %s", all[i]->name, sqlite3_errmsg(db));
        sqlite3_finalize(st);
    }
    g_assert_cmpuint(mine, ==, 4);
    sqlite3_close(db);
    g_unlink(path);
    g_rmdir(dir);
}

/* -o FILE relative or absolute, the default, and -o DIR (a link to one too: the real
 * directory, named as given). */
static void test_paths(void)
{
    g_autofree char *dir = tmpdir();
    g_autofree char *sub = g_build_filename(dir, "out", NULL);
    g_autofree char *link = g_build_filename(dir, "link", NULL);
    g_assert_cmpint(g_mkdir(sub, 0700), ==, 0);
    g_assert_cmpint(symlink(sub, link), ==, 0);
    g_autofree char *real_sub = realpath(sub, NULL);
    struct {
        const char *given, *shown, *path; /* path: relative to dir, or absolute */
    } cases[] = {
        {NULL, "buildtrail.db", "buildtrail.db"},
        {"t.db", "t.db", "t.db"},
        {"/x/y.db", "/x/y.db", "/x/y.db"},
        {"nothere/t.db", "nothere/t.db", "nothere/t.db"},
    };
    g_autofree char *cwd = g_get_current_dir();
    g_assert_cmpint(chdir(dir), ==, 0);
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        struct trace t;
        trace_init(&t);
        trace_resolve_path(&t, cases[i].given, dir);
        g_assert_cmpstr(t.shown, ==, cases[i].shown);
        g_autofree char *want = cases[i].path[0] == '/' ? g_strdup(cases[i].path)
                                                        : g_build_filename(dir, cases[i].path, NULL);
        g_assert_cmpstr(t.path, ==, want);
        trace_close(&t);
    }
    const char *dirs[] = {"out", "link"};
    for (size_t i = 0; i < G_N_ELEMENTS(dirs); i++) {
        struct trace t;
        trace_init(&t);
        trace_resolve_path(&t, dirs[i], dir);
        g_autofree char *shown = g_build_filename(dirs[i], "buildtrail.db", NULL);
        g_autofree char *want = g_build_filename(real_sub, "buildtrail.db", NULL);
        g_assert_cmpstr(t.shown, ==, shown);
        g_assert_cmpstr(t.path, ==, want);
        trace_close(&t);
    }
    g_assert_cmpint(chdir(cwd), ==, 0);
    g_unlink(link);
    g_rmdir(sub);
    g_rmdir(dir);
}

static bool no_dir(void *ctx, const char *path, bool follow) { return false; }
static unsigned long no_type(void *ctx, const char *path) { return 0; }
static unsigned long no_flags(void *ctx, const char *path) { return 0; }

/* Created at a temporary name with its run row; never published, closing removes it and the
 * path stays free ("no trace written to"). */
static void test_never_published(void)
{
    g_autofree char *dir = tmpdir();
    static const struct plan_probe probe = {no_dir, no_type, no_flags, NULL};
    struct plan_input in = {.max_trees = 4};
    struct plan *p = plan_new(&in, &probe);
    plan_set_workspace(p, dir);
    char make[] = "make", token[] = "--token=secret";
    char *argv[] = {make, token, NULL};
    char *redact[] = {NULL};
    struct trace t;
    trace_init(&t);
    trace_resolve_path(&t, "t.db", dir);
    struct trace_start s = {argv, redact, dir, "-o t.db", 0600, p};
    g_assert_cmpint(trace_create(&t, &s), ==, 0);
    g_assert_null(t.db);
    g_assert_false(t.published);
    g_assert_true(g_file_test(t.pending.tmp_path, G_FILE_TEST_IS_REGULAR));
    g_assert_false(g_file_test(t.path, G_FILE_TEST_EXISTS));
    g_assert_null(trace_problem(&t));
    g_autofree char *said = trace_not_replaced(&t);
    g_assert_cmpstr(said, ==, "no trace written to t.db");
    g_autofree char *tmp = g_strdup(t.pending.tmp_path);
    trace_close(&t);
    g_assert_false(g_file_test(tmp, G_FILE_TEST_EXISTS));
    g_assert_cmpint(g_rmdir(dir), ==, 0); /* nothing left in it */
    plan_free(p);
}

static void test_note_lost(void)
{
    g_autofree char *a = trace_note_lost(g_strdup("complete"), "2 opens");
    g_assert_cmpstr(a, ==, "incomplete: 2 opens");
    g_autofree char *b = trace_note_lost(g_strdup("partial: no events"), "2 opens");
    g_assert_cmpstr(b, ==, "incomplete: 2 opens; partial: no events");
    g_autofree char *c = trace_note_lost(NULL, "2 opens");
    g_assert_cmpstr(c, ==, "incomplete: 2 opens; not recorded");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/trace/statements", test_statements);
    g_test_add_func("/trace/paths", test_paths);
    g_test_add_func("/trace/never-published", test_never_published);
    g_test_add_func("/trace/note-lost", test_note_lost);
    return g_test_run();
}
