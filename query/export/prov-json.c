/* prov: W3C PROV-JSON (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One use of a version by a process: every successful read (or exec) of the version by the
 * process is one, its first time; every write (create, truncate) another, its last time. */
struct use {
    int64_t pid, vid, when_ns;
    bool read;
};

/* An access as TQ_USES gives it, then, merged, a use with its first and last times. */
struct use_row {
    int64_t pid, vid, first_ns, last_ns;
    bool read;
};

static gint use_key_cmp(gconstpointer a, gconstpointer b)
{
    const struct use_row *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->vid != y->vid)
        return x->vid < y->vid ? -1 : 1;
    return (int)x->read - (int)y->read;
}

/* The document's order: by first time, then as grouped (process, version, write before read). */
static gint use_first_cmp(gconstpointer a, gconstpointer b)
{
    const struct use_row *x = a, *y = b;
    if (x->first_ns != y->first_ns)
        return x->first_ns < y->first_ns ? -1 : 1;
    return use_key_cmp(a, b);
}

/* Every use, in the document's order: one plain scan, grouped and sorted here (SQL's GROUP BY
 * over the process index took 2.7 s for a million accesses). */
static GArray *read_uses(struct export_ctx *x)
{
    GArray *rows = g_array_new(FALSE, FALSE, sizeof(struct use_row));
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(x->q, tracedb_sql(TQ_USES), &st)) {
        while (qdb_row(x->q, st)) {
            int kind = sqlite3_column_int(st, 2);
            struct use_row r = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                                sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4),
                                kind == TRACEDB_READ || kind == TRACEDB_EXEC};
            g_array_append_val(rows, r);
        }
    }
    sqlite3_finalize(st);
    g_array_sort(rows, use_key_cmp);
    guint n = 0;
    for (guint i = 0; i < rows->len; i++) {
        struct use_row *r = &g_array_index(rows, struct use_row, i);
        struct use_row *g = n ? &g_array_index(rows, struct use_row, n - 1) : NULL;
        if (g && use_key_cmp(g, r) == 0) {
            g->first_ns = MIN(g->first_ns, r->first_ns);
            g->last_ns = MAX(g->last_ns, r->last_ns);
        } else {
            g_array_index(rows, struct use_row, n++) = *r;
        }
    }
    g_array_set_size(rows, n);
    g_array_sort(rows, use_first_cmp);
    return rows;
}

/* The document streams, section by section, from the use edges read once into a compact
 * array (32 bytes each), not from five growing strings. */
