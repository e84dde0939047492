/* Unit tests: machine-readable debian/copyright (DEP-5) parsing, its patterns (the last
 * matching Files paragraph wins), Debian's short names as SPDX, and comparing expressions. */
#include "dep5.h"
#include "licdetect.h"

#include <glib.h>
#include <string.h>

/* Shaped like xxhash 0.8.1-1's: a Files paragraph for a file that moved (xxhsum.c is now
 * cli/xxhsum.c), so the CLI falls under "Files: *". */
static const char copyright[] =
    "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\r\n"
    "Upstream-Name: example\n"
    "# a comment line\n"
    "\n"
    "Files: *\n"
    "Copyright: 2012-2014 Someone\n"
    "License: BSD-2-clause\n"
    "\n"
    "Files: xxhsum.c\n"
    "       doc/*.txt\n"
    "Copyright: 2012-2014 Someone\n"
    "License: GPL-2\n"
    "\n"
    "files: cli/getopt_long.c  lib/\\*weird?.c\n"
    "copyright: 2000 The NetBSD Foundation, Inc.\n"
    "license: BSD-4\n"
    " This code is derived from software contributed to The NetBSD Foundation\n"
    " .\n"
    " Redistribution and use in source and binary forms, with or without\n"
    "\n"
    "Files: debian/*\n"
    "Copyright: 2018 Someone Else\n"
    "License: GPL-2+ or Artistic, and Expat\n"
    "\n"
    "License: BSD-2-clause\n"
    " Redistribution and use in source and binary forms, with or without modification,\n";

static void test_parse(void)
{
    g_autofree char *err = NULL;
    struct dep5 *d = dep5_parse(copyright, strlen(copyright), &err);
    g_assert_null(err);
    g_assert_nonnull(d);
    g_assert_cmpstr(dep5_license(d, "xxhash.c"), ==, "BSD-2-clause");
    g_assert_cmpstr(dep5_license(d, "cli/xxhsum.c"), ==, "BSD-2-clause"); /* the stale one */
    g_assert_cmpstr(dep5_license(d, "xxhsum.c"), ==, "GPL-2");
    g_assert_cmpstr(dep5_license(d, "doc/a/b.txt"), ==, "GPL-2"); /* '*' crosses '/' */
    g_assert_cmpstr(dep5_license(d, "cli/getopt_long.c"), ==, "BSD-4");
    g_assert_cmpstr(dep5_license(d, "lib/*weirdX.c"), ==, "BSD-4");
    g_assert_cmpstr(dep5_license(d, "lib/aweirdX.c"), ==, "BSD-2-clause"); /* \* is literal */
    g_assert_cmpstr(dep5_license(d, "debian/rules"), ==, "GPL-2+ or Artistic, and Expat");
    dep5_free(d);
}

/* A file saved by an editor that writes a UTF-8 byte-order mark first is read all the same. */
static void test_bom(void)
{
    g_autofree char *err = NULL;
    g_autofree char *text = g_strconcat("\xef\xbb\xbf", copyright, NULL);
    struct dep5 *d = dep5_parse(text, strlen(text), &err);
    g_assert_null(err);
    g_assert_nonnull(d);
    g_assert_cmpstr(dep5_license(d, "xxhsum.c"), ==, "GPL-2");
    dep5_free(d);
}

static void bad(const char *text, const char *want)
{
    g_autofree char *err = NULL;
    struct dep5 *d = dep5_parse(text, strlen(text), &err);
    g_assert_null(d);
    g_assert_nonnull(err);
    if (!strstr(err, want))
        g_error("'%s' does not say '%s'", err, want);
}

static void test_errors(void)
{
    bad("", "empty");
    bad("This is the Debian prepackaged version of foo.\n", "line 1: neither a field");
    bad("Upstream-Name: x\n\nFiles: *\nLicense: MIT\n", "line 1: the first paragraph has no Format");
    bad("Format: x\n\nFiles: *\nCopyright: me\n", "line 3: a Files paragraph without a License");
    bad("Format: x\n\nFiles: *\nLicense:\n text only\n", "line 3: a Files paragraph whose License");
    bad("Format: x\n\nLicense: MIT\n text\n", "no Files paragraph");
    bad(" continued\n", "line 1: a continuation line outside a field");
    bad("Format: x\n\nFiles: a\nFiles: b\nLicense: MIT\n", "line 4: a second Files field");
    bad("Format: x\n\nFiles:\nLicense: MIT\n", "line 3: a Files field with no pattern");
    /* NUL bytes are text like any other, and a NUL-free error message comes back */
    static const char nul[] = "Format: x\n\nFiles: a\0b\nLicense: MIT\n";
    g_autofree char *err = NULL;
    struct dep5 *d = dep5_parse(nul, sizeof nul - 1, &err);
    g_assert_nonnull(d);
    g_assert_cmpstr(dep5_license(d, "a"), ==, "MIT");
    dep5_free(d);
}

