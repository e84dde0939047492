/* tree: the build's process tree with argv, or the subtree of one process (tree ID), to a
 * depth (--depth N); in text, a run of alike siblings is one line ("×N"). */
#include "driver.h"
#include "query.h"
#include "textout.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
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
    int max_depth; /* --depth: levels below the top that are shown; -1: all */
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

static void indent(GString *out, int depth)
{
    for (int i = 0; i < MIN(depth, TREE_INDENT_MAX); i++)
        g_string_append(out, "  ");
    if (depth > TREE_INDENT_MAX)
        g_string_append_printf(out, "(level %d) ", depth);
}

/* Whether p's line carries "(exec of [N])": it replaced an image that was not a mere fork. */
static bool exec_noted(struct qdb *q, const struct qdb_process *p)
{
    return p->prev_image_id && !is_fork_copy(q, qdb_process(q, p->prev_image_id));
}

/* One line; `times` > 1: it stands for that many alike siblings, the last of them `last`. */
static void emit_line(struct tree_ctx *t, const struct qdb_process *p, int depth, guint times,
                      const struct qdb_process *last)
{
    indent(t->out, depth);
    query_text_process(t->out, p);
    if (exec_noted(t->q, p))
        g_string_append_printf(t->out, "  (exec of [%" G_GINT64_FORMAT "])", p->prev_image_id);
    if (p->orphan)
        g_string_append(t->out, "  (orphan: parent unknown)");
    query_text_exit(t->out, p);
    if (times > 1)
        g_string_append_printf(t->out, "  \u00d7%u (alike, to [%" G_GINT64_FORMAT "])", times,
                               last->id);
    g_string_append_c(t->out, '\n');
}

/* Whether text output leaves out child k: a childless image that exec'd into another is
 * shown by its successor's "(exec of [N])" (the fork-then-exec pattern is one line). */
static bool folded(const struct tree_ctx *t, const struct qdb_process *k)
{
    return !t->json && g_hash_table_contains(t->replaced, &k->id) &&
           !g_hash_table_contains(t->children, &k->id);
}

/* The children of p the text shows, in order (a new array; free it). */
static GPtrArray *shown_kids(const struct tree_ctx *t, const struct qdb_process *p)
{
    GPtrArray *kids = g_hash_table_lookup(t->children, &p->id), *out = g_ptr_array_new();
    for (guint i = 0; kids && i < kids->len; i++)
        if (!folded(t, kids->pdata[i]))
            g_ptr_array_add(out, kids->pdata[i]);
    return out;
}

/* The same line but for its id: argv, program, exit, the exec note, orphan. */
static bool same_line(struct qdb *q, const struct qdb_process *a, const struct qdb_process *b)
{
    return a->argv_len == b->argv_len && (!a->argv) == (!b->argv) &&
           (!a->argv || !a->argv_len || !memcmp(a->argv, b->argv, a->argv_len)) &&
           !g_strcmp0(a->exe, b->exe) && a->exited == b->exited &&
           a->exit_code == b->exit_code && a->exit_signal == b->exit_signal &&
           a->killed_at_end == b->killed_at_end && a->orphan == b->orphan &&
           exec_noted(q, a) == exec_noted(q, b);
}

/* An order of siblings that does not depend on which started first (a pipe's two sides
 * start in either order): by argv, then program. */
static gint by_line(gconstpointer a, gconstpointer b)
{
    const struct qdb_process *x = *(const struct qdb_process *const *)a;
    const struct qdb_process *y = *(const struct qdb_process *const *)b;
    size_t n = MIN(x->argv_len, y->argv_len);
    int c = n && x->argv && y->argv ? memcmp(x->argv, y->argv, n) : 0;
    if (c)
        return c;
    if (x->argv_len != y->argv_len)
        return x->argv_len < y->argv_len ? -1 : 1;
    return g_strcmp0(x->exe, y->exe);
}

/* Whether a and b and everything the text shows under them are alike, line for line, the
 * children of each taken in by_line order (a work list, not recursion: the subtrees may be
 * as deep as the trace). */