int fmt_prov(struct export_ctx *x)
{
    /* Most versions and processes are asked for: read each table once, not a row at a time. */
    prov_load_versions(x->p);
    qdb_load_all(x->q);
    GArray *uses = g_array_new(FALSE, FALSE, sizeof(struct use));
    GArray *ent_order = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GArray *act_order = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GHashTable *ents = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTable *acts = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    GArray *rows = read_uses(x);
    if (query_failed(x->q)) {
        g_array_unref(rows);
        return 1; /* the error is kept in x->q: main reports it */
    }
    for (guint i = 0; i < rows->len; i++) {
        const struct use_row *r = &g_array_index(rows, struct use_row, i);
        int64_t pid = r->pid;
        const struct prov_version *v = prov_version(x->p, r->vid);
        const struct qdb_process *p = qdb_process(x->q, pid);
        if (!v || !p)
            continue;
        if (!g_hash_table_contains(ents, &v->id)) {
            g_hash_table_add(ents, (gpointer)&v->id);
            g_array_append_val(ent_order, v->id);
        }
        if (!g_hash_table_contains(acts, &pid)) {
            int64_t *k = g_new(int64_t, 1);
            *k = pid;
            g_hash_table_add(acts, k);
            g_array_append_val(act_order, pid);
        }
        struct use u = {pid, v->id, r->read ? r->first_ns : r->last_ns, r->read};
        g_array_append_val(uses, u);
    }
    g_array_unref(rows);
    GString *o = x->out;
    g_autofree char *uid = ex_trace_uid(x);
    g_string_append_printf(o, "{\n  \"prefix\":{\"bt\":\"https://buildtrail.invalid/ns#\","
                              "\"file\":\"https://buildtrail.invalid/trace/%s/version/\","
                              "\"proc\":\"https://buildtrail.invalid/trace/%s/process/\"},\n"
                              "  \"entity\":{", uid, uid);
    for (guint i = 0; i < ent_order->len; i++) {
        const struct prov_version *v = prov_version(x->p, g_array_index(ent_order, int64_t, i));
        g_string_append_printf(o, "%s\n    \"file:v%" PRId64 "\":{\"prov:label\":", i ? "," : "",
                               v->id);
        json_string(o, v->path, strlen(v->path));
        g_string_append_printf(o, ",\"bt:origin\":\"%s\"",
                               v->origin == TRACEDB_VERSION_FOUND ? "found" : "built");
        if (v->sha256[0])
            g_string_append_printf(o, ",\"bt:sha256\":\"%s\",\"bt:gitBlob\":\"%s\"", v->sha256,
                                   v->git_sha1);
        g_string_append_c(o, '}');
        ex_flush(x);
    }
    g_string_append(o, "},\n  \"activity\":{");
    for (guint i = 0; i < act_order->len; i++) {
        int64_t pid = g_array_index(act_order, int64_t, i);
        const struct qdb_process *p = qdb_process(x->q, pid);
        char start[32];
        ex_iso_time(x, p->start_ns, start);
        g_string_append_printf(o, "%s\n    \"proc:p%" PRId64 "\":{\"prov:label\":", i ? "," : "",
                               pid);
        GString *nm = g_string_new(NULL);
        if (p->argv)
            text_argv(nm, p->argv, p->argv_len);
        json_string(o, nm->str, nm->len);
        g_string_free(nm, TRUE);
        g_string_append_printf(o, ",\"prov:startTime\":\"%s\"", start);
        if (p->exited) {
            char end[32];
            ex_iso_time(x, p->end_ns, end);
            g_string_append_printf(o, ",\"prov:endTime\":\"%s\"", end);
        }
        g_string_append_printf(o, ",\"bt:pid\":%d}", p->pid);
        ex_flush(x);
    }
    /* used, then wasGeneratedBy: one numbering over both, in the edges' order. */
    for (int pass = 0; pass < 2; pass++) {
        bool want_read = pass == 0, first = true;
        g_string_append(o, want_read ? "},\n  \"used\":{" : "},\n  \"wasGeneratedBy\":{");
        for (guint i = 0; i < uses->len; i++) {
            const struct use *u = &g_array_index(uses, struct use, i);
            if (u->read != want_read)
                continue;
            char when[32];
            ex_iso_time(x, u->when_ns, when);
            g_string_append_printf(o, "%s\n    \"_:%s%u\":{\"prov:activity\":\"proc:p%" PRId64
                                      "\",\"prov:entity\":\"file:v%" PRId64 "\",\"prov:time\":"
                                      "\"%s\"}",
                                   first ? "" : ",", u->read ? "u" : "g", i + 1, u->pid, u->vid,
                                   when);
            first = false;
            ex_flush(x);
        }
    }
    int n = (int)uses->len; /* the numbering goes on */
    /* Process tree among the activities: a child was informed by the process that started it. */
    g_string_append(o, "},\n  \"wasInformedBy\":{");
    bool first = true;
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, acts);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        int64_t id = *(int64_t *)key, up = ex_nearest_ancestor_in(x, id, acts);
        if (up) {
            g_string_append_printf(o, "%s\n    \"_:i%d\":{\"prov:informed\":\"proc:p%" PRId64
                                      "\",\"prov:informant\":\"proc:p%" PRId64 "\"}",
                                   first ? "" : ",", ++n, id, up);
            first = false;
            ex_flush(x);
        }
    }
    g_string_append(o, "}\n}\n");
    g_hash_table_destroy(ents);
    g_hash_table_destroy(acts);
    g_array_unref(uses);
    g_array_unref(ent_order);
    g_array_unref(act_order);
    return 0;
}
