/* libFuzzer target: objsyms takes any bytes as an ELF file or an ar archive; every name it
 * adds is non-empty and NUL-free, and an archive's member count is never negative unless the
 * bytes are not one. */
#include "objsyms.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_names(GHashTable *set)
{
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, set);
    while (g_hash_table_iter_next(&it, &k, NULL))
        if (!*(const char *)k)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GHashTable *set = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    int r = objsyms_elf(data, size, set);
    if (r != -EINVAL && (r < OBJSYMS_NONE || r > OBJSYMS_DYNSYM))
        abort();
    check_names(set);
    g_hash_table_remove_all(set);
    r = objsyms_archive(data, size, set);
    if (r < 0 && (r != -EINVAL || objsyms_is_archive(data, size)))
        abort();
    check_names(set);
    g_hash_table_destroy(set);
    return 0;
}
