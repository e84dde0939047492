/* spdx3: SPDX 3.0.1 JSON-LD, Core + Software + Build profiles (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "jsonw.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The document is streamed: CreationInfo, then every element as it is made, then the
 * SpdxDocument, whose element list is made again from what was kept of each (a version or
 * process id, a count): memory does not grow with the document's text. */
struct spdx3 {
    struct export_ctx *x;
    const char *base;       /* IRI prefix of this document's elements */
    GString *graph;         /* the document being written (x->out) */
    GHashTable *files;      /* version ids already written */
    GArray *file_ids;       /* int64_t: the same, in the order written */
    GArray *build_ids;      /* int64_t: the processes written as build_Build */
    int n_rel;
    GHashTable *licenses;   /* expression -> its index (GUINT, from 1): one element each */
    GPtrArray *license_list; /* the expressions, by index - 1 (borrowed from the table) */
};

static void s3_begin(struct spdx3 *d, const char *type, const char *iri)
{
    ex_flush(d->x);
    g_string_append(d->graph, ",\n  {\"type\":\"");
    g_string_append(d->graph, type);
    g_string_append(d->graph, "\",\"spdxId\":");
    json_string(d->graph, iri, strlen(iri));
    g_string_append(d->graph, ",\"creationInfo\":\"_:creation\"");
}

static char *s3_file_iri(struct spdx3 *d, const struct prov_version *v)
{
    return g_strdup_printf("%sfile/v%" PRId64, d->base, v->id);
}

static void s3_file(struct spdx3 *d, const struct prov_version *v)
{
    if (g_hash_table_contains(d->files, &v->id))
        return;
    g_hash_table_add(d->files, (gpointer)&v->id);
    g_array_append_val(d->file_ids, v->id);
    g_autofree char *iri = s3_file_iri(d, v);
    s3_begin(d, "software_File", iri);
    char buf[4096];
    const char *name = ex_rel_or_abs(d->x, v->path, buf, sizeof buf);
    g_string_append(d->graph, ",\"name\":");
    json_string(d->graph, name, strlen(name));
    g_string_append(d->graph, ",\"software_fileKind\":\"file\"");
    static const char *const purpose[] = {
        [EX_FT_EXECUTABLE] = "executable", [EX_FT_SHLIB] = "library", [EX_FT_OBJECT] = "module",
        [EX_FT_ARCHIVE] = "archive", [EX_FT_SOURCE] = "source",
        [EX_FT_DOCUMENTATION] = "documentation", [EX_FT_TEXT] = "file", [EX_FT_OTHER] = "file"};
    g_string_append_printf(d->graph, ",\"software_primaryPurpose\":\"%s\"",
                           purpose[ex_file_type(v)]);
    if (v->sha256[0])
        g_string_append_printf(d->graph, ",\"verifiedUsing\":[{\"type\":\"Hash\",\"algorithm\":"
                                         "\"sha256\",\"hashValue\":\"%s\"},{\"type\":\"Hash\","
                                         "\"algorithm\":\"sha1\",\"hashValue\":\"%s\"}],"
                                         "\"software_contentIdentifier\":[{\"type\":"
                                         "\"software_ContentIdentifier\",\"software_contentIdentifierType\":"
                                         "\"swhid\",\"software_contentIdentifierValue\":"
                                         "\"swh:1:cnt:%s\"}]",
                               v->sha256, v->sha1, v->git_sha1);
    g_string_append(d->graph, "}");
}

static void s3_rel(struct spdx3 *d, const char *from, const char *type, GPtrArray *to)
{
    if (!to->len)
        return;
    g_autofree char *iri = g_strdup_printf("%srelationship/%d", d->base, ++d->n_rel);
    s3_begin(d, "Relationship", iri);
    g_string_append(d->graph, ",\"from\":");
    json_string(d->graph, from, strlen(from));
    g_string_append_printf(d->graph, ",\"relationshipType\":\"%s\",\"to\":", type);
    struct jsonw w;
    jsonw_init(&w, d->graph);
    jsonw_array_begin(&w);
    for (guint i = 0; i < to->len; i++)
        jsonw_string(&w, to->pdata[i]);
    jsonw_array_end(&w);
    g_string_append_c(d->graph, '}');
}

/* The versions a process read (kinds 1) or wrote (2,3,4) or executed (5), as file IRIs. */
static GPtrArray *s3_files_of(struct spdx3 *d, int64_t pid, enum tracedb_query which)
{
    GPtrArray *versions = ex_versions_of(d->x, pid, which);
    GPtrArray *iris = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < versions->len; i++) {
        s3_file(d, versions->pdata[i]);
        g_ptr_array_add(iris, s3_file_iri(d, versions->pdata[i]));
    }
    g_ptr_array_free(versions, TRUE);
    return iris;
}

