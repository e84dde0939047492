/* Unit tests: license detection from tags and notices, and references to another notice. */
#include "licdetect.h"

#include <glib.h>
#include <string.h>

static void check(const char *text, const char *want)
{
    g_autofree char *got = lic_detect(text, strlen(text));
    g_assert_cmpstr(got, ==, want);
}

static void test_tags(void)
{
    check("/* SPDX-License-Identifier: GPL-2.0-or-later */\nint x;\n", "GPL-2.0-or-later");
    check("# SPDX-License-Identifier: MIT OR Apache-2.0\n", "MIT OR Apache-2.0");
    check("// SPDX-License-Identifier: MIT\n// SPDX-License-Identifier: BSD-2-Clause\n"
          "// SPDX-License-Identifier: MIT\n", "BSD-2-Clause AND MIT");
    check("<!-- SPDX-License-Identifier: ISC -->", "ISC");
    /* a tag governs the licenses it names: a notice of one of them adds nothing */
    check("SPDX-License-Identifier: MIT\nPermission is hereby granted, free of charge, to any "
          "person obtaining a copy", "MIT");
    check("SPDX-License-Identifier: GPL-2.0-only\n This program is free software; you can "
          "redistribute it and/or modify it under the terms of the GNU General Public License as "
          "published by the Free Software Foundation; either version 2 of the License, or (at "
          "your option) any later version.", "GPL-2.0-only");
    check("SPDX-License-Identifier: MIT OR Apache-2.0\nPermission is hereby granted, free of "
          "charge, to any person obtaining a copy", "MIT OR Apache-2.0");
    check("SPDX-License-Identifier: GPL-2.0-or-later WITH Linux-syscall-note\n under the terms "
          "of the GNU General Public License version 2", "GPL-2.0-or-later WITH Linux-syscall-note");
    /* ...and a notice of a license the tags do not name is one more the file carries */
    check("SPDX-License-Identifier: Zlib\nPermission is hereby granted, free of charge, to any "
          "person obtaining a copy", "MIT AND Zlib");
    check("// SPDX-License-Identifier: MIT\n * This program is free software; you can "
          "redistribute it and/or modify\n * it under the terms of the GNU General Public "
          "License as published by\n * the Free Software Foundation; either version 2 of the "
          "License, or\n * (at your option) any later version.\n",
          "GPL-2.0-or-later AND MIT");
    check("SPDX-License-Identifier: MIT OR Apache-2.0\nLicensed under the Apache License, "
          "Version 2.0 (the \"License\")", "MIT OR Apache-2.0");
}

static void test_notices(void)
{
    check(" * This program is free software; you can redistribute it and/or modify\n"
          " * it under the terms of the GNU General Public License as published by\n"
          " * the Free Software Foundation; either version 2 of the License, or\n"
          " * (at your option) any later version.\n", "GPL-2.0-or-later");
    check("under the terms of the GNU General Public License version 3 as published",
          "GPL-3.0-only");
    check("GNU Lesser General Public License as published by the Free Software Foundation; "
          "either version 2.1 of the License, or (at your option) any later version.",
          "LGPL-2.1-or-later");
    check("Permission is hereby granted, free of charge, to any person obtaining a copy\n"
          "of this software", "MIT");
    check("Redistribution and use in source and binary forms, with or without\n modification, "
          "are permitted provided that the following conditions are met:\n", "BSD-2-Clause");
    check("Redistribution and use in source and binary forms, with or without modification, are "
          "permitted provided that the following conditions are met: ... Neither the name of",
          "BSD-3-Clause");
    check("Licensed under the Apache License, Version 2.0 (the \"License\");", "Apache-2.0");
    check("  This software is provided 'as-is', without any express or implied\n  warranty. ...\n"
          "  2. Altered source versions must be plainly marked as such", "Zlib");
    check("Permission to use, copy, modify, and/or distribute this software for any\npurpose "
          "with or without fee is hereby granted", "ISC");
    check("This Source Code Form is subject to the terms of the Mozilla Public License, v. 2.0.",
          "MPL-2.0");
    check("int main(void) { return 0; }\n", NULL);
}


