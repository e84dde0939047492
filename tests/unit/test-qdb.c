/* Unit tests of the reader library (query/lib/qdb), without the CLI: the run's state and
 * completeness as qdb_open reads them, processes and files, and the sticky error that makes a
 * damaged trace an error instead of an answer. */
#include "qdb.h"
#include "tracedb.h"
#include "unit-sql.h"

#include <errno.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

/* A small trace: run row (started), two processes, one file; `end` writes the run's end with
 * `state`, `tree` and `failure` (NULL: no end, as a killed run leaves it). */
static char *make_trace(const char *name, const char *state, const char *tree, const char *failure)
{
    char *p = unit_path(name);
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    static const char args[] = "make\0-j2";
    struct tracedb_run_start s = {.argv = args, .argv_len = sizeof args, .cwd = "/w",
                                  .start_realtime_ns = 1700000000000000000, .start_ns = 100,
                                  .hostname = "h", .version = "t"};
    g_assert_cmpint(tracedb_write_run_start(db, &s, NULL), ==, 0);
    g_assert_cmpint(tracedb_exec(db,
                                 "INSERT INTO processes (id, pid, start_ticks, exec_seq, "
                                 "parent_id, start_ns, first_seen_ns, comm, exe, cwd, argv) "
                                 "VALUES (1, 10, 5, 0, NULL, 100, 100, 'make', '/usr/bin/make', "
                                 "'/w', X'6D616B6500'), (2, 11, 6, 0, 1, 150, 150, 'cc', "
                                 "'/usr/bin/cc', '/w', X'636300');"
                                 "INSERT INTO files (id, path) VALUES (1, '/w/a.c');",
                                 NULL), ==, 0);
    if (state) {
        struct tracedb_run_end e = {.end_ns = 2000000100, .exit_status = 0, .state = state,
                                    .root_process_id = 1, .notes = "", .process_tree = tree,
                                    .failure = failure};
        g_assert_cmpint(tracedb_write_run_end(db, &e, NULL), ==, 0);
    }
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
    return p;
}

static struct qdb *open_ok(const char *path)
{
    struct qdb *q = NULL;
    g_autofree char *err = NULL;
    g_assert_cmpint(qdb_open(path, &q, &err), ==, 0);
    g_assert_false(qdb_failed(q));
    return q;
}

static void test_states(void)
{
    g_autofree char *fin = make_trace("fin.db", TRACEDB_RUN_FINISHED, "complete", NULL);
    struct qdb *q = open_ok(fin);
    const struct qdb_run *r = qdb_run(q);
    g_assert_cmpint(r->state, ==, QDB_RUN_FINISHED);
    g_assert_true(r->complete);
    g_assert_null(r->incomplete);
    g_assert_cmpint(r->exit_status, ==, 0);
    g_assert_cmpint(r->end_realtime_ns, ==, 1700000000000000000 + 2000000000);
    g_assert_cmpstr(r->cwd, ==, "/w");
    qdb_close(q);

    /* A run with no end and no recorder alive: killed; no end time. */
    g_autofree char *killed = make_trace("killed.db", NULL, NULL, NULL);
    q = open_ok(killed);
    r = qdb_run(q);
    g_assert_cmpint(r->state, ==, QDB_RUN_KILLED);
    g_assert_false(r->complete);
    g_assert_nonnull(strstr(r->incomplete, "killed"));
    g_assert_cmpint(r->end_realtime_ns, ==, 0);
    qdb_close(q);

    g_autofree char *failed = make_trace("failed.db", TRACEDB_RUN_FAILED, "complete", "disk full");
    q = open_ok(failed);
    r = qdb_run(q);
    g_assert_cmpint(r->state, ==, QDB_RUN_FAILED);
    g_assert_false(r->complete);
    g_assert_nonnull(strstr(r->incomplete, "disk full"));
    qdb_close(q);

    g_autofree char *intr = make_trace("intr.db", TRACEDB_RUN_INTERRUPTED, "complete", NULL);
    q = open_ok(intr);
    g_assert_cmpint(qdb_run(q)->state, ==, QDB_RUN_INTERRUPTED);
    g_assert_false(qdb_run(q)->complete);
    qdb_close(q);

    /* Finished, but the process tree is partial: incomplete.  Missing exits only: complete. */
    g_autofree char *partial = make_trace("partial.db", TRACEDB_RUN_FINISHED,
                                          "partial: no process events", NULL);
    q = open_ok(partial);
    g_assert_false(qdb_run(q)->complete);
    g_assert_nonnull(strstr(qdb_run(q)->incomplete, "process tree is partial"));
    qdb_close(q);
    g_autofree char *exits = make_trace("exits.db", TRACEDB_RUN_FINISHED,
                                        "complete, except the exit of 1 process", NULL);
    q = open_ok(exits);
    g_assert_true(qdb_run(q)->complete);
    qdb_close(q);
}

