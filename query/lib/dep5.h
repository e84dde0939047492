/* dep5 — a machine-readable debian/copyright (copyright-format 1.0, "DEP-5"): which license it
 * declares for a file of the source tree.
 *
 * Contract
 *   - dep5_parse() reads the text as deb822 paragraphs (separated by blank lines; "Name: value"
 *     fields, names case-insensitive; continuation lines start with a space or a tab; lines
 *     starting with '#' are comments; CRLF and a leading UTF-8 BOM accepted).  The first
 *     paragraph must have a Format field; each paragraph with a Files field must have a
 *     License field with a short name on its first line; there must be at least one Files
 *     paragraph.  Stand-alone License paragraphs (the texts) and every other field are
 *     skipped.  It returns the parsed file
 *     (dep5_free it), or NULL and *error (newly allocated: "line N: what") when the text is not
 *     such a file.  Any bytes are accepted (NUL included); it never logs and does no I/O.
 *   - dep5_license() returns the License short-name expression (as written: "BSD-2-clause",
 *     "GPL-2+ or Artistic") of the LAST Files paragraph with a pattern matching `relpath`
 *     (relative to the source tree's root, no leading "./"), or NULL when none does; owned by
 *     the dep5.  Patterns are matched against the whole path: '*' any run of characters, '/'
 *     included; '?' one character; '\' quotes '*', '?' or '\'; a leading "./" is ignored;
 *     a pattern over 4 KiB matches nothing (no path is that long).
 *   - dep5_glob_match() is that pattern match, exposed for tests.
 *   - dep5_spdx() turns a short-name expression into an SPDX expression (newly allocated):
 *     Debian's names mapped (GPL-2 -> GPL-2.0-only, GPL-2+ -> GPL-2.0-or-later, likewise LGPL,
 *     AGPL, GFDL; BSD-N-clause and BSD-N -> BSD-N-Clause; Expat -> MIT; OpenLDAP-2.8 ->
 *     OLDAP-2.8; Artistic -> Artistic-1.0-Perl; public-domain -> LicenseRef-public-domain;
 *     "X with Y exception" -> "X WITH Y-exception"; other names kept as written), "and"/"or"
 *     -> AND/OR, and the comma, which binds loosest, -> AND of parenthesised groups.
 *     Returns NULL for an empty expression.  Pure; fuzzed (tests/fuzz/fuzz-dep5.c).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

struct dep5;

struct dep5 *dep5_parse(const char *text, size_t len, char **error);
void dep5_free(struct dep5 *d);
const char *dep5_license(const struct dep5 *d, const char *relpath);
bool dep5_glob_match(const char *pattern, const char *path);
char *dep5_spdx(const char *expr);
