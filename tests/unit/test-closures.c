/* Unit tests of closures (query/lib/closures.h): every product's closure, walked once on the
 * loaded graph with the rules' answers shared between walks, equals the walk of that product
 * alone on a fresh prov (one SQL lookup per step, nothing shared), in whatever order the
 * products are asked; and a second ask is the same array. */
#include "closures.h"
#include "prov.h"
#include "qdb.h"
#include "unit-trace.h"

#include <glib.h>
#include <string.h>

#define BLOB(a) "CAST(" a " AS BLOB)"
#define NUL " || char(0) || "

/*   make [1] reads Makefile (101) and, later, b.c (166: a script of progB only: its bound)
 *   cc   [2] u.c u.h -> u.o;   cc [3] v.c u.h -> v.o;   ar [4] u.o v.o -> libu.a
 *   perl [5] gen.pl data.def -> gen.c (Foo.pm a module it loads, gen.pl its script)
 *   cc   [6] a.c gen.c u.h -> a.o;   ld [7] a.o libu.a -> progA
 *   cc   [8] b.c u.h -> b.o;         ld [9] b.o libu.a libz.so -> progB
 *   cc  [10] x.c -> x.o, started by perl [5]: its reads are x.o's scripts (the same reads
 *            that are gen.c's data);   ld [11] x.o -> progC
 *   cc  [12] y.c -> y.o, started by ld [9]: libz.so, which ld linked (a shared library, not
 *            followed), is y.o's script
 * libu.a, u.h and the Makefile are in both programs' closures. */
