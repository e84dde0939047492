/* Unit tests of the diff engine (query/lib/diffeng) on pairs of small hand-made traces: the
 * same build twice, one differing input and its chain, products in one build only, a tool
 * whose output differs on the same inputs, and builds in other directories.
 *
 * Each trace is one build in directory ROOT:
 *   make [1] (cwd ROOT) runs
 *   cc   [2] (cwd CC_CWD, argv "cc CC_OPT -c a.c"): reads a.c (v1), h.h (v2), writes a.o (v3)
 *   ld   [3] (cwd ROOT): reads a.o, writes APP (v4)
 * with the hashes of h.h, a.o and APP given (a.c's is the same in every trace); cc may have
 * an environment (ENV: one NAME=VALUE) and read one more file (EXTRA, found). */
#include "diffeng.h"
#include "prov.h"
#include "qdb.h"
#include "tracedb.h"
#include "unit-trace.h"

#include <glib.h>
#include <string.h>

struct build {
    const char *root, *cc_cwd, *cc_opt, *app; /* app: the linked product's name (or path) */
    const char *h, *o, *exe;                  /* sha256 of h.h, a.o, APP: one byte, hex */
    const char *env, *extra;                  /* NULL: none; env: NAME=VALUE lines */
    const char *files;                        /* where a.c, h.h, a.o are (NULL: root) */
    const char *o_sha;                        /* a.o's whole sha256 (hex), else from `o` */
    const char *cc;                           /* the compile's program (NULL: cc) */
    const char *denied;                       /* a file under ROOT hidden from cc (run
                                               * --only-packages: libx-dev's), or NULL */
};

static const struct build base = {"/w", "/w", "-O2", "app", "02", "10", "20"};

/* "cc\0-O2\0-c\0a.c\0" as an SQL blob literal. */
static char *argv_blob(const char *const *words)
{
    GString *s = g_string_new("X'");
    for (; *words; words++) {
        for (const char *c = *words; *c; c++)
            g_string_append_printf(s, "%02X", (unsigned char)*c);
        g_string_append(s, "00");
    }
    g_string_append_c(s, '\'');
    return g_string_free(s, FALSE);
}

/* A sha256 blob: the byte `b` (hex) then 31 zeros. */
static char *sha(const char *b)
{
    return g_strdup_printf("X'%s%s'", b, "00000000000000000000000000000000000000000000000000"
                                         "000000000000");
}

static char *make_build(const char *name, const struct build *b)
{
    char *p = NULL;
    const char *dir = b->files ? b->files : b->root;
    sqlite3 *db = unit_trace_begin(name, b->root, &p);
    const char *prog = b->cc ? b->cc : "cc";
    const char *cc[] = {prog, b->cc_opt, "-c", "a.c", NULL}, *ld[] = {"ld", "a.o", NULL},
               *mk[] = {"make", NULL};
    g_autofree char *acc = argv_blob(cc), *ald = argv_blob(ld), *amk = argv_blob(mk);
    g_autofree char *sc = sha("01"), *sh = sha(b->h), *sa = sha(b->exe);
    g_autofree char *so = b->o_sha ? g_strdup_printf("X'%s'", b->o_sha) : sha(b->o);
    g_autofree char *sql = g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '%s', %s),"
        "(2, 11, 2, 0, 1, 110, 110, '%s', '/usr/bin/%s', '%s', %s),"
        "(3, 12, 3, 0, 1, 200, 200, 'ld', '/usr/bin/ld', '%s', %s);"
        "INSERT INTO files (id, path) VALUES (1, '%s/a.c'), (2, '%s/h.h'), (3, '%s/a.o'), "
        "(4, '%s%s%s');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
        "(1, 1, 1, 111, 111, %s), (2, 2, 1, 112, 112, %s), (3, 3, 2, 140, 150, %s), "
        "(4, 4, 2, 240, 250, %s);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id) "
        "VALUES (2, 1, 1, 111, 111, 1), (2, 2, 1, 112, 112, 2), (2, 3, 3, 140, 150, 3),"
        "(3, 3, 1, 201, 201, 3), (3, 4, 3, 240, 250, 4);"
        "UPDATE accesses SET open_flags = 0 WHERE kind = 1;",
        b->root, amk, prog, prog, b->cc_cwd, acc, b->root, ald, dir, dir, dir,
        b->app[0] == '/' ? "" : b->root, b->app[0] == '/' ? "" : "/", b->app,
        sc, sh, so, sa);
    g_assert_cmpint(tracedb_exec(db, sql, NULL), ==, 0);
    if (b->env) {
        g_auto(GStrv) env = g_strsplit(b->env, "\n", -1);
        g_autofree char *blob = argv_blob((const char *const *)env);
        g_autofree char *more = g_strdup_printf(
            "INSERT INTO environments (id, env) VALUES (1, %s);"
            "UPDATE processes SET env_id = 1 WHERE id = 2;", blob);
        g_assert_cmpint(tracedb_exec(db, more, NULL), ==, 0);
    }
    if (b->extra) {
        g_autofree char *more = g_strdup_printf(
            "INSERT INTO files (id, path) VALUES (5, '%s/%s');"
            "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
            "(5, 5, 1, 113, 113, %s);"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
            "open_flags) VALUES (2, 5, 1, 113, 113, 5, 0);", b->root, b->extra, sc);
        g_assert_cmpint(tracedb_exec(db, more, NULL), ==, 0);
    }
    if (b->denied) {
        g_autofree char *more = g_strdup_printf(
            "INSERT INTO files (id, path) VALUES (6, '%s/%s');"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, result) "
            "VALUES (2, 6, %d, 113, 113, 2);"
            "INSERT INTO denials (process_id, file_id, how, reason, package, time_ns) VALUES "
            "(1, 6, %d, %d, 'libx-dev', 105), (2, 6, %d, %d, 'libx-dev', 113);",
            b->root, b->denied, TRACEDB_PROBE, TRACEDB_DENIED_LISTING,
            TRACEDB_DENIED_PACKAGE, TRACEDB_DENIED_LOOKUP, TRACEDB_DENIED_PACKAGE);
        g_assert_cmpint(tracedb_exec(db, more, NULL), ==, 0);
    }
    unit_trace_end(db, 400, TRACEDB_RUN_FINISHED);
    return p;
}

