/* Unit tests of steps (query/lib/steps) and of progkind's step kinds: what a command line and
 * a program's name say about a build step, on the names builds use and on odd ones (empty
 * words, no argv, names that only look like a tool's). */
#include "progkind.h"
#include "qdb.h"
#include "steps.h"

#include <glib.h>
#include <string.h>

/* A process row with `exe` and the command line `words` (NULL-terminated; NULL: no argv). */
static struct qdb_process *proc(const char *exe, const char *cwd, const char *const *words)
{
    struct qdb_process *pr = g_new0(struct qdb_process, 1);
    pr->exe = g_strdup(exe);
    pr->cwd = g_strdup(cwd);
    if (words) {
        GString *s = g_string_new(NULL);
        for (const char *const *w = words; *w; w++)
            g_string_append_len(s, *w, (gssize)strlen(*w) + 1);
        pr->argv_len = s->len;
        pr->argv = g_string_free(s, FALSE);
    }
    return pr;
}

static void proc_free(struct qdb_process *pr)
{
    g_free(pr->exe);
    g_free(pr->cwd);
    g_free(pr->argv);
    g_free(pr->comm);
    g_free(pr);
}

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})

static bool configure_image(const char *exe, const char *const *words)
{
    struct qdb_process *pr = proc(exe, "/w", words);
    bool r = steps_is_configure_image(pr);
    proc_free(pr);
    return r;
}

static void test_configure_images(void)
{
    g_assert_true(configure_image("/bin/dash", ARGV("/bin/sh", "./configure", "--prefix=/usr")));
    g_assert_true(configure_image("/bin/bash", ARGV("bash", "-e", "../src/configure")));
    g_assert_true(configure_image("/bin/sh", ARGV("sh", "./config.status", "--recheck")));
    g_assert_false(configure_image("/bin/sh", ARGV("sh", "-c", "./configure")));
    g_assert_false(configure_image("/bin/sh", ARGV("sh", "./configure.sh")));
    g_assert_false(configure_image("/bin/sh", ARGV("sh")));
    g_assert_true(configure_image("/usr/bin/cmake", ARGV("cmake", "-S", ".", "-B", "b")));
    g_assert_true(configure_image("/usr/bin/cmake", ARGV("cmake", "--regenerate-during-build")));
    g_assert_false(configure_image("/usr/bin/cmake", ARGV("cmake", "--build", "b")));
    g_assert_false(configure_image("/usr/bin/cmake", ARGV("cmake", "-E", "copy", "a", "b")));
    g_assert_false(configure_image("/usr/bin/cmake", ARGV("cmake", "-P", "cmake_install.cmake")));
    g_assert_true(configure_image("/usr/bin/python3.11",
                                  ARGV("/usr/bin/python3", "/usr/bin/meson", "setup", "b")));
    g_assert_true(configure_image("/usr/bin/python3", ARGV("python3", "/usr/bin/meson", "b")));
    g_assert_true(configure_image("/usr/bin/python3",
                                  ARGV("python3", "/usr/bin/meson", "--internal", "regenerate")));
    g_assert_false(configure_image("/usr/bin/python3",
                                   ARGV("python3", "/usr/bin/meson", "--internal", "exe")));
    g_assert_false(configure_image("/usr/bin/python3",
                                   ARGV("python3", "/usr/bin/meson", "compile", "-C", "b")));
    g_assert_false(configure_image("/usr/bin/python3", ARGV("python3", "gen.py")));
    g_assert_false(configure_image("/usr/bin/python3", ARGV("python3")));
    /* odd rows: no argv, an empty one, empty words */
    g_assert_false(configure_image("/bin/sh", NULL));
    g_assert_false(configure_image("/bin/sh", ARGV("")));
    g_assert_false(configure_image("/bin/sh", ARGV("sh", "", "")));
    g_assert_false(configure_image("/bin/sh", ARGV("sh", "-")));
    g_assert_false(configure_image(NULL, NULL));
    /* a script's comm is its name: with no exe nor argv recorded, still configure */
    struct qdb_process *pr = proc(NULL, "/w", NULL);
    pr->comm = g_strdup("configure");
    g_assert_true(steps_is_configure_image(pr));
    proc_free(pr);
    g_assert_false(configure_image("", ARGV("")));
}

