/* cmd-show — `store list`, `store show BUILD`, `store rm BUILD`: call the engine (pgask.c),
 * render text or JSON (contract of the command in store.h). */
#include "cmd-internal.h"

#include <errno.h>

/* show's products and packages, under the build's own lines. */
static void show_details(const struct sopts *o, struct jsonw *wp, GString *out,
                         const PGresult *pr, const PGresult *pk)
{
    if (o->json) {
        jsonw_key(wp, "products");
        jsonw_array_begin(wp);
    } else {
        g_string_append(out, "products:\n");
    }
    for (int k = 0; k < PQntuples(pr); k++) {
        if (o->json) {
            jsonw_object_begin(wp);
            jsonw_key(wp, "path");
            json_col(wp, pr, k, SP_PATH);
            jsonw_kv_string(wp, "sha256", val(pr, k, SP_SHA256));
            jsonw_kv_string(wp, "license", val(pr, k, SP_LICENSE));
            jsonw_kv_int(wp, "leaves", ival(pr, k, SP_LEAVES));
            jsonw_object_end(wp);
        } else {
            g_string_append(out, "  ");
            text_col(out, pr, k, SP_PATH);
            g_string_append_printf(out, "  %s leaves  license ", val(pr, k, SP_LEAVES));
            text_str(out, val(pr, k, SP_LICENSE) ? val(pr, k, SP_LICENSE) : "unknown");
            g_string_append_c(out, '\n');
        }
    }
    if (o->json) {
        jsonw_array_end(wp);
        jsonw_key(wp, "packages");
        jsonw_array_begin(wp);
    } else {
        g_string_append(out, "Debian packages (in the products' closures):\n");
    }
    static const char *const uses[] = {[SK_CODE] = "code", [SK_HEADERS] = "headers",
                                       [SK_RUNTIME] = "runtime", [SK_SHLIB] = "shlib",
                                       [SK_TOOL] = "tool"};
    for (int k = 0; k < PQntuples(pk); k++) {
        if (o->json) {
            jsonw_object_begin(wp);
            jsonw_kv_string(wp, "name", val(pk, k, SK_NAME));
            jsonw_kv_string(wp, "version", val(pk, k, SK_VERSION));
            for (int c = SK_CODE; c <= SK_TOOL; c++)
                jsonw_kv_bool(wp, uses[c], tval(pk, k, c));
            jsonw_object_end(wp);
        } else {
            g_string_append(out, "  ");
            text_str(out, val(pk, k, SK_NAME));
            g_string_append_c(out, ' ');
            text_str(out, val(pk, k, SK_VERSION));
            g_string_append_c(out, ':');
            for (int c = SK_CODE; c <= SK_TOOL; c++)
                if (tval(pk, k, c))
                    g_string_append_printf(out, " %s", uses[c]);
            g_string_append_c(out, '\n');
        }
    }
    if (o->json)
        jsonw_array_end(wp);
}

