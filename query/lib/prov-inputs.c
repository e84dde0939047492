/* prov-inputs — the walk itself, the inputs walk (back from a version: its writers, what they
 * read, their ancestors' reads) and the merge of a walk's levels (prov.h; prov-internal.h). */
#include "prov-internal.h"
#include "tracedb.h"

#include <limits.h>
#include <string.h>

void pv_walk_init(struct walk *w, struct prov *p, const struct prov_walk_opts *o,
                      unsigned limit)
{
    w->p = p;
    w->o = o;
    w->reused = p->graph && !p->walk_maps_busy;
    if (w->reused) {
        /* Dense maps over every id, made once and reset after each walk. */
        if (!p->walk_maps_made) {
            pv_idmap_init_reusable(&p->walk_maps[0], p->versions.max);
            pv_idmap_init_reusable(&p->walk_maps[1], p->graph->max_process);
            pv_idmap_init_reusable(&p->walk_maps[2], p->graph->max_process);
            p->walk_maps_made = true;
        }
        p->walk_maps_busy = true;
        w->nodes = p->walk_maps[0];
        w->done_data = p->walk_maps[1];
        w->done_script = p->walk_maps[2];
    } else {
        pv_idmap_init(&w->nodes, 0, NULL);
        pv_idmap_init(&w->done_data, 0, NULL);
        pv_idmap_init(&w->done_script, 0, NULL);
    }
    g_queue_init(&w->queue);
    w->shared = false;
    w->spliced = NULL;
    w->unsorted = false;
    w->all = g_ptr_array_new_with_free_func(w->reused ? NULL : g_free);
    w->nodes_used = 0;
    w->limit = limit;
    w->gave_up = false;
}

static gint node_cmp(gconstpointer a, gconstpointer b)
{
    const struct prov_node *x = a, *y = b;
    int c = strcmp(x->v->path, y->v->path);
    return c ? c : (x->v->id > y->v->id) - (x->v->id < y->v->id);
}

static gint version_cmp(gconstpointer a, gconstpointer b)
{
    struct prov_node x = {*(const struct prov_version *const *)a},
                     y = {*(const struct prov_version *const *)b};
    return node_cmp(&x, &y);
}

/* Every version's place in node_cmp's order ([version id]), made once on the loaded graph (a
 * command that walks per product sorts millions of nodes: an integer compare, not strcmp). */
static const guint32 *path_ranks(struct prov *p)
{
    if (p->path_rank || !p->graph)
        return p->path_rank;
    GPtrArray *all = g_ptr_array_new();
    for (int64_t id = 1; id <= p->versions.max; id++) {
        const struct prov_version *v = prov_version(p, id);
        if (v)
            g_ptr_array_add(all, (gpointer)v);
    }
    g_ptr_array_sort(all, version_cmp);
    p->path_rank = g_new0(guint32, (size_t)p->versions.max + 1);
    for (guint i = 0; i < all->len; i++)
        p->path_rank[((const struct prov_version *)all->pdata[i])->id] = i;
    g_ptr_array_free(all, TRUE);
    return p->path_rank;
}

static gint node_rank_cmp(gconstpointer a, gconstpointer b, gpointer data)
{
    const guint32 *rank = data;
    guint32 x = rank[((const struct prov_node *)a)->v->id],
            y = rank[((const struct prov_node *)b)->v->id];
    return (x > y) - (x < y);
}

/* Sort nodes by path, then version id. */
static void sort_nodes(struct prov *p, GArray *nodes)
{
    const guint32 *rank = nodes->len > 1 ? path_ranks(p) : NULL;
    if (rank)
        g_array_sort_with_data(nodes, node_rank_cmp, (gpointer)rank);
    else
        g_array_sort(nodes, node_cmp);
}

/* The nodes that pass `keep` (all when NULL), sorted (unless w->unsorted); frees the walk.
 * NULL if it gave up. */