/* Two traces open and compared: the engine and its model. */
struct pair {
    struct qdb *q[2];
    struct prov *p[2];
    struct diffeng *d;
    const struct diffeng_model *m;
};

/* Both traces made and open, the engine made, not run. */
static void open_pair(struct pair *x, const struct build *a, const struct build *b)
{
    const struct build *bs[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        g_autofree char *name = g_strdup_printf("%s-%d.db", i ? "b" : "a", g_test_rand_int());
        g_autofree char *path = make_build(name, bs[i]);
        g_autofree char *err = NULL;
        g_assert_cmpint(qdb_open(path, &x->q[i], &err), ==, 0);
        x->p[i] = prov_new(x->q[i]);
        g_assert_nonnull(x->p[i]);
    }
    x->d = diffeng_new(x->q[0], x->p[0], x->q[1], x->p[1]);
}

static void compare(struct pair *x, const struct build *a, const struct build *b)
{
    open_pair(x, a, b);
    x->m = diffeng_run(x->d);
    g_assert_true(diffeng_run(x->d) == x->m); /* once */
    g_assert_false(qdb_failed(x->q[0]) || qdb_failed(x->q[1]));
}

static void done(struct pair *x)
{
    diffeng_free(x->d);
    for (int i = 0; i < 2; i++) {
        prov_free(x->p[i]);
        qdb_close(x->q[i]);
    }
}

/* "a|b|c" of a list of strings. */
static char *joined(const GPtrArray *list)
{
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < list->len; i++)
        g_string_append_printf(s, "%s%s", i ? "|" : "", (const char *)list->pdata[i]);
    return g_string_free(s, FALSE);
}

static void assert_list(const GPtrArray *list, const char *want)
{
    g_autofree char *got = joined(list);
    g_assert_cmpstr(got, ==, want);
}

static const struct diffeng_cause *cause(const struct pair *x, guint i)
{
    g_assert_cmpuint(i, <, x->m->causes->len);
    return x->m->causes->pdata[i];
}

/* B's build `b` compared with the base build: it has one root cause, of `kind`, by cc. */
static const struct diffeng_cause *one_cause(struct pair *x, const struct build *a,
                                             const struct build *b, enum diffeng_kind kind)
{
    compare(x, a, b);
    g_assert_cmpuint(x->m->causes->len, ==, 1);
    const struct diffeng_cause *c = cause(x, 0);
    g_assert_cmpint(c->kind, ==, kind);
    return c;
}

static void test_identical(void)
{
    struct pair x;
    compare(&x, &base, &base);
    assert_list(x.m->identical, "/w/a.o|/w/app");
    g_assert_cmpuint(x.m->differ->len + x.m->only_a->len + x.m->only_b->len, ==, 0);
    g_assert_cmpuint(x.m->causes->len, ==, 0);
    g_assert_cmpuint(x.m->not_compared->len, ==, 0);
    g_assert_false(x.m->unrelated);
    done(&x);
}

/* h.h found with other content: one input cause, reaching a.o and, through it, app. */
static void test_differing_input(void)
{
    struct build b = base;
    b.h = "03", b.o = "11", b.exe = "21";
    struct pair x;
    compare(&x, &base, &b);
    assert_list(x.m->differ, "/w/a.o|/w/app");
    g_assert_cmpuint(x.m->causes->len, ==, 1);
    const struct diffeng_cause *c = cause(&x, 0);
    g_assert_cmpint(c->kind, ==, DIFFENG_INPUT);
    g_assert_cmpstr(diffeng_kind_name(c->kind), ==, "input");
    g_assert_cmpstr(c->path, ==, "/w/h.h");
    g_assert_cmpint(c->proc[0], ==, 0);
    g_assert_true(strstr(c->detail, "found with other content") != NULL);
    assert_list(c->products, "/w/a.o|/w/app");
    GPtrArray *chain = diffeng_chain(x.d, "/w/app", 0);
    assert_list(chain, "/w/a.o|/w/h.h");
    g_ptr_array_free(chain, TRUE);
    chain = diffeng_chain(x.d, "/w/a.o", 0);
    assert_list(chain, "/w/h.h");
    g_ptr_array_free(chain, TRUE);
    /* walked from the product's side: app is reached by that one cause */
    GArray *of = diffeng_causes_of(x.d, "/w/app");
    g_assert_cmpuint(of->len, ==, 1);
    g_assert_cmpuint(g_array_index(of, size_t, 0), ==, 0);
    g_array_unref(of);
    of = diffeng_causes_of(x.d, "/w/h.h"); /* not a product */
    g_assert_cmpuint(of->len, ==, 0);
    g_array_unref(of);
    done(&x);
}

/* Another argument: the cause names both compiles, and what changed. */
static void test_argv(void)
{
    struct build b = base;
    b.cc_opt = "-O1", b.o = "11", b.exe = "21";
    struct pair x;
    const struct diffeng_cause *c = one_cause(&x, &base, &b, DIFFENG_ARGV);
    g_assert_cmpstr(c->path, ==, "/w/a.o");
    g_assert_cmpint(c->proc[0], ==, 2);
    g_assert_cmpint(c->proc[1], ==, 2);
    g_assert_cmpstr(c->detail, ==, "-O2 \u2192 -O1");
    g_assert_cmpstr(qdb_process(x.q[1], c->proc[1])->comm, ==, "cc");
    assert_list(c->products, "/w/a.o|/w/app");
    done(&x);
}

