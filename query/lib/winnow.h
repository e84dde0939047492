/* winnow — content fingerprints for finding copies of code, exact or edited.
 *
 * Contract
 *   - winnow_fingerprints(): the text is split into tokens (identifiers and numbers, string and
 *     character literals, single punctuation characters; whitespace and C/C++ comments are
 *     dropped), every run of WINNOW_K tokens is hashed, and of every WINNOW_W consecutive
 *     hashes the smallest is kept (Schleimer, Wilkerson, Aiken: "Winnowing", SIGMOD 2003).  The
 *     result is a sorted array of distinct guint32.  Edits change only the fingerprints near
 *     them, so an older or patched copy still shares most of them.
 *   - winnow_containment(a, b): the share of a's fingerprints that b has (0..1).
 *   - Known-copies index (`buildtrail copies --index DIR` writes one): lines "SHA256  NAME" as
 *     sha256sum prints, each optionally followed by a line "~ NAME HEX,HEX,..." with the
 *     file's fingerprints.  copyindex_parse() appends struct copyindex_entry*; it takes any
 *     bytes, skips lines it does not understand, and never fails.
 *   - Pure functions: no I/O, no logging.  Fuzzed (tests/fuzz/fuzz-winnow.c).
 */
#pragma once

#include <glib.h>
#include <stddef.h>

#define WINNOW_K 5
#define WINNOW_W 4

GArray *winnow_fingerprints(const char *text, size_t len); /* guint32, sorted, distinct */
double winnow_containment(const GArray *a, const GArray *b);

struct copyindex_entry {
    char *name;
    char sha256[65];   /* lowercase hex, or "" */
    GArray *fp;        /* guint32 sorted, or NULL */
};

void copyindex_parse(const char *text, size_t len, GPtrArray *entries);
void copyindex_entry_free(gpointer e);
/* Append the index lines of one file to `out`. */
void copyindex_write(GString *out, const char *name, const char *sha256, const GArray *fp);