static char *make_trace(void)
{
    return unit_crafted_trace(
        "closures.db",
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', " BLOB("'make'") "),"
        "(2, 11, 2, 0, 1, 110, 110, 'cc', '/usr/bin/cc', '/w', " BLOB("'cc'" NUL "'-c'" NUL "'u.c'") "),"
        "(3, 12, 3, 0, 1, 120, 120, 'cc', '/usr/bin/cc', '/w', " BLOB("'cc'" NUL "'-c'" NUL "'v.c'") "),"
        "(4, 13, 4, 0, 1, 130, 130, 'ar', '/usr/bin/ar', '/w', " BLOB("'ar'" NUL "'rcs'" NUL "'libu.a'" NUL "'u.o'" NUL "'v.o'") "),"
        "(5, 14, 5, 0, 1, 140, 140, 'perl', '/usr/bin/perl', '/w', " BLOB("'perl'" NUL "'gen.pl'" NUL "'data.def'") "),"
        "(6, 15, 6, 0, 1, 150, 150, 'cc', '/usr/bin/cc', '/w', " BLOB("'cc'" NUL "'-c'" NUL "'a.c'" NUL "'gen.c'") "),"
        "(7, 16, 7, 0, 1, 160, 160, 'ld', '/usr/bin/ld', '/w', " BLOB("'ld'" NUL "'-o'" NUL "'progA'") "),"
        "(8, 17, 8, 0, 1, 170, 170, 'cc', '/usr/bin/cc', '/w', " BLOB("'cc'" NUL "'-c'" NUL "'b.c'") "),"
        "(9, 18, 9, 0, 1, 180, 180, 'ld', '/usr/bin/ld', '/w', " BLOB("'ld'" NUL "'-o'" NUL "'progB'") "),"
        "(10, 19, 10, 0, 5, 146, 146, 'cc', '/usr/bin/cc', '/w', " BLOB("'cc'" NUL "'-c'" NUL "'x.c'") "),"
        "(11, 20, 11, 0, 1, 190, 190, 'ld', '/usr/bin/ld', '/w', " BLOB("'ld'" NUL "'-o'" NUL "'progC'") "),"
        "(12, 21, 12, 0, 9, 186, 186, 'cc', '/usr/bin/cc', '/w', " BLOB("'cc'" NUL "'-c'" NUL "'y.c'") ");"
        "INSERT INTO files (id, path) VALUES (1, '/w/Makefile'), (2, '/w/u.c'), (3, '/w/u.h'),"
        "(4, '/w/u.o'), (5, '/w/v.c'), (6, '/w/v.o'), (7, '/w/libu.a'), (8, '/w/data.def'),"
        "(9, '/usr/share/perl5/Foo.pm'), (10, '/w/gen.c'), (11, '/w/a.c'), (12, '/w/a.o'),"
        "(13, '/w/progA'), (14, '/w/b.c'), (15, '/w/b.o'), (16, '/usr/lib/libz.so'),"
        "(17, '/w/progB'), (18, '/usr/bin/cc'), (19, '/w/gen.pl'),"
        "(20, '/w/x.c'), (21, '/w/x.o'), (22, '/w/progC'),"
        "(23, '/w/y.c'), (24, '/w/y.o');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, size, sha256) VALUES "
        "(1, 1, 1, 101, 101, 9, X'01'), (2, 2, 1, 112, 112, 9, X'02'), (3, 3, 1, 113, 113, 9, X'03'),"
        "(4, 4, 2, 115, 115, 9, X'04'), (5, 5, 1, 122, 122, 9, X'05'), (6, 6, 2, 125, 125, 9, X'06'),"
        "(7, 7, 2, 134, 134, 9, X'07'), (8, 8, 1, 143, 143, 9, X'08'), (9, 9, 1, 142, 142, 9, X'09'),"
        "(10, 10, 2, 145, 145, 9, X'0A'), (11, 11, 1, 152, 152, 9, X'0B'),"
        "(12, 12, 2, 156, 156, 9, X'0C'), (13, 13, 2, 164, 164, 9, X'0D'),"
        "(14, 14, 1, 166, 166, 9, X'0E'), (15, 15, 2, 175, 175, 9, X'0F'),"
        "(16, 16, 1, 183, 183, 9, X'10'), (17, 17, 2, 185, 185, 9, X'11'),"
        "(18, 18, 1, 111, 111, 9, X'12'), (19, 19, 1, 141, 141, 9, X'13'),"
        "(20, 20, 1, 147, 147, 9, X'14'), (21, 21, 2, 149, 149, 9, X'15'),"
        "(22, 22, 2, 193, 193, 9, X'16'),"
        "(23, 23, 1, 187, 187, 9, X'17'), (24, 24, 2, 189, 189, 9, X'18');"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
        "open_flags) VALUES "
        "(1, 1, 1, 101, 101, 1, 0), (1, 14, 1, 166, 166, 14, 0),"
        "(2, 18, 5, 111, 111, 18, 0), (2, 2, 1, 112, 112, 2, 0), (2, 3, 1, 113, 113, 3, 0),"
        "(2, 4, 3, 114, 115, 4, 577),"
        "(3, 18, 5, 121, 121, 18, 0), (3, 5, 1, 122, 122, 5, 0), (3, 3, 1, 123, 123, 3, 0),"
        "(3, 6, 3, 124, 125, 6, 577),"
        "(4, 4, 1, 131, 131, 4, 0), (4, 6, 1, 132, 132, 6, 0), (4, 7, 3, 133, 134, 7, 577),"
        "(5, 19, 1, 141, 141, 19, 0), (5, 9, 1, 142, 142, 9, 0), (5, 8, 1, 143, 143, 8, 0),"
        "(5, 10, 3, 144, 145, 10, 577),"
        "(6, 18, 5, 151, 151, 18, 0), (6, 11, 1, 152, 152, 11, 0), (6, 10, 1, 153, 153, 10, 0),"
        "(6, 3, 1, 154, 154, 3, 0), (6, 12, 3, 155, 156, 12, 577),"
        "(7, 12, 1, 161, 161, 12, 0), (7, 7, 1, 162, 162, 7, 0), (7, 13, 3, 163, 164, 13, 577),"
        "(8, 18, 5, 171, 171, 18, 0), (8, 14, 1, 172, 172, 14, 0), (8, 3, 1, 173, 173, 3, 0),"
        "(8, 15, 3, 174, 175, 15, 577),"
        "(9, 15, 1, 181, 181, 15, 0), (9, 7, 1, 182, 182, 7, 0), (9, 16, 1, 183, 183, 16, 0),"
        "(9, 17, 3, 184, 185, 17, 577),"
        "(10, 18, 5, 146, 146, 18, 0), (10, 20, 1, 147, 147, 20, 0),"
        "(10, 21, 3, 148, 149, 21, 577),"
        "(11, 21, 1, 191, 191, 21, 0), (11, 22, 3, 192, 193, 22, 577),"
        "(12, 23, 1, 187, 187, 23, 0), (12, 24, 3, 188, 189, 24, 577);",
        200);
}

