/* libFuzzer target: the verify manifest parser takes any bytes without crashing; every entry
 * it returns is absolute and normalised, and matching it against itself never crashes. */
#include "manifest.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GPtrArray *e = g_ptr_array_new_with_free_func(manifest_entry_free);
    char *err = NULL;
    int r = manifest_parse((const char *)data, size, "/root/dir", e, &err);
    if ((r < 0) != (err != NULL))
        abort();
    for (guint i = 0; i < e->len; i++) {
        const struct manifest_entry *m = e->pdata[i];
        if (m->pattern[0] != '/' || strstr(m->pattern, "//") || strstr(m->pattern, "/./"))
            abort();
        if (m->sha256[0] && strlen(m->sha256) != 64)
            abort();
        manifest_match(m, m->pattern);
        manifest_match(m, "/root/dir/a/b");
    }
    g_free(err);
    g_ptr_array_free(e, TRUE);
    return 0;
}
