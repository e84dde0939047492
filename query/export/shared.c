/* The helpers more than one exporter needs — see export.h. */
#include "export.h"

#include "filekind.h"
#include "paths.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

void ex_json_members(GString *out, ...)
{
    va_list ap;
    va_start(ap, out);
    for (const char *key; (key = va_arg(ap, const char *));) {
        g_string_append_c(out, ',');
        ex_json_key_string(out, key, va_arg(ap, const char *));
    }
    va_end(ap);
}

char *ex_deb_source_info(const struct dpkg_pkg *pkg)
{
    return g_strdup_printf("Debian binary package %s (%s) of source package %s %s", pkg->name,
                           pkg->arch, pkg->source, pkg->source_version);
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

GArray *ex_ids_sorted(GHashTable *set)
{
    GArray *ids = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), g_hash_table_size(set));
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, set);
    while (g_hash_table_iter_next(&it, &key, NULL))
        g_array_append_val(ids, *(const int64_t *)key);
    g_array_sort(ids, ex_proc_id_cmp_int64);
    return ids;
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
const GArray *ex_closure(struct export_ctx *x, const struct prov_version *v)
{
    if (!x->closures) {
        x->closures = closures_new(x->p);
        /* every product's, in the order that shares most (closures_plan) */
        GArray *prods = ex_products(x);
        GArray *ids = g_array_sized_new(FALSE, FALSE, sizeof(int64_t), prods->len);
        for (guint i = 0; i < prods->len; i++)
            g_array_append_val(ids, g_array_index(prods, const struct prov_version *, i)->id);
        closures_plan(x->closures, (const int64_t *)(void *)ids->data, ids->len);
        g_array_unref(ids);
        g_array_unref(prods);
    }
    return closures_of(x->closures, v->id);
}