static void test_glob(void)
{
    g_assert_true(dep5_glob_match("*", "a/b/c"));
    g_assert_true(dep5_glob_match("./src/*.c", "src/x/y.c"));
    g_assert_true(dep5_glob_match("src/?.c", "src/x.c"));
    g_assert_false(dep5_glob_match("src/?.c", "src/xy.c"));
    g_assert_false(dep5_glob_match("Makefile.in", "sub/Makefile.in"));
    g_assert_true(dep5_glob_match("*/Makefile.in", "sub/Makefile.in"));
    g_assert_true(dep5_glob_match("a\\\\b", "a\\b"));
    g_assert_true(dep5_glob_match("*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaab"));
    g_assert_false(dep5_glob_match("*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaa"));
    g_assert_false(dep5_glob_match("src", "src/x.c"));
}

static void spdx(const char *debian, const char *want)
{
    g_autofree char *got = dep5_spdx(debian);
    g_assert_cmpstr(got, ==, want);
}

static void test_spdx(void)
{
    spdx("BSD-2-clause", "BSD-2-Clause");
    spdx("BSD-4", "BSD-4-Clause");
    spdx("GPL-2", "GPL-2.0-only");
    spdx("GPL-2+", "GPL-2.0-or-later");
    spdx("LGPL-2.1+", "LGPL-2.1-or-later");
    spdx("GPL-3.0-or-later", "GPL-3.0-or-later");
    spdx("Expat", "MIT");
    spdx("OpenLDAP-2.8", "OLDAP-2.8");
    spdx("public-domain", "LicenseRef-public-domain");
    spdx("GPL-2+ or Artistic", "GPL-2.0-or-later OR Artistic-1.0-Perl");
    spdx("GPL-2+ or Artistic, and Expat", "(GPL-2.0-or-later OR Artistic-1.0-Perl) AND MIT");
    spdx("GPL-2+ with OpenSSL exception", "GPL-2.0-or-later WITH OpenSSL-exception");
    spdx("ISC and BSD-4-clause", "ISC AND BSD-4-Clause");
    spdx("Perl", "(Artistic-1.0-Perl OR GPL-1.0-or-later)");
    spdx("  ,  ", NULL);
    spdx("GPL-2+ or", "GPL-2.0-or-later");
}

static void test_same(void)
{
    g_assert_true(lic_same("BSD-4-Clause AND ISC", "ISC and bsd-4-clause"));
    g_assert_true(lic_same("(GPL-2.0-or-later OR Artistic-1.0-Perl) AND MIT",
                           "MIT AND (Artistic-1.0-Perl OR GPL-2.0-or-later)"));
    g_assert_true(lic_same("ISC AND ISC", "(ISC)"));
    g_assert_false(lic_same("ISC AND OLDAP-2.8", "OLDAP-2.8"));
    g_assert_false(lic_same("GPL-2.0-or-later", "GPL-2.0-only"));
    g_assert_false(lic_same("MIT OR ISC", "MIT AND ISC"));
    g_assert_false(lic_same("(MIT) OR (ISC)", "MIT AND ISC"));
    /* nesting past two levels is compared member by member too, and grouping counts */
    g_assert_true(lic_same("((Zlib AND ISC) OR MIT) AND BSD-3-Clause",
                           "BSD-3-Clause AND (MIT OR (ISC AND Zlib))"));
    g_assert_false(lic_same("(MIT AND ISC) OR Zlib", "MIT AND (ISC OR Zlib)"));
    g_assert_true(lic_same("MIT  AND\tISC", "( ISC ) AND MIT"));
    g_assert_true(lic_same("GPL-2.0-or-later WITH Bison-exception-2.2 OR MIT",
                           "mit or gpl-2.0-or-later with bison-exception-2.2"));
}

static void and_all(const char *const *e, size_t n, const char *want)
{
    g_autofree char *got = lic_and_all(e, n);
    g_assert_cmpstr(got, ==, want);
}

/* A roll-up counts each file's AND members once (lmdb's mdb_stat: mdb.c is "ISC AND
 * OLDAP-2.8", midl.c "OLDAP-2.8"; the roll-up was "(ISC AND OLDAP-2.8) AND OLDAP-2.8"). */
static void test_and_all(void)
{
    const char *lmdb[] = {"ISC AND OLDAP-2.8", "OLDAP-2.8", NULL, "OLDAP-2.8"};
    and_all(lmdb, 4, "ISC AND OLDAP-2.8");
    const char *pkgconf[] = {"ISC", "BSD-4-Clause AND ISC", "BSD-2-Clause"};
    and_all(pkgconf, 3, "BSD-2-Clause AND BSD-4-Clause AND ISC");
    const char *mixed[] = {"(MIT OR Apache-2.0) AND Zlib", "MIT OR Apache-2.0", "((Zlib))"};
    and_all(mixed, 3, "(MIT OR Apache-2.0) AND Zlib");
    const char *one[] = {"MIT OR Apache-2.0"};
    and_all(one, 1, "MIT OR Apache-2.0");
    const char *none[] = {NULL};
    and_all(none, 1, NULL);
    and_all(none, 0, NULL);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/dep5/parse", test_parse);
    g_test_add_func("/dep5/bom", test_bom);
    g_test_add_func("/dep5/errors", test_errors);
    g_test_add_func("/dep5/glob", test_glob);
    g_test_add_func("/dep5/spdx", test_spdx);
    g_test_add_func("/dep5/same", test_same);
    g_test_add_func("/licdetect/and-all", test_and_all);
    return g_test_run();
}
