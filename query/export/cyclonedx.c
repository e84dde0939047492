/* cyclonedx: CycloneDX 1.6 JSON with the build as a formulation (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void cdx_component_ref(GString *o, const struct prov_version *v)
{
    g_string_append_printf(o, "\"file-v%" PRId64 "\"", v->id);
}

static void cdx_add_component(struct export_ctx *x, GHashTable *seen, GString *co,
                              const struct prov_version *v)
{
    if (g_hash_table_contains(seen, &v->id))
        return;
    g_hash_table_add(seen, (gpointer)&v->id);
    char buf[4096];
    g_string_append(co, co->len ? ",\n    {\"type\":\"file\",\"bom-ref\":"
                                : "\n    {\"type\":\"file\",\"bom-ref\":");
    cdx_component_ref(co, v);
    g_string_append(co, ",\"name\":");
    const char *name = ex_rel_or_abs(x, v->path, buf, sizeof buf);
    json_string(co, name, strlen(name));
    if (v->sha256[0])
        g_string_append_printf(co, ",\"hashes\":[{\"alg\":\"SHA-256\",\"content\":\"%s\"},"
                                   "{\"alg\":\"SHA-1\",\"content\":\"%s\"}]",
                               v->sha256, v->sha1);
    g_string_append_printf(co, ",\"properties\":[{\"name\":\"buildtrail:origin\",\"value\":\"%s\"},"
                               "{\"name\":\"buildtrail:gitoid\",\"value\":\"%s\"}]}",
                           v->origin == TRACEDB_VERSION_FOUND ? "found" : "built", v->git_sha1);
}

/* A task's inputs (the versions process `pid` read) or outputs (those it wrote), as
 * resource references; each becomes a component too. */
static void cdx_resources(struct export_ctx *x, GHashTable *seen, GString *co, GString *tasks,
                          int64_t pid, bool inputs)
{
    GPtrArray *versions = ex_versions_of(x, pid, inputs ? TQ_VERSIONS_READ_BY_PROCESS
                                                             : TQ_VERSIONS_MADE_BY_PROCESS);
    bool first = true;
    for (guint m = 0; m < versions->len; m++) {
        const struct prov_version *v = versions->pdata[m];
        cdx_add_component(x, seen, co, v);
        g_string_append(tasks, first ? "{\"resource\":{\"ref\":" : ",{\"resource\":{\"ref\":");
        cdx_component_ref(tasks, v);
        g_string_append(tasks, "}}");
        first = false;
    }
    g_ptr_array_free(versions, TRUE);
}

int fmt_cyclonedx(struct export_ctx *x)
{
    prov_load(x->p); /* a walk per product: in memory, not one SQL lookup per step */
    GArray *prods = ex_products(x);
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    GString *co = g_string_new(NULL), *tasks = g_string_new(NULL);
    GHashTable *task_done = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        cdx_add_component(x, seen, co, v);
        GArray *leaves, *tools;
        ex_product_inputs(x, v, &leaves, &tools);
        for (guint k = 0; k < leaves->len; k++)
            cdx_add_component(x, seen, co, g_array_index(leaves, const struct prov_version *, k));
        GArray *w = ex_writers(x, v);
        for (guint k = 0; k < w->len; k++) {
            int64_t pid = g_array_index(w, int64_t, k);
            if (g_hash_table_contains(task_done, &pid))
                continue;
            int64_t *key = g_new(int64_t, 1);
            *key = pid;
            g_hash_table_add(task_done, key);
            const struct qdb_process *p = qdb_process(x->q, pid);
            g_string_append(tasks, tasks->len ? ",\n      {" : "\n      {");
            g_string_append_printf(tasks, "\"bom-ref\":\"task-p%" PRId64 "\",\"uid\":\"p%" PRId64 "\","
                                          "\"name\":", pid, pid);
            GString *nm = g_string_new(NULL);
            if (p && p->argv)
                text_argv(nm, p->argv, p->argv_len);
            else
                g_string_append(nm, "?");
            json_string(tasks, nm->str, nm->len);
            g_string_free(nm, TRUE);
            g_string_append(tasks, ",\"taskTypes\":[\"build\"],\"inputs\":[");
            cdx_resources(x, seen, co, tasks, pid, true);
            g_string_append(tasks, "],\"outputs\":[");
            cdx_resources(x, seen, co, tasks, pid, false);
            g_string_append(tasks, "]}");
        }
        g_array_unref(w);
        g_array_unref(leaves);
        g_array_unref(tools);
    }
    char created[32];
    ex_iso_time(x, x->run.start_ns, created);
    g_autofree char *uid = ex_trace_uid(x);
    g_autofree char *name = ex_doc_name(x);
    GString *o = x->out;
    g_string_append_printf(o, "{\n  \"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\","
                              "\"serialNumber\":\"urn:uuid:%.8s-%.4s-4%.3s-8%.3s-%.12s\","
                              "\"version\":1,\n  \"metadata\":{\"timestamp\":\"%s\","
                              "\"tools\":{\"components\":[{\"type\":\"application\","
                              "\"name\":\"buildtrail\",\"version\":\"%s\"}]},\"component\":"
                              "{\"type\":\"application\",\"bom-ref\":\"build\",\"name\":",
                           uid, uid + 8, uid + 12, uid + 15, uid + 18, created,
                           x->run.version ? x->run.version : BT_VERSION);
    json_string(o, name, strlen(name));
    g_string_append(o, "},\"properties\":[{\"name\":\"buildtrail:trace:state\",\"value\":");
    const struct qdb_run *run = qdb_run(x->q);
    const char *state = qdb_run_state_name(run->state);
    json_string(o, state, strlen(state));
    g_string_append_printf(o, "},{\"name\":\"buildtrail:trace:complete\",\"value\":\"%s\"}",
                           run->complete ? "true" : "false");
    if (run->incomplete) {
        g_string_append(o, ",{\"name\":\"buildtrail:trace:incomplete\",\"value\":");
        json_string(o, run->incomplete, strlen(run->incomplete));
        g_string_append_c(o, '}');
    }
    g_string_append_printf(o, "]},\n  \"components\":[%s\n  ],\n  \"formulation\":[{\"bom-ref\":"
                              "\"formula-1\",\"workflows\":[{\"bom-ref\":\"workflow-1\","
                              "\"uid\":\"%s\",\"name\":", co->str, uid);
    json_string(o, name, strlen(name));
    g_string_append_printf(o, ",\"taskTypes\":[\"build\"],\"tasks\":[%s\n    ]}]}]\n}\n",
                           tasks->str);
    g_string_free(co, TRUE);
    g_string_free(tasks, TRUE);
    g_hash_table_destroy(task_done);
    g_hash_table_destroy(seen);
    g_array_unref(prods);
    return 0;
}