void ex_product_inputs(struct export_ctx *x, const struct prov_version *v, GArray **leaves,
                       GArray **tools)
{
    const GArray *nodes = ex_closure(x, v);
    *leaves = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    *tools = g_array_new(FALSE, FALSE, sizeof(const struct prov_version *));
    for (guint i = 0; i < nodes->len; i++) {
        const struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        if (n->role == PROV_ROLE_TOOL)
            g_array_append_val(*tools, n->v);
        else if (n->v->origin == TRACEDB_VERSION_FOUND && n->role < PROV_ROLE_SHLIB)
            g_array_append_val(*leaves, n->v);
    }
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

/* ---- what the SBOMs say of files and packages ---- */

static bool has_suffix_in(const char *path, const char *const *sfx)
{
    for (; *sfx; sfx++)
        if (g_str_has_suffix(path, *sfx))
            return true;
    return false;
}

enum ex_file_type ex_file_type(const struct prov_version *v)
{
    static const char *const docs[] = {".md", ".txt", ".html", ".rst", NULL};
    unsigned char h[512];
    ssize_t n = -1;
    struct stat st;
    /* Only a regular file is opened: opening a device can act (a tape rewinds). */
    int fd = stat(v->path, &st) == 0 && S_ISREG(st.st_mode)
                 ? open(v->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
                 : -1;
    if (fd >= 0) {
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) /* never a FIFO's or device's bytes */
            n = read(fd, h, sizeof h);
        close(fd);
    }
    enum filekind k = filekind_of(v->path);
    if (n >= 18 && !memcmp(h, "\177ELF", 4)) {
        unsigned type = h[5] == 2 ? (unsigned)h[17] << 8 | h[16] : (unsigned)h[16] | h[17] << 8;
        if (type == 1)
            return EX_FT_OBJECT;
        if (type == 3 && k == FILEKIND_SHLIB)
            return EX_FT_SHLIB;
        return EX_FT_EXECUTABLE;
    }
    if ((n >= 8 && !memcmp(h, "!<arch>\n", 8)) || (n >= 2 && h[0] == 0x1f && h[1] == 0x8b) ||
        (n >= 6 && !memcmp(h, "\3757zXZ", 6)) || (n >= 4 && !memcmp(h, "\050\265\057\375", 4)) ||
        (n >= 3 && !memcmp(h, "BZh", 3)) || (n >= 262 && !memcmp(h + 257, "ustar", 5)))
        return EX_FT_ARCHIVE;
    if (n < 0) { /* gone or unreadable: the name says */
        switch (k) {
        case FILEKIND_OBJECT:
            return g_str_has_suffix(v->path, ".a") ? EX_FT_ARCHIVE : EX_FT_OBJECT;
        case FILEKIND_SHLIB:
            return EX_FT_SHLIB;
        default:
            break;
        }
    }
    if (k == FILEKIND_SOURCE || k == FILEKIND_HEADER || k == FILEKIND_SCRIPT ||
        (n >= 2 && h[0] == '#' && h[1] == '!'))
        return EX_FT_SOURCE;
    if (strstr(v->path, "/share/doc/") || strstr(v->path, "/share/man/") ||
        has_suffix_in(v->path, docs))
        return EX_FT_DOCUMENTATION;
    if (n > 0 && !memchr(h, '\0', (size_t)n) && g_utf8_validate((const char *)h, n, NULL))
        return EX_FT_TEXT;
    return EX_FT_OTHER;
}

const char *ex_spdx_file_types(enum ex_file_type t)
{
    switch (t) {
    case EX_FT_EXECUTABLE:
    case EX_FT_SHLIB:
        return "\"BINARY\",\"APPLICATION\"";
    case EX_FT_OBJECT:
        return "\"BINARY\"";
    case EX_FT_ARCHIVE:
        return "\"ARCHIVE\"";
    case EX_FT_SOURCE:
        return "\"SOURCE\"";
    case EX_FT_DOCUMENTATION:
        return "\"DOCUMENTATION\",\"TEXT\"";
    case EX_FT_TEXT:
        return "\"TEXT\"";
    default:
        return "\"OTHER\"";
    }
}

char *ex_product_license(struct export_ctx *x, const struct prov_version *v, GHashTable *cache,
                         unsigned *n_unknown)
{
    GPtrArray *files = licroll_of_nodes(ex_closure(x, v), cache);
    char *roll = licroll_rollup(files);
    unsigned unknown = 0;
    for (guint i = 0; i < files->len; i++) {
        const struct lic_file *f = files->pdata[i];
        unknown += f->cat == CAT_INCORPORATED && !f->license;
    }
    if (n_unknown)
        *n_unknown = unknown;
    g_ptr_array_free(files, TRUE);
    return roll;
}

const char *ex_file_license(GHashTable *cache, const struct prov_version *v)
{
    bool looked;
    return licroll_cached(cache, v->id, &looked);
}

static bool license_id(const char *w)
{
    if (!*w)
        return false;
    for (const char *c = w; *c; c++)
        if (!g_ascii_isalnum(*c) && *c != '.' && *c != '-' && *c != '+')
            return false;
    return true;
}

/* Is `expr` a well-formed SPDX expression: operands (an id, "ID WITH ID", or a parenthesised
 * expression) joined by AND / OR, parentheses balanced?  (Ids themselves: license_id.) */
static bool well_formed(const char *expr)
{
    g_autoptr(GString) spaced = g_string_new(NULL);
    for (const char *c = expr; *c; c++) {
        if (*c == '(' || *c == ')')
            g_string_append_printf(spaced, " %c ", *c);
        else
            g_string_append_c(spaced, *c);
    }
    g_auto(GStrv) words = g_strsplit_set(spaced->str, " \t\n", -1);
    bool want_operand = true, after_id = false;
    size_t depth = 0;
    for (char **w = words; *w; w++) {
        if (!**w)
            continue;
        bool op = !strcmp(*w, "AND") || !strcmp(*w, "OR");
        if (!strcmp(*w, "(")) {
            if (!want_operand)
                return false;
            depth++;
        } else if (!strcmp(*w, ")")) {
            if (want_operand || !depth)
                return false;
            depth--;
            after_id = false;
        } else if (op) {
            if (want_operand)
                return false;
            want_operand = true;
        } else if (!strcmp(*w, "WITH")) {
            if (!after_id)
                return false;
            after_id = false;
            want_operand = true; /* the exception: an id, and no more WITH after it */
            w++;
            while (*w && !**w)
                w++;
            if (!*w || !strcmp(*w, "(") || !strcmp(*w, ")") || !strcmp(*w, "AND") ||
                !strcmp(*w, "OR") || !strcmp(*w, "WITH"))
                return false;
            want_operand = false;
        } else {
            if (!want_operand)
                return false;
            want_operand = false;
            after_id = true;
        }
    }
    return !want_operand && depth == 0;
}

bool ex_license_items(const char *expr, GPtrArray *out)
{
    if (!well_formed(expr))
        return false;
    g_auto(GStrv) words = g_strsplit_set(expr, " ()", -1);
    GPtrArray *items = g_ptr_array_new_with_free_func(g_free);
    bool ok = true;
    for (char **w = words; *w && ok; w++) {
        if (!**w || !strcmp(*w, "AND") || !strcmp(*w, "OR"))
            continue;
        if (!strcmp(*w, "WITH")) { /* joins the last id and the next word */
            char **e = w + 1;
            while (*e && !**e)
                e++;
            ok = items->len && *e && license_id(*e);
            if (ok) {
                char *joined = g_strdup_printf("%s WITH %s", (char *)items->pdata[items->len - 1], *e);
                g_free(items->pdata[items->len - 1]);
                items->pdata[items->len - 1] = joined;
                w = e;
            }
            continue;
        }
        ok = license_id(*w);
        if (ok)
            g_ptr_array_add(items, g_strdup(*w));
    }
    /* (hashed: a crafted file of many distinct tags made this quadratic) */
    GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; ok && i < out->len; i++)
        g_hash_table_add(seen, out->pdata[i]);
    for (guint i = 0; ok && i < items->len; i++) {
        if (g_hash_table_contains(seen, items->pdata[i]))
            continue;
        char *c = g_strdup(items->pdata[i]);
        g_ptr_array_add(out, c);
        g_hash_table_add(seen, c);
    }
    g_hash_table_destroy(seen);
    g_ptr_array_free(items, TRUE);
    return ok;
}

