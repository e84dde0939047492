/* prov — see prov.h for the contract and the graph; prov-internal.h for how the files of prov
 * divide the work.  This file: the struct prov, versions and paths, the bindings (what each
 * file holds at the end, the products), the traced trees, a version's content. */
#include "prov-internal.h"
#include "paths.h"
#include "queries.h"
#include "stmt.h"
#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The trace has no file with this id (kept in `paths` so that it is asked once). */
static char no_path;

static void free_path(gpointer v)
{
    if (v != &no_path)
        g_free(v);
}

static char no_version;
#define NO_VERSION ((gpointer)&no_version) /* cached: no such version */

static void free_version(gpointer v)
{
    if (v != NO_VERSION)
        g_free(v);
}

static const struct {
    const char *name, *title;
} role_names[PROV_ROLE_COUNT] = {
    [PROV_ROLE_SOURCE] = {"source", "compiled sources"},
    [PROV_ROLE_HEADER] = {"header", "included headers"},
    [PROV_ROLE_OBJECT] = {"object", "linked objects and archives"},
    [PROV_ROLE_COPY] = {"copy", "copied or rewritten (the output carries their content)"},
    [PROV_ROLE_GENERATED] = {"generated-from", "generator inputs"},
    [PROV_ROLE_SHLIB] = {"shlib", "shared libraries"},
    [PROV_ROLE_TOOL] = {"tool", "executed tools"},
    [PROV_ROLE_SCRIPT] = {"script", "build scripts (read by the build tool, not incorporated)"},
    [PROV_ROLE_PROBE] = {"probe", "configure probes (read by a configure step, not incorporated)"},
    [PROV_ROLE_OTHER] = {"other", "other inputs"},
};

const char *prov_role_name(enum prov_role r)
{
    return role_names[r].name;
}

const char *prov_role_title(enum prov_role r)
{
    return role_names[r].title;
}

static sqlite3_stmt *prepare(struct prov *p, const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(p->q, sql, &st))
        return NULL;
    return st;
}

/* The path of file ?1. */
TRACEDB_STATEMENT(sql_file_path, 1, TRACEDB_SCHEMA_VERSION, "SELECT path FROM files WHERE id = ?");
enum { FILE_PATH };

/* Version ?1 (sql_version_by_id) or every version (sql_versions): row_to_version's columns,
 * and for one version the file it was last moved to (a rename_to or link), or NULL. */
TRACEDB_STATEMENT(sql_version_by_id, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT v.id, v.file_id, v.origin, v.base_id, v.size, hex(v.sha256), "
                  "hex(v.git_sha1), v.hash_error, hex(v.sha1), (SELECT a.file_id FROM "
                  "accesses a WHERE a.version_id = v.id AND a.kind IN " TRACEDB_KINDS_PLACED
                  " AND a.result = 0 ORDER BY a.first_ns DESC, a.id DESC LIMIT 1) FROM "
                  "versions v WHERE v.id = ?");
TRACEDB_STATEMENT(sql_versions, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT id, file_id, origin, base_id, size, hex(sha256), hex(git_sha1), "
                  "hash_error, hex(sha1) FROM versions");
enum {
    VERSION_ID,
    VERSION_FILE,
    VERSION_ORIGIN,
    VERSION_BASE,
    VERSION_SIZE,
    VERSION_SHA256,
    VERSION_GIT_SHA1,
    VERSION_HASH_ERROR,
    VERSION_SHA1,
    VERSION_MOVED_TO /* (sql_version_by_id only) */
};

struct prov *prov_new(struct qdb *q)
{
    if (q->schema_version < 3)
        return NULL;
    struct prov *p = g_new0(struct prov, 1);
    p->q = q;
    pv_idmap_init(&p->versions, 0, free_version);
    pv_idmap_init(&p->paths, 0, free_path);
    pv_idmap_init(&p->name_kinds, 0, NULL);
    pv_idmap_init(&p->facts, 0, pv_free_facts);
    pv_idmap_init(&p->configure, 0, NULL);
    p->st_version = prepare(p, sql_version_by_id);
    p->st_path = prepare(p, sql_file_path);
    pv_prepare_edges(p);
    if (!p->st_version || !p->st_path || !p->st_writers || !p->st_reads || !p->st_readers ||
        !p->st_writes || !p->st_based) {
        prov_free(p);
        return NULL;
    }
    return p;
}

