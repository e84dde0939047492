/* prov — see prov.h for the contract and the graph. */
#include "prov.h"

#include "filekind.h"
#include "progkind.h"
#include "queries.h"
#include "steps.h"
#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* A map from ids (positive integers) to pointer-sized values (NULL: absent): a hash table, or
 * a dense array once the largest id is known (the in-memory graph). */
struct idmap {
    GHashTable *h;
    gpointer *dense;
    int64_t max;
    guint size;
    GDestroyNotify free_value;
    GArray *touched; /* dense, reusable (idmap_reset): the ids set since the last reset */
};

G_STATIC_ASSERT(sizeof(gpointer) >= sizeof(int64_t)); /* walk bounds are stored as values */

static void idmap_init(struct idmap *m, int64_t dense_max, GDestroyNotify free_value)
{
    memset(m, 0, sizeof *m);
    m->free_value = free_value;
    if (dense_max > 0) {
        m->max = dense_max;
        m->dense = g_new0(gpointer, (size_t)dense_max + 1);
    } else {
        m->h = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, free_value);
    }
}

static gpointer idmap_get(const struct idmap *m, int64_t id)
{
    if (m->dense)
        return id > 0 && id <= m->max ? m->dense[id] : NULL;
    return g_hash_table_lookup(m->h, &id);
}

static void idmap_set(struct idmap *m, int64_t id, gpointer v)
{
    if (m->dense) {
        if (id <= 0 || id > m->max)
            return;
        if (m->dense[id] && m->free_value) {
            m->free_value(m->dense[id]);
        } else if (!m->dense[id]) {
            m->size++;
            if (m->touched)
                g_array_append_val(m->touched, id);
        }
        m->dense[id] = v;
        return;
    }
    int64_t *k = g_new(int64_t, 1);
    *k = id;
    g_hash_table_replace(m->h, k, v);
    m->size = g_hash_table_size(m->h);
}

/* Empty a reusable dense map (made by idmap_init_reusable) in the time its use took, not in
 * the time of its size: a walk per product must not cost a pass over every id. */
static void idmap_reset(struct idmap *m)
{
    for (guint i = 0; i < m->touched->len; i++) {
        int64_t id = g_array_index(m->touched, int64_t, i);
        if (m->free_value && m->dense[id])
            m->free_value(m->dense[id]);
        m->dense[id] = NULL;
    }
    g_array_set_size(m->touched, 0);
    m->size = 0;
}

static void idmap_init_reusable(struct idmap *m, int64_t dense_max)
{
    idmap_init(m, dense_max, NULL);
    m->touched = g_array_new(FALSE, FALSE, sizeof(int64_t));
}

static void idmap_clear(struct idmap *m)
{
    if (m->touched)
        g_array_unref(m->touched);
    if (m->dense) {
        for (int64_t i = 0; m->free_value && i <= m->max; i++)
            if (m->dense[i])
                m->free_value(m->dense[i]);
        g_free(m->dense);
    } else {
        g_hash_table_destroy(m->h);
    }
    memset(m, 0, sizeof *m);
}

/* Switch a hash map to a dense array for ids 1..max, keeping its values. */
static void idmap_make_dense(struct idmap *m, int64_t max)
{
    if (m->dense || max <= 0)
        return;
    struct idmap d;
    idmap_init(&d, max, m->free_value);
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, m->h);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        int64_t id = *(int64_t *)k;
        if (id > 0 && id <= max) {
            d.dense[id] = v;
            d.size++;
            g_hash_table_iter_steal(&it);
            g_free(k);
        }
    }
    idmap_clear(m);
    *m = d;
}

/* The trace has no file with this id (kept in `paths` so that it is asked once). */
static char no_path;

static void free_facts(gpointer data); /* (struct proc_facts, with the walks) */

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

/* One edge of the graph: a version or process id, a time, and for reads the file, the kind
 * and the open flags (-1: not recorded). */
struct edge {
    int64_t id, t, file_id;
    int kind, flags;
};

/* Edges grouped by key (a version or process id; ids are dense, 1..max): the edges of key k
 * are e[start[k] .. start[k+1]). */
struct csr {
    int64_t max_key;
    uint32_t *start;
    struct edge *e;
};

/* The whole graph in memory, for walks too big to do one lookup at a time (PROV_SQL_NODES). */
struct graph {
    int64_t max_process;
    struct csr writers; /* version -> {process, last_ns} */
    struct csr reads;   /* process -> {version, first_ns, file_id, kind} */
    struct csr readers; /* version -> {process, first_ns} */
    struct csr writes;  /* process -> {version, last_ns} */
    struct csr based;   /* version -> {version based on it} */
};

/* A walk that reaches more versions than this is redone on the in-memory graph.  One lookup
 * per node costs ~40 us; loading the graph ~0.7 s per million accesses; so a walk that has
 * gone this far wastes at most ~0.2 s by switching, and a big one gains seconds. */
#define PROV_SQL_NODES 4000

static void graph_free(struct graph *g);

struct prov {
    struct qdb *q;
    struct graph *graph;    /* NULL until a walk needs it */
    struct idmap versions;  /* id -> struct prov_version* (or NO_VERSION) */
    struct idmap paths;     /* file id -> char* */
    struct idmap name_kinds; /* file id -> enum filekind + 1 */
    GHashTable *successors; /* process id -> GArray of ids (children, exec successors); lazy */
    bool trees_loaded;
    char *tmp_tree;         /* the build's private /tmp (trees.role 'tmp'), or NULL */
    GPtrArray *other_trees; /* the other traced trees */
    sqlite3_stmt *st_version, *st_path, *st_writers, *st_reads, *st_readers, *st_writes,
        *st_based;
    sqlite3_stmt *st_version_at, *st_last_kind; /* per file: prepared on first use */
    /* A walk's maps over the in-memory graph, kept from one walk to the next (walks are
     * never nested): nodes by version, and the two bounds by process. */
    struct idmap walk_maps[3];
    bool walk_maps_made, walk_maps_busy;
    bool versions_loaded;   /* every version is in `versions` (prov_load_versions) */
    struct bindings *bindings; /* NULL until prov_load_bindings */
    struct idmap facts;     /* process id -> struct proc_facts* (the walks' rules); lazy */
    GHashTable *direct;     /* version id -> GHashTable of the version ids it carries one step
                             * back -> enum level + 1 (the outputs walk's code levels); lazy */
    struct idmap configure; /* process id -> 2 under a configure step, 1 not (under_configure) */
};

/* What every successful access says about files and versions, from one scan
 * (prov_load_bindings): per file, its last binding access (TQ_LAST_BINDING_KIND's row) and
 * the version it held last (TQ_VERSION_AT_FILE's), and whether a version was produced there;
 * per version, how it was used (enum prov_use). */
struct file_end {
    int64_t last_t, last_id; /* the last binding access: its time and id (0: none) */
    int64_t at_t, at_id, version_at;
    int last_kind;
    bool produced;
};

struct bindings {
    int64_t max_file, max_version;
    struct file_end *files; /* [file id] */
    guint8 *uses;           /* [version id]: enum prov_use bits */
};

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

struct prov *prov_new(struct qdb *q)
{
    if (q->schema_version < 3)
        return NULL;
    struct prov *p = g_new0(struct prov, 1);
    p->q = q;
    idmap_init(&p->versions, 0, free_version);
    idmap_init(&p->paths, 0, free_path);
    idmap_init(&p->name_kinds, 0, NULL);
    idmap_init(&p->facts, 0, free_facts);
    idmap_init(&p->configure, 0, NULL);
    p->st_version = prepare(p, tracedb_sql(TQ_VERSION_BY_ID));
    p->st_path = prepare(p, tracedb_sql(TQ_FILE_PATH));
    p->st_writers = prepare(p, tracedb_sql(TQ_WRITERS_OF_VERSION));
    p->st_reads = prepare(p, tracedb_sql(TQ_READS_OF_PROCESS));
    p->st_readers = prepare(p, tracedb_sql(TQ_READERS_OF_VERSION));
    p->st_writes = prepare(p, tracedb_sql(TQ_WRITES_OF_PROCESS));
    p->st_based = prepare(p, tracedb_sql(TQ_VERSIONS_BASED_ON));
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
    idmap_clear(&p->versions);
    idmap_clear(&p->paths);
    idmap_clear(&p->name_kinds);
    idmap_clear(&p->facts);
    if (p->direct)
        g_hash_table_destroy(p->direct);
    idmap_clear(&p->configure);
    if (p->successors)
        g_hash_table_destroy(p->successors);
    graph_free(p->graph);
    for (int i = 0; p->walk_maps_made && i < 3; i++)
        idmap_clear(&p->walk_maps[i]);
    g_free(p->tmp_tree);
    if (p->other_trees)
        g_ptr_array_free(p->other_trees, TRUE);
    g_free(p);
}

static int64_t *id_key(int64_t id)
{
    int64_t *k = g_new(int64_t, 1);
    *k = id;
    return k;
}

const char *prov_file_path(struct prov *p, int64_t file_id)
{
    const char *path = idmap_get(&p->paths, file_id);
    if (path || p->graph || p->versions_loaded) /* (once loaded, every path is there) */
        return path == &no_path ? NULL : path;
    sqlite3_stmt *st = p->st_path;
    qdb_bind_int64(p->q, st, 1, file_id);
    char *s = NULL;
    if (qdb_row(p->q, st))
        s = g_strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_reset(st);
    idmap_set(&p->paths, file_id, s ? s : &no_path);
    return s;
}

/* Files by path (the paths are loaded). */
static gint file_path_cmp(gconstpointer a, gconstpointer b, gpointer data)
{
    struct prov *p = data;
    return strcmp(prov_file_path(p, *(const int64_t *)a), prov_file_path(p, *(const int64_t *)b));
}

/* prov_file_path, or "?" for a file the trace does not have (a damaged trace). */
static const char *file_path(struct prov *p, int64_t file_id)
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

/* A version from a row of (id, file_id, origin, base_id, size, hex sha256, hex git_sha1,
 * hash_error, hex sha1) — columns 1..8 — last moved to `moved_to` (0: never moved). */