static void test_processes_and_files(void)
{
    g_autofree char *p = make_trace("pf.db", TRACEDB_RUN_FINISHED, "complete", NULL);
    struct qdb *q = open_ok(p);
    const struct qdb_process *cc = qdb_process(q, 2);
    g_assert_nonnull(cc);
    g_assert_cmpint(cc->parent_id, ==, 1);
    g_assert_cmpstr(qdb_process_program(cc), ==, "cc");
    g_assert_null(qdb_process(q, 99));
    g_assert_cmpint(qdb_file_id(q, "/w/a.c"), ==, 1);
    g_assert_cmpint(qdb_file_id(q, "/w/none.c"), ==, 0);
    g_assert_false(qdb_failed(q)); /* "none" is an answer, not an error */
    qdb_close(q);
}

/* An error is kept: once a statement fails, every later step says "no row" *and* qdb_failed
 * is true, with a sentence naming the trace. */
static void test_sticky_error(void)
{
    g_autofree char *p = make_trace("sticky.db", TRACEDB_RUN_FINISHED, "complete", NULL);
    struct qdb *q = open_ok(p);
    sqlite3_stmt *st = NULL;
    g_assert_false(qdb_prepare(q, "SELECT nope FROM nowhere", &st));
    g_assert_null(st);
    g_assert_true(qdb_failed(q));
    g_assert_nonnull(strstr(qdb_error(q), "the trace "));
    g_assert_nonnull(strstr(qdb_error(q), "is damaged"));
    g_assert_null(qdb_process(q, 1)); /* a row that exists is not read after the error */
    g_assert_false(qdb_prepare(q, "SELECT 1", &st));
    qdb_close(q);
}

/* Run `sql` on the trace at `p`. */
static void edit(const char *p, const char *sql)
{
    sqlite3 *db = NULL;
    g_assert_cmpint(sqlite3_open(p, &db), ==, SQLITE_OK);
    g_assert_cmpint(sqlite3_exec(db, sql, NULL, NULL, NULL), ==, SQLITE_OK);
    sqlite3_close(db);
}

/* A trace missing a table of its schema version, or with a view or other columns in its
 * place, is damaged at open (-EBADMSG, the sentence saying which). */
static void test_missing_table(void)
{
    static const struct {
        const char *sql, *says;
    } cases[] = {
        {"DROP TABLE versions", "no table 'versions'"},
        {"ALTER TABLE exits RENAME TO e; CREATE VIEW exits AS SELECT * FROM e",
         "a view 'exits' where a table should be"},
        {"ALTER TABLE files ADD COLUMN x", "its table 'files' does not have the columns"},
        {"ALTER TABLE meta RENAME TO m; CREATE VIEW meta AS WITH RECURSIVE r(n) AS (SELECT 1 "
         "UNION ALL SELECT n + 1 FROM r) SELECT key, value FROM m, r",
         "a view 'meta' where a table should be"},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *name = g_strdup_printf("schema%zu.db", i);
        g_autofree char *p = make_trace(name, TRACEDB_RUN_FINISHED, "complete", NULL);
        edit(p, cases[i].sql);
        struct qdb *q = NULL;
        g_autofree char *err = NULL;
        g_assert_cmpint(qdb_open(p, &q, &err), ==, -EBADMSG);
        g_assert_nonnull(strstr(err, cases[i].says));
    }
}

/* A parent or an earlier image that is not older than the image is damage (a walk up a
 * cycle would never end): the row's links are cleared and the error is kept. */
static void test_links_checked(void)
{
    g_autofree char *p = make_trace("cycle.db", TRACEDB_RUN_FINISHED, "complete", NULL);
    edit(p, "UPDATE processes SET parent_id = 2 WHERE id = 2");
    struct qdb *q = open_ok(p);
    g_assert_false(qdb_failed(q));
    const struct qdb_process *cc = qdb_process(q, 2);
    g_assert_nonnull(cc);
    g_assert_cmpint(cc->parent_id, ==, 0);
    g_assert_true(qdb_failed(q));
    g_assert_nonnull(strstr(qdb_error(q), "process 2 names as its parent 2, not an earlier"));
    qdb_close(q);
}