void prov_free(struct prov *p)
{
    if (!p)
        return;
    sqlite3_finalize(p->st_version);
    sqlite3_finalize(p->st_path);
    sqlite3_finalize(p->st_writers);
    sqlite3_finalize(p->st_reads);
    sqlite3_finalize(p->st_readers);
    sqlite3_finalize(p->st_writes);
    sqlite3_finalize(p->st_based);
    sqlite3_finalize(p->st_version_at);
    sqlite3_finalize(p->st_last_kind);
    if (p->bindings) {
        g_free(p->bindings->files);
        g_free(p->bindings->uses);
        g_free(p->bindings);
    }
    pv_idmap_clear(&p->versions);
    pv_idmap_clear(&p->paths);
    pv_idmap_clear(&p->name_kinds);
    pv_idmap_clear(&p->facts);
    if (p->direct)
        g_hash_table_destroy(p->direct);
    pv_idmap_clear(&p->configure);
    if (p->successors)
        g_hash_table_destroy(p->successors);
    pv_graph_free(p->graph);
    pv_share_free(p->share);
    g_free(p->path_rank);
    for (int i = 0; p->walk_maps_made && i < 3; i++)
        pv_idmap_clear(&p->walk_maps[i]);
    if (p->node_blocks)
        g_ptr_array_free(p->node_blocks, TRUE);
    g_free(p->tmp_tree);
    if (p->other_trees)
        g_ptr_array_free(p->other_trees, TRUE);
    g_free(p);
}

const char *prov_file_path(struct prov *p, int64_t file_id)
{
    const char *path = pv_idmap_get(&p->paths, file_id);
    if (path || p->graph || p->versions_loaded) /* (once loaded, every path is there) */
        return path == &no_path ? NULL : path;
    sqlite3_stmt *st = p->st_path;
    qdb_bind_int64(p->q, st, 1, file_id);
    char *s = NULL;
    if (qdb_row(p->q, st))
        s = g_strdup((const char *)sqlite3_column_text(st, FILE_PATH));
    sqlite3_reset(st);
    pv_idmap_set(&p->paths, file_id, s ? s : &no_path);
    return s;
}

/* Files by path (the paths are loaded). */
static gint file_path_cmp(gconstpointer a, gconstpointer b, gpointer data)
{
    struct prov *p = data;
    return strcmp(prov_file_path(p, *(const int64_t *)a), prov_file_path(p, *(const int64_t *)b));
}

/* prov_file_path, or "?" for a file the trace does not have (a damaged trace). */
const char *pv_file_path(struct prov *p, int64_t file_id)
{
    const char *path = prov_file_path(p, file_id);
    return path ? path : "?";
}

static void copy_hex(char *dst, size_t cap, const unsigned char *hex)
{
    if (!hex) {
        dst[0] = '\0';
        return;
    }
    g_strlcpy(dst, (const char *)hex, cap);
    for (char *c = dst; *c; c++)
        *c = g_ascii_tolower(*c);
}

/* A version from a row of sql_version_by_id or sql_versions (VERSION_FILE .. VERSION_SHA1),
 * last moved to `moved_to` (0: never moved). */
