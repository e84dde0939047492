/* libFuzzer target: the packages a build may use (common/debset.c) over any status text and
 * any relationship field (the input split at its first NUL byte: status, then the field):
 * never a crash or a loop (Depends cycles, a package providing itself), and the closure is
 * closed — every package in the set has each of its Depends clauses that something installed
 * satisfies satisfied within the set, and every package named by the set is installed. */
#include "debdeps.h"
#include "debset.h"
#include "dpkgdb.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t status_len = nul ? (size_t)(nul - text) : size;
    g_autofree char *field = nul ? g_strndup(nul + 1, size - status_len - 1) : g_strdup("");
    struct dpkgdb *db = dpkgdb_from_status(text, status_len);
    struct debset *s = debset_new(db);
    char *missing = NULL;
    const char *profiles[] = {"nocheck", NULL};
    int r = debset_add_relations(s, field, "amd64", profiles, &missing);
    if ((r < 0) != (missing != NULL))
        abort();
    g_free(missing);
    debset_add_base(s);
    debset_close(s);
    const GPtrArray *pkgs = dpkgdb_packages(db);
    unsigned in_set = 0;
    for (guint i = 0; i < pkgs->len; i++) {
        const struct dpkg_pkg *k = pkgs->pdata[i];
        if (!debset_has(s, k->name) || dpkgdb_package(db, k->name) != k)
            continue;
        in_set++;
        /* Closed: each Depends clause something installed satisfies has a member in the set. */
        GPtrArray *clauses = debdeps_parse(k->depends_field, strlen(k->depends_field));
        for (guint c = 0; c < clauses->len; c++) {
            const struct debdep_clause *cl = clauses->pdata[c];
            bool satisfiable = false, satisfied = false;
            for (guint a = 0; a < cl->alts->len; a++) {
                const char *n = ((const struct debdep_alt *)cl->alts->pdata[a])->name;
                for (guint j = 0; j < pkgs->len; j++) {
                    const struct dpkg_pkg *p = pkgs->pdata[j];
                    bool gives = !strcmp(p->name, n) ||
                                 g_strv_contains((const char *const *)p->provides, n);
                    satisfiable |= gives;
                    satisfied |= gives && debset_has(s, p->name);
                }
            }
            if (satisfiable && !satisfied)
                abort();
        }
        g_ptr_array_free(clauses, TRUE);
    }
    if (in_set > debset_size(s))
        abort();
    debset_free(s);
    dpkgdb_free(db);
    return 0;
}
