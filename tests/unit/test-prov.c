/* Unit tests of the provenance layer (query/lib/prov) on a small hand-made trace: the union of
 * several closures in one walk (prov_inputs_of_all) against the walks one by one, and the
 * per-process and per-version lookups the exporters use. */
#include "prov.h"
#include "qdb.h"
#include "tracedb.h"
#include "unit-sql.h"
#include "unit-trace.h"

#include <glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

/*   cc  [2]: a.c, h.h           -> a.o    (v4)
 *   cc  [3]: b.c, h.h           -> b.o    (v5)
 *   ld  [4]: a.o, b.o           -> app    (v6)
 *   ld  [5]: b.o                -> lib.so (v7)
 *   ld  [6]: h.h, lib.so, exec ld -> pkg  (v8: a program linked with lib.so; h.h stands for
 *            the linker script a link reads first, so lib.so is not one of the loader's)
 * Found: a.c v1, b.c v2, h.h v3, /usr/bin/ld v9.  Every read comes before its writer's
 * write. */
static char *make_trace(void)
{
    return unit_crafted_trace(
        "prov.db",
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, "
        "start_ns, first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'cc', '/usr/bin/cc', '/w', X'636300612E6300'),"
        "(3, 12, 3, 0, 1, 120, 120, 'cc', '/usr/bin/cc', '/w', X'636300622E6300'),"
        "(4, 13, 4, 0, 1, 200, 200, 'ld', '/usr/bin/ld', '/w', X'6C6400'),"
        "(5, 14, 5, 0, 1, 210, 210, 'ld', '/usr/bin/ld', '/w', X'6C6400'),"
        "(6, 15, 6, 0, 1, 300, 300, 'ld', '/usr/bin/ld', '/w', X'6C6400');"
        "INSERT INTO files (id, path) VALUES (1, '/w/a.c'), (2, '/w/b.c'), "
        "(3, '/w/h.h'), (4, '/w/a.o'), (5, '/w/b.o'), (6, '/w/app'), "
        "(7, '/w/lib.so'), (8, '/w/pkg'), (9, '/usr/bin/ld');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
        "(1, 1, 1, 111, 111), (2, 2, 1, 121, 121), (3, 3, 1, 112, 112), "
        "(4, 4, 2, 150, 150), (5, 5, 2, 160, 160), (6, 6, 2, 250, 250), "
        "(7, 7, 2, 260, 260), (8, 8, 2, 350, 350), (9, 9, 1, 301, 301);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, "
        "version_id) VALUES "
        "(2, 1, 1, 111, 111, 1), (2, 3, 1, 112, 112, 3), (2, 4, 3, 140, 150, 4),"
        "(3, 2, 1, 121, 121, 2), (3, 3, 1, 122, 122, 3), (3, 5, 3, 150, 160, 5),"
        "(4, 4, 1, 201, 201, 4), (4, 5, 1, 202, 202, 5), (4, 6, 3, 240, 250, 6),"
        "(5, 5, 1, 211, 211, 5), (5, 7, 3, 250, 260, 7),"
        "(6, 9, 5, 301, 301, 9), (6, 3, 1, 301, 301, 3), (6, 7, 1, 302, 302, 7),"
        "(6, 8, 3, 340, 350, 8);"
        /* read as data (fopen: O_RDONLY), not mapped by the dynamic loader */
        "UPDATE accesses SET open_flags = 0 WHERE kind = 1;",
        400);
}

/* The prov of the trace at `path` (g_free'd). */
static struct prov *open_path(char *path, struct qdb **q)
{
    g_autofree char *err = NULL;
    g_assert_cmpint(qdb_open(path, q, &err), ==, 0);
    g_free(path);
    struct prov *p = prov_new(*q);
    g_assert_nonnull(p);
    return p;
}

static struct prov *open_prov(struct qdb **q)
{
    return open_path(make_trace(), q);
}

/* "id:role,id:role,..." of nodes, by id. */
static char *describe(GArray *nodes)
{
    GString *s = g_string_new(NULL);
    for (int64_t id = 1; id <= 9; id++)
        for (guint i = 0; i < nodes->len; i++) {
            const struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
            if (n->v->id == id)
                g_string_append_printf(s, "%s%" G_GINT64_FORMAT ":%s", s->len ? "," : "", id,
                                        prov_role_name(n->role));
        }
    return g_string_free(s, FALSE);
}

static void test_union_of_closures(void)
{
    struct qdb *q = NULL;
    struct prov *p = open_prov(&q);
    static const struct prov_walk_opts o = {.scripts = false, .stop_at_shlibs = true};
    /* pkg alone: lib.so is a shared library, listed and not followed. */
    GArray *one = prov_inputs(p, 8, &o);
    g_autofree char *pkg = describe(one);
    g_assert_cmpstr(pkg, ==, "3:header,7:shlib,9:tool");
    g_array_unref(one);
    /* pkg and lib.so together: lib.so is a start too, so what it was made from is in. */
    GArray *starts = g_array_new(FALSE, FALSE, sizeof(int64_t));
    int64_t s8 = 8, s7 = 7, s6 = 6;
    g_array_append_val(starts, s8);
    g_array_append_val(starts, s7);
    GArray *all = prov_inputs_of_all(p, starts, &o);
    g_autofree char *both = describe(all);
    g_assert_cmpstr(both, ==, "2:source,3:header,5:object,7:shlib,8:other,9:tool");
    g_array_unref(all);
    /* app and pkg: the union of the two closures, starts included. */
    g_array_set_size(starts, 0);
    g_array_append_val(starts, s6);
    g_array_append_val(starts, s8);
    all = prov_inputs_of_all(p, starts, &o);
    g_autofree char *u = describe(all);
    g_assert_cmpstr(u, ==, "1:source,2:source,3:header,4:object,5:object,6:other,7:shlib,8:other,"
                           "9:tool");
    g_array_unref(all);
    g_array_unref(starts);
    prov_free(p);
    qdb_close(q);
}

static void test_process_and_version_lookups(void)
{
    struct qdb *q = NULL;
    struct prov *p = open_prov(&q);
    GPtrArray *read = prov_process_versions(p, 6, PROV_OPENED);
    GPtrArray *ran = prov_process_versions(p, 6, PROV_EXECUTED);
    GPtrArray *made = prov_process_versions(p, 6, PROV_MADE);
    g_assert_cmpuint(read->len, ==, 2); /* h.h and lib.so, in id order */
    g_assert_cmpint(((const struct prov_version *)read->pdata[0])->id, ==, 3);
    g_assert_cmpint(((const struct prov_version *)read->pdata[1])->id, ==, 7);
    g_assert_cmpuint(ran->len, ==, 1);
    g_assert_cmpint(((const struct prov_version *)ran->pdata[0])->id, ==, 9);
    g_assert_cmpuint(made->len, ==, 1);
    g_assert_cmpint(((const struct prov_version *)made->pdata[0])->id, ==, 8);
    g_ptr_array_free(read, TRUE);
    g_ptr_array_free(ran, TRUE);
    g_ptr_array_free(made, TRUE);
    /* b.o: made by [3]; read by [4] and [5]; each once, even when asked twice. */
    GArray *who = g_array_new(FALSE, FALSE, sizeof(int64_t));
    prov_makers(p, 5, who);
    prov_makers(p, 5, who);
    g_assert_cmpuint(who->len, ==, 1);
    g_assert_cmpint(g_array_index(who, int64_t, 0), ==, 3);
    g_array_set_size(who, 0);
    prov_readers(p, 5, who);
    g_assert_cmpuint(who->len, ==, 2);
    g_assert_cmpint(g_array_index(who, int64_t, 0) + g_array_index(who, int64_t, 1), ==, 9);
    g_array_unref(who);
    prov_free(p);
    qdb_close(q);
}

