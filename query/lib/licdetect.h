/* licdetect — which license a source file's text declares.
 *
 * Contract
 *   - lic_detect() looks for REUSE-style tags ("SPDX-License-Identifier: EXPR", anywhere in
 *     the text) and for every notice of a license it knows in the file's first 16 KiB (a
 *     file can carry several: ISC and the NetBSD 4-clause text, OpenLDAP's and the ISC notice
 *     of the code it derives from): GPL-1.0/2.0/3.0, LGPL-2.0/2.1/3.0 and AGPL-3.0 (-only or
 *     -or-later, from the version and "or later" wording next to each mention; a mention with
 *     no version near it is not a notice, but the GNU Library GPL's), BSD-2/3/4-Clause (per
 *     notice: the advertising clause makes 4, an endorsement clause 3), MIT (Expat), ISC,
 *     Zlib, Apache-2.0, MPL-2.0, OLDAP-x (2.8 when the notice names no version: the license's
 *     last revision, which each revision lets the user choose), BSL-1.0, PSF-2.0, Perl's
 *     "same terms as Perl itself" (Artistic-1.0-Perl OR GPL-1.0-or-later), the Unlicense, and
 *     public-domain statements (LicenseRef-public-domain); a GPL id of a parser Bison wrote
 *     carries its skeleton's exception ("GPL-3.0-or-later WITH Bison-exception-2.2").  The
 *     tags govern the licenses they name: a notice whose license (its family: version kept,
 *     -only/-or-later/WITH dropped) any tag names adds nothing; a notice of a license no tag
 *     names is added.  What it finds is deduplicated, sorted and joined with AND, a compound
 *     member in parentheses.
 *     It returns that newly allocated SPDX expression (g_free it), or NULL when it finds none.
 *   - lic_reference() finds a pointer to another file's notice ("see copyright notice in
 *     zlib.h", "see LICENSE"): the referenced file name, newly allocated, or NULL.
 *   - lic_same() tells whether two SPDX expressions name the same licenses: equal ignoring
 *     case, spaces, the order of AND members and of OR alternatives at every level of nesting
 *     (past 32 levels compared as written), repeated members and redundant parentheses ("ISC
 *     AND MIT" is "(mit) AND isc"; "(A AND B) OR C" is not "A AND (B OR C)").  NUL-terminated.
 *   - lic_and_all() is the AND of n expressions (NULL ones skipped): their top-level AND
 *     members (outer parentheses dropped), deduplicated, sorted and joined as lic_detect's
 *     are ("ISC AND OLDAP-2.8" and "OLDAP-2.8" make "ISC AND OLDAP-2.8"), newly allocated, or
 *     NULL when there is none: a roll-up.  Members are compared as written (case included);
 *     an expression over 4 KiB is taken as written, by both (no parentheses dropped).
 *   - All take any bytes (not necessarily text or NUL-terminated), never fail, do no I/O and
 *     do not log; lic_detect and lic_and_all take time about linear in the text (a set of
 *     members is hashed: a crafted file of a million distinct tags is read in a second).
 *     Fuzzed (tests/fuzz/fuzz-licdetect.c).
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

char *lic_detect(const char *text, size_t len);
char *lic_reference(const char *text, size_t len);
bool lic_same(const char *a, const char *b);
char *lic_and_all(const char *const *exprs, size_t n);
