/* prov: W3C PROV-JSON (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One use of a version by a process, as TQ_USE_EDGES gives it (its order is the document's). */
struct use {
    int64_t pid, vid, when_ns;
    bool read;
};

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
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(x->q, tracedb_sql(TQ_USE_EDGES), &st))
        return 1; /* the error is kept in x->q: main reports it */
    while (qdb_row(x->q, st)) {
        int64_t pid = sqlite3_column_int64(st, 0), vid = sqlite3_column_int64(st, 1);
        int kind = sqlite3_column_int(st, 2);
        const struct prov_version *v = prov_version(x->p, vid);
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
        bool read = kind == TRACEDB_READ || kind == TRACEDB_EXEC;
        struct use u = {pid, v->id, sqlite3_column_int64(st, read ? 3 : 4), read};
        g_array_append_val(uses, u);
    }
    sqlite3_finalize(st);
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
