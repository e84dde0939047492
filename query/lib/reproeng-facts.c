/* reproeng-facts — what a cause's processes did, read from the two traces, for the hints
 * (reproeng.h: the scope, and what is not detected). */
#include "reproeng.h"

#include "stmt.h"
#include "tracedb.h"

#include <errno.h>
#include <string.h>

TRACEDB_STATEMENT(sql_subtree, 1, TRACEDB_SCHEMA_VERSION,
                  "WITH RECURSIVE sub(id) AS (SELECT ?1 UNION SELECT p.id FROM processes p "
                  "JOIN sub ON p.parent_id = sub.id OR p.prev_image_id = sub.id) "
                  "SELECT id FROM sub LIMIT 20000");
TRACEDB_STATEMENT(sql_children, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT id FROM processes WHERE parent_id = ?1 ORDER BY id");
TRACEDB_STATEMENT(sql_scope_access, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT DISTINCT a.kind, f.path FROM accesses a JOIN files f ON f.id = a.file_id "
                  "WHERE a.process_id = ?1 AND (a.kind IN " TRACEDB_KINDS_READ
                  " OR a.kind IN " TRACEDB_KINDS_LISTED ") ORDER BY f.path");
enum { SA_KIND, SA_PATH };
TRACEDB_STATEMENT(sql_variations, 9, TRACEDB_SCHEMA_VERSION,
                  "SELECT name, applied, why_not FROM variations WHERE side = 'experiment' "
                  "ORDER BY rowid");
enum { VA_NAME, VA_APPLIED, VA_WHY_NOT };

int reproeng_variations_made(struct qdb *q, uint32_t asked, uint32_t *made, GPtrArray *why)
{
    *made = 0;
    uint32_t said = 0;
    sqlite3_stmt *st = NULL;
    if (q->schema_version >= 9) {
        if (!qdb_prepare(q, sql_variations, &st))
            return -EIO;
        while (qdb_row(q, st)) {
            const char *name = (const char *)sqlite3_column_text(st, VA_NAME);
            const char *why_not = (const char *)sqlite3_column_text(st, VA_WHY_NOT);
            int v = name ? reproeng_variation_of(name, strlen(name)) : -1;
            if (v < 0 || !(asked & RV_BIT(v)))
                continue;
            said |= RV_BIT(v);
            if (sqlite3_column_int(st, VA_APPLIED))
                *made |= RV_BIT(v);
            if (why_not)
                g_ptr_array_add(why, g_strdup_printf("%s: %s%s", name,
                                                     sqlite3_column_int(st, VA_APPLIED)
                                                         ? "partly: " : "", why_not));
        }
        sqlite3_finalize(st);
        if (qdb_failed(q))
            return -EIO;
    }
    for (int v = 0; v < RV_COUNT; v++)
        if ((asked & ~said & RV_BIT(v)) && v != RV_BUILD_PATH)
            g_ptr_array_add(why, g_strdup_printf("%s: the experiment's trace does not say it "
                                                 "was made", reproeng_variation_name(v)));
    return 0;
}

/* Variables that change from run to run whatever is varied (fakeroot's key) or say how a
 * driver runs: never a hint. */
static bool env_noise(const char *name)
{
    static const char *const noise[] = {"FAKEROOTKEY", "FAKED_MODE", "MAKEFLAGS", "MFLAGS",
                                        "MAKELEVEL", "_", "SHLVL", "OLDPWD", "TERM",
                                        "MAKE_TERMOUT", "MAKE_TERMERR", NULL};
    for (const char *const *n = noise; *n; n++)
        if (!strcmp(*n, name))
            return true;
    return false;
}

static bool is_shell(const struct qdb_process *p)
{
    static const char *const shells[] = {"sh", "dash", "bash", "zsh", "ksh", "mksh", "busybox",
                                         NULL};
    const char *prog = qdb_process_program(p);
    for (const char *const *s = shells; *s; s++)
        if (prog && !strcmp(prog, *s))
            return true;
    return false;
}

static bool overlaps(const struct qdb_process *a, const struct qdb_process *b)
{
    return (!a->end_ns || b->start_ns <= a->end_ns) && (!b->end_ns || b->end_ns >= a->start_ns);
}

static void add_subtree(struct qdb *q, int64_t id, GHashTable *scope)
{
    GArray *ids = qdb_ids(q, sql_subtree, id);
    for (guint i = 0; i < ids->len; i++)
        g_hash_table_add(scope, GINT_TO_POINTER((gint)g_array_index(ids, int64_t, i)));
    g_array_unref(ids);
}

/* Programs that run another and pass its output on: the scope climbs through them. */
static bool is_wrapper(const struct qdb_process *p)
{
    static const char *const wrappers[] = {"xargs", "env", "nice", "ionice", "timeout", "stdbuf",
                                           "time", "fakeroot", "faked", "chronic", NULL};
    const char *prog = qdb_process_program(p);
    for (const char *const *w = wrappers; *w; w++)
        if (prog && !strcmp(prog, *w))
            return true;
    return false;
}

/* The children of `parent` that ran while `a` did (a pipeline's other ends, `$(...)`), with
 * what they started. */
static void add_beside(struct qdb *q, const struct qdb_process *parent,
                       const struct qdb_process *a, GHashTable *scope)
{
    GArray *kids = qdb_ids(q, sql_children, parent->id);
    for (guint i = 0; i < kids->len; i++) {
        const struct qdb_process *s = qdb_process(q, g_array_index(kids, int64_t, i));
        if (s && s->id != a->id && overlaps(a, s))
            add_subtree(q, s->id, scope);
    }
    g_array_unref(kids);
}

/* The cause's process, what it started, and the processes running beside it in the same
 * command: climbing through wrappers (xargs, env...) up to a shell, whose other children
 * that ran meanwhile are the pipeline; never past make or the build's root. */
static GHashTable *scope_of(struct qdb *q, int64_t id)
{
    GHashTable *scope = g_hash_table_new(g_direct_hash, g_direct_equal);
    add_subtree(q, id, scope);
    int64_t root = qdb_run(q)->root_id;
    const struct qdb_process *a = qdb_process(q, id);
    for (int level = 0; a && level < 3 && a->id != root; level++) {
        const struct qdb_process *parent = a->parent_id ? qdb_process(q, a->parent_id) : NULL;
        if (!parent || !(is_shell(parent) || is_wrapper(parent)))
            break;
        add_beside(q, parent, a, scope);
        if (is_shell(parent))
            break;
        a = parent;
    }
    return scope;
}

/* "prog arg ..." of a process. */
static char *command_of(const struct qdb_process *p)
{
    GString *s = g_string_new(qdb_process_program(p) ? qdb_process_program(p) : "?");
    if (p->argv)
        for (size_t at = strlen(p->argv) + 1; at < p->argv_len; at += strlen(p->argv + at) + 1)
            g_string_append_printf(s, " %s", p->argv + at);
    return g_string_free(s, FALSE);
}

/* A listing by `ls` without -f/-U, or by a shell (its glob), comes out sorted. */
static bool lists_sorted(const char *cmd)
{
    if (!strncmp(cmd, "ls", 2) && (!cmd[2] || cmd[2] == ' ')) {
        g_auto(GStrv) w = g_strsplit(cmd, " ", -1);
        for (int i = 1; w[i]; i++)
            if ((w[i][0] == '-' && w[i][1] != '-' && strpbrk(w[i], "fU")) ||
                !strcmp(w[i], "--sort=none"))
                return false;
        return true;
    }
    static const char *const shells[] = {"sh", "dash", "bash", "zsh", "ksh", "mksh", NULL};
    size_t len = strcspn(cmd, " ");
    for (const char *const *s = shells; *s; s++)
        if (strlen(*s) == len && !memcmp(cmd, *s, len))
            return true;
    return false;
}

static gint by_id(gconstpointer a, gconstpointer b)
{
    return GPOINTER_TO_INT(a) < GPOINTER_TO_INT(b) ? -1 : GPOINTER_TO_INT(a) > GPOINTER_TO_INT(b);
}

/* What the processes of `scope` ran, listed and read (under `home`, not under `skip`). */
static void scope_facts(struct qdb *q, GHashTable *scope, const char *home, const char *skip,
                        struct reproeng_facts *f)
{
    GList *ids = g_list_sort(g_hash_table_get_keys(scope), by_id);
    size_t hl = home ? strlen(home) : 0, sl = strlen(skip);
    for (GList *l = ids; l; l = l->next) {
        const struct qdb_process *p = qdb_process(q, GPOINTER_TO_INT(l->data));
        if (!p)
            continue;
        char *cmd = command_of(p);
        g_ptr_array_add(f->commands, cmd);
        sqlite3_stmt *st = NULL;
        if (!qdb_prepare(q, sql_scope_access, &st) || !qdb_bind_int64(q, st, 1, p->id)) {
            sqlite3_finalize(st);
            break;
        }
        while (qdb_row(q, st)) {
            const char *path = (const char *)sqlite3_column_text(st, SA_PATH);
            if (sqlite3_column_int(st, SA_KIND) == TRACEDB_READDIR) {
                if (strstr(cmd, " --sort=name"))
                    ; /* tar --sort=name: in no order the variations change */
                else if (lists_sorted(cmd))
                    f->listed_sorted = true;
                else
                    f->listed_unsorted = true;
            } else if (home && hl > 1 && path && !strncmp(path, home, hl) && path[hl] == '/' &&
                       (strncmp(path, skip, sl) || path[sl] != '/'))
                f->read_home = true;
        }
        sqlite3_finalize(st);
    }
    g_list_free(ids);
}

/* NAME -> VALUE of a process's environment (NULL when not recorded). */
static GHashTable *env_of(struct qdb *q, int64_t id)
{
    g_autoptr(GBytes) env = id ? qdb_process_env(q, id) : NULL;
    if (!env)
        return NULL;
    GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    gsize len = 0;
    const char *p = g_bytes_get_data(env, &len);
    for (gsize at = 0; at < len;) {
        const char *e = p + at;
        gsize el = strnlen(e, len - at);
        at += el + 1;
        const char *eq = memchr(e, '=', el);
        if (eq && eq > e)
            g_hash_table_insert(t, g_strndup(e, (gsize)(eq - e)),
                                g_strndup(eq + 1, el - (gsize)(eq - e) - 1));
    }
    return t;
}

/* The variables whose values differ (A's build directory read as B's). */
static void env_facts(struct qdb *qa, struct qdb *qb, const struct diffeng_model *m,
                      const struct diffeng_cause *c, uint32_t varied, struct reproeng_facts *f)
{
    GHashTable *a = env_of(qa, c->proc[0]), *b = env_of(qb, c->proc[1]);
    if (a && b) {
        GHashTable *names = g_hash_table_new(g_str_hash, g_str_equal);
        GHashTableIter it;
        gpointer k;
        GHashTable *sides[] = {a, b};
        for (int s = 0; s < 2; s++) {
            g_hash_table_iter_init(&it, sides[s]);
            while (g_hash_table_iter_next(&it, &k, NULL))
                g_hash_table_add(names, k);
        }
        GList *sorted = g_list_sort(g_hash_table_get_keys(names), (GCompareFunc)strcmp);
        for (GList *l = sorted; l; l = l->next) {
            const char *va = g_hash_table_lookup(a, l->data), *vb = g_hash_table_lookup(b, l->data);
            if (env_noise(l->data) || reproeng_env_expected(varied, l->data) ||
                (va && vb && !strcmp(va, vb)))
                continue;
            if (va && vb) {
                g_auto(GStrv) parts = g_strsplit(va, m->root[0], -1);
                g_autofree char *mapped = g_strjoinv(m->root[1], parts);
                if (!strcmp(mapped, vb))
                    continue; /* only the build path */
            }
            g_ptr_array_add(f->env_names, g_strdup(l->data));
        }
        g_list_free(sorted);
        g_hash_table_unref(names);
    }
    if (a)
        g_hash_table_unref(a);
    if (b)
        g_hash_table_unref(b);
}

void reproeng_cause_facts(struct qdb *qa, struct qdb *qb, const struct diffeng_model *m,
                          const struct diffeng_cause *c, uint32_t varied,
                          struct reproeng_facts *f)
{
    reproeng_facts_init(f, c->kind);
    env_facts(qa, qb, m, c, varied, f);
    int side = c->proc[1] ? 1 : 0;
    struct qdb *q = side ? qb : qa;
    if (!c->proc[side])
        return;
    qdb_load_all(q);
    GHashTable *env = env_of(q, c->proc[side]);
    const char *home = env ? g_hash_table_lookup(env, "HOME") : NULL;
    g_autofree char *up = g_path_get_dirname(m->root[side]);
    g_autofree char *out = g_path_get_dirname(up); /* repro's directory: its copies */
    GHashTable *scope = scope_of(q, c->proc[side]);
    scope_facts(q, scope, home, out, f);
    g_hash_table_unref(scope);
    if (env)
        g_hash_table_unref(env);
}
