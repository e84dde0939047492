/* Unit tests of pkgscan (query/lib/pkgscan.c), the engine of `buildtrail packages`, on a small
 * hand-made trace and dpkg database: which package each read outside the build belongs to and
 * how it was used (headers compiled in, executed, a symlink followed, read by a directory scan
 * only), the reads no package owns, the build's own tree left out, and a Build-Depends value
 * sorted by use. */
#include "dpkgdb.h"
#include "pkgscan.h"
#include "prov.h"
#include "qdb.h"
#include "tracedb.h"
#include "unit-sql.h"
#include "unit-trace.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

static void write_file(const char *dir, const char *name, const char *text)
{
    g_autofree char *p = g_build_filename(dir, name, NULL);
    g_assert_true(g_file_set_contents(p, text, -1, NULL));
}

/* A dpkg database: zdev owns /usr/include/z.h, gcc /usr/bin/cc, m4data the macro directory
 * `m4`, pyth /usr/bin/py (a symlink the build follows); dpkg says the architecture. */
static char *make_admindir(const char *m4)
{
    char *dir = unit_path("dpkg");
    g_autofree char *info = g_build_filename(dir, "info", NULL);
    g_assert_cmpint(g_mkdir_with_parents(info, 0755), ==, 0);
    write_file(dir, "status",
               "Package: zdev\nStatus: install ok installed\nArchitecture: amd64\n"
               "Source: zlib\nVersion: 1.0-1\n\n"
               "Package: gcc\nStatus: install ok installed\nArchitecture: amd64\nVersion: 12\n\n"
               "Package: m4data\nStatus: install ok installed\nArchitecture: all\nVersion: 2\n\n"
               "Package: pyth\nStatus: install ok installed\nArchitecture: amd64\nVersion: 3\n\n"
               "Package: dpkg\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1\n");
    write_file(info, "zdev:amd64.list", "/usr/include/z.h\n");
    write_file(info, "gcc:amd64.list", "/usr/bin/cc\n");
    write_file(info, "pyth:amd64.list", "/usr/bin/py\n");
    GString *l = g_string_new(NULL);
    for (int i = 0; i < 5; i++)
        g_string_append_printf(l, "%s/m%d.m4\n", m4, i);
    write_file(info, "m4data.list", l->str);
    g_string_free(l, TRUE);
    return dir;
}

/* make [1] runs cc [2] (exe /usr/bin/cc: a.c and /usr/include/z.h -> a.o) and aclocal [3],
 * which lists `m4` and reads its 5 files; cc also reads /etc/odd.conf (no package's) and
 * follows the symlink /usr/bin/py; ld [4] links a.o into app. */
static char *make_trace(const char *m4)
{
    GString *sql = g_string_new(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, "
        "start_ns, first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '/w', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 110, 110, 'cc', '/usr/bin/cc', '/w', X'6363002D6300612E6300'),"
        "(3, 12, 3, 0, 1, 120, 120, 'aclocal', '/usr/bin/aclocal', '/w', X'61636C6F63616C00'),"
        "(4, 13, 4, 0, 1, 200, 200, 'ld', '/usr/bin/ld', '/w', X'6C6400');"
        "INSERT INTO files (id, path) VALUES (1, '/w/a.c'), (2, '/usr/include/z.h'), "
        "(3, '/w/a.o'), (4, '/usr/bin/cc'), (5, '/etc/odd.conf'), (6, '/w/app'), "
        "(7, '/usr/bin/py');");
    g_string_append_printf(sql, "INSERT INTO files (id, path) VALUES (20, '%s');", m4);
    for (int i = 0; i < 5; i++)
        g_string_append_printf(sql,
                               "INSERT INTO files (id, path) VALUES (%d, '%s/m%d.m4');"
                               "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) "
                               "VALUES (%d, %d, 1, 121, 121);"
                               "INSERT INTO accesses (process_id, file_id, kind, first_ns, "
                               "last_ns, version_id) VALUES (3, %d, 1, 121, 121, %d);",
                               21 + i, m4, i, 21 + i, 21 + i, 21 + i, 21 + i);
    g_string_append(
        sql,
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns) VALUES "
        "(1, 1, 1, 111, 111), (2, 2, 1, 112, 112), (3, 3, 2, 150, 150), (4, 4, 1, 110, 110), "
        "(5, 5, 1, 113, 113), (6, 6, 2, 250, 250);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id) VALUES "
        "(2, 4, 5, 110, 110, 4), (2, 1, 1, 111, 111, 1), (2, 2, 1, 112, 112, 2), "
        "(2, 5, 1, 113, 113, 5), (2, 3, 3, 140, 150, 3), (4, 3, 1, 201, 201, 3), "
        "(4, 6, 3, 240, 250, 6);"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns) VALUES "
        "(3, 20, 13, 120, 120), (2, 7, 14, 114, 114);"
        "UPDATE accesses SET open_flags = 0 WHERE kind = 1;");
    char *p = unit_crafted_trace("pkg.db", sql->str, 1000);
    g_string_free(sql, TRUE);
    return p;
}

