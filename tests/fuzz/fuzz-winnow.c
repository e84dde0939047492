/* libFuzzer target: fingerprints and the copies index take any bytes; fingerprints are sorted
 * and distinct, a text contains itself entirely, and parsed entries are well formed. */
#include "winnow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GArray *fp = winnow_fingerprints((const char *)data, size);
    for (guint i = 1; i < fp->len; i++)
        if (g_array_index(fp, guint32, i - 1) >= g_array_index(fp, guint32, i))
            abort();
    if (fp->len && winnow_containment(fp, fp) != 1.0)
        abort();
    g_array_free(fp, TRUE);
    GPtrArray *e = g_ptr_array_new_with_free_func(copyindex_entry_free);
    copyindex_parse((const char *)data, size, e);
    for (guint i = 0; i < e->len; i++) {
        const struct copyindex_entry *x = e->pdata[i];
        if (!x->name || strlen(x->sha256) != 64)
            abort();
    }
    g_ptr_array_free(e, TRUE);
    return 0;
}
