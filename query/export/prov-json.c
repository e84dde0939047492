/* prov: W3C PROV-JSON (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int fmt_prov(struct export_ctx *x)
{
    GString *ent = g_string_new(NULL), *act = g_string_new(NULL), *used = g_string_new(NULL),
            *gen = g_string_new(NULL), *inf = g_string_new(NULL);
    GHashTable *ents = g_hash_table_new(g_int64_hash, g_int64_equal);
    GHashTable *acts = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    sqlite3_stmt *st = NULL;
    int n = 0;
    if (!qdb_prepare(x->q, tracedb_sql(TQ_USE_EDGES), &st)) {
        return 1; /* the error is kept in x->q: main reports it */
    }
    while (qdb_row(x->q, st)) {
        int64_t pid = sqlite3_column_int64(st, 0), vid = sqlite3_column_int64(st, 1);
        int kind = sqlite3_column_int(st, 2);
        const struct prov_version *v = prov_version(x->p, vid);
        const struct qdb_process *p = qdb_process(x->q, pid);
        if (!v || !p)
            continue;
        if (!g_hash_table_contains(ents, &v->id)) {
            g_hash_table_add(ents, (gpointer)&v->id);
            g_string_append_printf(ent, "%s\n    \"file:v%" PRId64 "\":{\"prov:label\":",
                                   ent->len ? "," : "", v->id);
            json_string(ent, v->path, strlen(v->path));
            g_string_append_printf(ent, ",\"bt:origin\":\"%s\"",
                                   v->origin == TRACEDB_VERSION_FOUND ? "found" : "built");
            if (v->sha256[0])
                g_string_append_printf(ent, ",\"bt:sha256\":\"%s\",\"bt:gitBlob\":\"%s\"",
                                       v->sha256, v->git_sha1);
            g_string_append_c(ent, '}');
        }
        if (!g_hash_table_contains(acts, &pid)) {
            int64_t *k = g_new(int64_t, 1);
            *k = pid;
            g_hash_table_add(acts, k);
            char start[32];
            ex_iso_time(x, p->start_ns, start);
            g_string_append_printf(act, "%s\n    \"proc:p%" PRId64 "\":{\"prov:label\":",
                                   act->len ? "," : "", pid);
            GString *nm = g_string_new(NULL);
            if (p->argv)
                text_argv(nm, p->argv, p->argv_len);
            json_string(act, nm->str, nm->len);
            g_string_free(nm, TRUE);
            g_string_append_printf(act, ",\"prov:startTime\":\"%s\"", start);
            if (p->exited) {
                char end[32];
                ex_iso_time(x, p->end_ns, end);
                g_string_append_printf(act, ",\"prov:endTime\":\"%s\"", end);
            }
            g_string_append_printf(act, ",\"bt:pid\":%d}", p->pid);
        }
        char when[32];
        bool read = kind == TRACEDB_READ || kind == TRACEDB_EXEC;
        ex_iso_time(x, sqlite3_column_int64(st, read ? 3 : 4), when);
        GString *rel = read ? used : gen;
        g_string_append_printf(rel, "%s\n    \"_:%s%d\":{\"prov:%s\":\"proc:p%" PRId64 "\","
                                    "\"prov:entity\":\"file:v%" PRId64 "\",\"prov:time\":\"%s\"}",
                               rel->len ? "," : "", read ? "u" : "g", ++n,
                               "activity", pid, v->id, when);
    }
    sqlite3_finalize(st);
    /* Process tree among the activities: a child was informed by the process that started it. */
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, acts);
    while (g_hash_table_iter_next(&it, &key, NULL)) {
        int64_t id = *(int64_t *)key, up = ex_nearest_ancestor_in(x, id, acts);
        if (up)
            g_string_append_printf(inf, "%s\n    \"_:i%d\":{\"prov:informed\":\"proc:p%" PRId64
                                        "\",\"prov:informant\":\"proc:p%" PRId64 "\"}",
                                   inf->len ? "," : "", ++n, id, up);
    }
    g_autofree char *uid = ex_trace_uid(x);
    g_string_append_printf(x->out, "{\n  \"prefix\":{\"bt\":\"https://buildtrail.invalid/ns#\","
                                   "\"file\":\"https://buildtrail.invalid/trace/%s/version/\","
                                   "\"proc\":\"https://buildtrail.invalid/trace/%s/process/\"},\n"
                                   "  \"entity\":{%s},\n  \"activity\":{%s},\n  \"used\":{%s},\n"
                                   "  \"wasGeneratedBy\":{%s},\n  \"wasInformedBy\":{%s}\n}\n",
                           uid, uid, ent->str, act->str, used->str, gen->str, inf->str);
    g_hash_table_destroy(ents);
    g_hash_table_destroy(acts);
    g_string_free(ent, TRUE);
    g_string_free(act, TRUE);
    g_string_free(used, TRUE);
    g_string_free(gen, TRUE);
    g_string_free(inf, TRUE);
    return 0;
}
