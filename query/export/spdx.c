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

static void spdx_add_file(struct export_ctx *x, GHashTable *files, GString *fo,
                          const struct prov_version *v)
{
    if (g_hash_table_contains(files, &v->id) || !v->sha1[0])
        return;
    g_hash_table_add(files, (gpointer)&v->id);
    char buf[4096];
    g_string_append(fo, fo->len ? ",\n    {\"SPDXID\":" : "\n    {\"SPDXID\":");
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
}

static void spdx_rel(GString *ro, const char *a, const char *type, const char *b)
{
    g_string_append_printf(ro, "%s\n    {\"spdxElementId\":%s,\"relationshipType\":\"%s\","
                               "\"relatedSpdxElement\":%s}", ro->len ? "," : "", a, type, b);
}

int fmt_spdx(struct export_ctx *x)
{
    GArray *prods = ex_products(x);
    GHashTable *files = g_hash_table_new(g_int64_hash, g_int64_equal);
    GString *fo = g_string_new(NULL), *ro = g_string_new(NULL);
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        if (!v->sha1[0])
            continue;
        spdx_add_file(x, files, fo, v);
        GString *pid = g_string_new(NULL);
        spdx_file_id(pid, v);
        spdx_rel(ro, "\"SPDXRef-DOCUMENT\"", "DESCRIBES", pid->str);
        GArray *leaves, *tools;
        ex_product_inputs(x, v, &leaves, &tools);
        for (guint k = 0; k < leaves->len; k++) {
            const struct prov_version *in = g_array_index(leaves, const struct prov_version *, k);
            if (!in->sha1[0])
                continue;
            spdx_add_file(x, files, fo, in);
            GString *iid = g_string_new(NULL);
            spdx_file_id(iid, in);
            spdx_rel(ro, pid->str, "GENERATED_FROM", iid->str);
            g_string_free(iid, TRUE);
        }
        for (guint k = 0; k < tools->len; k++) {
            const struct prov_version *t = g_array_index(tools, const struct prov_version *, k);
            if (!t->sha1[0])
                continue;
            spdx_add_file(x, files, fo, t);
            GString *tid = g_string_new(NULL);
            spdx_file_id(tid, t);
            spdx_rel(ro, tid->str, "BUILD_TOOL_OF", pid->str);
            g_string_free(tid, TRUE);
        }
        g_array_unref(leaves);
        g_array_unref(tools);
        g_string_free(pid, TRUE);
    }
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
    g_string_append_printf(o, "},\n  \"files\":[%s\n  ],\n  \"relationships\":[%s\n  ]\n}\n",
                           fo->str, ro->str);
    g_string_free(fo, TRUE);
    g_string_free(ro, TRUE);
    g_hash_table_destroy(files);
    g_array_unref(prods);
    return 0;
}