/* prov_found_reads: each (file, kind, version, process) of a successful read of a found version
 * once, the graph's and those it does not hold (no process, a process id beyond the trace's),
 * not a built version's nor a failed read; the same rows TQ_FOUND_READS_WITH_PATHS gives. */
static void test_found_reads(void)
{
    char *path = unit_crafted_trace(
        "found-reads.db",
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, "
        "start_ns, first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'cc', '/usr/bin/cc', '/w', X'636300612E6300');"
        "INSERT INTO files (id, path) VALUES (1, '/w/a.c'), (2, '/usr/include/s.h'), "
        "(3, '/w/a.o'), (4, '/usr/bin/cc');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
        "(1, 1, 1, 111, 111), (2, 2, 1, 113, 113), (3, 3, 2, 150, 150), (4, 4, 1, 110, 110);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, result, "
        "version_id) VALUES "
        "(2, 4, 5, 110, 110, 0, 4), (2, 1, 1, 111, 111, 0, 1), (2, 1, 1, 112, 112, 0, 1),"
        "(2, 2, 1, 113, 113, 0, 2), (2, 3, 3, 140, 150, 0, 3), (NULL, 2, 1, 160, 160, 0, 2),"
        "(99, 2, 1, 161, 161, 0, 2), (1, 3, 1, 170, 170, 0, 3), (1, 2, 1, 171, 171, 2, 2);",
        400);
    sqlite3 *db = NULL;
    g_assert_cmpint(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
    g_autofree char *count = g_strdup_printf("SELECT COUNT(*) FROM (%s)",
                                             tracedb_sql(TQ_FOUND_READS_WITH_PATHS));
    int64_t sql_rows = unit_sql_int(db, count);
    sqlite3_close(db);
    struct qdb *q = NULL;
    struct prov *p = open_path(path, &q);
    GArray *reads = prov_found_reads(p);
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < reads->len; i++) {
        const struct prov_found_read *r = &g_array_index(reads, struct prov_found_read, i);
        g_string_append_printf(s, "%s%" G_GINT64_FORMAT ":%d:%" G_GINT64_FORMAT ":%s", i ? "," : "",
                               r->file_id, r->kind, r->version_id,
                               r->process_id == INT64_MIN ? "none"
                                                          : (r->process_id == 2 ? "2" : "99"));
    }
    g_assert_cmpstr(s->str, ==, "1:1:1:2,2:1:2:none,2:1:2:2,2:1:2:99,4:5:4:2");
    g_assert_cmpint(sql_rows, ==, reads->len);
    g_string_free(s, TRUE);
    g_array_unref(reads);
    prov_free(p);
    qdb_close(q);
}

/* "a,b,c" of int64 ids. */
static char *ids_text(GArray *ids)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < ids->len; i++)
        g_string_append_printf(s, "%s%" G_GINT64_FORMAT, i ? "," : "", g_array_index(ids, int64_t, i));
    return g_string_free(s, FALSE);
}

/* What one scan of the accesses answers (prov_load_bindings) is what a query per file
 * answers: the version at each path at the end, whether the path still exists, the files a
 * version was put at, and how each version was used.  On the trace above plus: app renamed to
 * app2, a temporary made and removed, b.o removed, a failed write of a.c and a read of h.h by
 * no known process (both count for nothing but the process-less read). */
static void test_bindings_scan(void)
{
    g_autofree char *path = make_trace();
    sqlite3 *db = NULL;
    g_assert_cmpint(sqlite3_open(path, &db), ==, SQLITE_OK);
    g_assert_cmpint(
        sqlite3_exec(db,
                     "INSERT INTO files (id, path) VALUES (10, '/w/app2'), (11, '/w/gone.tmp');"
                     "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
                     "(10, 11, 2, 370, 370);"
                     "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, "
                     "version_id, result) VALUES "
                     "(6, 6, 9, 360, 360, 6, 0), (6, 10, 10, 360, 360, 6, 0),"
                     "(6, 11, 3, 365, 370, 10, 0), (6, 11, 6, 380, 380, 10, 0),"
                     "(5, 5, 6, 390, 390, 5, 0), (6, 1, 2, 395, 395, 1, 13),"
                     "(NULL, 3, 1, 396, 396, 3, 0);",
                     NULL, NULL, NULL),
        ==, SQLITE_OK);
    sqlite3_close(db);
    g_autofree char *err = NULL;
    struct qdb *q = NULL, *q2 = NULL, *q3 = NULL;
    g_assert_cmpint(qdb_open(path, &q, &err), ==, 0);
    g_assert_cmpint(qdb_open(path, &q2, &err), ==, 0);
    g_assert_cmpint(qdb_open(path, &q3, &err), ==, 0);
    struct prov *by_sql = prov_new(q), *p = prov_new(q2), *by_graph = prov_new(q3);
    prov_load_bindings(p);
    prov_load(by_graph); /* its scan loads the bindings too */
    for (int64_t f = 0; f <= 12; f++) {
        g_assert_cmpint(prov_version_at(p, f), ==, prov_version_at(by_sql, f));
        g_assert_cmpint(prov_exists_at_end(p, f), ==, prov_exists_at_end(by_sql, f));
        g_assert_cmpint(prov_version_at(by_graph, f), ==, prov_version_at(by_sql, f));
        g_assert_cmpint(prov_exists_at_end(by_graph, f), ==, prov_exists_at_end(by_sql, f));
    }
    GArray *graph_made = prov_versions_used_as(by_graph, PROV_USE_MADE | PROV_USE_READ, false);
    g_autofree char *graph_made_s = ids_text(graph_made);
    g_assert_cmpstr(graph_made_s, ==, "1,2,3,4,5,6,7,8,9,10");
    g_array_unref(graph_made);
    /* A version's label: temporary when it was written and its path is gone at the end. */
    g_assert_cmpstr(prov_version_label(by_graph, prov_version(by_graph, 10)), ==, "temp");
    g_assert_cmpstr(prov_version_label(by_sql, prov_version(by_sql, 10)), ==, "temp");
    g_assert_cmpstr(prov_version_label(by_graph, prov_version(by_graph, 6)), !=, "temp");
    g_assert_cmpint(prov_version_at(p, 10), ==, 6);  /* app2 holds what app held */
    g_assert_cmpint(prov_version_at(p, 11), ==, 10); /* the temporary's last content */
    g_assert_false(prov_exists_at_end(p, 6));        /* app: renamed away */
    g_assert_true(prov_exists_at_end(p, 10));
    g_assert_false(prov_exists_at_end(p, 11));
    g_assert_false(prov_exists_at_end(p, 5));        /* b.o: removed */
    g_assert_true(prov_exists_at_end(p, 1));         /* a.c: its failed write changed nothing */
    GArray *files = prov_product_files(p);
    g_autofree char *files_s = ids_text(files);
    g_assert_cmpstr(files_s, ==, "4,6,10,5,11,7,8"); /* a.o app app2 b.o gone.tmp lib.so pkg */
    GArray *read = prov_versions_used_as(p, PROV_USE_READ, true);
    GArray *opened = prov_versions_used_as(p, PROV_USE_OPENED, true);
    GArray *made = prov_versions_used_as(p, PROV_USE_MADE, false);
    GArray *built_read = prov_versions_used_as(p, PROV_USE_READ, false);
    GArray *used = prov_versions_used_as(p, PROV_USE_BOUND, false);
    g_autofree char *read_s = ids_text(read), *opened_s = ids_text(opened),
                    *made_s = ids_text(made), *built_read_s = ids_text(built_read),
                    *used_s = ids_text(used);
    g_assert_cmpstr(read_s, ==, "1,2,3,9");
    g_assert_cmpstr(opened_s, ==, "1,2,3");
    g_assert_cmpstr(made_s, ==, "4,5,6,7,8,10");
    g_assert_cmpstr(built_read_s, ==, "1,2,3,4,5,7,9");
    g_assert_cmpstr(used_s, ==, "1,2,3,4,5,6,7,8,9,10");
    g_array_unref(files);
    g_array_unref(read);
    g_array_unref(opened);
    g_array_unref(made);
    g_array_unref(built_read);
    g_array_unref(used);
    prov_free(p);
    prov_free(by_sql);
    prov_free(by_graph);
    qdb_close(q);
    qdb_close(q2);
    qdb_close(q3);
}

