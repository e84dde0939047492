/* copyscan — embedded copies among the source files a build read: for each source file (C,
 * C++, asm, headers) it read and did not make, whose content is still the traced version's,
 * the other files of the build and of a known-copies index with the same content or similar
 * (winnowed fingerprints), the build's products or Debian packages it went into, and per
 * directory the share of its fingerprints found in one known directory.  The engine of
 * `buildtrail copies` (docs/architecture.md, "Embedded copies"); it returns a model, the
 * command renders it.
 *
 * Contract
 *   - copyscan_run() reads the trace through p (errors are the trace's sticky error: the
 *     caller checks qdb_failed() before trusting the model) and the candidates' files on disk
 *     (prov_read_version: only content still the traced version's).  `top` is the build's
 *     directory; `known` holds struct copyindex_entry * (winnow.h), borrowed.  It prints
 *     nothing and always returns a model; free it with copyscan_free().
 *   - Files come in the order prov_versions_used_as() gives them; each file's matches by
 *     score, then name; directories by directory, then known directory.
 *   - Single-threaded.
 */
#pragma once

#include "prov.h"

#include <glib.h>
#include <stdbool.h>

enum copyscan_kind { COPYSCAN_SAME, COPYSCAN_SIMILAR };
enum copyscan_where { COPYSCAN_BUILD, COPYSCAN_KNOWN };
const char *copyscan_kind_name(enum copyscan_kind k);   /* "same", "similar" */
const char *copyscan_where_name(enum copyscan_where w); /* "build", "known" */

struct copyscan_match {
    enum copyscan_kind kind;
    enum copyscan_where where;
    char *name;   /* the other file's path, or the known index's name for it */
    double score; /* share of this file's fingerprints in the other (1 for the same content) */
};

/* One file with copies. */
struct copyscan_file {
    const struct prov_version *v;
    GArray *matches;       /* struct copyscan_match */
    GPtrArray *shipped_in; /* paths (borrowed from p): the .deb/.udeb files holding it when
                            * the build made Debian packages, else the products it went into */
};

/* A directory much like one known directory. */
struct copyscan_dir {
    char *dir, *known;
    double score; /* rounded to 3 decimals */
};

struct copyscan {
    bool debian;      /* the build made Debian packages: shipped_in lists them */
    GPtrArray *files; /* struct copyscan_file * */
    GPtrArray *dirs;  /* struct copyscan_dir * */
};

struct copyscan *copyscan_run(struct prov *p, const char *top, const GPtrArray *known,
                              double threshold);
void copyscan_free(struct copyscan *m);
