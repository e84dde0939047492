/* prov-outputs — the outputs walk: forward from versions to what their readers made, at the
 * code levels only what carries them (prov.h; prov-internal.h). */
#include "prov-internal.h"
#include "tracedb.h"

/* Add the versions process `pid` wrote at or after `from` (and before `until`). */
static void add_writes(struct walk *w, int64_t pid, int64_t from, int64_t until, int depth)
{
    int64_t last = until == INT64_MAX ? INT64_MAX : until - 1;
    struct edges found = pv_writes_of(w->p, pid, from, last);
    for (guint i = 0; i < found.n; i++)
        if (found.e[i].t >= from && found.e[i].t <= last)
            pv_walk_add(w, found.e[i].id, PROV_ROLE_OTHER, depth, true);
    pv_edges_done(&found);
}

static void expand_reader(struct walk *w, int64_t pid, int64_t since, int depth)
{
    int64_t until = pv_advance(&w->done_data, pid, since, false);
    if (until != INT64_MIN)
        add_writes(w, pid, since, until, depth);
    if (!w->o->scripts)
        return;
    pv_load_successors(w->p);
    GArray *todo = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(todo, pid);
    for (guint i = 0; i < todo->len; i++) {
        int64_t id = g_array_index(todo, int64_t, i);
        GArray *succ = g_hash_table_lookup(w->p->successors, &id);
        for (guint k = 0; succ && k < succ->len; k++) {
            int64_t d = g_array_index(succ, struct edge, k).id;
            int64_t d_until = pv_advance(&w->done_script, d, since, false);
            if (d_until == INT64_MIN)
                continue; /* it and its descendants were expanded from an earlier read */
            add_writes(w, d, since, d_until, depth);
            g_array_append_val(todo, d);
        }
    }
    g_array_free(todo, TRUE);
}

static bool not_a_start(const struct prov_node *n, void *data)
{
    return n->depth > 0 || !g_hash_table_contains(data, &n->v->id);
}

/* What version `v` carries one step back, at the code levels: id -> enum level + 1 (the first
 * level that has it).  Worked out by the inputs walk itself, so that the two directions agree;
 * remembered per version. */
static GHashTable *direct_code_inputs(struct prov *p, int64_t v, const struct prov_walk_opts *o)
{
    if (!p->direct)
        p->direct = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                          (GDestroyNotify)g_hash_table_destroy);
    GHashTable *have = g_hash_table_lookup(p->direct, &v);
    if (have)
        return have;
    have = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    struct prov_walk_opts one = {.prune = o->prune, .max_depth = 1};
    for (enum level l = LEVEL_GUESS + 1; l-- > LEVEL_EXACT;) { /* guess first: exact overrides */
        GArray *r = pv_walk_level(p, &v, 1, false, &one, 0, l);
        for (guint i = 0; r && i < r->len; i++)
            g_hash_table_replace(have, pv_id_key(g_array_index(r, struct prov_node, i).v->id),
                                 GINT_TO_POINTER(l + 1));
        if (r)
            g_array_unref(r);
    }
    g_hash_table_insert(p->direct, pv_id_key(v), have);
    return have;
}

/* The code levels of the outputs walk: what each reader of a version wrote after reading it
 * and carries it (direct_code_inputs); what was written on top of it, the caller adds. */
static void expand_code_outputs(struct walk *w, struct prov_node *n, int depth)
{
    struct prov *p = w->p;
    struct edges readers = pv_readers_of(p, n->v->id);
    for (guint i = 0; i < readers.n && !w->gave_up; i++) {
        /* The reader's writes, and, for an archiver or compressor, those of the archivers
         * above it that it fed through a pipe (dpkg-deb's tar child: add_archived_through_pipes
         * has it in the other direction). */
        int64_t writer = readers.e[i].id;
        for (int up = 0; writer && up < PROV_MAX_UP && !w->gave_up; up++) {
            struct edges wr = pv_writes_of(p, writer, readers.e[i].t, INT64_MAX);
            for (guint k = 0; k < wr.n && !w->gave_up; k++) {
                if (wr.e[k].t < readers.e[i].t || pv_idmap_get(&w->nodes, wr.e[k].id))
                    continue;
                GHashTable *carried = direct_code_inputs(p, wr.e[k].id, w->o);
                int l = GPOINTER_TO_INT(g_hash_table_lookup(carried, &n->v->id));
                if (l && l - 1 <= (int)w->level)
                    pv_walk_add(w, wr.e[k].id, PROV_ROLE_OTHER, depth, true);
            }
            pv_edges_done(&wr);
            const struct proc_facts *f = pv_facts_of(p, writer);
            if (!f || (f->step != PROGKIND_ARCHIVE && f->step != PROGKIND_COMPRESS))
                break;
            int64_t next = f->pr->prev_image_id ? f->pr->prev_image_id : f->pr->parent_id;
            const struct proc_facts *nf = next ? pv_facts_of(p, next) : NULL;
            writer = nf && nf->step == PROGKIND_ARCHIVE ? next : 0;
        }
    }
    pv_edges_done(&readers);
}

GArray *pv_walk_outputs_level(struct prov *p, const int64_t *starts, guint n_starts,
                                  const struct prov_walk_opts *o, unsigned limit,
                                  enum level level)
{
    struct walk w;
    pv_walk_init(&w, p, o, limit);
    w.level = level;
    for (guint i = 0; i < n_starts; i++)
        pv_walk_add(&w, starts[i], PROV_ROLE_OTHER, 0, false);
    struct prov_node *n;
    while (!w.gave_up && (n = g_queue_pop_head(&w.queue))) {
        int depth = n->depth + 1;
        /* What was written on top of it, at every level; then its readers' outputs. */
        struct edges based = pv_based_on(p, n->v->id);
        for (guint i = 0; i < based.n; i++)
            pv_walk_add(&w, based.e[i].id, PROV_ROLE_OTHER, depth, true);
        pv_edges_done(&based);
        if (level != LEVEL_INFLUENCE) {
            expand_code_outputs(&w, n, depth);
            continue;
        }
        struct edges readers = pv_readers_of(p, n->v->id);
        for (guint i = 0; i < readers.n && !w.gave_up; i++)
            expand_reader(&w, readers.e[i].id, readers.e[i].t, depth);
        pv_edges_done(&readers);
    }
    /* The starts themselves are not outputs (unless made from another start). */
    GHashTable *start_ids = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < n_starts; i++)
        g_hash_table_add(start_ids, (gpointer)&starts[i]);
    GArray *out = pv_walk_finish(&w, not_a_start, start_ids);
    g_hash_table_destroy(start_ids);
    return out;
}

/* The outputs walk's levels merged (pv_merge_levels): what carries a start's code (exactly,
 * then by a guess), then (unless code_only) what was made after a read of it, by the reader
 * and (with scripts) the processes it started.  The role of an output is OTHER at the code
 * levels and SCRIPT at the influence level. */
static GArray *walk_outputs(struct prov *p, GArray *starts, const struct prov_walk_opts *o,
                            unsigned limit)
{
    struct level_walk x = {p, (const int64_t *)(void *)starts->data, starts->len, false, true, o,
                           limit};
    return pv_merge_levels(&x);
}

GArray *prov_outputs(struct prov *p, GArray *starts, const struct prov_walk_opts *o)
{
    GArray *r = p->graph ? NULL : walk_outputs(p, starts, o, PROV_SQL_NODES);
    if (r)
        return r;
    if (!p->graph)
        pv_load_graph(p);
    return walk_outputs(p, starts, o, 0);
}
