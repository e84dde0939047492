/* diffeng-denied — the files one build was refused and the other found (diffeng-internal.h). */
#include "diffeng-internal.h"

#include "denials.h"
#include "stmt.h"
#include "tracedb.h"

#include <string.h>

/* The first image that accessed path ?1 with success (any kind: read, stat, ran, listed). */
TRACEDB_STATEMENT(sql_first_found, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT a.process_id FROM accesses a JOIN files f ON f.id = a.file_id "
                  "WHERE f.path = ?1 AND a.result = 0 AND a.process_id IS NOT NULL "
                  "ORDER BY a.id LIMIT 1");
enum { FIRST_FOUND_PROCESS };

/* B's path in A's terms: the maps read backwards (temporaries are never denied). */
static char *unmap_path(struct diffeng *d, const char *path)
{
    for (guint i = 0; i < d->maps->len; i++) {
        const char *old = d->maps->pdata[i], *new = old + strlen(old) + 1;
        size_t l = strlen(new);
        if (!strncmp(path, new, l) && (path[l] == '/' || !path[l]))
            return g_strconcat(old, path + l, NULL);
    }
    return g_strdup(path);
}

/* The image of side `s` that first found `path` (0: none found it). */
static int64_t found_by(struct side *s, const char *path)
{
    sqlite3_stmt *st = NULL;
    int64_t id = 0;
    if (qdb_prepare(s->q, sql_first_found, &st) && qdb_bind_text(s->q, st, 1, path) &&
        qdb_row(s->q, st))
        id = sqlite3_column_int64(st, FIRST_FOUND_PROCESS);
    sqlite3_finalize(st);
    return id;
}

void de_add_denials(struct diffeng *d)
{
    for (int s = 0; s < 2; s++) {
        bool recorded;
        GArray *den = denials_load(d->s[s].q, 0, &recorded);
        for (guint i = 0; den && i < den->len; i++) {
            const struct denial *e = &g_array_index(den, struct denial, i);
            if (i && !strcmp(e->path, g_array_index(den, struct denial, i - 1).path))
                continue; /* one cause per file */
            /* its first process that looked it up (a listing that left it out says less) */
            for (guint k = i; k < den->len && e->how != TRACEDB_DENIED_LOOKUP; k++) {
                const struct denial *o = &g_array_index(den, struct denial, k);
                if (strcmp(o->path, e->path))
                    break;
                if (o->how == TRACEDB_DENIED_LOOKUP)
                    e = o;
            }
            g_autofree char *in_b = s ? g_strdup(e->path) : de_map_path(d, e->path);
            g_autofree char *in_a = s ? unmap_path(d, e->path) : g_strdup(e->path);
            int64_t other = found_by(&d->s[!s], s ? in_a : in_b);
            if (!other)
                continue;
            g_autofree char *why = denial_why(e);
            char *detail = g_strdup_printf("hidden from %s (%s), found by %s", s ? "B" : "A",
                                           why, s ? "A" : "B");
            de_add_cause(d, DIFFENG_DENIED, in_b, s ? other : e->process_id,
                         s ? e->process_id : other, detail);
        }
        denials_free(den);
    }
}
