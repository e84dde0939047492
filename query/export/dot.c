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

int fmt_dot(struct export_ctx *x)
{
    GArray *nodes = NULL; /* struct prov_node */
    int64_t start = 0;
    static const struct prov_walk_opts walk = {.scripts = false};
    if (x->closure_of) {
        g_autofree char *abs = qdb_absolute_path(x->closure_of);
        int64_t fid = qdb_file_id(x->q, abs);
        start = fid ? prov_version_at(x->p, fid) : 0;
        if (!start) {
            if (!query_failed(x->q))
                fprintf(stderr, "buildtrail export: %s: the build never read or wrote it; check "
                                "the path given to --closure-of\n", x->closure_of);
            return 1;
        }
        nodes = prov_inputs(x->p, start, &walk);
        struct prov_node self = {prov_version(x->p, start), PROV_ROLE_OTHER, 0};
        g_array_append_val(nodes, self);
    } else {
        /* The whole build: every version that was read or written. */
        prov_load(x->p); /* one scan for the graph and the versions used */
        GArray *ids = prov_versions_used_as(x->p, PROV_USE_BOUND, false);
        nodes = g_array_new(FALSE, FALSE, sizeof(struct prov_node));
        for (guint i = 0; i < ids->len; i++) {
            struct prov_node n = {prov_version(x->p, g_array_index(ids, int64_t, i)),
                                  PROV_ROLE_OTHER, 0};
            if (n.v)
                g_array_append_val(nodes, n);
        }
        g_array_unref(ids);
    }
    GHashTable *in_graph = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < nodes->len; i++) {
        struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (!x->depth || n->depth <= x->depth)
            g_hash_table_add(in_graph, (gpointer)&n->v->id);
    }
    GString *o = x->out;
    g_string_append(o, "digraph buildtrail {\n  rankdir=LR;\n  node [fontsize=10];\n");
    GHashTable *emitted = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *procs = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GHashTable *edges = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    /* Whether a process made a version in the graph (readers are drawn only then), per pid:
     * 1 no, 2 yes. */
    GHashTable *makes_in_graph = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GArray *users = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GArray *readers = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (guint i = 0; i < nodes->len; i++) {
        struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (!g_hash_table_contains(in_graph, &n->v->id))
            continue;
        ex_flush(x);
        bool collapsed;
        char *name = dot_file_node(x, n->v, &collapsed);
        if (!g_hash_table_contains(emitted, name)) {
            g_string_append(o, "  ");
            dot_id(o, name);
            g_string_append(o, " [shape=ellipse");
            if (collapsed) {
                g_string_append(o, ",style=dashed,label=");
                dot_id(o, name);
            } else {
                g_autofree char *label = g_strdup_printf("%s\nv%" PRId64 " %.12s", n->v->path,
                                                         n->v->id, n->v->sha256);
                g_string_append(o, ",label=");
                dot_id(o, label);
                if (n->v->origin == TRACEDB_VERSION_FOUND)
                    g_string_append(o, ",style=filled,fillcolor=\"#e8f0ff\"");
                if (n->v->id == start)
                    g_string_append(o, ",penwidth=2");
            }
            g_string_append(o, "];\n");
            /* only a collapsed node is met again (one per directory) */
            if (collapsed)
                g_hash_table_add(emitted, g_strdup(name));
        }
        /* Edges to the processes that made or read this version (only the makers of versions
         * in the graph, and those makers' reads of versions in the graph). */
        g_array_set_size(users, 0);
        g_array_set_size(readers, 0);
        prov_makers(x->p, n->v->id, users);
        guint n_makers = users->len;
        prov_readers(x->p, n->v->id, readers); /* apart: one that did both gets both edges */
        g_array_append_vals(users, readers->data, readers->len);
        for (guint u = 0; u < users->len; u++) {
            int64_t pid = g_array_index(users, int64_t, u);
            bool wrote = u < n_makers;
            if (!wrote && !g_hash_table_contains(procs, &pid)) {
                /* Only readers that made something in the graph are drawn. */
                int known = GPOINTER_TO_INT(g_hash_table_lookup(makes_in_graph, &pid));
                if (!known) {
                    GPtrArray *made = prov_process_versions(x->p, pid, PROV_MADE);
                    bool yes = false;
                    for (guint k = 0; k < made->len && !yes; k++)
                        yes = g_hash_table_contains(
                            in_graph, &((const struct prov_version *)made->pdata[k])->id);
                    g_ptr_array_free(made, TRUE);
                    known = yes ? 2 : 1;
                    int64_t *key = g_new(int64_t, 1);
                    *key = pid;
                    g_hash_table_insert(makes_in_graph, key, GINT_TO_POINTER(known));
                }
                if (known == 1)
                    continue;
            }
            g_autofree char *pnode = g_strdup_printf("p%" PRId64, pid);
            if (!g_hash_table_contains(procs, &pid)) {
                const struct qdb_process *p = qdb_process(x->q, pid);
                int64_t *k = g_new(int64_t, 1);
                *k = pid;
                g_hash_table_add(procs, k);
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
            /* A plain version's edges are unique already; a collapsed node's repeat. */
            if (collapsed) {
                g_autofree char *edge = wrote ? g_strdup_printf("%s->%s", pnode, name)
                                              : g_strdup_printf("%s->%s", name, pnode);
                if (g_hash_table_contains(edges, edge))
                    continue;
                g_hash_table_add(edges, g_strdup(edge));
            }
            g_string_append(o, "  ");
            dot_id(o, wrote ? pnode : name);
            g_string_append(o, " -> ");
            dot_id(o, wrote ? name : pnode);
            g_string_append(o, wrote ? " [label=wrote];\n" : " [label=read,color=gray40];\n");
        }
        g_free(name);
    }
    g_array_unref(users);
    g_array_unref(readers);
    g_hash_table_destroy(makes_in_graph);
    /* spawned: between drawn processes, along the parent chain. */
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, procs);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        int64_t id = *(int64_t *)key, up = ex_nearest_ancestor_in(x, id, procs);
        if (up)
            g_string_append_printf(o, "  \"p%" PRId64 "\" -> \"p%" PRId64 "\" [label=spawned,"
                                      "style=dotted];\n", up, id);
    }
    g_string_append(o, "}\n");
    g_hash_table_destroy(edges);
    g_hash_table_destroy(procs);
    g_hash_table_destroy(emitted);
    g_hash_table_destroy(in_graph);
    g_array_unref(nodes);
    return 0;
}