static struct prov *open_trace(const char *path, struct qdb **q)
{
    g_autofree char *err = NULL;
    g_assert_cmpint(qdb_open(path, q, &err), ==, 0);
    struct prov *p = prov_new(*q);
    g_assert_nonnull(p);
    return p;
}

/* "path:role[?]@depth" of every node, in the array's order. */
static char *describe(const GArray *nodes)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < nodes->len; i++) {
        const struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        g_string_append_printf(s, "%s%s:%s%s@%d", s->len ? "," : "", n->v->path,
                               prov_role_name(n->role), n->guess ? "?" : "", n->depth);
    }
    return g_string_free(s, FALSE);
}

enum order { FORWARD, BACKWARD, PLANNED };

/* Every product's closure from the engine (asked by path, forward or backward, or all planned
 * first: walked in id order, each splicing in the closures of the earlier ones) against the
 * walk of that product alone on a fresh prov (nothing shared), but for the depths: every
 * node's is 1 in the engine's (closures.h). */
static void check_all(const char *path, guint n_products, enum order order)
{
    struct qdb *q = NULL, *q1 = NULL;
    struct prov *p = open_trace(path, &q);
    struct closures *c = closures_new(p);
    GPtrArray *prods = prov_products(p);
    g_assert_cmpuint(prods->len, ==, n_products);
    if (order == PLANNED) {
        GArray *ids = g_array_new(FALSE, FALSE, sizeof(int64_t));
        for (guint k = 0; k < prods->len; k++)
            g_array_append_val(ids, ((const struct prov_version *)prods->pdata[k])->id);
        closures_plan(c, (const int64_t *)(void *)ids->data, ids->len);
        g_array_unref(ids);
    }
    for (guint k = 0; k < prods->len; k++) {
        const struct prov_version *v = prods->pdata[order == BACKWARD ? prods->len - 1 - k : k];
        const GArray *shared = closures_of(c, v->id);
        g_assert_true(closures_of(c, v->id) == shared); /* walked once, kept */
        struct prov *alone = open_trace(path, &q1); /* nothing loaded, nothing shared */
        GArray *want = prov_inputs(alone, v->id, &closures_walk);
        for (guint i = 0; i < want->len; i++) /* (closures keep no distances: all at 1) */
            g_array_index(want, struct prov_node, i).depth = 1;
        g_autofree char *got_text = describe(shared), *want_text = describe(want);
        g_assert_cmpstr(got_text, ==, want_text);
        g_array_unref(want);
        prov_free(alone);
        qdb_close(q1);
    }
    g_ptr_array_free(prods, TRUE);
    closures_free(c);
    prov_free(p);
    qdb_close(q);
}

static void test_shared_equals_alone(void)
{
    g_autofree char *path = make_trace();
    check_all(path, 11, FORWARD);
    check_all(path, 11, BACKWARD);
    check_all(path, 11, PLANNED);
}

/*   cc [2] m.c -> m.o;  ld [3] m.o -> libm.so (a shared library the build makes)
 *   awk [4] a.in -> g1.c, then b.in -> g2.c (read between: g2.c's inputs are a guess)
 *   cc [5] g2.c -> g2.o;  cc [6] main.c -> main.o;  ld [7] main.o g2.o libm.so -> progM
 *   cp [8] libm.so -> staging/libm.so;  cp [9] staging/libm.so -> inst/libm.so
 *   tar [10] progM, then inst/libm.so -> pkg.tar;  tar [11] the same the other way -> pkg2.tar
 * In the tarballs' closures libm.so is both linked (a shared library: not followed) and
 * copied (followed), one step nearer as linked: the walk alone stops there, and its answer
 * depends on the order it meets the two uses in.  Shared walks, which meet them in another
 * order, must see it (prov-share.c) and answer as the walk alone, in every order asked. */