static void test_only_in_one(void)
{
    struct build b = base;
    b.app = "app2";
    struct pair x;
    compare(&x, &base, &b);
    assert_list(x.m->identical, "/w/a.o");
    assert_list(x.m->only_a, "/w/app");
    assert_list(x.m->only_b, "/w/app2");
    g_assert_cmpuint(x.m->differ->len, ==, 0);
    g_assert_cmpuint(x.m->causes->len, ==, 0);
    g_assert_false(x.m->unrelated); /* a.o matched */
    done(&x);
}

/* The same inputs, arguments, environment, program and directory; another a.o. */
static void test_nondeterministic_tool(void)
{
    struct build b = base;
    b.o = "11", b.exe = "21";
    struct pair x;
    const struct diffeng_cause *c = one_cause(&x, &base, &b, DIFFENG_NONDET);
    g_assert_cmpint(c->proc[0], ==, 2);
    g_assert_true(g_str_has_prefix(c->detail, "the same inputs, arguments and environment"));
    g_assert_null(strstr(c->detail, "build path")); /* both built in /w */
    /* cc itself is not in these traces: the detail says the program may be what differs */
    g_assert_nonnull(strstr(c->detail, "/usr/bin/cc, not traced here"));
    assert_list(c->products, "/w/a.o|/w/app");
    done(&x);
}

/* Built in /v instead of /w: A's paths map onto B's, so the same content is identical; an
 * output that differs there may embed the build path; a compile run in another directory
 * (after mapping) is a cwd cause. */
static void test_other_directory(void)
{
    struct build b = base;
    b.root = "/v", b.cc_cwd = "/v";
    struct pair x;
    compare(&x, &base, &b);
    g_assert_cmpstr(x.m->root[0], ==, "/w");
    g_assert_cmpstr(x.m->root[1], ==, "/v");
    assert_list(x.m->identical, "/v/a.o|/v/app");
    g_assert_cmpuint(x.m->causes->len, ==, 0);
    done(&x);

    b.o = "11", b.exe = "21";
    compare(&x, &base, &b);
    g_assert_cmpint(cause(&x, 0)->kind, ==, DIFFENG_NONDET);
    g_assert_nonnull(strstr(cause(&x, 0)->detail, "embeds the build path"));
    done(&x);

    b.cc_cwd = "/v/sub";
    g_assert_cmpstr(one_cause(&x, &base, &b, DIFFENG_CWD)->detail, ==,
                    "the same arguments, environment and inputs, run in /w in A and /v/sub in B");
    done(&x);
}

/* The same arguments, another environment (no env: the same as none at all, both sides). */
static void test_environment(void)
{
    struct build a = base, b = base;
    a.env = "CFLAGS=-O2", b.env = "CFLAGS=-O1", b.o = "11", b.exe = "21";
    struct pair x;
    const struct diffeng_cause *c = one_cause(&x, &a, &b, DIFFENG_ENV);
    g_assert_cmpstr(c->detail, ==, "CFLAGS ('-O2' / '-O1')");
    done(&x);
}

/* fakeroot's key (random per run) is no cause: the compile's other output is its own
 * non-determinism, not "environment" (repro's pitfall: every process under fakeroot had it). */
static void test_fakeroot_key_noise(void)
{
    struct build a = base, b = base;
    a.env = "FAKEROOTKEY=1234", b.env = "FAKEROOTKEY=98765", b.o = "11", b.exe = "21";
    struct pair x;
    one_cause(&x, &a, &b, DIFFENG_NONDET);
    done(&x);
}

/* Twenty variables differ: the detail names them by name, whatever order the environment
 * tables give them in. */
static void test_environment_by_name(void)
{
    struct build a = base, b = base;
    GString *ea = g_string_new(NULL), *eb = g_string_new(NULL), *want = g_string_new(NULL);
    for (int i = 19; i >= 0; i--) { /* (listed backwards in the environment) */
        g_string_append_printf(ea, "%sV%02d=a", ea->len ? "\n" : "", i);
        g_string_append_printf(eb, "%sV%02d=b", eb->len ? "\n" : "", i);
    }
    for (int i = 0; i < 20; i++)
        g_string_append_printf(want, "%sV%02d ('a' / 'b')", i ? ", " : "", i);
    a.env = ea->str, b.env = eb->str, b.o = "11", b.exe = "21";
    struct pair x;
    g_assert_cmpstr(one_cause(&x, &a, &b, DIFFENG_ENV)->detail, ==, want->str);
    done(&x);
    g_string_free(ea, TRUE);
    g_string_free(eb, TRUE);
    g_string_free(want, TRUE);
}

/* A variable repro's variations set on both sides (diffeng_expect_env) is no cause either;
 * one that is not expected still is. */
static void test_expected_env(void)
{
    struct build a = base, b = base;
    a.env = "TZ=GMT+12", b.env = "TZ=GMT-14", b.o = "11", b.exe = "21";
    struct pair x;
    open_pair(&x, &a, &b);
    diffeng_expect_env(x.d, "TZ");
    x.m = diffeng_run(x.d);
    g_assert_cmpuint(x.m->causes->len, ==, 1);
    g_assert_cmpint(cause(&x, 0)->kind, ==, DIFFENG_NONDET);
    done(&x);
    open_pair(&x, &a, &b);
    diffeng_expect_env(x.d, "HOME");
    x.m = diffeng_run(x.d);
    g_assert_cmpint(cause(&x, 0)->kind, ==, DIFFENG_ENV);
    done(&x);
}

/* A file read by B's compile only: an "inputs" cause naming it and both processes. */
static void test_read_in_one_build(void)
{
    struct build b = base;
    b.extra = "config.h", b.o = "11", b.exe = "21";
    struct pair x;
    const struct diffeng_cause *c = one_cause(&x, &base, &b, DIFFENG_INPUTS);
    g_assert_cmpstr(c->path, ==, "/w/config.h");
    g_assert_cmpstr(c->detail, ==, "read by the second build's process only");
    g_assert_cmpint(c->proc[0], ==, 2);
    g_assert_cmpint(c->proc[1], ==, 2);
    done(&x);
}