static struct prov *open_crafted(const char *name, const char *sql, struct qdb **q)
{
    return open_path(unit_crafted_trace(name, sql, INT64_MAX / 2), q);
}

/* The CPU seconds a walk of a crafted big trace may take: an optimized build's bound (the
 * quadratic walks took 20 s and more); a sanitized or unoptimized build (CI's ASan pass) is
 * slower by a factor, and there the walks only have to end. */
#if defined(__OPTIMIZE__) && !defined(__SANITIZE_ADDRESS__)
#define WALK_SECONDS 10.0
#else
#define WALK_SECONDS 120.0
#endif

/* This process's CPU time in seconds (not the clock's: the machine may be busy). */
static double cpu_seconds(void)
{
    struct timespec ts;
    g_assert_cmpint(clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts), ==, 0);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* prov_inputs_of_all of the versions first..last (prov_inputs of one), timed: the CPU seconds
 * it took in *s. */
static GArray *timed_inputs(struct prov *p, int64_t first, int64_t last,
                            const struct prov_walk_opts *o, double *s)
{
    GArray *starts = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (int64_t i = first; i <= last; i++)
        g_array_append_val(starts, i);
    double t0 = cpu_seconds();
    GArray *in = first == last ? prov_inputs(p, first, o) : prov_inputs_of_all(p, starts, o);
    *s = cpu_seconds() - t0;
    g_array_unref(starts);
    g_assert_nonnull(in);
    return in;
}

/* One process that reads N files and rewrites each in place (sed -i on a tree, a fix-up over
 * every installed file): each read is checked against the files it rewrote, which must not be
 * a scan of them all (N = 40 000: 28 s when each output scanned every read, 0.5 s linear). */
static void test_many_rewrites_bounded(void)
{
    enum { N = 40000 };
    g_autofree char *sql = g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'sed', '/usr/bin/sed', '/w', X'7365640000');"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO files (id, path) SELECT i, '/w/f' || i FROM n;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO versions (id, file_id, origin, base_id, begin_ns, end_ns) "
        "SELECT i, i, 1, NULL, 1000 + 4 * i, 1000 + 4 * i FROM n UNION ALL "
        "SELECT %d + i, i, 2, NULL, 1002 + 4 * i, 1002 + 4 * i FROM n;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) SELECT 2, i, 1, 0, 1000 + 4 * i, 1000 + 4 * i, i FROM n UNION ALL "
        "SELECT 2, i, 4, 1, 1001 + 4 * i, 1002 + 4 * i, %d + i FROM n;",
        N, N, N, N, N);
    struct qdb *q = NULL;
    struct prov *p = open_crafted("rewrites.db", sql, &q);
    static const struct prov_walk_opts o = {.scripts = false, .stop_at_shlibs = true,
                                            .code_only = true};
    double s;
    GArray *in = timed_inputs(p, 2 * N, 2 * N, &o, &s);
    /* f_N's new version: its old one, read and rewritten in place, and no other file */
    g_assert_cmpuint(in->len, ==, 1);
    g_assert_cmpint(g_array_index(in, struct prov_node, 0).v->id, ==, N);
    g_assert_cmpint(g_array_index(in, struct prov_node, 0).role, ==, PROV_ROLE_COPY);
    g_array_unref(in);
    g_test_message("inputs of one of %d rewritten files: %.2f s", N, s);
    /* and of all of them at once (packages, the SBOMs) */
    in = timed_inputs(p, N + 1, 2 * N, &o, &s);
    g_test_message("inputs of all %d rewritten files: %.2f s", N, s);
    g_assert_cmpuint(in->len, ==, 2 * N);
    g_array_unref(in);
    g_assert_cmpfloat(s, <, WALK_SECONDS); /* (a scan of the reads per output: 20 s) */
    prov_free(p);
    qdb_close(q);
}

/* Odd process rows a crafted or cut-off trace holds, through every walk: a command line whose
 * last word has no NUL (`sh ./configure`), no command line, an empty program path, open flags
 * that are negative or past 32 bits.  Each walk ends, and the configure step's template is
 * still found from the unterminated word. */
static void test_odd_process_rows(void)
{
    static const char sql[] =
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        /* sh ./configure, with no NUL after ./configure */
        "(2, 11, 2, 0, 1, 110, 110, 'configure', '/bin/sh', '/w', X'7368002E2F636F6E666967757265'),"
        "(3, 12, 3, 0, 2, 120, 120, NULL, NULL, NULL, NULL),"
        "(4, 13, 4, 0, 1, 130, 130, NULL, '', '/w', X''),"
        /* strip a, with no NUL after a */
        "(5, 14, 5, 0, 1, 140, 140, 'strip', '/usr/bin/strip', '/w', X'737472697000' || X'61');"
        "INSERT INTO files (id, path) VALUES (1, '/w/config.h.in'), (2, '/w/config.h'), "
        "(3, '/w/libx.so'), (4, '/w/out'), (5, '/w/a'), (6, '');"
        "INSERT INTO versions (id, file_id, origin, base_id, begin_ns, end_ns, size, sha256) "
        "VALUES (1, 1, 1, NULL, 111, 111, 10, X'00'), (2, 2, 2, NULL, 115, 115, 10, NULL), "
        "(3, 3, 1, NULL, 112, 112, 10, NULL), (4, 4, 2, NULL, 125, 125, 10, NULL), "
        "(5, 5, 1, NULL, 141, 141, 10, NULL), (6, 5, 2, NULL, 145, 145, 10, NULL), "
        "(7, 6, 1, NULL, 131, 131, 0, NULL), (8, 4, 2, 4, 135, 135, 10, NULL);"
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) VALUES "
        "(2, 1, 1, -5, 111, 111, 1), (2, 3, 1, 1099511627776, 112, 112, 3),"
        "(2, 2, 3, 577, 113, 115, 2),"
        "(3, 2, 1, -2147483648, 121, 121, 2), (3, 4, 3, 577, 122, 125, 4),"
        "(4, 6, 1, 0, 131, 131, 7), (4, 4, 2, 2, 132, 135, 8),"
        "(5, 5, 1, 0, 141, 141, 5), (5, 5, 4, 1, 142, 145, 6);";
    struct qdb *q = NULL;
    struct prov *p = open_crafted("odd.db", sql, &q);
    const struct qdb_process *pr = qdb_process(q, 2);
    g_assert_nonnull(pr);
    g_assert_cmpuint(pr->argv_len, ==, 14);
    g_assert_cmpint(pr->argv[pr->argv_len], ==, '\0');
    static const struct prov_walk_opts code = {.scripts = true, .code_only = true};
    static const struct prov_walk_opts all = {.scripts = true, .stop_at_shlibs = true};
    static const struct prov_walk_opts every = {.scripts = true, .every_read = true};
    for (int round = 0; round < 2; round++) { /* by SQL, then on the graph */
        GArray *in = prov_inputs(p, 2, &code);
        g_autofree char *h = describe(in);
        g_assert_cmpstr(h, ==, "1:header"); /* config.h.in, the template */
        g_array_unref(in);
        in = prov_inputs(p, 6, &code);
        g_autofree char *a = describe(in);
        g_assert_cmpstr(a, ==, "5:copy"); /* strip a: a's old content */
        g_array_unref(in);
        for (int64_t v = 1; v <= 8; v++) {
            g_array_unref(prov_inputs(p, v, &code));
            g_array_unref(prov_inputs(p, v, &all));
            g_array_unref(prov_inputs(p, v, &every));
        }
        prov_load(p);
    }
    prov_free(p);
    qdb_close(q);
}