GArray *pv_walk_finish(struct walk *w, bool (*keep)(const struct prov_node *, void *),
                           void *data)
{
    GArray *out = NULL;
    if (!w->gave_up) {
        out = g_array_sized_new(FALSE, FALSE, sizeof(struct prov_node), w->all->len);
        for (guint i = 0; i < w->all->len; i++) {
            struct prov_node *n = w->all->pdata[i];
            if (!keep || keep(n, data))
                g_array_append_val(out, *n);
        }
        if (!w->unsorted)
            sort_nodes(w->p, out);
    }
    if (w->reused) {
        pv_idmap_reset(&w->nodes);
        pv_idmap_reset(&w->done_data);
        pv_idmap_reset(&w->done_script);
        w->p->walk_maps[0] = w->nodes;
        w->p->walk_maps[1] = w->done_data;
        w->p->walk_maps[2] = w->done_script;
        w->p->walk_maps_busy = false;
    } else {
        pv_idmap_clear(&w->nodes);
        pv_idmap_clear(&w->done_data);
        pv_idmap_clear(&w->done_script);
    }
    g_ptr_array_free(w->all, TRUE);
    g_queue_clear(&w->queue);
    if (w->spliced)
        g_ptr_array_free(w->spliced, TRUE);
    return out;
}

/* The next node to expand: breadth first (depth, then the order added); NULL when none. */
static struct wnode *walk_next(struct walk *w)
{
    return g_queue_pop_head(&w->queue);
}

void pv_walk_add(struct walk *w, int64_t id, enum prov_role role, int depth, bool prune)
{
    struct wnode *n = pv_idmap_get(&w->nodes, id);
    if (n) {
        if (role < n->n.role)
            n->n.role = role; /* the most specific use wins */
        if (depth > 0)
            n->kinds |= PV_KIND_OF(role);
        n->own = true;
        return;
    }
    if (w->gave_up || (w->limit && w->all->len >= w->limit)) {
        w->gave_up = true;
        return;
    }
    const struct prov_version *v = prov_version(w->p, id);
    if (!v || (prune && prov_path_under(v->path, w->o->prune)))
        return;
    struct wnode *added = pv_walk_new_node(w, v, role, depth);
    added->kinds = depth > 0 ? PV_KIND_OF(role) : 0; /* (a start's OTHER is no use of it) */
    added->own = true;
    g_queue_push_tail(&w->queue, added);
}

struct wnode *pv_walk_new_node(struct walk *w, const struct prov_version *v, enum prov_role role,
                               int depth)
{
    struct wnode *n;
    if (w->reused) { /* (from the prov's blocks: no malloc and free per node) */
        GPtrArray *b = w->p->node_blocks;
        if (!b)
            b = w->p->node_blocks = g_ptr_array_new_with_free_func(g_free);
        if (w->nodes_used / PV_NODE_BLOCK >= b->len)
            g_ptr_array_add(b, g_new(struct wnode, PV_NODE_BLOCK));
        n = (struct wnode *)b->pdata[w->nodes_used / PV_NODE_BLOCK] + w->nodes_used % PV_NODE_BLOCK;
        w->nodes_used++;
        memset(n, 0, sizeof *n);
    } else {
        n = g_new0(struct wnode, 1);
    }
    n->n.v = v;
    n->n.role = role;
    n->n.depth = depth;
    pv_idmap_set(&w->nodes, v->id, n);
    g_ptr_array_add(w->all, n);
    return n;
}

/* Mark process `id` as expanded up to `bound` in `done`.  Going up (inputs: reads before a
 * time) returns the earlier bound (INT64_MIN the first time), or INT64_MAX when nothing new is
 * left; going down (outputs: writes after a time) the mirror image. */
int64_t pv_advance(struct idmap *done, int64_t id, int64_t bound, bool upward)
{
    /* Stored as (bound - INT64_MIN + 1) so that no bound is NULL (absent). */
    gpointer v = pv_idmap_get(done, id);
    uint64_t enc = (uint64_t)bound - (uint64_t)INT64_MIN + 1;
    if (!v) {
        pv_idmap_set(done, id, (gpointer)(uintptr_t)enc);
        return upward ? INT64_MIN : INT64_MAX;
    }
    int64_t old = (int64_t)((uint64_t)(uintptr_t)v - 1 + (uint64_t)INT64_MIN);
    if (upward ? bound <= old : bound >= old)
        return upward ? INT64_MAX : INT64_MIN;
    pv_idmap_set(done, id, (gpointer)(uintptr_t)enc);
    return old;
}