int store_list(struct pgstore *s, struct sopts *o, int64_t only, const char *sub)
{
    char *err = NULL;
    int64_t n = pgstore_count_builds(s, &err);
    PGresult *r = n < 0 ? NULL : pgstore_list(s, only, &err);
    if (!r)
        return fail(sub, err);
    if (only && !PQntuples(r)) {
        PQclear(r);
        fprintf(stderr, "buildtrail store %s: no build %" G_GINT64_FORMAT " in the store; "
                        "'buildtrail store list' lists them\n", sub, only);
        return 1;
    }
    PGresult *pr = NULL, *pk = NULL;
    if (only && (!(pr = pgstore_show_products(s, only, &err)) ||
                 !(pk = pgstore_show_packages(s, only, &err)))) {
        PQclear(r);
        PQclear(pr);
        return fail(sub, err);
    }
    GString *out = g_string_new(NULL);
    struct jsonw w;
    if (o->json) {
        json_begin(&w, out, only ? 1 : n);
        jsonw_key(&w, "builds");
        jsonw_array_begin(&w);
    } else if (!only) {
        g_string_append_printf(out, "%" G_GINT64_FORMAT " build%s in the store\n", n,
                               n == 1 ? "" : "s");
    }
    for (int i = 0; i < PQntuples(r); i++) {
        if (o->json) {
            jsonw_object_begin(&w);
            jsonw_kv_int(&w, "id", ival(r, i, LIST_ID));
            jsonw_kv_string(&w, "name", val(r, i, LIST_NAME));
            jsonw_kv_string(&w, "started", val(r, i, LIST_STARTED));
            jsonw_kv_string(&w, "state", val(r, i, LIST_STATE));
            jsonw_kv_bool(&w, "complete", tval(r, i, LIST_COMPLETE));
            jsonw_kv_int(&w, "product_count", ival(r, i, LIST_PRODUCTS));
            jsonw_key(&w, "trace");
            json_col(&w, r, i, LIST_TRACE);
            jsonw_kv_string(&w, "trace_sha256", val(r, i, LIST_SHA256));
            /* labels: "K=V K2=V2" as json_version 1 had it (ambiguous when a value holds a
             * space: kept for its readers); label_map: each label, exactly */
            g_auto(GStrv) kv = pgstore_labels(val(r, i, LIST_LABELS));
            g_autoptr(GString) flat = g_string_new(NULL);
            for (int k = 0; kv[k] && kv[k + 1]; k += 2)
                g_string_append_printf(flat, "%s%s=%s", k ? " " : "", kv[k], kv[k + 1]);
            jsonw_kv_string(&w, "labels", flat->len ? flat->str : NULL);
            jsonw_key(&w, "label_map");
            jsonw_object_begin(&w);
            for (int k = 0; kv[k] && kv[k + 1]; k += 2)
                jsonw_kv_string(&w, kv[k], kv[k + 1]);
            jsonw_object_end(&w);
            jsonw_kv_string(&w, "packages_from", val(r, i, LIST_PACKAGES_FROM));
        } else {
            g_string_append_printf(out, "build %s", val(r, i, LIST_ID));
            if (val(r, i, LIST_NAME)) {
                g_string_append_c(out, ' ');
                text_str(out, val(r, i, LIST_NAME));
            }
            g_string_append_printf(out, "  %s  %s products  %s%s  ",
                                   val(r, i, LIST_STARTED) ? val(r, i, LIST_STARTED) : "-",
                                   val(r, i, LIST_PRODUCTS), val(r, i, LIST_STATE),
                                   tval(r, i, LIST_COMPLETE) ? "" : " (incomplete)");
            text_col(out, r, i, LIST_TRACE);
            if (val(r, i, LIST_LABELS)) {
                /* each label as one shell word (KEY=VALUE, quoted as argv is): a space or an
                 * '=' in a value cannot be read as another label */
                g_string_append(out, "  labels:");
                g_auto(GStrv) kv = pgstore_labels(val(r, i, LIST_LABELS));
                for (int k = 0; kv[k] && kv[k + 1]; k += 2) {
                    g_autofree char *word = g_strdup_printf("%s=%s", kv[k], kv[k + 1]);
                    g_string_append_c(out, ' ');
                    text_quote_arg(out, word, strlen(word));
                }
            }
            g_string_append_printf(out, "\n  trace sha256 %s\n", val(r, i, LIST_SHA256));
            if (only) {
                g_string_append(out, "  packages named by the dpkg database of ");
                text_str(out, val(r, i, LIST_PACKAGES_FROM) ? val(r, i, LIST_PACKAGES_FROM)
                                                             : "an unrecorded machine");
                g_string_append(out, " (where it was pushed)\n");
            }
        }
        if (only)
            show_details(o, &w, out, pr, pk);
        if (o->json)
            jsonw_object_end(&w);
    }
    if (o->json) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        g_string_append_c(out, '\n');
    }
    PQclear(r);
    PQclear(pr);
    PQclear(pk);
    return emit(out);
}

int store_rm(struct pgstore *s, struct sopts *o, int64_t id)
{
    char *err = NULL;
    int r = pgstore_rm(s, id, &err);
    if (r == -ENOENT) {
        fprintf(stderr, "buildtrail store rm: no build %" G_GINT64_FORMAT " in the store; "
                        "'buildtrail store list' lists them\n", id);
        return 1;
    }
    if (r < 0)
        return fail("rm", err);
    GString *out = g_string_new(NULL);
    if (o->json) {
        struct jsonw w;
        json_doc(&w, out);
        jsonw_kv_int(&w, "removed", id);
        jsonw_object_end(&w);
        g_string_append_c(out, '\n');
    } else {
        g_string_append_printf(out, "removed build %" G_GINT64_FORMAT "\n", id);
    }
    return emit(out);
}

