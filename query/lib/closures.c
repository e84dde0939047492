/* closures — each product's closure walked once (closures.h). */
#include "closures.h"

#include <stdlib.h>

const struct prov_walk_opts closures_walk = {.scripts = true, .stop_at_shlibs = true};

struct closures {
    struct prov *p;
    GHashTable *of;   /* version id (owned int64) -> GArray of struct prov_node */
    GHashTable *plan; /* version ids (owned int64) to walk, in id order, on the first ask of one */
};

struct closures *closures_new(struct prov *p)
{
    prov_load(p);
    prov_share_closures(p, &closures_walk);
    struct closures *c = g_new0(struct closures, 1);
    c->p = p;
    c->of = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                  (GDestroyNotify)g_array_unref);
    c->plan = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    return c;
}

void closures_free(struct closures *c)
{
    if (!c)
        return;
    g_hash_table_destroy(c->of);
    g_hash_table_destroy(c->plan);
    g_free(c);
}

void closures_plan(struct closures *c, const int64_t *ids, guint n)
{
    for (guint i = 0; i < n; i++)
        if (!g_hash_table_contains(c->of, &ids[i]))
            g_hash_table_add(c->plan, g_memdup2(&ids[i], sizeof ids[i]));
}

static void walk_one(struct closures *c, int64_t vid)
{
    GArray *nodes = prov_inputs(c->p, vid, &closures_walk);
    g_hash_table_insert(c->of, g_memdup2(&vid, sizeof vid), nodes);
}

static int id_cmp(const void *a, const void *b)
{
    int64_t x = **(const int64_t *const *)a, y = **(const int64_t *const *)b;
    return (x > y) - (x < y);
}

/* Walk every planned version, in id order. */
static void walk_plan(struct closures *c)
{
    guint n = 0;
    gpointer *ids = g_hash_table_get_keys_as_array(c->plan, &n);
    qsort(ids, n, sizeof *ids, id_cmp);
    for (guint i = 0; i < n; i++)
        if (!g_hash_table_contains(c->of, ids[i]))
            walk_one(c, *(int64_t *)ids[i]);
    g_free(ids);
    g_hash_table_remove_all(c->plan);
}

const GArray *closures_of(struct closures *c, int64_t vid)
{
    if (g_hash_table_contains(c->plan, &vid))
        walk_plan(c);
    GArray *nodes = g_hash_table_lookup(c->of, &vid);
    if (!nodes) {
        walk_one(c, vid);
        nodes = g_hash_table_lookup(c->of, &vid);
    }
    return nodes;
}