/* A process's environment as build_environment DictionaryEntry items (a redacted value:
 * the key alone), in an array of w. */
static void s3_env_entry(const char *name, const char *value, void *data)
{
    struct jsonw *w = data;
    jsonw_object_begin(w);
    jsonw_kv_string(w, "type", "DictionaryEntry");
    jsonw_kv_string(w, "key", name);
    if (value)
        jsonw_kv_string(w, "value", value);
    jsonw_object_end(w);
}

/* The IRI of the LicenseExpression element for `expr` (written the first time), or NULL
 * when it is not a valid expression. */
static char *s3_license(struct spdx3 *d, const char *expr)
{
    if (!expr || !*expr)
        return NULL;
    guint n = GPOINTER_TO_UINT(g_hash_table_lookup(d->licenses, expr));
    if (!n) {
        GPtrArray *items = g_ptr_array_new_with_free_func(g_free);
        bool ok = ex_license_items(expr, items) && items->len;
        g_ptr_array_free(items, TRUE);
        if (!ok)
            return NULL;
        char *key = g_strdup(expr);
        g_ptr_array_add(d->license_list, key);
        n = d->license_list->len;
        g_hash_table_insert(d->licenses, key, GUINT_TO_POINTER(n));
        g_autofree char *iri = g_strdup_printf("%slicense/%u", d->base, n);
        s3_begin(d, "simplelicensing_LicenseExpression", iri);
        g_string_append(d->graph, ",\"simplelicensing_licenseExpression\":");
        json_string(d->graph, expr, strlen(expr));
        g_string_append(d->graph, "}");
    }
    return g_strdup_printf("%slicense/%u", d->base, n);
}

/* file -hasConcludedLicense-> its roll-up (a product) or -hasDeclaredLicense-> what its text
 * says (a found file), when known. */
static void s3_file_license(struct spdx3 *d, const struct prov_version *v, const char *expr,
                            bool concluded)
{
    g_autofree char *lic = s3_license(d, expr);
    if (!lic)
        return;
    g_autofree char *from = s3_file_iri(d, v);
    GPtrArray *to = g_ptr_array_new();
    g_ptr_array_add(to, lic);
    size_t mark = d->graph->len;
    s3_rel(d, from, concluded ? "hasConcludedLicense" : "hasDeclaredLicense", to);
    if (concluded && d->graph->len > mark) { /* the method, on the relationship */
        d->graph->len--; /* the closing brace */
        g_string_append(d->graph, ",\"comment\":\"" EX_LICENSE_METHOD "\"}");
    }
    g_ptr_array_free(to, TRUE);
}

/* CreationInfo, then the agent (who ran buildtrail) and the tool. */
static void s3_creation(struct spdx3 *d, const char *agent, const char *tool)
{
    struct export_ctx *x = d->x;
    char created[32];
    ex_iso_time(x, x->run.start_ns, created);
    GString *o = x->out;
    g_string_append(o, "{\"@context\":\"https://spdx.org/rdf/3.0.1/spdx-context.jsonld\",\n"
                       "\"@graph\":[\n  {\"type\":\"CreationInfo\",\"@id\":\"_:creation\","
                       "\"specVersion\":\"3.0.1\",");
    g_string_append_printf(o, "\"created\":\"%s\",\"createdBy\":[", created);
    json_string(o, agent, strlen(agent));
    g_string_append(o, "],\"createdUsing\":[");
    json_string(o, tool, strlen(tool));
    g_string_append(o, "]");
    ex_incomplete_member(x, o, "comment");
    g_string_append(o, "}");
    s3_begin(d, "SoftwareAgent", agent);
    g_string_append(d->graph, ",\"name\":");
    g_autofree char *who = g_strdup_printf("the user who ran buildtrail on %s",
                                           x->run.hostname ? x->run.hostname : "unknown");
    json_string(d->graph, who, strlen(who));
    g_string_append(d->graph, "}");
    s3_begin(d, "Tool", tool);
    g_string_append_printf(d->graph, ",\"name\":\"buildtrail %s\"}",
                           x->run.version ? x->run.version : BT_VERSION);
}

/* The processes that made a product or a version in a product's closure — the union of
 * the products' closures, in one walk — sorted, each once. */
