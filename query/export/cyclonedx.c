/* cyclonedx: CycloneDX 1.6 JSON with the build as a formulation (docs/exports.md). */
#include "export.h"
#include "jsonw.h"

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
    GHashTable *cache;  /* each found file's license (licroll_cache_new) */
    GHashTable *rollups; /* product version id -> char * roll-up */
    struct ex_debs *debs;
    GPtrArray *deps;    /* per product (prods' order): GPtrArray of the struct ex_deb * whose
                         * files it was made from, or NULL */
};

static void cdx_add_component(struct cdx *c, const struct prov_version *v)
{
    if (g_hash_table_contains(c->seen, &v->id))
        return;
    g_hash_table_add(c->seen, (gpointer)&v->id);
    g_array_append_val(c->components, v->id);
}

/* `"licenses":[{"expression":…,"acknowledgement":…}]` for a valid expression. */
static void cdx_licenses(GString *co, const char *expr, const char *ack)
{
    GPtrArray *items = g_ptr_array_new_with_free_func(g_free);
    if (expr && *expr && ex_license_items(expr, items) && items->len) {
        g_string_append(co, ",\"licenses\":[{\"expression\":");
        json_string(co, expr, strlen(expr));
        g_string_append_printf(co, ",\"acknowledgement\":\"%s\"}]", ack);
    }
    g_ptr_array_free(items, TRUE);
}

/* v as a component, an element of w's array. */
static void cdx_write_component(struct export_ctx *x, struct cdx *c, struct jsonw *w,
                                const struct prov_version *v)
{
    GString *co = w->out;
    char buf[4096];
    jsonw_space(w, "\n    ");
    jsonw_raw(w, "{\"type\":\"file\",\"bom-ref\":"); /* (the component follows) */
    cdx_component_ref(co, v);
    g_string_append(co, ",\"name\":");
    const char *name = ex_rel_or_abs(x, v->path, buf, sizeof buf);
    json_string(co, name, strlen(name));
    if (v->sha256[0])
        g_string_append_printf(co, ",\"hashes\":[{\"alg\":\"SHA-256\",\"content\":\"%s\"},"
                                   "{\"alg\":\"SHA-1\",\"content\":\"%s\"}]",
                               v->sha256, v->sha1);
    const char *roll = g_hash_table_lookup(c->rollups, &v->id);
    if (roll)
        cdx_licenses(co, roll, "concluded");
    else if (v->origin == TRACEDB_VERSION_FOUND)
        cdx_licenses(co, ex_file_license(c->cache, v), "declared");
    g_string_append_printf(co, ",\"properties\":[{\"name\":\"buildtrail:origin\",\"value\":\"%s\"},"
                               "{\"name\":\"buildtrail:gitoid\",\"value\":\"%s\"}",
                           v->origin == TRACEDB_VERSION_FOUND ? "found" : "built", v->git_sha1);
    if (roll)
        g_string_append(co, ",{\"name\":\"buildtrail:license:method\",\"value\":\""
                            EX_LICENSE_METHOD "\"}");
    const struct ex_deb *deb = g_hash_table_lookup(c->debs->by_version, &v->id);
    if (deb) {
        g_string_append(co, ",{\"name\":\"buildtrail:package\",\"value\":");
        json_string(co, deb->purl, strlen(deb->purl));
        g_string_append_c(co, '}');
    }
    g_string_append(co, "]}");
}

/* The Debian packages as library components, each with the files of it the build read as
 * occurrences. */
