/* prov-share — the closures of input walks kept and spliced into later walks (prov.h,
 * prov_share_closures; prov-internal.h).
 *
 * Why it is exact.  What one expansion of a version adds depends on that version alone (its
 * base, its writers and their time bounds, their ancestors, the rules' judgement of each
 * read at the walk's level), never on the walk: a walk's `done` maps only skip reads that an
 * earlier expansion added already.  A walk from S at one level is then what the expansions
 * reach from S, each version with the least role its expansions gave it, but for one thing:
 * with stop_at_shlibs a version below the start whose role is a shared library when it is
 * popped is not expanded, and that can depend on the order of the walk when the version is
 * also used otherwise (linked by one program, copied by another).  Where no version below the
 * start has both kinds of use (PV_KIND_*), every version's stop is decided by its uses alone,
 * whatever the order; the walk is then the same walked in any order, and the walk from a
 * version Y, once done, says for every walk that reaches Y (and expands it): what Y's
 * expansions reach, with their roles and uses.  Shared walks keep no distances (every node
 * below the start is at depth 1; no reader of the closures asks how far), so a version in a
 * closure spliced in is covered whatever its place: it is never expanded, nor its own closure
 * spliced, again in that walk.
 *
 * What is kept of Y's walk (its chunk, one per level): Y itself with its uses, the versions
 * its own expansions added (role, uses), and the chunks it spliced in itself.  Y's closure is
 * the union of those, so splicing Y's chunk splices in the chunks it holds, each once per
 * walk: a closure nested in many (gnulib's objects in each program's, each man page's in the
 * next one's) is gone through once per walk, not once per closure holding it.  A shared
 * walk that ends with a version below its start used both ways keeps nothing and is walked
 * again unshared (prov-inputs.c), so each answer is the unshared walk's; the versions
 * products have in common (gnulib's objects, configure's probes under config.h, the
 * Makefiles) are walked once, by the first walk that reaches them.
 * tests/unit/test-closures.c compares shared and unshared walks on crafted traces. */
#include "prov-internal.h"

#include <string.h>

struct chunk_entry {
    guint32 id; /* (a shared prov's version ids fit: pv_share_applies) */
    guint8 role;
    guint8 kinds;
};

struct chunk {
    guint stamp;         /* the shared walk it was last spliced into */
    guint size;          /* how many versions its closure has (the start too) */
    guint n, n_subs;
    struct chunk **subs; /* the chunks its walk spliced in itself (after e[n]) */
    struct chunk_entry e[]; /* e[0]: its start; then what its own expansions added (or, flat:
                             * its whole closure) */
};

/* The levels that share: the two of code and influence (enum level's first three). */
#define SHARED_LEVELS 3

/* A chunk is kept flat (its whole closure, no subs) when going through its subs would relax
 * more than this many times its closure's size: the chunks it holds have much in common
 * (libcoreutils.a's objects, each with the same headers and Makefile). */
#define FLAT_WHEN 2

struct share {
    struct prov_walk_opts o; /* the walks that share: with these options (no prune) */
    struct idmap chunks[SHARED_LEVELS]; /* start version id -> struct chunk* */
    guint stamp;             /* the current shared walk's (chunk.stamp) */
    GPtrArray *todo;         /* the chunks a splice has yet to go through */
    guint8 *state;           /* [version id]: what the current walk's splices put there (0: none,
                              * else SPLICED | kinds << 4 | role): an entry that would change
                              * nothing is skipped without a look at the node */
    size_t relaxed;          /* how many entries the current walk's splices went through */
};

void prov_share_closures(struct prov *p, const struct prov_walk_opts *o)
{
    prov_load(p);
    if (p->share)
        pv_share_free(p->share);
    p->share = g_new0(struct share, 1);
    p->share->o = *o;
    p->share->o.prune = NULL;
    p->share->todo = g_ptr_array_new();
    p->share->state = g_malloc0((size_t)p->versions.max + 1);
    for (int l = 0; l < SHARED_LEVELS; l++)
        pv_idmap_init(&p->share->chunks[l], p->versions.max, g_free);
}

void pv_share_free(struct share *s)
{
    if (!s)
        return;
    for (int l = 0; l < SHARED_LEVELS; l++)
        pv_idmap_clear(&s->chunks[l]);
    g_ptr_array_free(s->todo, TRUE);
    g_free(s->state);
    g_free(s);
}

bool pv_share_applies(struct prov *p, guint n, enum level level,
                      const struct prov_walk_opts *o, unsigned limit)
{
    const struct prov_walk_opts *s = p->share ? &p->share->o : NULL;
    return s && p->graph && p->versions.max <= G_MAXUINT32 && n == 1 && (int)level < SHARED_LEVELS && !limit &&
           !o->prune && o->scripts == s->scripts &&
           o->stop_at_shlibs == s->stop_at_shlibs && o->max_depth == s->max_depth &&
           o->code_only == s->code_only && o->every_read == s->every_read &&
           !o->max_depth && !o->every_read;
}

void pv_share_begin(struct walk *w)
{
    w->shared = true;
    w->spliced = g_ptr_array_new();
    w->p->share->stamp++; /* no chunk spliced into this walk yet */
    w->p->share->relaxed = 0;
}

