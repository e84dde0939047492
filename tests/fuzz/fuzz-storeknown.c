/* libFuzzer target: a known-copies index given to `store copies --known` is untrusted input.
 * store_parse_known takes any bytes (NULs too) and appends only 64-hex-digit hashes, each
 * mapped to a name that holds no newline. */
#include "collect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GPtrArray *hashes = g_ptr_array_new_with_free_func(g_free);
    GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    store_parse_known((const char *)data, size, hashes, names);
    for (guint i = 0; i < hashes->len; i++) {
        const char *h = hashes->pdata[i];
        if (strlen(h) != 64 || strspn(h, "0123456789abcdef") != 64)
            abort();
        const char *n = g_hash_table_lookup(names, h);
        if (!n || memchr(n, '\n', strlen(n)))
            abort();
    }
    g_ptr_array_free(hashes, TRUE);
    g_hash_table_destroy(names);
    return 0;
}