static void cdx_write_packages(struct export_ctx *x, struct cdx *c, struct jsonw *w)
{
    GString *o = w->out;
    for (guint i = 0; i < c->debs->list->len; i++) {
        const struct ex_deb *e = c->debs->list->pdata[i];
        jsonw_space(w, "\n    ");
        jsonw_raw(w, "{\"type\":\"library\","); /* (the package follows) */
        ex_json_key_string(o, "bom-ref", e->purl);
        ex_json_members(o, "name", e->pkg->name, "version", e->pkg->version, "purl", e->purl,
                        NULL);
        g_string_append(o, ",\"properties\":[{\"name\":\"buildtrail:debian:source\",\"value\":");
        g_autofree char *src = g_strdup_printf("%s %s", e->pkg->source, e->pkg->source_version);
        json_string(o, src, strlen(src));
        g_string_append_printf(o, "},{\"name\":\"buildtrail:debian:files-read\",\"value\":"
                                  "\"%u\"},{\"name\":\"buildtrail:debian:executed\",\"value\":"
                                  "\"%s\"}]", e->files, e->executed ? "true" : "false");
        if (e->versions->len) {
            g_string_append(o, ",\"evidence\":{\"occurrences\":");
            struct jsonw occ;
            jsonw_init(&occ, o);
            jsonw_array_begin(&occ);
            for (guint k = 0; k < e->versions->len; k++) {
                const struct prov_version *v = prov_version(x->p, g_array_index(e->versions,
                                                                                 int64_t, k));
                jsonw_object_begin(&occ);
                jsonw_kv_string(&occ, "location", v ? v->path : "?");
                jsonw_object_end(&occ);
            }
            jsonw_array_end(&occ);
            g_string_append_c(o, '}');
        }
        g_string_append_c(o, '}');
        ex_flush(x);
    }
}

/* The purls of `debs` (struct ex_deb *) as a JSON array. */
static void cdx_purls(GString *o, const GPtrArray *debs)
{
    struct jsonw w;
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    for (guint i = 0; i < debs->len; i++)
        jsonw_string(&w, ((const struct ex_deb *)debs->pdata[i])->purl);
    jsonw_array_end(&w);
}

/* dependencies: the build on every package it read from; each product on the packages whose
 * files it was made from (its leaf inputs: sources, headers, objects, copies). */
static void cdx_write_dependencies(struct export_ctx *x, struct cdx *c, GArray *prods, GString *o)
{
    g_string_append(o, "\n  \"dependencies\":[{\"ref\":\"build\",\"dependsOn\":");
    cdx_purls(o, c->debs->list);
    g_string_append(o, "}");
    for (guint i = 0; i < prods->len; i++) {
        GPtrArray *deps = c->deps->pdata[i];
        if (!deps || !deps->len)
            continue;
        g_string_append(o, ",\n    {\"ref\":");
        cdx_component_ref(o, g_array_index(prods, const struct prov_version *, i));
        g_string_append(o, ",\"dependsOn\":");
        cdx_purls(o, deps);
        g_string_append(o, "}");
        ex_flush(x);
    }
    g_string_append(o, "],");
}

/* A task's inputs (the versions process `pid` read) or outputs (those it wrote): listed as
 * components (c), or written as resource references (tasks). */
static void cdx_resources(struct export_ctx *x, struct cdx *c, GString *tasks, int64_t pid,
                          bool inputs)
{
    GPtrArray *versions = ex_versions_of(x, pid, inputs ? TQ_VERSIONS_READ_BY_PROCESS
                                                             : TQ_VERSIONS_MADE_BY_PROCESS);
    struct jsonw w;
    if (tasks) {
        jsonw_init(&w, tasks);
        jsonw_array_begin(&w);
    }
    for (guint m = 0; m < versions->len; m++) {
        const struct prov_version *v = versions->pdata[m];
        if (c) {
            cdx_add_component(c, v);
            continue;
        }
        jsonw_raw(&w, "{\"resource\":{\"ref\":"); /* (the reference follows) */
        cdx_component_ref(tasks, v);
        g_string_append(tasks, "}}");
    }
    if (tasks)
        jsonw_array_end(&w);
    g_ptr_array_free(versions, TRUE);
}

static void ptr_array_free_or_null(gpointer a)
{
    if (a)
        g_ptr_array_free(a, TRUE);
}

