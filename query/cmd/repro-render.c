/* repro-render: `buildtrail repro`'s report, for people (the verdict and the artifacts first,
 * each differing one with its own causes) and as JSON (docs/json.md, "repro"). */
#include "artcmp.h"
#include "driver.h"
#include "jsonw.h"
#include "repro.h"
#include "textout.h"

#include <string.h>

static const char *const state_names[] = {"identical", "differs", "only in control",
                                          "only in experiment"};
static const char *const state_keys[] = {"identical", "differs", "only_control",
                                         "only_experiment"};

static void text_str(GString *out, const char *s)
{
    text_escape(out, s, strlen(s));
}

static uint32_t hints_of(const struct repro_report *r, size_t cause)
{
    return GPOINTER_TO_UINT(g_hash_table_lookup(r->hints, GSIZE_TO_POINTER(cause + 1)));
}

static uint32_t pins_of(const struct repro_report *r, size_t cause)
{
    if (!r->pins)
        return 0;
    const struct diffeng_model *m = diffeng_run(r->d);
    g_autofree char *key = reproeng_cause_key(m, m->causes->pdata[cause]);
    return GPOINTER_TO_UINT(g_hash_table_lookup(r->pins, key));
}

static void text_set(GString *out, uint32_t set)
{
    g_autofree char *l = reproeng_vary_list(set);
    for (char *p = l; *p; p++)
        if (*p == ',')
            g_string_append(out, ", ");
        else
            g_string_append_c(out, *p);
}

static void text_process(GString *out, const char *side, struct qdb *q, int64_t id)
{
    const struct qdb_process *p = id ? qdb_process(q, id) : NULL;
    if (!p)
        return;
    g_string_append_printf(out, "        in the %s: ", side);
    query_text_process(out, p);
    g_string_append_c(out, '\n');
}

/* One cause of artifact `path`: what, where, the processes, the chain, the variations. */
static void text_cause(GString *out, struct repro_report *r, const char *path, size_t ci)
{
    const struct diffeng_model *m = diffeng_run(r->d);
    const struct diffeng_cause *c = m->causes->pdata[ci];
    g_autofree char *where = reproeng_rel(m, c->path);
    g_string_append_printf(out, "    cause: %s: ", diffeng_kind_name(c->kind));
    text_str(out, where);
    g_string_append(out, "\n        ");
    text_str(out, c->detail);
    g_string_append_c(out, '\n');
    text_process(out, "control", r->q[0], c->proc[0]);
    text_process(out, "experiment", r->q[1], c->proc[1]);
    GPtrArray *hops = diffeng_chain(r->d, path, ci);
    if (hops->len) {
        g_autofree char *rel = reproeng_rel(m, path);
        g_string_append(out, "        chain: ");
        text_str(out, rel);
        for (guint h = 0; h < hops->len; h++) {
            g_autofree char *hop = reproeng_rel(m, hops->pdata[h]);
            g_string_append(out, " <- ");
            text_str(out, hop);
        }
        g_string_append_c(out, '\n');
    }
    g_ptr_array_free(hops, TRUE);
    uint32_t h = hints_of(r, ci);
    g_string_append(out, "        may be explained by: ");
    if (h & r->applied)
        text_set(out, h & r->applied);
    else
        g_string_append(out, "none of the variations made");
    if (h & ~r->applied) {
        g_string_append(out, " (not varied: ");
        text_set(out, h & ~r->applied);
        g_string_append(out, ")");
    }
    g_string_append_c(out, '\n');
    if (r->bisected) {
        uint32_t p = pins_of(r, ci);
        g_string_append(out, "        pinned by --bisect to: ");
        if (p & REPROENG_PIN_UNVARIED)
            g_string_append(out, "no variation: it differs with nothing varied (the build "
                                 "is not deterministic by itself)");
        else if (p)
            text_set(out, p);
        else
            g_string_append(out, r->bisect_failed ? "(not reached: a build failed)"
                                                  : "(no variation alone or together)");
        if (__builtin_popcount(p) > 1)
            g_string_append(out, " (each, or together)");
        g_string_append_c(out, '\n');
    }
}

/* The members of an archive that differ ("member t/x: mode 0644 / 0664"), or why they could
 * not be compared; nothing for a plain file whose content alone differs. */