static struct prov_version *row_to_version(struct prov *p, sqlite3_stmt *st, int64_t id,
                                           int64_t moved_to)
{
    struct prov_version *v = g_new0(struct prov_version, 1);
    v->id = id;
    v->file_id = sqlite3_column_int64(st, 1);
    v->origin = sqlite3_column_int(st, 2);
    v->base_id = sqlite3_column_int64(st, 3);
    /* The recorder numbers a version after the one it was written on: a base that is not
     * earlier is a cycle or a crafted row (a walk down the bases might never end). */
    int base_type = sqlite3_column_type(st, 3);
    if ((base_type != SQLITE_INTEGER && base_type != SQLITE_NULL) || v->base_id < 0 ||
        v->base_id >= id) {
        qdb_damaged(p->q, "version %" G_GINT64_FORMAT " was written on %s, not an earlier "
                          "version", id, (const char *)sqlite3_column_text(st, 3));
        v->base_id = 0;
    }
    v->size = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
    copy_hex(v->sha256, sizeof v->sha256, sqlite3_column_text(st, 5));
    copy_hex(v->git_sha1, sizeof v->git_sha1, sqlite3_column_text(st, 6));
    v->hash_error = sqlite3_column_int(st, 7);
    copy_hex(v->sha1, sizeof v->sha1, sqlite3_column_text(st, 8));
    v->at_file_id = moved_to ? moved_to : v->file_id;
    v->path = file_path(p, v->at_file_id);
    return v;
}

const struct prov_version *prov_version(struct prov *p, int64_t id)
{
    gpointer value = idmap_get(&p->versions, id);
    if (value || p->graph || p->versions_loaded)
        return value == NO_VERSION ? NULL : value;
    sqlite3_stmt *st = p->st_version;
    qdb_bind_int64(p->q, st, 1, id);
    struct prov_version *v = NULL;
    if (qdb_row(p->q, st))
        v = row_to_version(p, st, id, sqlite3_column_int64(st, 9));
    sqlite3_reset(st);
    idmap_set(&p->versions, id, v ? (gpointer)v : NO_VERSION);
    return v;
}


static bool later(int64_t t, int64_t id, int64_t than_t, int64_t than_id)
{
    return t > than_t || (t == than_t && id > than_id);
}

static struct bindings *bindings_new(struct prov *p)
{
    struct bindings *b = g_new0(struct bindings, 1);
    b->max_file = qdb_max_id(p->q, TQ_MAX_FILE_ID);
    b->max_version = qdb_max_id(p->q, TQ_MAX_VERSION_ID);
    b->files = g_new0(struct file_end, (size_t)b->max_file + 1);
    b->uses = g_new0(guint8, (size_t)b->max_version + 1);
    return b;
}

/* Account one successful access (of TQ_BINDINGS' columns) in `b`. */
static void bindings_add(struct bindings *b, int64_t fid, bool has_version, int64_t vid,
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

void prov_load_bindings(struct prov *p)
{
    if (p->bindings)
        return;
    struct bindings *b = bindings_new(p);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(p->q, tracedb_sql(TQ_BINDINGS), &st)) {
        while (qdb_row(p->q, st))
            bindings_add(b, sqlite3_column_int64(st, 0), sqlite3_column_type(st, 1) != SQLITE_NULL,
                         sqlite3_column_int64(st, 1), sqlite3_column_int(st, 2),
                         sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4));
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

int64_t prov_version_at(struct prov *p, int64_t file_id)
{
    if (p->bindings)
        return file_id >= 1 && file_id <= p->bindings->max_file
                   ? p->bindings->files[file_id].version_at : 0;
    /* Any access that bound a version at this path says "at that time it held V"; a
     * rename_from or unlink says it stopped holding it.  (Asked once per product by diff
     * and the exports: the statement is kept.) */
    int64_t id = 0;
    if (!p->st_version_at && !qdb_prepare(p->q, tracedb_sql(TQ_VERSION_AT_FILE), &p->st_version_at))
        return 0;
    if (qdb_bind_int64(p->q, p->st_version_at, 1, file_id) && qdb_row(p->q, p->st_version_at))
        id = sqlite3_column_int64(p->st_version_at, 0);
    sqlite3_reset(p->st_version_at);
    return id;
}

bool prov_exists_at_end(struct prov *p, int64_t file_id)
{
    if (p->bindings) {
        int kind = file_id >= 1 && file_id <= p->bindings->max_file
                       ? p->bindings->files[file_id].last_kind : 0;
        return kind != TRACEDB_UNLINK && kind != TRACEDB_RENAME_FROM;
    }
    int64_t kind = -1;
    if (!p->st_last_kind && !qdb_prepare(p->q, tracedb_sql(TQ_LAST_BINDING_KIND), &p->st_last_kind))
        return true;
    if (qdb_bind_int64(p->q, p->st_last_kind, 1, file_id) && qdb_row(p->q, p->st_last_kind))
        kind = sqlite3_column_int64(p->st_last_kind, 0);
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
                const char *tree = (const char *)sqlite3_column_text(st, 0);
                const char *role = (const char *)sqlite3_column_text(st, 1);
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
    const char *path = file_path(p, file_id);
    if (!v || v->origin != TRACEDB_VERSION_WRITTEN || !path || strcmp(v->path, path) ||
        prov_in_scratch_place(p, v->path) || g_hash_table_contains(seen, &v->id))
        return;
    g_hash_table_add(seen, (gpointer)&v->id);
    g_ptr_array_add(out, (gpointer)v);
}

GPtrArray *prov_products(struct prov *p)
{
    GPtrArray *out = g_ptr_array_new();
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    sqlite3_stmt *st = NULL;
    int64_t file = 0, last_kind = -1, last_version = 0;
    if (qdb_prepare(p->q, tracedb_sql(TQ_BINDINGS_BY_FILE), &st)) {
        while (qdb_row(p->q, st)) {
            int64_t f = sqlite3_column_int64(st, 0), kind = sqlite3_column_int64(st, 1);
            if (f != file) {
                product_of_file(p, file, last_kind, last_version, seen, out);
                file = f;
                last_version = 0;
            }
            last_kind = kind;
            if (sqlite3_column_type(st, 2) != SQLITE_NULL && kind != TRACEDB_UNLINK &&
                kind != TRACEDB_RENAME_FROM)
                last_version = sqlite3_column_int64(st, 2);
        }
        product_of_file(p, file, last_kind, last_version, seen, out);
    }
    sqlite3_finalize(st);
    g_hash_table_destroy(seen);
    g_ptr_array_sort(out, by_version_path);
    return out;
}

GArray *prov_versions_at(struct prov *p, int64_t file_id)
{
    return qdb_ids(p->q, tracedb_sql(TQ_VERSIONS_OF_FILE), file_id);
}

char *prov_read_regular_file(const char *path, gsize *len)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > G_MAXINT32) {
        close(fd);
        return NULL;
    }
    GString *s = g_string_sized_new((gsize)st.st_size + 1);
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            close(fd);
            g_string_free(s, TRUE);
            return NULL;
        }
        if (n == 0)
            break;
        g_string_append_len(s, buf, n);
    }
    close(fd);
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

/* ---- roles ------------------------------------------------------------------------------- */

static bool argv_names(const struct qdb_process *pr, const char *base)
{
    if (!pr || !pr->argv)
        return false;
    for (size_t i = 0; i < pr->argv_len;) {
        const char *w = pr->argv + i;
        size_t l = strnlen(w, pr->argv_len - i);
        const char *slash = memrchr(w, '/', l);
        const char *wb = slash ? slash + 1 : w;
        if (strlen(base) == l - (size_t)(wb - w) && !memcmp(wb, base, strlen(base)))
            return true;
        i += l + 1;
    }
    return false;
}

/* filekind_of(), remembered per file id. */
static enum filekind file_name_kind(struct prov *p, int64_t file_id, const char *path)
{
    gpointer v = idmap_get(&p->name_kinds, file_id);
    if (v)
        return (enum filekind)(GPOINTER_TO_INT(v) - 1);
    enum filekind k = filekind_of(path);
    idmap_set(&p->name_kinds, file_id, GINT_TO_POINTER(k + 1));
    return k;
}

static enum prov_role classify(enum filekind name, const char *path, int kind,
                               const struct qdb_process *reader, bool script)
{
    if (kind == TRACEDB_EXEC)
        return PROV_ROLE_TOOL;
    if (filekind_is_runtime_data(path))
        return PROV_ROLE_OTHER; /* locales, gconv, ld.so.cache: read by every program */
    if (script)
        return PROV_ROLE_SCRIPT;
    switch (name) {
    case FILEKIND_SOURCE: {
        const char *base = strrchr(path, '/');
        return argv_names(reader, base ? base + 1 : path) ? PROV_ROLE_SOURCE : PROV_ROLE_HEADER;
    }
    case FILEKIND_HEADER:
        return PROV_ROLE_HEADER;
    case FILEKIND_OBJECT:
        return PROV_ROLE_OBJECT;
    case FILEKIND_SHLIB:
        return PROV_ROLE_SHLIB;
    case FILEKIND_SCRIPT:
        return PROV_ROLE_SCRIPT;
    case FILEKIND_NO_EXT:
        if (reader) {
            /* C++ standard headers have no extension; the compiler proper reads them. */
            const char *prog = qdb_process_program(reader);
            if (progkind_is_compiler_proper(prog))
                return PROV_ROLE_HEADER;
        }
        return PROV_ROLE_OTHER;
    case FILEKIND_OTHER:
        break;
    }
    return PROV_ROLE_OTHER;
}

/* ---- edges: from SQL one node at a time, or from the graph ------------------------------- */

static GHashTable *edge_table(void)
{
    return g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                 (GDestroyNotify)g_array_unref);
}

static void edge_push(GHashTable *t, int64_t key, struct edge e)
{
    GArray *list = g_hash_table_lookup(t, &key);
    if (!list) {
        list = g_array_new(FALSE, FALSE, sizeof(struct edge));
        g_hash_table_insert(t, id_key(key), list);
    }
    g_array_append_val(list, e);
}

/* A key's edges: a slice of the graph, or rows of a statement (owned). */
struct edges {
    const struct edge *e;
    guint n;
    GArray *owned;
};

static void edges_done(struct edges *x)
{
    if (x->owned)
        g_array_unref(x->owned);
}

/* Build a csr from `n` (key, edge) pairs. */
struct keyed {
    int64_t key;
    struct edge e;
};