static void test_templates(void)
{
    g_assert_true(steps_is_template("/b/config.h", "/s/config.h.in"));
    g_assert_true(steps_is_template("/b/config.h", "/s/config.h.cmake"));
    g_assert_true(steps_is_template("/b/config.h", "/s/config.hin"));
    g_assert_true(steps_is_template("/b/config.h", "/s/config.in.h"));
    g_assert_true(steps_is_template("/b/config.h.tmp", "/s/config.h.in"));
    g_assert_true(steps_is_template("/b/config.h~", "/s/config.h.in"));
    g_assert_true(steps_is_template("/b/foo.pc", "/s/foo.pc.in"));
    g_assert_true(steps_is_template("Makefile", "Makefile.in"));
    g_assert_false(steps_is_template("/b/config.h", "/s/config.h"));
    g_assert_false(steps_is_template("/b/config.h", "/s/config.h."));
    g_assert_false(steps_is_template("/b/config.h", "/s/config.c"));
    g_assert_false(steps_is_template("/b/config.h", "/s/xconfig.h.in"));
    g_assert_false(steps_is_template("/b/config.h", "/s/confi.h.in"));
    g_assert_false(steps_is_template("/b/config.h", "/s/config.inh"));
    g_assert_false(steps_is_template("/b/config.h", "/s/config.in.c"));
    /* odd names: empty, a bare suffix, a directory's */
    g_assert_false(steps_is_template("", ""));
    g_assert_false(steps_is_template("", "x.in"));
    g_assert_false(steps_is_template("/b/", "/s/.in"));
    g_assert_false(steps_is_template("x", ""));
    g_assert_false(steps_is_template(".tmp", ".in"));
    g_assert_false(steps_is_template(".h", ".in.h"));
}

static void test_common_dirs(void)
{
    g_assert_cmpint(steps_common_dirs("/b/sub/config.h", "/s/sub/config.h.in"), ==, 1);
    g_assert_cmpint(steps_common_dirs("/s/a/b/x", "/s/a/b/x.in"), ==, 3);
    g_assert_cmpint(steps_common_dirs("/b/a/x", "/s/b/x.in"), ==, 0);
    g_assert_cmpint(steps_common_dirs("/b/xa/x", "/s/a/x.in"), ==, 0);
    g_assert_cmpint(steps_common_dirs("/x", "/x.in"), ==, 0);
    g_assert_cmpint(steps_common_dirs("x", "x.in"), ==, 0);
    g_assert_cmpint(steps_common_dirs("a/x", "a/x.in"), ==, 1);
    g_assert_cmpint(steps_common_dirs("", ""), ==, 0);
    g_assert_cmpint(steps_common_dirs("//x", "//y"), ==, 0);
    g_assert_cmpint(steps_common_dirs("/a//x", "/a//y"), ==, 0);
}

static void test_compressed_pairs(void)
{
    g_assert_true(steps_compressed_pair("/d/changelog", "/d/changelog.gz"));
    g_assert_true(steps_compressed_pair("/d/changelog.gz", "/d/changelog"));
    g_assert_true(steps_compressed_pair("x.tar", "x.tar.xz"));
    g_assert_true(steps_compressed_pair("x", "x.Z"));
    g_assert_false(steps_compressed_pair("x", "x"));
    g_assert_false(steps_compressed_pair("x.gz", "x.gz"));
    g_assert_false(steps_compressed_pair("x", "x.gzip"));
    g_assert_false(steps_compressed_pair("x", "y.gz"));
    g_assert_false(steps_compressed_pair("x.gz", "x.xz"));
    g_assert_false(steps_compressed_pair("x", "x."));
    g_assert_false(steps_compressed_pair("", ""));
    g_assert_false(steps_compressed_pair("/d/a", "/d/ab.gz"));
}

static bool names(const char *const *words, const char *path)
{
    struct qdb_process *pr = proc("/usr/bin/strip", "/w", words);
    bool r = steps_argv_names(pr, path);
    proc_free(pr);
    return r;
}

static void test_argv_names(void)
{
    g_assert_true(names(ARGV("strip", "--strip-debug", "/w/a.o"), "/w/a.o"));
    g_assert_true(names(ARGV("strip", "a.o"), "/w/a.o"));
    g_assert_true(names(ARGV("strip", "sub/a.o"), "/w/sub/a.o"));
    g_assert_true(names(ARGV("objcopy", "--add-gnu-debuglink=/d/a.debug", "a"), "/d/a.debug"));
    g_assert_false(names(ARGV("strip", "a.o"), "/w/ba.o"));
    g_assert_false(names(ARGV("strip", "xa.o"), "/w/a.o"));
    g_assert_false(names(ARGV("a.o"), "/w/a.o")); /* the program is not an operand */
    g_assert_false(names(ARGV("strip"), "/w/a.o"));
    g_assert_false(names(NULL, "/w/a.o"));
    /* a name that is no file's: empty, a directory's, the root */
    g_assert_false(names(ARGV("strip", "", "dir/", "--x="), ""));
    g_assert_false(names(ARGV("strip", "", "dir/", "--x="), "/w/"));
    g_assert_false(names(ARGV("strip", "", "dir/", "--x="), "/"));
}

