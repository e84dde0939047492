/* libFuzzer target: `store uses PACKAGE=VERSION` parses a version from the command line, and
 * the store's versions come from dpkg databases.  debver_parse takes any bytes; what it
 * accepts compares equal to itself, and the order is antisymmetric and transitive on the
 * input split in three. */
#include "debver.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = g_strndup((const char *)data, size);
    gchar **parts = g_strsplit(s, "|", 3);
    struct debver v[3];
    int ok[3] = {0};
    for (int i = 0; i < 3 && parts[i]; i++) {
        const char *why = NULL;
        ok[i] = debver_parse(parts[i], &v[i], &why) == 0;
        if (!ok[i] && !why)
            abort();
        if (ok[i] && debver_cmp(&v[i], &v[i]) != 0)
            abort();
    }
    if (ok[0] && ok[1]) {
        int ab = debver_cmp(&v[0], &v[1]), ba = debver_cmp(&v[1], &v[0]);
        if ((ab < 0) != (ba > 0) || (ab == 0) != (ba == 0))
            abort();
        if (ok[2]) {
            int bc = debver_cmp(&v[1], &v[2]), ac = debver_cmp(&v[0], &v[2]);
            if (ab <= 0 && bc <= 0 && ac > 0)
                abort();
        }
    }
    for (int i = 0; i < 3; i++)
        if (ok[i])
            debver_clear(&v[i]);
    g_strfreev(parts);
    g_free(s);
    return 0;
}