static struct prov_version *row_to_version(struct prov *p, sqlite3_stmt *st, int64_t id,
                                           int64_t moved_to)
{
    struct prov_version *v = g_new0(struct prov_version, 1);
    v->id = id;
    v->file_id = sqlite3_column_int64(st, VERSION_FILE);
    v->origin = sqlite3_column_int(st, VERSION_ORIGIN);
    v->base_id = sqlite3_column_int64(st, VERSION_BASE);
    /* The recorder numbers a version after the one it was written on: a base that is not
     * earlier is a cycle or a crafted row (a walk down the bases might never end). */
    int base_type = sqlite3_column_type(st, VERSION_BASE);
    if ((base_type != SQLITE_INTEGER && base_type != SQLITE_NULL) || v->base_id < 0 ||
        v->base_id >= id) {
        qdb_damaged(p->q, "version %" G_GINT64_FORMAT " was written on %s, not an earlier "
                          "version", id, (const char *)sqlite3_column_text(st, VERSION_BASE));
        v->base_id = 0;
    }
    v->size = sqlite3_column_type(st, VERSION_SIZE) == SQLITE_NULL
                  ? -1 : sqlite3_column_int64(st, VERSION_SIZE);
    copy_hex(v->sha256, sizeof v->sha256, sqlite3_column_text(st, VERSION_SHA256));
    copy_hex(v->git_sha1, sizeof v->git_sha1, sqlite3_column_text(st, VERSION_GIT_SHA1));
    v->hash_error = sqlite3_column_int(st, VERSION_HASH_ERROR);
    copy_hex(v->sha1, sizeof v->sha1, sqlite3_column_text(st, VERSION_SHA1));
    v->at_file_id = moved_to ? moved_to : v->file_id;
    v->path = pv_file_path(p, v->at_file_id);
    return v;
}

const struct prov_version *prov_version(struct prov *p, int64_t id)
{
    gpointer value = pv_idmap_get(&p->versions, id);
    if (value || p->graph || p->versions_loaded)
        return value == NO_VERSION ? NULL : value;
    sqlite3_stmt *st = p->st_version;
    qdb_bind_int64(p->q, st, 1, id);
    struct prov_version *v = NULL;
    if (qdb_row(p->q, st))
        v = row_to_version(p, st, id, sqlite3_column_int64(st, VERSION_MOVED_TO));
    sqlite3_reset(st);
    pv_idmap_set(&p->versions, id, v ? (gpointer)v : NO_VERSION);
    return v;
}

static bool later(int64_t t, int64_t id, int64_t than_t, int64_t than_id)
{
    return t > than_t || (t == than_t && id > than_id);
}

