/* linkres — where a manifest's path leads through its symlinks, as the kernel follows them,
 * looked at now on this filesystem: `run --only-inputs` (launcher/onlyin.c) and `verify`
 * read a declared path so, the same way.
 *
 * Contract
 *   - linkres_resolve(): absolute, normalised `path` with every symlink on the way followed
 *     (at most 40 for one path, the kernel's limit; a part that cannot be looked at is taken
 *     as it is, so a loop or a dangling link ends there), each link crossed given to
 *     `crossed` (NULL: not wanted); directories' answers are kept for later calls.  A new
 *     string; *is_dir (if given): `path` itself is a directory, not a symlink.
 *   - linkres_target(): where `path` leads when that is elsewhere and inside `root` (the
 *     project: a link the project ships to ~/.ssh/id_rsa leads nowhere declared), else NULL.
 *   - Reads the filesystem (lstat, readlink); no logging.
 */
#pragma once

#include <stdbool.h>

struct linkres;

typedef void (*linkres_crossed_fn)(const char *link, void *data);

struct linkres *linkres_new(linkres_crossed_fn crossed, void *data);
void linkres_free(struct linkres *r);

char *linkres_resolve(struct linkres *r, const char *path, bool *is_dir);
char *linkres_target(struct linkres *r, const char *path, const char *root, bool *is_dir);