static void csr_build(struct csr *c, int64_t max_key, const struct keyed *pairs, size_t n)
{
    c->max_key = max_key;
    c->start = g_new0(uint32_t, (size_t)max_key + 2);
    c->e = g_new(struct edge, n ? n : 1);
    for (size_t i = 0; i < n; i++)
        c->start[pairs[i].key + 1]++;
    for (int64_t k = 1; k <= max_key + 1; k++)
        c->start[k] += c->start[k - 1];
    uint32_t *fill = g_memdup2(c->start, sizeof(uint32_t) * ((size_t)max_key + 2));
    for (size_t i = 0; i < n; i++)
        c->e[fill[pairs[i].key]++] = pairs[i].e;
    g_free(fill);
}

static struct edges csr_get(const struct csr *c, int64_t key)
{
    struct edges x = {0};
    if (key > 0 && key <= c->max_key) {
        x.e = c->e + c->start[key];
        x.n = c->start[key + 1] - c->start[key];
    }
    return x;
}

static void csr_free(struct csr *c)
{
    g_free(c->start);
    g_free(c->e);
}

static void graph_free(struct graph *g)
{
    if (!g)
        return;
    csr_free(&g->writers);
    csr_free(&g->reads);
    csr_free(&g->readers);
    csr_free(&g->writes);
    csr_free(&g->based);
    g_free(g);
}


/* Where each version was last put by a rename_to or link (the latest wins, as
 * TQ_VERSION_BY_ID says): [version] = {time, file}; file 0 where never moved. */
struct placement {
    int64_t t, file_id;
};

static void place(struct placement *placed, int64_t vid, int64_t t, int64_t file_id)
{
    if (!placed[vid].file_id || t >= placed[vid].t)
        placed[vid] = (struct placement){t, file_id};
}

/* Every file path, in one scan (`paths` made dense first). */
static void load_paths(struct prov *p, int64_t max_file)
{
    idmap_make_dense(&p->paths, max_file);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(p->q, tracedb_sql(TQ_FILE_PATHS), &st)) {
        while (qdb_row(p->q, st)) {
            int64_t id = sqlite3_column_int64(st, 0);
            if (!idmap_get(&p->paths, id))
                idmap_set(&p->paths, id, g_strdup((const char *)sqlite3_column_text(st, 1)));
        }
    }
    sqlite3_finalize(st);
}

/* Every version, in one scan (`versions` made dense first), each at the path it was last
 * placed at; with `based`, the base edges too ({base, {version}} as struct keyed). */
static void load_versions(struct prov *p, int64_t max_version, const struct placement *placed,
                          GArray *based)
{
    idmap_make_dense(&p->versions, max_version);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(p->q, tracedb_sql(TQ_VERSIONS), &st)) {
        while (qdb_row(p->q, st)) {
            int64_t id = sqlite3_column_int64(st, 0), base = sqlite3_column_int64(st, 3);
            if (id < 1 || id > max_version)
                continue;
            if (based && base > 0 && base < id) { /* (else row_to_version says damaged) */
                struct keyed k = {base, {id, 0, 0, 0}};
                g_array_append_val(based, k);
            }
            if (!idmap_get(&p->versions, id))
                idmap_set(&p->versions, id, row_to_version(p, st, id, placed[id].file_id));
        }
    }
    sqlite3_finalize(st);
}

/* Load every file path, version and versioned access in three scans. */
/* By time, then version, file and kind (a total order: the same graph every load). */
static int edge_time_cmp(const void *a, const void *b)
{
    const struct edge *x = a, *y = b;
    if (x->t != y->t)
        return (x->t > y->t) - (x->t < y->t);
    if (x->id != y->id)
        return (x->id > y->id) - (x->id < y->id);
    if (x->file_id != y->file_id)
        return (x->file_id > y->file_id) - (x->file_id < y->file_id);
    return (x->kind > y->kind) - (x->kind < y->kind);
}

static void load_graph(struct prov *p)
{
    struct graph *g = g_new0(struct graph, 1);
    int64_t max_version = qdb_max_id(p->q, TQ_MAX_VERSION_ID), max_process = qdb_max_id(p->q, TQ_MAX_PROCESS_ID);
    int64_t max_file = qdb_max_id(p->q, TQ_MAX_FILE_ID);
    load_paths(p, max_file);
    idmap_make_dense(&p->name_kinds, max_file);
    struct placement *moved = g_new0(struct placement, (size_t)max_version + 1);
    sqlite3_stmt *st = NULL;
    /* Sized once for every access (untouched pages cost nothing): no copy as they grow. */
    guint room = (guint)MIN(qdb_max_id(p->q, TQ_MAX_ACCESS_ID), (int64_t)G_MAXUINT32 / 2);
    GArray *rd = g_array_sized_new(FALSE, FALSE, sizeof(struct keyed), room); /* by process */
    GArray *wr = g_array_sized_new(FALSE, FALSE, sizeof(struct keyed), room); /* by version */
    /* The same scan fills the bindings (prov_load_bindings), which the answers on a big graph
     * ask about for many files. */
    struct bindings *b = p->bindings ? NULL : bindings_new(p);
    if (qdb_prepare(p->q, tracedb_sql(TQ_SUCCESSFUL_ACCESSES), &st)) {
        while (qdb_row(p->q, st)) {
            int64_t pid = sqlite3_column_int64(st, 0), vid = sqlite3_column_int64(st, 1);
            bool has_version = sqlite3_column_type(st, 1) != SQLITE_NULL;
            int kind = sqlite3_column_int(st, 2);
            if (b)
                bindings_add(b, sqlite3_column_int64(st, 5), has_version, vid, kind,
                             sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 6));
            if (!has_version || vid < 1 || vid > max_version || pid < 0 || pid > max_process)
                continue; /* not a version or process of this trace */
            if (!tracedb_kind_in(TRACEDB_MASK_VERSIONED, kind))
                continue; /* bound to a version but not an edge: removed, moved away */
            int64_t first = sqlite3_column_int64(st, 3), last = sqlite3_column_int64(st, 4);
            int64_t file_id = sqlite3_column_int64(st, 5);
            if (kind == TRACEDB_RENAME_TO || kind == TRACEDB_LINK) {
                place(moved, vid, first, file_id);
            } else if (!pid) {
                continue;
            } else if (kind == TRACEDB_READ || kind == TRACEDB_EXEC) {
                struct keyed k = {pid, {vid, first, file_id, kind, sqlite3_column_int(st, 7)}};
                g_array_append_val(rd, k);
            } else {
                struct keyed k = {vid, {pid, last, 0, kind, -1}};
                g_array_append_val(wr, k);
            }
        }
    }
    sqlite3_finalize(st);
    csr_build(&g->reads, max_process, (struct keyed *)(void *)rd->data, rd->len);
    /* each process's reads by time: a walk takes those in a window without a scan of all */
    for (int64_t pid = 1; pid <= max_process; pid++) {
        struct edges x = csr_get(&g->reads, pid);
        if (x.n > 1)
            qsort((struct edge *)x.e, x.n, sizeof(struct edge), edge_time_cmp);
    }
    csr_build(&g->writers, max_version, (struct keyed *)(void *)wr->data, wr->len);
    /* The mirror images: readers by version, writes by process. */
    for (guint i = 0; i < rd->len; i++) {
        struct keyed *k = &g_array_index(rd, struct keyed, i);
        int64_t pid = k->key;
        k->key = k->e.id;
        k->e.id = pid;
    }
    for (guint i = 0; i < wr->len; i++) {
        struct keyed *k = &g_array_index(wr, struct keyed, i);
        int64_t vid = k->key;
        k->key = k->e.id;
        k->e.id = vid;
    }
    csr_build(&g->readers, max_version, (struct keyed *)(void *)rd->data, rd->len);
    csr_build(&g->writes, max_process, (struct keyed *)(void *)wr->data, wr->len);
    g_array_set_size(rd, 0);
    load_versions(p, max_version, moved, rd);
    csr_build(&g->based, max_version, (struct keyed *)(void *)rd->data, rd->len);
    g_array_free(rd, TRUE);
    g_array_free(wr, TRUE);
    g_free(moved);
    qdb_load_all(p->q);
    g->max_process = max_process;
    if (b)
        p->bindings = b;
    p->graph = g;
}

static struct edges sql_edges(struct prov *p, sqlite3_stmt *st, int64_t key, int n_range,
                              int64_t from,
                              int64_t until)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(struct edge));
    qdb_bind_int64(p->q, st, 1, key);
    if (n_range) {
        qdb_bind_int64(p->q, st, 2, from);
        qdb_bind_int64(p->q, st, 3, until);
    }
    int cols = sqlite3_column_count(st);
    while (qdb_row(p->q, st)) {
        struct edge e = {sqlite3_column_int64(st, 0), cols > 1 ? sqlite3_column_int64(st, 1) : 0,
                         cols > 2 ? sqlite3_column_int64(st, 2) : 0,
                         cols > 3 ? sqlite3_column_int(st, 3) : 0,
                         cols > 4 ? sqlite3_column_int(st, 4) : -1};
        g_array_append_val(out, e);
    }
    sqlite3_reset(st);
    return (struct edges){(const struct edge *)(void *)out->data, out->len, out};
}

/* The processes that made version `v`: {process, its last write of v}. */
static struct edges writers_of(struct prov *p, int64_t v)
{
    return p->graph ? csr_get(&p->graph->writers, v) : sql_edges(p, p->st_writers, v, 0, 0, 0);
}

/* What process `pid` read: {version, first_ns, file, kind}; a superset of those with a start
 * in [from, until] (the caller filters).  From the graph, in time order (edge_time_cmp). */
static struct edges reads_of(struct prov *p, int64_t pid, int64_t from, int64_t until)
{
    return p->graph ? csr_get(&p->graph->reads, pid)
                    : sql_edges(p, p->st_reads, pid, 1, from, until);
}

/* The processes that read version `v`: {process, its first read}. */
static struct edges readers_of(struct prov *p, int64_t v)
{
    return p->graph ? csr_get(&p->graph->readers, v) : sql_edges(p, p->st_readers, v, 0, 0, 0);
}

/* The versions process `pid` wrote: {version, last write}; a superset of those with a last
 * write in [from, until] (the caller filters). */
static struct edges writes_of(struct prov *p, int64_t pid, int64_t from, int64_t until)
{
    return p->graph ? csr_get(&p->graph->writes, pid)
                    : sql_edges(p, p->st_writes, pid, 1, from, until);
}

/* The versions written on top of `v`. */
static struct edges based_on(struct prov *p, int64_t v)
{
    return p->graph ? csr_get(&p->graph->based, v) : sql_edges(p, p->st_based, v, 0, 0, 0);
}