static void text_members(GString *out, struct repro_report *r, const char *path)
{
    const char *why = r->member_errors ? g_hash_table_lookup(r->member_errors, path) : NULL;
    if (why) {
        g_string_append(out, "    members: not compared: ");
        text_str(out, why);
        g_string_append_c(out, '\n');
        return;
    }
    GPtrArray *diffs = r->members ? g_hash_table_lookup(r->members, path) : NULL;
    for (guint i = 0; diffs && i < diffs->len; i++) {
        const struct artcmp_diff *d = diffs->pdata[i];
        if (!*d->member && d->kind == ARTCMP_CONTENT && !d->note)
            continue;
        if (d->kind == ARTCMP_ORDER) { /* a and b: the names in each order, one a line */
            g_string_append(out, "    members in another order");
            if (*d->member) {
                g_string_append(out, " in ");
                text_str(out, d->member);
            }
            for (int side = 0; side < 2; side++) {
                g_autofree char *l = g_strdup(side ? d->b : d->a);
                g_strdelimit(l ? l : (l = g_strdup("")), "\n", ' ');
                g_string_append(out, side ? " / " : ": ");
                text_str(out, l);
            }
        } else {
            g_string_append(out, "    member ");
            text_str(out, *d->member ? d->member : "(the file itself)");
            g_string_append_printf(out, ": %s", artcmp_kind_name(d->kind));
            if (d->kind != ARTCMP_CONTENT && (d->a || d->b)) {
                g_string_append(out, " ");
                text_str(out, d->a ? d->a : "-");
                g_string_append(out, " / ");
                text_str(out, d->b ? d->b : "-");
            }
        }
        if (d->note) {
            g_string_append(out, " (");
            text_str(out, d->note);
            g_string_append(out, ")");
        }
        g_string_append_c(out, '\n');
    }
}

static void text_header(GString *out, struct repro_report *r, unsigned counts[4])
{
    unsigned bad = counts[1] + counts[2] + counts[3];
    if (bad)
        g_string_append_printf(out, "not reproducible: %u of %u artifact%s differ%s\n", bad,
                               r->artifacts->len, r->artifacts->len == 1 ? "" : "s",
                               bad == 1 ? "s" : "");
    else
        g_string_append_printf(out, "reproducible: %u artifact%s identical\n",
                               r->artifacts->len, r->artifacts->len == 1 ? "" : "s");
    const char *names[] = {"control", "experiment"};
    for (int i = 0; i < 2; i++) {
        g_string_append_printf(out, "%s: ", names[i]);
        text_str(out, r->build[i]->copy);
        g_string_append(out, " (trace ");
        text_str(out, r->build[i]->trace);
        g_string_append(out, "; built at ");
        text_str(out, r->build[i]->built_at);
        g_string_append(out, ")\n");
    }
    g_string_append(out, "varied: ");
    if (r->applied)
        text_set(out, r->applied);
    else
        g_string_append(out, "nothing");
    g_string_append_c(out, '\n');
    for (guint i = 0; i < r->not_applied->len; i++) {
        g_string_append(out, "not varied: ");
        text_str(out, r->not_applied->pdata[i]);
        g_string_append_c(out, '\n');
    }
    if (r->bisected)
        g_string_append_printf(out, "bisect: %u more build%s\n", r->bisect_builds,
                               r->bisect_builds == 1 ? "" : "s");
    g_string_append_printf(out, "artifacts: %u identical, %u differ, %u only in control, %u "
                                "only in experiment\n", counts[0], counts[1], counts[2],
                           counts[3]);
    guint n = r->left_out ? r->left_out->len : 0;
    if (!n)
        return;
    g_string_append_printf(out, "left out: %u product%s that differ%s and %s no artifact: ", n,
                           n == 1 ? "" : "s", n == 1 ? "s" : "", n == 1 ? "is" : "are");
    for (guint i = 0; i < n && i < 3; i++) {
        g_string_append(out, i ? ", " : "");
        text_str(out, r->left_out->pdata[i]);
    }
    g_string_append_printf(out, "%s (--artifacts GLOB compares %s)\n", n > 3 ? ", ..." : "",
                           n == 1 ? "it" : "them");
}

