/* Unit tests of copyscan (query/lib/copyscan.c), the engine of `buildtrail copies`, on a small
 * hand-made trace whose sources are on disk: copies found against a known index and in the
 * build, what they went into, and the directory scores in the order of their names. */
#include "copyscan.h"
#include "prov.h"
#include "qdb.h"
#include "tracedb.h"
#include "unit-sql.h"
#include "unit-trace.h"
#include "winnow.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

enum { NDIRS = 8 };

/* The source of directory d: code long enough to have fingerprints, different per d. */
static char *source_of(int d)
{
    GString *s = g_string_new(NULL);
    for (int i = 0; i < 12; i++)
        g_string_append_printf(s, "int f%d_%d(int x) { return x * %d + %d; }\n", d, i, i, d);
    return g_string_free(s, FALSE);
}

/* make [1] runs cc [2], which reads src/dN/f.c for every N (in reverse order of their names)
 * and src/d0/g.c (the same as src/d1/f.c), and writes app. */
static char *make_trace(const char *src)
{
    GString *sql = g_string_new(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'cc', '/usr/bin/cc', '/w', X'6363002D6300612E6300');"
        "INSERT INTO files (id, path) VALUES (100, '/w/app');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
        "(100, 100, 2, 300, 300);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id) "
        "VALUES (2, 100, 3, 290, 300, 100);");
    for (int d = NDIRS; d >= 0; d--) {
        g_autofree char *text = source_of(d == 0 ? 1 : d);
        g_autofree char *sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
        g_autofree char *path = g_strdup_printf("%s/d%d/%s", src, d, d == 0 ? "g.c" : "f.c");
        g_autofree char *dir = g_path_get_dirname(path);
        g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
        g_assert_true(g_file_set_contents(path, text, -1, NULL));
        int id = d + 1;
        g_string_append_printf(
            sql,
            "INSERT INTO files (id, path) VALUES (%d, '%s');"
            "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, size, sha256) VALUES "
            "(%d, %d, 1, 120, 120, %zu, X'%s');"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
            "open_flags) VALUES (2, %d, 1, %d, %d, %d, 0);",
            id, path, id, id, strlen(text), sha, id, 200 + d, 200 + d, id);
    }
    char *p = unit_crafted_trace("copies.db", sql->str, 400);
    g_string_free(sql, TRUE);
    return p;
}

/* A known index: k/dN/f.c the same as the build's src/dN/f.c, for N from 1 to NDIRS. */
static GPtrArray *known_index(void)
{
    GString *idx = g_string_new(NULL);
    for (int d = 1; d <= NDIRS; d++) {
        g_autofree char *text = source_of(d);
        g_autofree char *sha = g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
        g_autofree char *name = g_strdup_printf("k/d%d/f.c", d);
        GArray *fp = winnow_fingerprints(text, strlen(text));
        copyindex_write(idx, name, sha, fp);
        g_array_free(fp, TRUE);
    }
    GPtrArray *known = g_ptr_array_new_with_free_func(copyindex_entry_free);
    copyindex_parse(idx->str, idx->len, known);
    g_string_free(idx, TRUE);
    g_assert_cmpuint(known->len, ==, NDIRS);
    return known;
}

static void test_copies(void)
{
    g_autofree char *src = unit_path("src");
    g_autofree char *path = make_trace(src);
    struct qdb *q = NULL;
    g_autofree char *err = NULL;
    g_assert_cmpint(qdb_open(path, &q, &err), ==, 0);
    struct prov *p = prov_new(q);
    g_assert_nonnull(p);
    GPtrArray *known = known_index();
    /* the build's directory is the sources' parent: pairs inside it are reported */
    struct copyscan *m = copyscan_run(p, unit_tmpdir, known, 0.6);
    g_assert_false(qdb_failed(q));
    g_assert_false(m->debian);
    g_assert_cmpuint(m->files->len, ==, NDIRS + 1); /* every file has a copy */
    for (guint i = 0; i < m->files->len; i++) {
        const struct copyscan_file *f = m->files->pdata[i];
        const struct copyscan_match *first = &g_array_index(f->matches, struct copyscan_match, 0);
        g_assert_cmpint(first->kind, ==, COPYSCAN_SAME);
        g_assert_cmpuint(f->shipped_in->len, ==, 1); /* app */
        g_assert_cmpstr(f->shipped_in->pdata[0], ==, "/w/app");
        if (g_str_has_suffix(f->v->path, "/d0/g.c")) {
            /* the same as d1/f.c of the build, and as the known k/d1/f.c */
            g_assert_cmpuint(f->matches->len, ==, 2);
            const struct copyscan_match *b = &g_array_index(f->matches, struct copyscan_match, 1);
            g_assert_cmpint(first->where, ==, COPYSCAN_BUILD);
            g_assert_true(g_str_has_suffix(first->name, "/d1/f.c"));
            g_assert_cmpint(b->where, ==, COPYSCAN_KNOWN);
            g_assert_cmpstr(b->name, ==, "k/d1/f.c");
        }
    }
    /* one directory score per directory (d0 is like k/d1 too), in the order of their names
     * (they were sorted by the addresses of their strings) */
    g_assert_cmpuint(m->dirs->len, ==, NDIRS + 1);
    for (guint i = 0; i < m->dirs->len; i++) {
        const struct copyscan_dir *d = m->dirs->pdata[i];
        g_autofree char *want = g_strdup_printf("%s/d%u", src, i);
        g_autofree char *want_known = g_strdup_printf("k/d%u", i ? i : 1);
        g_assert_cmpstr(d->dir, ==, want);
        g_assert_cmpstr(d->known, ==, want_known);
        g_assert_cmpfloat(d->score, ==, 1.0);
    }
    copyscan_free(m);
    g_ptr_array_free(known, TRUE);
    prov_free(p);
    qdb_close(q);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/copyscan/copies", test_copies);
    return unit_run();
}