/* --map and --exclude: a map says where A's files are in B; an excluded product is not
 * compared at all. */
static void test_map_and_exclude(void)
{
    struct build b = base;
    b.root = "/v", b.cc_cwd = "/v", b.o = "11", b.exe = "21";
    struct pair x;
    open_pair(&x, &base, &b);
    diffeng_add_map(x.d, "/w/app", "/v/elsewhere");
    diffeng_exclude(x.d, "a.o");
    x.m = diffeng_run(x.d);
    g_assert_cmpuint(x.m->identical->len + x.m->differ->len, ==, 0);
    assert_list(x.m->only_a, "/v/elsewhere");
    assert_list(x.m->only_b, "/v/app");
    g_assert_true(x.m->unrelated); /* nothing matched: "two different projects" */
    done(&x);
}

/* Built in /x/p1/w and /x/p2x/w, the linked product left beside the tree (dpkg-buildpackage's
 * .deb in ..): the layout maps where the two paths part, /x/p1 onto /x/p2x, so it is
 * compared, not "only in A/B".  Directories at the top of the filesystem are not mapped
 * whole: built in /tmp/w and /home/w, a product in /tmp stays /tmp's. */
static void test_layout(void)
{
    struct build a = base, b = base;
    a.root = a.cc_cwd = "/x/p1/w", a.app = "/x/p1/app.deb";
    b.root = b.cc_cwd = "/x/p2x/w", b.app = "/x/p2x/app.deb";
    struct pair x;
    compare(&x, &a, &b);
    assert_list(x.m->identical, "/x/p2x/app.deb|/x/p2x/w/a.o");
    g_assert_cmpuint(x.m->only_a->len + x.m->only_b->len + x.m->causes->len, ==, 0);
    /* what the build delivers: beside its directory, or in a package's tree */
    assert_list(x.m->artifacts, "/x/p2x/app.deb");
    g_assert_true(diffeng_is_artifact(x.d, "/x/p2x/w/debian/pkg/usr/bin/app"));
    g_assert_false(diffeng_is_artifact(x.d, "/x/p2x/w/debian/files"));
    g_assert_false(diffeng_is_artifact(x.d, "/x/p2x/w/debian/.debhelper/x/y"));
    g_assert_false(diffeng_is_artifact(x.d, "/x/p2x/w/a.o"));
    g_assert_false(diffeng_is_artifact(x.d, "/x/elsewhere"));
    done(&x);

    a.root = a.cc_cwd = "/tmp/w", a.app = "/tmp/app.deb";
    b.root = b.cc_cwd = "/home/w", b.app = "/home/app.deb";
    compare(&x, &a, &b);
    assert_list(x.m->identical, "/home/w/a.o");
    assert_list(x.m->only_a, "/tmp/app.deb");
    done(&x);
}

/* Both builds run from /s, the tree built in /s/up by one and /s/up2 by the other (the
 * products' directory is the layout): the products match. */
static void test_layout_from_parent(void)
{
    struct build a = base, b = base;
    a.root = "/s", a.cc_cwd = a.files = "/s/up", a.app = "/s/up/app";
    b.root = "/s", b.cc_cwd = b.files = "/s/up2", b.app = "/s/up2/app";
    struct pair x;
    compare(&x, &a, &b);
    assert_list(x.m->identical, "/s/up2/a.o|/s/up2/app");
    g_assert_cmpuint(x.m->only_a->len + x.m->only_b->len + x.m->causes->len, ==, 0);
    done(&x);
}

/* A file read by B's compile only, under a directory repro expects to be read (another
 * locale's data): no input; the compile's other output is its own doing. */
static void test_expected_path(void)
{
    struct build b = base;
    b.extra = "loc/fr_CH.UTF-8/LC_CTYPE", b.o = "11", b.exe = "21";
    struct pair x;
    open_pair(&x, &base, &b);
    diffeng_expect_path(x.d, "/w/loc");
    x.m = diffeng_run(x.d);
    g_assert_cmpuint(x.m->causes->len, ==, 1);
    g_assert_cmpint(cause(&x, 0)->kind, ==, DIFFENG_NONDET);
    done(&x);
}

/* Both builds at one path, /s/pkg, their package left in `..`: an artifact (the layout does
 * not part, yet the parent holds what the build delivers); a file two levels up is not. */
static void test_artifacts_beside_one_path(void)
{
    struct build a = base, b = base;
    a.root = b.root = "/s/pkg", a.cc_cwd = b.cc_cwd = "/s/pkg", a.app = b.app = "/s/pkg.deb";
    struct pair x;
    compare(&x, &a, &b);
    g_assert_true(diffeng_is_artifact(x.d, "/s/pkg.deb"));
    g_assert_false(diffeng_is_artifact(x.d, "/pkg.deb"));
    g_assert_false(diffeng_is_artifact(x.d, "/s/other/pkg.deb"));
    assert_list(x.m->artifacts, "/s/pkg.deb");
    done(&x);
}

/* configure's probes: conftest.err written by `gcc -v`, then by `gcc -V` (other content),
 * both read by the configure shell, which writes config.log.  Each version pairs with the
 * other build's made by the same command, in order: config.log differing is the shell's own
 * doing (non-determinism), never "argv: -v → -V". */