/* ---- walks ------------------------------------------------------------------------------- */

/* Which edges an input walk follows (prov.h, "Code and influence"). */
enum level {
    LEVEL_EXACT,      /* the code edges the rules are sure of */
    LEVEL_GUESS,      /* and the guessed ones */
    LEVEL_INFLUENCE,  /* and everything read before, by the writers and their ancestors */
    LEVEL_EVERY_READ, /* every read, as recorded, with the roles names give (diff) */
};

struct walk {
    struct prov *p;
    const struct prov_walk_opts *o;
    struct idmap nodes;    /* version id -> struct prov_node* */
    GQueue queue;          /* struct prov_node* to visit */
    struct idmap done_data; /* process id -> bound already expanded (as a data writer), +1 */
    struct idmap done_script; /* the same, as an ancestor */
    GPtrArray *all;        /* every node, in the order found */
    unsigned limit;        /* give up past this many nodes (0: none) */
    bool gave_up;
    bool reused;           /* the three maps are the prov's walk_maps (given back at the end) */
    enum level level;      /* which edges this walk follows (inputs) */
};

static void walk_init(struct walk *w, struct prov *p, const struct prov_walk_opts *o,
                      unsigned limit)
{
    w->p = p;
    w->o = o;
    w->reused = p->graph && !p->walk_maps_busy;
    if (w->reused) {
        /* Dense maps over every id, made once and reset after each walk. */
        if (!p->walk_maps_made) {
            idmap_init_reusable(&p->walk_maps[0], p->versions.max);
            idmap_init_reusable(&p->walk_maps[1], p->graph->max_process);
            idmap_init_reusable(&p->walk_maps[2], p->graph->max_process);
            p->walk_maps_made = true;
        }
        p->walk_maps_busy = true;
        w->nodes = p->walk_maps[0];
        w->done_data = p->walk_maps[1];
        w->done_script = p->walk_maps[2];
    } else {
        idmap_init(&w->nodes, 0, NULL);
        idmap_init(&w->done_data, 0, NULL);
        idmap_init(&w->done_script, 0, NULL);
    }
    g_queue_init(&w->queue);
    w->all = g_ptr_array_new_with_free_func(g_free);
    w->limit = limit;
    w->gave_up = false;
}

static gint node_cmp(gconstpointer a, gconstpointer b)
{
    const struct prov_node *x = a, *y = b;
    int c = strcmp(x->v->path, y->v->path);
    return c ? c : (x->v->id > y->v->id) - (x->v->id < y->v->id);
}

/* The nodes that pass `keep` (all when NULL), sorted; frees the walk.  NULL if it gave up. */
static GArray *walk_finish(struct walk *w, bool (*keep)(const struct prov_node *, void *),
                           void *data)
{
    GArray *out = NULL;
    if (!w->gave_up) {
        out = g_array_sized_new(FALSE, FALSE, sizeof(struct prov_node), w->all->len);
        for (guint i = 0; i < w->all->len; i++) {
            struct prov_node *n = w->all->pdata[i];
            if (!keep || keep(n, data))
                g_array_append_val(out, *n);
        }
        g_array_sort(out, node_cmp);
    }
    if (w->reused) {
        idmap_reset(&w->nodes);
        idmap_reset(&w->done_data);
        idmap_reset(&w->done_script);
        w->p->walk_maps[0] = w->nodes;
        w->p->walk_maps[1] = w->done_data;
        w->p->walk_maps[2] = w->done_script;
        w->p->walk_maps_busy = false;
    } else {
        idmap_clear(&w->nodes);
        idmap_clear(&w->done_data);
        idmap_clear(&w->done_script);
    }
    g_ptr_array_free(w->all, TRUE);
    g_queue_clear(&w->queue);
    return out;
}

static void walk_add(struct walk *w, int64_t id, enum prov_role role, int depth, bool prune)
{
    struct prov_node *n = idmap_get(&w->nodes, id);
    if (n) {
        if (role < n->role)
            n->role = role; /* the most specific use wins */
        return;
    }
    if (w->gave_up || (w->limit && w->all->len >= w->limit)) {
        w->gave_up = true;
        return;
    }
    const struct prov_version *v = prov_version(w->p, id);
    if (!v || (prune && prov_path_under(v->path, w->o->prune)))
        return;
    n = g_new(struct prov_node, 1);
    n->v = v;
    n->role = role;
    n->depth = depth;
    n->guess = false;
    idmap_set(&w->nodes, id, n);
    g_ptr_array_add(w->all, n);
    g_queue_push_tail(&w->queue, n);
}

/* Mark process `id` as expanded up to `bound` in `done`.  Going up (inputs: reads before a
 * time) returns the earlier bound (INT64_MIN the first time), or INT64_MAX when nothing new is
 * left; going down (outputs: writes after a time) the mirror image. */
static int64_t advance(struct idmap *done, int64_t id, int64_t bound, bool upward)
{
    /* Stored as (bound - INT64_MIN + 1) so that no bound is NULL (absent). */
    gpointer v = idmap_get(done, id);
    uint64_t enc = (uint64_t)bound - (uint64_t)INT64_MIN + 1;
    if (!v) {
        idmap_set(done, id, (gpointer)(uintptr_t)enc);
        return upward ? INT64_MIN : INT64_MAX;
    }
    int64_t old = (int64_t)((uint64_t)(uintptr_t)v - 1 + (uint64_t)INT64_MIN);
    if (upward ? bound <= old : bound >= old)
        return upward ? INT64_MAX : INT64_MIN;
    idmap_set(done, id, (gpointer)(uintptr_t)enc);
    return old;
}

/* ---- code and influence (prov.h; docs/architecture.md "Provenance: code and influence") - */

/* The most processes a walk up a chain of archivers looks at (a crafted trace may chain
 * thousands). */
#define PROV_MAX_UP 4096

/* What the walk needs to know about one process image, worked out on its first use. */
struct proc_facts {
    const struct qdb_process *pr;
    const char *prog;
    enum progkind_step step;
    bool interpreter;
    bool configure;       /* it or an ancestor is a configure step (steps.h) */
    bool several;         /* a generic process that made 2+ files */
    bool interleaved;     /* ... and read data after one of them was finished */
    GHashTable *rewrites; /* ... the files (ids, as pointers) it read and then wrote anew, or
                           * NULL */
    int64_t loaded_until; /* the start of its first read that the dynamic loader did not do */
    bool system_program;  /* its executable is in /usr, /bin, /sbin or /lib */
    struct read_index *index; /* its reads by what add_selected's rules match on, or NULL */
    guint n_writes;       /* how many writes it made (of versions) */
};

/* A process's reads (TRACEDB_READ) by what the rules of add_selected look up: their file, the
 * content they held (SHA-256) and their path, each to the
 * indexes into `reads` in the order read.  Made for a process with many reads on its first
 * add_selected, so that a process that made thousands of files from thousands of reads (cp -r,
 * sed -i over a tree) costs one lookup per output, not a scan of its reads per output. */
struct read_index {
    GArray *reads;        /* struct edge */
    GHashTable *by_file;  /* int64 file id -> GArray of guint */
    GHashTable *by_sha;   /* sha256 hex (the version's) -> GArray of guint */
    GHashTable *by_path;  /* path (owned) -> GArray of guint */
};

/* The fewest reads, and writes, for which a process's reads are indexed: below, a scan of its
 * reads per output costs less (a compiler reads hundreds of headers for one output). */
#define PROV_INDEX_MIN 64

static void free_read_index(struct read_index *x)
{
    if (!x)
        return;
    g_array_unref(x->reads);
    g_hash_table_destroy(x->by_file);
    g_hash_table_destroy(x->by_sha);
    g_hash_table_destroy(x->by_path);
    g_free(x);
}

static void free_facts(gpointer data)
{
    struct proc_facts *f = data;
    if (f->rewrites)
        g_hash_table_destroy(f->rewrites);
    free_read_index(f->index);
    g_free(f);
}

/* The most archivers and compressors a walk down from an archiver follows (a trace with
 * thousands is crafted). */
#define PROV_MAX_ARCHIVERS 4096

/* Is `pr` a configure step (steps_is_configure_image) or a descendant of one: an earlier
 * image's or a parent's answer, each worked out once (p->configure), so that a chain of N
 * processes costs N looks, not N times its depth.  (qdb links a process only to earlier ones:
 * the walk up ends.) */
static bool under_configure(struct prov *p, const struct qdb_process *pr)
{
    GArray *chain = g_array_new(FALSE, FALSE, sizeof(int64_t));
    bool answer = false;
    for (const struct qdb_process *x = pr; x;) {
        gpointer known = idmap_get(&p->configure, x->id);
        if (known) {
            answer = GPOINTER_TO_INT(known) == 2;
            break;
        }
        g_array_append_val(chain, x->id);
        if (steps_is_configure_image(x)) {
            answer = true;
            break;
        }
        int64_t up = x->prev_image_id ? x->prev_image_id : x->parent_id;
        x = up > 0 && up < x->id ? qdb_process(p->q, up) : NULL;
    }
    for (guint i = 0; i < chain->len; i++)
        idmap_set(&p->configure, g_array_index(chain, int64_t, i), GINT_TO_POINTER(answer ? 2 : 1));
    g_array_free(chain, TRUE);
    return answer;
}

/* Is `path` a library file by its name (libfoo.so, libfoo.so.1.2)? */
static bool shlib_name(struct prov *p, int64_t file_id, const char *path)
{
    return file_name_kind(p, file_id, path) == FILEKIND_SHLIB;
}

static const struct proc_facts *facts_of(struct prov *p, int64_t pid);

/* Is `path` a linker plugin (loaded by ld and ar through dlopen: the LTO plugins)? */
static bool linker_plugin(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strstr(path, "/bfd-plugins/") || g_str_has_prefix(base, "liblto_plugin.so") ||
           g_str_has_prefix(base, "LLVMgold.so");
}

/* Is `path` in a directory the dynamic loader searches (the system's library directories)? */
static bool system_library(const char *path)
{
    static char lib[] = "/lib", usr_lib[] = "/usr/lib", lib64[] = "/lib64",
                usr_lib64[] = "/usr/lib64", local_lib[] = "/usr/local/lib";
    char *const dirs[] = {lib, usr_lib, lib64, usr_lib64, local_lib, NULL};
    return prov_path_under(path, dirs);
}