/* No root process, or a process_tree note buildtrail does not write: not complete. */
static void test_not_complete(void)
{
    g_autofree char *p = make_trace("noroot.db", TRACEDB_RUN_FINISHED, "complete", NULL);
    edit(p, "DELETE FROM processes");
    struct qdb *q = open_ok(p);
    g_assert_false(qdb_run(q)->complete);
    g_assert_nonnull(strstr(qdb_run(q)->incomplete, "root process"));
    qdb_close(q);
    g_autofree char *odd = make_trace("odd.db", TRACEDB_RUN_FINISHED, "completely made up", NULL);
    q = open_ok(odd);
    g_assert_false(qdb_run(q)->complete);
    qdb_close(q);
}

/* SQLite's heap is limited, and a statement that runs past the trace's budget of VM steps is
 * stopped, as damage. */
static void test_step_budget(void)
{
    g_autofree char *p = make_trace("steps.db", TRACEDB_RUN_FINISHED, "complete", NULL);
    struct qdb *q = open_ok(p);
    g_assert_cmpint(sqlite3_hard_heap_limit64(-1), ==, QDB_HEAP_MAX); /* (a query) */
    q->step_budget = q->step_ticks + 2; /* a few million steps from here */
    sqlite3_stmt *st = NULL;
    g_assert_true(qdb_prepare(q, "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM "
                                 "r) SELECT count(*) FROM r", &st));
    g_assert_false(qdb_row(q, st));
    sqlite3_finalize(st);
    g_assert_true(qdb_failed(q));
    g_assert_nonnull(strstr(qdb_error(q), "is damaged: its queries ran past"));
    qdb_close(q);
}

/* Where an `ln -s` or `cmake -E create_symlink` command line made a link point (the
 * trace records a link's creation, not its target). */
static void test_link_target_from_argv(void)
{
    static const struct {
        const char *argv; /* words separated by '|' */
        const char *cwd, *link, *want;
    } cases[] = {
        {"ln|-s|libfoo.so.1.0.0|libfoo.so", "/w/.libs", "/w/.libs/libfoo.so",
         "/w/.libs/libfoo.so.1.0.0"},
        {"/bin/ln|-sf|libfoo.so.1.0.0|.libs/libfoo.so", "/w", "/w/.libs/libfoo.so",
         "/w/.libs/libfoo.so.1.0.0"}, /* relative to the link's directory, not the cwd */
        {"ln|-s|.libs/t|.libs/l", "/w", "/w/.libs/l", "/w/.libs/.libs/t"}, /* (dangling) */
        {"ln|-s|../lib/x.so|bin/", "/w", "/w/bin/x.so", "/w/lib/x.so"},
        {"ln|--symbolic|--force|/abs/t|l", "/w", "/w/l", "/abs/t"},
        {"ln|-s|/abs/t", "/w", "/w/t", "/abs/t"},              /* one operand: its name here */
        {"ln|-st|d|a|b", "/w", "/w/d/b", "/w/d/b"},            /* -t DIR: every operand */
        {"ln|-s|--target-directory=d|a", "/w", "/w/d/a", "/w/d/a"},
        {"ln|-s|-S|.bak|a|l", "/w", "/w/l", "/w/a"},           /* -S's value is no operand */
        {"ln|-s|--|-odd|l", "/w", "/w/l", "/w/-odd"},
        /* -r: the target as given is relative to the cwd, not to the link's directory */
        {"ln|-sr|.libs/t|.libs/l", "/w", "/w/.libs/l", "/w/.libs/t"},
        {"ln|-s|--relative|src/a|sub/", "/w", "/w/sub/a", "/w/src/a"},
        {"ln|-rst|d|a", "/w", "/w/d/a", "/w/a"},
        /* long options abbreviated, as getopt_long takes them */
        {"ln|--sym|--rel|src/a|sub/l", "/w", "/w/sub/l", "/w/src/a"},
        {"ln|-s|--target=d|a", "/w", "/w/d/a", "/w/d/a"},
        {"ln|-s|--su|.bak|a|l", "/w", "/w/l", "/w/a"},
        {"cmake|-E|create_symlink|libz.so.1|libz.so", "/b", "/b/libz.so", "/b/libz.so.1"},
        {"ln|a|l", "/w", "/w/l", NULL},                      /* a hard link */
        {"ln|-s|a|l", "/w", "/w/other", NULL},               /* another link */
        {"cp|-s|a|l", "/w", "/w/l", NULL},
        {"ln|-s|a|l", "relative", "/w/l", NULL},
        {"ln|-s", "/w", "/w/l", NULL},
        {"ln|-st", "/w", "/w/l", NULL},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *argv = g_strdup(cases[i].argv);
        size_t len = strlen(argv) + 1;
        for (char *c = argv; *c; c++)
            if (*c == '|')
                *c = '\0';
        g_autofree char *got = qdb_link_target_from_argv(argv, len, cases[i].cwd, cases[i].link);
        g_test_message("case %zu: %s", i, cases[i].argv);
        g_assert_cmpstr(got, ==, cases[i].want);
    }
    g_assert_null(qdb_link_target_from_argv(NULL, 0, "/w", "/w/l"));
    /* argv not ending in NUL (a crafted trace): read within its length only */
    static const char unterminated[9] = {'l', 'n', 0, '-', 's', 0, 't', 0, 'l'};
    g_autofree char *t = qdb_link_target_from_argv(unterminated, 9, "/w", "/w/l");
    g_assert_cmpstr(t, ==, "/w/t");
}