static bool script_of(const char *exe, const char *cwd, const char *const *words,
                      const char *path)
{
    struct qdb_process *pr = proc(exe, cwd, words);
    bool r = steps_is_script_of(pr, path);
    proc_free(pr);
    return r;
}

static void test_scripts(void)
{
    g_assert_true(script_of("/bin/sh", "/w", ARGV("sh", "gen.sh", "x"), "/w/gen.sh"));
    g_assert_true(script_of("/usr/bin/perl", "/w/sub", ARGV("perl", "-w", "../gen.pl"), "/w/gen.pl"));
    g_assert_true(script_of("/usr/bin/python3", "/", ARGV("python3", "/w/g.py"), "/w/g.py"));
    g_assert_true(script_of("/bin/sh", "/", ARGV("sh", "/w/./sub/../gen.sh"), "/w/gen.sh"));
    g_assert_false(script_of("/usr/bin/python3", "/w", ARGV("python3", "-m", "g"), "/w/g.py"));
    g_assert_false(script_of("/usr/bin/perl", "/w", ARGV("perl", "-e", "1", "g.pl"), "/w/g.pl"));
    g_assert_false(script_of("/usr/bin/sed", "/w", ARGV("sed", "g.sh"), "/w/g.sh"));
    g_assert_false(script_of("/bin/sh", NULL, ARGV("sh", "gen.sh"), "/w/gen.sh"));
    g_assert_false(script_of("/bin/sh", "/w", NULL, "/w/gen.sh"));
    g_assert_false(script_of("/bin/sh", "/w", ARGV("sh", ""), "/w"));
    g_assert_false(script_of("/bin/sh", "/w", ARGV("sh", "-", "gen.sh"), "/w/gen.sh"));
}

/* Step kinds by program name: a target prefix or a version suffix, and names that only end
 * like a tool's. */
static void test_step_kinds(void)
{
    g_assert_cmpint(progkind_step("strip"), ==, PROGKIND_POSTPROC);
    g_assert_cmpint(progkind_step("x86_64-linux-gnu-strip"), ==, PROGKIND_POSTPROC);
    g_assert_cmpint(progkind_step("llvm-objcopy-14"), ==, PROGKIND_POSTPROC);
    g_assert_cmpint(progkind_step("gcc-ar-12"), ==, PROGKIND_ARCHIVE);
    g_assert_cmpint(progkind_step("x86_64-linux-gnu-ld.bfd"), ==, PROGKIND_LINK);
    g_assert_cmpint(progkind_step("readelf"), ==, PROGKIND_INSPECT);
    g_assert_cmpint(progkind_step("gzip"), ==, PROGKIND_COMPRESS);
    g_assert_cmpint(progkind_step("cc1"), ==, PROGKIND_COMPILE);
    g_assert_cmpint(progkind_step("cp"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step(""), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("-"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("-12"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("12"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("stripper"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("gas"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("eu-strip"), ==, PROGKIND_POSTPROC);
    g_assert_cmpint(progkind_step("arm-none-eabi-objcopy"), ==, PROGKIND_POSTPROC);
    g_assert_cmpint(progkind_step("avr-strip"), ==, PROGKIND_POSTPROC);
    g_assert_cmpint(progkind_step("armv7l-unknown-linux-gnueabihf-ar"), ==, PROGKIND_ARCHIVE);
    g_assert_cmpint(progkind_step("x86_64-w64-mingw32-gcc-ar-12"), ==, PROGKIND_ARCHIVE);
    g_assert_cmpint(progkind_step("riscv64-unknown-elf-as"), ==, PROGKIND_COMPILE);
    g_assert_cmpint(progkind_step("llvm-nm"), ==, PROGKIND_INSPECT);
    /* a build's own tools whose names end like one: what they write carries what they read */
    g_assert_cmpint(progkind_step("embed-file"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("gen-size"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("make-ar"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("html-strip"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("my-gen-nm"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("shell-file"), ==, PROGKIND_GENERIC);
    g_assert_cmpint(progkind_step("-file"), ==, PROGKIND_GENERIC);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/steps/configure-images", test_configure_images);
    g_test_add_func("/steps/templates", test_templates);
    g_test_add_func("/steps/common-dirs", test_common_dirs);
    g_test_add_func("/steps/compressed-pairs", test_compressed_pairs);
    g_test_add_func("/steps/argv-names", test_argv_names);
    g_test_add_func("/steps/scripts", test_scripts);
    g_test_add_func("/steps/step-kinds", test_step_kinds);
    return g_test_run();
}
