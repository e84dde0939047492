/* spdx: SPDX 2.3 JSON, built files GENERATED_FROM their sources (docs/exports.md). */
#include "export.h"
#include "jsonw.h"

#include "filekind.h"
#include "progkind.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void spdx_file_id(GString *o, const struct prov_version *v)
{
    /* (not printf: written for every relationship, hundreds of thousands on a big build) */
    char digits[24], *d = digits + sizeof digits;
    uint64_t id = v->id < 0 ? 0 - (uint64_t)v->id : (uint64_t)v->id;
    do
        *--d = (char)('0' + id % 10);
    while (id /= 10);
    if (v->id < 0)
        *--d = '-';
    g_string_append(o, "\"SPDXRef-File-v");
    g_string_append_len(o, d, digits + sizeof digits - d);
    g_string_append_c(o, '"');
}

/* What the document says of licenses: each file's detection (the cache), the products'
 * roll-ups, and the LicenseRef- ids used (each needs an extracted-licensing entry). */
struct spdx_lic {
    GHashTable *cache;   /* licroll_cache_new */
    GHashTable *rollups; /* product version id -> char * roll-up ("" unknown) */
    GHashTable *unknown; /* product version id -> GUINT count of incorporated files unknown */
    GHashTable *refs;    /* LicenseRef- ids used (owned strings) */
};

/* The expression's licenses as a JSON list of licenseInfoInFiles, "NOASSERTION" when none is
 * known or one is not an SPDX id. */
static void spdx_license_info(GString *o, struct spdx_lic *l, const char *expr)
{
    GPtrArray *items = g_ptr_array_new_with_free_func(g_free);
    if (!expr || !ex_license_items(expr, items) || !items->len) {
        g_string_append(o, ",\"licenseInfoInFiles\":[\"NOASSERTION\"]");
        g_ptr_array_free(items, TRUE);
        return;
    }
    g_string_append(o, ",\"licenseInfoInFiles\":");
    struct jsonw w;
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    for (guint i = 0; i < items->len; i++) {
        const char *it = items->pdata[i];
        jsonw_string(&w, it);
        g_auto(GStrv) ids = g_strsplit(it, " WITH ", 2);
        if (g_str_has_prefix(ids[0], "LicenseRef-"))
            g_hash_table_add(l->refs, g_strdup(ids[0]));
    }
    jsonw_array_end(&w);
    g_ptr_array_free(items, TRUE);
}

/* A valid expression for licenseConcluded (its LicenseRef- ids noted), or NOASSERTION. */
static void spdx_concluded(GString *o, struct spdx_lic *l, const char *expr)
{
    GPtrArray *items = g_ptr_array_new_with_free_func(g_free);
    bool ok = expr && *expr && ex_license_items(expr, items) && items->len;
    g_string_append(o, ",\"licenseConcluded\":");
    if (ok)
        json_string(o, expr, strlen(expr));
    else
        g_string_append(o, "\"NOASSERTION\"");
    for (guint i = 0; ok && i < items->len; i++) {
        g_auto(GStrv) ids = g_strsplit(items->pdata[i], " WITH ", 2);
        if (g_str_has_prefix(ids[0], "LicenseRef-"))
            g_hash_table_add(l->refs, g_strdup(ids[0]));
    }
    g_ptr_array_free(items, TRUE);
}

/* Append v's file entry to x->out unless it was written already (or has no SHA-1). */
static void spdx_add_file(struct export_ctx *x, GHashTable *files, struct jsonw *w,
                          const struct prov_version *v, struct spdx_lic *l)
{
    if (g_hash_table_contains(files, &v->id) || !v->sha1[0])
        return;
    g_hash_table_add(files, (gpointer)&v->id);
    GString *fo = x->out;
    char buf[4096];
    jsonw_space(w, "\n    ");
    jsonw_raw(w, "{\"SPDXID\":"); /* (the entry, written here, follows) */
    spdx_file_id(fo, v);
    g_string_append(fo, ",\"fileName\":");
    const char *name = ex_rel_or_abs(x, v->path, buf, sizeof buf);
    json_string(fo, name, strlen(name));
    g_string_append_printf(fo, ",\"checksums\":[{\"algorithm\":\"SHA1\",\"checksumValue\":\"%s\"},"
                               "{\"algorithm\":\"SHA256\",\"checksumValue\":\"%s\"}]",
                           v->sha1, v->sha256);
    g_string_append_printf(fo, ",\"fileTypes\":[%s]", ex_spdx_file_types(ex_file_type(v)));
    const char *roll = g_hash_table_lookup(l->rollups, &v->id);
    if (roll) { /* a product: the roll-up of what it incorporates */
        spdx_concluded(fo, l, roll);
        unsigned unknown = GPOINTER_TO_UINT(g_hash_table_lookup(l->unknown, &v->id));
        g_autofree char *method = unknown
            ? g_strdup_printf("%s; %u incorporated file%s of unknown license", EX_LICENSE_METHOD,
                              unknown, unknown == 1 ? "" : "s")
            : g_strdup(EX_LICENSE_METHOD);
        g_string_append(fo, ",\"licenseComments\":");
        json_string(fo, method, strlen(method));
    } else {
        g_string_append(fo, ",\"licenseConcluded\":\"NOASSERTION\"");
    }
    if (v->origin == TRACEDB_VERSION_FOUND)
        spdx_license_info(fo, l, ex_file_license(l->cache, v));
    g_string_append(fo, ",\"copyrightText\":\"NOASSERTION\"");
    g_string_append_printf(fo, ",\"comment\":\"buildtrail version %" PRId64 "; %s by the build\"}",
                           v->id, v->origin == TRACEDB_VERSION_FOUND ? "read" : "made");
    ex_flush(x);
}