/* Real notice texts (short excerpts, as they stand in source files). */
static const char isc_openbsd[] =
    " * Copyright (c) 2002 Todd C. Miller <Todd.Miller@example.com>\n"
    " *\n"
    " * Permission to use, copy, modify, and distribute this software for any\n"
    " * purpose with or without fee is hereby granted, provided that the above\n"
    " * copyright notice and this permission notice appear in all copies.\n"
    " *\n"
    " * THE SOFTWARE IS PROVIDED \"AS IS\" AND THE AUTHOR DISCLAIMS ALL WARRANTIES\n"
    " * WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF\n"
    " * MERCHANTABILITY AND FITNESS.\n";

/* The BSD licenses' lead and first two conditions, as the 3- and 4-clause texts word them. */
#define BSD_CONDITIONS_1_2                                                                   \
    " * Redistribution and use in source and binary forms, with or without\n" \
    " * modification, are permitted provided that the following conditions\n" \
    " * are met:\n" \
    " * 1. Redistributions of source code must retain the above copyright\n" \
    " *    notice, this list of conditions and the following disclaimer.\n" \
    " * 2. Redistributions in binary form must reproduce the above copyright\n" \
    " *    notice, this list of conditions and the following disclaimer in the\n" \
    " *    documentation and/or other materials provided with the distribution.\n"

static const char netbsd_4clause[] =
    "/*-\n"
    " * Copyright (c) 2000 The NetBSD Foundation, Inc.\n"
    " * All rights reserved.\n"
    " *\n"
    BSD_CONDITIONS_1_2
    " * 3. All advertising materials mentioning features or use of this software\n"
    " *    must display the following acknowledgement:\n"
    " *        This product includes software developed by the NetBSD\n"
    " *        Foundation, Inc. and its contributors.\n"
    " * 4. Neither the name of The NetBSD Foundation nor the names of its\n"
    " *    contributors may be used to endorse or promote products derived\n"
    " *    from this software without specific prior written permission.\n"
    " *\n"
    " * THIS SOFTWARE IS PROVIDED BY THE NETBSD FOUNDATION, INC. AND CONTRIBUTORS\n"
    " * ``AS IS'' AND ANY EXPRESS OR IMPLIED WARRANTIES ... EVEN IF ADVISED OF THE\n"
    " * POSSIBILITY OF SUCH DAMAGE.\n"
    " */\n";

static const char bsd3[] =
    BSD_CONDITIONS_1_2
    " * 3. Neither the name of the University nor the names of its contributors\n"
    " *    may be used to endorse or promote products derived from this software\n"
    " *    without specific prior written permission.\n"
    " *\n"
    " * THIS SOFTWARE IS PROVIDED BY THE REGENTS AND CONTRIBUTORS ``AS IS'' AND\n"
    " * ... POSSIBILITY OF SUCH DAMAGE.\n";

static const char bsd2[] =
    " * Redistribution and use in source and binary forms, with or without\n"
    " * modification, are permitted provided that the following conditions are\n"
    " * met:\n"
    " *\n"
    " *    * Redistributions of source code must retain the above copyright\n"
    " *      notice, this list of conditions and the following disclaimer.\n"
    " *    * Redistributions in binary form must reproduce the above\n"
    " *      copyright notice, this list of conditions and the following disclaimer\n"
    " *      in the documentation and/or other materials provided with the\n"
    " *      distribution.\n"
    " *\n"
    " * THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS\n"
    " * \"AS IS\" AND ANY EXPRESS OR IMPLIED WARRANTIES ... EVEN IF ADVISED OF THE\n"
    " * POSSIBILITY OF SUCH DAMAGE.\n";

static const char openldap_notice[] =
    "/* This work is part of OpenLDAP Software <http://www.openldap.org/>.\n"
    " *\n"
    " * Copyright 2000-2019 The OpenLDAP Foundation.\n"
    " * All rights reserved.\n"
    " *\n"
    " * Redistribution and use in source and binary forms, with or without\n"
    " * modification, are permitted only as authorized by the OpenLDAP\n"
    " * Public License.\n"
    " *\n"
    " * A copy of this license is available in the file LICENSE in the\n"
    " * top-level directory of the distribution or, alternatively, at\n"
    " * <http://www.OpenLDAP.org/license.html>.\n"
    " */\n";

