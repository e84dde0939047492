/* pkggate — which files of the system trees belong only to Debian packages a build may not
 * use (`run --only-packages`): pure, no I/O, no logging (tests/unit/test-pkggate.c).
 *
 * The caller (launcher/onlypkg.c) adds every path each installed package lists: with its
 * package when the package is outside the allowed set (pkggate_add_denied), as allowed
 * otherwise (pkggate_add_allowed).  A path is hidden when at least one package outside the set
 * lists it and none inside does (a directory every package shares stays); a path no package
 * lists is never hidden (local configuration, /etc/alternatives, /usr/local).  Merged /usr:
 * /bin, /sbin and /lib* are links into /usr on Debian 12 and dpkg lists either form, so both
 * are judged as the /usr form.
 * After pkggate_seal() a pkggate is read-only and may be judged from many threads at once.
 */
#pragma once

#include <stddef.h>

struct pkggate;

struct pkggate *pkggate_new(void);
void pkggate_free(struct pkggate *g);

void pkggate_add_denied(struct pkggate *g, const char *path, const char *package);
void pkggate_add_allowed(struct pkggate *g, const char *path);

/* Never hide directory `dir` (absolute: the build's workspace), what lies under it, nor the
 * directories on the way to it, whatever package lists them: a project built in
 * /usr/src/foo, foo's own files. */
void pkggate_spare(struct pkggate *g, const char *dir);

/* Done adding: drops what an allowed package lists too; from now on read-only. */
void pkggate_seal(struct pkggate *g);

/* How many paths it hides. */
size_t pkggate_n_hidden(const struct pkggate *g);

/* How many paths of packages outside the set lie under the spared directory (sealed): they
 * stay visible all the same (the build's workspace is /usr/include). */
size_t pkggate_n_spared(const struct pkggate *g);

/* The package whose file absolute `path` is, when it is hidden; NULL when it is not. */
const char *pkggate_judge(const struct pkggate *g, const char *path);
