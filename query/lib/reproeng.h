/* reproeng — what `buildtrail repro` concludes from two traced builds of one tree, one built
 * as the control and one with reprotest's variations: the variations (names, a LIST parsed),
 * the artifacts and each one's own root causes (diffeng_causes_of, never an order), which
 * variations MAY explain a cause from what its processes did, and the bisection that pins
 * each cause to the variation(s) that trigger it.  Prints nothing.
 *
 * Hints (reproeng_hints, pure; reproeng_cause_facts gathers the facts from the traces).  A
 * cause's scope is its process in B (else A) and, when that ran inside a shell's command
 * (a pipeline, `$(...)`), the nearest shell at most two levels up with everything it started;
 * never the build's root.  Then:
 *   build path, cwd kinds, `pwd`, PWD differing           build_path
 *   a listing (readdir) by a program that does not sort   fileordering
 *     (find, tar, ls -f/-U, cp -r, a script...)
 *   a listing by `ls` or a shell's glob (sorted), `sort`,  locales
 *     `comm`, `join`, LANG, LC_ALL, LANGUAGE differing
 *   a read under $HOME, HOME differing                    home
 *   `uname` (with -r, -a, or none)                        kernel
 *   `hostname`, `uname -n/-a`, `domainname`...             domain_host
 *   `nproc`, `getconf`                                    num_cpus
 *   `id`, `whoami`, `logname`, `groups`, USER/LOGNAME      user_group
 *   `date`                                                time, timezone, locales
 *   TZ differing                                          timezone
 *   PATH differing                                        exec_path
 *   an archiver (tar, cpio, ar, zip, ...) or `ls -l`, `stat` umask, user_group, time
 *   `umask` (a shell's builtin)                            umask
 *   another variable differing                            environment
 *   nondeterminism with none of the above                 time, timezone, aslr
 * Not detected: an order carried through a file between two steps (`ls -f > list`, later
 * `cat $(cat list)`) nor by a process outside the scope; a process that reads the clock,
 * the CPU count or the host name through a system call without running a program for it
 * is "nondeterminism" (time, timezone, aslr) only.  The hints are what MAY explain a cause; --bisect
 * says which does.
 *
 * Contract
 *   - Variation sets are bit masks over enum reproeng_variation.
 *   - reproeng_cause_facts reads the traces through qdb (a damaged trace: the caller checks
 *     qdb_failed); the returned facts are the caller's (reproeng_facts_clear).
 *   - reproeng_artifacts borrows the diffeng; its result (g_ptr_array_unref) owns its strings.
 *   - reproeng_bisect calls `build(set, ctx)` for the sets it tries: that returns the keys
 *     (reproeng_cause_key) of the causes a build with exactly those variations shows, or NULL
 *     for an error (the bisection stops, returning false).  It pins each wanted key to the
 *     smallest set found that triggers it: one variation, or when neither half alone does,
 *     the part of each half that does with the other (narrowed the same way, down to one).
 */
#pragma once

#include "diffeng.h"
#include "qdb.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

enum reproeng_variation {
    RV_ENVIRONMENT, RV_BUILD_PATH, RV_FILEORDERING, RV_HOME, RV_KERNEL, RV_LOCALES,
    RV_EXEC_PATH, RV_TIME, RV_TIMEZONE, RV_UMASK, RV_USER_GROUP, RV_DOMAIN_HOST, RV_NUM_CPUS,
    RV_ASLR, RV_COUNT
};
#define RV_BIT(v) (1u << (v))
#define RV_ALL ((1u << RV_COUNT) - 1)
#define RV_DEFAULT (RV_ALL & ~RV_BIT(RV_TIME)) /* `all`: not time (it needs faketime) */

/* reprotest's name of a variation ("build_path"); NULL past RV_COUNT. */
const char *reproeng_variation_name(enum reproeng_variation v);
/* The variation of a name, or -1. */
int reproeng_variation_of(const char *name, size_t len);
/* "a,b,c" in reprotest's order (g_free); "" for none. */
char *reproeng_vary_list(uint32_t set);

