/* tree: the build's process tree with argv. */
#include "driver.h"
#include "query.h"
#include "textout.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static gint by_start(gconstpointer a, gconstpointer b)
{
    const struct qdb_process *x = *(const struct qdb_process *const *)a;
    const struct qdb_process *y = *(const struct qdb_process *const *)b;
    if (x->start_ns != y->start_ns)
        return x->start_ns < y->start_ns ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

struct tree_ctx {
    struct qdb *q;
    GHashTable *replaced; /* ids of images that exec'd into another */
    GHashTable *children; /* parent id -> GPtrArray of processes (sorted) */
    GPtrArray *roots;
    GString *out;
    bool json;
};

/* A forked child that has not exec'd yet runs its parent's program: same argv.  Its exec is
 * the ordinary fork-then-exec and needs no "(exec of …)" note. */
static bool is_fork_copy(struct qdb *q, const struct qdb_process *p)
{
    const struct qdb_process *parent = p && p->parent_id ? qdb_process(q, p->parent_id) : NULL;
    return parent && p->exec_seq == 0 && p->argv_len == parent->argv_len &&
           (p->argv_len == 0 || memcmp(p->argv, parent->argv, p->argv_len) == 0);
}

/* Text indentation stops growing at this depth (a chain of 100 000 processes would print
 * O(n^2) spaces); a deeper line says its level instead. */
#define TREE_INDENT_MAX 64

static void emit_line(struct tree_ctx *t, const struct qdb_process *p, int depth)
{
    for (int i = 0; i < MIN(depth, TREE_INDENT_MAX); i++)
        g_string_append(t->out, "  ");
    if (depth > TREE_INDENT_MAX)
        g_string_append_printf(t->out, "(level %d) ", depth);
    query_text_process(t->out, p);
    if (p->prev_image_id && !is_fork_copy(t->q, qdb_process(t->q, p->prev_image_id)))
        g_string_append_printf(t->out, "  (exec of [%" G_GINT64_FORMAT "])", p->prev_image_id);
    if (p->orphan)
        g_string_append(t->out, "  (orphan: parent unknown)");
    query_text_exit(t->out, p);
    g_string_append_c(t->out, '\n');
}

/* Whether text output leaves out child k: a childless image that exec'd into another is
 * shown by its successor's "(exec of [N])" (the fork-then-exec pattern is one line). */
static bool folded(const struct tree_ctx *t, const struct qdb_process *k)
{
    return !t->json && g_hash_table_contains(t->replaced, &k->id) &&
           !g_hash_table_contains(t->children, &k->id);
}

/* `p` and everything under it, depth first, with a stack of its own (a chain of processes as
 * deep as a trace may hold must not exhaust the C stack). */
struct frame {
    const struct qdb_process *p;
    GPtrArray *kids;
    guint next;
};

static void emit(struct tree_ctx *t, const struct qdb_process *root)
{
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(struct frame));
    const struct qdb_process *p = root;
    for (;;) {
        if (p) { /* enter p */
            int depth = (int)stack->len;
            if (t->json) {
                g_string_append(t->out, "{\"process\":");
                query_json_process(t->out, p);
                g_string_append(t->out, ",\"children\":[");
            } else {
                emit_line(t, p, depth);
            }
            struct frame f = {p, g_hash_table_lookup(t->children, &p->id), 0};
            g_array_append_val(stack, f);
            p = NULL;
        }
        if (!stack->len)
            break;
        struct frame *top = &g_array_index(stack, struct frame, stack->len - 1);
        while (top->kids && top->next < top->kids->len && folded(t, top->kids->pdata[top->next]))
            top->next++;
        if (top->kids && top->next < top->kids->len) {
            if (t->json && top->next)
                g_string_append_c(t->out, ',');
            p = top->kids->pdata[top->next++];
            continue;
        }
        if (t->json) /* leave it */
            g_string_append(t->out, "]}");
        g_array_set_size(stack, stack->len - 1);
        if (!stack->len)
            break;
    }
    g_array_free(stack, TRUE);
}

static const struct query_command tree_command = {
    .name = "tree",
    .flags = QUERY_CUT_ARGV,
    .operands = "",
    .about = "Show the build's processes as a tree, each as [ID] followed by its argv.\n"
             "An image that replaced another by exec says so; IDs are what other\n"
             "commands (log --process, show) take.  --json nests {process, children}.\n",
};

int query_tree_main(int argc, char **argv)
{
    struct query_opts o = {0};
    int r = query_parse(&tree_command, argc, argv, &o, NULL);
    if (r >= 0)
        return r;
    bool json = o.json;
    struct qdb *q = query_open("tree", o.db_path);
    if (!q)
        return 1;
    qdb_load_all(q);
    struct tree_ctx t = {q, g_hash_table_new(g_int64_hash, g_int64_equal),
                         g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                               (GDestroyNotify)g_ptr_array_unref),
                         g_ptr_array_new(), g_string_new(NULL), json};
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        struct qdb_process *p = v;
        if (p->prev_image_id)
            g_hash_table_add(t.replaced, &p->prev_image_id);
        if (!p->parent_id || !g_hash_table_contains(q->processes, &p->parent_id)) {
            g_ptr_array_add(t.roots, p);
            continue;
        }
        GPtrArray *kids = g_hash_table_lookup(t.children, &p->parent_id);
        if (!kids) {
            kids = g_ptr_array_new();
            g_hash_table_insert(t.children, g_memdup2(&p->parent_id, sizeof p->parent_id), kids);
        }
        g_ptr_array_add(kids, p);
    }
    g_hash_table_iter_init(&it, t.children);
    while (g_hash_table_iter_next(&it, NULL, &v))
        g_ptr_array_sort(v, by_start);
    g_ptr_array_sort(t.roots, by_start);
    if (json) {
        query_json_begin(t.out, q, "processes");
        g_string_append_c(t.out, '[');
    }
    for (guint i = 0; i < t.roots->len; i++) {
        if (json && i)
            g_string_append_c(t.out, ',');
        emit(&t, t.roots->pdata[i]);
    }
    if (json)
        g_string_append(t.out, "]}\n");
    int status = query_emit(q, t.out);
    g_string_free(t.out, TRUE);
    g_ptr_array_free(t.roots, TRUE);
    g_hash_table_destroy(t.children);
    g_hash_table_destroy(t.replaced);
    qdb_close(q);
    return status;
}
