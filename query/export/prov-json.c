/* prov: W3C PROV-JSON (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "jsonw.h"
#include "progkind.h"
#include "stmt.h"

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

/* (process, version, kind, first, last) of every successful use of a version (a plain scan). */
TRACEDB_STATEMENT(sql_uses, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT process_id, version_id, kind, first_ns, last_ns FROM accesses NOT "
                  "INDEXED WHERE version_id IS NOT NULL AND process_id IS NOT NULL AND "
                  "result = 0 AND kind IN " TRACEDB_KINDS_USED);
enum { USES_PROCESS, USES_VERSION, USES_KIND, USES_FIRST, USES_LAST };

/* An access as sql_uses gives it, then, merged, a use with its first and last times. */
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
    if (qdb_prepare(x->q, sql_uses, &st)) {
        while (qdb_row(x->q, st)) {
            int kind = sqlite3_column_int(st, USES_KIND);
            struct use_row r = {sqlite3_column_int64(st, USES_PROCESS),
                                sqlite3_column_int64(st, USES_VERSION),
                                sqlite3_column_int64(st, USES_FIRST),
                                sqlite3_column_int64(st, USES_LAST),
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

/* A top-level member's key, on its own line. */
static void top_key(struct jsonw *w, const char *key)
{
    jsonw_space(w, "\n  ");
    jsonw_key(w, key);
}

/* A member of a section, on its own line: "NAME":{ opened. */
static void entry_begin(struct jsonw *w, const char *name)
{
    jsonw_space(w, "\n    ");
    jsonw_key(w, name);
    jsonw_object_begin(w);
}

static void write_prefix(struct export_ctx *x, struct jsonw *w)
{
    g_autofree char *uid = ex_trace_uid(x);
    g_autofree char *file = g_strdup_printf("https://buildtrail.invalid/trace/%s/version/", uid);
    g_autofree char *proc = g_strdup_printf("https://buildtrail.invalid/trace/%s/process/", uid);
    top_key(w, "prefix");
    jsonw_object_begin(w);
    jsonw_kv_string(w, "bt", "https://buildtrail.invalid/ns#");
    jsonw_kv_string(w, "file", file);
    jsonw_kv_string(w, "proc", proc);
    jsonw_object_end(w);
}

static void write_entities(struct export_ctx *x, struct jsonw *w, GArray *ent_order)
{
    top_key(w, "entity");
    jsonw_object_begin(w);
    for (guint i = 0; i < ent_order->len; i++) {
        const struct prov_version *v = prov_version(x->p, g_array_index(ent_order, int64_t, i));
        char name[40];
        g_snprintf(name, sizeof name, "file:v%" PRId64, v->id);
        entry_begin(w, name);
        jsonw_kv_string(w, "prov:label", v->path);
        jsonw_kv_string(w, "bt:origin", v->origin == TRACEDB_VERSION_FOUND ? "found" : "built");
        if (v->sha256[0]) {
            jsonw_kv_string(w, "bt:sha256", v->sha256);
            jsonw_kv_string(w, "bt:gitBlob", v->git_sha1);
        }
        jsonw_object_end(w);
        ex_flush(x);
    }
    jsonw_object_end(w);
}

static void write_activities(struct export_ctx *x, struct jsonw *w, GArray *act_order)
{
    top_key(w, "activity");
    jsonw_object_begin(w);
    for (guint i = 0; i < act_order->len; i++) {
        int64_t pid = g_array_index(act_order, int64_t, i);
        const struct qdb_process *p = qdb_process(x->q, pid);
        char start[32], name[40];
        ex_iso_time(x, p->start_ns, start);
        g_snprintf(name, sizeof name, "proc:p%" PRId64, pid);
        entry_begin(w, name);
        GString *nm = g_string_new(NULL);
        if (p->argv)
            text_argv(nm, p->argv, p->argv_len);
        jsonw_key(w, "prov:label");
        jsonw_string_len(w, nm->str, nm->len);
        g_string_free(nm, TRUE);
        jsonw_kv_string(w, "prov:startTime", start);
        if (p->exited) {
            char end[32];
            ex_iso_time(x, p->end_ns, end);
            jsonw_kv_string(w, "prov:endTime", end);
        }
        jsonw_kv_int(w, "bt:pid", p->pid);
        jsonw_object_end(w);
        ex_flush(x);
    }
    jsonw_object_end(w);
}

/* used, then wasGeneratedBy: one numbering over both, in the edges' order. */
static void write_uses(struct export_ctx *x, struct jsonw *w, GArray *uses)
{
    for (int pass = 0; pass < 2; pass++) {
        bool want_read = pass == 0;
        top_key(w, want_read ? "used" : "wasGeneratedBy");
        jsonw_object_begin(w);
        for (guint i = 0; i < uses->len; i++) {
            const struct use *u = &g_array_index(uses, struct use, i);
            if (u->read != want_read)
                continue;
            char when[32], name[24], act[40], ent[40];
            ex_iso_time(x, u->when_ns, when);
            g_snprintf(name, sizeof name, "_:%s%u", u->read ? "u" : "g", i + 1);
            g_snprintf(act, sizeof act, "proc:p%" PRId64, u->pid);
            g_snprintf(ent, sizeof ent, "file:v%" PRId64, u->vid);
            entry_begin(w, name);
            jsonw_kv_string(w, "prov:activity", act);
            jsonw_kv_string(w, "prov:entity", ent);
            jsonw_kv_string(w, "prov:time", when);
            jsonw_object_end(w);
            ex_flush(x);
        }
        jsonw_object_end(w);
    }
}

/* Process tree among the activities: a child was informed by the process that started it.
 * The numbering goes on from the uses' (`n`), in the activities' order (`order`), never the
 * set's (`acts`): a hash table's order is no order. */
static void write_informed(struct export_ctx *x, struct jsonw *w, GHashTable *acts,
                           const GArray *order, int n)
{
    top_key(w, "wasInformedBy");
    jsonw_object_begin(w);
    for (guint i = 0; i < order->len; i++) {
        int64_t id = g_array_index(order, int64_t, i), up = ex_nearest_ancestor_in(x, id, acts);
        if (up) {
            char name[24], informed[40], informant[40];
            g_snprintf(name, sizeof name, "_:i%d", ++n);
            g_snprintf(informed, sizeof informed, "proc:p%" PRId64, id);
            g_snprintf(informant, sizeof informant, "proc:p%" PRId64, up);
            entry_begin(w, name);
            jsonw_kv_string(w, "prov:informed", informed);
            jsonw_kv_string(w, "prov:informant", informant);
            jsonw_object_end(w);
            ex_flush(x);
        }
    }
    jsonw_object_end(w);
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
    struct jsonw w;
    jsonw_init(&w, x->out);
    jsonw_object_begin(&w);
    write_prefix(x, &w);
    write_entities(x, &w, ent_order);
    write_activities(x, &w, act_order);
    write_uses(x, &w, uses);
    write_informed(x, &w, acts, act_order, (int)uses->len);
    jsonw_space(&w, "\n");
    jsonw_object_end(&w);
    g_string_append_c(x->out, '\n');
    g_hash_table_destroy(ents);
    g_hash_table_destroy(acts);
    g_array_unref(uses);
    g_array_unref(ent_order);
    g_array_unref(act_order);
    return 0;
}