/* The variables variation v sets on both sides (NULL-terminated; empty for most), and whether
 * `name` is one of those of a set: their differences are expected (diffeng_expect_env). */
const char *const *reproeng_expected_env(enum reproeng_variation v);
bool reproeng_env_expected(uint32_t set, const char *name);

struct reproeng_facts {
    enum diffeng_kind kind;
    GPtrArray *commands;    /* char*: each scope process's program and arguments, spaces between */
    GPtrArray *env_names;   /* char*: variables whose values differ between A's and B's process */
    bool listed_unsorted;   /* a directory listed by a program that does not sort */
    bool listed_sorted;     /* ... by `ls` without -f/-U or a shell (a sorted glob) */
    bool read_home;         /* a file read under $HOME */
};
void reproeng_facts_init(struct reproeng_facts *f, enum diffeng_kind kind);
void reproeng_facts_clear(struct reproeng_facts *f);
/* The variations that may explain a cause with these facts. */
uint32_t reproeng_hints(const struct reproeng_facts *f);
/* The facts of cause `c` of the model, from the two traces; the variables the variations
 * `varied` set are not counted as differing (every process has them). */
void reproeng_cause_facts(struct qdb *qa, struct qdb *qb, const struct diffeng_model *m,
                          const struct diffeng_cause *c, uint32_t varied,
                          struct reproeng_facts *f);

/* The variations of `asked` the experiment's trace q says were made (table variations, schema
 * 9) into *made; a line "NAME: why" into `why` (char*) for each not made, or made in part.
 * build_path is the caller's (where it built).  0, or -EIO (qdb_failed says why). */
int reproeng_variations_made(struct qdb *q, uint32_t asked, uint32_t *made, GPtrArray *why);

enum reproeng_state { RA_IDENTICAL, RA_DIFFERS, RA_ONLY_CONTROL, RA_ONLY_EXPERIMENT };
struct reproeng_artifact {
    char *path;              /* B's terms (the experiment's) */
    enum reproeng_state state;
};
/* The artifacts: the products matching one of `globs` (relative to B's build directory, e.g.
 * `out/NAME.tar` or `../NAME.deb`, wildcards allowed, or absolute), or with none, what the build delivers
 * (diffeng_is_artifact), else every product; sorted by path. */
GPtrArray *reproeng_artifacts(struct diffeng *d, const GPtrArray *globs);
/* The first of `globs` that matches none of `artifacts` (reproeng_artifacts' result), or NULL. */
const char *reproeng_glob_unmatched(struct diffeng *d, const GPtrArray *globs,
                                    const GPtrArray *artifacts);
/* The key a cause keeps across builds (another set of variations, another build path): its
 * path relative to B's build directory, the temporaries' random names left as they are. */
char *reproeng_cause_key(const struct diffeng_model *m, const struct diffeng_cause *c);
/* A path relative to B's build directory when under it, `../NAME` beside it, else as it is
 * (g_free). */
char *reproeng_rel(const struct diffeng_model *m, const char *path);

typedef GHashTable *(*reproeng_build_fn)(uint32_t set, void *ctx);
/* A pin that is no variation: the cause shows with nothing varied (the build is not
 * deterministic by itself). */
#define REPROENG_PIN_UNVARIED (1u << 31)
/* Pin each key of `wanted` (a set of char* keys) to the variations that trigger it, starting
 * from `set` (which triggers them all): *pins gets key -> GUINT_TO_POINTER(set) (a new
 * table, g_hash_table_unref).  The first build is `build(0)`, nothing varied (repro: the
 * control built again): the keys it shows are pinned to REPROENG_PIN_UNVARIED alone and not
 * bisected.  Keys that show in neither half of a split are narrowed one at a time, in
 * strcmp order.  False when a build failed (what was pinned so far kept). */
bool reproeng_bisect(uint32_t set, GHashTable *wanted, reproeng_build_fn build, void *ctx,
                     GHashTable **pins);
