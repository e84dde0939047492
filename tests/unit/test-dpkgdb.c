/* Unit tests: dpkg's status file (installed packages, source and version) and ownership. */
#include "dpkgdb.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>

static const char status[] =
    "Package: zlib1g-dev\nStatus: install ok installed\nArchitecture: amd64\n"
    "Source: zlib\nVersion: 1:1.2.13.dfsg-1\nDescription: x\n continued line\n\n"
    "Package: libfoo1\nStatus: deinstall ok config-files\nVersion: 1.0\n\n"
    "Package: gcc-12\nStatus: install ok installed\nArchitecture: amd64\n"
    "Source: gcc-12 (12.2.0-14)\nVersion: 12.2.0-14+b1\n\n"
    "Package: debhelper\nStatus: install ok installed\nArchitecture: all\nVersion: 13.11.4\n"
    "Provides: debhelper-compat (= 9), debhelper-compat (= 10),\n dh-sequence-dwz\n\n"
    "Package: dpkg\nStatus: install ok installed\nArchitecture: arm64\nVersion: 1.21.22\n\n"
    "Package: dash\nStatus: install ok installed\nArchitecture: amd64\nVersion: 0.5.12-2\n\n"
    /* Installed all the same: held (apt-mark hold), or selected for removal not yet done. */
    "Package: held\nStatus: hold ok installed\nArchitecture: amd64\nVersion: 1\n\n"
    "Package: leaving\nStatus: deinstall ok installed\nArchitecture: amd64\nVersion: 1\n\n"
    "Package: waiting\nStatus: install ok triggers-pending\nArchitecture: amd64\nVersion: 1\n\n"
    "Package: broken\nStatus: install ok half-configured\nArchitecture: amd64\nVersion: 1\n\n"
    "Package: gone\nStatus: purge ok not-installed\nArchitecture: amd64\nVersion: 1\n";

static void test_parse(void)
{
    GPtrArray *pkgs = g_ptr_array_new_with_free_func(dpkg_pkg_free);
    dpkg_parse_status(status, strlen(status), pkgs);
    g_assert_cmpuint(pkgs->len, ==, 8); /* libfoo1, broken and gone are not installed */
    g_assert_cmpstr(((const struct dpkg_pkg *)pkgs->pdata[5])->name, ==, "held");
    g_assert_cmpstr(((const struct dpkg_pkg *)pkgs->pdata[6])->name, ==, "leaving");
    g_assert_cmpstr(((const struct dpkg_pkg *)pkgs->pdata[7])->name, ==, "waiting");
    const struct dpkg_pkg *z = pkgs->pdata[0], *g = pkgs->pdata[1], *h = pkgs->pdata[2],
                          *d = pkgs->pdata[4];
    /* Provides: names once each, continuation lines folded */
    g_assert_cmpuint(g_strv_length(h->provides), ==, 2);
    g_assert_cmpstr(h->provides[0], ==, "debhelper-compat");
    g_assert_cmpstr(h->provides[1], ==, "dh-sequence-dwz");
    g_assert_cmpuint(g_strv_length(z->provides), ==, 0);
    g_assert_cmpstr(z->name, ==, "zlib1g-dev");
    g_assert_cmpstr(z->source, ==, "zlib");
    g_assert_cmpstr(z->source_version, ==, "1:1.2.13.dfsg-1");
    g_assert_cmpstr(g->source, ==, "gcc-12");
    g_assert_cmpstr(g->source_version, ==, "12.2.0-14"); /* binNMU: the source's own version */
    g_assert_cmpstr(g->version, ==, "12.2.0-14+b1");
    g_assert_cmpstr(d->source, ==, "dash"); /* no Source: the package itself */
    g_ptr_array_free(pkgs, TRUE);
}

static void test_owner(void)
{
    g_autofree char *dir = g_dir_make_tmp("bt-dpkg-XXXXXX", NULL);
    g_autofree char *info = g_build_filename(dir, "info", NULL);
    g_mkdir(info, 0755);
    g_autofree char *st = g_build_filename(dir, "status", NULL);
    g_assert_true(g_file_set_contents(st, status, -1, NULL));
    g_autofree char *l1 = g_build_filename(info, "zlib1g-dev:amd64.list", NULL);
    g_assert_true(g_file_set_contents(l1, "/.\n/usr/include/zlib.h\n", -1, NULL));
    g_autofree char *l2 = g_build_filename(info, "dash.list", NULL);
    g_assert_true(g_file_set_contents(l2, "/bin/dash\n", -1, NULL));
    struct dpkgdb *db = NULL;
    g_assert_cmpint(dpkgdb_load(dir, &db), ==, 0);
    g_assert_cmpstr(dpkgdb_owner(db, "/usr/include/zlib.h")->name, ==, "zlib1g-dev");
    g_assert_cmpstr(dpkgdb_owner(db, "/usr/bin/dash")->name, ==, "dash"); /* merged /usr */
    g_assert_null(dpkgdb_owner(db, "/etc/ld.so.cache"));
    g_assert_nonnull(dpkgdb_package(db, "gcc-12"));
    g_assert_cmpstr(dpkgdb_native_arch(db), ==, "arm64"); /* dpkg's own */
    dpkgdb_free(db);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    g_assert_cmpint(system(cmd), ==, 0);
}

/* Forty packages p00..p39 list one path, /usr/share/shared (a directory many packages list,
 * or a file both architectures of a multi-arch package list): its owner is the first by list
 * name, p00, whatever order the directory gives its entries in (the lists are made in the
 * order p20..p39, p00..p19: neither creation order nor its reverse starts with p00). */
static void test_owner_first_by_list_name(void)
{
    g_autofree char *dir = g_dir_make_tmp("bt-dpkg-XXXXXX", NULL);
    g_autofree char *info = g_build_filename(dir, "info", NULL);
    g_assert_cmpint(g_mkdir(info, 0755), ==, 0);
    GString *st = g_string_new(NULL);
    for (int k = 0; k < 40; k++)
        g_string_append_printf(st, "Package: p%02d\nStatus: install ok installed\n"
                                   "Architecture: amd64\nVersion: 1\n\n", k);
    g_autofree char *sp = g_build_filename(dir, "status", NULL);
    g_assert_true(g_file_set_contents(sp, st->str, -1, NULL));
    g_string_free(st, TRUE);
    for (int n = 0; n < 40; n++) {
        int k = (n + 20) % 40;
        g_autofree char *name = g_strdup_printf("p%02d.list", k);
        g_autofree char *l = g_build_filename(info, name, NULL);
        g_autofree char *text = g_strdup_printf("/usr/share/shared\n/usr/share/p%02d\n", k);
        g_assert_true(g_file_set_contents(l, text, -1, NULL));
    }
    struct dpkgdb *db = NULL;
    g_assert_cmpint(dpkgdb_load(dir, &db), ==, 0);
    g_assert_cmpstr(dpkgdb_owner(db, "/usr/share/shared")->name, ==, "p00");
    g_assert_cmpstr(dpkgdb_owner(db, "/usr/share/p07")->name, ==, "p07");
    dpkgdb_free(db);
    g_autofree char *cmd = g_strdup_printf("rm -rf '%s'", dir);
    g_assert_cmpint(system(cmd), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/dpkgdb/parse", test_parse);
    g_test_add_func("/dpkgdb/owner", test_owner);
    g_test_add_func("/dpkgdb/owner-first-by-list-name", test_owner_first_by_list_name);
    return g_test_run();
}