/* The largest file and version ids. */
TRACEDB_STATEMENT(sql_max_file_id, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT COALESCE(MAX(id), 0) FROM files");
TRACEDB_STATEMENT(sql_max_version_id, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT COALESCE(MAX(id), 0) FROM versions");

int64_t pv_max_file_id(struct prov *p)
{
    return qdb_max_id(p->q, sql_max_file_id);
}

int64_t pv_max_version_id(struct prov *p)
{
    return qdb_max_id(p->q, sql_max_version_id);
}

struct bindings *pv_bindings_new(struct prov *p)
{
    struct bindings *b = g_new0(struct bindings, 1);
    b->max_file = pv_max_file_id(p);
    b->max_version = pv_max_version_id(p);
    b->files = g_new0(struct file_end, (size_t)b->max_file + 1);
    b->uses = g_new0(guint8, (size_t)b->max_version + 1);
    return b;
}

/* Account one successful access (of sql_bindings' columns) in `b`. */
void pv_bindings_add(struct bindings *b, int64_t fid, bool has_version, int64_t vid,
                         int kind, int64_t t, int64_t id)
{
    if (fid < 1 || fid > b->max_file)
        return;
    struct file_end *f = &b->files[fid];
    if (tracedb_kind_in(TRACEDB_MASK_BOUND, kind) &&
        (!f->last_id || later(t, id, f->last_t, f->last_id))) {
        f->last_t = t;
        f->last_id = id;
        f->last_kind = kind;
    }
    if (!has_version)
        return;
    bool gone = kind == TRACEDB_UNLINK || kind == TRACEDB_RENAME_FROM;
    if (!gone && (!f->at_id || later(t, id, f->at_t, f->at_id))) {
        f->at_t = t;
        f->at_id = id;
        f->version_at = vid;
    }
    bool made = kind == TRACEDB_WRITE || kind == TRACEDB_CREATE || kind == TRACEDB_TRUNCATE;
    if (made || kind == TRACEDB_RENAME_TO || kind == TRACEDB_LINK) /* TRACEDB_KINDS_PRODUCED */
        f->produced = true;
    if (vid < 1 || vid > b->max_version)
        return;
    b->uses[vid] |= PROV_USE_BOUND;
    if (kind == TRACEDB_READ)
        b->uses[vid] |= PROV_USE_OPENED | PROV_USE_READ;
    else if (kind == TRACEDB_EXEC)
        b->uses[vid] |= PROV_USE_READ;
    else if (made)
        b->uses[vid] |= PROV_USE_MADE;
}

/* Every successful access: file, version, kind, time, id (a scan). */
TRACEDB_STATEMENT(sql_bindings, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT file_id, version_id, kind, first_ns, id FROM accesses NOT INDEXED "
                  "WHERE result = 0");
enum { BINDING_FILE, BINDING_VERSION, BINDING_KIND, BINDING_TIME, BINDING_ID };

void prov_load_bindings(struct prov *p)
{
    if (p->bindings)
        return;
    struct bindings *b = pv_bindings_new(p);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(p->q, sql_bindings, &st)) {
        while (qdb_row(p->q, st))
            pv_bindings_add(b, sqlite3_column_int64(st, BINDING_FILE),
                            sqlite3_column_type(st, BINDING_VERSION) != SQLITE_NULL,
                            sqlite3_column_int64(st, BINDING_VERSION),
                            sqlite3_column_int(st, BINDING_KIND),
                            sqlite3_column_int64(st, BINDING_TIME),
                            sqlite3_column_int64(st, BINDING_ID));
    }
    sqlite3_finalize(st);
    p->bindings = b;
}

GArray *prov_product_files(struct prov *p)
{
    prov_load_bindings(p);
    prov_load_versions(p); /* every path */
    GArray *out = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (int64_t f = 1; f <= p->bindings->max_file; f++)
        if (p->bindings->files[f].produced && prov_file_path(p, f))
            g_array_append_val(out, f);
    g_array_sort_with_data(out, file_path_cmp, p);
    return out;
}

GArray *prov_versions_used_as(struct prov *p, unsigned uses, bool found_only)
{
    prov_load_bindings(p);
    GArray *out = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (int64_t v = 1; v <= p->bindings->max_version; v++) {
        if (!(p->bindings->uses[v] & uses))
            continue;
        const struct prov_version *pv = prov_version(p, v);
        if (pv && (!found_only || pv->origin == TRACEDB_VERSION_FOUND))
            g_array_append_val(out, v);
    }
    return out;
}

/* The version file ?1 held last: of the accesses that bound one there, the latest that did
 * not remove or move it away. */
TRACEDB_STATEMENT(sql_version_at_file, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT version_id FROM accesses WHERE file_id = ? AND version_id IS NOT NULL "
                  "AND result = 0 AND kind NOT IN " TRACEDB_KINDS_GONE
                  " ORDER BY first_ns DESC, id DESC LIMIT 1");
enum { VERSION_AT };

int64_t prov_version_at(struct prov *p, int64_t file_id)
{
    if (p->bindings)
        return file_id >= 1 && file_id <= p->bindings->max_file
                   ? p->bindings->files[file_id].version_at : 0;
    /* Any access that bound a version at this path says "at that time it held V"; a
     * rename_from or unlink says it stopped holding it.  (Asked once per product by diff
     * and the exports: the statement is kept.) */
    int64_t id = 0;
    if (!p->st_version_at && !qdb_prepare(p->q, sql_version_at_file, &p->st_version_at))
        return 0;
    if (qdb_bind_int64(p->q, p->st_version_at, 1, file_id) && qdb_row(p->q, p->st_version_at))
        id = sqlite3_column_int64(p->st_version_at, VERSION_AT);
    sqlite3_reset(p->st_version_at);
    return id;
}

/* The kind of the last access that bound a version at file ?1. */
TRACEDB_STATEMENT(sql_last_binding_kind, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT kind FROM accesses WHERE file_id = ?1 AND result = 0 AND kind IN "
                  TRACEDB_KINDS_BOUND " ORDER BY first_ns DESC, id DESC LIMIT 1");
enum { LAST_KIND };

bool prov_exists_at_end(struct prov *p, int64_t file_id)
{
    if (p->bindings) {
        int kind = file_id >= 1 && file_id <= p->bindings->max_file
                       ? p->bindings->files[file_id].last_kind : 0;
        return kind != TRACEDB_UNLINK && kind != TRACEDB_RENAME_FROM;
    }
    int64_t kind = -1;
    if (!p->st_last_kind && !qdb_prepare(p->q, sql_last_binding_kind, &p->st_last_kind))
        return true;
    if (qdb_bind_int64(p->q, p->st_last_kind, 1, file_id) && qdb_row(p->q, p->st_last_kind))
        kind = sqlite3_column_int64(p->st_last_kind, LAST_KIND);
    sqlite3_reset(p->st_last_kind);
    return kind != TRACEDB_UNLINK && kind != TRACEDB_RENAME_FROM;
}

bool prov_in_private_tmp(struct prov *p, const char *path)
{
    if (!p->trees_loaded) {
        p->trees_loaded = true;
        p->other_trees = g_ptr_array_new_with_free_func(g_free);
        sqlite3_stmt *st = NULL;
        if (qdb_prepare(p->q, tracedb_sql(TQ_TREES), &st)) {
            while (qdb_row(p->q, st)) {
                const char *tree = (const char *)sqlite3_column_text(st, TQ_TREES_PATH);
                const char *role = (const char *)sqlite3_column_text(st, TQ_TREES_ROLE);
                if (!tree)
                    continue;
                if (role && !strcmp(role, "tmp") && !p->tmp_tree)
                    p->tmp_tree = g_strdup(tree);
                else
                    g_ptr_array_add(p->other_trees, g_strdup(tree));
            }
        }
        sqlite3_finalize(st);
    }
    char *tmp[] = {p->tmp_tree, NULL};
    if (!p->tmp_tree || !prov_path_under(path, tmp))
        return false;
    size_t tmp_len = strlen(p->tmp_tree);
    for (guint i = 0; i < p->other_trees->len; i++) {
        char *one[] = {p->other_trees->pdata[i], NULL};
        if (strlen(one[0]) > tmp_len && prov_path_under(path, one))
            return false;
    }
    return true;
}

bool prov_in_scratch_place(struct prov *p, const char *path)
{
    if (prov_in_private_tmp(p, path))
        return true;
    const char *cwd = qdb_run(p->q)->cwd;
    g_autofree char *parent = cwd ? g_path_get_dirname(cwd) : NULL;
    char *ws[] = {(char *)cwd, NULL};
    char *near[] = {parent, NULL};
    bool in_workspace = cwd && prov_path_under(path, ws);
    if (!in_workspace && (strstr(path, "/.cache/") || strstr(path, "/.ccache/")))
        return true;
    if (parent && strcmp(parent, "/") && prov_path_under(path, near))
        return false;
    static char tmp[] = "/tmp", var_tmp[] = "/var/tmp", var_cache[] = "/var/cache";
    char *const scratch[] = {tmp, var_tmp, var_cache, NULL};
    return prov_path_under(path, scratch);
}

bool prov_is_product(struct prov *p, const struct prov_version *v)
{
    if (v->origin != TRACEDB_VERSION_WRITTEN || prov_in_scratch_place(p, v->path))
        return false;
    int64_t file_id = qdb_file_id(p->q, v->path);
    return file_id && prov_exists_at_end(p, file_id) && prov_version_at(p, file_id) == v->id;
}

static gint by_version_path(gconstpointer a, gconstpointer b)
{
    return strcmp((*(const struct prov_version *const *)a)->path,
                  (*(const struct prov_version *const *)b)->path);
}

/* The end of one file's bindings in prov_products' scan: add its last version if that is a
 * product (the same test as prov_is_product). */
static void product_of_file(struct prov *p, int64_t file_id, int64_t last_kind,
                            int64_t last_version, GHashTable *seen, GPtrArray *out)
{
    if (!file_id || !last_version || last_kind == TRACEDB_UNLINK ||
        last_kind == TRACEDB_RENAME_FROM)
        return;
    const struct prov_version *v = prov_version(p, last_version);
    const char *path = pv_file_path(p, file_id);
    if (!v || v->origin != TRACEDB_VERSION_WRITTEN || !path || strcmp(v->path, path) ||
        prov_in_scratch_place(p, v->path) || g_hash_table_contains(seen, &v->id))
        return;
    g_hash_table_add(seen, (gpointer)&v->id);
    g_ptr_array_add(out, (gpointer)v);
}

/* (file, kind, version) of every binding of the files where the build wrote or placed a
 * version (products), by file then time. */
TRACEDB_STATEMENT(sql_bindings_by_file, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT a.file_id, a.kind, a.version_id FROM accesses a WHERE (a.file_id IN "
                  "(SELECT file_id FROM versions WHERE origin = 2) OR a.file_id IN (SELECT "
                  "file_id FROM accesses WHERE kind IN " TRACEDB_KINDS_PLACED " AND result = 0)) "
                  "AND a.result = 0 AND a.kind IN " TRACEDB_KINDS_BOUND
                  " ORDER BY a.file_id, a.first_ns, a.id");
enum { BYFILE_FILE, BYFILE_KIND, BYFILE_VERSION };

GPtrArray *prov_products(struct prov *p)
{
    GPtrArray *out = g_ptr_array_new();
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    sqlite3_stmt *st = NULL;
    int64_t file = 0, last_kind = -1, last_version = 0;
    if (qdb_prepare(p->q, sql_bindings_by_file, &st)) {
        while (qdb_row(p->q, st)) {
            int64_t f = sqlite3_column_int64(st, BYFILE_FILE);
            int64_t kind = sqlite3_column_int64(st, BYFILE_KIND);
            if (f != file) {
                product_of_file(p, file, last_kind, last_version, seen, out);
                file = f;
                last_version = 0;
            }
            last_kind = kind;
            if (sqlite3_column_type(st, BYFILE_VERSION) != SQLITE_NULL &&
                kind != TRACEDB_UNLINK && kind != TRACEDB_RENAME_FROM)
                last_version = sqlite3_column_int64(st, BYFILE_VERSION);
        }
        product_of_file(p, file, last_kind, last_version, seen, out);
    }
    sqlite3_finalize(st);
    g_hash_table_destroy(seen);
    g_ptr_array_sort(out, by_version_path);
    return out;
}

/* Every version seen at file ?1, by id (qdb_ids reads its one column). */
TRACEDB_STATEMENT(sql_versions_of_file, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT version_id FROM accesses WHERE file_id = ?1 AND version_id IS NOT NULL "
                  "AND result = 0 UNION SELECT id FROM versions WHERE file_id = ?1 ORDER BY 1");

GArray *prov_versions_at(struct prov *p, int64_t file_id)
{
    return qdb_ids(p->q, sql_versions_of_file, file_id);
}

char *prov_read_regular_file(const char *path, gsize *len)
{
    GString *s = g_string_new(NULL);
    const char *kind;
    if (path_read_regular(path, s, G_MAXINT32, &kind) < 0) {
        g_string_free(s, TRUE);
        return NULL;
    }
    *len = s->len;
    return g_string_free(s, FALSE);
}

char *prov_read_version(const struct prov_version *v, gsize *len, const char **problem)
{
    char *data = prov_read_regular_file(v->path, len);
    if (!data) {
        *problem = "no longer readable";
        return NULL;
    }
    g_autofree char *sha = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)data, *len);
    if (!v->sha256[0] || strcmp(sha, v->sha256) != 0) {
        *problem = v->sha256[0] ? "changed since the build" : "not hashed in the trace";
        g_free(data);
        return NULL;
    }
    return data;
}

