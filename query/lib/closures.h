/* closures — each product's closure, walked once, for the commands that ask it of every
 * product: the SBOM exports (spdx, cyclonedx: leaves, tools, the licenses' roll-up) and the
 * store's push (closure rows, licenses).
 *
 * The closure is the walk of `inputs --leaves --roles` (prov_inputs with scripts, stopping at
 * shared libraries: closures_walk), the very walk licroll_closure sorts into license
 * categories.  Before this engine spdx and cyclonedx walked it twice per product (once for
 * the leaves and tools, once more inside the licenses); now the first ask walks and every
 * later ask of that version is answered from memory.  The walks themselves share the rules'
 * work across products (prov: each read's role and each interpreter module judged once), so
 * the closure of what products have in common (gnulib's objects in every coreutils program)
 * costs a walk over nodes already judged (docs/performance.md, "Closures"), and the closure of
 * what an earlier walk reached is spliced in, not walked again (prov-share.c).
 *
 * Contract: over one struct prov (single-threaded, as prov.h says); prints nothing; errors
 * are the qdb's (qdb_failed).  The arrays are the engine's, valid until closures_free; each
 * is what prov_inputs(p, vid, &closures_walk) returns — the same versions, roles and guesses,
 * in the same order — but for the depth: every node's is 1, not its distance from vid (no
 * reader asks how far, and walks that keep no distances share more: prov_share_closures)
 * (tests/unit/test-closures.c).
 */
#pragma once

#include "prov.h"

#include <glib.h>
#include <stdint.h>

/* The walk every closure here is: with scripts, stopping at shared libraries. */
extern const struct prov_walk_opts closures_walk;

struct closures;

/* Loads the whole graph (prov_load): these commands walk many times.  From then on the prov
 * shares the walks' influence level (prov_share_closures): keep no other struct closures nor
 * walks with other options in between that expect otherwise (the answers are the same; only
 * the cost differs). */
struct closures *closures_new(struct prov *p);
void closures_free(struct closures *c);

/* The versions the caller will ask (`n` ids): on the first ask of any of them, they are all
 * walked, earliest made first (by id), so that each walk can splice in the closures of the
 * earlier versions it reaches (a program's, of its objects and of config.h). */
void closures_plan(struct closures *c, const int64_t *ids, guint n);

/* The closure of version `vid` (struct prov_node, sorted by path, `vid` itself not in it,
 * each at depth 1), walked on the first ask and kept. */
const GArray *closures_of(struct closures *c, int64_t vid);
