/* licroll — the licenses of what one built file incorporates: its closure's files sorted into
 * categories, each with the license it declares, and the roll-up.  `licenses` prints it; the
 * SBOM exports (spdx, spdx3, cyclonedx) write it, so the two always agree.
 *
 * Contract
 *   - licroll_closure() walks the closure of version `vid` with scripts, stopping at shared
 *     libraries (prov_inputs), and returns a GPtrArray of struct lic_file* (free the array:
 *     it frees them): every found file, and every shared library whoever made it, each with
 *     its category; the license of incorporated files, system headers and build scripts is
 *     detected (lic_detect on the content now, only while its SHA-256 is the traced version's
 *     — prov_read_version — else a pointer to another file's notice, resolved in the closure or
 *     beside the file on disk, its name's case ignored, a regular file only); toolchain
 *     runtime gets its exception's expression.
 *   - `cache` (NULL, or a table made by licroll_cache_new) keeps each version's detection, so
 *     that a caller asking for many closures reads each file once; a pointer to another file's
 *     notice is then resolved in the first closure that reached the file.
 *   - licroll_rollup(): the AND of the distinct licenses of the incorporated files, each
 *     file's own AND members counted once (lic_and_all: "BSD-4-Clause AND ISC" and "ISC" make
 *     "BSD-4-Clause AND ISC"), newly allocated; NULL when none is known.
 *   - No logging; reads files (never writes).  Single-threaded.
 */
#pragma once

#include "prov.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* How a file of the closure relates to the built file. */
enum lic_category {
    CAT_INCORPORATED, /* compiled source, or a header of the project (not a system header) */
    CAT_RUNTIME,      /* toolchain runtime objects, under their known exceptions */
    CAT_OBJECT,       /* a prebuilt object or archive linked in (its text is not a notice) */
    CAT_SYSTEM_HEADER,
    CAT_DYNAMIC,      /* a shared library: linked dynamically, not incorporated */
    CAT_TOOL,         /* executed during the build */
    CAT_SCRIPT,       /* build scripts (part of the corresponding source) */
    CAT_OTHER,
    CAT_COUNT
};

extern const char *const lic_cat_titles[CAT_COUNT];
extern const char *const lic_cat_names[CAT_COUNT];

struct lic_file {
    const struct prov_version *v;
    enum prov_role role;
    enum lic_category cat;
    bool guess;    /* reached only through over-approximated edges (prov_node.guess) */
    char *license; /* SPDX expression, or NULL: unknown */
    char *via;     /* the file whose notice it points to, or NULL */
    const char *problem; /* why it is unknown (content changed, unreadable), or NULL */
    /* Filled by `licenses --copyright`, for an incorporated file of the source tree: */
    bool in_tree;   /* under the tree debian/copyright describes */
    char *declared; /* the SPDX form of its Files paragraph's License, or NULL: none matches */
    int agrees;     /* 1, 0, or -1: nothing to compare (no notice found or none declared) */
};

GHashTable *licroll_cache_new(void);
GPtrArray *licroll_closure(struct prov *p, int64_t vid, GHashTable *cache);
/* The same from a closure already walked (`nodes`: prov_inputs' result with licroll_closure's
 * options, as closures_of keeps it for a command that asks every product's). */
GPtrArray *licroll_of_nodes(const GArray *nodes, GHashTable *cache);
char *licroll_rollup(GPtrArray *files);
/* The detection a cache holds for version `vid`: its expression, or NULL (none found);
 * *looked says whether it was looked at. */
const char *licroll_cached(GHashTable *cache, int64_t vid, bool *looked);