/* Append one relationship to x->out (an element of w's array): from version a (NULL: the document, or the package
 * `pkg` when given) to version b. */
static void spdx_rel(struct export_ctx *x, struct jsonw *w, const struct prov_version *a,
                     const char *type, const struct prov_version *b, const char *pkg)
{
    GString *ro = x->out;
    jsonw_space(w, "\n    ");
    jsonw_raw(w, "{\"spdxElementId\":"); /* (the relationship, written here, follows) */
    if (a)
        spdx_file_id(ro, a);
    else if (pkg)
        json_string(ro, pkg, strlen(pkg));
    else
        g_string_append(ro, "\"SPDXRef-DOCUMENT\"");
    g_string_append(ro, ",\"relationshipType\":\"");
    g_string_append(ro, type);
    g_string_append(ro, "\",\"relatedSpdxElement\":");
    spdx_file_id(ro, b);
    g_string_append_c(ro, '}');
    ex_flush(x);
}

static void unref_array_or_null(gpointer a)
{
    if (a)
        g_array_unref(a);
}

/* The SPDX id of the i-th Debian package: its index and name (characters SPDX ids do not
 * allow, such as '+', made '-'; the index keeps "g++" and "g--" apart). */
static char *spdx_pkg_id(const struct ex_deb *e, guint i)
{
    GString *s = g_string_new(NULL);
    g_string_printf(s, "SPDXRef-Package-deb-%u-", i + 1);
    for (const char *c = e->pkg->name; *c; c++)
        g_string_append_c(s, g_ascii_isalnum(*c) || *c == '.' || *c == '-' ? *c : '-');
    return g_string_free(s, FALSE);
}

/* Every Debian package the build read files of, as an SPDX package (not analysed here: its
 * files are those the document lists, related by CONTAINS). */
static void spdx_packages(struct export_ctx *x, struct jsonw *w, struct ex_debs *debs)
{
    GString *o = x->out;
    for (guint i = 0; i < debs->list->len; i++) {
        const struct ex_deb *e = debs->list->pdata[i];
        g_autofree char *id = spdx_pkg_id(e, i);
        jsonw_space(w, "\n    ");
        jsonw_raw(w, "{\"SPDXID\":"); /* (the package, written here, follows) */
        json_string(o, id, strlen(id));
        ex_json_members(o, "name", e->pkg->name, "versionInfo", e->pkg->version, NULL);
        g_string_append(o, ",\"downloadLocation\":\"NOASSERTION\",\"filesAnalyzed\":false,"
                           "\"primaryPackagePurpose\":\"LIBRARY\",\"licenseConcluded\":"
                           "\"NOASSERTION\",\"licenseDeclared\":\"NOASSERTION\","
                           "\"copyrightText\":\"NOASSERTION\",");
        g_autofree char *src = ex_deb_source_info(e->pkg);
        ex_json_key_string(o, "sourceInfo", src);
        g_string_append(o, ",\"externalRefs\":[{\"referenceCategory\":\"PACKAGE-MANAGER\","
                           "\"referenceType\":\"purl\",");
        ex_json_key_string(o, "referenceLocator", e->purl);
        g_autofree char *what = g_strdup_printf(
            "installed on the build machine; the build read %u of its files%s%s%s", e->files,
            e->executed ? " (and ran some)" : "", e->links ? " and followed " : "",
            e->links ? "its symlinks" : "");
        g_string_append(o, "}],");
        ex_json_key_string(o, "comment", what);
        g_string_append_c(o, '}');
        ex_flush(x);
    }
}

/* The document streams: its header, every file (products, their leaf inputs and tools, each
 * once), the Debian packages, then every relationship.  What is kept in memory is the set of
 * files written and, per product, its leaves and tools (pointers) and its roll-up, and each
 * file's license (not the text). */
