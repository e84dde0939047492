/* libFuzzer target: run --vary's LIST parser (launcher/vary.h) must never read out of bounds,
 * must answer a set of known names or one error naming what it refused, and the plan made from
 * any set must hold one row per name in it (with both sides: each row on its own side). */
#include "vary.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *list = g_strndup((const char *)data, size);
    uint32_t set = 0;
    char *err = NULL;
    int r = vary_parse(list, &set, &err);
    if (r == 0) {
        if (err || set >> VARY_COUNT)
            abort();
        static const char *const locales[] = {"C", "fr_CH.utf8", NULL};
        struct vary_facts f = {.cwd = "/p", .n_cpus = 2, .locales = locales,
                               .randomize_va_space = 2, .nested_userns = true};
        for (int side = VARY_CONTROL; side <= VARY_EXPERIMENT; side++) {
            struct vary_plan *p = vary_plan_make(set, (enum vary_side)side, &f);
            if (p->n_rows != __builtin_popcount(set))
                abort();
            char *env[] = {(char *)"PATH=/bin", NULL};
            char **e = vary_environ(p, env);
            g_strfreev(e);
            vary_plan_free(p);
        }
        /* both options: the control's of the set, the experiment's of every other name */
        uint32_t half = set & 0x2AAAu;
        if (vary_sides_check(set, half, &err) != 0)
            abort();
        struct vary_plan *p = vary_plan_make_sides(set, half, &f);
        if (p->n_rows != __builtin_popcount(set))
            abort();
        for (int i = 0; i < p->n_rows; i++)
            if (p->rows[i].side != ((half >> p->rows[i].name) & 1 ? VARY_EXPERIMENT : VARY_CONTROL))
                abort();
        vary_plan_free(p);
    } else if (r != -1 || !err || !strstr(err, "num_cpus")) {
        abort();
    }
    g_free(err);
    g_free(list);
    return 0;
}
