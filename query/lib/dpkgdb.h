/* dpkgdb — which installed Debian package owns a file (dpkg's database, read-only).
 *
 * Contract
 *   - dpkg_parse_status() parses the text of /var/lib/dpkg/status (RFC 822-style stanzas) and
 *     appends a struct dpkg_pkg* for every installed package ("Status: install ok installed"):
 *     name, architecture, version, source package and version (the Source field, "name" or
 *     "name (version)"; the package itself when absent), the virtual package names it
 *     Provides and the package names it Depends or Pre-Depends on (every alternative;
 *     continuation lines folded).  It takes any bytes and never fails.
 *     Fuzzed (tests/fuzz/fuzz-dpkgstatus.c).
 *   - dpkgdb_load() reads ADMINDIR/status and ADMINDIR/info/PKG[:ARCH].list; returns 0 or a
 *     negative errno (the status file is unreadable).  dpkgdb_owner() answers for a path,
 *     merged-/usr aware (/lib/x and /usr/lib/x are the same file on Debian 12).
 *   - Single-threaded; no logging.  Free with dpkgdb_free().
 */
#pragma once

#include <glib.h>
#include <stddef.h>

struct dpkg_pkg {
    char *name, *arch, *version, *source, *source_version;
    char **provides; /* NULL-terminated, never NULL */
    char **depends;  /* Depends and Pre-Depends: NULL-terminated, never NULL */
};

struct dpkgdb;

void dpkg_parse_status(const char *text, size_t len, GPtrArray *pkgs);
void dpkg_pkg_free(gpointer p);

int dpkgdb_load(const char *admindir, struct dpkgdb **out);
/* The package owning `path`, or NULL. */
const struct dpkg_pkg *dpkgdb_owner(struct dpkgdb *db, const char *path);
/* An installed package by name (any architecture), or NULL. */
const struct dpkg_pkg *dpkgdb_package(struct dpkgdb *db, const char *name);
/* dpkg's own architecture (the installed dpkg package's), or NULL. */
const char *dpkgdb_native_arch(struct dpkgdb *db);
void dpkgdb_free(struct dpkgdb *db);
