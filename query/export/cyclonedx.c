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

/* The document streams: first every component is found (in the order the document lists
 * them: each product, its leaf inputs, then the inputs and outputs of each new task that made
 * it) and only its id kept; then the components are written, then the tasks. */
struct cdx {
    GHashTable *seen;   /* version ids listed */
    GArray *components; /* int64_t version ids, in order */
    GHashTable *task_done;
    GArray *tasks;      /* int64_t process ids, in order */
};

static void cdx_add_component(struct cdx *c, const struct prov_version *v)
{
    if (g_hash_table_contains(c->seen, &v->id))
        return;
    g_hash_table_add(c->seen, (gpointer)&v->id);
    g_array_append_val(c->components, v->id);
}

static void cdx_write_component(struct export_ctx *x, GString *co, bool first,
                                const struct prov_version *v)
{
    char buf[4096];
    g_string_append(co, first ? "\n    {\"type\":\"file\",\"bom-ref\":"
                              : ",\n    {\"type\":\"file\",\"bom-ref\":");
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

/* A task's inputs (the versions process `pid` read) or outputs (those it wrote): listed as
 * components (c), or written as resource references (tasks). */
static void cdx_resources(struct export_ctx *x, struct cdx *c, GString *tasks, int64_t pid,
                          bool inputs)
{
    GPtrArray *versions = ex_versions_of(x, pid, inputs ? TQ_VERSIONS_READ_BY_PROCESS
                                                             : TQ_VERSIONS_MADE_BY_PROCESS);
    bool first = true;
    for (guint m = 0; m < versions->len; m++) {
        const struct prov_version *v = versions->pdata[m];
        if (c) {
            cdx_add_component(c, v);
            continue;
        }
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
    struct cdx c = {g_hash_table_new(g_int64_hash, g_int64_equal),
                    g_array_new(FALSE, FALSE, sizeof(int64_t)),
                    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
                    g_array_new(FALSE, FALSE, sizeof(int64_t))};
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        cdx_add_component(&c, v);
        GArray *leaves, *tools;
        ex_product_inputs(x, v, &leaves, &tools);
        for (guint k = 0; k < leaves->len; k++)
            cdx_add_component(&c, g_array_index(leaves, const struct prov_version *, k));
        GArray *w = ex_writers(x, v);
        for (guint k = 0; k < w->len; k++) {
            int64_t pid = g_array_index(w, int64_t, k);
            if (g_hash_table_contains(c.task_done, &pid))
                continue;
            int64_t *key = g_new(int64_t, 1);
            *key = pid;
            g_hash_table_add(c.task_done, key);
            g_array_append_val(c.tasks, pid);
            cdx_resources(x, &c, NULL, pid, true);
            cdx_resources(x, &c, NULL, pid, false);
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
    g_string_append(o, "]},\n  \"components\":[");
    for (guint i = 0; i < c.components->len; i++) {
        cdx_write_component(x, o, i == 0,
                            prov_version(x->p, g_array_index(c.components, int64_t, i)));
        ex_flush(x);
    }
    g_string_append_printf(o, "\n  ],\n  \"formulation\":[{\"bom-ref\":"
                              "\"formula-1\",\"workflows\":[{\"bom-ref\":\"workflow-1\","
                              "\"uid\":\"%s\",\"name\":", uid);
    json_string(o, name, strlen(name));
    g_string_append(o, ",\"taskTypes\":[\"build\"],\"tasks\":[");
    for (guint i = 0; i < c.tasks->len; i++) {
        int64_t pid = g_array_index(c.tasks, int64_t, i);
        const struct qdb_process *p = qdb_process(x->q, pid);
        g_string_append(o, i ? ",\n      {" : "\n      {");
        g_string_append_printf(o, "\"bom-ref\":\"task-p%" PRId64 "\",\"uid\":\"p%" PRId64 "\","
                                  "\"name\":", pid, pid);
        GString *nm = g_string_new(NULL);
        if (p && p->argv)
            text_argv(nm, p->argv, p->argv_len);
        else
            g_string_append(nm, "?");
        json_string(o, nm->str, nm->len);
        g_string_free(nm, TRUE);
        g_string_append(o, ",\"taskTypes\":[\"build\"],\"inputs\":[");
        cdx_resources(x, NULL, o, pid, true);
        g_string_append(o, "],\"outputs\":[");
        cdx_resources(x, NULL, o, pid, false);
        g_string_append(o, "]}");
        ex_flush(x);
    }
    g_string_append(o, "\n    ]}]}]\n}\n");
    g_hash_table_destroy(c.seen);
    g_array_unref(c.components);
    g_hash_table_destroy(c.task_done);
    g_array_unref(c.tasks);
    g_array_unref(prods);
    return 0;
}
