/* pkggate — see pkggate.h. */
#include "pkggate.h"

#include <glib.h>
#include <stdbool.h>
#include <string.h>

struct pkggate {
    GHashTable *hidden;   /* path (owned) -> package name (interned in `names`) */
    GHashTable *allowed;  /* path (owned); NULL once sealed */
    GHashTable *names;    /* package names (owned) */
    char *spared;         /* pkggate_spare's directory, /usr form, or NULL */
};

struct pkggate *pkggate_new(void)
{
    struct pkggate *g = g_new0(struct pkggate, 1);
    g->hidden = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g->allowed = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    return g;
}

void pkggate_free(struct pkggate *g)
{
    if (!g)
        return;
    g_hash_table_destroy(g->hidden);
    if (g->allowed)
        g_hash_table_destroy(g->allowed);
    g_hash_table_destroy(g->names);
    g_free(g->spared);
    g_free(g);
}

/* `path` in its /usr form when it lies under /bin, /sbin or /lib* (merged /usr), else a copy;
 * a trailing '/' dropped. */
static char *usr_form(const char *path)
{
    static const char *const merged[] = {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"};
    size_t l = strlen(path);
    while (l > 1 && path[l - 1] == '/')
        l--;
    for (size_t i = 0; i < G_N_ELEMENTS(merged); i++) {
        size_t m = strlen(merged[i]);
        if (!strncmp(path, merged[i], m) && (l == m || path[m] == '/'))
            return g_strdup_printf("/usr%.*s", (int)l, path);
    }
    return g_strndup(path, l);
}

void pkggate_add_denied(struct pkggate *g, const char *path, const char *package)
{
    char *p = usr_form(path);
    if (g_hash_table_contains(g->hidden, p)) {
        g_free(p);
        return;
    }
    const char *name = g_hash_table_lookup(g->names, package);
    if (!name) {
        char *n = g_strdup(package);
        g_hash_table_insert(g->names, n, n);
        name = n;
    }
    g_hash_table_insert(g->hidden, p, (gpointer)name);
}

void pkggate_add_allowed(struct pkggate *g, const char *path)
{
    g_hash_table_add(g->allowed, usr_form(path));
}

void pkggate_spare(struct pkggate *g, const char *dir)
{
    g_free(g->spared);
    g->spared = usr_form(dir);
    /* The directory and each one above it. */
    g_autofree char *p = g_strdup(g->spared);
    for (char *slash; *p; *slash = '\0') {
        g_hash_table_remove(g->hidden, p);
        if (!(slash = strrchr(p, '/')))
            break;
    }
}

void pkggate_seal(struct pkggate *g)
{
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, g->allowed);
    while (g_hash_table_iter_next(&it, &key, NULL))
        g_hash_table_remove(g->hidden, key);
    g_hash_table_destroy(g->allowed);
    g->allowed = NULL;
}

size_t pkggate_n_hidden(const struct pkggate *g)
{
    return g_hash_table_size(g->hidden);
}

/* Does `p` (its /usr form) lie under the spared directory? */
static bool spared(const struct pkggate *g, const char *p)
{
    if (!g->spared)
        return false;
    size_t n = strlen(g->spared);
    return !strncmp(p, g->spared, n) && (p[n] == '/' || (n == 1 && p[0] == '/'));
}

size_t pkggate_n_spared(const struct pkggate *g)
{
    size_t n = 0;
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, g->hidden);
    while (g_hash_table_iter_next(&it, &key, NULL))
        n += spared(g, key);
    return n;
}

const char *pkggate_judge(const struct pkggate *g, const char *path)
{
    g_autofree char *p = usr_form(path);
    return spared(g, p) ? NULL : g_hash_table_lookup(g->hidden, p);
}
