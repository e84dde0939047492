/* prov-share — the closures of input walks kept and spliced into later walks (prov.h,
 * prov_share_closures; prov-internal.h).
 *
 * Why it is exact.  What one expansion of a version adds depends on that version alone (its
 * base, its writers and their time bounds, their ancestors, the rules' judgement of each
 * read at the walk's level), never on the walk: a walk's `done` maps only skip reads that an
 * earlier expansion, at no greater depth, added already.  A walk from S at one level is then
 * what the expansions reach from S, each version with the least role its expansions gave it
 * and its depth its distance from S, but for one thing: with stop_at_shlibs a version below
 * the start whose role is a shared library when it is popped is not expanded, and that can
 * depend on the order of the walk when the version is also used otherwise (linked by one
 * program, copied by another).  Where no version below the start has both kinds of use
 * (PV_KIND_*), every version's stop is decided by its uses alone, whatever the order; the
 * walk is then the same walked in any order, and the walk from a version Y, once done, says
 * for every walk that reaches Y (and expands it) at depth d: what Y's expansions reach, at d
 * plus their depth from Y, with their roles and uses.
 *
 * What is kept of Y's walk (its chunk, one per level): every version it reached, with its
 * role, depth, uses, and whether it stopped there.  Splicing Y's chunk at depth d puts each at
 * d + its depth; one that did not stop is covered at that depth: popped there, it is not
 * expanded again (all it reaches is in the chunk, no deeper).  Shared walks go by depth (a
 * bucket per depth; a version whose depth drops is queued again), so a version is popped
 * once, at its least depth.  A shared walk that ends with a version below its start used both
 * ways keeps nothing and is walked again unshared (prov-inputs.c), so each answer is the
 * unshared walk's; the versions products have in common (gnulib's objects, configure's
 * probes under config.h, the Makefiles) are walked once, by the first walk that reaches them.
 * tests/unit/test-closures.c compares shared and unshared walks on crafted traces. */
#include "prov-internal.h"

#include <limits.h>
#include <string.h>

struct chunk_entry {
    int64_t id;
    int depth;
    guint8 role;
    guint8 kinds;
    bool stopped;
};

struct chunk {
    guint n;
    struct chunk_entry e[];
};

/* The levels that share: the two of code and influence (enum level's first three). */
#define SHARED_LEVELS 3

struct share {
    struct prov_walk_opts o; /* the walks that share: with these options (no prune) */
    struct idmap chunks[SHARED_LEVELS]; /* start version id -> struct chunk* */
};

void prov_share_closures(struct prov *p, const struct prov_walk_opts *o)
{
    prov_load(p);
    if (p->share)
        pv_share_free(p->share);
    p->share = g_new0(struct share, 1);
    p->share->o = *o;
    p->share->o.prune = NULL;
    for (int l = 0; l < SHARED_LEVELS; l++)
        pv_idmap_init(&p->share->chunks[l], p->versions.max, g_free);
}

void pv_share_free(struct share *s)
{
    if (!s)
        return;
    for (int l = 0; l < SHARED_LEVELS; l++)
        pv_idmap_clear(&s->chunks[l]);
    g_free(s);
}

bool pv_share_applies(struct prov *p, guint n, enum level level,
                      const struct prov_walk_opts *o, unsigned limit)
{
    const struct prov_walk_opts *s = p->share ? &p->share->o : NULL;
    return s && p->graph && n == 1 && (int)level < SHARED_LEVELS && !limit && !o->prune &&
           o->scripts == s->scripts && o->stop_at_shlibs == s->stop_at_shlibs &&
           o->max_depth == s->max_depth && o->code_only == s->code_only &&
           o->every_read == s->every_read && !o->max_depth && !o->every_read;
}

/* Put version `id` at `depth` with `role` and `kinds` (a spliced chunk's entry): like
 * pv_walk_add; `covered`: at that depth, it need not be expanded. */
static void relax(struct walk *w, int64_t id, enum prov_role role, guint8 kinds, int depth,
                  bool covered)
{
    struct wnode *n = pv_idmap_get(&w->nodes, id);
    if (!n) {
        const struct prov_version *v = prov_version(w->p, id);
        if (!v)
            return;
        n = pv_walk_new_node(w, v, role, depth);
        n->kinds = kinds;
        n->covered = covered ? depth : INT_MAX;
        return;
    }
    if (role < n->n.role)
        n->n.role = role;
    n->kinds |= kinds;
    if (covered && depth < n->covered)
        n->covered = depth;
    if (depth < n->n.depth && !n->popped) {
        n->n.depth = depth;
        pv_walk_push(w, n);
    }
}

bool pv_share_splice(struct walk *w, struct wnode *n)
{
    if (n->covered == n->n.depth)
        return true;
    const struct chunk *c = pv_idmap_get(&w->p->share->chunks[w->level], n->n.v->id);
    if (!c)
        return false;
    for (guint i = 0; i < c->n; i++) {
        const struct chunk_entry *e = &c->e[i];
        if (e->depth == 0) { /* Y itself: what its own walk's uses of it add */
            if (e->role < n->n.role)
                n->n.role = e->role;
            n->kinds |= e->kinds;
            continue;
        }
        relax(w, e->id, (enum prov_role)e->role, e->kinds, n->n.depth + e->depth, !e->stopped);
    }
    return true;
}

bool pv_share_keep(struct walk *w, int64_t start)
{
    if (w->gave_up)
        return true;
    for (guint i = 0; i < w->all->len; i++) {
        const struct wnode *n = w->all->pdata[i];
        if (n->n.depth > 0 && n->kinds == (PV_KIND_SHLIB | PV_KIND_OTHER))
            return false;
    }
    guint k = w->all->len;
    struct chunk *c = g_malloc(sizeof *c + k * sizeof(struct chunk_entry));
    c->n = k;
    for (guint i = 0; i < k; i++) {
        const struct wnode *n = w->all->pdata[i];
        bool stopped = w->o->stop_at_shlibs && n->n.depth > 0 && n->n.role == PROV_ROLE_SHLIB;
        c->e[i] = (struct chunk_entry){n->n.v->id, n->n.depth, (guint8)n->n.role, n->kinds,
                                       stopped};
    }
    pv_idmap_set(&w->p->share->chunks[w->level], start, c);
    return true;
}
