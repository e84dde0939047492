/* Unit tests: the packages a build may use (common/debset.c) on a made-up dpkg database, and
 * dpkgdb's Essential, Depends-as-written and file lists that it stands on. */
#include "debset.h"
#include "dpkgdb.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#define INSTALLED "Status: install ok installed\nArchitecture: amd64\nVersion: 1\n"
static const char status[] =
    "Package: dpkg\n" INSTALLED "Essential: yes\nPre-Depends: libc6\n\n"
    "Package: libc6\n" INSTALLED "Depends: libgcc-s1\n\n"
    "Package: libgcc-s1\n" INSTALLED "\n"
    "Package: build-essential\n" INSTALLED "Depends: gcc, make, libc6-dev | libc-dev\n\n"
    "Package: gcc\n" INSTALLED "\n"
    "Package: make\n" INSTALLED "\n"
    "Package: musl-dev\n" INSTALLED "Provides: libc-dev\n\n"
    "Package: debhelper\n" INSTALLED "Provides: debhelper-compat (= 13)\n"
    "Depends: perl:any,\n man-db\n\n"
    "Package: perl\n" INSTALLED "\n"
    "Package: man-db\n" INSTALLED "\n"
    "Package: zlib1g-dev\n" INSTALLED "Depends: zlib1g\n\n"
    "Package: zlib1g\n" INSTALLED "\n"
    "Package: libssl-dev\n" INSTALLED "\n"
    "Package: mawk\n" INSTALLED "Priority: required\nDepends: libreadline8\n\n"
    "Package: libreadline8\n" INSTALLED "Priority: optional\n\n"
    "Package: gone\nStatus: deinstall ok config-files\nVersion: 1\n";

static struct dpkgdb *fake_db_of(const char *status_text, char **dir)
{
    *dir = g_dir_make_tmp("bt-debset-XXXXXX", NULL);
    g_autofree char *info = g_build_filename(*dir, "info", NULL);
    g_assert_cmpint(g_mkdir(info, 0755), ==, 0);
    g_autofree char *st = g_build_filename(*dir, "status", NULL);
    g_assert_true(g_file_set_contents(st, status_text, -1, NULL));
    g_autofree char *l = g_build_filename(info, "zlib1g-dev:amd64.list", NULL);
    g_assert_true(g_file_set_contents(l, "/.\n/usr\n/usr/include/zlib.h\n", -1, NULL));
    g_autofree char *dv = g_build_filename(*dir, "diversions", NULL);
    g_assert_true(g_file_set_contents(dv, "/usr/bin/pg_config\n/usr/bin/pg_config.libpq-dev\n"
                                          "postgresql-common\n/etc/x\n/etc/x.local\n:\n",
                                      -1, NULL));
    struct dpkgdb *db = NULL;
    g_assert_cmpint(dpkgdb_load(*dir, &db), ==, 0);
    return db;
}

static struct dpkgdb *fake_db(char **dir)
{
    return fake_db_of(status, dir);
}

static void remove_db(char *dir)
{
    g_autofree char *info = g_build_filename(dir, "info", NULL);
    g_autofree char *l = g_build_filename(info, "zlib1g-dev:amd64.list", NULL);
    g_autofree char *st = g_build_filename(dir, "status", NULL);
    g_autofree char *dv = g_build_filename(dir, "diversions", NULL);
    g_unlink(dv);
    g_unlink(l);
    g_rmdir(info);
    g_unlink(st);
    g_rmdir(dir);
    g_free(dir);
}

static void collect(const char *path, void *data)
{
    g_ptr_array_add(data, g_strdup(path));
}

