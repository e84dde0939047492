/* Unit tests: the gate of `run --only-inputs` (capture/gate.h) on made-up trees. */
#include "gate.h"

#include <errno.h>
#include <glib.h>
#include <string.h>

/* Trees /work (workspace's), /home, /usr (system); the build starts in /work/proj. */
static struct gate *made(const char *manifest)
{
    struct gate *g = gate_new();
    g_autofree char *err = NULL;
    g_assert_cmpint(gate_add_manifest(g, manifest, strlen(manifest), "/work/proj", &err), ==, 0);
    g_assert_null(err);
    gate_add_tree(g, "/work", false);
    gate_add_tree(g, "/home", false);
    gate_add_tree(g, "/usr", true);
    gate_add_visible_dir(g, "/work/proj");
    gate_seal(g);
    return g;
}

#define VIS(g, p, d) g_assert_cmpint(gate_judge(g, p, d), ==, GATE_VISIBLE)
#define HID(g, p, d) g_assert_cmpint(gate_judge(g, p, d), ==, GATE_UNDECLARED)

static void test_paths(void)
{
    struct gate *g = made("src/a.c\ninclude/\n# note\n");
    g_assert_cmpuint(gate_n_entries(g), ==, 2);
    VIS(g, "/work/proj/src/a.c", false);
    HID(g, "/work/proj/src/b.c", false);
    VIS(g, "/work/proj/src", true);        /* leads to src/a.c */
    HID(g, "/work/proj/src", false);       /* ... only as a directory */
    VIS(g, "/work/proj/include/x/y.h", false); /* under DIR/ */
    VIS(g, "/work/proj/include", true);
    HID(g, "/work/proj/includes", true);
    VIS(g, "/work/proj", true);            /* the start directory */
    VIS(g, "/work", true);                 /* a tree's root */
    HID(g, "/work/other", true);
    HID(g, "/work/proj/Makefile", false);
    HID(g, "/home/u/.gitconfig", false);   /* a traced tree, not declared */
    VIS(g, "/usr/include/zlib.h", false);  /* a system tree no entry names */
    VIS(g, "/proc/1/status", false);       /* outside every tree */
    g_assert_true(gate_restricts(g, "/home/u"));
    g_assert_false(gate_restricts(g, "/usr/lib"));
    gate_free(g);
}

static void test_globs(void)
{
    struct gate *g = made("src/*/x.h\n*.mk\n");
    VIS(g, "/work/proj/src/a/x.h", false);
    HID(g, "/work/proj/src/a/y.h", false);
    VIS(g, "/work/proj/src/a", true);      /* src/ * leads to src/ * /x.h */
    HID(g, "/work/proj/src/a/b", true);    /* deeper than the glob reaches */
    VIS(g, "/work/proj/rules.mk", false);
    HID(g, "/work/proj/sub/rules.mk", false); /* '*' stays within one component */
    gate_free(g);
}

/* A file named like a glob, in a directory named like one: reachable by its literal name. */
static void test_literal_glob_name(void)
{
    struct gate *g = made("gen[1]/t[1].c\n");
    VIS(g, "/work/proj/gen[1]", true);
    VIS(g, "/work/proj/gen[1]/t[1].c", false);
    HID(g, "/work/proj/gen[1]/t2.c", false);
    gate_free(g);
}

/* A path declared under another name (where a symlink leads); the entries as paths. */
static void test_added_path(void)
{
    struct gate *g = gate_new();
    g_autofree char *err = NULL;
    const char *m = "inc/v.h\nsrc/*.c\nlib/\n";
    g_assert_cmpint(gate_add_manifest(g, m, strlen(m), "/work/proj", &err), ==, 0);
    bool sub = true;
    g_assert_cmpstr(gate_entry_path(g, 0, &sub), ==, "/work/proj/inc/v.h");
    g_assert_false(sub);
    g_assert_null(gate_entry_path(g, 1, &sub));
    g_assert_cmpstr(gate_entry_path(g, 2, &sub), ==, "/work/proj/lib");
    g_assert_true(sub);
    gate_add_path(g, "/work/vendor/include/v.h", false);
    gate_add_path(g, "/work/vendor/lib", true);
    gate_add_tree(g, "/work", false);
    gate_seal(g);
    VIS(g, "/work/vendor/include/v.h", false);
    VIS(g, "/work/vendor/include", true);
    HID(g, "/work/vendor/include/w.h", false);
    VIS(g, "/work/vendor/lib/x/y.so", false);
    g_assert_cmpuint(gate_n_entries(g), ==, 3); /* the manifests' entries only */
    gate_free(g);
}

static void test_system_named(void)
{
    struct gate *g = made("/usr/include/zlib.h\n");
    VIS(g, "/usr/include/zlib.h", false);
    VIS(g, "/usr/include", true);
    HID(g, "/usr/include/stdio.h", false); /* /usr is restricted once named */
    g_assert_true(gate_restricts(g, "/usr/lib"));
    g_assert_true(gate_names_under(g, "/usr"));
    g_assert_false(gate_names_under(g, "/etc"));
    gate_free(g);
    g = made("/usr/*/zlib.h\n");
    g_assert_true(gate_names_under(g, "/usr/include"));
    HID(g, "/usr/lib/x", false);
    VIS(g, "/usr/include/zlib.h", false);
    gate_free(g);
}

static void test_empty_and_bad(void)
{
    struct gate *g = made("");
    g_assert_cmpuint(gate_n_entries(g), ==, 0);
    HID(g, "/work/proj/Makefile", false);
    VIS(g, "/work/proj", true);
    gate_free(g);
    g = gate_new();
    g_autofree char *err = NULL;
    const char *bad = "a.c\nbad\0line\n";
    g_assert_cmpint(gate_add_manifest(g, bad, 13, "/w", &err), ==, -EINVAL);
    g_assert_nonnull(strstr(err, "line 2"));
    gate_free(g);
}

static void test_nested_trees(void)
{
    struct gate *g = gate_new();
    gate_add_tree(g, "/mnt", false);
    gate_add_tree(g, "/mnt/a/b", false);
    gate_add_visible_dir(g, "/mnt/a/b");
    gate_add_visible_dir(g, "/w");
    gate_seal(g);
    VIS(g, "/mnt/a", true);   /* on the way to the inner tree */
    HID(g, "/mnt/a", false);
    HID(g, "/mnt/c", true);
    HID(g, "/mnt/a/b/f", false);
    gate_free(g);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/gate/paths", test_paths);
    g_test_add_func("/gate/globs", test_globs);
    g_test_add_func("/gate/literal-glob-name", test_literal_glob_name);
    g_test_add_func("/gate/added-path", test_added_path);
    g_test_add_func("/gate/system-named", test_system_named);
    g_test_add_func("/gate/empty-and-bad", test_empty_and_bad);
    g_test_add_func("/gate/nested-trees", test_nested_trees);
    return g_test_run();
}