/* A chain of N processes, each the child of the one before, each writing a file from what the
 * one before wrote (a crafted trace; real builds nest a few levels): what each knows about its
 * ancestors (under a configure step?) is worked out once per process, not by a walk of up to
 * 4096 parents for each. */
static void test_deep_chain_bounded(void)
{
    enum { N = 60000 };
    g_autofree char *sql = g_strdup_printf(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) SELECT i, 10 + i, i, 0, NULLIF(i - 1, 0), "
        "1000 + 10 * i, 1000 + 10 * i, 'gen', '/w/gen', '/w', X'67656E00' FROM n;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO files (id, path) SELECT i, '/w/f' || i FROM n;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) "
        "SELECT i, i, 2, 1008 + 10 * i, 1008 + 10 * i FROM n;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) SELECT i, i, 3, 577, 1007 + 10 * i, 1008 + 10 * i, i FROM n UNION ALL "
        "SELECT i + 1, i, 1, 0, 1002 + 10 * (i + 1), 1002 + 10 * (i + 1), i FROM n "
        "WHERE i < %d;",
        N, N, N, N, N);
    struct qdb *q = NULL;
    struct prov *p = open_crafted("chain.db", sql, &q);
    static const struct prov_walk_opts o = {.scripts = true, .stop_at_shlibs = true};
    double s;
    GArray *in = timed_inputs(p, N, N, &o, &s);
    g_assert_cmpuint(in->len, ==, N - 1);
    g_array_unref(in);
    g_test_message("inputs through a chain of %d processes: %.2f s", N, s);
    g_assert_cmpfloat(s, <, WALK_SECONDS); /* (4096 parents for each: 26 s) */
    prov_free(p);
    qdb_close(q);
}

/* A trace's SQL: make [1] runs process [2] (`row`: its comm, exe, cwd and argv) that reads
 * the N files named by the SQL expression `in` (of i, 1..N: versions 1..N) and writes each,
 * right after, to the file `out` names (versions N+1..2N), with no hashes. */
static char *one_to_one_sql(const char *row, const char *in, const char *out, int n)
{
    return g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, %s)"
        ";WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO files (id, path) SELECT i, %s FROM n UNION ALL SELECT %d + i, %s FROM n;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) "
        "SELECT i, i, 1, 1000 + 4 * i, 1000 + 4 * i FROM n UNION ALL "
        "SELECT %d + i, %d + i, 2, 1002 + 4 * i, 1002 + 4 * i FROM n;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) SELECT 2, i, 1, 0, 1000 + 4 * i, 1000 + 4 * i, i FROM n UNION ALL "
        "SELECT 2, %d + i, 3, 577, 1001 + 4 * i, 1002 + 4 * i, %d + i FROM n;",
        row, n, in, n, out, n, n, n, n, n, n);
}

/* One process that copies N files and hashes none of them (cp -r of a tree, a trace recorded
 * without hashes): which read went into which copy is a guess, and each copy's guess is its
 * reads before it, found without a scan of all of them per copy. */
static void test_many_copies_bounded(void)
{
    enum { N = 200000 };
    g_autofree char *sql = one_to_one_sql("'cp', '/usr/bin/cp', '/w', X'637000'",
                                          "'/w/src/f' || i", "'/w/dst/f' || i", N);
    struct qdb *q = NULL;
    struct prov *p = open_crafted("copies.db", sql, &q);
    static const struct prov_walk_opts o = {.scripts = false, .stop_at_shlibs = true,
                                            .code_only = true};
    double s;
    GArray *in = timed_inputs(p, N + 1, 2 * N, &o, &s);
    g_test_message("inputs of all %d copies: %.2f s", N, s);
    g_assert_cmpuint(in->len, ==, 2 * N);
    g_array_unref(in);
    g_assert_cmpfloat(s, <, WALK_SECONDS); /* (a scan of the reads per copy: 20 s) */
    prov_free(p);
    qdb_close(q);
}

/* A build's own tool whose name ends like an inspector's (`embed-file`, not file(1)): what it
 * writes carries what it read. */
static void test_own_tool_named_like_inspector(void)
{
    static const char sql[] =
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'embed-file', '/w/embed-file', '/w', X'656D6265642D66696C6500');"
        "INSERT INTO files (id, path) VALUES (1, '/w/data.bin'), (2, '/w/blob.c');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
        "(1, 1, 1, 111, 111), (2, 2, 2, 115, 115);"
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) VALUES (2, 1, 1, 0, 111, 111, 1), (2, 2, 3, 577, 113, 115, 2);";
    struct qdb *q = NULL;
    struct prov *p = open_crafted("embed.db", sql, &q);
    static const struct prov_walk_opts code = {.scripts = true, .code_only = true};
    GArray *in = prov_inputs(p, 2, &code);
    g_autofree char *d = describe(in);
    g_assert_cmpstr(d, ==, "1:generated-from");
    g_array_unref(in);
    prov_free(p);
    qdb_close(q);
}

/* An interpreter's modules its command line names are its data (pod2man lib/Foo.pm, a script
 * zipping pkg/mod.py); the modules it imports are not, nor its script. */
