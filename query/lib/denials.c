/* denials — see denials.h. */
#include "denials.h"

#include "stmt.h"
#include "tracedb.h"

#include <string.h>

/* (path, process, how, reason, package, count) grouped, of image ?1 (0: all), by path. */
TRACEDB_STATEMENT(sql_denials, 8, TRACEDB_SCHEMA_VERSION,
                  "SELECT f.path, d.process_id, d.how, d.reason, max(d.package), count(*) "
                  "FROM denials d JOIN files f ON f.id = d.file_id "
                  "WHERE ?1 = 0 OR d.process_id = ?1 "
                  "GROUP BY d.file_id, d.process_id, d.how, d.reason "
                  "ORDER BY f.path, d.process_id, d.how");
enum { DEN_PATH, DEN_PROCESS, DEN_HOW, DEN_REASON, DEN_PACKAGE, DEN_COUNT };

static void clear_denial(gpointer p)
{
    struct denial *d = p;
    g_free(d->path);
    g_free(d->package);
}

GArray *denials_load(struct qdb *q, int64_t process, bool *recorded)
{
    GArray *out = g_array_new(FALSE, TRUE, sizeof(struct denial));
    g_array_set_clear_func(out, clear_denial);
    *recorded = q->schema_version >= 8;
    if (!*recorded)
        return out;
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(q, sql_denials, &st) || !qdb_bind_int64(q, st, 1, process)) {
        sqlite3_finalize(st);
        g_array_unref(out);
        return NULL;
    }
    while (qdb_row(q, st)) {
        const char *pkg = (const char *)sqlite3_column_text(st, DEN_PACKAGE);
        struct denial d = {
            .path = g_strdup((const char *)sqlite3_column_text(st, DEN_PATH)),
            .process_id = sqlite3_column_int64(st, DEN_PROCESS),
            .how = sqlite3_column_int(st, DEN_HOW),
            .reason = sqlite3_column_int(st, DEN_REASON),
            .package = g_strdup(pkg),
            .count = (unsigned)sqlite3_column_int64(st, DEN_COUNT),
        };
        g_array_append_val(out, d);
    }
    sqlite3_finalize(st);
    if (qdb_failed(q)) {
        g_array_unref(out);
        return NULL;
    }
    return out;
}

void denials_free(GArray *d)
{
    if (d)
        g_array_unref(d);
}

unsigned denials_n_files(const GArray *d)
{
    unsigned n = 0;
    for (guint i = 0; i < d->len; i++)
        if (!i || strcmp(g_array_index(d, struct denial, i).path,
                         g_array_index(d, struct denial, i - 1).path))
            n++;
    return n;
}

const char *denial_how_name(int how)
{
    return how == TRACEDB_DENIED_LOOKUP ? "lookup" : how == TRACEDB_DENIED_LISTING ? "listing" : "?";
}

const char *denial_reason_name(int reason)
{
    return reason == TRACEDB_DENIED_UNDECLARED ? "undeclared"
           : reason == TRACEDB_DENIED_PACKAGE  ? "package-not-allowed"
                                               : "?";
}

char *denial_why(const struct denial *d)
{
    if (d->reason == TRACEDB_DENIED_PACKAGE)
        return g_strdup_printf("package %s not allowed", d->package ? d->package : "?");
    return g_strdup(denial_reason_name(d->reason));
}

static void denied_package_free(gpointer p)
{
    struct denied_package *k = p;
    g_free(k->name);
    g_ptr_array_unref(k->paths);
    g_array_unref(k->processes);
    g_free(k);
}

static gint by_package_name(gconstpointer a, gconstpointer b)
{
    return strcmp((*(struct denied_package *const *)a)->name,
                  (*(struct denied_package *const *)b)->name);
}

static gint by_path(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static gint by_id(gconstpointer a, gconstpointer b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

GPtrArray *denials_by_package(const GArray *d)
{
    GPtrArray *out = g_ptr_array_new_with_free_func(denied_package_free);
    GHashTable *by = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < d->len; i++) {
        const struct denial *e = &g_array_index(d, struct denial, i);
        if (!e->package)
            continue;
        struct denied_package *k = g_hash_table_lookup(by, e->package);
        if (!k) {
            k = g_new0(struct denied_package, 1);
            k->name = g_strdup(e->package);
            k->paths = g_ptr_array_new_with_free_func(g_free);
            k->processes = g_array_new(FALSE, FALSE, sizeof(int64_t));
            g_hash_table_insert(by, k->name, k);
            g_ptr_array_add(out, k);
        }
        /* d is by path: a path repeats only right after itself. */
        if (!k->paths->len || strcmp(g_ptr_array_index(k->paths, k->paths->len - 1), e->path))
            g_ptr_array_add(k->paths, g_strdup(e->path));
        bool seen = false;
        for (guint j = 0; j < k->processes->len && !seen; j++)
            seen = g_array_index(k->processes, int64_t, j) == e->process_id;
        if (!seen)
            g_array_append_val(k->processes, e->process_id);
    }
    g_hash_table_destroy(by);
    for (guint i = 0; i < out->len; i++) {
        struct denied_package *k = out->pdata[i];
        g_array_sort(k->processes, by_id);
        g_ptr_array_sort(k->paths, by_path);
    }
    g_ptr_array_sort(out, by_package_name);
    return out;
}
