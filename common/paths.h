/* paths — lexical path operations both sides share (no I/O, no logging).
 *
 * path_absolute_in(): `arg` made absolute relative to the absolute directory `base` and
 * normalised lexically: "." and empty components dropped, ".." pops the one before (never
 * above "/"); symlinks are not looked at.  Returns a new string (g_free), "/" at least.
 *
 * path_is_under(): `path` is `dir` or lies beneath it, by its components ("/a/bc" is not under
 * "/a/b"); every path is under "/".
 *
 * path_read_regular(): a regular file's bytes appended to `out`, at most `max` of them; opened
 * O_NONBLOCK and checked on the descriptor, so a FIFO or device put there is refused without
 * blocking.  0, or -errno; for a file of the wrong kind (-EINVAL) or too large (-EFBIG) *kind
 * says what it is ("a FIFO", "a directory", ...), else NULL.
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

char *path_absolute_in(const char *base, const char *arg);

bool path_is_under(const char *path, const char *dir);

int path_read_regular(const char *path, GString *out, size_t max, const char **kind);
