/* intoto and slsa: in-toto Statements v1 with the runtime-trace and SLSA Provenance v1
 * predicates (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"
#include "jsonw.h"
#include "stmt.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One access, as the in-toto runtime trace lists them (in time order). */
struct access_row {
    int64_t first_ns, id, pid, file_id, vid;
    int kind, result;
};

static gint access_time_cmp(gconstpointer a, gconstpointer b)
{
    const struct access_row *x = a, *y = b;
    if (x->first_ns != y->first_ns)
        return x->first_ns < y->first_ns ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* every access, in storage order: the caller sorts them in memory (SQLite's sorter and a join
 * per row were most of the export's time) */
TRACEDB_STATEMENT(sql_access_log, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT process_id, kind, file_id, version_id, result, first_ns, id "
                  "FROM accesses");
enum { LOG_PROCESS, LOG_KIND, LOG_FILE, LOG_VERSION, LOG_RESULT, LOG_FIRST_NS, LOG_ID };

/* Every access, sorted by time (then id): read in one plain scan and sorted here. */
static GArray *access_log(struct export_ctx *x)
{
    GArray *log = g_array_new(FALSE, FALSE, sizeof(struct access_row));
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(x->q, sql_access_log, &st)) {
        while (qdb_row(x->q, st)) {
            struct access_row r = {.pid = sqlite3_column_int64(st, LOG_PROCESS),
                                   .kind = sqlite3_column_int(st, LOG_KIND),
                                   .file_id = sqlite3_column_int64(st, LOG_FILE),
                                   .vid = sqlite3_column_int64(st, LOG_VERSION),
                                   .result = sqlite3_column_int(st, LOG_RESULT),
                                   .first_ns = sqlite3_column_int64(st, LOG_FIRST_NS),
                                   .id = sqlite3_column_int64(st, LOG_ID)};
            g_array_append_val(log, r);
        }
    }
    sqlite3_finalize(st);
    g_array_sort(log, access_time_cmp);
    return log;
}

/* A version as a ResourceDescriptor, one element of w's array. */
static void intoto_descriptor(struct export_ctx *x, struct jsonw *w, const struct prov_version *v)
{
    jsonw_raw(w, ""); /* (the separator; the descriptor follows) */
    GString *o = w->out;
    char buf[4096];
    const char *name = ex_rel_or_abs(x, v->path, buf, sizeof buf);
    g_string_append(o, "{\"name\":");
    json_string(o, name, strlen(name));
    g_string_append(o, ",\"digest\":{");
    if (v->sha256[0])
        g_string_append_printf(o, "\"sha256\":\"%s\",\"gitBlob\":\"%s\"", v->sha256, v->git_sha1);
    g_string_append(o, "}}");
}

/* in-toto Statement v1 with SLSA Provenance v1 (slsa) or the runtime-trace predicate (intoto). */
static int fmt_statement(struct export_ctx *x, bool slsa)
{
    /* Products, materials and (intoto) every access name versions: one scan, not a lookup
     * each. */
    prov_load_versions(x->p);
    GArray *prods = ex_products(x);
    GArray *mats = ex_materials(x);
    g_array_sort(mats, ex_version_path_cmp);
    GString *o = x->out;
    g_string_append(o, "{\n  \"_type\":\"https://in-toto.io/Statement/v1\",\n  \"subject\":");
    struct jsonw w;
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        if (!v->sha256[0])
            continue;
        jsonw_space(&w, "\n    ");
        intoto_descriptor(x, &w, v);
        ex_flush(x);
    }
    jsonw_space(&w, "\n  ");
    jsonw_array_end(&w);
    /* No end is invented: a run that has none (killed, still recording) gets no finish time. */
    char started[32], finished[32] = "";
    ex_iso_time(x, x->run.start_ns, started);
    if (qdb_run(x->q)->end_realtime_ns)
        ex_iso_time(x, x->run.end_ns, finished);
    g_autofree char *uid = ex_trace_uid(x);
    if (slsa) {
        g_string_append(o, ",\n  \"predicateType\":\"https://slsa.dev/provenance/v1\",\n"
                           "  \"predicate\":{\n    \"buildDefinition\":{\"buildType\":"
                           "\"https://buildtrail.invalid/buildtypes/traced-command/v1\","
                           "\"externalParameters\":{\"command\":");
        json_argv(o, x->run.argv ? x->run.argv : "", x->run.argv_len);
        g_string_append(o, ",");
        ex_json_key_string(o, "workingDirectory", x->run.cwd);
        g_string_append(o, ",\"environment\":");
        query_json_env(o, x->q, qdb_run(x->q)->root_id);
        g_string_append(o, "},\"internalParameters\":{");
        ex_trace_state_members(x, o);
        g_string_append(o, "},\"resolvedDependencies\":");
        jsonw_init(&w, o);
        jsonw_array_begin(&w);
        for (guint i = 0; i < mats->len; i++) {
            jsonw_space(&w, "\n      ");
            intoto_descriptor(x, &w, g_array_index(mats, const struct prov_version *, i));
            ex_flush(x);
        }
        jsonw_array_end(&w);
        g_string_append_printf(o, "},\n    \"runDetails\":{\"builder\":{\"id\":"
                                  "\"https://buildtrail.invalid/builder/%s\"},\"metadata\":"
                                  "{\"invocationId\":\"%s\",\"startedOn\":\"%s\"",
                               x->run.hostname ? x->run.hostname : "unknown", uid, started);
        if (*finished)
            g_string_append_printf(o, ",\"finishedOn\":\"%s\"", finished);
        g_string_append(o, "},\"byproducts\":[{\"name\":\"build log\",\"mediaType\":"
                           "\"text/plain\"},{\"name\":\"buildtrail trace\",\"mediaType\":"
                           "\"application/vnd.sqlite3\"}]}\n  }\n}\n");
    } else {
        g_string_append(o, ",\n  \"predicateType\":\"https://in-toto.io/attestation/"
                           "runtime-trace/v0.1\",\n  \"predicate\":{\n    \"monitor\":{\"type\":"
                           "\"https://buildtrail.invalid/monitor/fuse/v1\",");
        ex_trace_state_members(x, o);
        g_string_append(o, "},\n    \"monitoredProcess\":{");
        ex_json_key_string(o, "hostID", x->run.hostname);
        g_string_append(o, ",\"type\":\"https://buildtrail.invalid/process/v1\",\"command\":");
        json_argv(o, x->run.argv ? x->run.argv : "", x->run.argv_len);
        g_string_append(o, ",\"environment\":");
        query_json_env(o, x->q, qdb_run(x->q)->root_id);
        g_string_append(o, "},\n    \"monitorLog\":{\"process\":");
        jsonw_init(&w, o);
        jsonw_array_begin(&w);
        qdb_load_all(x->q);
        GPtrArray *all = g_ptr_array_new();
        GHashTableIter it;
        gpointer v;
        g_hash_table_iter_init(&it, x->q->processes);
        while (g_hash_table_iter_next(&it, NULL, &v))
            g_ptr_array_add(all, v);
        g_ptr_array_sort(all, ex_proc_id_cmp);
        for (guint i = 0; i < all->len; i++) {
            jsonw_space(&w, "\n      ");
            jsonw_raw(&w, ""); /* (the separator; the process follows) */
            query_json_process(o, all->pdata[i]);
            ex_flush(x);
        }
        g_ptr_array_free(all, TRUE);
        jsonw_array_end(&w);
        g_string_append(o, ",\n      \"fileAccess\":");
        jsonw_init(&w, o);
        jsonw_array_begin(&w);
        GArray *log = access_log(x);
        for (guint i = 0; i < log->len; i++) {
            const struct access_row *a = &g_array_index(log, struct access_row, i);
            const char *path = prov_file_path(x->p, a->file_id); /* (all loaded above) */
            if (!path)
                continue; /* (a foreign key the trace cannot have broken unless damaged) */
            jsonw_space(&w, "\n      ");
            jsonw_object_begin(&w);
            jsonw_kv_int(&w, "process", a->pid);
            jsonw_kv_string(&w, "access", tracedb_access_kind_name(a->kind));
            jsonw_kv_string(&w, "path", path);
            const struct prov_version *ver = a->vid ? prov_version(x->p, a->vid) : NULL;
            if (ver && ver->sha256[0]) {
                jsonw_key(&w, "digest");
                jsonw_object_begin(&w);
                jsonw_kv_string(&w, "sha256", ver->sha256);
                jsonw_kv_string(&w, "gitBlob", ver->git_sha1);
                jsonw_object_end(&w);
            }
            if (a->result)
                jsonw_kv_int(&w, "errno", a->result);
            jsonw_object_end(&w);
            ex_flush(x);
        }
        g_array_unref(log);
        jsonw_array_end(&w);
        g_string_append_printf(o, "\n    },\n    \"monitorStartTime\":\"%s\"", started);
        if (*finished)
            g_string_append_printf(o, ",\"monitorEndTime\":\"%s\"", finished);
        g_string_append(o, "\n  }\n}\n");
    }
    g_array_unref(prods);
    g_array_unref(mats);
    return 0;
}

int fmt_intoto(struct export_ctx *x)
{
    return fmt_statement(x, false);
}

int fmt_slsa(struct export_ctx *x)
{
    return fmt_statement(x, true);
}