static GArray *s3_builders(struct export_ctx *x, GArray *prods)
{
    GArray *starts = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), prods->len);
    for (guint i = 0; i < prods->len; i++)
        g_array_append_val(starts, g_array_index(prods, const struct prov_version *, i)->id);
    static const struct prov_walk_opts walk = {.scripts = false};
    GArray *nodes = prov_inputs_of_all(x->p, starts, &walk);
    GArray *pids = g_array_new(FALSE, FALSE, sizeof(int64_t)), *one = g_array_new(FALSE, FALSE,
                                                                              sizeof(int64_t));
    for (guint k = 0; k < nodes->len; k++) {
        g_array_set_size(one, 0);
        prov_makers(x->p, g_array_index(nodes, struct prov_node, k).v->id, one);
        g_array_append_vals(pids, one->data, one->len);
    }
    g_array_unref(one);
    g_array_unref(nodes);
    g_array_unref(starts);
    g_array_sort(pids, ex_proc_id_cmp_int64);
    GArray *unique = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (guint i = 0; i < pids->len; i++) {
        int64_t pid = g_array_index(pids, int64_t, i);
        if (!i || pid != g_array_index(pids, int64_t, i - 1))
            g_array_append_val(unique, pid);
    }
    g_array_unref(pids);
    return unique;
}

/* One process as a build_Build, with its inputs, outputs, tools and who invoked it. */
static void s3_build(struct spdx3 *d, const struct qdb_process *p, const char *agent)
{
    struct export_ctx *x = d->x;
    int64_t pid = p->id;
    g_array_append_val(d->build_ids, pid);
    g_autofree char *iri = g_strdup_printf("%sbuild/p%" PRId64, d->base, pid);
    s3_begin(d, "build_Build", iri);
    g_string_append(d->graph, ",\"name\":");
    GString *nm = g_string_new(NULL);
    if (p->argv)
        text_argv(nm, p->argv, p->argv_len);
    json_string(d->graph, nm->str, nm->len);
    g_string_free(nm, TRUE);
    char start[32];
    ex_iso_time(x, p->start_ns, start);
    g_string_append_printf(d->graph, ",\"build_buildType\":\"https://buildtrail.invalid/"
                                     "buildtypes/process/v1\",\"build_buildId\":\"p%" PRId64 "\","
                                     "\"build_buildStartTime\":\"%s\"", pid, start);
    if (p->exited) {
        char end[32];
        ex_iso_time(x, p->end_ns, end);
        g_string_append_printf(d->graph, ",\"build_buildEndTime\":\"%s\"", end);
    }
    size_t mark = d->graph->len;
    g_string_append(d->graph, ",\"build_environment\":");
    struct jsonw w;
    jsonw_init(&w, d->graph);
    jsonw_array_begin(&w);
    if (!query_each_env(x->q, pid, s3_env_entry, &w) || !w.has_items[0])
        g_string_truncate(d->graph, mark);
    else
        jsonw_array_end(&w);
    g_string_append(d->graph, "}");
    GPtrArray *in = s3_files_of(d, pid, TQ_VERSIONS_OPENED_BY_PROCESS),
              *out = s3_files_of(d, pid, TQ_VERSIONS_MADE_BY_PROCESS),
              *tools = s3_files_of(d, pid, TQ_VERSIONS_EXECUTED_BY_PROCESS);
    s3_rel(d, iri, "hasInput", in);
    s3_rel(d, iri, "hasOutput", out);
    s3_rel(d, iri, "usesTool", tools);
    GPtrArray *by = g_ptr_array_new();
    g_ptr_array_add(by, (gpointer)agent);
    s3_rel(d, iri, "invokedBy", by);
    g_ptr_array_free(by, TRUE);
    g_ptr_array_free(in, TRUE);
    g_ptr_array_free(out, TRUE);
    g_ptr_array_free(tools, TRUE);
}

/* Licenses: each product's roll-up, each found file's detection. */
static void s3_licenses(struct spdx3 *d, GArray *prods)
{
    struct export_ctx *x = d->x;
    GHashTable *cache = licroll_cache_new();
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        g_autofree char *roll = ex_product_license(x, v, cache, NULL);
        s3_file(d, v);
        s3_file_license(d, v, roll, true);
    }
    for (guint i = 0; i < d->file_ids->len; i++) {
        const struct prov_version *v = prov_version(x->p, g_array_index(d->file_ids, int64_t, i));
        if (v && v->origin == TRACEDB_VERSION_FOUND)
            s3_file_license(d, v, ex_file_license(cache, v), false);
    }
    g_hash_table_destroy(cache);
}