static char *make_mixed_trace(void)
{
    return unit_crafted_trace(
        "closures-mixed.db",
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', " BLOB("'make'") "),"
        "(2, 11, 2, 0, 1, 110, 110, 'cc', '/usr/bin/cc', '/w', " BLOB("'cc'" NUL "'-c'" NUL "'m.c'") "),"
        "(3, 12, 3, 0, 1, 120, 120, 'ld', '/usr/bin/ld', '/w', " BLOB("'ld'" NUL "'-shared'" NUL "'-o'" NUL "'libm.so'") "),"
        "(4, 13, 4, 0, 1, 130, 130, 'awk', '/usr/bin/awk', '/w', " BLOB("'awk'" NUL "'-f'" NUL "'split.awk'") "),"
        "(5, 14, 5, 0, 1, 140, 140, 'cc', '/usr/bin/cc', '/w', " BLOB("'cc'" NUL "'-c'" NUL "'g2.c'") "),"
        "(6, 15, 6, 0, 1, 150, 150, 'cc', '/usr/bin/cc', '/w', " BLOB("'cc'" NUL "'-c'" NUL "'main.c'") "),"
        "(7, 16, 7, 0, 1, 160, 160, 'ld', '/usr/bin/ld', '/w', " BLOB("'ld'" NUL "'-o'" NUL "'progM'") "),"
        "(8, 17, 8, 0, 1, 170, 170, 'cp', '/usr/bin/cp', '/w', " BLOB("'cp'" NUL "'libm.so'" NUL "'staging/'") "),"
        "(9, 18, 9, 0, 1, 180, 180, 'cp', '/usr/bin/cp', '/w', " BLOB("'cp'" NUL "'staging/libm.so'" NUL "'inst/'") "),"
        "(10, 19, 10, 0, 1, 190, 190, 'tar', '/usr/bin/tar', '/w', " BLOB("'tar'" NUL "'cf'" NUL "'pkg.tar'") "),"
        "(11, 20, 11, 0, 1, 200, 200, 'tar', '/usr/bin/tar', '/w', " BLOB("'tar'" NUL "'cf'" NUL "'pkg2.tar'") ");"
        "INSERT INTO files (id, path) VALUES (1, '/w/Makefile'), (2, '/usr/bin/cc'), (3, '/w/m.c'),"
        "(4, '/w/m.o'), (5, '/w/libm.so'), (6, '/usr/bin/awk'), (7, '/w/a.in'), (8, '/w/g1.c'),"
        "(9, '/w/b.in'), (10, '/w/g2.c'), (11, '/w/g2.o'), (12, '/w/main.c'), (13, '/w/main.o'),"
        "(14, '/w/progM'), (15, '/w/staging/libm.so'), (16, '/w/inst/libm.so'),"
        "(17, '/w/pkg.tar'), (18, '/w/pkg2.tar');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, size, sha256) VALUES "
        "(1, 1, 1, 101, 101, 9, X'01'), (2, 2, 1, 111, 111, 9, X'02'), (3, 3, 1, 112, 112, 9, X'03'),"
        "(4, 4, 2, 114, 114, 9, X'04'), (5, 5, 2, 123, 123, 9, X'20'), (6, 6, 1, 131, 131, 9, X'06'),"
        "(7, 7, 1, 132, 132, 9, X'07'), (8, 8, 2, 134, 134, 9, X'08'), (9, 9, 1, 135, 135, 9, X'09'),"
        "(10, 10, 2, 137, 137, 9, X'0A'), (11, 11, 2, 144, 144, 9, X'0B'),"
        "(12, 12, 1, 152, 152, 9, X'0C'), (13, 13, 2, 154, 154, 9, X'0D'),"
        "(14, 14, 2, 165, 165, 9, X'0E'), (15, 15, 2, 173, 173, 9, X'20'),"
        "(16, 16, 2, 183, 183, 9, X'20'), (17, 17, 2, 194, 194, 9, X'11'),"
        "(18, 18, 2, 204, 204, 9, X'12');"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
        "open_flags) VALUES "
        "(1, 1, 1, 101, 101, 1, 0),"
        "(2, 2, 5, 111, 111, 2, 0), (2, 3, 1, 112, 112, 3, 0), (2, 4, 3, 113, 114, 4, 577),"
        "(3, 4, 1, 121, 121, 4, 0), (3, 5, 3, 122, 123, 5, 577),"
        "(4, 6, 5, 131, 131, 6, 0), (4, 7, 1, 132, 132, 7, 0), (4, 8, 3, 133, 134, 8, 577),"
        "(4, 9, 1, 135, 135, 9, 0), (4, 10, 3, 136, 137, 10, 577),"
        "(5, 2, 5, 141, 141, 2, 0), (5, 10, 1, 142, 142, 10, 0), (5, 11, 3, 143, 144, 11, 577),"
        "(6, 2, 5, 151, 151, 2, 0), (6, 12, 1, 152, 152, 12, 0), (6, 13, 3, 153, 154, 13, 577),"
        "(7, 13, 1, 161, 161, 13, 0), (7, 11, 1, 162, 162, 11, 0), (7, 5, 1, 163, 163, 5, 0),"
        "(7, 14, 3, 164, 165, 14, 577),"
        "(8, 5, 1, 171, 171, 5, 0), (8, 15, 3, 172, 173, 15, 577),"
        "(9, 15, 1, 181, 181, 15, 0), (9, 16, 3, 182, 183, 16, 577),"
        "(10, 14, 1, 191, 191, 14, 0), (10, 16, 1, 192, 192, 16, 0),"
        "(10, 17, 3, 193, 194, 17, 577),"
        "(11, 16, 1, 201, 201, 16, 0), (11, 14, 1, 202, 202, 14, 0),"
        "(11, 18, 3, 203, 204, 18, 577);",
        210);
}