/* The most archivers and compressors a walk down from an archiver follows (a trace with
 * thousands is crafted). */
#define PROV_MAX_ARCHIVERS 4096

/* Add what process `pid` read in (after, bound]. */
static void add_reads(struct walk *w, int64_t pid, int64_t after, int64_t bound, bool script,
                      int depth)
{
    struct prov *p = w->p;
    const struct proc_facts *f = pv_facts_of(p, pid);
    int64_t from = after == INT64_MIN ? INT64_MIN : after + 1;
    struct edges found = pv_reads_of(p, pid, from, bound);
    /* The graph's are in time order: from the first at or after `from`, up to `bound` (a
     * process that made each of 100 000 copies after its read is walked once per copy). */
    guint start = 0;
    if (p->graph) {
        guint hi = found.n;
        while (start < hi) {
            guint mid = start + (hi - start) / 2;
            if (found.e[mid].t < from)
                start = mid + 1;
            else
                hi = mid;
        }
    }
    for (guint i = start; i < found.n && !w->gave_up; i++) {
        const struct edge *e = &found.e[i];
        if (p->graph && e->t > bound)
            break;
        if (e->t < from || e->t > bound)
            continue;
        const struct prov_node *have = pv_idmap_get(&w->nodes, e->id);
        if (have && have->role == PROV_ROLE_SOURCE && !w->shared)
            continue; /* seen, and no use is more specific (a shared walk sees each use:
                       * prov-share.c checks the uses) */
        enum prov_role role = pv_read_role(w, f, e, script);
        if (role != PROV_ROLE_COUNT)
            pv_walk_add(w, e->id, role, depth, true);
    }
    pv_edges_done(&found);
}

/* An archiver that has a child archive for it (dpkg-deb runs tar into a pipe, and compresses
 * what comes out): what the archivers and compressors it started read before its write went
 * into its output through the pipe, which is not a file.  (Any depth; each process once.) */
static void add_archived_through_pipes(struct walk *w, int64_t pid, int64_t bound, int depth)
{
    pv_load_successors(w->p);
    GArray *todo = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(todo, pid);
    for (guint i = 0; i < todo->len && todo->len < PROV_MAX_ARCHIVERS; i++) {
        int64_t id = g_array_index(todo, int64_t, i);
        GArray *succ = g_hash_table_lookup(w->p->successors, &id);
        for (guint k = 0; succ && k < succ->len; k++) {
            int64_t d = g_array_index(succ, struct edge, k).id;
            const struct proc_facts *df = pv_facts_of(w->p, d);
            if (!df || (df->step != PROGKIND_ARCHIVE && df->step != PROGKIND_COMPRESS))
                continue;
            g_array_append_val(todo, d);
            int64_t after = pv_advance(&w->done_data, d, bound, true);
            if (after != INT64_MAX)
                add_reads(w, d, after, bound, false, depth);
        }
    }
    g_array_free(todo, TRUE);
}

static void expand_writer(struct walk *w, const struct prov_version *v, int64_t pid,
                          int64_t bound, int depth)
{
    const struct proc_facts *f = pv_facts_of(w->p, pid);
    bool code = w->level == LEVEL_EXACT || w->level == LEVEL_GUESS;
    if (code) {
        if (!f || pv_add_selected(w, v, f, pid, bound, depth))
            return;
        if (f->interleaved && w->level == LEVEL_EXACT)
            return; /* a guess: only the guessing level follows it */
    }
    int64_t after = pv_advance(&w->done_data, pid, bound, true);
    if (after != INT64_MAX)
        add_reads(w, pid, after, bound, false, depth);
    /* (every read too: what dpkg-deb's tar child read is what the .deb holds; diff and repro
     * follow a differing .deb down to the file that differs through it, t9032) */
    if (f && f->step == PROGKIND_ARCHIVE && (code || w->o->every_read))
        add_archived_through_pipes(w, pid, bound, depth);
    if (code || !w->o->scripts)
        return;
    /* Its ancestors: the images it exec'd from, its parent, theirs, ... */
    const struct qdb_process *pr = qdb_process(w->p->q, pid);
    while (pr) {
        /* An exec'd image's ancestors are its earlier images, then their parent. */
        int64_t up = pr->prev_image_id ? pr->prev_image_id : pr->parent_id;
        if (!up)
            break;
        int64_t a_after = pv_advance(&w->done_script, up, bound, true);
        if (a_after == INT64_MAX)
            break; /* it and everything above were expanded up to this bound already */
        add_reads(w, up, a_after, bound, true, depth);
        pr = qdb_process(w->p->q, up);
    }
}