static char *make_probes(const char *log_sha)
{
    g_autofree char *name = g_strdup_printf("probes-%d.db", g_test_rand_int());
    const char *sh[] = {"sh", "configure", NULL}, *v[] = {"gcc", "-v", NULL},
               *V[] = {"gcc", "-V", NULL};
    g_autofree char *ash = argv_blob(sh), *av = argv_blob(v), *aV = argv_blob(V);
    g_autofree char *s1 = sha("31"), *s2 = sha("32"), *sl = sha(log_sha);
    g_autofree char *sql = g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'sh', '/bin/sh', '/w', %s),"
        "(2, 11, 2, 0, 1, 110, 110, 'gcc', '/usr/bin/gcc', '/w', %s),"
        "(3, 12, 3, 0, 1, 130, 130, 'gcc', '/usr/bin/gcc', '/w', %s);"
        "INSERT INTO files (id, path) VALUES (1, '/w/conftest.err'), (2, '/w/config.log');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
        "(1, 1, 2, 111, 112, %s), (2, 1, 2, 131, 132, %s), (3, 2, 2, 150, 160, %s);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id) "
        "VALUES (2, 1, 3, 111, 112, 1), (1, 1, 1, 120, 120, 1), (3, 1, 3, 131, 132, 2),"
        "(1, 1, 1, 140, 140, 2), (1, 2, 3, 150, 160, 3);"
        "UPDATE accesses SET open_flags = 0 WHERE kind = 1;",
        ash, av, aV, s1, s2, sl);
    return unit_crafted_trace(name, sql, 400);
}

/* Two crafted traces (their paths, taken: g_free'd) compared. */
static void open_crafted_pair(struct pair *x, char *paths[2])
{
    for (int i = 0; i < 2; i++) {
        g_autofree char *err = NULL;
        g_assert_cmpint(qdb_open(paths[i], &x->q[i], &err), ==, 0);
        x->p[i] = prov_new(x->q[i]);
        g_free(paths[i]);
    }
    x->d = diffeng_new(x->q[0], x->p[0], x->q[1], x->p[1]);
    x->m = diffeng_run(x->d);
    g_assert_false(qdb_failed(x->q[0]) || qdb_failed(x->q[1]));
}

/* ... and one product differs, by one cause, non-determinism. */
static void compare_crafted(struct pair *x, char *paths[2], const char *product)
{
    open_crafted_pair(x, paths);
    assert_list(x->m->differ, product);
    g_assert_cmpuint(x->m->causes->len, ==, 1);
    g_assert_cmpint(cause(x, 0)->kind, ==, DIFFENG_NONDET);
}

static void test_repeated_temporaries(void)
{
    struct pair x;
    char *paths[2] = {make_probes("41"), make_probes("42")};
    compare_crafted(&x, paths, "/w/config.log");
    g_assert_cmpint(cause(&x, 0)->proc[0], ==, 1);
    done(&x);
}

/* a.o written at ROOT with `content`, "@" replaced by the build's layout directory; its
 * sha256 into o_sha (g_free). */
static char *write_object(const char *dir, const char *layout, const char *content)
{
    g_assert_cmpint(g_mkdir_with_parents(dir, 0700), ==, 0);
    g_auto(GStrv) parts = g_strsplit(content, "@", -1);
    g_autofree char *text = g_strjoinv(layout, parts);
    g_autofree char *path = g_build_filename(dir, "a.o", NULL);
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    return g_compute_checksum_for_string(G_CHECKSUM_SHA256, text, -1);
}

/* Built in D/p1/w and D/p2x/w, a.o on disk embedding each build's path (as Makefile,
 * config.status, debug info do): one cause, the build path, naming both; an a.o that
 * differs in another way too is not put down to the build path. */
static void test_build_path(void)
{
    g_autofree char *top = unit_path("layout");
    g_autofree char *p1 = g_build_filename(top, "p1", NULL), *p2 = g_build_filename(top, "p2x", NULL);
    g_autofree char *r1 = g_build_filename(p1, "w", NULL), *r2 = g_build_filename(p2, "w", NULL);
    struct build a = base, b = base;
    a.root = a.cc_cwd = r1, b.root = b.cc_cwd = r2;
    g_autofree char *s1 = write_object(r1, p1, "srcdir = @/w\n");
    g_autofree char *s2 = write_object(r2, p2, "srcdir = @/w\n");
    a.o_sha = s1, b.o_sha = s2;
    struct pair x;
    const struct diffeng_cause *c = one_cause(&x, &a, &b, DIFFENG_BUILD_PATH);
    g_assert_cmpstr(diffeng_kind_name(c->kind), ==, "build path");
    g_autofree char *want = g_strdup_printf("%s \u2192 %s, embedded by 1 step", p1, p2);
    g_assert_cmpstr(c->detail, ==, want);
    g_autofree char *ao = g_build_filename(r2, "a.o", NULL);
    g_assert_cmpstr(c->path, ==, ao);
    g_assert_cmpint(c->proc[0], ==, 2);
    done(&x);

    g_autofree char *s3 = write_object(r2, p2, "srcdir = @/w\nbuilt at 12:00\n");
    b.o_sha = s3;
    one_cause(&x, &a, &b, DIFFENG_NONDET);
    done(&x);
}

/* A compile with debug information (cc1 -g) in each build's directory, its output not on
 * disk to compare: it records its directory, the build path; without -g, or with the
 * directory remapped (-ffile-prefix-map), it is non-determinism as before. */
static void test_compile_records_dir(void)
{
    struct build a = base, b = base;
    a.root = a.cc_cwd = "/x/p1/w", b.root = b.cc_cwd = "/x/p2x/w";
    a.cc = b.cc = "cc1", a.cc_opt = b.cc_opt = "-g", b.o = "11", b.exe = "21";
    struct pair x;
    const struct diffeng_cause *c = one_cause(&x, &a, &b, DIFFENG_BUILD_PATH);
    g_assert_cmpstr(c->detail, ==, "/x/p1 \u2192 /x/p2x, embedded by 1 step");
    done(&x);
    a.cc_opt = b.cc_opt = "-O2";
    one_cause(&x, &a, &b, DIFFENG_NONDET);
    done(&x);
    a.cc_opt = "-ffile-prefix-map=/x/p1/w=.", b.cc_opt = "-ffile-prefix-map=/x/p2x/w=.";
    one_cause(&x, &a, &b, DIFFENG_NONDET);
    done(&x);
}

/* cc was refused x.h in one build (run --only-packages) and read it in the other: that is
 * the first cause, "denied", naming the package and the process that looked it up (not make,
 * whose listing left it out), whichever side was refused; refused in both, or found by
 * neither, it is no cause. */
