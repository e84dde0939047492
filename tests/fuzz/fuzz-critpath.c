/* libFuzzer target: the critical path and parallelism (critpath.h) of any process tree a
 * crafted trace can describe — cycles of parents, unknown parents, ends before starts,
 * dependencies on unknown tasks or on themselves, zero-length tasks — and the -j parser of a
 * driver's argv (buildtime_jobs_in_argv, given its bytes with one NUL past them, as qdb
 * gives argv).  Every walk must end; steps are in time order and within the root's span.
 * Input: records of 10 bytes: kind (even: task, odd: dependency), two ids (mod 64), and
 * times; the whole input is also the argv. */
#include "buildtime.h"
#include "critpath.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int64_t word(const uint8_t *p)
{
    return (int64_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16) * 1000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GArray *tasks = g_array_new(FALSE, FALSE, sizeof(struct cp_task));
    GArray *deps = g_array_new(FALSE, FALSE, sizeof(struct cp_dep));
    GHashTable *ids = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (size_t i = 0; i + 10 <= size; i += 10) {
        const uint8_t *r = data + i;
        if (r[0] % 2 == 0) {
            struct cp_task t = {r[1] % 64 + 1, r[2] % 65, word(r + 3), word(r + 6)};
            if (g_hash_table_contains(ids, &t.id))
                continue; /* ids are unique in a trace */
            g_array_append_val(tasks, t);
            g_hash_table_add(ids, &g_array_index(tasks, struct cp_task, tasks->len - 1).id);
            g_hash_table_remove_all(ids); /* (the array may move: rebuilt below) */
            for (guint k = 0; k < tasks->len; k++)
                g_hash_table_add(ids, &g_array_index(tasks, struct cp_task, k).id);
        } else {
            struct cp_dep d = {r[1] % 65, r[2] % 65, r[9], word(r + 3)};
            g_array_append_val(deps, d);
        }
    }
    struct critpath cp;
    critpath_compute((const struct cp_task *)(void *)tasks->data, tasks->len,
                     (const struct cp_dep *)(void *)deps->data, deps->len, &cp);
    if (cp.steps->len > tasks->len)
        abort(); /* each task a step at most once */
    for (guint i = 0; i < cp.steps->len; i++) {
        const struct cp_step *s = &g_array_index(cp.steps, struct cp_step, i);
        if (s->from_ns > s->to_ns || s->wait_ns < 0)
            abort();
        if (i && s->from_ns < g_array_index(cp.steps, struct cp_step, i - 1).to_ns)
            abort();
    }
    double avg[16];
    unsigned peak[16], max;
    critpath_parallelism((const struct cp_task *)(void *)tasks->data, tasks->len, cp.start_ns,
                         cp.end_ns, 16, avg, peak, &max);
    GArray *ser = critpath_serial_stretches((const struct cp_task *)(void *)tasks->data,
                                            tasks->len, 1, 4);
    g_array_unref(ser);
    critpath_clear(&cp);
    char *argv = g_malloc(size + 1);
    memcpy(argv, data, size);
    argv[size] = '\0';
    (void)buildtime_jobs_in_argv(argv, size);
    g_free(argv);
    g_hash_table_destroy(ids);
    g_array_free(tasks, TRUE);
    g_array_free(deps, TRUE);
    return 0;
}