void repro_render_text(GString *out, struct repro_report *r)
{
    const struct diffeng_model *m = diffeng_run(r->d);
    unsigned counts[4] = {0};
    for (guint i = 0; i < r->artifacts->len; i++)
        counts[((const struct reproeng_artifact *)r->artifacts->pdata[i])->state]++;
    text_header(out, r, counts);
    for (guint i = 0; i < r->artifacts->len; i++) {
        const struct reproeng_artifact *a = r->artifacts->pdata[i];
        if (a->state == RA_IDENTICAL)
            continue;
        g_autofree char *rel = reproeng_rel(m, a->path);
        g_string_append_printf(out, "\n%s: ", state_names[a->state]);
        text_str(out, rel);
        g_string_append_c(out, '\n');
        text_members(out, r, a->path);
        GArray *ci = diffeng_causes_of(r->d, a->path);
        for (guint k = 0; k < ci->len; k++)
            text_cause(out, r, a->path, g_array_index(ci, size_t, k));
        if (a->state == RA_DIFFERS && !ci->len)
            g_string_append(out, "    cause: not found (see 'buildtrail diff' on the traces)\n");
        g_array_unref(ci);
        const char *dt = r->diffoscope_text ? g_hash_table_lookup(r->diffoscope_text, a->path)
                                            : NULL;
        if (dt)
            g_string_append_printf(out, "    diffoscope:\n%s", dt);
    }
    if (r->diffoscope_missing)
        g_string_append(out, "\ndiffoscope: not installed, its reports are left out\n");
}

static void json_set(struct jsonw *w, const char *key, uint32_t set)
{
    jsonw_key(w, key);
    jsonw_array_begin(w);
    for (int v = 0; v < RV_COUNT; v++)
        if (set & RV_BIT(v))
            jsonw_string(w, reproeng_variation_name(v));
    jsonw_array_end(w);
}

static void json_build(struct jsonw *w, const char *key, const struct reprorun_build *b)
{
    jsonw_key(w, key);
    jsonw_object_begin(w);
    jsonw_kv_string(w, "copy", b->copy);
    jsonw_kv_string(w, "built_at", b->built_at);
    jsonw_kv_string(w, "trace", b->trace);
    jsonw_kv_string(w, "log", b->log);
    jsonw_object_end(w);
}

static void json_process(struct jsonw *w, const char *key, struct qdb *q, int64_t id)
{
    const struct qdb_process *p = id ? qdb_process(q, id) : NULL;
    jsonw_key(w, key);
    query_json_clock(q); /* its own trace's clock: the last opened is a bisect build's, closed */
    if (p)
        query_json_process(jsonw_raw_value(w), p);
    else
        jsonw_null(w);
}

static void json_cause(struct jsonw *w, struct repro_report *r, size_t ci)
{
    const struct diffeng_model *m = diffeng_run(r->d);
    const struct diffeng_cause *c = m->causes->pdata[ci];
    jsonw_object_begin(w);
    jsonw_kv_string(w, "kind", diffeng_kind_name(c->kind));
    jsonw_kv_string(w, "path", c->path);
    g_autofree char *key = reproeng_cause_key(m, c);
    jsonw_kv_string(w, "key", key);
    jsonw_kv_string(w, "detail", c->detail);
    json_process(w, "process_control", r->q[0], c->proc[0]);
    json_process(w, "process_experiment", r->q[1], c->proc[1]);
    json_set(w, "may_explain", hints_of(r, ci) & r->applied);
    json_set(w, "hints_not_varied", hints_of(r, ci) & ~r->applied);
    if (r->bisected) {
        json_set(w, "pinned", pins_of(r, ci));
        jsonw_key(w, "unvaried");
        jsonw_bool(w, (pins_of(r, ci) & REPROENG_PIN_UNVARIED) != 0);
    } else {
        jsonw_key(w, "pinned");
        jsonw_null(w);
        jsonw_key(w, "unvaried");
        jsonw_null(w);
    }
    jsonw_object_end(w);
}

/* "members": [{member, parts, kind, a, b, note}] (null: not compared; "members_error" says). */
static void json_members(struct jsonw *w, struct repro_report *r, const char *path)
{
    GPtrArray *diffs = r->members ? g_hash_table_lookup(r->members, path) : NULL;
    jsonw_key(w, "members");
    if (!diffs) {
        jsonw_null(w);
    } else {
        jsonw_array_begin(w);
        for (guint i = 0; i < diffs->len; i++) {
            const struct artcmp_diff *d = diffs->pdata[i];
            jsonw_object_begin(w);
            jsonw_kv_string(w, "member", d->member);
            jsonw_key(w, "parts");
            jsonw_array_begin(w);
            for (char **p = d->parts; p && *p; p++)
                jsonw_string(w, *p);
            jsonw_array_end(w);
            jsonw_kv_string(w, "kind", artcmp_kind_name(d->kind));
            jsonw_kv_string(w, "a", d->a);
            jsonw_kv_string(w, "b", d->b);
            jsonw_kv_string(w, "note", d->note);
            jsonw_object_end(w);
        }
        jsonw_array_end(w);
    }
    jsonw_kv_string(w, "members_error",
                    r->member_errors ? g_hash_table_lookup(r->member_errors, path) : NULL);
}