/* The dpkg database at `admin` and the trace at `path` with its provenance view. */
static struct prov *open_all(const char *admin, const char *path, struct dpkgdb **db,
                             struct qdb **q)
{
    g_assert_cmpint(dpkgdb_load(admin, db), ==, 0);
    g_autofree char *err = NULL;
    g_assert_cmpint(qdb_open(path, q, &err), ==, 0);
    struct prov *p = prov_new(*q);
    g_assert_nonnull(p);
    return p;
}

static const struct pkgscan_use *use_named(const struct pkgscan *m, const char *name)
{
    for (guint i = 0; i < m->uses->len; i++) {
        const struct pkgscan_use *u = m->uses->pdata[i];
        if (!strcmp(u->pkg->name, name))
            return u;
    }
    g_assert_not_reached();
}

static void test_uses(void)
{
    g_autofree char *m4 = unit_path("aclocal");
    g_assert_cmpint(g_mkdir_with_parents(m4, 0755), ==, 0);
    for (int i = 0; i < 5; i++) {
        g_autofree char *name = g_strdup_printf("m%d.m4", i);
        write_file(m4, name, "dnl\n");
    }
    g_autofree char *admin = make_admindir(m4);
    g_autofree char *path = make_trace(m4);
    struct dpkgdb *db = NULL;
    struct qdb *q = NULL;
    struct prov *p = open_all(admin, path, &db, &q);
    struct pkgscan_opts o = {.declared = "zdev, m4data, pyth, absent | gcc, nothere, "
                                         "other [arm64]"};
    struct pkgscan *m = pkgscan_run(q, p, db, "/w", &o);
    g_assert_false(qdb_failed(q));
    g_assert_false(m->system_traced);
    g_assert_false(m->system_watched);

    g_assert_cmpuint(m->uses->len, ==, 4); /* by name: gcc, m4data, pyth, zdev */
    const struct pkgscan_use *gcc = m->uses->pdata[0], *z = m->uses->pdata[3];
    g_assert_cmpstr(gcc->pkg->name, ==, "gcc");
    g_assert_true(gcc->executed && gcc->direct);
    g_assert_cmpuint(gcc->files, ==, 1);
    g_assert_cmpstr(z->pkg->name, ==, "zdev");
    g_assert_true(z->headers);         /* z.h compiled into a.o, then app */
    g_assert_false(z->incorporated);   /* a header is not code */
    g_assert_false(z->executed);
    const struct pkgscan_use *py = use_named(m, "pyth");
    g_assert_cmpuint(py->links, ==, 1);
    g_assert_cmpuint(py->files, ==, 0);
    const struct pkgscan_use *sc = use_named(m, "m4data");
    g_assert_cmpuint(sc->files, ==, 5);
    g_assert_false(sc->direct);
    g_assert_nonnull(sc->scan);
    g_assert_true(strstr(sc->scan, "aclocal listed and read 5 of the 5 files of "));

    /* the build's own files are not package uses; /etc/odd.conf is no package's */
    g_assert_cmpuint(m->unowned->len, ==, 1);
    g_assert_cmpstr(m->unowned->pdata[0], ==, "/etc/odd.conf");
    g_assert_cmpuint(m->archives->len, ==, 0);

    g_assert_true(m->has_declared);
    g_assert_cmpstr(m->arch, ==, "amd64"); /* dpkg's */
    g_assert_cmpuint(m->declared.untouched->len, ==, 1);
    g_assert_cmpstr(m->declared.untouched->pdata[0], ==, "nothere");
    g_assert_cmpuint(m->declared.scan_only->len, ==, 1);
    g_assert_true(g_str_has_prefix(m->declared.scan_only->pdata[0], "m4data (aclocal "));
    g_assert_cmpuint(m->declared.not_applicable->len, ==, 1);
    g_assert_cmpstr(m->declared.not_applicable->pdata[0], ==, "other");
    g_assert_cmpuint(m->declared.through->len, ==, 0);
    pkgscan_free(m);

    /* without a Build-Depends value nothing is sorted, and the host architecture given wins */
    struct pkgscan_opts none = {.arch = "arm64"};
    m = pkgscan_run(q, p, db, "/w", &none);
    g_assert_false(m->has_declared);
    g_assert_cmpstr(m->arch, ==, "arm64");
    g_assert_cmpuint(m->declared.untouched->len, ==, 0);
    pkgscan_free(m);
    prov_free(p);
    qdb_close(q);
    dpkgdb_free(db);
}