/* The Debian packages the build read from, each containing its files listed above. */
static void s3_packages(struct spdx3 *d, const struct ex_debs *debs)
{
    GString *o = d->graph;
    for (guint i = 0; i < debs->list->len; i++) {
        const struct ex_deb *e = debs->list->pdata[i];
        g_autofree char *iri = g_strdup_printf("%spackage/%u", d->base, i + 1);
        s3_begin(d, "software_Package", iri);
        g_autofree char *src = ex_deb_source_info(e->pkg);
        ex_json_members(o, "name", e->pkg->name, "software_packageVersion", e->pkg->version,
                        "software_packageUrl", e->purl, "software_sourceInfo", src, NULL);
        g_string_append(o, ",\"software_primaryPurpose\":\"install\"}");
        GPtrArray *in = g_ptr_array_new_with_free_func(g_free);
        for (guint k = 0; k < e->versions->len; k++) {
            int64_t vid = g_array_index(e->versions, int64_t, k);
            if (g_hash_table_contains(d->files, &vid))
                g_ptr_array_add(in, g_strdup_printf("%sfile/v%" PRId64, d->base, vid));
        }
        s3_rel(d, iri, "contains", in);
        g_ptr_array_free(in, TRUE);
    }
}

/* The IRIs "BASE" KIND N for each of `ids` (int64_t) into array w. */
static void s3_ids(struct spdx3 *d, struct jsonw *w, const char *kind, GArray *ids)
{
    for (guint i = 0; i < ids->len; i++) {
        g_autofree char *iri = g_strdup_printf("%s%s%" PRId64, d->base, kind,
                                               g_array_index(ids, int64_t, i));
        jsonw_string(w, iri);
        ex_flush(d->x);
    }
}

/* The IRIs "BASE" KIND N for N from 1 to n into array w. */
static void s3_numbered(struct spdx3 *d, struct jsonw *w, const char *kind, guint n, bool flush)
{
    for (guint i = 1; i <= n; i++) {
        g_autofree char *iri = g_strdup_printf("%s%s%u", d->base, kind, i);
        jsonw_string(w, iri);
        if (flush)
            ex_flush(d->x);
    }
}

/* The document last: its elements are every one above. */
static void s3_document(struct spdx3 *d, const char *agent, const char *tool, guint n_debs)
{
    GString *o = d->graph;
    g_autofree char *doc = g_strdup_printf("%sdocument", d->base);
    g_autofree char *name = ex_doc_name(d->x);
    s3_begin(d, "SpdxDocument", doc);
    g_string_append(o, ",\"name\":");
    json_string(o, name, strlen(name));
    g_string_append(o, ",\"profileConformance\":[\"core\",\"software\",\"build\","
                       "\"simpleLicensing\"],"
                       "\"rootElement\":");
    struct jsonw w;
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    s3_ids(d, &w, "build/p", d->build_ids);
    jsonw_array_end(&w);
    g_string_append(o, ",\"element\":");
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    jsonw_string(&w, agent);
    jsonw_string(&w, tool);
    s3_ids(d, &w, "build/p", d->build_ids);
    s3_ids(d, &w, "file/v", d->file_ids);
    s3_numbered(d, &w, "license/", d->license_list->len, false);
    s3_numbered(d, &w, "package/", n_debs, true);
    s3_numbered(d, &w, "relationship/", (guint)d->n_rel, true);
    jsonw_array_end(&w);
    g_string_append(o, "}\n]}\n");
}

int fmt_spdx3(struct export_ctx *x)
{
    g_autofree char *uid = ex_trace_uid(x);
    g_autofree char *base = g_strdup_printf("https://buildtrail.invalid/spdx3/%s/", uid);
    struct spdx3 d = {x, base, x->out, g_hash_table_new(g_int64_hash, g_int64_equal),
                      g_array_new(FALSE, FALSE, sizeof(int64_t)),
                      g_array_new(FALSE, FALSE, sizeof(int64_t)), 0,
                      g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
                      g_ptr_array_new()};
    prov_load(x->p); /* a licenses walk per product: in memory */
    g_autofree char *agent = g_strdup_printf("%sagent", base);
    g_autofree char *tool = g_strdup_printf("%stool/buildtrail", base);
    s3_creation(&d, agent, tool);
    GArray *prods = ex_products(x);
    GArray *pids = s3_builders(x, prods);
    for (guint i = 0; i < pids->len; i++) {
        const struct qdb_process *p = qdb_process(x->q, g_array_index(pids, int64_t, i));
        if (p)
            s3_build(&d, p, agent);
    }
    g_array_unref(pids);
    s3_licenses(&d, prods);
    struct ex_debs *debs = ex_debs_load(x);
    s3_packages(&d, debs);
    s3_document(&d, agent, tool, debs->list->len);
    g_array_unref(prods);
    g_hash_table_destroy(d.files);
    g_array_unref(d.file_ids);
    g_array_unref(d.build_ids);
    g_hash_table_destroy(d.licenses);
    g_ptr_array_free(d.license_list, TRUE);
    ex_debs_free(debs);
    return 0;
}
