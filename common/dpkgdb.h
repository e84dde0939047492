/* dpkgdb — which installed Debian package owns a file (dpkg's database, read-only).
 *
 * Contract
 *   - dpkg_parse_status() parses the text of /var/lib/dpkg/status (RFC 822-style stanzas) and
 *     appends a struct dpkg_pkg* for every installed package ("Status: install ok installed",
 *     "hold ok installed" — the state, not what is wanted; triggers-pending and -awaited count):
 *     name, architecture, version, source package and version (the Source field, "name" or
 *     "name (version)"; the package itself when absent), the virtual package names it
 *     Provides and the package names it Depends or Pre-Depends on (every alternative;
 *     continuation lines folded; and the two fields as written), whether it is Essential and
 *     whether its Priority is required.  It takes any bytes and never fails.
 *     Fuzzed (tests/fuzz/fuzz-dpkgstatus.c).
 *   - dpkgdb_load() reads ADMINDIR/status (and ADMINDIR/info/PKG[:ARCH].list when
 *     dpkgdb_owner() is first called); returns 0 or a
 *     negative errno (the status file is unreadable).  dpkgdb_owner() answers for a path,
 *     merged-/usr aware (/lib/x and /usr/lib/x are the same file on Debian 12); a path
 *     several packages list is the first's by list file name (strcmp: libc6:amd64 before
 *     libc6:i386), never in the directory's order.
 *     dpkgdb_each_listed() reads one package's list again (for `run --only-packages`, which
 *     needs every owner of a path, not the first).
 *   - dpkgdb_diverted() reads ADMINDIR/diversions (dpkg-divert's: FROM, TO, the diverting
 *     package or ":" for a local diversion, a line each): where the file package `package`
 *     lists as `path` really is — TO when `path` is diverted and `package` is not the one that
 *     diverted it, else NULL (the file is at `path`).
 *   - Single-threaded; no logging.  Free with dpkgdb_free().
 */
#pragma once

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

struct dpkg_pkg {
    char *name, *arch, *version, *source, *source_version;
    char **provides; /* NULL-terminated, never NULL */
    char **depends;  /* Depends and Pre-Depends: NULL-terminated, never NULL */
    char *depends_field; /* Depends and Pre-Depends as written, joined with ", " ("" none) */
    bool essential;      /* "Essential: yes" */
    bool required;       /* "Priority: required" */
};

struct dpkgdb;

void dpkg_parse_status(const char *text, size_t len, GPtrArray *pkgs);
void dpkg_pkg_free(gpointer p);

int dpkgdb_load(const char *admindir, struct dpkgdb **out);
/* A database of a status file's text alone: no file lists (no owners; dpkgdb_each_listed
 * names nothing).  For tests and fuzzing. */
struct dpkgdb *dpkgdb_from_status(const char *text, size_t len);
/* The package owning `path`, or NULL. */
const struct dpkg_pkg *dpkgdb_owner(struct dpkgdb *db, const char *path);
/* An installed package by name (any architecture), or NULL. */
const struct dpkg_pkg *dpkgdb_package(struct dpkgdb *db, const char *name);
/* Every installed package (struct dpkg_pkg*), in the status file's order. */
const GPtrArray *dpkgdb_packages(struct dpkgdb *db);
/* Each path that installed package `k`'s info/PKG.list names, read again from ADMINDIR;
 * `fn` is called with each.  0, or a negative errno (the list cannot be read; a package
 * with no list names nothing: 0). */
int dpkgdb_each_listed(struct dpkgdb *db, const struct dpkg_pkg *k,
                       void (*fn)(const char *path, void *data), void *data);
const char *dpkgdb_diverted(struct dpkgdb *db, const char *path, const char *package);
/* dpkg's own architecture (the installed dpkg package's), or NULL. */
const char *dpkgdb_native_arch(struct dpkgdb *db);
void dpkgdb_free(struct dpkgdb *db);
