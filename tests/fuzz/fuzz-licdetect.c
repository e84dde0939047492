/* libFuzzer target: license detection takes any bytes; what it returns is one line made only of
 * the characters an SPDX expression uses, and a reference is a plain file name. */
#include "licdetect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *l = lic_detect((const char *)data, size);
    if (l) {
        if (!*l || strpbrk(l, "\n\r\t\"\\"))
            abort();
        g_free(l);
    }
    char *r = lic_reference((const char *)data, size);
    if (r) {
        if (!*r || strchr(r, '/') || strchr(r, ' '))
            abort();
        g_free(r);
    }
    return 0;
}
