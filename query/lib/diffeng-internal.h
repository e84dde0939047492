/* diffeng-internal — what diffeng.c and diffeng-layout.c share: the engine's state, and
 * (diffeng-layout.c) the two builds' layout: where their directories part, where their
 * products lie, which products are artifacts, and whether two versions of a file differ
 * only by the build path embedded in them.  Internal to diffeng; prints nothing.
 *
 * Contract
 *   - dl_layout_prefix(a, b, &pa, &pb): where paths a and b part, each without the trailing
 *     components they share (/x/p1/dash-0.5.12 and /x/p2x/dash-0.5.12: /x/p1 and /x/p2x),
 *     newly allocated.  The whole paths when they share no trailing component or when the
 *     prefix would be a directory at the top of the filesystem (/tmp, /home: mapping all of
 *     it would pair unrelated files); false (nothing set) when they are equal, or when even
 *     the whole paths are at the top (/w and /v: the caller maps the directories alone).
 *   - dl_products_dir(p, root): the deepest directory holding every product of the trace
 *     under `root` (NULL when none lies under it); g_free it.
 *   - dl_only_build_path(va, vb, old, new): whether the files at va's and vb's paths
 *     still hold those versions (same SHA-256; regular files of at most 64 MiB, opened
 *     without following a link or blocking on a FIFO) and A's content, with every `old`
 *     replaced by `new`, is B's: the two differ by the build path alone.  False whenever it
 *     cannot tell (a temporary, a file changed since, unreadable).
 */
#pragma once

#include "diffeng.h"
#include "prov.h"
#include "qdb.h"

#include <glib.h>
#include <stdbool.h>

/* A cause as the engine holds it: the public part, and what it owns. */
struct cause {
    struct diffeng_cause pub;
    char *path, *detail;
};

struct side {
    struct qdb *q;
    struct prov *p;
    const char *root; /* the directory the build ran in */
};

struct diffeng {
    struct side s[2];
    GPtrArray *maps;      /* char*: "OLD\0NEW" pairs, longest OLD first: A's paths as B's */
    GPtrArray *excludes;  /* char*: globs */
    GHashTable *expected_env; /* variables whose differences are no cause (diffeng_expect_env) */
    GPtrArray *expected_paths; /* char*: directories whose files read are no input (idem) */
    GHashTable *tmp_pair; /* A's temporary path -> B's (owned strings) */
    GHashTable *memo;     /* "vA:vB" -> GArray of cause indices */
    GHashTable *via;      /* "vA:vB|cause" -> the pair "vA:vB" it came through (the chain) */
    GHashTable *pair_path; /* "vA:vB" -> B's path of the pair (not owned: the prov's) */
    GPtrArray *causes;    /* struct cause* (model.causes holds their public parts) */
    GHashTable *cause_of; /* "kind\npath\nprocA" -> index+1 */
    GHashTable *product_pair; /* a differing product (model.differ's string) -> "vA:vB" */
    bool skip_system;     /* only one trace saw the system trees: their files are not paired */
    char *layout[2];      /* where A's and B's build directories part (NULL: not mapped) */
    GHashTable *embedders; /* A's processes that wrote a file embedding the build path */
    bool ran;
    struct diffeng_model m;
};

/* diffeng.c: under a system tree; the image that wrote a version; strcmp for g_ptr_array_sort */
bool de_is_system_path(const char *path);
int64_t de_writer_of(struct side *s, int64_t vid);
gint de_by_str(gconstpointer a, gconstpointer b);

/* diffeng.c: a cause (one per what it is, as every other), and A's path in B's terms */
size_t de_add_cause(struct diffeng *d, enum diffeng_kind kind, const char *path, int64_t pa,
                    int64_t pb, char *detail);
char *de_map_path(struct diffeng *d, const char *path);
/* diffeng-denied.c: a DIFFENG_DENIED cause for each file hidden from one build (run
 * --only-inputs, --only-packages) that the other found (an access that succeeded), B's terms;
 * the denying process and the first that found it */
void de_add_denials(struct diffeng *d);

/* diffeng-procs.c: what differs between two processes' command lines (the outermost words
 * that differ, for people; NULL: none) and environments (NULL: none; `cwd_differs`: the
 * shell's PWD and OLDPWD then differ by nature), and whether two paths differ in B's terms */
char *de_argv_difference(struct diffeng *d, const struct qdb_process *a,
                         const struct qdb_process *b);
char *de_env_difference(struct diffeng *d, int64_t pa, int64_t pb, bool cwd_differs);
bool de_differs_mapped(struct diffeng *d, const char *a, const char *b);

/* diffeng-layout.c: whether a path lies under a directory diffeng_expect_path named (the
 * expectations, diffeng_expect_env and _path, are kept there too) */
bool de_expected_path(const struct diffeng *d, const char *path);
/* diffeng-layout.c: map the layout (diffeng_run, first); name the build path's cause and
 * find the artifacts (diffeng_run, last) */
void de_map_layout(struct diffeng *d);
void de_name_build_path(struct diffeng *d);
void de_find_artifacts(struct diffeng *d);
/* Whether A's process pa is a compile with debug information (cc1 -g...: gcc records the
 * directory it ran in, DW_AT_comp_dir) run inside the mapped layout, its directory not
 * remapped (-fdebug-prefix-map, -ffile-prefix-map): its output embeds the build path. */
bool de_compile_records_dir(struct diffeng *d, const struct qdb_process *pa);

bool dl_layout_prefix(const char *a, const char *b, char **pa, char **pb);
char *dl_products_dir(struct prov *p, const char *root);
bool dl_only_build_path(const struct prov_version *va, const struct prov_version *vb,
                        const char *old, const char *new);