static void test_interpreter_named_modules(void)
{
    static const char sql[] =
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        /* python3 mkzip.py out.zip pkg/mod.py */
        "(2, 11, 2, 0, 1, 110, 110, 'python3', '/usr/bin/python3.11', '/w', "
        "X'707974686F6E33006D6B7A69702E7079006F75742E7A697000706B672F6D6F642E707900');"
        "INSERT INTO files (id, path) VALUES (1, '/w/mkzip.py'), (2, '/w/pkg/mod.py'), "
        "(3, '/w/helper.py'), (4, '/w/out.zip');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
        "(1, 1, 1, 111, 111), (2, 2, 1, 112, 112), (3, 3, 1, 113, 113), (4, 4, 2, 119, 119);"
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) VALUES (2, 1, 1, 0, 111, 111, 1), (2, 3, 1, 0, 112, 112, 3), "
        "(2, 2, 1, 0, 113, 113, 2), (2, 4, 3, 577, 115, 119, 4);";
    struct qdb *q = NULL;
    struct prov *p = open_crafted("zip.db", sql, &q);
    static const struct prov_walk_opts code = {.scripts = true, .code_only = true};
    GArray *in = prov_inputs(p, 4, &code);
    g_autofree char *d = describe(in);
    g_assert_cmpstr(d, ==, "2:generated-from"); /* pkg/mod.py; not mkzip.py nor helper.py */
    g_array_unref(in);
    prov_free(p);
    qdb_close(q);
}

/* An archiver with thousands of archiver children (dpkg-deb's tar, crafted N-fold): what each
 * child read before the archive was written is in it, and the walk ends. */
static void test_many_archiver_children(void)
{
    enum { N = 5000 };
    g_autofree char *sql = g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'dpkg-deb', '/usr/bin/dpkg-deb', '/w', X'6470')"
        ";WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) SELECT 2 + i, 20 + i, 2 + i, 0, 2, 200 + i, "
        "200 + i, 'tar', '/usr/bin/tar', '/w', X'74617200' FROM n;"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO files (id, path) SELECT i, '/w/d/f' || i FROM n;"
        "INSERT INTO files (id, path) VALUES (%d, '/w/x.deb');"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) "
        "SELECT i, i, 1, 150, 150 FROM n;"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) "
        "VALUES (%d, %d, 2, 900000, 900000);"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) SELECT 2 + i, i, 1, 0, 300 + i, 300 + i, i FROM n;"
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) VALUES (2, %d, 3, 577, 800000, 900000, %d);",
        N, N, N + 1, N, N + 1, N + 1, N, N + 1, N + 1);
    struct qdb *q = NULL;
    struct prov *p = open_crafted("archivers.db", sql, &q);
    static const struct prov_walk_opts code = {.scripts = true, .code_only = true};
    double s;
    GArray *in = timed_inputs(p, N + 1, N + 1, &code, &s);
    g_test_message("inputs of an archive through %d archiver children: %.2f s", N, s);
    g_assert_cmpuint(in->len, ==, N);
    g_assert_cmpint(g_array_index(in, struct prov_node, 0).role, ==, PROV_ROLE_COPY);
    g_array_unref(in);
    g_assert_cmpfloat(s, <, WALK_SECONDS);
    prov_free(p);
    qdb_close(q);
}

/* One configure step filling two templates of the same name in two directories (CMake's
 * configure_file, in its own process): each output from the one in its own directory. */
static void test_templates_of_one_name(void)
{
    static const char sql[] =
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        /* cmake -S . -B b */
        "(2, 11, 2, 0, 1, 110, 110, 'cmake', '/usr/bin/cmake', '/s', X'636D616B65002D53002E002D42006200');"
        "INSERT INTO files (id, path) VALUES (1, '/s/a/version.h.in'), (2, '/s/b/version.h.in'), "
        "(3, '/s/b/build/a/version.h'), (4, '/s/b/build/b/version.h');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
        "(1, 1, 1, 111, 111), (2, 2, 1, 112, 112), (3, 3, 2, 120, 120), (4, 4, 2, 130, 130);"
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) VALUES (2, 1, 1, 0, 111, 111, 1), (2, 2, 1, 0, 112, 112, 2), "
        "(2, 3, 3, 577, 115, 120, 3), (2, 4, 3, 577, 125, 130, 4);";
    struct qdb *q = NULL;
    struct prov *p = open_crafted("templates.db", sql, &q);
    static const struct prov_walk_opts code = {.scripts = true, .code_only = true};
    GArray *in = prov_inputs(p, 3, &code);
    g_autofree char *a = describe(in);
    g_assert_cmpstr(a, ==, "1:header");
    g_array_unref(in);
    in = prov_inputs(p, 4, &code);
    g_autofree char *b = describe(in);
    g_assert_cmpstr(b, ==, "2:header");
    g_array_unref(in);
    prov_free(p);
    qdb_close(q);
}

/* A program the build made and named like an inspector (the file package runs its own
 * `file -C -m magic` to compile magic.mgc): what it writes carries what it read. */
static void test_built_program_named_like_inspector(void)
{
    static const char sql[] =
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'ld', '/usr/bin/ld', '/w', X'6C6400'),"
        /* ./file -C -m magic */
        "(3, 12, 3, 0, 1, 200, 200, 'file', '/w/file', '/w', X'2E2F66696C65002D43002D6D006D6167696300');"
        "INSERT INTO files (id, path) VALUES (1, '/w/file'), (2, '/w/magic/elf'), "
        "(3, '/w/magic.mgc');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
        "(1, 1, 2, 150, 150), (2, 2, 1, 202, 202), (3, 3, 2, 210, 210);"
        "INSERT INTO accesses (process_id, file_id, kind, open_flags, first_ns, last_ns, "
        "version_id) VALUES (2, 1, 3, 577, 140, 150, 1), (3, 1, 5, 0, 201, 201, 1), "
        "(3, 2, 1, 0, 202, 202, 2), (3, 3, 3, 577, 205, 210, 3);";
    struct qdb *q = NULL;
    struct prov *p = open_crafted("file.db", sql, &q);
    static const struct prov_walk_opts code = {.scripts = true, .code_only = true};
    GArray *in = prov_inputs(p, 3, &code);
    g_autofree char *d = describe(in);
    g_assert_cmpstr(d, ==, "2:generated-from");
    g_array_unref(in);
    prov_free(p);
    qdb_close(q);
}

/* gzip -r over 100 files (enough to index its reads): each .gz from its own file only. */
static void test_compressor_of_many(void)
{
    enum { N = 100 };
    g_autofree char *sql = one_to_one_sql(
        "'gzip', '/usr/bin/gzip', '/w', X'677A6970002D7200640000'", "'/w/d/f' || i",
        "'/w/d/f' || i || '.gz'", N);
    struct qdb *q = NULL;
    struct prov *p = open_crafted("gzip.db", sql, &q);
    static const struct prov_walk_opts code = {.scripts = true, .code_only = true};
    for (int round = 0; round < 2; round++) { /* by SQL, then on the graph */
        GArray *in = prov_inputs(p, N + 7, &code);
        g_assert_cmpuint(in->len, ==, 1);
        g_assert_cmpint(g_array_index(in, struct prov_node, 0).v->id, ==, 7);
        g_assert_cmpint(g_array_index(in, struct prov_node, 0).role, ==, PROV_ROLE_COPY);
        g_assert_false(g_array_index(in, struct prov_node, 0).guess);
        g_array_unref(in);
        prov_load(p);
    }
    prov_free(p);
    qdb_close(q);
}

