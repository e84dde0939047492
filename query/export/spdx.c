/* spdx: SPDX 2.3 JSON, built files GENERATED_FROM their sources (docs/exports.md). */
#include "export.h"

#include "filekind.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void spdx_file_id(GString *o, const struct prov_version *v)
{
    g_string_append_printf(o, "\"SPDXRef-File-v%" PRId64 "\"", v->id);
}

/* Append v's file entry to x->out unless it was written already (or has no SHA-1). */
static void spdx_add_file(struct export_ctx *x, GHashTable *files, bool *first,
                          const struct prov_version *v)
{
    if (g_hash_table_contains(files, &v->id) || !v->sha1[0])
        return;
    g_hash_table_add(files, (gpointer)&v->id);
    GString *fo = x->out;
    char buf[4096];
    g_string_append(fo, *first ? "\n    {\"SPDXID\":" : ",\n    {\"SPDXID\":");
    *first = false;
    spdx_file_id(fo, v);
    g_string_append(fo, ",\"fileName\":");
    const char *name = ex_rel_or_abs(x, v->path, buf, sizeof buf);
    json_string(fo, name, strlen(name));
    g_string_append_printf(fo, ",\"checksums\":[{\"algorithm\":\"SHA1\",\"checksumValue\":\"%s\"},"
                               "{\"algorithm\":\"SHA256\",\"checksumValue\":\"%s\"}]",
                           v->sha1, v->sha256);
    g_string_append_printf(fo, ",\"fileTypes\":[\"%s\"]",
                           v->origin == TRACEDB_VERSION_FOUND ? "SOURCE" : "OTHER");
    g_string_append(fo, ",\"licenseConcluded\":\"NOASSERTION\",\"copyrightText\":\"NOASSERTION\"");
    g_string_append_printf(fo, ",\"comment\":\"buildtrail version %" PRId64 "; %s by the build\"}",
                           v->id, v->origin == TRACEDB_VERSION_FOUND ? "read" : "made");
    ex_flush(x);
}

/* Append one relationship between two versions' SPDX ids to x->out. */
static void spdx_rel(struct export_ctx *x, bool *first, const struct prov_version *a,
                     const char *type, const struct prov_version *b)
{
    GString *ro = x->out;
    g_string_append(ro, *first ? "\n    {\"spdxElementId\":" : ",\n    {\"spdxElementId\":");
    *first = false;
    if (a)
        spdx_file_id(ro, a);
    else
        g_string_append(ro, "\"SPDXRef-DOCUMENT\"");
    g_string_append_printf(ro, ",\"relationshipType\":\"%s\",\"relatedSpdxElement\":", type);
    spdx_file_id(ro, b);
    g_string_append_c(ro, '}');
    ex_flush(x);
}

static void unref_array_or_null(gpointer a)
{
    if (a)
        g_array_unref(a);
}

/* The document streams: its header, every file (products, their leaf inputs and tools, each
 * once), then every relationship.  What is kept in memory is the set of files written and,
 * per product, its leaves and tools (pointers), not the text. */
int fmt_spdx(struct export_ctx *x)
{
    prov_load(x->p); /* a walk per product: in memory, not one SQL lookup per step */
    GArray *prods = ex_products(x);
    char created[32];
    ex_iso_time(x, x->run.start_ns, created);
    g_autofree char *name = ex_doc_name(x);
    g_autofree char *uid = ex_trace_uid(x);
    GString *o = x->out;
    g_string_append(o, "{\n  \"spdxVersion\":\"SPDX-2.3\",\"dataLicense\":\"CC0-1.0\","
                       "\"SPDXID\":\"SPDXRef-DOCUMENT\",\n  ");
    ex_json_key_string(o, "name", name);
    g_string_append_printf(o, ",\n  \"documentNamespace\":\"https://buildtrail.invalid/spdx/%s\","
                              "\n  \"creationInfo\":{\"created\":\"%s\",\"creators\":"
                              "[\"Tool: buildtrail-%s\"]",
                           uid, created, x->run.version ? x->run.version : BT_VERSION);
    ex_incomplete_member(x, o, "comment");
    g_string_append(o, "},\n  \"files\":[");
    GHashTable *files = g_hash_table_new(g_int64_hash, g_int64_equal);
    GPtrArray *leaves_of = g_ptr_array_new_with_free_func(unref_array_or_null);
    GPtrArray *tools_of = g_ptr_array_new_with_free_func(unref_array_or_null);
    bool first = true;
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        GArray *leaves = NULL, *tools = NULL;
        if (v->sha1[0])
            ex_product_inputs(x, v, &leaves, &tools);
        g_ptr_array_add(leaves_of, leaves);
        g_ptr_array_add(tools_of, tools);
        if (!v->sha1[0])
            continue;
        spdx_add_file(x, files, &first, v);
        for (guint k = 0; k < leaves->len; k++)
            spdx_add_file(x, files, &first, g_array_index(leaves, const struct prov_version *, k));
        for (guint k = 0; k < tools->len; k++)
            spdx_add_file(x, files, &first, g_array_index(tools, const struct prov_version *, k));
    }
    g_string_append(o, "\n  ],\n  \"relationships\":[");
    first = true;
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        if (!v->sha1[0])
            continue;
        spdx_rel(x, &first, NULL, "DESCRIBES", v);
        GArray *leaves = leaves_of->pdata[i], *tools = tools_of->pdata[i];
        for (guint k = 0; k < leaves->len; k++) {
            const struct prov_version *in = g_array_index(leaves, const struct prov_version *, k);
            if (in->sha1[0])
                spdx_rel(x, &first, v, "GENERATED_FROM", in);
        }
        for (guint k = 0; k < tools->len; k++) {
            const struct prov_version *t = g_array_index(tools, const struct prov_version *, k);
            if (t->sha1[0])
                spdx_rel(x, &first, t, "BUILD_TOOL_OF", v);
        }
    }
    g_string_append(o, "\n  ]\n}\n");
    g_ptr_array_free(leaves_of, TRUE);
    g_ptr_array_free(tools_of, TRUE);
    g_hash_table_destroy(files);
    g_array_unref(prods);
    return 0;
}
