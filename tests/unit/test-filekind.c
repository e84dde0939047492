/* Unit tests: filekind — one classification of file names for prov, export and copies. */
#include "filekind.h"
#include "progkind.h"

#include <glib.h>

static void test_kinds(void)
{
    static const struct {
        const char *path;
        enum filekind kind;
    } cases[] = {
        {"/src/zlib/deflate.c", FILEKIND_SOURCE}, {"a.cc", FILEKIND_SOURCE},
        {"x/b.C", FILEKIND_SOURCE},               {"k.c++", FILEKIND_SOURCE},
        {"start.S", FILEKIND_SOURCE},             {"m.f90", FILEKIND_SOURCE},
        {"main.go", FILEKIND_SOURCE},             {"lib.rs", FILEKIND_SOURCE},
        {"zlib.h", FILEKIND_HEADER},              {"v.H", FILEKIND_HEADER},
        {"t.tcc", FILEKIND_HEADER},               {"opcodes.def", FILEKIND_HEADER},
        {"deflate.o", FILEKIND_OBJECT},           {"libz.a", FILEKIND_OBJECT},
        {"libz.so", FILEKIND_SHLIB},              {"libz.so.1.3", FILEKIND_SHLIB},
        {"/src/Makefile", FILEKIND_SCRIPT},       {"config.mk", FILEKIND_SCRIPT},
        {"zlib.pc.in", FILEKIND_SCRIPT},          {"configure", FILEKIND_SCRIPT},
        {"deflate.d", FILEKIND_OTHER}, /* a dependency file, not D code */
        {"README.txt", FILEKIND_OTHER},           {"/usr/include/c++/12/vector", FILEKIND_NO_EXT},
        {"/home/u/.profile", FILEKIND_NO_EXT},    {"dir.c/file", FILEKIND_NO_EXT},
    };
    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_test_message("%s", cases[i].path);
        g_assert_cmpint(filekind_of(cases[i].path), ==, cases[i].kind);
    }
}

static void test_cc_and_code(void)
{
    g_assert_true(filekind_cc_source("deflate.c"));
    g_assert_true(filekind_cc_source("../src/x.cpp"));
    g_assert_true(filekind_cc_source("boot.sx"));
    g_assert_false(filekind_cc_source("main.go"));  /* a source, not the C driver's */
    g_assert_false(filekind_cc_source("zlib.h"));
    g_assert_false(filekind_cc_source("deflate.o"));
    g_assert_true(filekind_is_code("zlib.h"));
    g_assert_true(filekind_is_code("x.c++"));
    g_assert_false(filekind_is_code("Makefile"));
    g_assert_false(filekind_is_code("deflate.d"));
}

/* Program kinds: compiler drivers as builds name them, compilers proper, build drivers. */
static void test_programs(void)
{
    static const char *const drivers[] = {"cc", "c++", "gcc", "g++", "clang", "clang++", "c99",
                                          "gcc-12", "x86_64-linux-gnu-gcc-12", "clang-14",
                                          "arm-none-eabi-g++", NULL};
    for (const char *const *d = drivers; *d; d++)
        g_assert_true(progkind_is_compiler_driver(*d));
    static const char *const not_drivers[] = {"cpp", "cc1", "ld", "gccgo-x", "ccache", "make",
                                              "gcc-ar-", "mycc", NULL};
    for (const char *const *d = not_drivers; *d; d++)
        g_assert_false(progkind_is_compiler_driver(*d));
    g_assert_true(progkind_is_compiler_proper("cc1"));
    g_assert_true(progkind_is_compiler_proper("cc1plus"));
    g_assert_false(progkind_is_compiler_proper("gcc"));
    g_assert_true(progkind_is_build_driver("make"));
    g_assert_true(progkind_is_build_driver("samu"));
    g_assert_false(progkind_is_build_driver("makeinfo"));
}

/* Runtime data and toolchain runtime, by path. */
static void test_runtime(void)
{
    g_assert_true(filekind_is_runtime_data("/usr/lib/locale/C.utf8/LC_CTYPE"));
    g_assert_true(filekind_is_runtime_data("/usr/lib/x86_64-linux-gnu/gconv/gconv-modules.cache"));
    g_assert_true(filekind_is_runtime_data("/etc/ld.so.cache"));
    g_assert_true(filekind_is_runtime_data("/usr/share/zoneinfo/UTC"));
    g_assert_false(filekind_is_runtime_data("/usr/include/locale.h"));
    g_assert_false(filekind_is_runtime_data("/usr/lib/x86_64-linux-gnu/libz.a"));
    g_assert_nonnull(filekind_toolchain_runtime("/usr/lib/x86_64-linux-gnu/Scrt1.o"));
    g_assert_nonnull(filekind_toolchain_runtime("/usr/lib/gcc/x86_64-linux-gnu/12/crtbeginS.o"));
    g_assert_nonnull(filekind_toolchain_runtime("/usr/lib/gcc/x86_64-linux-gnu/12/libgcc.a"));
    g_assert_nonnull(filekind_toolchain_runtime("/usr/lib/x86_64-linux-gnu/libc_nonshared.a"));
    g_assert_null(filekind_toolchain_runtime("/usr/lib/x86_64-linux-gnu/libz.a"));
    g_assert_null(filekind_toolchain_runtime("/w/src/crt.c"));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/filekind/kinds", test_kinds);
    g_test_add_func("/filekind/cc-and-code", test_cc_and_code);
    g_test_add_func("/progkind/programs", test_programs);
    g_test_add_func("/filekind/runtime", test_runtime);
    return g_test_run();
}