/* Did the dynamic loader map this library (or dlopen)?
 * - Opened read-only with O_CLOEXEC and nothing else, as ld.so and dlopen do, where the
 *   recorder saw that flag (a watched system tree; cp, tar and ld.bfd's fopen of a link input
 *   add flags or lack O_CLOEXEC).  (lld opens its inputs so too: where the flag is seen, the
 *   libraries it links are not listed.)
 * - A linker plugin, always.
 * - Through a FUSE mount the kernel never passes O_CLOEXEC on.  There: a plain read-only open
 *   before the process's main began (its first read that is not a library or ld.so.cache:
 *   setlocale's locale files, or its first data), of a system library or by a program that is
 *   not the system's (one the build made may load its own libraries); and for a program that
 *   is not a linker,
 *   any library of the system's library directories (dlopen'd plugins and what they need:
 *   ar's LTO plugin pulls in libLLVM) — a build that archives system libraries with tar is
 *   the price.
 * Without recorded flags, the time alone (and the rules on names). */
static bool loader_read(const struct proc_facts *f, const struct edge *e, const char *path)
{
    /* The kernel's O_LARGEFILE, which it sets on every open of a 64-bit process and passes on
     * (glibc's own O_LARGEFILE is 0 there). */
#if defined(__aarch64__) || defined(__arm__) || defined(__powerpc__)
    const int largefile = 0400000;
#else
    const int largefile = 0100000; /* x86 and the generic value */
#endif
    if (e->flags >= 0 && (e->flags & ~largefile) == O_CLOEXEC)
        return true;
    if (linker_plugin(path))
        return true;
    bool plain = e->flags < 0 || (e->flags & ~(largefile | O_CLOEXEC)) == 0;
    if (plain && f->step != PROGKIND_LINK && system_library(path))
        return true;
    /* (A program of the system's does not load a library from the build's tree: objcopy's
     * first read may be the library it copies, in the C locale with no locale file read.) */
    return plain && e->t < f->loaded_until && (system_library(path) || !f->system_program);
}

/* Did process `f` load this read to run rather than read it as data: a shared library the
 * dynamic loader mapped, an interpreter's module that is neither its script nor named on its
 * command line? */
static bool loaded_to_run(struct prov *p, const struct proc_facts *f, const struct edge *e,
                          const char *path)
{
    if (e->kind == TRACEDB_EXEC)
        return false;
    /* (a module its command line names is its data: pod2man lib/Foo.pm, a zip of *.py) */
    if (f->interpreter && progkind_loads_module(f->prog, path))
        return !steps_is_script_of(f->pr, path) && !steps_argv_names(f->pr, path);
    return shlib_name(p, e->file_id, path) && loader_read(f, e, path);
}

/* Is version `id` a binary (an object, archive or library by name, or made by a compiler,
 * assembler, linker, archiver or post-processor), as far as one step back tells? */
static bool is_binary(struct prov *p, int64_t id, int64_t file_id, const char *path)
{
    enum filekind k = file_name_kind(p, file_id, path);
    if (k == FILEKIND_OBJECT || k == FILEKIND_SHLIB)
        return true;
    struct edges ws = writers_of(p, id);
    bool bin = false;
    for (guint i = 0; i < ws.n && !bin; i++) {
        const struct proc_facts *f = facts_of(p, ws.e[i].id);
        bin = f && f->step != PROGKIND_GENERIC && f->step != PROGKIND_COMPRESS;
    }
    edges_done(&ws);
    return bin;
}

static const struct proc_facts *facts_of(struct prov *p, int64_t pid)
{
    struct proc_facts *f = idmap_get(&p->facts, pid);
    if (f)
        return f->pr ? f : NULL;
    f = g_new0(struct proc_facts, 1);
    idmap_set(&p->facts, pid, f);
    const struct qdb_process *pr = qdb_process(p->q, pid);
    if (!pr)
        return NULL;
    f->pr = pr;
    f->prog = qdb_process_program(pr);
    f->step = progkind_step(f->prog);
    f->interpreter = progkind_is_interpreter(f->prog);
    f->configure = under_configure(p, pr);
    static char usr[] = "/usr", bin[] = "/bin", sbin[] = "/sbin", lib[] = "/lib";
    char *const sys[] = {usr, bin, sbin, lib, NULL};
    f->system_program = pr->exe && prov_path_under(pr->exe, sys);
    /* The loader's phase: the reads before the first one that is not a library or the
     * loader's cache (locale files are read by main, not the loader). */
    f->loaded_until = INT64_MAX;
    struct edges rd = reads_of(p, pid, INT64_MIN, INT64_MAX);
    /* A program the build made is its own, whatever its name (the file package's build runs
     * its own `file -C` to compile magic.mgc): never an inspector that carries nothing. */
    for (guint i = 0; f->step == PROGKIND_INSPECT && i < rd.n; i++) {
        const struct prov_version *x =
            rd.e[i].kind == TRACEDB_EXEC ? prov_version(p, rd.e[i].id) : NULL;
        if (x && x->origin == TRACEDB_VERSION_WRITTEN)
            f->step = PROGKIND_GENERIC;
    }
    for (guint i = 0; i < rd.n; i++) {
        const char *path = file_path(p, rd.e[i].file_id);
        if (rd.e[i].kind == TRACEDB_READ && !shlib_name(p, rd.e[i].file_id, path) &&
            strcmp(path, "/etc/ld.so.cache") && rd.e[i].t < f->loaded_until)
            f->loaded_until = rd.e[i].t;
    }
    /* Several outputs, and data read after one of them was finished: which read went into
     * which output is not known. */
    struct edges wr = writes_of(p, pid, INT64_MIN, INT64_MAX);
    f->n_writes = wr.n;
    int64_t first_done = INT64_MAX, one_file = 0;
    bool several = false;
    for (guint i = 0; i < wr.n; i++) {
        const struct prov_version *v = prov_version(p, wr.e[i].id);
        if (!v)
            continue;
        if (one_file && v->file_id != one_file)
            several = true;
        one_file = v->file_id;
        first_done = MIN(first_done, wr.e[i].t);
    }
    several = several && f->step == PROGKIND_GENERIC; /* the others' rules are known */
    f->several = several;
    /* The files it read and then made anew (dpkg-gencontrol's debian/files): inputs of their
     * new versions (in place), not of its other outputs.  (Sets, not scans: sed -i over a
     * tree reads and rewrites thousands.) */
    if (several) {
        GHashTable *read_files = g_hash_table_new(g_int64_hash, g_int64_equal);
        for (guint k = 0; k < rd.n; k++)
            if (rd.e[k].kind == TRACEDB_READ)
                g_hash_table_add(read_files, (gpointer)&rd.e[k].file_id);
        for (guint i = 0; i < wr.n; i++) {
            const struct prov_version *v = prov_version(p, wr.e[i].id);
            if (!v || !g_hash_table_contains(read_files, &v->at_file_id))
                continue;
            if (!f->rewrites)
                f->rewrites = g_hash_table_new(NULL, NULL);
            g_hash_table_add(f->rewrites, GSIZE_TO_POINTER((gsize)v->at_file_id));
        }
        g_hash_table_destroy(read_files);
    }
    for (guint i = 0; several && i < rd.n && !f->interleaved; i++) {
        const char *path = file_path(p, rd.e[i].file_id);
        f->interleaved = rd.e[i].kind == TRACEDB_READ && rd.e[i].t > first_done &&
                         !filekind_is_runtime_data(path) && !loaded_to_run(p, f, &rd.e[i], path);
    }
    edges_done(&wr);
    edges_done(&rd);
    return f;
}

/* The role of a read that carries code, by the kind of step that read it. */
static enum prov_role code_role(const struct proc_facts *f, enum filekind name, const char *path,
                                int kind)
{
    enum prov_role r = classify(name, path, kind, f->pr, false);
    switch (f->step) {
    case PROGKIND_COMPILE: /* what a compiler proper reads is compiled or included */
        return r == PROV_ROLE_SOURCE ? r : PROV_ROLE_HEADER;
    case PROGKIND_LINK:
        return r;
    case PROGKIND_ARCHIVE: /* ar's objects; tar's and dpkg-deb's files, whatever they are */
        return r == PROV_ROLE_OBJECT ? r : PROV_ROLE_COPY;
    case PROGKIND_POSTPROC:
    case PROGKIND_COMPRESS:
        return PROV_ROLE_COPY;
    case PROGKIND_GENERIC:
    case PROGKIND_INSPECT: /* (never asked: read_role stops it) */
        break;
    }
    return r == PROV_ROLE_SOURCE || r == PROV_ROLE_HEADER || r == PROV_ROLE_OBJECT
               ? r : PROV_ROLE_GENERATED;
}

/* The role of a read reached only as influence, by reader `f`. */
static enum prov_role influence_role(const struct proc_facts *f, enum filekind name,
                                     const char *path, int kind)
{
    if (kind == TRACEDB_EXEC)
        return PROV_ROLE_TOOL;
    if (filekind_is_runtime_data(path))
        return PROV_ROLE_OTHER;
    if (!f->configure)
        return PROV_ROLE_SCRIPT;
    /* A configure step's compiles and links (conftest.c, CMakeCCompilerABI.c, meson's
     * sanity checks) are its probes; what it read to decide (meson.build) is a script. */
    switch (name) {
    case FILEKIND_SOURCE:
    case FILEKIND_HEADER:
    case FILEKIND_OBJECT:
    case FILEKIND_SHLIB:
        return PROV_ROLE_PROBE;
    default:
        return f->step != PROGKIND_GENERIC ? PROV_ROLE_PROBE : PROV_ROLE_SCRIPT;
    }
}