/* Code and influence (prov.h): a Ninja-like build, an installer and a configure step.
 *   ninja   [1]: build.ninja v1 (t 10), b.o.d v9 (t 50: written by [3], a compile of b.c)
 *   cc1     [2]: libisl.so v3 (loaded: O_CLOEXEC), a.c v2                  -> a.o v4
 *   cc1     [3]: libmpc.so v20 (loaded through a FUSE mount: no O_CLOEXEC, but before its
 *                first other read), b.c v5                                 -> b.o v6, b.o.d v9
 *   ld      [4]: libc.so.6 v7 (loaded), a.o v4, libfoo.so v8 (fopen)      -> app v10
 *   python3 [5] meson install: app v10 -> dest/app v11 (the same bytes); foo.py (a module);
 *                notes.txt v12 -> dest/notes v13 (read between outputs: a guess);
 *                dest/app rewritten in place (rpath) -> v14 on v11
 *   sh      [6] ./configure: config.h.in v15, conftest.c v17              -> config.h v16
 *   lock    [7]: a.c v2, then opens build.ninja to write and leaves it as it was -> v19 on v1
 *   objcopy [8] --only-keep-debug lib.so.1 lib.debug: locale.alias, lib.so.1 v22 (through
 *                FUSE: plain flags, after main began)                     -> lib.debug v23
 *   ar      [9] rcs libx.a a.o: locale.alias, a.o v4, then the LTO plugin and libstdc++ it
 *                needs (dlopen'd through FUSE: plain flags)               -> libx.a v26
 *   objcopy [10] the same as [8] in the C locale: lib.so.1 is its first read -> lib2.debug v27
 *   dpkg-deb [11] with its tar child [12]: tar reads dest/app v14 into a pipe -> pkg.deb v28
 */
static char *make_code_trace(void)
{
    char *p = unit_path("code.db");
    sqlite3 *db = NULL;
    g_assert_cmpint(tracedb_create(p, 0600, &db, NULL, NULL), ==, 0);
    static const char args[] = "ninja";
    struct tracedb_run_start s = {.argv = args, .argv_len = sizeof args, .cwd = "/w",
                                  .start_realtime_ns = 1700000000000000000, .start_ns = 1,
                                  .hostname = "h", .version = "t"};
    g_assert_cmpint(tracedb_write_run_start(db, &s, NULL), ==, 0);
    g_assert_cmpint(
        tracedb_exec(
            db,
            "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
            "first_seen_ns, comm, exe, cwd, argv) VALUES "
            "(1, 10, 1, 0, NULL, 1, 1, 'ninja', '/usr/bin/ninja', '/w', CAST('ninja' AS BLOB)),"
            "(2, 11, 2, 0, 1, 2, 2, 'cc1', '/usr/lib/gcc/cc1', '/w', CAST('cc1' || char(0) || 'a.c' AS BLOB)),"
            "(3, 12, 3, 0, 1, 3, 3, 'cc1', '/usr/lib/gcc/cc1', '/w', CAST('cc1' || char(0) || 'b.c' AS BLOB)),"
            "(4, 13, 4, 0, 1, 4, 4, 'ld', '/usr/bin/ld', '/w', CAST('ld' || char(0) || 'a.o' AS BLOB)),"
            "(5, 14, 5, 0, 1, 5, 5, 'python3', '/usr/bin/python3.11', '/w', CAST('python3' || char(0) || '/usr/bin/meson' || char(0) || 'install' AS BLOB)),"
            "(6, 15, 6, 0, 1, 6, 6, 'sh', '/usr/bin/dash', '/w', CAST('sh' || char(0) || './configure' AS BLOB)),"
            "(7, 16, 7, 0, 1, 7, 7, 'lock', '/usr/bin/lock', '/w', CAST('lock' AS BLOB)),"
            "(8, 17, 8, 0, 1, 8, 8, 'objcopy', '/usr/bin/objcopy', '/w', CAST('objcopy' || char(0) || '--only-keep-debug' || char(0) || 'lib.so.1' || char(0) || 'lib.debug' AS BLOB)),"
            "(9, 18, 9, 0, 1, 9, 9, 'ar', '/usr/bin/ar', '/w', CAST('ar' || char(0) || 'rcs' || char(0) || 'libx.a' || char(0) || 'a.o' AS BLOB)),"
            "(10, 19, 10, 0, 1, 10, 10, 'objcopy', '/usr/bin/objcopy', '/w', CAST('objcopy' || char(0) || '--only-keep-debug' || char(0) || 'lib.so.1' || char(0) || 'lib2.debug' AS BLOB)),"
            "(11, 20, 11, 0, 1, 11, 11, 'dpkg-deb', '/usr/bin/dpkg-deb', '/w', CAST('dpkg-deb' || char(0) || '--build' AS BLOB)),"
            "(12, 21, 12, 0, 11, 12, 12, 'tar', '/usr/bin/tar', '/w', CAST('tar' || char(0) || '-cf' || char(0) || '-' AS BLOB));"
            "INSERT INTO files (id, path) VALUES (1, '/w/build.ninja'), (2, '/w/a.c'), "
            "(3, '/usr/lib/libisl.so.23'), (4, '/w/a.o'), (5, '/w/b.c'), (6, '/w/b.o'), "
            "(7, '/lib/libc.so.6'), (8, '/w/libfoo.so'), (9, '/w/b.o.d'), (10, '/w/app'), "
            "(11, '/dest/app'), (12, '/w/notes.txt'), (13, '/dest/notes'), "
            "(14, '/usr/lib/python3/foo.py'), (15, '/w/config.h.in'), (16, '/w/config.h'), "
            "(17, '/w/conftest.c'), (18, '/usr/lib/libmpc.so.3'), (19, '/etc/locale.alias'),"
            "(20, '/w/lib.so.1'), (21, '/usr/lib/bfd-plugins/liblto_plugin.so'),"
            "(22, '/usr/lib/libstdc++.so.6'), (23, '/w/libx.a'), (24, '/w/lib.debug'),"
            "(25, '/w/lib2.debug'), (26, '/w/pkg.deb');"
            "INSERT INTO versions (id, file_id, origin, base_id, begin_ns, end_ns, size, sha256) "
            "VALUES (1, 1, 1, NULL, 10, 10, 9, X'01'), (2, 2, 1, NULL, 20, 20, 9, X'02'),"
            "(3, 3, 1, NULL, 15, 15, 9, X'03'), (4, 4, 2, NULL, 30, 30, 9, X'04'),"
            "(5, 5, 1, NULL, 21, 21, 9, X'05'), (6, 6, 2, NULL, 31, 31, 9, X'06'),"
            "(7, 7, 1, NULL, 40, 40, 9, X'07'), (8, 8, 1, NULL, 61, 61, 9, X'08'),"
            "(9, 9, 2, NULL, 32, 32, 9, X'09'), (10, 10, 2, NULL, 70, 70, 9, X'AA'),"
            "(11, 11, 2, NULL, 81, 81, 9, X'AA'), (12, 12, 1, NULL, 85, 85, 9, X'0C'),"
            "(13, 13, 2, NULL, 86, 86, 9, X'0D'), (14, 11, 2, 11, 90, 90, 9, X'0E'),"
            "(15, 15, 1, NULL, 95, 95, 9, X'0F'), (16, 16, 2, NULL, 100, 100, 9, X'10'),"
            "(17, 17, 1, NULL, 96, 96, 9, X'11'), (18, 14, 1, NULL, 82, 82, 9, X'12'),"
            "(19, 1, 2, 1, 111, 111, 9, X'01'), (20, 18, 1, NULL, 19, 19, 9, X'13'),"
            "(21, 19, 1, NULL, 120, 120, 9, X'14'), (22, 20, 1, NULL, 121, 121, 9, X'15'),"
            "(23, 24, 2, NULL, 123, 123, 8, X'16'), (24, 21, 1, NULL, 131, 131, 9, X'17'),"
            "(25, 22, 1, NULL, 132, 132, 9, X'18'), (26, 23, 2, NULL, 133, 133, 9, X'19'),"
            "(27, 25, 2, NULL, 142, 142, 8, X'1A'), (28, 26, 2, NULL, 152, 152, 9, X'1B');"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
            "open_flags) VALUES "
            "(1, 1, 1, 10, 10, 1, 0), (1, 9, 1, 50, 50, 9, 0),"
            "(2, 3, 1, 15, 15, 3, 524288), (2, 2, 1, 20, 20, 2, 0), (2, 4, 3, 25, 30, 4, 577),"
            "(3, 18, 1, 19, 19, 20, 32768), (3, 5, 1, 21, 21, 5, 32768),"
            "(3, 6, 3, 26, 31, 6, 577), (3, 9, 3, 27, 32, 9, 577),"
            "(4, 7, 1, 40, 40, 7, 524288), (4, 4, 1, 60, 60, 4, 0), (4, 8, 1, 61, 61, 8, 0),"
            "(4, 10, 3, 65, 70, 10, 577),"
            "(5, 10, 1, 80, 80, 10, 524288), (5, 11, 3, 80, 81, 11, 577),"
            "(5, 14, 1, 82, 82, 18, 524288), (5, 12, 1, 85, 85, 12, 524288),"
            "(5, 13, 3, 85, 86, 13, 577), (5, 11, 1, 89, 89, 11, 2), (5, 11, 2, 89, 90, 14, 2),"
            "(6, 15, 1, 95, 95, 15, 0), (6, 17, 1, 96, 96, 17, 0), (6, 16, 3, 97, 100, 16, 577),"
            "(7, 2, 1, 105, 105, 2, 0), (7, 1, 2, 110, 111, 19, 1),"
            "(8, 19, 1, 120, 120, 21, 32768), (8, 20, 1, 121, 121, 22, 32768),"
            "(8, 24, 3, 122, 123, 23, 33345),"
            "(9, 19, 1, 129, 129, 21, 32768), (9, 4, 1, 130, 130, 4, 32768),"
            "(9, 21, 1, 131, 131, 24, 32768), (9, 22, 1, 132, 132, 25, 32768),"
            "(9, 23, 3, 132, 133, 26, 33345),"
            "(10, 20, 1, 140, 140, 22, 32768), (10, 25, 3, 141, 142, 27, 33345),"
            "(12, 11, 1, 150, 150, 14, 165888), (11, 26, 3, 151, 152, 28, 33345);",
            NULL),
        ==, 0);
    struct tracedb_run_end e = {.end_ns = 200, .exit_status = 0, .state = TRACEDB_RUN_FINISHED,
                                .root_process_id = 1, .notes = "", .process_tree = "complete"};
    g_assert_cmpint(tracedb_write_run_end(db, &e, NULL), ==, 0);
    g_assert_cmpint(tracedb_seal(db), ==, 0);
    sqlite3_close(db);
    return p;
}

