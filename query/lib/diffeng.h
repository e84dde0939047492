/* diffeng — why two builds of the same source differ, as a model: which products match,
 * which differ, which are in one build only, and the root causes behind those that differ,
 * each with the chain of files from a product down to it.  `diff` renders it; `repro` walks
 * it.  Prints nothing.
 *
 * Products (prov_is_product in each trace) are matched by path, the first build's (A's)
 * paths mapped onto the second's (B's): each diffeng_add_map OLD=NEW, then the build's
 * layout (where A's build directory and B's part: /x/p1/pkg and /x/p2x/pkg map /x/p1 onto
 * /x/p2x, so the packages left in `..` match too; two builds run in one directory, where
 * their products lie: src/up and src/up2), then temporaries (cc's /tmp/cc*.s, named at
 * random) onto the ones they were paired with.  Matched products are compared by SHA-256.  For a pair that differs, the
 * process that wrote each version (the image that wrote its bytes: matched by what it wrote,
 * never by pid or order) and its direct inputs (what it read before writing) are compared:
 * inputs pair by mapped path (a path read in several versions, configure's conftest.err:
 * each with the other build's made by the same command, else in the order made), then the
 * programs run with each other, then what is left by directory and extension in the order
 * each writer read it (never their names' order: a temporary's is random), and what stays
 * alone was read by one build only (causes in that order too); every pair that differs is
 * explained the same way (memoised per version pair) down to the root causes (enum
 * diffeng_kind).  Two files still on disk whose contents differ
 * by the layout's paths alone are one cause, the build path, however many.
 *
 * Contract
 *   - diffeng_new(qa, pa, qb, pb) borrows both traces and their provenance views (they must
 *     outlive it); diffeng_add_map and diffeng_exclude (a glob on B's path, relative to B's
 *     build directory or absolute) before diffeng_run, which builds the model once.  A
 *     damaged trace ends the walk early: the caller checks qdb_failed() on both before
 *     trusting the model (the sticky error).
 *   - The model (struct diffeng_model) and everything it points to belong to the diffeng
 *     and live until diffeng_free.  Paths are in B's terms (A's mapped), sorted by strcmp.
 *   - A cause's processes are image ids of each trace (0: none): qdb_process(qa|qb, id).
 *   - diffeng_causes_of(d, product) gives the causes that reach one product (the model lists,
 *     per cause, the products it reaches); diffeng_chain(d, product, cause) gives the files between a product and where the
 *     cause arose, nearest the product first (B's paths; g_ptr_array_free it, the strings
 *     stay the engine's); empty when the cause is the product's own.
 *   - Not thread-safe; one diffeng per thread.
 */
#pragma once

#include "prov.h"
#include "qdb.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

enum diffeng_kind {
    DIFFENG_INPUT,   /* a file found outside the build (or before it) has other content */
    DIFFENG_ORIGIN,  /* made by the build in one, found in the other */
    DIFFENG_INPUTS,  /* a process read a file in one build only */
    DIFFENG_ARGV,    /* the same inputs, other arguments (the outermost such ancestor) */
    DIFFENG_ENV,     /* ... the same arguments, another environment */
    DIFFENG_EXE,     /* ... run as another (untraced) program */
    DIFFENG_CWD,     /* ... run in another directory */
    DIFFENG_NONDET,  /* the same in every way told apart, another output */
    DIFFENG_UNKNOWN, /* not explained: no writer known, histories of other lengths, too deep */
    DIFFENG_BUILD_PATH, /* the two differ by the build path they embed, nothing else (one
                         * cause for every file so: its processes, its products) */
    DIFFENG_DENIED,  /* a file hidden from one build (run --only-inputs, --only-packages) that
                      * the other found; listed first, reaching no product through files:
                      * what a configure test found passes on through exit statuses */
};

/* "input", "origin", "inputs", "argv", "environment", "executable", "cwd",
 * "nondeterminism", "unexplained", "build path", "denied". */
const char *diffeng_kind_name(enum diffeng_kind kind);

struct diffeng_cause {
    enum diffeng_kind kind;
    const char *path;        /* the file where it was first seen, B's terms ("... (a temporary)") */
    int64_t proc[2];         /* the image in A and in B (0: none) */
    const char *detail;      /* what differs, for people */
    unsigned more_processes; /* other processes that differ the same way */
    GPtrArray *products;     /* const char*: the differing products it reaches, sorted */
    unsigned artifacts;      /* how many of them are artifacts (diffeng_is_artifact) */
};

struct diffeng_model {
    const char *root[2];     /* each build's directory */
    GPtrArray *identical;    /* char*: products with the same content in both (B's paths) */
    GPtrArray *differ;       /* char*: matched products whose content differs */
    GPtrArray *only_a;       /* char*: A's products (mapped) with no match in B */
    GPtrArray *only_b;       /* char*: B's products with no match in A */
    GPtrArray *not_compared; /* char*: what could not be compared, for people, once each */
    GPtrArray *causes;       /* struct diffeng_cause*, in the order found: A's products
                              * walked inside its build directory first (by the path there),
                              * then inside the layout, then the rest (by path), each's
                              * inputs so too: never in an order the directories' names or
                              * a temporary's random name changes */
    bool unrelated;          /* each built products, none matched: two different projects */
    GPtrArray *artifacts;    /* char*: the products that are artifacts (identical, differing or
                              * one-sided; B's terms, sorted); empty: the build delivers nothing
                              * apart, every product counts as one */
};

struct diffeng;

struct diffeng *diffeng_new(struct qdb *qa, struct prov *pa, struct qdb *qb, struct prov *pb);
void diffeng_free(struct diffeng *d);
/* A's path OLD is B's NEW (absolute paths; the longest OLD applies first). */
void diffeng_add_map(struct diffeng *d, const char *old, const char *new);
/* Leave out the products `glob` matches (g_pattern_match_simple). */
void diffeng_exclude(struct diffeng *d, const char *glob);
/* A variable whose values are expected to differ (repro's variations set it: TZ, HOME, LANG):
 * its difference is no environment cause; a process whose output differs all the same is
 * non-determinism, to be explained by what it ran.  Before diffeng_run. */
void diffeng_expect_env(struct diffeng *d, const char *name);
/* A directory (absolute, no trailing slash) whose files a process reads because of what was
 * varied (the locales' data, read for another LANG): not an input of anything, so never "read
 * by one build only".  Before diffeng_run. */
void diffeng_expect_path(struct diffeng *d, const char *dir);
/* Compare the two builds (once; later calls return the same model). */
const struct diffeng_model *diffeng_run(struct diffeng *d);
/* The causes that reach `product` (one of model->differ): indices into model->causes, each
 * once, in the order found; g_array_unref it.  Empty for a product not in model->differ. */
GArray *diffeng_causes_of(struct diffeng *d, const char *product);
/* Whether a product (B's terms) is an artifact, what the build delivers: a file left beside
 * the build directory (the .deb, .buildinfo, .changes dpkg-buildpackage leaves in `..`: under
 * where the two layouts part, or in the build directory's parent when both ran at one path) or
 * installed into a package's tree (ROOT/debian/PKG/...); the rest are intermediate files. */
bool diffeng_is_artifact(struct diffeng *d, const char *product);
/* The files between `product` (one of model->differ) and where cause index `cause` arose. */
GPtrArray *diffeng_chain(struct diffeng *d, const char *product, size_t cause);
