/* libFuzzer target: aclx.c reads any bytes as a POSIX ACL xattr value without reading past
 * them; dropping keeps the header and every entry it does not drop, in order, and drops
 * exactly as many as it counts. */
#include "aclx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Odd ids exist, even ones do not (and groups: the other way round). */
static bool mapped(void *ctx, bool is_group, uint32_t id)
{
    (void)ctx;
    return (id & 1) != is_group;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *v = malloc(size ? size : 1);
    memcpy(v, data, size);
    size_t unmapped = aclx_count_unmapped(v, size, mapped, NULL);
    size_t len = aclx_drop_unmapped(v, size, mapped, NULL);
    if (len > size || (size >= 4 && len < 4) || len != size - unmapped * 8)
        abort();
    if (len >= 4 && memcmp(v, data, 4) != 0)
        abort();
    if (aclx_count_unmapped(v, len, mapped, NULL) != 0)
        abort();
    /* What is kept is a subsequence of the input's entries. */
    size_t in = 4;
    for (size_t out = 4; out + 8 <= len; out += 8) {
        while (in + 8 <= size && memcmp(v + out, data + in, 8) != 0)
            in += 8;
        if (in + 8 > size)
            abort();
        in += 8;
    }
    free(v);
    return 0;
}
