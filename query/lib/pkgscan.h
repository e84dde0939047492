/* pkgscan — which installed Debian packages a build used and how (read, executed, a symlink
 * followed, incorporated as code, toolchain runtime, headers), each static archive's check
 * (did a link pull a member of it into a kept file), the files read that no package owns, and
 * with a Build-Depends value its clauses sorted by use.  The engine of `buildtrail packages`
 * (docs/architecture.md, "Debian packages"); it returns a model, the command renders it.
 *
 * Contract
 *   - pkgscan_run() reads the trace through q and p (every SQLite error is q's sticky error:
 *     the caller checks qdb_failed() before trusting the model), the files of static archives
 *     and their outputs on disk (only when still the traced version), and directory listings
 *     (for directory scans).  It prints nothing and never fails otherwise: a model is always
 *     returned.  Free it with pkgscan_free().
 *   - Reads under `run_cwd` (the build's own tree) are not package uses.
 *   - Single-threaded.
 */
#pragma once

#include "dpkgdb.h"
#include "prov.h"
#include "qdb.h"

#include <glib.h>
#include <stdbool.h>

/* How one package was used. */
struct pkgscan_use {
    const struct dpkg_pkg *pkg;
    unsigned files;
    unsigned links;    /* symlinks of it the build followed */
    bool incorporated; /* its code went into a product: a source, an object, a static
                        * archive's members (a Built-Using candidate) */
    bool runtime;      /* toolchain runtime of it was linked in, under its license exception */
    bool headers;      /* headers of it were compiled into a product */
    bool executed;
    bool archive_unused; /* a static archive of it was linked and nothing pulled from it */
    bool direct;       /* used other than by a directory scan: read by a process that read
                        * just what it needed, executed, a symlink of it followed */
    char *scan;        /* how a directory scan read it ("aclocal read 88 of the 92 files of
                        * /usr/share/aclocal"), or NULL */
};

/* Whether a link pulled any member of a static archive into a kept output. */
enum pkgscan_verdict { PKGSCAN_PULLED, PKGSCAN_NOTHING, PKGSCAN_NOT_CHECKED };
/* "linked in", "nothing linked", "not checked" */
const char *pkgscan_verdict_name(enum pkgscan_verdict v);

struct pkgscan_archive {
    const struct prov_version *v;
    const struct dpkg_pkg *pkg;
    enum pkgscan_verdict verdict;
    char *how; /* why, in words */
};

/* What --build-depends found: each a list of clauses as their alternatives' names, "a | b". */
struct pkgscan_declared {
    GPtrArray *through;        /* not touched, but a dependency of their own source was,
                                * "a (through DEPS)" */
    GPtrArray *untouched;      /* not touched at all */
    GPtrArray *scan_only;      /* touched only by directory scans, "a (HOW)" */
    GPtrArray *not_applicable; /* excluded by [architectures] or <profiles> */
    GPtrArray *options_only;   /* applying only because a DEB_BUILD_OPTIONS word (nocheck,
                                * nodoc) is not also an active profile, "a (nocheck)" */
};

struct pkgscan_opts {
    const char *declared; /* a Build-Depends value, or NULL */
    const char *arch;     /* the host architecture, or NULL: DEB_HOST_ARCH, else dpkg's */
    const char *profiles; /* active profiles, or NULL: DEB_BUILD_PROFILES */
};

struct pkgscan {
    bool system_traced;  /* /usr was traced (run --system) */
    bool system_watched; /* the system trees were watched (fanotify), not served */
    GPtrArray *uses;     /* struct pkgscan_use *, by name then architecture */
    GPtrArray *archives; /* struct pkgscan_archive *, in the order first met */
    GPtrArray *unowned;  /* paths read outside the build owned by no package, by path */
    /* with opts->declared only: */
    bool has_declared;
    char *arch;                 /* the host architecture used */
    char *profile_list;         /* the profiles as given or recorded, or NULL */
    char **profiles;            /* its words (some may be empty) */
    char *build_options;        /* DEB_BUILD_OPTIONS as recorded, or NULL */
    struct pkgscan_declared declared;
};

struct pkgscan *pkgscan_run(struct qdb *q, struct prov *p, struct dpkgdb *db,
                            const char *run_cwd, const struct pkgscan_opts *opts);
void pkgscan_free(struct pkgscan *m);
