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
          "// SPDX-License-Identifier: MIT\n", "MIT AND BSD-2-Clause");
    check("<!-- SPDX-License-Identifier: ISC -->", "ISC");
    /* a tag wins over a notice */
    check("SPDX-License-Identifier: Zlib\nPermission is hereby granted, free of charge, to any "
          "person obtaining a copy", "Zlib");
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

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/licdetect/tags", test_tags);
    g_test_add_func("/licdetect/notices", test_notices);
    g_test_add_func("/licdetect/reference", test_reference);
    return g_test_run();
}
