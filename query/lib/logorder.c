/* logorder — see logorder.h. */
#include "logorder.h"

#include "progkind.h"

#include <string.h>

bool log_is_driver(const char *program)
{
    return progkind_is_build_driver(program);
}

struct key_elem {
    int64_t bucket, time, tie;
};

struct keyed {
    struct log_chunk chunk;
    struct key_elem *key; /* n_key elements */
    int n_key;
};

static int compare_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    for (int i = 0; i < x->n_key && i < y->n_key; i++) {
        const struct key_elem *p = &x->key[i], *q = &y->key[i];
        if (p->bucket != q->bucket)
            return p->bucket < q->bucket ? -1 : 1;
        if (p->time != q->time)
            return p->time < q->time ? -1 : 1;
        if (p->tie != q->tie)
            return p->tie < q->tie ? -1 : 1;
    }
    return x->n_key < y->n_key ? -1 : x->n_key > y->n_key;
}

/* The jobs above process `id`, outermost first. */
static GArray *job_chain(GHashTable *procs, int64_t id)
{
    GArray *chain = g_array_new(FALSE, FALSE, sizeof(int64_t));
    const struct log_proc *x = g_hash_table_lookup(procs, &id);
    int guard = 0;
    while (x && guard++ < 100000) {
        const struct log_proc *parent = x->parent_id ? g_hash_table_lookup(procs, &x->parent_id)
                                                     : NULL;
        if (parent && parent->driver)
            g_array_prepend_val(chain, x->id);
        x = parent;
    }
    return chain;
}

void log_sort(struct log_chunk *chunks, size_t n, GHashTable *procs, int64_t ns_per_tick)
{
    if (n < 2)
        return;
    if (ns_per_tick <= 0)
        ns_per_tick = 1;
    GArray **chains = g_new0(GArray *, n);
    GHashTable *first_out = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    for (size_t i = 0; i < n; i++) {
        chains[i] = job_chain(procs, chunks[i].process_id);
        for (guint k = 0; k < chains[i]->len; k++) {
            int64_t job = g_array_index(chains[i], int64_t, k);
            int64_t *t = g_hash_table_lookup(first_out, &job);
            if (!t) {
                g_hash_table_insert(first_out, g_memdup2(&job, sizeof job),
                                    g_memdup2(&chunks[i].time_ns, sizeof(int64_t)));
            } else if (chunks[i].time_ns < *t) {
                *t = chunks[i].time_ns;
            }
        }
    }
    struct keyed *k = g_new0(struct keyed, n);
    for (size_t i = 0; i < n; i++) {
        GArray *c = chains[i];
        k[i].chunk = chunks[i];
        k[i].n_key = (int)c->len + 1;
        k[i].key = g_new0(struct key_elem, k[i].n_key);
        for (guint j = 0; j < c->len; j++) {
            int64_t job = g_array_index(c, int64_t, j);
            const struct log_proc *p = g_hash_table_lookup(procs, &job);
            const int64_t *first = g_hash_table_lookup(first_out, &job);
            k[i].key[j] = (struct key_elem){p->start_ns / ns_per_tick * ns_per_tick, *first, job};
        }
        int64_t t = chunks[i].time_ns;
        k[i].key[c->len] = (struct key_elem){t / ns_per_tick * ns_per_tick, t, chunks[i].seq};
        g_array_free(c, TRUE);
    }
    qsort(k, n, sizeof *k, compare_keyed);
    for (size_t i = 0; i < n; i++) {
        chunks[i] = k[i].chunk;
        g_free(k[i].key);
    }
    g_free(k);
    g_free(chains);
    g_hash_table_destroy(first_out);
}