static void test_dpkgdb_fields(void)
{
    char *dir;
    struct dpkgdb *db = fake_db(&dir);
    g_assert_true(dpkgdb_package(db, "dpkg")->essential);
    g_assert_false(dpkgdb_package(db, "libc6")->essential);
    g_assert_true(dpkgdb_package(db, "mawk")->required);
    g_assert_false(dpkgdb_package(db, "libreadline8")->required);
    g_assert_cmpstr(dpkgdb_package(db, "debhelper")->depends_field, ==, "perl:any,  man-db");
    g_assert_cmpstr(dpkgdb_package(db, "gcc")->depends_field, ==, "");
    /* Diversions: another package's file moved aside; the diverter's own stays. */
    g_assert_cmpstr(dpkgdb_diverted(db, "/usr/bin/pg_config", "libpq-dev"), ==,
                    "/usr/bin/pg_config.libpq-dev");
    g_assert_null(dpkgdb_diverted(db, "/usr/bin/pg_config", "postgresql-common"));
    g_assert_cmpstr(dpkgdb_diverted(db, "/etc/x", "any"), ==, "/etc/x.local");
    g_assert_null(dpkgdb_diverted(db, "/usr/bin/other", "libpq-dev"));
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    g_assert_cmpint(dpkgdb_each_listed(db, dpkgdb_package(db, "zlib1g-dev"), collect, paths), ==, 0);
    g_assert_cmpuint(paths->len, ==, 3);
    g_assert_cmpstr(paths->pdata[2], ==, "/usr/include/zlib.h");
    g_ptr_array_set_size(paths, 0);
    /* No list: nothing, not an error. */
    g_assert_cmpint(dpkgdb_each_listed(db, dpkgdb_package(db, "perl"), collect, paths), ==, 0);
    g_assert_cmpuint(paths->len, ==, 0);
    g_ptr_array_free(paths, TRUE);
    dpkgdb_free(db);
    remove_db(dir);
}

static void test_base_and_closure(void)
{
    char *dir;
    struct dpkgdb *db = fake_db(&dir);
    struct debset *s = debset_new(db);
    debset_add_base(s);
    debset_close(s);
    /* Essential dpkg and what it pre-depends on, transitively; mawk (Priority: required, as
     * in every debootstrap chroot) and its Depends; build-essential and its members; libc-dev
     * through its provider (libc6-dev is not installed). */
    const char *in[] = {"dpkg", "libc6", "libgcc-s1", "mawk", "libreadline8", "build-essential",
                        "gcc", "make", "musl-dev"};
    for (size_t i = 0; i < G_N_ELEMENTS(in); i++)
        g_assert_true(debset_has(s, in[i]));
    g_assert_false(debset_has(s, "zlib1g-dev"));
    g_assert_false(debset_has(s, "debhelper"));
    g_assert_cmpuint(debset_size(s), ==, G_N_ELEMENTS(in));
    debset_free(s);
    dpkgdb_free(db);
    remove_db(dir);
}

static void test_relations(void)
{
    char *dir;
    struct dpkgdb *db = fake_db(&dir);
    struct debset *s = debset_new(db);
    char *missing = NULL;
    /* A virtual package through its provider; an alternative not installed skipped; a clause
     * for another architecture or a profile not active adds nothing. */
    const char *bd = "debhelper-compat (= 13), libfoo-dev | zlib1g-dev, "
                     "libssl-dev [armhf], gone <!nocheck>";
    const char *nocheck[] = {"nocheck", NULL};
    g_assert_cmpint(debset_add_relations(s, bd, "amd64", nocheck, &missing), ==, 0);
    g_assert_null(missing);
    debset_close(s);
    g_assert_true(debset_has(s, "debhelper"));
    g_assert_true(debset_has(s, "perl"));   /* debhelper's Depends, ":any" dropped */
    g_assert_true(debset_has(s, "man-db")); /* a continuation line */
    g_assert_true(debset_has(s, "zlib1g-dev"));
    g_assert_true(debset_has(s, "zlib1g"));
    g_assert_false(debset_has(s, "libssl-dev"));
    g_assert_false(debset_has(s, "libfoo-dev"));
    /* A clause that applies with nothing installed: named. */
    g_assert_cmpint(debset_add_relations(s, "make, libfoo-dev | gone", "amd64", NULL, &missing),
                    ==, -ENOENT);
    g_assert_cmpstr(missing, ==, "libfoo-dev | gone");
    g_free(missing);
    missing = NULL;
    /* Versions: zlib1g-dev is at 1, so ">= 2" is not met, unless an alternative is; the
     * closure (Depends of installed packages) is not checked. */
    missing = NULL;
    g_assert_cmpint(debset_add_relations(s, "zlib1g-dev (>= 2)", "amd64", NULL, &missing), ==,
                    -ENOENT);
    g_assert_cmpstr(missing, ==, "zlib1g-dev (>= 2)");
    g_free(missing);
    missing = NULL;
    g_assert_cmpint(debset_add_relations(s, "zlib1g-dev (>= 1~), make (<< 1.0-1) | gcc (= 1)",
                                         "amd64", NULL, &missing), ==, 0);
    g_assert_null(missing);
    /* An architecture qualifier: zlib1g-dev is amd64's only. */
    g_assert_cmpint(debset_add_relations(s, "zlib1g-dev:amd64, make:any, gcc:native", "amd64",
                                         NULL, &missing), ==, 0);
    g_assert_cmpint(debset_add_relations(s, "zlib1g-dev:i386", "amd64", NULL, &missing), ==,
                    -ENOENT);
    g_assert_cmpstr(missing, ==, "zlib1g-dev:i386");
    g_free(missing);
    missing = NULL;
    /* A list of names, by commas or white space. */
    g_assert_cmpint(debset_add_relations(s, "libssl-dev  make,gcc", "amd64", NULL, &missing),
                    ==, 0);
    g_assert_true(debset_has(s, "libssl-dev"));
    g_assert_cmpint(debset_add_relations(s, "gcc nosuch", "amd64", NULL, &missing), ==, -ENOENT);
    g_assert_cmpstr(missing, ==, "nosuch");
    g_free(missing);
    /* Bytes that are not UTF-8: a name like any other (not installed). */
    missing = NULL;
    g_assert_cmpint(debset_add_relations(s, "make \xff\xfe", "amd64", NULL, &missing), ==,
                    -ENOENT);
    g_assert_cmpstr(missing, ==, "\xff\xfe");
    g_free(missing);
    debset_free(s);
    dpkgdb_free(db);
    remove_db(dir);
}