/* How one read of `f` enters a walk at its level (PROV_ROLE_COUNT: it does not). */
static enum prov_role read_role(struct walk *w, const struct proc_facts *f, const struct edge *e,
                                bool ancestor)
{
    struct prov *p = w->p;
    const char *path = file_path(p, e->file_id);
    enum filekind name = file_name_kind(p, e->file_id, path);
    if (w->level == LEVEL_EVERY_READ)
        return classify(name, path, e->kind, f ? f->pr : NULL, ancestor);
    if (!f || loaded_to_run(p, f, e, path))
        return PROV_ROLE_COUNT;
    if (w->level == LEVEL_INFLUENCE) {
        /* What is found only here is influence; a library linked against (by a program
         * that is itself only influence) is neither, and not followed with stop_at_shlibs. */
        if (!ancestor && f->step == PROGKIND_LINK && e->kind == TRACEDB_READ &&
            name == FILEKIND_SHLIB && w->o->stop_at_shlibs)
            return PROV_ROLE_COUNT;
        return influence_role(f, name, path, e->kind);
    }
    /* The code levels: what the writer itself read as data. */
    if (ancestor || e->kind == TRACEDB_EXEC || filekind_is_runtime_data(path) ||
        f->step == PROGKIND_INSPECT || filekind_is_package_metadata(path))
        return PROV_ROLE_COUNT;
    if (steps_is_script_of(f->pr, path))
        return PROV_ROLE_COUNT; /* the generator's program, not its input */
    if (f->rewrites && g_hash_table_contains(f->rewrites, GSIZE_TO_POINTER((gsize)e->file_id)))
        return PROV_ROLE_COUNT; /* the old content of another output (add_selected) */
    if (f->step == PROGKIND_GENERIC && is_binary(p, e->id, e->file_id, path))
        return PROV_ROLE_COUNT; /* inspected (dpkg-shlibdeps, file, objdump), not carried */
    return code_role(f, name, path, e->kind);
}

/* Add what process `pid` read in (after, bound]. */
static void add_reads(struct walk *w, int64_t pid, int64_t after, int64_t bound, bool script,
                      int depth)
{
    struct prov *p = w->p;
    const struct proc_facts *f = facts_of(p, pid);
    int64_t from = after == INT64_MIN ? INT64_MIN : after + 1;
    struct edges found = reads_of(p, pid, from, bound);
    /* The graph's are in time order: from the first at or after `from`, up to `bound` (a
     * process that made each of 100 000 copies after its read is walked once per copy). */
    guint start = 0;
    if (p->graph) {
        guint hi = found.n;
        while (start < hi) {
            guint mid = start + (hi - start) / 2;
            if (found.e[mid].t < from)
                start = mid + 1;
            else
                hi = mid;
        }
    }
    for (guint i = start; i < found.n && !w->gave_up; i++) {
        const struct edge *e = &found.e[i];
        if (p->graph && e->t > bound)
            break;
        if (e->t < from || e->t > bound)
            continue;
        const struct prov_node *have = idmap_get(&w->nodes, e->id);
        if (have && have->role == PROV_ROLE_SOURCE)
            continue; /* seen, and no use is more specific */
        enum prov_role role = read_role(w, f, e, script);
        if (role != PROV_ROLE_COUNT)
            walk_add(w, e->id, role, depth, true);
    }
    edges_done(&found);
}

static gint guint_cmp(gconstpointer a, gconstpointer b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return (x > y) - (x < y);
}

static void index_push(GHashTable *t, gpointer key, guint i, bool owned_key)
{
    GArray *list = g_hash_table_lookup(t, key);
    if (!list) {
        list = g_array_new(FALSE, FALSE, sizeof(guint));
        g_hash_table_insert(t, owned_key ? g_strdup(key) : key, list);
    }
    g_array_append_val(list, i);
}

/* Process `pid`'s read index (struct read_index), made on first use. */
static const struct read_index *read_index_of(struct prov *p, int64_t pid)
{
    struct proc_facts *f = idmap_get(&p->facts, pid);
    if (!f || !f->pr)
        return NULL;
    if (f->index)
        return f->index;
    struct read_index *x = g_new0(struct read_index, 1);
    x->reads = g_array_new(FALSE, FALSE, sizeof(struct edge));
    x->by_file = g_hash_table_new_full(NULL, NULL, NULL, (GDestroyNotify)g_array_unref);
    x->by_sha = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                      (GDestroyNotify)g_array_unref);
    x->by_path = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify)g_array_unref);
    struct edges rd = reads_of(p, pid, INT64_MIN, INT64_MAX);
    for (guint i = 0; i < rd.n; i++) {
        if (rd.e[i].kind != TRACEDB_READ)
            continue;
        guint at = x->reads->len;
        g_array_append_val(x->reads, rd.e[i]);
        index_push(x->by_file, GSIZE_TO_POINTER((gsize)rd.e[i].file_id), at, false);
        const struct prov_version *in = prov_version(p, rd.e[i].id);
        if (in && in->sha256[0])
            index_push(x->by_sha, (gpointer)in->sha256, at, true);
        index_push(x->by_path, (gpointer)file_path(p, rd.e[i].file_id), at, true);
    }
    edges_done(&rd);
    f->index = x;
    return x;
}

/* The reads rule `rule` of add_selected may match for output `v`, from the index: appended to
 * `out` (indexes into x->reads).  False: the rule has no key, every read is a candidate. */
static bool index_candidates(const struct read_index *x, int rule, const struct prov_version *v,
                             GArray *out)
{
    GArray *l = NULL;
    switch (rule) {
    case 1:
        l = v->sha256[0] ? g_hash_table_lookup(x->by_sha, v->sha256) : NULL;
        break;
    case 2:
        l = g_hash_table_lookup(x->by_file, GSIZE_TO_POINTER((gsize)v->at_file_id));
        break;
    case 3:
        /* the output plus a suffix (compressed), or without one (decompressed) */
        for (const char *const *sfx = steps_compress_suffixes; *sfx; sfx++) {
            g_autofree char *name = g_strconcat(v->path, *sfx, NULL);
            if ((l = g_hash_table_lookup(x->by_path, name)))
                g_array_append_vals(out, l->data, l->len);
            if (g_str_has_suffix(v->path, *sfx) && strlen(v->path) > strlen(*sfx)) {
                g_autofree char *plain = g_strndup(v->path, strlen(v->path) - strlen(*sfx));
                if ((l = g_hash_table_lookup(x->by_path, plain)))
                    g_array_append_vals(out, l->data, l->len);
            }
        }
        g_array_sort(out, guint_cmp); /* in the order read, as a scan finds them */
        return true;
    default:
        return false;
    }
    if (l)
        g_array_append_vals(out, l->data, l->len);
    return true;
}

/* The i-th read a rule of add_selected looks at: of the index's candidates `cand`, else of
 * the index's reads, else of `rd`. */
static const struct edge *nth_read(const struct read_index *ix, const GArray *cand,
                                   const struct edges *rd, guint i)
{
    if (cand)
        return &g_array_index(ix->reads, struct edge, g_array_index(cand, guint, i));
    return ix ? &g_array_index(ix->reads, struct edge, i) : &rd->e[i];
}

/* The rules that name the very reads an output was made from (prov.h).  Adds them and
 * returns true when one applies (perhaps adding nothing: a configure step's output without a
 * template carries no code); false: the writer's data reads are its inputs. */
static bool add_selected(struct walk *w, const struct prov_version *v, const struct proc_facts *f,
                         int64_t pid, int64_t bound, int depth)
{
    struct prov *p = w->p;
    /* Opened for writing and left as it was (dpkg's lock on debian/control): the writer put
     * nothing in it; the base, added with it, is all it is. */
    const struct prov_version *base = v->base_id ? prov_version(p, v->base_id) : NULL;
    if (base && v->sha256[0] && base->size == v->size && !strcmp(base->sha256, v->sha256))
        return true;
    struct edges rd = reads_of(p, pid, INT64_MIN, bound);
    /* A process with many reads and outputs: each rule's candidates from its index, not a
     * scan of them all for each of its outputs. */
    const struct read_index *ix =
        rd.n >= PROV_INDEX_MIN && f->n_writes >= PROV_INDEX_MIN ? read_index_of(p, pid) : NULL;
    GArray *cand = ix ? g_array_new(FALSE, FALSE, sizeof(guint)) : NULL;
    const char *out = v->path;
    int64_t out_file = v->at_file_id;
    bool toolchain = f->step == PROGKIND_COMPILE || f->step == PROGKIND_LINK ||
                     f->step == PROGKIND_ARCHIVE;
    /* In turn, the first rule with a match wins (after an unchanged version, above): 1 the
     * same content (a copy); 2 the file at
     * the output's own path, rewritten in place (strip, objcopy, sed -i, an installer's
     * fix-up); 3 a compressor's input; 4 a post-processor's operands; 5 a configure step's
     * template. */
    for (int rule = 1; rule <= 5; rule++) {
        if ((rule == 2 && toolchain) || (rule == 3 && f->step != PROGKIND_COMPRESS) ||
            (rule == 4 && f->step != PROGKIND_POSTPROC) ||
            (rule == 5 && (!f->configure || toolchain)))
            continue;
        if (rule == 2 && f->step == PROGKIND_GENERIC && !f->several)
            continue; /* one output: sed -i's script and data are its inputs too */
        bool any = false;
        bool indexed = false;
        if (ix) {
            g_array_set_size(cand, 0);
            indexed = index_candidates(ix, rule, v, cand);
        }
        guint n = indexed ? cand->len : ix ? ix->reads->len : rd.n;
        /* templates of one name in several directories (one cmake filling sub1/config.h and
         * sub2/config.h): the output's is the one whose directories end as its own do */
        int best_dirs = -1;
        for (guint i = 0; rule == 5 && i < n; i++) {
            const struct edge *e = nth_read(ix, indexed ? cand : NULL, &rd, i);
            const char *path = file_path(p, e->file_id);
            if (e->t <= bound && e->kind == TRACEDB_READ && e->id != v->id &&
                steps_is_template(out, path))
                best_dirs = MAX(best_dirs, steps_common_dirs(out, path));
        }
        for (guint i = 0; i < n; i++) {
            const struct edge *e = nth_read(ix, indexed ? cand : NULL, &rd, i);
            if (e->t > bound || e->kind != TRACEDB_READ || e->id == v->id)
                continue;
            const struct prov_version *in = prov_version(p, e->id);
            const char *path = file_path(p, e->file_id);
            bool match = false;
            switch (rule) {
            case 1:
                match = in && v->sha256[0] && v->size > 0 && !strcmp(in->sha256, v->sha256);
                break;
            case 2:
                match = e->file_id == out_file;
                break;
            case 3:
                match = steps_compressed_pair(path, out);
                break;
            case 4:
                match = steps_argv_names(f->pr, path) && !filekind_is_runtime_data(path) &&
                        !loaded_to_run(p, f, e, path);
                break;
            case 5:
                match = steps_is_template(out, path) && steps_common_dirs(out, path) == best_dirs;
                break;
            }
            if (!match)
                continue;
            /* a template's role: what its output is (config.h.tmp: what the template's name
             * without its last extension says, config.h) */
            enum filekind k = filekind_of(out);
            if (rule == 5 && k != FILEKIND_HEADER && k != FILEKIND_SOURCE) {
                g_autofree char *stem = g_strdup(path);
                char *dot = strrchr(stem, '.');
                if (dot && !strchr(dot, '/'))
                    *dot = '\0';
                k = filekind_of(stem);
            }
            enum prov_role role = rule == 5 && k == FILEKIND_HEADER   ? PROV_ROLE_HEADER
                                  : rule == 5 && k == FILEKIND_SOURCE ? PROV_ROLE_SOURCE
                                                                      : PROV_ROLE_COPY;
            walk_add(w, e->id, role, depth, true);
            any = true;
        }
        if (any || (rule == 5 && v->base_id == 0)) {
            edges_done(&rd);
            if (cand)
                g_array_unref(cand);
            return true; /* (a configure step's output with no template carries no code) */
        }
    }
    edges_done(&rd);
    if (cand)
        g_array_unref(cand);
    /* An output written on top of an earlier version by a process that made several (an
     * installer fixing a copy's rpath): that version, added with the base, is its input. */
    return v->base_id && f->step == PROGKIND_GENERIC && f->interleaved;
}