bool prov_path_under(const char *path, char *const *dirs)
{
    for (char *const *d = dirs; d && *d; d++) {
        size_t l = strlen(*d);
        while (l > 1 && (*d)[l - 1] == '/')
            l--;
        if (l == 1 && (*d)[0] == '/')
            return true;
        if (!strncmp(path, *d, l) && (path[l] == '/' || path[l] == '\0'))
            return true;
    }
    return false;
}

void pv_place(struct placement *placed, int64_t vid, int64_t t, int64_t file_id)
{
    if (!placed[vid].file_id || t >= placed[vid].t)
        placed[vid] = (struct placement){t, file_id};
}

/* Every file path, in one scan (`paths` made dense first). */
void pv_load_paths(struct prov *p, int64_t max_file)
{
    pv_idmap_make_dense(&p->paths, max_file);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(p->q, tracedb_sql(TQ_FILE_PATHS), &st)) {
        while (qdb_row(p->q, st)) {
            int64_t id = sqlite3_column_int64(st, TQ_FILE_PATHS_ID);
            if (!pv_idmap_get(&p->paths, id))
                pv_idmap_set(&p->paths, id, g_strdup((const char *)sqlite3_column_text(
                                                st, TQ_FILE_PATHS_PATH)));
        }
    }
    sqlite3_finalize(st);
}