/* "path:role[?]" of the nodes, sorted (? marks a guess). */
static char *describe_paths(GArray *nodes)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < nodes->len; i++) {
        const struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        g_string_append_printf(s, "%s%s:%s%s", s->len ? "," : "", n->v->path,
                               prov_role_name(n->role), n->guess ? "?" : "");
    }
    return g_string_free(s, FALSE);
}

static char *inputs_of(struct prov *p, int64_t vid, bool load_graph)
{
    if (load_graph)
        prov_load(p);
    static const struct prov_walk_opts o = {.scripts = true, .stop_at_shlibs = true};
    GArray *nodes = prov_inputs(p, vid, &o);
    char *s = describe_paths(nodes);
    g_array_unref(nodes);
    return s;
}

static void test_code_and_influence(void)
{
    g_autofree char *path = make_code_trace();
    for (int graph = 0; graph < 2; graph++) { /* by SQL and on the loaded graph: the same */
        struct qdb *q = NULL;
        g_autofree char *err = NULL;
        g_assert_cmpint(qdb_open(path, &q, &err), ==, 0);
        struct prov *p = prov_new(q);
        /* app: its own compile and link; the loaded libraries are nothing; b.c reached only
         * through ninja's b.o.d is influence, as build.ninja is. */
        g_autofree char *app = inputs_of(p, 10, graph);
        g_assert_cmpstr(app, ==, "/w/a.c:source,/w/a.o:object,/w/b.c:script,/w/b.o.d:script,"
                                 "/w/build.ninja:script,/w/libfoo.so:shlib");
        /* b.o: its source; the library cc1 loaded through FUSE is nothing. */
        g_autofree char *bo = inputs_of(p, 6, graph);
        g_assert_cmpstr(bo, ==, "/w/b.c:source,/w/build.ninja:script");
        /* The installed copy, fixed in place: the copy and what it was made from, exactly;
         * notes.txt, read by the installer before, only as influence; never its module. */
        g_autofree char *inst = inputs_of(p, 14, graph);
        g_assert_cmpstr(inst, ==, "/dest/app:copy,/w/a.c:source,/w/a.o:object,/w/app:copy,"
                                  "/w/b.c:script,/w/b.o.d:script,/w/build.ninja:script,"
                                  "/w/libfoo.so:shlib,/w/notes.txt:script");
        /* What the installer wrote with no rule: a guess from what it read before (app, a
         * binary it only read, is influence).  (The argv rows end without a NUL, as a crafted
         * trace's may: "install" must still be read as meson's subcommand, not a setup.) */
        g_autofree char *notes = inputs_of(p, 13, graph);
        g_assert_cmpstr(notes, ==, "/w/a.c:script,/w/a.o:script,/w/app:script,/w/b.c:script,"
                                   "/w/b.o.d:script,/w/build.ninja:script,"
                                   "/w/notes.txt:generated-from?");
        /* config.h: its template; the probe is influence (and what ninja, its parent, had
         * read before). */
        g_autofree char *conf = inputs_of(p, 16, graph);
        g_assert_cmpstr(conf, ==, "/w/b.c:script,/w/b.o.d:script,/w/build.ninja:script,"
                                  "/w/config.h.in:header,/w/conftest.c:probe");
        /* A version left as it was (a write-open for a lock): its base, not the opener's reads. */
        g_autofree char *same = inputs_of(p, 19, graph);
        g_assert_cmpstr(same, ==, "/w/a.c:script,/w/b.c:script,/w/b.o.d:script,/w/build.ninja:copy");
        /* objcopy of a library through FUSE: the library it read, though its flags are the
         * loader's (main had begun: locale.alias); ar: its object, not its LTO plugin nor
         * what the plugin needs. */
        g_autofree char *stripped = inputs_of(p, 23, graph);
        g_assert_cmpstr(stripped, ==, "/etc/locale.alias:other,/w/b.c:script,/w/b.o.d:script,"
                                      "/w/build.ninja:script,/w/lib.so.1:copy");
        g_autofree char *c_locale = inputs_of(p, 27, graph);
        g_assert_cmpstr(c_locale, ==, "/w/b.c:script,/w/b.o.d:script,/w/build.ninja:script,"
                                      "/w/lib.so.1:copy");
        g_autofree char *archive = inputs_of(p, 26, graph);
        g_assert_cmpstr(archive, ==, "/etc/locale.alias:other,/w/a.c:source,/w/a.o:object,"
                                     "/w/b.c:script,/w/b.o.d:script,/w/build.ninja:script");
        /* The reverse, code only: what carries a.c (not the installer's other output). */
        static const struct prov_walk_opts code = {.code_only = true};
        GArray *from = g_array_new(FALSE, FALSE, sizeof(int64_t));
        int64_t ac = 2, notes_txt = 12;
        g_array_append_val(from, ac);
        GArray *outs = prov_outputs(p, from, &code);
        g_autofree char *carried = describe_paths(outs);
        g_assert_cmpstr(carried, ==, "/dest/app:other,/dest/app:other,/w/a.o:other,/w/app:other,"
                                     "/w/libx.a:other,/w/pkg.deb:other");
        /* ... and the package dpkg-deb made from what its tar child read (both directions). */
        g_autofree char *deb = inputs_of(p, 28, graph);
        g_assert_nonnull(strstr(deb, "/dest/app:copy,/w/a.c:source,"));
        g_array_unref(outs);
        g_array_set_size(from, 0);
        g_array_append_val(from, notes_txt);
        outs = prov_outputs(p, from, &code);
        g_autofree char *guessed = describe_paths(outs);
        g_assert_cmpstr(guessed, ==, "/dest/notes:other?");
        g_array_unref(outs);
        g_array_unref(from);
        /* diff's view: every read, whatever it carried. */
        static const struct prov_walk_opts raw = {.max_depth = 1, .every_read = true};
        GArray *all = prov_inputs(p, 10, &raw);
        g_autofree char *every = describe_paths(all);
        g_assert_cmpstr(every, ==, "/lib/libc.so.6:shlib,/w/a.o:object,/w/libfoo.so:shlib");
        g_array_unref(all);
        prov_free(p);
        qdb_close(q);
    }
}