static gint deb_cmp(gconstpointer a, gconstpointer b)
{
    const struct ex_deb *x = *(const struct ex_deb *const *)a, *y = *(const struct ex_deb *const *)b;
    int c = strcmp(x->pkg->name, y->pkg->name);
    return c ? c : strcmp(x->pkg->arch, y->pkg->arch);
}

static void deb_free(gpointer p)
{
    struct ex_deb *d = p;
    g_free(d->purl);
    g_array_unref(d->versions);
    g_free(d);
}

/* A purl component, percent-encoded (unreserved characters and ':' kept). */
static void purl_part(GString *s, const char *part)
{
    for (const unsigned char *c = (const unsigned char *)part; *c; c++)
        if (g_ascii_isalnum(*c) || strchr(".-_~:", *c))
            g_string_append_c(s, (char)*c);
        else
            g_string_append_printf(s, "%%%02X", *c);
}

/* The purl namespace: the ID in the os-release of the system whose dpkg database `admindir`
 * is (ROOT/var/lib/dpkg: ROOT/etc/os-release, else ROOT/usr/lib/os-release — a chroot's
 * database names its own distribution, not the exporting machine's), "debian" when it says
 * none. */
static char *deb_vendor(const char *admindir)
{
    g_autofree char *root = NULL;
    g_autofree char *dir = g_canonicalize_filename(admindir, NULL);
    if (g_str_has_suffix(dir, "/var/lib/dpkg"))
        root = g_strndup(dir, strlen(dir) - strlen("/var/lib/dpkg"));
    else
        root = g_strdup(""); /* another layout: the exporting machine's */
    g_autofree char *etc = g_strconcat(root, "/etc/os-release", NULL);
    g_autofree char *lib = g_strconcat(root, "/usr/lib/os-release", NULL);
    g_autoptr(GString) text = g_string_new(NULL);
    const char *kind;
    if (path_read_regular(etc, text, 65536, &kind) == 0 ||
        (g_string_truncate(text, 0), path_read_regular(lib, text, 65536, &kind) == 0)) {
        g_auto(GStrv) lines = g_strsplit(text->str, "\n", -1);
        for (char **l = lines; *l; l++) {
            if (strncmp(*l, "ID=", 3))
                continue;
            char *id = g_strstrip(g_strdelimit(*l + 3, "\"'", ' '));
            bool ok = *id != '\0';
            for (const char *c = id; *c && ok; c++)
                ok = g_ascii_islower(*c) || g_ascii_isdigit(*c) || *c == '.' || *c == '-';
            if (ok)
                return g_strdup(id);
        }
    }
    return g_strdup("debian");
}

static struct ex_deb *deb_of(struct ex_debs *d, GHashTable *by_pkg, const struct dpkg_pkg *pkg,
                             const char *vendor)
{
    struct ex_deb *e = g_hash_table_lookup(by_pkg, pkg);
    if (e)
        return e;
    e = g_new0(struct ex_deb, 1);
    e->pkg = pkg;
    e->versions = g_array_new(FALSE, FALSE, sizeof(int64_t));
    GString *purl = g_string_new("pkg:deb/");
    purl_part(purl, vendor);
    g_string_append_c(purl, '/');
    g_autofree char *lower = g_ascii_strdown(pkg->name, -1);
    purl_part(purl, lower);
    g_string_append_c(purl, '@');
    purl_part(purl, pkg->version);
    g_string_append(purl, "?arch=");
    purl_part(purl, pkg->arch);
    e->purl = g_string_free(purl, FALSE);
    g_hash_table_insert(by_pkg, (gpointer)pkg, e);
    g_ptr_array_add(d->list, e);
    return e;
}