static void load_successors(struct prov *p);

/* An archiver that has a child archive for it (dpkg-deb runs tar into a pipe, and compresses
 * what comes out): what the archivers and compressors it started read before its write went
 * into its output through the pipe, which is not a file.  (Any depth; each process once.) */
static void add_archived_through_pipes(struct walk *w, int64_t pid, int64_t bound, int depth)
{
    load_successors(w->p);
    GArray *todo = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(todo, pid);
    for (guint i = 0; i < todo->len && todo->len < PROV_MAX_ARCHIVERS; i++) {
        int64_t id = g_array_index(todo, int64_t, i);
        GArray *succ = g_hash_table_lookup(w->p->successors, &id);
        for (guint k = 0; succ && k < succ->len; k++) {
            int64_t d = g_array_index(succ, struct edge, k).id;
            const struct proc_facts *df = facts_of(w->p, d);
            if (!df || (df->step != PROGKIND_ARCHIVE && df->step != PROGKIND_COMPRESS))
                continue;
            g_array_append_val(todo, d);
            int64_t after = advance(&w->done_data, d, bound, true);
            if (after != INT64_MAX)
                add_reads(w, d, after, bound, false, depth);
        }
    }
    g_array_free(todo, TRUE);
}

static void expand_writer(struct walk *w, const struct prov_version *v, int64_t pid,
                          int64_t bound, int depth)
{
    const struct proc_facts *f = facts_of(w->p, pid);
    bool code = w->level == LEVEL_EXACT || w->level == LEVEL_GUESS;
    if (code) {
        if (!f || add_selected(w, v, f, pid, bound, depth))
            return;
        if (f->interleaved && w->level == LEVEL_EXACT)
            return; /* a guess: only the guessing level follows it */
    }
    int64_t after = advance(&w->done_data, pid, bound, true);
    if (after != INT64_MAX)
        add_reads(w, pid, after, bound, false, depth);
    if (code && f->step == PROGKIND_ARCHIVE)
        add_archived_through_pipes(w, pid, bound, depth);
    if (code || !w->o->scripts)
        return;
    /* Its ancestors: the images it exec'd from, its parent, theirs, ... */
    const struct qdb_process *pr = qdb_process(w->p->q, pid);
    while (pr) {
        /* An exec'd image's ancestors are its earlier images, then their parent. */
        int64_t up = pr->prev_image_id ? pr->prev_image_id : pr->parent_id;
        if (!up)
            break;
        int64_t a_after = advance(&w->done_script, up, bound, true);
        if (a_after == INT64_MAX)
            break; /* it and everything above were expanded up to this bound already */
        add_reads(w, up, a_after, bound, true, depth);
        pr = qdb_process(w->p->q, up);
    }
}

static bool not_start(const struct prov_node *n, void *data)
{
    return n->v->id != *(int64_t *)data;
}

/* One walk back from `n` starts (at depth 0, never pruned) at one level; the starts are in
 * the result only with keep_starts.  NULL when it gave up (past `limit` nodes). */
static GArray *walk_level(struct prov *p, const int64_t *starts, guint n, bool keep_starts,
                          const struct prov_walk_opts *o, unsigned limit, enum level level)
{
    struct walk w;
    walk_init(&w, p, o, limit);
    w.level = level;
    /* Every start first, at depth 0: one found later as another's input is still followed
     * (stop_at_shlibs stops only below a start). */
    for (guint i = 0; i < n; i++)
        walk_add(&w, starts[i], PROV_ROLE_OTHER, 0, false);
    struct prov_node *node;
    while (!w.gave_up && (node = g_queue_pop_head(&w.queue))) {
        int depth = node->depth + 1;
        if (o->stop_at_shlibs && node->depth > 0 && node->role == PROV_ROLE_SHLIB)
            continue;
        if (o->max_depth > 0 && node->depth >= o->max_depth)
            continue; /* listed, not followed */
        if (node->v->base_id)
            walk_add(&w, node->v->base_id,
                     level == LEVEL_EVERY_READ
                         ? classify(filekind_of(node->v->path), node->v->path, TRACEDB_READ, NULL,
                                    false)
                     : level == LEVEL_INFLUENCE ? PROV_ROLE_SCRIPT /* (new here: influence) */
                                                : PROV_ROLE_COPY,
                     depth, true);
        struct edges writers = writers_of(p, node->v->id);
        for (guint i = 0; i < writers.n && !w.gave_up; i++)
            expand_writer(&w, node->v, writers.e[i].id, writers.e[i].t, depth);
        edges_done(&writers);
    }
    return walk_finish(&w, keep_starts ? NULL : not_start, (void *)starts);
}

/* One walk at one level, for merge_levels: the inputs walk (walk_level) or the outputs walk
 * (walk_outputs_level) with its arguments; NULL when it gave up. */
struct level_walk {
    struct prov *p;
    const int64_t *starts;
    guint n;
    bool keep_starts, outputs;
    const struct prov_walk_opts *o;
    unsigned limit;
};

static GArray *walk_outputs_level(struct prov *p, const int64_t *starts, guint n,
                                  const struct prov_walk_opts *o, unsigned limit,
                                  enum level level);

static GArray *walk_one_level(const struct level_walk *x, enum level l)
{
    return x->outputs ? walk_outputs_level(x->p, x->starts, x->n, x->o, x->limit, l)
                      : walk_level(x->p, x->starts, x->n, x->keep_starts, x->o, x->limit, l);
}

/* The levels' walks merged: each version at the first level that reached it (its role and
 * depth there), `guess` when that is the guessing level; an output found only at the
 * influence level has the role SCRIPT (it does not carry the start).  Every level unless
 * code_only; every_read: that one walk.  Sorted as walk_finish sorts; NULL when one gave up. */
static GArray *merge_levels(const struct level_walk *x)
{
    if (x->o->every_read)
        return walk_one_level(x, x->outputs ? LEVEL_INFLUENCE : LEVEL_EVERY_READ);
    enum level last = x->o->code_only ? LEVEL_GUESS : LEVEL_INFLUENCE;
    GArray *out = g_array_new(FALSE, FALSE, sizeof(struct prov_node));
    GHashTable *have = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (enum level l = LEVEL_EXACT; l <= last && out; l++) {
        GArray *r = walk_one_level(x, l);
        if (!r) {
            g_array_unref(out);
            out = NULL;
            break;
        }
        for (guint i = 0; i < r->len; i++) {
            struct prov_node *nd = &g_array_index(r, struct prov_node, i);
            if (g_hash_table_contains(have, &nd->v->id))
                continue;
            nd->guess = l == LEVEL_GUESS;
            if (x->outputs && l == LEVEL_INFLUENCE)
                nd->role = PROV_ROLE_SCRIPT;
            g_array_append_val(out, *nd);
            g_hash_table_add(have, (gpointer)&nd->v->id); /* (the version is the prov's) */
        }
        g_array_unref(r);
    }
    g_hash_table_destroy(have);
    if (out)
        g_array_sort(out, node_cmp);
    return out;
}

static GArray *walk_inputs(struct prov *p, const int64_t *starts, guint n, bool keep_starts,
                           const struct prov_walk_opts *o, unsigned limit)
{
    struct level_walk x = {p, starts, n, keep_starts, false, o, limit};
    return merge_levels(&x);
}

bool prov_made_by_configure(struct prov *p, int64_t id)
{
    struct edges ws = writers_of(p, id);
    bool any = false;
    for (guint i = 0; i < ws.n && !any; i++) {
        const struct proc_facts *f = facts_of(p, ws.e[i].id);
        any = f && f->configure;
    }
    edges_done(&ws);
    return any;
}

GArray *prov_inputs(struct prov *p, int64_t start, const struct prov_walk_opts *o)
{
    /* One step back is one lookup per writer however many inputs it had (a link of 25 000
     * objects): never worth loading the whole graph for. */
    GArray *r = p->graph ? NULL
                         : walk_inputs(p, &start, 1, false, o,
                                       o->max_depth == 1 ? 0 : PROV_SQL_NODES);
    if (r)
        return r;
    if (!p->graph)
        load_graph(p);
    return walk_inputs(p, &start, 1, false, o, 0);
}

void prov_load_versions(struct prov *p)
{
    if (p->graph || p->versions_loaded)
        return;
    int64_t max_version = qdb_max_id(p->q, TQ_MAX_VERSION_ID);
    load_paths(p, qdb_max_id(p->q, TQ_MAX_FILE_ID));
    struct placement *placed = g_new0(struct placement, (size_t)max_version + 1);
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(p->q, tracedb_sql(TQ_PLACEMENTS), &st)) {
        while (qdb_row(p->q, st)) {
            int64_t vid = sqlite3_column_int64(st, 0);
            if (vid >= 1 && vid <= max_version)
                place(placed, vid, sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 1));
        }
    }
    sqlite3_finalize(st);
    load_versions(p, max_version, placed, NULL);
    g_free(placed);
    /* (after an error, a lookup still finds nothing: the error is kept and reported) */
    p->versions_loaded = true;
}

void prov_load(struct prov *p)
{
    if (!p->graph)
        load_graph(p);
}

