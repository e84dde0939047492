/* dot: the provenance graph for Graphviz (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void dot_id(GString *o, const char *s)
{
    /* A DOT quoted ID: backslash and quote escaped; bytes kept (Graphviz reads UTF-8). */
    g_string_append_c(o, '"');
    for (const char *c = s; *c; c++) {
        if (*c == '"' || *c == '\\')
            g_string_append_c(o, '\\');
        if (*c == '\n')
            g_string_append(o, "\\n");
        else
            g_string_append_c(o, *c);
    }
    g_string_append_c(o, '"');
}

/* A version's node name: its path, or the collapsed directory it is under. */
static char *dot_file_node(struct export_ctx *x, const struct prov_version *v, bool *collapsed)
{
    for (char **d = x->collapse; d && *d; d++) {
        char *one[] = {*d, NULL};
        if (prov_path_under(v->path, one)) {
            *collapsed = true;
            return g_strdup_printf("%s/…", *d);
        }
    }
    *collapsed = false;
    return g_strdup_printf("v%" PRId64, v->id);
}

/* The versions to draw: the closure of --closure-of (*start: its version), else every
 * version read or written; NULL after printing why not. */
static GArray *dot_nodes(struct export_ctx *x, int64_t *start)
{
    static const struct prov_walk_opts walk = {.scripts = false};
    *start = 0;
    if (x->closure_of) {
        g_autofree char *abs = qdb_absolute_path(x->closure_of);
        int64_t fid = qdb_file_id(x->q, abs);
        *start = fid ? prov_version_at(x->p, fid) : 0;
        if (!*start) {
            if (!query_failed(x->q))
                fprintf(stderr, "buildtrail export: %s: the build never read or wrote it; check "
                                "the path given to --closure-of\n", x->closure_of);
            return NULL;
        }
        GArray *nodes = prov_inputs(x->p, *start, &walk);
        struct prov_node self = {prov_version(x->p, *start), PROV_ROLE_OTHER, 0};
        g_array_append_val(nodes, self);
        return nodes;
    }
    /* The whole build: every version that was read or written. */
    prov_load(x->p); /* one scan for the graph and the versions used */
    GArray *ids = prov_versions_used_as(x->p, PROV_USE_BOUND, false);
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(struct prov_node));
    for (guint i = 0; i < ids->len; i++) {
        struct prov_node n = {prov_version(x->p, g_array_index(ids, int64_t, i)),
                              PROV_ROLE_OTHER, 0};
        if (n.v)
            g_array_append_val(nodes, n);
    }
    g_array_unref(ids);
    return nodes;
}

/* What the drawing keeps while it goes. */
struct dot_graph {
    struct export_ctx *x;
    int64_t start;
    GHashTable *in_graph;       /* version ids drawn */
    GHashTable *emitted;        /* collapsed nodes drawn */
    GHashTable *procs;          /* process ids drawn (owned int64_t keys) */
    GHashTable *edges;          /* "a->b" drawn, for collapsed nodes */
    /* Whether a process made a version in the graph (readers are drawn only then), per pid:
     * 1 no, 2 yes. */
    GHashTable *makes_in_graph;
};

/* A version's node (a collapsed directory's, once). */
static void dot_version(struct dot_graph *g, const struct prov_version *v, const char *name,
                        bool collapsed)
{
    GString *o = g->x->out;
    if (g_hash_table_contains(g->emitted, name))
        return;
    g_string_append(o, "  ");
    dot_id(o, name);
    g_string_append(o, " [shape=ellipse");
    if (collapsed) {
        g_string_append(o, ",style=dashed,label=");
        dot_id(o, name);
    } else {
        g_autofree char *label = g_strdup_printf("%s\nv%" PRId64 " %.12s", v->path, v->id,
                                                 v->sha256);
        g_string_append(o, ",label=");
        dot_id(o, label);
        if (v->origin == TRACEDB_VERSION_FOUND)
            g_string_append(o, ",style=filled,fillcolor=\"#e8f0ff\"");
        if (v->id == g->start)
            g_string_append(o, ",penwidth=2");
    }
    g_string_append(o, "];\n");
    /* only a collapsed node is met again (one per directory) */
    if (collapsed)
        g_hash_table_add(g->emitted, g_strdup(name));
}

/* Whether reader `pid` is drawn: only readers that made something in the graph are. */
static bool reader_drawn(struct dot_graph *g, int64_t pid)
{
    if (g_hash_table_contains(g->procs, &pid))
        return true;
    int known = GPOINTER_TO_INT(g_hash_table_lookup(g->makes_in_graph, &pid));
    if (!known) {
        GPtrArray *made = prov_process_versions(g->x->p, pid, PROV_MADE);
        bool yes = false;
        for (guint k = 0; k < made->len && !yes; k++)
            yes = g_hash_table_contains(g->in_graph,
                                        &((const struct prov_version *)made->pdata[k])->id);
        g_ptr_array_free(made, TRUE);
        known = yes ? 2 : 1;
        int64_t *key = g_new(int64_t, 1);
        *key = pid;
        g_hash_table_insert(g->makes_in_graph, key, GINT_TO_POINTER(known));
    }
    return known == 2;
}