int fmt_spdx(struct export_ctx *x)
{
    prov_load(x->p); /* a walk per product: in memory, not one SQL lookup per step */
    GArray *prods = ex_products(x);
    struct ex_debs *debs = ex_debs_load(x);
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
    g_string_append(o, "},\n  \"files\":");
    struct jsonw w;
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    GHashTable *files = g_hash_table_new(g_int64_hash, g_int64_equal);
    GPtrArray *leaves_of = g_ptr_array_new_with_free_func(unref_array_or_null);
    GPtrArray *tools_of = g_ptr_array_new_with_free_func(unref_array_or_null);
    struct spdx_lic lic = {licroll_cache_new(),
                           g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free),
                           g_hash_table_new(g_int64_hash, g_int64_equal),
                           g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL)};
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        GArray *leaves = NULL, *tools = NULL;
        if (v->sha1[0])
            ex_product_inputs(x, v, &leaves, &tools);
        g_ptr_array_add(leaves_of, leaves);
        g_ptr_array_add(tools_of, tools);
        if (!v->sha1[0])
            continue;
        unsigned unknown = 0;
        char *roll = ex_product_license(x, v, lic.cache, &unknown);
        g_hash_table_insert(lic.rollups, (gpointer)&v->id, roll ? roll : g_strdup(""));
        g_hash_table_insert(lic.unknown, (gpointer)&v->id, GUINT_TO_POINTER(unknown));
        spdx_add_file(x, files, &w, v, &lic);
        for (guint k = 0; k < leaves->len; k++)
            spdx_add_file(x, files, &w, g_array_index(leaves, const struct prov_version *, k),
                          &lic);
        for (guint k = 0; k < tools->len; k++)
            spdx_add_file(x, files, &w, g_array_index(tools, const struct prov_version *, k),
                          &lic);
    }
    jsonw_space(&w, "\n  ");
    jsonw_array_end(&w);
    g_string_append(o, ",\n  \"packages\":");
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    spdx_packages(x, &w, debs);
    jsonw_space(&w, "\n  ");
    jsonw_array_end(&w);
    g_string_append(o, ",\n  \"relationships\":");
    jsonw_init(&w, o);
    jsonw_array_begin(&w);
    for (guint i = 0; i < prods->len; i++) {
        const struct prov_version *v = g_array_index(prods, const struct prov_version *, i);
        if (!v->sha1[0])
            continue;
        spdx_rel(x, &w, NULL, "DESCRIBES", v, NULL);
        GArray *leaves = leaves_of->pdata[i], *tools = tools_of->pdata[i];
        for (guint k = 0; k < leaves->len; k++) {
            const struct prov_version *in = g_array_index(leaves, const struct prov_version *, k);
            if (in->sha1[0])
                spdx_rel(x, &w, v, "GENERATED_FROM", in, NULL);
        }
        for (guint k = 0; k < tools->len; k++) {
            const struct prov_version *t = g_array_index(tools, const struct prov_version *, k);
            if (t->sha1[0])
                spdx_rel(x, &w, t, "BUILD_TOOL_OF", v, NULL);
        }
    }
    /* Each package CONTAINS the files of it that the document lists. */
    for (guint i = 0; i < debs->list->len; i++) {
        const struct ex_deb *e = debs->list->pdata[i];
        g_autofree char *id = spdx_pkg_id(e, i);
        for (guint k = 0; k < e->versions->len; k++) {
            int64_t vid = g_array_index(e->versions, int64_t, k);
            if (g_hash_table_contains(files, &vid))
                spdx_rel(x, &w, NULL, "CONTAINS", prov_version(x->p, vid), id);
        }
    }
    jsonw_space(&w, "\n  ");
    jsonw_array_end(&w);
    if (g_hash_table_size(lic.refs)) {
        g_string_append(o, ",\n  \"hasExtractedLicensingInfos\":");
        jsonw_init(&w, o);
        jsonw_array_begin(&w);
        GList *refs = g_list_sort(g_hash_table_get_keys(lic.refs), (GCompareFunc)strcmp);
        for (GList *r = refs; r; r = r->next) {
            jsonw_space(&w, "\n    ");
            jsonw_object_begin(&w);
            jsonw_kv_string(&w, "licenseId", r->data);
            jsonw_kv_string(&w, "extractedText", "NOASSERTION");
            jsonw_kv_string(&w, "comment", "named by an SPDX-License-Identifier tag in a file of "
                                           "the build; buildtrail does not extract its text");
            jsonw_object_end(&w);
        }
        g_list_free(refs);
        jsonw_space(&w, "\n  ");
        jsonw_array_end(&w);
    }
    g_string_append(o, "\n}\n");
    g_hash_table_destroy(lic.cache);
    g_hash_table_destroy(lic.rollups);
    g_hash_table_destroy(lic.unknown);
    g_hash_table_destroy(lic.refs);
    ex_debs_free(debs);
    g_ptr_array_free(leaves_of, TRUE);
    g_ptr_array_free(tools_of, TRUE);
    g_hash_table_destroy(files);
    g_array_unref(prods);
    return 0;
}
