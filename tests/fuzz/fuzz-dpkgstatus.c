/* libFuzzer target: dpkg's status parser takes any bytes; every package it returns has a
 * name, and a source and versions (possibly empty), none containing a newline. */
#include "dpkgdb.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    GPtrArray *pkgs = g_ptr_array_new_with_free_func(dpkg_pkg_free);
    dpkg_parse_status((const char *)data, size, pkgs);
    for (guint i = 0; i < pkgs->len; i++) {
        const struct dpkg_pkg *k = pkgs->pdata[i];
        if (!k->name || !*k->name || !k->source || !k->version || !k->source_version ||
            !k->arch || strchr(k->name, '\n') || strchr(k->source, '\n'))
            abort();
    }
    g_ptr_array_free(pkgs, TRUE);
    return 0;
}