static bool alike(const struct tree_ctx *t, const struct qdb_process *a,
                  const struct qdb_process *b)
{
    GPtrArray *todo = g_ptr_array_new();
    g_ptr_array_add(todo, (gpointer)a);
    g_ptr_array_add(todo, (gpointer)b);
    bool same = true;
    while (same && todo->len) {
        const struct qdb_process *y = g_ptr_array_steal_index_fast(todo, todo->len - 1);
        const struct qdb_process *x = g_ptr_array_steal_index_fast(todo, todo->len - 1);
        if (!same_line(t->q, x, y)) {
            same = false;
            break;
        }
        GPtrArray *kx = shown_kids(t, x), *ky = shown_kids(t, y);
        same = kx->len == ky->len;
        g_ptr_array_sort(kx, by_line);
        g_ptr_array_sort(ky, by_line);
        for (guint i = 0; same && i < kx->len; i++) {
            g_ptr_array_add(todo, kx->pdata[i]);
            g_ptr_array_add(todo, ky->pdata[i]);
        }
        g_ptr_array_free(kx, TRUE);
        g_ptr_array_free(ky, TRUE);
    }
    g_ptr_array_free(todo, TRUE);
    return same;
}

/* How many processes the text would show under p. */
static guint64 count_below(const struct tree_ctx *t, const struct qdb_process *p)
{
    guint64 n = 0;
    GPtrArray *todo = g_ptr_array_new();
    g_ptr_array_add(todo, (gpointer)p);
    while (todo->len) {
        const struct qdb_process *x = g_ptr_array_steal_index_fast(todo, todo->len - 1);
        GPtrArray *k = shown_kids(t, x);
        n += k->len;
        for (guint i = 0; i < k->len; i++)
            g_ptr_array_add(todo, k->pdata[i]);
        g_ptr_array_free(k, TRUE);
    }
    g_ptr_array_free(todo, TRUE);
    return n;
}

/* The processes in `top` and everything under them, depth first, with a stack of its own (a
 * chain of processes as deep as a trace may hold must not exhaust the C stack).  The bottom
 * frame holds the top-level processes; a frame's depth is its place above it. */
struct frame {
    const struct qdb_process *p; /* NULL in the bottom frame */
    GPtrArray *kids;             /* what is printed under p, in order */
    guint next;
};

static void emit(struct tree_ctx *t, GPtrArray *top)
{
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(struct frame));
    struct frame bottom = {NULL, g_ptr_array_new(), 0};
    g_ptr_array_extend(bottom.kids, top, NULL, NULL);
    g_array_append_val(stack, bottom);
    for (;;) {
        struct frame *f = &g_array_index(stack, struct frame, stack->len - 1);
        if (f->next < f->kids->len) {
            const struct qdb_process *p = f->kids->pdata[f->next++];
            int depth = (int)stack->len - 1;
            guint times = 1;
            const struct qdb_process *last = p;
            if (!t->json) /* a run of alike siblings is one line */
                while (f->next < f->kids->len && alike(t, p, f->kids->pdata[f->next])) {
                    last = f->kids->pdata[f->next++];
                    times++;
                }
            bool cut = t->max_depth >= 0 && depth >= t->max_depth;
            struct frame k = {p, cut ? g_ptr_array_new() : NULL, 0};
            if (t->json) {
                if (f->next > 1)
                    g_string_append_c(t->out, ',');
                g_string_append(t->out, "{\"process\":");
                query_json_process(t->out, p);
                GPtrArray *all = g_hash_table_lookup(t->children, &p->id);
                if (cut && all && all->len) {
                    guint64 below = count_below(t, p);
                    g_string_append_printf(t->out, ",\"children_omitted\":%" G_GUINT64_FORMAT,
                                           below);
                }
                g_string_append(t->out, ",\"children\":[");
                if (!cut)
                    k.kids = all ? g_ptr_array_ref(all) : g_ptr_array_new();
            } else {
                emit_line(t, p, depth, times, last);
                if (!cut) {
                    k.kids = shown_kids(t, p);
                } else {
                    guint64 below = count_below(t, p);
                    if (below) {
                        indent(t->out, depth + 1);
                        g_string_append_printf(t->out, "\u2026 %" G_GUINT64_FORMAT " more "
                                               "process%s below (buildtrail tree %" G_GINT64_FORMAT
                                               ")\n", below, below == 1 ? "" : "es", p->id);
                    }
                }
            }
            g_array_append_val(stack, k);
            continue;
        }
        if (t->json && f->p) /* leave it */
            g_string_append(t->out, "]}");
        g_ptr_array_unref(f->kids);
        g_array_set_size(stack, stack->len - 1);
        if (!stack->len)
            break;
    }
    g_array_free(stack, TRUE);
}

