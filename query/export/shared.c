/* The helpers more than one exporter needs — see export.h. */
#include "export.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Build-relative time in microseconds (Trace Event format) and ISO 8601 wall-clock time. */
void ex_iso_time(struct export_ctx *x, int64_t boot_ns, char buf[32])
{
    text_iso_utc(x->run.start_realtime_ns + (boot_ns - x->run.start_ns), buf);
}

/* An attestation of an incomplete trace says so: `,"KEY":"INCOMPLETE TRACE: why; …"` (nothing
 * for a complete trace). */
void ex_incomplete_member(struct export_ctx *x, GString *o, const char *key)
{
    const struct qdb_run *r = qdb_run(x->q);
    if (r->complete)
        return;
    g_autofree char *text = g_strdup_printf("INCOMPLETE TRACE: %s; this document covers only "
                                            "what was recorded", r->incomplete);
    g_string_append_printf(o, ",\"%s\":", key);
    json_string(o, text, strlen(text));
}

/* "traceState":…,"traceComplete":bool[,"traceIncomplete":why] (members of an open object). */
void ex_trace_state_members(struct export_ctx *x, GString *o)
{
    const struct qdb_run *r = qdb_run(x->q);
    const char *state = qdb_run_state_name(r->state);
    g_string_append(o, "\"traceState\":");
    json_string(o, state, strlen(state));
    g_string_append_printf(o, ",\"traceComplete\":%s", r->complete ? "true" : "false");
    if (r->incomplete) {
        g_string_append(o, ",\"traceIncomplete\":");
        json_string(o, r->incomplete, strlen(r->incomplete));
    }
}

/* The build's ex_products: for every path it wrote that still exists at the end (outside its
 * private /tmp), the version there.  Sorted by path. */
GArray *ex_products(struct export_ctx *x)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    GArray *files = prov_product_files(x->p);
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < files->len; i++) {
        int64_t file_id = g_array_index(files, int64_t, i);
        if (!prov_exists_at_end(x->p, file_id))
            continue;
        const struct prov_version *v = prov_version(x->p, prov_version_at(x->p, file_id));
        if (!v || v->origin != TRACEDB_VERSION_WRITTEN || prov_in_scratch_place(x->p, v->path) ||
            g_hash_table_contains(seen, &v->id))
            continue;
        g_hash_table_add(seen, (gpointer)&v->id);
        g_array_append_val(out, v);
    }
    g_array_unref(files);
    g_hash_table_destroy(seen);
    return out;
}

/* Every found version the build read (its ex_materials), in id order. */
GArray *ex_materials(struct export_ctx *x)
{
    GArray *ids = prov_versions_used_as(x->p, PROV_USE_READ, true);
    GArray *out = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    for (guint i = 0; i < ids->len; i++) {
        const struct prov_version *v = prov_version(x->p, g_array_index(ids, int64_t, i));
        if (v)
            g_array_append_val(out, v);
    }
    g_array_unref(ids);
    return out;
}

gint ex_version_path_cmp(gconstpointer a, gconstpointer b)
{
    const struct prov_version *x = *(const struct prov_version *const *)a;
    const struct prov_version *y = *(const struct prov_version *const *)b;
    int c = strcmp(x->path, y->path);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

void ex_json_key_string(GString *out, const char *key, const char *s)
{
    g_string_append_printf(out, "\"%s\":", key);
    json_string(out, s ? s : "", s ? strlen(s) : 0);
}

gint ex_proc_id_cmp(gconstpointer a, gconstpointer b)
{
    const struct qdb_process *x = *(const struct qdb_process *const *)a;
    const struct qdb_process *y = *(const struct qdb_process *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

gint ex_proc_id_cmp_int64(gconstpointer a, gconstpointer b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The nearest ancestor of process `id` (exec predecessors, then parents) that is in `set`
 * (int64 ids), or 0. */
int64_t ex_nearest_ancestor_in(struct export_ctx *x, int64_t id, GHashTable *set)
{
    for (const struct qdb_process *a = qdb_process(x->q, id); a;) {
        int64_t up = a->prev_image_id ? a->prev_image_id : a->parent_id;
        if (!up)
            return 0;
        if (g_hash_table_contains(set, &up))
            return up;
        a = qdb_process(x->q, up);
    }
    return 0;
}

/* The leaf inputs and the tools of one product: the found files whose code it carries
 * (compiled, included, linked, copied, generated from; not the shared libraries it links,
 * nor what only decided how it was made: build scripts, probes), and the programs run. */
void ex_product_inputs(struct export_ctx *x, const struct prov_version *v, GArray **leaves,
                       GArray **tools)
{
    static const struct prov_walk_opts walk = {.scripts = true, .stop_at_shlibs = true};
    GArray *nodes = prov_inputs(x->p, v->id, &walk);
    *leaves = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    *tools = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    for (guint i = 0; i < nodes->len; i++) {
        struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (n->role == PROV_ROLE_TOOL)
            g_array_append_val(*tools, n->v);
        else if (n->v->origin == TRACEDB_VERSION_FOUND && n->role < PROV_ROLE_SHLIB)
            g_array_append_val(*leaves, n->v);
    }
    g_array_unref(nodes);
}

char *ex_doc_name(struct export_ctx *x)
{
    GString *s = g_string_new("buildtrail: ");
    text_argv(s, x->run.argv ? x->run.argv : "", x->run.argv_len);
    return g_string_free(s, FALSE);
}

/* A stable identifier for this trace: SHA-256 of the run's start time, host and command. */
char *ex_trace_uid(struct export_ctx *x)
{
    GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
    char t[32];
    snprintf(t, sizeof t, "%" PRId64, x->run.start_realtime_ns);
    g_checksum_update(c, (const guchar *)t, -1);
    if (x->run.hostname)
        g_checksum_update(c, (const guchar *)x->run.hostname, -1);
    if (x->run.argv)
        g_checksum_update(c, (const guchar *)x->run.argv, (gssize)x->run.argv_len);
    char *r = g_strndup(g_checksum_get_string(c), 32);
    g_checksum_free(c);
    return r;
}

const char *ex_rel_or_abs(struct export_ctx *x, const char *path, char *buf, size_t cap)
{
    size_t l = strlen(x->run.cwd);
    if (!strncmp(path, x->run.cwd, l) && path[l] == '/') {
        snprintf(buf, cap, ".%s", path + l);
        return buf;
    }
    return path;
}

/* The versions process `pid` touched as `which` asks (TQ_VERSIONS_OPENED_BY_PROCESS,
 * _EXECUTED_, _MADE_, or _READ_ for both the first two), each once, in id order: from the
 * whole graph, since the exporters ask it of every process. */
GPtrArray *ex_versions_of(struct export_ctx *x, int64_t pid, enum tracedb_query which)
{
    return prov_process_versions(x->p, pid,
                                 which == TQ_VERSIONS_READ_BY_PROCESS       ? PROV_READ
                                 : which == TQ_VERSIONS_EXECUTED_BY_PROCESS ? PROV_EXECUTED
                                 : which == TQ_VERSIONS_MADE_BY_PROCESS     ? PROV_MADE
                                                                            : PROV_OPENED);
}

/* The processes that made a version (its tasks in a formulation). */
GArray *ex_writers(struct export_ctx *x, const struct prov_version *v)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(int64_t));
    prov_makers(x->p, v->id, out);
    return out;
}

void ex_flush(struct export_ctx *x)
{
    if (x->out->len < EX_FLUSH_BYTES || !x->sink || qdb_failed(x->q))
        return;
    outfile_append(x->sink, x->out->str, x->out->len);
    g_string_truncate(x->out, 0);
}