static void test_mixed_uses(void)
{
    g_autofree char *path = make_mixed_trace();
    check_all(path, 11, FORWARD);
    check_all(path, 11, BACKWARD);
    check_all(path, 11, PLANNED);
    struct qdb *q = NULL;
    struct prov *p = open_trace(path, &q);
    struct closures *c = closures_new(p);
    /* progM links libm.so: listed, not followed; g2.c's inputs a guess of the awk's reads */
    g_autofree char *m = describe(closures_of(c, 14));
    g_assert_nonnull(strstr(m, "/w/libm.so:shlib"));
    g_assert_null(strstr(m, "/w/m.c"));
    g_assert_nonnull(strstr(m, "/w/a.in:generated-from?"));
    /* the copies carry libm.so's code: its source */
    g_autofree char *inst = describe(closures_of(c, 16));
    g_assert_nonnull(strstr(inst, "/w/m.c:source"));
    closures_free(c);
    prov_free(p);
    qdb_close(q);
}

/*   cc [2..5] sI.c and the four headers h1.h..h4.h -> oI.o;   ar [6] o1.o..o4.o -> lib.a
 *   ld [7] o1.o lib.a -> prog1;   ld [8] o2.o lib.a -> prog2
 *   cp [9] prog1 -> inst/prog1;   cp [10] prog2 -> inst/prog2
 *   tar [11] prog1, lib.a, inst/prog2, inst/prog1 -> pkg.tar;   gzip [12] pkg.tar -> pkg.tgz
 * The objects have most of their closures in common (the headers, cc, the Makefile): lib.a's
 * kept closure is the kind kept whole rather than as its objects' (prov-share.c, FLAT_WHEN);
 * the programs' hold lib.a's, the copies' the programs', and the tarball meets closures that
 * hold one another (inst/prog1 holds prog1 and lib.a) and one that overlaps them (inst/prog2):
 * the largest spliced first, those it holds covered.  Each as walked alone, in every order. */