struct tree_cli {
    int max_depth; /* -1: all */
};

static int tree_option(void *ctx, int c, const char *arg)
{
    struct tree_cli *o = ctx;
    if (c != 'D')
        return 2;
    char *end;
    errno = 0;
    long v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < 0 || v > INT_MAX) {
        fprintf(stderr, "buildtrail tree: --depth %s: give a number of levels, 0 or more (0: "
                        "the processes alone)\n", arg);
        return 2;
    }
    o->max_depth = (int)v;
    return 0;
}

static const struct option tree_options[] = {{"depth", required_argument, NULL, 'D'}, {0}};

static const struct query_command tree_command = {
    .name = "tree",
    .flags = QUERY_CUT_ARGV,
    .operands = "[ID]",
    .max_operands = 1,
    .about = "Show the build's processes as a tree, each as [ID] followed by its argv, as a\n"
             "shell reads it (paste it to run the same command).  With ID, only process ID\n"
             "and what it started (and what it exec'd into).  An image that replaced another\n"
             "by exec says so; a run of alike siblings (the same argv, program and exit, and\n"
             "alike below) is one line ending in \"\u00d7N\"; IDs are what other commands\n"
             "(log --process, show) take.  --json nests {process, children}, every process.\n",
    .options_help = "      --depth N         show N levels below the top (0: the top alone); a\n"
                    "                        process with more below says how many\n",
    .options = tree_options,
    .option = tree_option,
};

int query_tree_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct tree_cli cli = {-1};
    int r = query_parse(&tree_command, argc, argv, &o, &cli);
    if (r >= 0)
        return r;
    int64_t only = 0;
    if (optind < argc && !query_parse_id("tree", NULL, argv[optind], &only))
        return 2;
    bool json = o.json;
    struct qdb *q = query_open("tree", o.db_path);
    if (!q)
        return 1;
    qdb_load_all(q);
    struct tree_ctx t = {q, g_hash_table_new(g_int64_hash, g_int64_equal),
                         g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                               (GDestroyNotify)g_ptr_array_unref),
                         g_ptr_array_new(), g_string_new(NULL), json, cli.max_depth};
    GHashTable *next_image = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, q->processes);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        struct qdb_process *p = v;
        if (p->prev_image_id) {
            g_hash_table_add(t.replaced, &p->prev_image_id);
            g_hash_table_insert(next_image, &p->prev_image_id, p);
        }
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
    int status = 0;
    if (only) {
        /* ID, then the images it exec'd into (the same process): each with what it started. */
        g_ptr_array_set_size(t.roots, 0);
        const struct qdb_process *p = qdb_process(q, only);
        if (!p && !query_failed(q))
            fprintf(stderr, "buildtrail tree: no process %" G_GINT64_FORMAT " in this trace; "
                            "run 'buildtrail tree' for the ids\n", only);
        for (guint guard = 0; p && guard <= g_hash_table_size(q->processes); guard++) {
            g_ptr_array_add(t.roots, (gpointer)p);
            p = g_hash_table_lookup(next_image, &p->id);
        }
        if (!t.roots->len)
            status = 1;
    }
    if (!status) {
        if (json) {
            query_json_begin(t.out, q, "processes");
            g_string_append_c(t.out, '[');
        }
        emit(&t, t.roots);
        if (json)
            g_string_append(t.out, "]}\n");
        status = query_emit(q, t.out);
    }
    g_string_free(t.out, TRUE);
    g_ptr_array_free(t.roots, TRUE);
    g_hash_table_destroy(next_image);
    g_hash_table_destroy(t.children);
    g_hash_table_destroy(t.replaced);
    qdb_close(q);
    return status;
}
