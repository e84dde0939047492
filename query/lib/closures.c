/* closures — each product's closure walked once (closures.h). */
#include "closures.h"

const struct prov_walk_opts closures_walk = {.scripts = true, .stop_at_shlibs = true};

struct closures {
    struct prov *p;
    GHashTable *of; /* version id (owned int64) -> GArray of struct prov_node */
};

struct closures *closures_new(struct prov *p)
{
    prov_load(p);
    struct closures *c = g_new0(struct closures, 1);
    c->p = p;
    c->of = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                  (GDestroyNotify)g_array_unref);
    return c;
}

void closures_free(struct closures *c)
{
    if (!c)
        return;
    g_hash_table_destroy(c->of);
    g_free(c);
}

const GArray *closures_of(struct closures *c, int64_t vid)
{
    GArray *nodes = g_hash_table_lookup(c->of, &vid);
    if (nodes)
        return nodes;
    nodes = prov_inputs(c->p, vid, &closures_walk);
    int64_t *key = g_new(int64_t, 1);
    *key = vid;
    g_hash_table_insert(c->of, key, nodes);
    return nodes;
}