static char *make_nested_trace(void)
{
    GString *sql = g_string_new(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', " BLOB("'make'") ")");
    static const char *const rest[] = {
        "(6, 15, 6, 0, 1, 600, 600, 'ar', '/usr/bin/ar', '/w', " BLOB("'ar'" NUL "'rcs'" NUL "'lib.a'") ")",
        "(7, 16, 7, 0, 1, 700, 700, 'ld', '/usr/bin/ld', '/w', " BLOB("'ld'" NUL "'-o'" NUL "'prog1'") ")",
        "(8, 17, 8, 0, 1, 800, 800, 'ld', '/usr/bin/ld', '/w', " BLOB("'ld'" NUL "'-o'" NUL "'prog2'") ")",
        "(9, 18, 9, 0, 1, 900, 900, 'cp', '/usr/bin/cp', '/w', " BLOB("'cp'" NUL "'prog1'" NUL "'inst/'") ")",
        "(10, 19, 10, 0, 1, 1000, 1000, 'cp', '/usr/bin/cp', '/w', " BLOB("'cp'" NUL "'prog2'" NUL "'inst/'") ")",
        "(11, 20, 11, 0, 1, 1100, 1100, 'tar', '/usr/bin/tar', '/w', " BLOB("'tar'" NUL "'cf'" NUL "'pkg.tar'") ")",
        "(12, 21, 12, 0, 1, 1200, 1200, 'gzip', '/usr/bin/gzip', '/w', " BLOB("'gzip'" NUL "'pkg.tar'") ")"};
    for (int i = 1; i <= 4; i++)
        g_string_append_printf(sql, ",(%d, %d, %d, 0, 1, %d, %d, 'cc', '/usr/bin/cc', '/w', "
                               "CAST('cc' AS BLOB) || char(0) || CAST('-c' AS BLOB) || char(0) || "
                               "CAST('s%d.c' AS BLOB))", i + 1, 10 + i, i + 1, i * 100 + 100,
                               i * 100 + 100, i);
    for (guint i = 0; i < G_N_ELEMENTS(rest); i++)
        g_string_append_printf(sql, ",%s", rest[i]);
    /* files and their one version each (id = file id): found 1-10, built from 11 */
    g_string_append(sql, ";INSERT INTO files (id, path) VALUES (1, '/w/Makefile'), "
                         "(2, '/usr/bin/cc'), (3, '/w/s1.c'), (4, '/w/s2.c'), (5, '/w/s3.c'), "
                         "(6, '/w/s4.c'), (7, '/w/h1.h'), (8, '/w/h2.h'), (9, '/w/h3.h'), "
                         "(10, '/w/h4.h'), (11, '/w/o1.o'), (12, '/w/o2.o'), (13, '/w/o3.o'), "
                         "(14, '/w/o4.o'), (15, '/w/lib.a'), (16, '/w/prog1'), (17, '/w/prog2'), "
                         "(18, '/w/inst/prog1'), (19, '/w/inst/prog2'), (20, '/w/pkg.tar'), "
                         "(21, '/w/pkg.tgz');"
                         "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, size, "
                         "sha256) VALUES ");
    static const int made[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* found */
                               250, 350, 450, 550, 650, 750, 850, 950, 1050, 1150, 1250};
    for (int id = 1; id <= 21; id++)
        g_string_append_printf(sql, "%s(%d, %d, %d, %d, %d, 9, X'%02X')", id > 1 ? "," : "", id,
                                id, made[id - 1] ? 2 : 1, made[id - 1] ? made[id - 1] : 101,
                                made[id - 1] ? made[id - 1] : 101, id);
    g_string_append(sql, ";INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, "
                         "version_id, open_flags) VALUES (1, 1, 1, 101, 101, 1, 0)");
    /* each cc: the compiler, its source, the headers; then its object */
    for (int i = 1; i <= 4; i++) {
        int t = i * 100 + 100;
        g_string_append_printf(sql, ",(%d, 2, 5, %d, %d, 2, 0),(%d, %d, 1, %d, %d, %d, 0)",
                               i + 1, t + 1, t + 1, i + 1, i + 2, t + 2, t + 2, i + 2);
        for (int h = 7; h <= 10; h++)
            g_string_append_printf(sql, ",(%d, %d, 1, %d, %d, %d, 0)", i + 1, h, t + h, t + h, h);
        g_string_append_printf(sql, ",(%d, %d, 3, %d, %d, %d, 577)", i + 1, i + 10, t + 40,
                               t + 50, i + 10);
    }
    g_string_append(sql,
                    ",(6, 11, 1, 601, 601, 11, 0), (6, 12, 1, 602, 602, 12, 0),"
                    "(6, 13, 1, 603, 603, 13, 0), (6, 14, 1, 604, 604, 14, 0),"
                    "(6, 15, 3, 640, 650, 15, 577),"
                    "(7, 11, 1, 701, 701, 11, 0), (7, 15, 1, 702, 702, 15, 0),"
                    "(7, 16, 3, 740, 750, 16, 577),"
                    "(8, 12, 1, 801, 801, 12, 0), (8, 15, 1, 802, 802, 15, 0),"
                    "(8, 17, 3, 840, 850, 17, 577),"
                    "(9, 16, 1, 901, 901, 16, 0), (9, 18, 3, 940, 950, 18, 577),"
                    "(10, 17, 1, 1001, 1001, 17, 0), (10, 19, 3, 1040, 1050, 19, 577),"
                    "(11, 16, 1, 1101, 1101, 16, 0), (11, 15, 1, 1102, 1102, 15, 0),"
                    "(11, 19, 1, 1103, 1103, 19, 0), (11, 18, 1, 1104, 1104, 18, 0),"
                    "(11, 20, 3, 1140, 1150, 20, 577),"
                    "(12, 20, 1, 1201, 1201, 20, 0), (12, 21, 3, 1240, 1250, 21, 577);");
    char *path = unit_crafted_trace("closures-nested.db", sql->str, 1300);
    g_string_free(sql, TRUE);
    return path;
}

static void test_nested_closures(void)
{
    g_autofree char *path = make_nested_trace();
    check_all(path, 11, FORWARD);
    check_all(path, 11, BACKWARD);
    check_all(path, 11, PLANNED);
    struct qdb *q = NULL;
    struct prov *p = open_trace(path, &q);
    struct closures *c = closures_new(p);
    /* the tarball: every source and header, through the copies, the programs and lib.a */
    g_autofree char *tgz = describe(closures_of(c, 21));
    for (int i = 1; i <= 4; i++) {
        g_autofree char *src = g_strdup_printf("/w/s%d.c:source@1", i);
        g_assert_nonnull(strstr(tgz, src));
    }
    g_assert_nonnull(strstr(tgz, "/w/h4.h:header@1"));
    g_assert_nonnull(strstr(tgz, "/w/inst/prog2:copy@1"));
    g_assert_nonnull(strstr(tgz, "/w/Makefile:script@1"));
    closures_free(c);
    prov_free(p);
    qdb_close(q);
}

/* What the shared walks say of the two programs: what they have in common and what not. */
static void test_programs(void)
{
    g_autofree char *path = make_trace();
    struct qdb *q = NULL;
    struct prov *p = open_trace(path, &q);
    struct closures *c = closures_new(p);
    g_autofree char *a = describe(closures_of(c, 13)), *b = describe(closures_of(c, 17));
    /* progA: libu.a's sources and header, the generator's data (not its script nor the module
     * it loads), the Makefile as a script; not b.c, read by make only after progA was made */
    g_assert_nonnull(strstr(a, "/w/u.c:source"));
    g_assert_nonnull(strstr(a, "/w/v.c:source"));
    g_assert_nonnull(strstr(a, "/w/data.def:header"));
    g_assert_nonnull(strstr(a, "/w/Makefile:script"));
    g_assert_null(strstr(a, "Foo.pm"));
    g_assert_null(strstr(a, "/w/b.c"));
    /* progB: the same library's code, its own source, libz.so as a shared library */
    g_assert_nonnull(strstr(b, "/w/u.c:source"));
    g_assert_nonnull(strstr(b, "/w/b.c:source"));
    g_assert_nonnull(strstr(b, "/usr/lib/libz.so:shlib"));
    g_assert_null(strstr(b, "data.def"));
    /* progC: the generator's reads as its compiler's ancestor's: scripts, not code */
    g_autofree char *x = describe(closures_of(c, 22));
    g_assert_nonnull(strstr(x, "/w/x.c:source"));
    g_assert_nonnull(strstr(x, "/w/data.def:script"));
    /* y.o: what the linker that started its compiler read, libz.so too, as scripts */
    g_autofree char *y = describe(closures_of(c, 24));
    g_assert_nonnull(strstr(y, "/usr/lib/libz.so:script"));
    closures_free(c);
    prov_free(p);
    qdb_close(q);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/closures/shared-equals-alone", test_shared_equals_alone);
    g_test_add_func("/closures/programs", test_programs);
    g_test_add_func("/closures/mixed-uses", test_mixed_uses);
    g_test_add_func("/closures/nested", test_nested_closures);
    return unit_run();
}