/* Every version, in one scan (`versions` made dense first), each at the path it was last
 * placed at; with `based`, the base edges too ({base, {version}} as struct keyed). */
void pv_load_versions(struct prov *p, int64_t max_version, const struct placement *placed,
                          GArray *based)
{
    pv_idmap_make_dense(&p->versions, max_version);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(p->q, sql_versions, &st)) {
        while (qdb_row(p->q, st)) {
            int64_t id = sqlite3_column_int64(st, VERSION_ID);
            int64_t base = sqlite3_column_int64(st, VERSION_BASE);
            if (id < 1 || id > max_version)
                continue;
            if (based && base > 0 && base < id) { /* (else row_to_version says damaged) */
                struct keyed k = {base, {id, 0, 0, 0}};
                g_array_append_val(based, k);
            }
            if (!pv_idmap_get(&p->versions, id))
                pv_idmap_set(&p->versions, id, row_to_version(p, st, id, placed[id].file_id));
        }
    }
    sqlite3_finalize(st);
}

/* Every rename_to or link that put a version at a path: (version, file, first_ns), in id
 * order. */
TRACEDB_STATEMENT(sql_placements, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT version_id, file_id, first_ns FROM accesses WHERE kind IN "
                  TRACEDB_KINDS_PLACED " AND result = 0 AND version_id IS NOT NULL ORDER BY id");
