/* libFuzzer target: Debian relationship fields take any bytes; every clause has at least one
 * alternative, every alternative a non-empty name without separators, and deciding whether
 * it applies never fails; versions compare, antisymmetrically. */
#include "debdeps.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *text, size_t len)
{
    static const char *const profiles[] = {"nocheck", "stage1", NULL};
    GPtrArray *c = debdeps_parse(text, len);
    for (guint i = 0; i < c->len; i++) {
        const struct debdep_clause *cl = c->pdata[i];
        if (!cl->alts->len)
            abort();
        for (guint a = 0; a < cl->alts->len; a++) {
            const struct debdep_alt *alt = cl->alts->pdata[a];
            if (!alt->name[0] || strpbrk(alt->name, ",|([< \t\n"))
                abort();
            (void)debdeps_applies(alt, "amd64", profiles);
            (void)debdeps_applies(alt, "hurd-i386", NULL);
        }
    }
    g_ptr_array_free(c, TRUE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check((const char *)data, size);
    char *nul = g_strndup((const char *)data, size);
    /* Versions: any bytes compare, antisymmetrically, and equal to themselves. */
    char *half = nul + strlen(nul) / 2;
    if (debdeps_version_cmp(nul, nul) || debdeps_version_cmp(nul, half) !=
                                             -debdeps_version_cmp(half, nul))
        abort();
    char **options = debdeps_options_as_profiles(nul);
    for (char **o = options; *o; o++)
        if (strcmp(*o, "nocheck") && strcmp(*o, "nodoc"))
            abort();
    g_strfreev(options);
    g_free(nul);
    char *fields = debdeps_from_control((const char *)data, size);
    if (fields) {
        check(fields, strlen(fields));
        g_free(fields);
    }
    return 0;
}