bool pv_share_covers(struct walk *w, struct wnode *n)
{
    if (n->covered)
        return true;
    struct chunk *c = pv_idmap_get(&w->p->share->chunks[w->level], n->n.v->id);
    if (!c)
        return false;
    g_ptr_array_add(w->spliced, c); /* spliced at the end: the largest first */
    return true;
}

#define SPLICED 0x80

/* Put version `id` in the walk with `role` and `kinds` (a spliced chunk's entry), covered.
 * (The state a splice left is never more than the node holds: its role only falls, its kinds
 * and coverage only grow; so what the state holds already changes nothing.) */
static void relax(struct walk *w, guint8 *state, guint32 id, guint8 role, guint8 kinds)
{
    guint8 had = state[id];
    if ((had & SPLICED) && (had & 0xf) <= role && ((had >> 4) & kinds) == kinds)
        return;
    struct wnode *n = pv_idmap_get(&w->nodes, id);
    if (!n) {
        const struct prov_version *v = prov_version(w->p, id);
        if (!v)
            return;
        n = pv_walk_new_node(w, v, (enum prov_role)role, 1); /* (not queued: covered, never
                                                               * expanded) */
    } else if (role < n->n.role) {
        n->n.role = (enum prov_role)role;
    }
    n->kinds |= kinds;
    n->covered = true;
    state[id] = (guint8)(SPLICED | (n->kinds & 7) << 4 | n->n.role);
}

/* Splice chunk `c` in, with the chunks it holds, each once per walk. */
static void splice(struct walk *w, struct chunk *c)
{
    struct share *s = w->p->share;
    c->stamp = s->stamp;
    g_ptr_array_add(s->todo, c);
    while (s->todo->len) {
        c = g_ptr_array_steal_index_fast(s->todo, s->todo->len - 1);
        s->relaxed += c->n;
        for (guint i = 0; i < c->n; i++)
            relax(w, s->state, c->e[i].id, c->e[i].role, c->e[i].kinds);
        for (guint i = 0; i < c->n_subs; i++)
            if (c->subs[i]->stamp != s->stamp) {
                c->subs[i]->stamp = s->stamp;
                g_ptr_array_add(s->todo, c->subs[i]);
            }
    }
}

/* The largest closure first (a later one holds an earlier: each man page's the one before). */
static gint by_size_down(gconstpointer a, gconstpointer b)
{
    const struct chunk *x = *(const struct chunk *const *)a, *y = *(const struct chunk *const *)b;
    if (x->size != y->size)
        return x->size < y->size ? 1 : -1;
    return x->e[0].id < y->e[0].id ? 1 : x->e[0].id > y->e[0].id ? -1 : 0;
}

/* Splice in the chunks the walk met, the largest first; those a larger one holds are covered
 * by it and dropped: the rest are what the walk's chunk holds. */
static void splice_met(struct walk *w)
{
    GPtrArray *met = w->spliced;
    g_ptr_array_sort(met, by_size_down);
    guint k = 0;
    for (guint i = 0; i < met->len; i++) {
        struct chunk *c = met->pdata[i];
        const struct wnode *n = pv_idmap_get(&w->nodes, c->e[0].id);
        if (n->covered)
            continue; /* (in a larger closure spliced in) */
        splice(w, c);
        met->pdata[k++] = c;
    }
    g_ptr_array_set_size(met, (gint)k);
}

/* Keep the closure of the shared walk from `start` (a version with no uses both ways below
 * it), unless it is kept already (others' chunks hold it). */
static void keep(struct walk *w, int64_t start, guint own)
{
    struct idmap *kept = &w->p->share->chunks[w->level];
    const struct wnode *first = pv_idmap_get(&w->nodes, start);
    if (!first || pv_idmap_get(kept, start))
        return;
    bool flat = w->p->share->relaxed + own > (size_t)FLAT_WHEN * w->all->len;
    guint k = flat ? w->all->len : own, subs = flat ? 0 : w->spliced->len;
    struct chunk *c = g_malloc(sizeof *c + k * sizeof(struct chunk_entry) +
                               subs * sizeof(struct chunk *));
    c->stamp = 0;
    c->size = w->all->len;
    c->n = k;
    c->n_subs = subs;
    c->subs = (struct chunk **)(void *)(c->e + k);
    c->e[0] = (struct chunk_entry){(guint32)start, (guint8)first->n.role, first->kinds};
    k = 1;
    for (guint i = 0; i < w->all->len; i++) {
        const struct wnode *n = w->all->pdata[i];
        if ((flat || n->own) && n->n.v->id != start)
            c->e[k++] = (struct chunk_entry){(guint32)n->n.v->id, (guint8)n->n.role, n->kinds};
    }
    if (subs)
        memcpy(c->subs, w->spliced->pdata, subs * sizeof(struct chunk *));
    pv_idmap_set(kept, start, c);
}

bool pv_share_end(struct walk *w, int64_t start)
{
    if (w->gave_up)
        return true;
    splice_met(w);
    guint own = 1;
    bool mixed = false;
    for (guint i = 0; i < w->all->len; i++) {
        const struct wnode *n = w->all->pdata[i];
        w->p->share->state[n->n.v->id] = 0; /* (for the next walk) */
        if (n->n.v->id != start) {
            mixed |= n->kinds == (PV_KIND_SHLIB | PV_KIND_OTHER);
            own += n->own;
        }
    }
    if (!mixed)
        keep(w, start, own);
    return !mixed;
}