enum { PLACED_VERSION, PLACED_FILE, PLACED_TIME };

void prov_load_versions(struct prov *p)
{
    if (p->graph || p->versions_loaded)
        return;
    int64_t max_version = pv_max_version_id(p);
    pv_load_paths(p, pv_max_file_id(p));
    struct placement *placed = g_new0(struct placement, (size_t)max_version + 1);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(p->q, sql_placements, &st)) {
        while (qdb_row(p->q, st)) {
            int64_t vid = sqlite3_column_int64(st, PLACED_VERSION);
            if (vid >= 1 && vid <= max_version)
                pv_place(placed, vid, sqlite3_column_int64(st, PLACED_TIME),
                         sqlite3_column_int64(st, PLACED_FILE));
        }
    }
    sqlite3_finalize(st);
    pv_load_versions(p, max_version, placed, NULL);
    g_free(placed);
    /* (after an error, a lookup still finds nothing: the error is kept and reported) */
    p->versions_loaded = true;
}

const char *prov_origin_name(int origin)
{
    return origin == TRACEDB_VERSION_FOUND ? "found" : "built";
}

bool prov_is_temporary(struct prov *p, const struct prov_version *v)
{
    if (v->origin != TRACEDB_VERSION_WRITTEN)
        return false;
    return !prov_exists_at_end(p, v->at_file_id);
}

const char *prov_version_label(struct prov *p, const struct prov_version *v)
{
    return prov_is_temporary(p, v) ? "temp" : prov_origin_name(v->origin);
}
