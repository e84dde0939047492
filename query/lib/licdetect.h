/* licdetect — which license a source file's text declares.
 *
 * Contract
 *   - lic_detect() looks first for REUSE-style tags ("SPDX-License-Identifier: EXPR", anywhere
 *     in the text; several tags are joined with AND), then for the notices of common licenses
 *     in the file's first 16 KiB: GPL-2.0/3.0 and LGPL-2.0/2.1/3.0 (-only or -or-later), MIT,
 *     BSD-2-Clause, BSD-3-Clause, Apache-2.0, Zlib, ISC, MPL-2.0.  It returns a newly
 *     allocated SPDX expression (g_free it), or NULL when it finds none.
 *   - lic_reference() finds a pointer to another file's notice ("see copyright notice in
 *     zlib.h", "see LICENSE"): the referenced file name, newly allocated, or NULL.
 *   - Both take any bytes (not necessarily text or NUL-terminated), never fail, do no I/O and
 *     do not log.  Fuzzed (tests/fuzz/fuzz-licdetect.c).
 */
#pragma once

#include <glib.h>
#include <stddef.h>

char *lic_detect(const char *text, size_t len);
char *lic_reference(const char *text, size_t len);