GArray *prov_inputs_of_all(struct prov *p, GArray *starts, const struct prov_walk_opts *o)
{
    if (!starts->len)
        return g_array_new(FALSE, FALSE, sizeof(struct prov_node));
    if (!p->graph)
        load_graph(p);
    return walk_inputs(p, (const int64_t *)(void *)starts->data, starts->len, true, o, 0);
}

static gint version_id_cmp(gconstpointer a, gconstpointer b)
{
    const struct prov_version *x = *(const struct prov_version *const *)a;
    const struct prov_version *y = *(const struct prov_version *const *)b;
    return (x->id > y->id) - (x->id < y->id);
}

GPtrArray *prov_process_versions(struct prov *p, int64_t pid, enum prov_touch how)
{
    if (!p->graph)
        load_graph(p);
    GPtrArray *out = g_ptr_array_new();
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    struct edges e = how == PROV_MADE ? csr_get(&p->graph->writes, pid)
                                      : csr_get(&p->graph->reads, pid);
    for (guint i = 0; i < e.n; i++) {
        if ((how == PROV_OPENED && e.e[i].kind != TRACEDB_READ) ||
            (how == PROV_EXECUTED && e.e[i].kind != TRACEDB_EXEC))
            continue; /* (PROV_READ: both; the graph's reads are opens and execs only) */
        const struct prov_version *v = prov_version(p, e.e[i].id);
        if (!v || g_hash_table_contains(seen, &v->id))
            continue;
        g_hash_table_add(seen, (gpointer)&v->id);
        g_ptr_array_add(out, (gpointer)v);
    }
    edges_done(&e);
    g_hash_table_destroy(seen);
    g_ptr_array_sort(out, version_id_cmp);
    return out;
}

/* Append the edges' processes to `out`, each once (a version may be read by thousands). */
static void append_processes(struct edges e, GArray *out)
{
    guint had = out->len;
    g_array_set_size(out, had + e.n); /* room first: `seen` points into the array */
    g_array_set_size(out, had);
    GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint k = 0; k < had; k++)
        g_hash_table_add(seen, &g_array_index(out, int64_t, k));
    for (guint i = 0; i < e.n; i++)
        if (!g_hash_table_contains(seen, &e.e[i].id)) {
            g_array_append_val(out, e.e[i].id);
            g_hash_table_add(seen, &g_array_index(out, int64_t, out->len - 1));
        }
    g_hash_table_destroy(seen);
    edges_done(&e);
}

void prov_readers(struct prov *p, int64_t id, GArray *out)
{
    append_processes(readers_of(p, id), out);
}

void prov_makers(struct prov *p, int64_t id, GArray *out)
{
    append_processes(writers_of(p, id), out);
}

/* ---- outputs ----------------------------------------------------------------------------- */

static void load_successors(struct prov *p)
{
    if (p->successors)
        return;
    p->successors = edge_table();
    qdb_load_all(p->q);
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, p->q->processes);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        const struct qdb_process *c = value;
        int64_t up = c->prev_image_id ? c->prev_image_id : c->parent_id;
        if (up)
            edge_push(p->successors, up, (struct edge){c->id, 0, 0, 0});
    }
}

void prov_successors(struct prov *p, int64_t id, GArray *out)
{
    load_successors(p);
    GArray *list = g_hash_table_lookup(p->successors, &id);
    for (guint i = 0; list && i < list->len; i++)
        g_array_append_val(out, g_array_index(list, struct edge, i).id);
}

/* Add the versions process `pid` wrote at or after `from` (and before `until`). */
static void add_writes(struct walk *w, int64_t pid, int64_t from, int64_t until, int depth)
{
    int64_t last = until == INT64_MAX ? INT64_MAX : until - 1;
    struct edges found = writes_of(w->p, pid, from, last);
    for (guint i = 0; i < found.n; i++)
        if (found.e[i].t >= from && found.e[i].t <= last)
            walk_add(w, found.e[i].id, PROV_ROLE_OTHER, depth, true);
    edges_done(&found);
}

static void expand_reader(struct walk *w, int64_t pid, int64_t since, int depth)
{
    int64_t until = advance(&w->done_data, pid, since, false);
    if (until != INT64_MIN)
        add_writes(w, pid, since, until, depth);
    if (!w->o->scripts)
        return;
    load_successors(w->p);
    GArray *todo = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(todo, pid);
    for (guint i = 0; i < todo->len; i++) {
        int64_t id = g_array_index(todo, int64_t, i);
        GArray *succ = g_hash_table_lookup(w->p->successors, &id);
        for (guint k = 0; succ && k < succ->len; k++) {
            int64_t d = g_array_index(succ, struct edge, k).id;
            int64_t d_until = advance(&w->done_script, d, since, false);
            if (d_until == INT64_MIN)
                continue; /* it and its descendants were expanded from an earlier read */
            add_writes(w, d, since, d_until, depth);
            g_array_append_val(todo, d);
        }
    }
    g_array_free(todo, TRUE);
}

static bool not_a_start(const struct prov_node *n, void *data)
{
    return n->depth > 0 || !g_hash_table_contains(data, &n->v->id);
}

/* What version `v` carries one step back, at the code levels: id -> enum level + 1 (the first
 * level that has it).  Worked out by the inputs walk itself, so that the two directions agree;
 * remembered per version. */
static GHashTable *direct_code_inputs(struct prov *p, int64_t v, const struct prov_walk_opts *o)
{
    if (!p->direct)
        p->direct = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                          (GDestroyNotify)g_hash_table_destroy);
    GHashTable *have = g_hash_table_lookup(p->direct, &v);
    if (have)
        return have;
    have = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    struct prov_walk_opts one = {.prune = o->prune, .max_depth = 1};
    for (enum level l = LEVEL_GUESS + 1; l-- > LEVEL_EXACT;) { /* guess first: exact overrides */
        GArray *r = walk_level(p, &v, 1, false, &one, 0, l);
        for (guint i = 0; r && i < r->len; i++)
            g_hash_table_replace(have, id_key(g_array_index(r, struct prov_node, i).v->id),
                                 GINT_TO_POINTER(l + 1));
        if (r)
            g_array_unref(r);
    }
    g_hash_table_insert(p->direct, id_key(v), have);
    return have;
}

/* The code levels of the outputs walk: what each reader of a version wrote after reading it
 * and carries it (direct_code_inputs); what was written on top of it, the caller adds. */
static void expand_code_outputs(struct walk *w, struct prov_node *n, int depth)
{
    struct prov *p = w->p;
    struct edges readers = readers_of(p, n->v->id);
    for (guint i = 0; i < readers.n && !w->gave_up; i++) {
        /* The reader's writes, and, for an archiver or compressor, those of the archivers
         * above it that it fed through a pipe (dpkg-deb's tar child: add_archived_through_pipes
         * has it in the other direction). */
        int64_t writer = readers.e[i].id;
        for (int up = 0; writer && up < PROV_MAX_UP && !w->gave_up; up++) {
            struct edges wr = writes_of(p, writer, readers.e[i].t, INT64_MAX);
            for (guint k = 0; k < wr.n && !w->gave_up; k++) {
                if (wr.e[k].t < readers.e[i].t || idmap_get(&w->nodes, wr.e[k].id))
                    continue;
                GHashTable *carried = direct_code_inputs(p, wr.e[k].id, w->o);
                int l = GPOINTER_TO_INT(g_hash_table_lookup(carried, &n->v->id));
                if (l && l - 1 <= (int)w->level)
                    walk_add(w, wr.e[k].id, PROV_ROLE_OTHER, depth, true);
            }
            edges_done(&wr);
            const struct proc_facts *f = facts_of(p, writer);
            if (!f || (f->step != PROGKIND_ARCHIVE && f->step != PROGKIND_COMPRESS))
                break;
            int64_t next = f->pr->prev_image_id ? f->pr->prev_image_id : f->pr->parent_id;
            const struct proc_facts *nf = next ? facts_of(p, next) : NULL;
            writer = nf && nf->step == PROGKIND_ARCHIVE ? next : 0;
        }
    }
    edges_done(&readers);
}

static GArray *walk_outputs_level(struct prov *p, const int64_t *starts, guint n_starts,
                                  const struct prov_walk_opts *o, unsigned limit,
                                  enum level level)
{
    struct walk w;
    walk_init(&w, p, o, limit);
    w.level = level;
    for (guint i = 0; i < n_starts; i++)
        walk_add(&w, starts[i], PROV_ROLE_OTHER, 0, false);
    struct prov_node *n;
    while (!w.gave_up && (n = g_queue_pop_head(&w.queue))) {
        int depth = n->depth + 1;
        /* What was written on top of it, at every level; then its readers' outputs. */
        struct edges based = based_on(p, n->v->id);
        for (guint i = 0; i < based.n; i++)
            walk_add(&w, based.e[i].id, PROV_ROLE_OTHER, depth, true);
        edges_done(&based);
        if (level != LEVEL_INFLUENCE) {
            expand_code_outputs(&w, n, depth);
            continue;
        }
        struct edges readers = readers_of(p, n->v->id);
        for (guint i = 0; i < readers.n && !w.gave_up; i++)
            expand_reader(&w, readers.e[i].id, readers.e[i].t, depth);
        edges_done(&readers);
    }
    /* The starts themselves are not outputs (unless made from another start). */
    GHashTable *start_ids = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < n_starts; i++)
        g_hash_table_add(start_ids, (gpointer)&starts[i]);
    GArray *out = walk_finish(&w, not_a_start, start_ids);
    g_hash_table_destroy(start_ids);
    return out;
}

/* The outputs walk's levels merged (merge_levels): what carries a start's code (exactly,
 * then by a guess), then (unless code_only) what was made after a read of it, by the reader
 * and (with scripts) the processes it started.  The role of an output is OTHER at the code
 * levels and SCRIPT at the influence level. */
static GArray *walk_outputs(struct prov *p, GArray *starts, const struct prov_walk_opts *o,
                            unsigned limit)
{
    struct level_walk x = {p, (const int64_t *)(void *)starts->data, starts->len, false, true, o,
                           limit};
    return merge_levels(&x);
}

GArray *prov_outputs(struct prov *p, GArray *starts, const struct prov_walk_opts *o)
{
    GArray *r = p->graph ? NULL : walk_outputs(p, starts, o, PROV_SQL_NODES);
    if (r)
        return r;
    if (!p->graph)
        load_graph(p);
    return walk_outputs(p, starts, o, 0);
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