/* A FIFO (or a device) now where a version was is never read: it could block forever. */
/* A generic step's outputs are a guess when it read data after one of them was finished (its
 * last write), the same on the loaded graph as by SQL.  awk [2] creates out1 (t 102-103),
 * reads a.in (104), writes out1 to its end (105-110), then out2 (111-120): a.in was read
 * before any output was finished, so out2's inputs are exact.  The graph holds an edge per
 * write (out1's creation ended at 103) where SQL has one per version at its last write: the
 * graph took the creation for the end and called every read after it a guess (cmake's
 * Ninja: .ninja_log and .ninja_deps, created before the depfiles it reads). */
static void test_interleaved_by_last_write(void)
{
    static const struct prov_walk_opts code = {.scripts = true, .code_only = true};
    for (int round = 0; round < 2; round++) { /* by SQL, then on the graph (a fresh prov: the
                                               * rules' facts are kept per prov) */
        struct qdb *q = NULL;
        struct prov *p = open_crafted(
            "interleaved.db",
            "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
            "first_seen_ns, comm, exe, cwd, argv) VALUES "
            "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', CAST('make' AS BLOB)),"
            "(2, 11, 2, 0, 1, 101, 101, 'awk', '/usr/bin/awk', '/w', CAST('awk' AS BLOB));"
            "INSERT INTO files (id, path) VALUES (1, '/w/a.in'), (2, '/w/out1'), (3, '/w/out2'),"
            "(4, '/usr/bin/awk');"
            "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, size, sha256) VALUES "
            "(1, 1, 1, 104, 104, 9, X'01'), (2, 2, 2, 110, 110, 9, X'02'),"
            "(3, 3, 2, 120, 120, 9, X'03'), (4, 4, 1, 101, 101, 9, X'04');"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
            "open_flags) VALUES (2, 4, 5, 101, 101, 4, 0), (2, 2, 3, 102, 103, 2, 577),"
            "(2, 1, 1, 104, 104, 1, 0), (2, 2, 2, 105, 110, 2, 577), (2, 3, 3, 111, 112, 3, 577),"
            "(2, 3, 2, 113, 120, 3, 577);",
            &q);
        if (round)
            prov_load(p);
        GArray *in = prov_inputs(p, 3, &code);
        g_assert_cmpuint(in->len, ==, 1);
        g_assert_cmpint(g_array_index(in, struct prov_node, 0).v->id, ==, 1);
        g_assert_false(g_array_index(in, struct prov_node, 0).guess);
        g_array_unref(in);
        prov_free(p);
        qdb_close(q);
    }
}

static void test_read_version_fifo(void)
{
    g_autofree char *path = unit_path("fifo");
    g_assert_cmpint(mkfifo(path, 0600), ==, 0);
    struct prov_version v = {.id = 1, .path = path, .size = 3};
    g_strlcpy(v.sha256, "00", sizeof v.sha256);
    gsize len = 0;
    const char *problem = NULL;
    char *data = prov_read_version(&v, &len, &problem);
    g_assert_null(data);
    g_assert_cmpstr(problem, ==, "no longer readable");
    g_assert_cmpint(unlink(path), ==, 0);
}

/* make [1] starts forty steps [2..41]: prov_successors gives them in id order, never in the
 * order of the table of processes (its hashes'). */
static void test_successors_in_id_order(void)
{
    struct qdb *q = NULL;
    struct prov *p = open_crafted(
        "successors.db",
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 41) "
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd) SELECT i, 10 + i, i, 0, CASE i WHEN 1 THEN NULL ELSE 1 "
        "END, 100 + i, 100 + i, 'sh', '/bin/sh', '/w' FROM n;", &q);
    GArray *kids = g_array_new(FALSE, FALSE, sizeof(int64_t));
    prov_successors(p, 1, kids);
    g_assert_cmpuint(kids->len, ==, 40);
    for (guint i = 0; i < kids->len; i++)
        g_assert_cmpint(g_array_index(kids, int64_t, i), ==, i + 2);
    g_array_unref(kids);
    prov_free(p);
    qdb_close(q);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/prov/union-of-closures", test_union_of_closures);
    g_test_add_func("/prov/process-and-version-lookups", test_process_and_version_lookups);
    g_test_add_func("/prov/bindings-scan", test_bindings_scan);
    g_test_add_func("/prov/found-reads", test_found_reads);
    g_test_add_func("/prov/many-rewrites-bounded", test_many_rewrites_bounded);
    g_test_add_func("/prov/odd-process-rows", test_odd_process_rows);
    g_test_add_func("/prov/deep-chain-bounded", test_deep_chain_bounded);
    g_test_add_func("/prov/many-copies-bounded", test_many_copies_bounded);
    g_test_add_func("/prov/own-tool-named-like-inspector", test_own_tool_named_like_inspector);
    g_test_add_func("/prov/interpreter-named-modules", test_interpreter_named_modules);
    g_test_add_func("/prov/many-archiver-children", test_many_archiver_children);
    g_test_add_func("/prov/templates-of-one-name", test_templates_of_one_name);
    g_test_add_func("/prov/built-program-named-like-inspector",
                    test_built_program_named_like_inspector);
    g_test_add_func("/prov/compressor-of-many", test_compressor_of_many);
    g_test_add_func("/prov/code-and-influence", test_code_and_influence);
    g_test_add_func("/prov/read-version-fifo", test_read_version_fifo);
    g_test_add_func("/prov/interleaved-by-last-write", test_interleaved_by_last_write);
    g_test_add_func("/prov/successors-in-id-order", test_successors_in_id_order);
    return unit_run();
}