/* The reads of one file (prov_found_reads' [from, to)) and its path. */
struct found_file {
    const char *path;
    guint from, to;
};

static gint found_file_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(((const struct found_file *)a)->path, ((const struct found_file *)b)->path);
}

/* The files of `reads` (sorted by file) that the trace has a path for, sorted by path. */
static GArray *found_files_by_path(struct prov *p, const GArray *reads)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(struct found_file));
    for (guint i = 0, j; i < reads->len; i = j) {
        int64_t fid = g_array_index(reads, struct prov_found_read, i).file_id;
        for (j = i + 1;
             j < reads->len && g_array_index(reads, struct prov_found_read, j).file_id == fid;)
            j++;
        struct found_file f = {prov_file_path(p, fid), i, j};
        if (f.path)
            g_array_append_val(out, f);
    }
    g_array_sort(out, found_file_cmp);
    return out;
}

struct ex_debs *ex_debs_load(struct export_ctx *x)
{
    struct ex_debs *d = g_new0(struct ex_debs, 1);
    d->list = g_ptr_array_new_with_free_func(deb_free);
    d->by_version = g_hash_table_new(g_int64_hash, g_int64_equal);
    const char *admindir = x->admindir ? x->admindir : "/var/lib/dpkg";
    if (dpkgdb_load(admindir, &d->db) < 0) {
        d->db = NULL;
        return d;
    }
    g_autofree char *vendor = deb_vendor(admindir);
    GHashTable *by_pkg = g_hash_table_new(g_direct_hash, g_direct_equal);
    size_t cl = strlen(x->run.cwd);
    /* the reads by path, then kind and version (as TQ_FOUND_READS_WITH_PATHS orders them):
     * from the loaded graph, which the exports walk anyway, not a query of its own */
    GArray *reads = prov_found_reads(x->p);
    GArray *by_path = found_files_by_path(x->p, reads);
    for (guint g = 0; g < by_path->len; g++) {
        const struct found_file *ff = &g_array_index(by_path, struct found_file, g);
        const char *path = ff->path;
        if (!strncmp(path, x->run.cwd, cl) && (path[cl] == '/' || !path[cl]))
            continue;
        const struct dpkg_pkg *pkg = dpkgdb_owner(d->db, path);
        if (!pkg)
            continue;
        struct ex_deb *e = deb_of(d, by_pkg, pkg, vendor);
        for (guint i = ff->from; i < ff->to; i++) {
            const struct prov_found_read *r = &g_array_index(reads, struct prov_found_read, i);
            int64_t vid = r->version_id;
            e->files++;
            e->executed |= r->kind == TRACEDB_EXEC;
            if (!g_hash_table_contains(d->by_version, &vid)) {
                g_array_append_val(e->versions, vid);
                const struct prov_version *v = prov_version(x->p, vid);
                if (v)
                    g_hash_table_insert(d->by_version, (gpointer)&v->id, e);
            }
        }
    }
    g_array_unref(by_path);
    g_array_unref(reads);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(x->q, tracedb_sql(TQ_SYMLINKS_FOLLOWED), &st))
        qdb_bind_int64(x->q, st, 1, 0);
    while (st && qdb_row(x->q, st)) {
        const char *path = (const char *)sqlite3_column_text(st, TQ_SYMLINKS_FOLLOWED_PATH);
        if (!strncmp(path, x->run.cwd, cl) && (path[cl] == '/' || !path[cl]))
            continue;
        const struct dpkg_pkg *pkg = dpkgdb_owner(d->db, path);
        if (pkg)
            deb_of(d, by_pkg, pkg, vendor)->links++;
    }
    sqlite3_finalize(st);
    g_hash_table_destroy(by_pkg);
    g_ptr_array_sort(d->list, deb_cmp);
    for (guint i = 0; i < d->list->len; i++) {
        struct ex_deb *e = d->list->pdata[i];
        g_array_sort(e->versions, ex_proc_id_cmp_int64);
    }
    return d;
}

void ex_debs_free(struct ex_debs *d)
{
    if (!d)
        return;
    g_hash_table_destroy(d->by_version);
    g_ptr_array_free(d->list, TRUE);
    dpkgdb_free(d->db);
    g_free(d);
}