static void test_denied(void)
{
    struct build a = base, b = base;
    a.denied = "x.h";
    b.extra = "x.h", b.o = "11", b.exe = "21";
    for (int side = 0; side < 2; side++) {
        struct pair x;
        compare(&x, side ? &b : &a, side ? &a : &b);
        const struct diffeng_cause *c = cause(&x, 0);
        g_assert_cmpint(c->kind, ==, DIFFENG_DENIED);
        g_assert_cmpstr(diffeng_kind_name(c->kind), ==, "denied");
        g_assert_cmpstr(c->path, ==, "/w/x.h");
        g_assert_cmpstr(c->detail, ==, side ? "hidden from B (package libx-dev not allowed), found by A"
                                            : "hidden from A (package libx-dev not allowed), found by B");
        g_assert_cmpint(c->proc[0], ==, 2);
        g_assert_cmpint(c->proc[1], ==, 2);
        g_assert_cmpuint(c->products->len, ==, 0);
        for (guint i = 1; i < x.m->causes->len; i++)
            g_assert_cmpint(cause(&x, i)->kind, !=, DIFFENG_DENIED);
        done(&x);
    }
    struct pair x;
    compare(&x, &a, &a);
    g_assert_cmpuint(x.m->causes->len, ==, 0);
    done(&x);
}

/* Sixteen independent steps, step K copying /w/inK (other content in B) to /w/outK: sixteen
 * input causes, numbered by the product each reaches in the order of the products' paths
 * (never a hash table's order, which changes with the directory the build ran in). */
static char *sixteen_copies(const char *name, const char *in_sha)
{
    GString *sql = g_string_new("INSERT INTO processes (id, pid, start_ticks, exec_seq, "
                                "parent_id, start_ns, first_seen_ns, comm, exe, cwd) VALUES "
                                "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w');");
    for (int i = 0; i < 16; i++) {
        int p = i + 2, in = 2 * i + 1, out = 2 * i + 2;
        g_autofree char *si = sha(in_sha), *so = sha(in_sha);
        g_string_append_printf(
            sql,
            "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
            "first_seen_ns, comm, exe, cwd) VALUES (%d, %d, %d, 0, 1, %d, %d, 'cp', "
            "'/usr/bin/cp', '/w');"
            "INSERT INTO files (id, path) VALUES (%d, '/w/in%02d'), (%d, '/w/out%02d');"
            "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
            "(%d, %d, 1, %d, %d, %s), (%d, %d, 2, %d, %d, %s);"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
            "open_flags) VALUES (%d, %d, 1, %d, %d, %d, 0), (%d, %d, 3, %d, %d, %d, 1);",
            p, 20 + p, p, 110 + 10 * i, 110 + 10 * i, in, i, out, i, in, in, 111 + 10 * i,
            111 + 10 * i, si, out, out, 112 + 10 * i, 113 + 10 * i, so, p, in, 111 + 10 * i,
            111 + 10 * i, in, p, out, 112 + 10 * i, 113 + 10 * i, out);
    }
    g_autofree char *text = g_string_free(sql, FALSE);
    return unit_crafted_trace(name, text, 400);
}

static void test_causes_in_product_order(void)
{
    g_autofree char *pa = sixteen_copies("order-a.db", "01"), *pb = sixteen_copies("order-b.db", "02");
    struct pair x;
    g_autofree char *err = NULL;
    g_assert_cmpint(qdb_open(pa, &x.q[0], &err), ==, 0);
    g_assert_cmpint(qdb_open(pb, &x.q[1], &err), ==, 0);
    for (int i = 0; i < 2; i++)
        x.p[i] = prov_new(x.q[i]);
    x.d = diffeng_new(x.q[0], x.p[0], x.q[1], x.p[1]);
    x.m = diffeng_run(x.d);
    g_assert_false(qdb_failed(x.q[0]) || qdb_failed(x.q[1]));
    g_assert_cmpuint(x.m->differ->len, ==, 16);
    g_assert_cmpuint(x.m->causes->len, ==, 16);
    for (guint i = 0; i < 16; i++) {
        g_autofree char *in = g_strdup_printf("/w/in%02u", i), *out = g_strdup_printf("/w/out%02u", i);
        const struct diffeng_cause *c = cause(&x, i);
        g_assert_cmpint(c->kind, ==, DIFFENG_INPUT);
        g_assert_cmpstr(c->path, ==, in);
        assert_list(c->products, out);
    }
    done(&x);
}

/* gen [2] writes sixteen temporaries T and T.x; cc [3] reads them (argv: each T.x), writes
 * /w/app and removes them.  A names them /tmp/aK and /tmp/aK.x, B /tmp/bK and /tmp/cK.x: they
 * pair by shape, and A's argv word /tmp/aK.x is B's /tmp/cK.x (the longest paired prefix),
 * whichever of the pairs a hash table gives first. */