/* Path `name` under `dir`, written with `len` bytes of `data`; its SHA-256 in *sha. */
static char *put_file(const char *dir, const char *name, const void *data, gsize len, char **sha)
{
    char *p = g_build_filename(dir, name, NULL);
    g_assert_true(g_file_set_contents(p, data, (gssize)len, NULL));
    *sha = g_compute_checksum_for_data(G_CHECKSUM_SHA256, data, len);
    return p;
}

/* An archive whose members' global symbols cannot be read (here one LLVM bitcode member, as
 * `-flto` objects are; a thin archive without an index and members with local symbols only
 * are alike) is "not checked", never "nothing linked": ld [2] links it with a.o into app, a
 * program with a full symbol table that defines none of the (unknown) symbols. */
static void test_archive_unreadable_symbols(void)
{
    g_autofree char *w = unit_path("bcw"), *lib = unit_path("bclib");
    g_assert_cmpint(g_mkdir_with_parents(w, 0755), ==, 0);
    g_assert_cmpint(g_mkdir_with_parents(lib, 0755), ==, 0);
    static const char ar[] = "!<arch>\n"
                             "bc.o/           0           0     0     644     8         `\n"
                             "BC\xc0\xde\x35\x14\x00\x00";
    g_autofree char *ar_sha = NULL, *o_sha = NULL, *app_sha = NULL, *app_data = NULL;
    g_autofree char *ar_path = put_file(lib, "libbc.a", ar, sizeof ar - 1, &ar_sha);
    g_autofree char *o_path = put_file(w, "a.o", "not read", 8, &o_sha);
    gsize app_len = 0; /* a program with a full symbol table: this test's own */
    g_assert_true(g_file_get_contents("/proc/self/exe", &app_data, &app_len, NULL));
    g_autofree char *app_path = put_file(w, "app", app_data, app_len, &app_sha);

    g_autofree char *admin = unit_path("bcdpkg");
    g_autofree char *info = g_build_filename(admin, "info", NULL);
    g_assert_cmpint(g_mkdir_with_parents(info, 0755), ==, 0);
    write_file(admin, "status", "Package: bcdev\nStatus: install ok installed\n"
                                "Architecture: amd64\nVersion: 1\n");
    g_autofree char *list = g_strconcat(ar_path, "\n", NULL);
    write_file(info, "bcdev:amd64.list", list);

    g_autofree char *sql = g_strdup_printf(
        "INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
        "first_seen_ns, comm, exe, cwd, argv) VALUES "
        "(1, 10, 1, 0, NULL, 100, 100, 'make', '/usr/bin/make', '%s', X'6D616B6500'),"
        "(2, 11, 2, 0, 1, 200, 200, 'ld', '/usr/bin/ld', '%s', X'6C6400');"
        "INSERT INTO files (id, path) VALUES (1, '%s'), (2, '%s'), (3, '%s');"
        "INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, sha256) VALUES "
        "(1, 1, 1, 201, 201, X'%s'), (2, 2, 1, 202, 202, X'%s'), (3, 3, 2, 240, 250, X'%s');"
        "INSERT INTO accesses (process_id, file_id, kind, first_ns, last_ns, version_id, "
        "open_flags) VALUES (2, 1, 1, 201, 201, 1, 0), (2, 2, 1, 202, 202, 2, 0), "
        "(2, 3, 3, 240, 250, 3, 0);",
        w, w, ar_path, o_path, app_path, ar_sha, o_sha, app_sha);
    g_autofree char *path = unit_crafted_trace("bc.db", sql, 1000);
    struct dpkgdb *db = NULL;
    struct qdb *q = NULL;
    struct prov *p = open_all(admin, path, &db, &q);
    struct pkgscan_opts o = {0};
    struct pkgscan *m = pkgscan_run(q, p, db, w, &o);
    g_assert_false(qdb_failed(q));
    g_assert_cmpuint(m->archives->len, ==, 1);
    const struct pkgscan_archive *a = m->archives->pdata[0];
    g_assert_cmpint(a->verdict, ==, PKGSCAN_NOT_CHECKED);
    g_assert_nonnull(strstr(a->how, "no global symbol of its 1 member could be read"));
    g_assert_true(use_named(m, "bcdev")->incorporated); /* still a candidate */
    pkgscan_free(m);
    prov_free(p);
    qdb_close(q);
    dpkgdb_free(db);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/pkgscan/uses", test_uses);
    g_test_add_func("/pkgscan/archive-unreadable-symbols", test_archive_unreadable_symbols);
    return unit_run();
}
