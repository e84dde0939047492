/* manifest — the declared inputs of a build, for `buildtrail verify` and `run --only-inputs`.
 *
 * Format (one entry per line; blank lines and lines starting with '#' are ignored, and so is
 * a UTF-8 byte order mark before the first):
 *   PATTERN            a path, a glob (fnmatch: '*' and '?' stay within one path component,
 *                      [..] classes), or DIR/ for everything under DIR (a trailing two-star
 *                      component after the slash means the same; two stars alone: all)
 *   SHA256  PATH       a path with the SHA-256 its content must have — the output of
 *   SHA256 *PATH       `sha256sum`, so `sha256sum $(git ls-files) > MANIFEST` is a manifest
 *                      (a line sha256sum escaped, '\' first, has its path unescaped)
 *   "PATH"             a path as git quotes it (C escapes, octal bytes): a literal name
 * A glob also matches the literal path it spells (a file named "t[1].c" in `git ls-files`).
 * A relative pattern is taken relative to `root` (verify uses the build's working directory).
 *
 * Contract: manifest_parse() never fails on content it can represent; a line it cannot use
 * (a NUL byte, a hash-like first word that is not 64 hex digits followed by a path) is an
 * error: it returns -EINVAL with "line N: why" in *err (g_free it).  No I/O, no logging.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

struct manifest_entry {
    char *pattern;      /* absolute */
    bool glob;          /* has glob characters */
    bool subtree;       /* "DIR/" or "DIR/" + two stars: everything under `pattern` (the directory) */
    char sha256[65];    /* lowercase hex, or "" */
    int line;
    unsigned matched;   /* filled by the caller */
};

/* Parse `len` bytes of `text`; appends struct manifest_entry* to `entries` (free each with
 * manifest_entry_free). */
int manifest_parse(const char *text, size_t len, const char *root, GPtrArray *entries,
                   char **err);
void manifest_entry_free(gpointer e);

/* Does absolute `path` match `e`? */
bool manifest_match(const struct manifest_entry *e, const char *path);