/* Twenty pairs: aK needs the virtual package vK, which pKa and pKz provide; zK needs pKz.
 * The closure expands the set's names in name order (aK before zK): vK is not satisfied yet,
 * so its first provider by name, pKa, comes in; then zK brings pKz.  Expanded in a hash
 * table's order, a zK met first would bring pKz, which then satisfies vK, and pKa would be
 * left out or not as the hashes fell. */
static void test_closure_in_name_order(void)
{
    GString *st = g_string_new(NULL), *names = g_string_new(NULL);
    for (int k = 0; k < 20; k++) {
        g_string_append_printf(st,
                               "Package: a%02d\n" INSTALLED "Depends: v%02d\n\n"
                               "Package: z%02d\n" INSTALLED "Depends: p%02dz\n\n"
                               "Package: p%02da\n" INSTALLED "Provides: v%02d\n\n"
                               "Package: p%02dz\n" INSTALLED "Provides: v%02d\n\n",
                               k, k, k, k, k, k, k, k);
        g_string_append_printf(names, "z%02d a%02d ", k, k);
    }
    char *dir;
    struct dpkgdb *db = fake_db_of(st->str, &dir);
    struct debset *s = debset_new(db);
    g_assert_cmpint(debset_add_relations(s, names->str, "amd64", NULL, NULL), ==, 0);
    debset_close(s);
    for (int k = 0; k < 20; k++) {
        char a[8], z[8];
        g_snprintf(a, sizeof a, "p%02da", k);
        g_snprintf(z, sizeof z, "p%02dz", k);
        g_assert_true(debset_has(s, a));
        g_assert_true(debset_has(s, z));
    }
    g_assert_cmpuint(debset_size(s), ==, 80);
    debset_free(s);
    dpkgdb_free(db);
    remove_db(dir);
    g_string_free(st, TRUE);
    g_string_free(names, TRUE);
}

/* debset_resolve: the base first, so that a virtual package the build names is satisfied by
 * the provider the base holds (gcc-12 through build-essential), not the first by name. */
static void test_virtual_base_provider(void)
{
    char *dir;
    struct dpkgdb *db = fake_db_of("Package: build-essential\n" INSTALLED "Depends: gcc\n\n"
                                   "Package: gcc\n" INSTALLED "Depends: gcc-12\n\n"
                                   "Package: gcc-12\n" INSTALLED "Provides: c-compiler\n\n"
                                   "Package: clang-14\n" INSTALLED "Provides: c-compiler\n\n",
                                   &dir);
    struct debset *s = debset_new(db);
    g_assert_cmpint(debset_resolve(s, "c-compiler", "amd64", NULL, NULL), ==, 0);
    g_assert_true(debset_has(s, "gcc-12"));
    g_assert_false(debset_has(s, "clang-14"));
    debset_free(s);
    dpkgdb_free(db);
    remove_db(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/debset/dpkgdb-fields", test_dpkgdb_fields);
    g_test_add_func("/debset/base-and-closure", test_base_and_closure);
    g_test_add_func("/debset/relations", test_relations);
    g_test_add_func("/debset/closure-in-name-order", test_closure_in_name_order);
    g_test_add_func("/debset/virtual-base-provider", test_virtual_base_provider);
    return g_test_run();
}