static const char gpl2_later[] =
    " * This program is free software; you can redistribute it and/or modify\n"
    " * it under the terms of the GNU General Public License as published by\n"
    " * the Free Software Foundation; either version 2 of the License, or\n"
    " * (at your option) any later version.\n"
    " *\n"
    " * This program is distributed in the hope that it will be useful,\n"
    " * but WITHOUT ANY WARRANTY; without even the implied warranty of\n"
    " * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the\n"
    " * GNU General Public License for more details.\n"
    " *\n"
    " * You should have received a copy of the GNU General Public License along\n"
    " * with this program; if not, write to the Free Software Foundation, Inc.,\n"
    " * 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA.\n";

static void check_cat(const char *a, const char *b, const char *want)
{
    g_autofree char *t = g_strconcat(a, b, NULL);
    check(t, want);
}

/* A file carries several notices: each is reported (pkgconf's getopt_long.c: ISC and the
 * NetBSD 4-clause text; lmdb's mdb.c: OpenLDAP and the ISC notice of the btree.c it derives
 * from), and a --deny 'BSD-4-Clause' gate sees the advertising clause. */
static void test_several(void)
{
    check(netbsd_4clause, "BSD-4-Clause");
    check_cat(isc_openbsd, netbsd_4clause, "BSD-4-Clause AND ISC");
    check(openldap_notice, "OLDAP-2.8");
    check_cat(openldap_notice, isc_openbsd, "ISC AND OLDAP-2.8");
    /* each BSD notice by its own clauses, not the file's */
    check_cat(bsd2, bsd3, "BSD-2-Clause AND BSD-3-Clause");
    check_cat(bsd2, gpl2_later, "BSD-2-Clause AND GPL-2.0-or-later");
    check_cat(gpl2_later, gpl2_later, "GPL-2.0-or-later");
}

static void test_more_notices(void)
{
    check(bsd3, "BSD-3-Clause");
    check(bsd2, "BSD-2-Clause");
    check(gpl2_later, "GPL-2.0-or-later");
    check("The OpenLDAP Public License\n  Version 2.7, 7 September 2001\n\nRedistribution and use "
          "of this software and associated documentation", "OLDAP-2.7");
    check(" * This program is free software: you can redistribute it and/or modify\n"
          " * it under the terms of the GNU General Public License as published by\n"
          " * the Free Software Foundation, version 3.\n", "GPL-3.0-only");
    check(" * This program is free software; you can redistribute it and/or modify\n"
          " * it under the terms of version 2 of the GNU General Public License as\n"
          " * published by the Free Software Foundation.\n", "GPL-2.0-only");
    check("   This library is free software; you can redistribute it and/or\n"
          "   modify it under the terms of the GNU Library General Public\n"
          "   License as published by the Free Software Foundation; either\n"
          "   version 2 of the License, or (at your option) any later version.\n",
          "LGPL-2.0-or-later");
    check(" * This program is free software: you can redistribute it and/or modify\n"
          " * it under the terms of the GNU Affero General Public License as published by\n"
          " * the Free Software Foundation, either version 3 of the License, or\n"
          " * (at your option) any later version.\n", "AGPL-3.0-or-later");
    /* a mention without a version is not a notice */
    check("/* The GNU General Public License does not permit this. */", NULL);
    check("# Distributed under the Boost Software License, Version 1.0.\n"
          "# (See accompanying file LICENSE_1_0.txt or copy at\n"
          "# http://www.boost.org/LICENSE_1_0.txt)\n", "BSL-1.0");
    check("PYTHON SOFTWARE FOUNDATION LICENSE VERSION 2\n"
          "--------------------------------------------\n\n"
          "1. This LICENSE AGREEMENT is between the Python Software Foundation\n"
          "(\"PSF\"), and the Individual or Organization (\"Licensee\")", "PSF-2.0");
    check("# This library is free software; you can redistribute it and/or modify\n"
          "# it under the same terms as Perl itself.\n", "Artistic-1.0-Perl OR GPL-1.0-or-later");
    check("/*\n** 2001 September 15\n**\n** The author disclaims copyright to this source code.  "
          "In place of\n** a legal notice, here is a blessing:\n", "LicenseRef-public-domain");
    check("/* This file is placed in the public domain. */", "LicenseRef-public-domain");
    check("This is free and unencumbered software released into the public domain.\n\n"
          "Anyone is free to copy, modify, publish, use, compile, sell, or\n", "Unlicense");
    /* a parser Bison wrote: its skeleton's GPL with Bison's exception */
    check("/* A Bison parser, made by GNU Bison 3.8.2.  */\n\n"
          "/* Bison implementation for Yacc-like parsers in C\n\n"
          "   Copyright (C) 1984, 1989-1990, 2000-2015, 2018-2021 Free Software Foundation,\n"
          "   Inc.\n\n"
          "   This program is free software: you can redistribute it and/or modify\n"
          "   it under the terms of the GNU General Public License as published by\n"
          "   the Free Software Foundation, either version 3 of the License, or\n"
          "   (at your option) any later version.\n\n"
          "   ...\n\n"
          "/* As a special exception, you may create a larger work that contains\n"
          "   part or all of the Bison parser skeleton and distribute that work\n"
          "   under terms of your choice, so long as that work isn't itself a\n"
          "   parser generator using the skeleton or a modified version thereof\n"
          "   as a parser skeleton.  Alternatively, if you modify or redistribute\n"
          "   the parser skeleton itself, you may (at your option) remove this\n"
          "   special exception, which will cause the skeleton and the resulting\n"
          "   Bison output files to be licensed under the GNU General Public\n"
          "   License without this special exception.\n\n"
          "   This special exception was added by the Free Software Foundation in\n"
          "   version 2.2 of Bison.  */\n", "GPL-3.0-or-later WITH Bison-exception-2.2");
    /* Expat and a public-domain part, sorted */
    check_cat("Permission is hereby granted, free of charge, to any person obtaining a copy\n"
              "of this software and associated documentation files (the \"Software\"), to deal\n",
              "/* sha1.c: placed in the public domain by Steve Reid */",
              "LicenseRef-public-domain AND MIT");
}

