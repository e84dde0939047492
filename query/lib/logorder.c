/* logorder — see logorder.h. */
#include "logorder.h"

#include "progkind.h"

#include <string.h>

bool log_is_driver(const char *program)
{
    return progkind_is_build_driver(program);
}

char *log_job_command(const char *argv, size_t len)
{
    GPtrArray *words = g_ptr_array_new();
    for (size_t i = 0; i < len;) {
        const char *w = argv + i;
        size_t l = strnlen(w, len - i);
        g_ptr_array_add(words, (gpointer)w);
        i += l + 1;
    }
    char *cmd = NULL;
    if (words->len == 3 && !strcmp(words->pdata[1], "-c")) {
        const char *sh = strrchr(words->pdata[0], '/');
        sh = sh ? sh + 1 : words->pdata[0];
        if (!strcmp(sh, "sh") || !strcmp(sh, "bash") || !strcmp(sh, "dash"))
            cmd = g_strndup(words->pdata[2], len - (size_t)((const char *)words->pdata[2] - argv));
    }
    if (!cmd) {
        GString *s = g_string_new(NULL);
        for (guint i = 0; i < words->len; i++) {
            if (i)
                g_string_append_c(s, ' ');
            g_string_append(s, words->pdata[i]);
        }
        cmd = g_string_free(s, FALSE);
    }
    g_ptr_array_free(words, TRUE);
    return cmd;
}

bool log_in_job(GHashTable *procs, int64_t id, int64_t job)
{
    const struct log_proc *x = g_hash_table_lookup(procs, &id);
    for (int guard = 0; x && guard < 100000; guard++) {
        if (x->id == job)
            return true;
        x = x->parent_id ? g_hash_table_lookup(procs, &x->parent_id) : NULL;
    }
    return false;
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

gint log_proc_by_start(gconstpointer a, gconstpointer b)
{
    const struct log_proc *x = *(const struct log_proc *const *)a;
    const struct log_proc *y = *(const struct log_proc *const *)b;
    return x->start_ns != y->start_ns ? (x->start_ns < y->start_ns ? -1 : 1)
                                      : (x->id < y->id ? -1 : x->id > y->id);
}

/* File each driver's echo of a recipe under the job it starts (see the header). */
static void attach_echoes(struct log_chunk *chunks, size_t n, GHashTable *procs,
                          int64_t ns_per_tick)
{
    /* "DRIVER-ID\nCOMMAND" -> the driver's jobs running COMMAND, by start; and a cursor */
    GHashTable *jobs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                             (GDestroyNotify)g_ptr_array_unref);
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, procs);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct log_proc *p = v;
        const struct log_proc *parent =
            p->parent_id ? g_hash_table_lookup(procs, &p->parent_id) : NULL;
        if (!parent || !parent->driver || !p->command || !*p->command)
            continue;
        char *key = g_strdup_printf("%" G_GINT64_FORMAT "\n%s", parent->id, p->command);
        GPtrArray *list = g_hash_table_lookup(jobs, key);
        if (!list) {
            list = g_ptr_array_new();
            g_hash_table_insert(jobs, key, list);
        } else {
            g_free(key);
        }
        g_ptr_array_add(list, (gpointer)p);
    }
    g_hash_table_iter_init(&it, jobs);
    while (g_hash_table_iter_next(&it, NULL, &v))
        g_ptr_array_sort(v, log_proc_by_start);
    GHashTable *claimed = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (size_t i = 0; i < n; i++) {
        const struct log_proc *w = g_hash_table_lookup(procs, &chunks[i].process_id);
        size_t len = chunks[i].len;
        if (!w || !w->driver || !len || chunks[i].data[len - 1] != '\n' ||
            memchr(chunks[i].data, '\0', len))
            continue;
        g_autofree char *key = g_strdup_printf("%" G_GINT64_FORMAT "\n%.*s", w->id,
                                               (int)(len - 1), chunks[i].data);
        GPtrArray *list = g_hash_table_lookup(jobs, key);
        for (guint k = 0; list && k < list->len; k++) {
            const struct log_proc *job = list->pdata[k];
            if (job->start_ns + ns_per_tick <= chunks[i].time_ns ||
                g_hash_table_contains(claimed, &job->id))
                continue; /* started before this echo, or echoed already */
            g_hash_table_add(claimed, (gpointer)&job->id);
            chunks[i].filed_under = job->id;
            break;
        }
    }
    g_hash_table_destroy(claimed);
    g_hash_table_destroy(jobs);
}

void log_sort(struct log_chunk *chunks, size_t n, GHashTable *procs, int64_t ns_per_tick)
{
    if (ns_per_tick <= 0)
        ns_per_tick = 1;
    for (size_t i = 0; i < n; i++)
        chunks[i].filed_under = chunks[i].process_id;
    if (n < 2)
        return;
    attach_echoes(chunks, n, procs, ns_per_tick);
    GArray **chains = g_new0(GArray *, n);
    GHashTable *first_out = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    for (size_t i = 0; i < n; i++) {
        chains[i] = job_chain(procs, chunks[i].filed_under);
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