/* Links on disk resolved as the kernel walks them; a missing rest kept as given; a loop
 * ends. */
static void test_resolve_links(void)
{
    g_autofree char *d = unit_path("links");
    g_assert_cmpint(g_mkdir_with_parents(d, 0700), ==, 0);
    g_autofree char *lib = g_build_filename(d, "lib", NULL);
    g_assert_cmpint(g_mkdir_with_parents(lib, 0700), ==, 0);
    g_autofree char *f = g_build_filename(lib, "libfoo.so.1.0.0", NULL);
    g_assert_true(g_file_set_contents(f, "x", 1, NULL));
    g_autofree char *l1 = g_build_filename(lib, "libfoo.so.1", NULL);
    g_autofree char *l0 = g_build_filename(lib, "libfoo.so", NULL);
    g_autofree char *dl = g_build_filename(d, "dirlink", NULL);
    g_autofree char *loop = g_build_filename(d, "loop", NULL);
    g_assert_cmpint(symlink("libfoo.so.1.0.0", l1), ==, 0);
    g_assert_cmpint(symlink("libfoo.so.1", l0), ==, 0);
    g_assert_cmpint(symlink(lib, dl), ==, 0);
    g_assert_cmpint(symlink("loop", loop), ==, 0);
    int n = -1;
    g_autofree char *r1 = qdb_resolve_links(l0, &n);
    g_assert_cmpstr(r1, ==, f);
    g_assert_cmpint(n, ==, 2);
    g_autofree char *via = g_build_filename(dl, "libfoo.so", NULL);
    g_autofree char *r2 = qdb_resolve_links(via, &n);
    g_assert_cmpstr(r2, ==, f);
    g_assert_cmpint(n, ==, 3);
    g_autofree char *up = g_build_filename(dl, "..", "lib", "libfoo.so.1.0.0", NULL);
    g_autofree char *r3 = qdb_resolve_links(up, &n); /* ".." from the link's target */
    g_assert_cmpstr(r3, ==, f);
    g_autofree char *gone = g_build_filename(dl, "no", "such", NULL);
    g_autofree char *r4 = qdb_resolve_links(gone, &n);
    g_autofree char *want4 = g_build_filename(lib, "no", "such", NULL);
    g_assert_cmpstr(r4, ==, want4);
    g_autofree char *r5 = qdb_resolve_links(loop, &n);
    g_assert_cmpstr(r5, ==, loop);
    g_assert_cmpint(n, ==, 40);
    g_autofree char *r6 = qdb_resolve_links("/", &n);
    g_assert_cmpstr(r6, ==, "/");
    g_assert_cmpint(n, ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/qdb/states", test_states);
    g_test_add_func("/qdb/processes-and-files", test_processes_and_files);
    g_test_add_func("/qdb/sticky-error", test_sticky_error);
    g_test_add_func("/qdb/missing-table", test_missing_table);
    g_test_add_func("/qdb/links-checked", test_links_checked);
    g_test_add_func("/qdb/not-complete", test_not_complete);
    g_test_add_func("/qdb/step-budget", test_step_budget);
    g_test_add_func("/qdb/link-target-from-argv", test_link_target_from_argv);
    g_test_add_func("/qdb/resolve-links", test_resolve_links);
    return unit_run();
}