/* A process's node, once: "[ID] argv", cut to 80 characters. */
static void dot_process(struct dot_graph *g, int64_t pid, const char *pnode)
{
    if (g_hash_table_contains(g->procs, &pid))
        return;
    GString *o = g->x->out;
    const struct qdb_process *p = qdb_process(g->x->q, pid);
    int64_t *k = g_new(int64_t, 1);
    *k = pid;
    g_hash_table_add(g->procs, k);
    GString *label = g_string_new(NULL);
    g_string_append_printf(label, "[%" PRId64 "] ", pid);
    if (p && p->argv && p->argv_len)
        text_argv(label, p->argv, p->argv_len);
    if (label->len > 80) {
        g_string_truncate(label, 77);
        g_string_append(label, "...");
    }
    g_string_append(o, "  ");
    dot_id(o, pnode);
    g_string_append(o, " [shape=box,label=");
    dot_id(o, label->str);
    g_string_append(o, "];\n");
    g_string_free(label, TRUE);
}

/* Edges to the processes that made or read version v, drawn as `name` (only the makers of
 * versions in the graph, and those makers' reads of versions in the graph). */
static void dot_uses(struct dot_graph *g, const struct prov_version *v, const char *name,
                     bool collapsed, GArray *users, GArray *readers)
{
    GString *o = g->x->out;
    g_array_set_size(users, 0);
    g_array_set_size(readers, 0);
    prov_makers(g->x->p, v->id, users);
    guint n_makers = users->len;
    prov_readers(g->x->p, v->id, readers); /* apart: one that did both gets both edges */
    g_array_append_vals(users, readers->data, readers->len);
    for (guint u = 0; u < users->len; u++) {
        int64_t pid = g_array_index(users, int64_t, u);
        bool wrote = u < n_makers;
        if (!wrote && !reader_drawn(g, pid))
            continue;
        g_autofree char *pnode = g_strdup_printf("p%" PRId64, pid);
        dot_process(g, pid, pnode);
        /* A plain version's edges are unique already; a collapsed node's repeat. */
        if (collapsed) {
            g_autofree char *edge = wrote ? g_strdup_printf("%s->%s", pnode, name)
                                          : g_strdup_printf("%s->%s", name, pnode);
            if (g_hash_table_contains(g->edges, edge))
                continue;
            g_hash_table_add(g->edges, g_strdup(edge));
        }
        g_string_append(o, "  ");
        dot_id(o, wrote ? pnode : name);
        g_string_append(o, " -> ");
        dot_id(o, wrote ? name : pnode);
        g_string_append(o, wrote ? " [label=wrote];\n" : " [label=read,color=gray40];\n");
    }
}

int fmt_dot(struct export_ctx *x)
{
    struct dot_graph g = {.x = x};
    GArray *nodes = dot_nodes(x, &g.start); /* struct prov_node */
    if (!nodes)
        return 1;
    g.in_graph = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < nodes->len; i++) {
        struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (!x->depth || n->depth <= x->depth)
            g_hash_table_add(g.in_graph, (gpointer)&n->v->id);
    }
    GString *o = x->out;
    g_string_append(o, "digraph buildtrail {\n  rankdir=LR;\n  node [fontsize=10];\n");
    g.emitted = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g.procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    g.edges = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g.makes_in_graph = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GArray *users = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GArray *readers = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (guint i = 0; i < nodes->len; i++) {
        struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (!g_hash_table_contains(g.in_graph, &n->v->id))
            continue;
        ex_flush(x);
        bool collapsed;
        g_autofree char *name = dot_file_node(x, n->v, &collapsed);
        dot_version(&g, n->v, name, collapsed);
        dot_uses(&g, n->v, name, collapsed, users, readers);
    }
    g_array_unref(users);
    g_array_unref(readers);
    g_hash_table_destroy(g.makes_in_graph);
    /* spawned: between drawn processes, along the parent chain, by process id (not in the
     * set's hash order, which is no order). */
    GArray *drawn = ex_ids_sorted(g.procs);
    for (guint i = 0; i < drawn->len; i++) {
        int64_t id = g_array_index(drawn, int64_t, i), up = ex_nearest_ancestor_in(x, id, g.procs);
        if (up)
            g_string_append_printf(o, "  \"p%" PRId64 "\" -> \"p%" PRId64 "\" [label=spawned,"
                                      "style=dotted];\n", up, id);
    }
    g_array_unref(drawn);
    g_string_append(o, "}\n");
    g_hash_table_destroy(g.edges);
    g_hash_table_destroy(g.procs);
    g_hash_table_destroy(g.emitted);
    g_hash_table_destroy(g.in_graph);
    g_array_unref(nodes);
    return 0;
}