int fmt_cyclonedx(struct export_ctx *x)
{
    prov_load(x->p); /* a walk per product: in memory, not one SQL lookup per step */
    GArray *prods = ex_products(x);
    struct cdx c = {g_hash_table_new(g_int64_hash, g_int64_equal),
                    g_array_new(FALSE, FALSE, sizeof(int64_t)),
                    g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL),
                    g_array_new(FALSE, FALSE, sizeof(int64_t)),
                    licroll_cache_new(),
                    g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free),
                    ex_debs_load(x),
                    g_ptr_array_new_with_free_func(ptr_array_free_or_null)};
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        cdx_add_component(&c, v);
        char *roll = ex_product_license(x, v, c.cache, NULL);
        if (roll)
            g_hash_table_insert(c.rollups, (gpointer)&v->id, roll);
        GArray *leaves, *tools;
        ex_product_inputs(x, v, &leaves, &tools);
        GPtrArray *deps = NULL;
        for (guint k = 0; k < leaves->len; k++) {
            const struct prov_version *in = g_array_index(leaves, const struct prov_version *, k);
            cdx_add_component(&c, in);
            struct ex_deb *e = g_hash_table_lookup(c.debs->by_version, &in->id);
            if (!e)
                continue;
            if (!deps)
                deps = g_ptr_array_new();
            bool dup = false;
            for (guint d = 0; d < deps->len && !dup; d++)
                dup = deps->pdata[d] == e;
            if (!dup)
                g_ptr_array_add(deps, e);
        }
        g_ptr_array_add(c.deps, deps);
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
    g_string_append(o, "]},\n  \"components\":");
    struct jsonw w;
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    for (guint i = 0; i < c.components->len; i++) {
        cdx_write_component(x, &c, &w,
                            prov_version(x->p, g_array_index(c.components, int64_t, i)));
        ex_flush(x);
    }
    cdx_write_packages(x, &c, &w);
    jsonw_space(&w, "\n  ");
    jsonw_array_end(&w);
    g_string_append_c(o, ',');
    cdx_write_dependencies(x, &c, prods, o);
    g_string_append_printf(o, "\n  \"formulation\":[{\"bom-ref\":"
                              "\"formula-1\",\"workflows\":[{\"bom-ref\":\"workflow-1\","
                              "\"uid\":\"%s\",\"name\":", uid);
    json_string(o, name, strlen(name));
    g_string_append(o, ",\"taskTypes\":[\"build\"],\"tasks\":");
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    for (guint i = 0; i < c.tasks->len; i++) {
        int64_t pid = g_array_index(c.tasks, int64_t, i);
        const struct qdb_process *p = qdb_process(x->q, pid);
        jsonw_space(&w, "\n      ");
        jsonw_raw(&w, "{"); /* (the task follows) */
        g_string_append_printf(o, "\"bom-ref\":\"task-p%" PRId64 "\",\"uid\":\"p%" PRId64 "\","
                                  "\"name\":", pid, pid);
        GString *nm = g_string_new(NULL);
        if (p && p->argv)
            text_argv(nm, p->argv, p->argv_len);
        else
            g_string_append(nm, "?");
        json_string(o, nm->str, nm->len);
        g_string_free(nm, TRUE);
        g_string_append(o, ",\"taskTypes\":[\"build\"],\"inputs\":");
        cdx_resources(x, NULL, o, pid, true);
        g_string_append(o, ",\"outputs\":");
        cdx_resources(x, NULL, o, pid, false);
        g_string_append(o, "}");
        ex_flush(x);
    }
    jsonw_space(&w, "\n    ");
    jsonw_array_end(&w);
    g_string_append(o, "}]}]\n}\n");
    g_hash_table_destroy(c.seen);
    g_hash_table_destroy(c.cache);
    g_hash_table_destroy(c.rollups);
    ex_debs_free(c.debs);
    g_ptr_array_free(c.deps, TRUE);
    g_array_unref(c.components);
    g_hash_table_destroy(c.task_done);
    g_array_unref(c.tasks);
    g_array_unref(prods);
    return 0;
}