static void json_artifact(struct jsonw *w, struct repro_report *r,
                          const struct reproeng_artifact *a)
{
    const struct diffeng_model *m = diffeng_run(r->d);
    jsonw_object_begin(w);
    jsonw_kv_string(w, "path", a->path);
    g_autofree char *rel = reproeng_rel(m, a->path);
    jsonw_kv_string(w, "relative", rel);
    jsonw_kv_string(w, "state", state_keys[a->state]);
    json_members(w, r, a->path);
    jsonw_key(w, "causes");
    jsonw_array_begin(w);
    GArray *ci = diffeng_causes_of(r->d, a->path);
    for (guint k = 0; k < ci->len; k++) {
        size_t c = g_array_index(ci, size_t, k);
        size_t at = 0;
        while (at < r->causes->len && g_array_index(r->causes, size_t, at) != c)
            at++;
        jsonw_object_begin(w);
        jsonw_key(w, "cause");
        jsonw_uint(w, at);
        jsonw_key(w, "chain");
        jsonw_array_begin(w);
        GPtrArray *hops = diffeng_chain(r->d, a->path, c);
        for (guint h = 0; h < hops->len; h++)
            jsonw_string(w, hops->pdata[h]);
        g_ptr_array_free(hops, TRUE);
        jsonw_array_end(w);
        jsonw_object_end(w);
    }
    g_array_unref(ci);
    jsonw_array_end(w);
    const char *dt = r->diffoscope_text ? g_hash_table_lookup(r->diffoscope_text, a->path) : NULL;
    jsonw_kv_string(w, "diffoscope", dt);
    jsonw_object_end(w);
}

void repro_render_json(GString *out, struct repro_report *r)
{
    struct jsonw w;
    jsonw_init(&w, out);
    jsonw_object_begin(&w);
    jsonw_kv_int(&w, "json_version", QUERY_JSON_VERSION);
    jsonw_kv_bool(&w, "reproducible", !repro_differs(r));
    jsonw_kv_string(&w, "output", r->out);
    jsonw_kv_string(&w, "command", r->command);
    json_build(&w, "control", r->build[0]);
    json_build(&w, "experiment", r->build[1]);
    json_set(&w, "asked", r->asked);
    json_set(&w, "varied", r->applied);
    jsonw_key(&w, "not_varied");
    jsonw_array_begin(&w);
    for (guint i = 0; i < r->not_applied->len; i++)
        jsonw_string(&w, r->not_applied->pdata[i]);
    jsonw_array_end(&w);
    jsonw_key(&w, "artifacts");
    jsonw_array_begin(&w);
    for (guint i = 0; i < r->artifacts->len; i++)
        json_artifact(&w, r, r->artifacts->pdata[i]);
    jsonw_array_end(&w);
    jsonw_key(&w, "root_causes");
    jsonw_array_begin(&w);
    for (guint i = 0; i < r->causes->len; i++)
        json_cause(&w, r, g_array_index(r->causes, size_t, i));
    jsonw_array_end(&w);
    jsonw_key(&w, "bisect_builds");
    if (r->bisected)
        jsonw_uint(&w, r->bisect_builds);
    else
        jsonw_null(&w);
    jsonw_key(&w, "bisect_failed");
    if (r->bisected)
        jsonw_bool(&w, r->bisect_failed);
    else
        jsonw_null(&w);
    jsonw_key(&w, "left_out_differ");
    jsonw_array_begin(&w);
    for (guint i = 0; r->left_out && i < r->left_out->len; i++)
        jsonw_string(&w, r->left_out->pdata[i]);
    jsonw_array_end(&w);
    jsonw_kv_bool(&w, "diffoscope_missing", r->diffoscope_missing);
    jsonw_object_end(&w);
    g_string_append_c(out, '\n');
}
