/* libFuzzer target: reading a compile_commands.json takes any bytes; every entry it returns
 * is an object's span ('{' ... '}') inside the input, and an error always says where. */
#include "ccdb.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    GArray *e = g_array_new(FALSE, TRUE, sizeof(struct ccdb_entry));
    g_array_set_clear_func(e, ccdb_entry_clear);
    char *err = NULL;
    int r = ccdb_parse(text, size, e, &err);
    if (r < 0 && !err)
        abort();
    for (guint i = 0; i < e->len; i++) {
        const struct ccdb_entry *x = &g_array_index(e, struct ccdb_entry, i);
        if (x->begin >= x->end || x->end > size || text[x->begin] != '{' || text[x->end - 1] != '}')
            abort();
        g_free(ccdb_key(x->directory, x->file, x->output));
    }
    g_free(err);
    g_array_unref(e);
    return 0;
}