static void test_reference(void)
{
    const char *t = "/* adler32.c -- compute the Adler-32 checksum\n * Copyright (C) 1995 Mark "
                    "Adler\n * For conditions of distribution and use, see copyright notice in "
                    "zlib.h\n */";
    g_autofree char *r = lic_reference(t, strlen(t));
    g_assert_cmpstr(r, ==, "zlib.h");
    g_autofree char *none = lic_reference("int x;", 6);
    g_assert_null(none);
}

/* A crafted file of many distinct tags (150000: 3 MB): every one is in the answer, once, and
 * the roll-up of that expression keeps them all.  (Each member used to be compared with every
 * one before it: about 30 s here, hours for tens of MB.  How long it takes is for a benchmark,
 * not a test: timed, this test failed CI under ASan on a loaded machine.)  The members are
 * counted with memcmp, not strstr: ASan's strstr measures the whole haystack on every call,
 * which made the count itself take minutes. */
static guint count_and(const char *s)
{
    guint n = 1;
    for (size_t i = 0, len = strlen(s); i + 5 <= len; i++)
        if (!memcmp(s + i, " AND ", 5))
            n++;
    return n;
}

static void test_many_tags(void)
{
    enum { N = 150000 };
    GString *s = g_string_new(NULL);
    for (int i = 0; i < N; i++)
        g_string_append_printf(s, "SPDX-License-Identifier: LicenseRef-x%d\n", i);
    g_string_append(s, "SPDX-License-Identifier: LicenseRef-x7\n"); /* once in the answer */
    g_autofree char *r = lic_detect(s->str, s->len);
    g_assert_nonnull(r);
    g_assert_cmpuint(count_and(r), ==, N);
    const char *one[] = {r, "MIT"};
    g_autofree char *all = lic_and_all(one, 2);
    g_assert_cmpuint(count_and(all), ==, N + 1);
    g_assert_true(g_str_has_suffix(all, " AND MIT"));
    g_string_free(s, TRUE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/licdetect/tags", test_tags);
    g_test_add_func("/licdetect/notices", test_notices);
    g_test_add_func("/licdetect/several", test_several);
    g_test_add_func("/licdetect/more-notices", test_more_notices);
    g_test_add_func("/licdetect/reference", test_reference);
    g_test_add_func("/licdetect/many-tags", test_many_tags);
    return g_test_run();
}
