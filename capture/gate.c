/* gate — see gate.h. */
#include "gate.h"

#include "manifest.h"
#include "paths.h"

#include <errno.h>
#include <fnmatch.h>
#include <glib.h>
#include <string.h>

struct gate_tree {
    char *path;
    bool system;
    bool restricted; /* set by gate_seal */
};

struct gate {
    GPtrArray *entries;   /* struct manifest_entry* */
    GHashTable *exact;    /* non-glob file entries */
    GHashTable *subtrees; /* non-glob DIR/ entries */
    GHashTable *leading;  /* proper ancestors of non-glob entries, the start dir and its ancestors */
    GPtrArray *globs;     /* struct manifest_entry* (borrowed from entries) */
    GArray *trees;        /* struct gate_tree */
    bool sealed;
};

struct gate *gate_new(void)
{
    struct gate *g = g_new0(struct gate, 1);
    g->entries = g_ptr_array_new_with_free_func(manifest_entry_free);
    g->exact = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g->subtrees = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g->leading = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g->globs = g_ptr_array_new();
    g->trees = g_array_new(FALSE, TRUE, sizeof(struct gate_tree));
    return g;
}

void gate_free(struct gate *g)
{
    if (!g)
        return;
    for (guint i = 0; i < g->trees->len; i++)
        g_free(g_array_index(g->trees, struct gate_tree, i).path);
    g_array_free(g->trees, TRUE);
    g_ptr_array_free(g->globs, TRUE);
    g_hash_table_destroy(g->leading);
    g_hash_table_destroy(g->subtrees);
    g_hash_table_destroy(g->exact);
    g_ptr_array_free(g->entries, TRUE);
    g_free(g);
}

/* Every proper ancestor of absolute `path` ("/" included) into `leading`. */
static void add_ancestors(struct gate *g, const char *path)
{
    g_autofree char *p = g_strdup(path);
    for (char *slash = strrchr(p, '/'); slash; slash = strrchr(p, '/')) {
        *slash = '\0';
        g_hash_table_add(g->leading, g_strdup(slash == p ? "/" : p));
        if (slash == p)
            break;
    }
}

int gate_add_manifest(struct gate *g, const char *text, size_t len, const char *root,
                      char **err)
{
    guint first = g->entries->len;
    int r = manifest_parse(text, len, root, g->entries, err);
    if (r < 0)
        return r;
    for (guint i = first; i < g->entries->len; i++) {
        struct manifest_entry *e = g->entries->pdata[i];
        if (e->glob) {
            g_ptr_array_add(g->globs, e);
            add_ancestors(g, e->pattern); /* the directories of the literal name it also is */
        } else {
            gate_add_path(g, e->pattern, e->subtree);
        }
    }
    return 0;
}

const char *gate_entry_path(const struct gate *g, size_t i, bool *subtree)
{
    const struct manifest_entry *e = g->entries->pdata[i];
    *subtree = e->subtree;
    return e->glob ? NULL : e->pattern;
}

void gate_add_path(struct gate *g, const char *path, bool subtree)
{
    g_hash_table_add(subtree ? g->subtrees : g->exact, g_strdup(path));
    add_ancestors(g, path);
}

void gate_add_tree(struct gate *g, const char *path, bool system)
{
    struct gate_tree t = {g_strdup(path), system, false};
    g_array_append_val(g->trees, t);
}

void gate_add_visible_dir(struct gate *g, const char *dir)
{
    g_hash_table_add(g->leading, g_strdup(dir));
    add_ancestors(g, dir);
}

/* The part of a glob before its first glob character, cut back to a whole component. */
static char *literal_prefix(const char *pattern)
{
    size_t n = strcspn(pattern, "*?[");
    char *p = g_strndup(pattern, n);
    char *slash = strrchr(p, '/');
    if (slash && slash != p)
        *slash = '\0';
    else if (slash)
        slash[1] = '\0';
    return p;
}

bool gate_names_under(const struct gate *g, const char *dir)
{
    for (guint j = 0; j < g->entries->len; j++) {
        const struct manifest_entry *e = g->entries->pdata[j];
        g_autofree char *lit = e->glob ? literal_prefix(e->pattern) : g_strdup(e->pattern);
        /* An entry in it, or a glob that may reach into it. */
        if (path_is_under(lit, dir) || (e->glob && path_is_under(dir, lit)))
            return true;
    }
    return false;
}

void gate_seal(struct gate *g)
{
    for (guint i = 0; i < g->trees->len; i++) {
        struct gate_tree *t = &g_array_index(g->trees, struct gate_tree, i);
        t->restricted = !t->system || gate_names_under(g, t->path);
    }
    g->sealed = true;
}

size_t gate_n_entries(const struct gate *g)
{
    return g->entries->len;
}

static const struct gate_tree *tree_of(const struct gate *g, const char *path)
{
    const struct gate_tree *best = NULL;
    for (guint i = 0; i < g->trees->len; i++) {
        const struct gate_tree *t = &g_array_index(g->trees, struct gate_tree, i);
        if (path_is_under(path, t->path) && (!best || strlen(t->path) > strlen(best->path)))
            best = t;
    }
    return best;
}

bool gate_restricts(const struct gate *g, const char *path)
{
    const struct gate_tree *t = tree_of(g, path);
    return t && t->restricted;
}

static unsigned components(const char *path)
{
    unsigned n = 0;
    for (const char *p = path; *p; p++)
        if (*p == '/' && p[1])
            n++;
    return n;
}

/* Could directory `path` lead to what glob entry `e` matches: its first components match? */
static bool glob_leads(const struct manifest_entry *e, const char *path)
{
    unsigned want = components(path);
    if (!strcmp(path, "/"))
        return true;
    const char *p = e->pattern;
    unsigned seen = 0;
    for (p = e->pattern; *p; p++)
        if (*p == '/' && ++seen == want + 1)
            break;
    if (!*p)
        return false; /* the glob has no more components than the path: a match or nothing */
    g_autofree char *lead = g_strndup(e->pattern, (size_t)(p - e->pattern));
    return fnmatch(lead, path, FNM_PATHNAME) == 0;
}

enum gate_verdict gate_judge(const struct gate *g, const char *path, bool is_dir)
{
    const struct gate_tree *t = tree_of(g, path);
    if (!t || !t->restricted || !strcmp(path, t->path))
        return GATE_VISIBLE;
    if (g_hash_table_contains(g->exact, path))
        return GATE_VISIBLE;
    if (is_dir && g_hash_table_contains(g->leading, path))
        return GATE_VISIBLE;
    /* Under a DIR/ entry: the path or one of its ancestors. */
    if (g_hash_table_size(g->subtrees)) {
        g_autofree char *p = g_strdup(path);
        for (;;) {
            if (g_hash_table_contains(g->subtrees, p[0] ? p : "/"))
                return GATE_VISIBLE;
            char *slash = strrchr(p, '/');
            if (!slash || p[0] == '\0')
                break;
            *slash = '\0';
        }
    }
    for (guint i = 0; i < g->globs->len; i++) {
        const struct manifest_entry *e = g->globs->pdata[i];
        if (manifest_match(e, path) || (is_dir && glob_leads(e, path)))
            return GATE_VISIBLE;
    }
    return GATE_UNDECLARED;
}
