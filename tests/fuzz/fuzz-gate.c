/* libFuzzer target: the gate of `run --only-inputs` takes any manifest bytes without crashing;
 * once sealed, judging the entries' own paths and made-up ones never crashes, and what an
 * exact (non-glob) entry names is always visible. */
#include "gate.h"
#include "manifest.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gate *g = gate_new();
    char *err = NULL;
    int r = gate_add_manifest(g, (const char *)data, size, "/w/p", &err);
    if ((r < 0) != (err != NULL))
        abort();
    g_free(err);
    gate_add_tree(g, "/w", false);
    gate_add_tree(g, "/usr", true);
    gate_add_visible_dir(g, "/w/p");
    gate_seal(g);
    GPtrArray *e = g_ptr_array_new_with_free_func(manifest_entry_free);
    char *err2 = NULL;
    if (r == 0 && manifest_parse((const char *)data, size, "/w/p", e, &err2) == 0) {
        for (guint i = 0; i < e->len; i++) {
            const struct manifest_entry *m = e->pdata[i];
            enum gate_verdict v = gate_judge(g, m->pattern, false);
            if (!m->glob && v != GATE_VISIBLE)
                abort();
            gate_judge(g, m->pattern, true);
        }
    }
    g_free(err2);
    g_ptr_array_free(e, TRUE);
    gate_judge(g, "/w/p/a/b", true);
    gate_judge(g, "/", true);
    gate_judge(g, "/usr/include/x.h", false);
    gate_free(g);
    return 0;
}