static bool not_start(const struct prov_node *n, void *data)
{
    return n->v->id != *(int64_t *)data;
}

/* One walk back from `n` starts (at depth 0, never pruned) at one level; the starts are in
 * the result only with keep_starts.  NULL when it gave up (past `limit` nodes).  `shared`:
 * splicing in the closures kept (prov-share.c); *mixed then says whether the result cannot be
 * trusted (a version both linked as a shared library and used otherwise: where the walk
 * stops depended on the order it went). */
struct walk_how {
    bool shared, sorted;
};

static GArray *walk_level(struct prov *p, const int64_t *starts, guint n, bool keep_starts,
                          const struct prov_walk_opts *o, unsigned limit, enum level level,
                          struct walk_how how, bool *mixed)
{
    struct walk w;
    pv_walk_init(&w, p, o, limit);
    w.level = level;
    w.unsorted = !how.sorted;
    bool shared = how.shared;
    if (shared)
        pv_share_begin(&w);
    /* Every start first, at depth 0: one found later as another's input is still followed
     * (stop_at_shlibs stops only below a start). */
    for (guint i = 0; i < n; i++)
        pv_walk_add(&w, starts[i], PROV_ROLE_OTHER, 0, false);
    struct wnode *wn;
    while (!w.gave_up && (wn = walk_next(&w))) {
        struct prov_node *node = &wn->n;
        int depth = shared ? 1 : node->depth + 1; /* (a shared walk keeps no distances) */
        if (o->stop_at_shlibs && node->depth > 0 && node->role == PROV_ROLE_SHLIB)
            continue;
        if (shared && node->depth > 0 && pv_share_covers(&w, wn))
            continue;
        if (o->max_depth > 0 && node->depth >= o->max_depth)
            continue; /* listed, not followed */
        if (node->v->base_id)
            pv_walk_add(&w, node->v->base_id,
                     level == LEVEL_EVERY_READ
                         ? pv_classify(filekind_of(node->v->path), node->v->path, TRACEDB_READ, NULL,
                                    false)
                     : level == LEVEL_INFLUENCE ? PROV_ROLE_SCRIPT /* (new here: influence) */
                                                : PROV_ROLE_COPY,
                     depth, true);
        struct edges writers = pv_writers_of(p, node->v->id);
        for (guint i = 0; i < writers.n && !w.gave_up; i++)
            expand_writer(&w, node->v, writers.e[i].id, writers.e[i].t, depth);
        pv_edges_done(&writers);
    }
    if (shared)
        *mixed = !pv_share_end(&w, starts[0]);
    return pv_walk_finish(&w, keep_starts ? NULL : not_start, (void *)starts);
}

/* pv_walk_level, its nodes in the order found unless `sorted`. */
static GArray *walk_level_in(struct prov *p, const int64_t *starts, guint n, bool keep_starts,
                             const struct prov_walk_opts *o, unsigned limit, enum level level,
                             bool sorted)
{
    bool shared = pv_share_applies(p, n, level, o, limit), mixed = false;
    struct walk_how how = {shared, sorted};
    GArray *r = walk_level(p, starts, n, keep_starts, o, limit, level, how, &mixed);
    if (!mixed)
        return r;
    g_array_unref(r); /* walked again alone: in the order that decides */
    how.shared = false;
    r = walk_level(p, starts, n, keep_starts, o, limit, level, how, &mixed);
    for (guint i = 0; r && i < r->len; i++) /* (as a shared walk says: no distances) */
        if (g_array_index(r, struct prov_node, i).depth > 0)
            g_array_index(r, struct prov_node, i).depth = 1;
    return r;
}