static char *sixteen_temporaries(const char *name, const char *t, const char *tx,
                                 const char *app_sha)
{
    GString *cc = g_string_new("X'6363"), *sql = g_string_new(NULL);
    for (int k = 0; k < 16; k++) {
        int f = 2 * k + 1, ver = 2 * k + 1;
        g_autofree char *st = sha("05");
        g_string_append_printf(
            sql,
            "INSERT INTO files (id, path) VALUES (%d, '/tmp/%s%02d'), (%d, '/tmp/%s%02d.x');"
            "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
            "(%d, %d, 2, 111, 112, %s), (%d, %d, 2, 111, 112, %s);"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
            "open_flags) VALUES (2, %d, 3, 111, 112, %d, 1), (2, %d, 3, 111, 112, %d, 1),"
            "(3, %d, 1, 121, 121, %d, 0), (3, %d, 1, 121, 121, %d, 0);"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns) VALUES "
            "(3, %d, %d, 150, 150), (3, %d, %d, 150, 150);",
            f, t, k, f + 1, tx, k, ver, f, st, ver + 1, f + 1, st, f, ver, f + 1, ver + 1, f,
            ver, f + 1, ver + 1, f, TRACEDB_UNLINK, f + 1, TRACEDB_UNLINK);
        g_string_append(cc, "00");
        g_autofree char *word = g_strdup_printf("/tmp/%s%02d.x", tx, k);
        for (const char *c = word; *c; c++)
            g_string_append_printf(cc, "%02X", (unsigned char)*c);
    }
    g_string_append(cc, "00'");
    g_autofree char *sa = sha(app_sha);
    g_string_prepend(sql, "INSERT INTO files (id, path) VALUES (100, '/w/app');");
    g_autofree char *procs = g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'gen', '/usr/bin/gen', '/w', X'67656E00'),"
        "(3, 12, 3, 0, 1, 120, 120, 'cc', '/usr/bin/cc', '/w', %s);", cc->str);
    g_string_prepend(sql, procs);
    g_string_append_printf(
        sql,
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
        "(100, 100, 2, 130, 140, %s);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
        "open_flags) VALUES (3, 100, 3, 130, 140, 100, 1);",
        sa);
    g_string_free(cc, TRUE);
    g_autofree char *text = g_string_free(sql, FALSE);
    return unit_crafted_trace(name, text, 400);
}

static void test_temporaries_longest_prefix(void)
{
    struct pair x;
    g_autofree char *na = g_strdup_printf("tmpa-%d.db", g_test_rand_int());
    g_autofree char *nb = g_strdup_printf("tmpb-%d.db", g_test_rand_int());
    char *paths[2] = {sixteen_temporaries(na, "a", "a", "21"),
                      sixteen_temporaries(nb, "b", "c", "22")};
    compare_crafted(&x, paths, "/w/app");
    done(&x);
}

/* cc1 [2] compiles x.c into the temporary T1, cc1 [3] y.c into T2, ld [4] reads T1 then T2,
 * writes /w/app and removes both.  x.c differs.  The temporaries' random names sort one way
 * in A (ccZ1.o, ccA2.o: T2 first) and the other in B (ccA3.o, ccZ4.o): they pair in the
 * order ld read them (T1 with T1), never by how their random names sort, so the one cause is
 * x.c (paired by name, y.c's object met x.c's and made x.c and y.c two causes). */
static char *two_objects(const char *t1, const char *t2, const char *x_sha, const char *t1_sha,
                         const char *app_sha)
{
    const char *c1[] = {"cc1", "x.c", NULL}, *c2[] = {"cc1", "y.c", NULL}, *ld[] = {"ld", NULL};
    g_autofree char *a1 = argv_blob(c1), *a2 = argv_blob(c2), *al = argv_blob(ld);
    g_autofree char *sx = sha(x_sha), *sy = sha("03"), *s1 = sha(t1_sha), *s2 = sha("13"),
                    *sa = sha(app_sha);
    g_autofree char *name = g_strdup_printf("objects-%s-%d.db", t1, g_test_rand_int());
    g_autofree char *sql = g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'cc1', '/usr/bin/cc1', '/w', %s),"
        "(3, 12, 3, 0, 1, 120, 120, 'cc1', '/usr/bin/cc1', '/w', %s),"
        "(4, 13, 4, 0, 1, 140, 140, 'ld', '/usr/bin/ld', '/w', %s);"
        "INSERT INTO files (id, path) VALUES (1, '/w/x.c'), (2, '/w/y.c'), (3, '/tmp/%s'),"
        "(4, '/tmp/%s'), (5, '/w/app');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
        "(1, 1, 1, 100, 100, %s), (2, 2, 1, 100, 100, %s), (3, 3, 2, 111, 112, %s),"
        "(4, 4, 2, 121, 122, %s), (5, 5, 2, 170, 180, %s);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
        "open_flags) VALUES (2, 1, 1, 110, 110, 1, 0), (2, 3, 3, 111, 112, 3, 1),"
        "(3, 2, 1, 120, 120, 2, 0), (3, 4, 3, 121, 122, 4, 1), (4, 3, 1, 150, 150, 3, 0),"
        "(4, 4, 1, 160, 160, 4, 0), (4, 5, 3, 170, 180, 5, 1);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns) VALUES "
        "(4, 3, %d, 190, 190), (4, 4, %d, 190, 190);",
        a1, a2, al, t1, t2, sx, sy, s1, s2, sa, TRACEDB_UNLINK, TRACEDB_UNLINK);
    return unit_crafted_trace(name, sql, 400);
}

static void test_temporaries_in_reading_order(void)
{
    struct pair x;
    char *paths[2] = {two_objects("ccZ1.o", "ccA2.o", "01", "11", "21"),
                      two_objects("ccA3.o", "ccZ4.o", "02", "12", "22")};
    open_crafted_pair(&x, paths);
    assert_list(x.m->differ, "/w/app");
    g_assert_cmpuint(x.m->causes->len, ==, 1);
    g_assert_cmpint(cause(&x, 0)->kind, ==, DIFFENG_INPUT);
    g_assert_cmpstr(cause(&x, 0)->path, ==, "/w/x.c");
    done(&x);
}

/* ld [2] writes /w/app after reading FIRST then SECOND (B: /tmp/ccZ9.o, /tmp/ccA8.o, named at
 * random; A: nothing): the two "read by the second build only" causes are numbered in the
 * order ld read them, not by how their random names sort. */