GArray *pv_walk_level(struct prov *p, const int64_t *starts, guint n, bool keep_starts,
                      const struct prov_walk_opts *o, unsigned limit, enum level level)
{
    return walk_level_in(p, starts, n, keep_starts, o, limit, level, true);
}

/* One level's walk; an inputs walk's nodes in the order found unless `sorted` (the merge sorts
 * what it keeps once). */
static GArray *walk_one_level(const struct level_walk *x, enum level l, bool sorted)
{
    return x->outputs ? pv_walk_outputs_level(x->p, x->starts, x->n, x->o, x->limit, l)
                      : walk_level_in(x->p, x->starts, x->n, x->keep_starts, x->o, x->limit, l,
                                      sorted);
}

/* The levels' walks merged: each version at the first level that reached it (its role and
 * depth there), `guess` when that is the guessing level; an output found only at the
 * influence level has the role SCRIPT (it does not carry the start).  Every level unless
 * code_only; every_read: that one walk.  Sorted as pv_walk_finish sorts; NULL when one gave up. */
GArray *pv_merge_levels(const struct level_walk *x)
{
    if (x->o->every_read)
        return walk_one_level(x, x->outputs ? LEVEL_INFLUENCE : LEVEL_EVERY_READ, true);
    enum level last = x->o->code_only ? LEVEL_GUESS : LEVEL_INFLUENCE;
    GArray *out = g_array_new(FALSE, FALSE, sizeof(struct prov_node));
    /* the versions kept: a bit per version on the loaded graph (millions of asks when a
     * command walks per product), else a set */
    int64_t max = x->p->graph ? x->p->versions.max : 0;
    guint8 *seen = max ? g_malloc0((size_t)max / 8 + 1) : NULL;
    GHashTable *have = seen ? NULL : g_hash_table_new(g_int64_hash, g_int64_equal);
    for (enum level l = LEVEL_EXACT; l <= last && out; l++) {
        GArray *r = walk_one_level(x, l, false);
        if (!r) {
            g_array_unref(out);
            out = NULL;
            break;
        }
        for (guint i = 0; i < r->len; i++) {
            struct prov_node *nd = &g_array_index(r, struct prov_node, i);
            int64_t id = nd->v->id;
            bool dense = seen && id > 0 && id <= max;
            if (dense ? (seen[id / 8] >> (id % 8)) & 1 : have && g_hash_table_contains(have, &id))
                continue;
            nd->guess = l == LEVEL_GUESS;
            if (x->outputs && l == LEVEL_INFLUENCE)
                nd->role = PROV_ROLE_SCRIPT;
            g_array_append_val(out, *nd);
            if (dense)
                seen[id / 8] |= (guint8)(1u << (id % 8));
            else if (have)
                g_hash_table_add(have, (gpointer)&nd->v->id); /* (the version is the prov's) */
        }
        g_array_unref(r);
    }
    g_free(seen);
    if (have)
        g_hash_table_destroy(have);
    if (out)
        sort_nodes(x->p, out);
    return out;
}

static GArray *walk_inputs(struct prov *p, const int64_t *starts, guint n, bool keep_starts,
                           const struct prov_walk_opts *o, unsigned limit)
{
    struct level_walk x = {p, starts, n, keep_starts, false, o, limit};
    return pv_merge_levels(&x);
}

GArray *prov_inputs(struct prov *p, int64_t start, const struct prov_walk_opts *o)
{
    /* One step back is one lookup per writer however many inputs it had (a link of 25 000
     * objects): never worth loading the whole graph for. */
    GArray *r = p->graph ? NULL
                         : walk_inputs(p, &start, 1, false, o,
                                       o->max_depth == 1 ? 0 : PROV_SQL_NODES);
    if (r)
        return r;
    if (!p->graph)
        pv_load_graph(p);
    return walk_inputs(p, &start, 1, false, o, 0);
}

GArray *prov_inputs_of_all(struct prov *p, GArray *starts, const struct prov_walk_opts *o)
{
    if (!starts->len)
        return g_array_new(FALSE, FALSE, sizeof(struct prov_node));
    if (!p->graph)
        pv_load_graph(p);
    return walk_inputs(p, (const int64_t *)(void *)starts->data, starts->len, true, o, 0);
}