static char *reads_two(const char *first, const char *second, const char *app_sha)
{
    g_autofree char *sa = sha(app_sha), *s1 = sha("31"), *s2 = sha("32");
    g_autofree char *name = g_strdup_printf("reads-%s-%d.db", app_sha, g_test_rand_int());
    GString *sql = g_string_new(NULL);
    g_string_append_printf(
        sql,
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 140, 140, 'ld', '/usr/bin/ld', '/w', X'6C6400');"
        "INSERT INTO files (id, path) VALUES (1, '/w/app');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
        "(1, 1, 2, 170, 180, %s);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
        "open_flags) VALUES (2, 1, 3, 170, 180, 1, 1);", sa);
    if (first)
        g_string_append_printf(
            sql,
            "INSERT INTO files (id, path) VALUES (2, '/tmp/%s'), (3, '/tmp/%s');"
            "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
            "(2, 2, 1, 100, 100, %s), (3, 3, 1, 100, 100, %s);"
            "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
            "open_flags) VALUES (2, 2, 1, 150, 150, 2, 0), (2, 3, 1, 160, 160, 3, 0);",
            first, second, s1, s2);
    g_autofree char *text = g_string_free(sql, FALSE);
    return unit_crafted_trace(name, text, 400);
}

static void test_read_in_b_only_in_reading_order(void)
{
    struct pair x;
    char *paths[2] = {reads_two(NULL, NULL, "21"), reads_two("ccZ9.o", "ccA8.o", "22")};
    open_crafted_pair(&x, paths);
    assert_list(x.m->differ, "/w/app");
    g_assert_cmpuint(x.m->causes->len, ==, 2);
    g_assert_cmpstr(cause(&x, 0)->path, ==, "/tmp/ccZ9.o");
    g_assert_cmpstr(cause(&x, 1)->path, ==, "/tmp/ccA8.o");
    g_assert_cmpint(cause(&x, 1)->kind, ==, DIFFENG_INPUTS);
    done(&x);
}

/* A build run in ROOT: cp [2] copies ROOT/in to ROOT/out, cp [3] /o/in to /o/out (IN_SHA:
 * their content).  Both inputs differ: two causes, numbered the same whatever ROOT is called
 * (the build directory's products first, by their paths inside it; /a/out sorts before
 * /o/out and /z/out after: by whole paths, the numbers followed the directory's name). */
static char *two_places(const char *root, const char *in_sha)
{
    g_autofree char *name = g_strdup_printf("places-%s-%d.db", in_sha, g_test_rand_int());
    g_autofree char *s = sha(in_sha);
    g_autofree char *sql = g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd) VALUES (1, 10, 1, 0, NULL, 100, 100, 'make', "
        "'/usr/bin/make', '%s'), (2, 11, 2, 0, 1, 110, 110, 'cp', '/usr/bin/cp', '%s'),"
        "(3, 12, 3, 0, 1, 120, 120, 'cp', '/usr/bin/cp', '%s');"
        "INSERT INTO files (id, path) VALUES (1, '%s/in'), (2, '%s/out'), (3, '/o/in'),"
        "(4, '/o/out');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
        "(1, 1, 1, 100, 100, %s), (2, 2, 2, 111, 112, %s), (3, 3, 1, 100, 100, %s),"
        "(4, 4, 2, 121, 122, %s);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
        "open_flags) VALUES (2, 1, 1, 110, 110, 1, 0), (2, 2, 3, 111, 112, 2, 1),"
        "(3, 3, 1, 120, 120, 3, 0), (3, 4, 3, 121, 122, 4, 1);",
        root, root, root, root, root, s, s, s, s);
    char *path = NULL;
    sqlite3 *db = unit_trace_begin(name, root, &path);
    g_assert_cmpint(tracedb_exec(db, sql, NULL), ==, 0);
    unit_trace_end(db, 400, TRACEDB_RUN_FINISHED);
    return path;
}

static void test_numbered_whatever_the_directory(void)
{
    for (int i = 0; i < 2; i++) {
        const char *root = i ? "/z" : "/a";
        struct pair x;
        char *paths[2] = {two_places(root, "01"), two_places(root, "02")};
        open_crafted_pair(&x, paths);
        g_assert_cmpuint(x.m->causes->len, ==, 2);
        g_autofree char *in = g_strdup_printf("%s/in", root);
        g_assert_cmpstr(cause(&x, 0)->path, ==, in);
        g_assert_cmpstr(cause(&x, 1)->path, ==, "/o/in");
        done(&x);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/diffeng/identical", test_identical);
    g_test_add_func("/diffeng/differing-input", test_differing_input);
    g_test_add_func("/diffeng/argv", test_argv);
    g_test_add_func("/diffeng/only-in-one", test_only_in_one);
    g_test_add_func("/diffeng/nondeterministic-tool", test_nondeterministic_tool);
    g_test_add_func("/diffeng/other-directory", test_other_directory);
    g_test_add_func("/diffeng/environment", test_environment);
    g_test_add_func("/diffeng/fakeroot-key-noise", test_fakeroot_key_noise);
    g_test_add_func("/diffeng/expected-env", test_expected_env);
    g_test_add_func("/diffeng/artifacts-beside-one-path", test_artifacts_beside_one_path);
    g_test_add_func("/diffeng/expected-path", test_expected_path);
    g_test_add_func("/diffeng/read-in-one-build", test_read_in_one_build);
    g_test_add_func("/diffeng/map-and-exclude", test_map_and_exclude);
    g_test_add_func("/diffeng/layout", test_layout);
    g_test_add_func("/diffeng/layout-from-parent", test_layout_from_parent);
    g_test_add_func("/diffeng/repeated-temporaries", test_repeated_temporaries);
    g_test_add_func("/diffeng/build-path", test_build_path);
    g_test_add_func("/diffeng/compile-records-dir", test_compile_records_dir);
    g_test_add_func("/diffeng/denied", test_denied);
    g_test_add_func("/diffeng/causes-in-product-order", test_causes_in_product_order);
    g_test_add_func("/diffeng/environment-by-name", test_environment_by_name);
    g_test_add_func("/diffeng/temporaries-longest-prefix", test_temporaries_longest_prefix);
    g_test_add_func("/diffeng/temporaries-in-reading-order", test_temporaries_in_reading_order);
    g_test_add_func("/diffeng/numbered-whatever-the-directory",
                    test_numbered_whatever_the_directory);
    g_test_add_func("/diffeng/read-in-b-only-in-reading-order",
                    test_read_in_b_only_in_reading_order);
    return unit_run();
}
