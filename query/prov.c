/* prov — see prov.h for the contract and the graph. */
#include "prov.h"

#include "tracedb.h"

#include <string.h>

#define READ_KINDS "(1,5)"     /* read, exec */
#define WRITE_KINDS "(2,3,4)"  /* write, create, truncate: they make the version */

struct prov {
    struct qdb *q;
    GHashTable *versions;   /* id -> struct prov_version* (NULL value: no such version) */
    GHashTable *paths;      /* file id -> char* */
    GHashTable *successors; /* process id -> GArray of ids (children, exec successors); lazy */
    sqlite3_stmt *st_version, *st_path, *st_writers, *st_reads, *st_readers, *st_writes,
        *st_based;
};

static const struct {
    const char *name, *title;
} role_names[PROV_ROLE_COUNT] = {
    [PROV_ROLE_SOURCE] = {"source", "compiled sources"},
    [PROV_ROLE_HEADER] = {"header", "included headers"},
    [PROV_ROLE_OBJECT] = {"object", "linked objects and archives"},
    [PROV_ROLE_SHLIB] = {"shlib", "shared libraries"},
    [PROV_ROLE_TOOL] = {"tool", "executed tools"},
    [PROV_ROLE_SCRIPT] = {"script", "build scripts"},
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
    if (sqlite3_prepare_v2(p->q->db, sql, -1, &st, NULL) != SQLITE_OK)
        return NULL;
    return st;
}

struct prov *prov_new(struct qdb *q)
{
    if (q->schema_version < 3)
        return NULL;
    struct prov *p = g_new0(struct prov, 1);
    p->q = q;
    p->versions = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    p->paths = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    p->st_version = prepare(p,
        "SELECT v.file_id, v.origin, v.base_id, v.size, hex(v.sha256), hex(v.git_sha1), "
        "  v.hash_error, (SELECT a.file_id FROM accesses a WHERE a.version_id = v.id AND "
        "  a.kind IN (10,11) AND a.result = 0 ORDER BY a.first_ns DESC, a.id DESC LIMIT 1) "
        "FROM versions v WHERE v.id = ?");
    p->st_path = prepare(p, "SELECT path FROM files WHERE id = ?");
    p->st_writers = prepare(p,
        "SELECT process_id, MAX(last_ns) FROM accesses WHERE version_id = ? AND kind IN "
        WRITE_KINDS " AND result = 0 AND process_id IS NOT NULL GROUP BY process_id");
    p->st_reads = prepare(p,
        "SELECT version_id, kind, file_id FROM accesses WHERE process_id = ? AND kind IN "
        READ_KINDS " AND result = 0 AND version_id IS NOT NULL AND first_ns > ? AND first_ns <= ?");
    p->st_readers = prepare(p,
        "SELECT process_id, MIN(first_ns) FROM accesses WHERE version_id = ? AND kind IN "
        READ_KINDS " AND result = 0 AND process_id IS NOT NULL GROUP BY process_id");
    p->st_writes = prepare(p,
        "SELECT DISTINCT version_id FROM accesses WHERE process_id = ? AND kind IN " WRITE_KINDS
        " AND result = 0 AND version_id IS NOT NULL AND last_ns >= ? AND last_ns < ?");
    p->st_based = prepare(p, "SELECT id FROM versions WHERE base_id = ?");
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
    g_hash_table_destroy(p->versions);
    g_hash_table_destroy(p->paths);
    if (p->successors)
        g_hash_table_destroy(p->successors);
    g_free(p);
}

static int64_t *id_key(int64_t id)
{
    int64_t *k = g_new(int64_t, 1);
    *k = id;
    return k;
}

static const char *file_path(struct prov *p, int64_t file_id)
{
    const char *path = g_hash_table_lookup(p->paths, &file_id);
    if (path)
        return path;
    sqlite3_stmt *st = p->st_path;
    sqlite3_bind_int64(st, 1, file_id);
    char *s = NULL;
    if (sqlite3_step(st) == SQLITE_ROW)
        s = g_strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_reset(st);
    if (!s)
        s = g_strdup("?");
    g_hash_table_insert(p->paths, id_key(file_id), s);
    return s;
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

const struct prov_version *prov_version(struct prov *p, int64_t id)
{
    gpointer value;
    if (g_hash_table_lookup_extended(p->versions, &id, NULL, &value))
        return value;
    sqlite3_stmt *st = p->st_version;
    sqlite3_bind_int64(st, 1, id);
    struct prov_version *v = NULL;
    if (sqlite3_step(st) == SQLITE_ROW) {
        v = g_new0(struct prov_version, 1);
        v->id = id;
        v->file_id = sqlite3_column_int64(st, 0);
        v->origin = sqlite3_column_int(st, 1);
        v->base_id = sqlite3_column_int64(st, 2);
        v->size = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
        copy_hex(v->sha256, sizeof v->sha256, sqlite3_column_text(st, 4));
        copy_hex(v->git_sha1, sizeof v->git_sha1, sqlite3_column_text(st, 5));
        v->hash_error = sqlite3_column_int(st, 6);
        int64_t moved_to = sqlite3_column_int64(st, 7);
        v->path = file_path(p, moved_to ? moved_to : v->file_id);
    }
    sqlite3_reset(st);
    g_hash_table_insert(p->versions, id_key(id), v);
    return v;
}

int64_t prov_version_at(struct prov *p, int64_t file_id)
{
    sqlite3_stmt *st = NULL;
    int64_t id = 0;
    /* Any access that bound a version at this path says "at that time it held V"; a
     * rename_from or unlink says it stopped holding it. */
    if (sqlite3_prepare_v2(p->q->db,
                           "SELECT version_id FROM accesses WHERE file_id = ? AND version_id IS "
                           "NOT NULL AND result = 0 AND kind NOT IN (6,9) "
                           "ORDER BY first_ns DESC, id DESC LIMIT 1",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, file_id);
        if (sqlite3_step(st) == SQLITE_ROW)
            id = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    return id;
}

GArray *prov_versions_at(struct prov *p, int64_t file_id)
{
    return qdb_ids(p->q, "SELECT version_id FROM accesses WHERE file_id = ?1 AND version_id IS "
                         "NOT NULL AND result = 0 UNION SELECT id FROM versions WHERE "
                         "file_id = ?1 ORDER BY 1", file_id);
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

static bool ext_in(const char *ext, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(ext, *list))
            return true;
    return false;
}

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

static enum prov_role classify(const char *path, int kind, const struct qdb_process *reader,
                               bool script)
{
    static const char *const sources[] = {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".m",
                                          ".mm", ".s", ".S", ".sx", ".f", ".f90", ".F",
                                          ".F90", ".go", ".rs", ".d", ".adb", ".ads", NULL};
    static const char *const headers[] = {".h", ".hh", ".hpp", ".hxx", ".h++", ".H", ".inc",
                                          ".inl", ".ipp", ".tcc", ".def", ".modulemap", NULL};
    static const char *const objects[] = {".o", ".obj", ".a", ".lo", ".lib", ".rlib", NULL};
    static const char *const scripts[] = {".mk", ".cmake", ".sh", ".ninja", ".am", ".ac",
                                          ".m4", ".in", ".pc", NULL};
    static const char *const script_names[] = {"Makefile", "makefile", "GNUmakefile",
                                               "configure", "CMakeLists.txt", "meson.build",
                                               "build.ninja", NULL};
    if (kind == TRACEDB_EXEC)
        return PROV_ROLE_TOOL;
    if (script)
        return PROV_ROLE_SCRIPT;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    const char *ext = dot && dot != base ? dot : "";
    if (ext_in(ext, sources))
        return argv_names(reader, base) ? PROV_ROLE_SOURCE : PROV_ROLE_HEADER;
    if (ext_in(ext, headers))
        return PROV_ROLE_HEADER;
    if (ext_in(ext, objects))
        return PROV_ROLE_OBJECT;
    if (!strcmp(ext, ".so") || strstr(base, ".so."))
        return PROV_ROLE_SHLIB;
    if (ext_in(ext, scripts) || ext_in(base, script_names))
        return PROV_ROLE_SCRIPT;
    if (!*ext && reader) {
        /* C++ standard headers have no extension; the compiler proper reads them. */
        const char *prog = qdb_process_program(reader);
        if (!strcmp(prog, "cc1plus") || !strcmp(prog, "cc1") || !strncmp(prog, "clang", 5))
            return PROV_ROLE_HEADER;
    }
    return PROV_ROLE_OTHER;
}

/* ---- walks ------------------------------------------------------------------------------- */

struct walk {
    struct prov *p;
    const struct prov_walk_opts *o;
    GHashTable *nodes;     /* version id -> struct prov_node* */
    GQueue queue;          /* struct prov_node* to visit */
    GHashTable *done_data; /* process id -> int64 bound already expanded (as a data writer) */
    GHashTable *done_script; /* the same, as an ancestor */
};

static void walk_init(struct walk *w, struct prov *p, const struct prov_walk_opts *o)
{
    w->p = p;
    w->o = o;
    w->nodes = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    g_queue_init(&w->queue);
    w->done_data = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    w->done_script = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
}

static gint node_cmp(gconstpointer a, gconstpointer b)
{
    const struct prov_node *x = a, *y = b;
    int c = strcmp(x->v->path, y->v->path);
    return c ? c : (x->v->id > y->v->id) - (x->v->id < y->v->id);
}

/* The nodes (minus `skip`), sorted; frees the walk. */
static GArray *walk_finish(struct walk *w, int64_t skip)
{
    GArray *out = g_array_new(FALSE, FALSE, sizeof(struct prov_node));
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, w->nodes);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        struct prov_node *n = value;
        if (n->v->id != skip)
            g_array_append_val(out, *n);
    }
    g_array_sort(out, node_cmp);
    g_hash_table_destroy(w->nodes);
    g_hash_table_destroy(w->done_data);
    g_hash_table_destroy(w->done_script);
    g_queue_clear(&w->queue);
    return out;
}

static void walk_add(struct walk *w, int64_t id, enum prov_role role, int depth)
{
    struct prov_node *n = g_hash_table_lookup(w->nodes, &id);
    if (n) {
        if (role < n->role)
            n->role = role; /* the most specific use wins */
        return;
    }
    const struct prov_version *v = prov_version(w->p, id);
    if (!v || prov_path_under(v->path, w->o->prune))
        return;
    n = g_new(struct prov_node, 1);
    n->v = v;
    n->role = role;
    n->depth = depth;
    g_hash_table_insert(w->nodes, id_key(id), n);
    g_queue_push_tail(&w->queue, n);
}

/* Mark process `id` as expanded up to `bound` in `done`; returns the earlier bound (or
 * INT64_MIN), or INT64_MAX when nothing new is left to expand. */
static int64_t advance(GHashTable *done, int64_t id, int64_t bound, bool upward)
{
    int64_t *b = g_hash_table_lookup(done, &id);
    if (!b) {
        b = g_new(int64_t, 1);
        *b = bound;
        g_hash_table_insert(done, id_key(id), b);
        return upward ? INT64_MIN : INT64_MAX;
    }
    if (upward ? bound <= *b : bound >= *b)
        return upward ? INT64_MAX : INT64_MIN;
    int64_t old = *b;
    *b = bound;
    return old;
}

/* Add what process `pid` read in (after, bound]. */
static void add_reads(struct walk *w, int64_t pid, int64_t after, int64_t bound, bool script,
                      int depth)
{
    struct prov *p = w->p;
    const struct qdb_process *reader = qdb_process(p->q, pid);
    GArray *found = g_array_new(FALSE, FALSE, sizeof(int64_t) * 3);
    sqlite3_stmt *st = p->st_reads;
    sqlite3_bind_int64(st, 1, pid);
    sqlite3_bind_int64(st, 2, after);
    sqlite3_bind_int64(st, 3, bound);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t row[3] = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                          sqlite3_column_int64(st, 2)};
        g_array_append_val(found, row);
    }
    sqlite3_reset(st);
    for (guint i = 0; i < found->len; i++) {
        int64_t *row = &g_array_index(found, int64_t, i * 3);
        const char *path = file_path(p, row[2]);
        walk_add(w, row[0], classify(path, (int)row[1], reader, script), depth);
    }
    g_array_free(found, TRUE);
}

static void expand_writer(struct walk *w, int64_t pid, int64_t bound, int depth)
{
    int64_t after = advance(w->done_data, pid, bound, true);
    if (after != INT64_MAX)
        add_reads(w, pid, after, bound, false, depth);
    if (!w->o->scripts)
        return;
    /* Its ancestors: the images it exec'd from, its parent, theirs, ... */
    const struct qdb_process *pr = qdb_process(w->p->q, pid);
    while (pr) {
        /* An exec'd image's ancestors are its earlier images, then their parent. */
        int64_t up = pr->prev_image_id ? pr->prev_image_id : pr->parent_id;
        if (!up)
            break;
        int64_t a_after = advance(w->done_script, up, bound, true);
        if (a_after == INT64_MAX)
            break; /* it and everything above were expanded up to this bound already */
        add_reads(w, up, a_after, bound, true, depth);
        pr = qdb_process(w->p->q, up);
    }
}

GArray *prov_inputs(struct prov *p, int64_t start, const struct prov_walk_opts *o)
{
    struct walk w;
    walk_init(&w, p, o);
    static const struct prov_walk_opts none = {0};
    const struct prov_walk_opts *keep = o;
    w.o = &none; /* the start itself is never pruned */
    walk_add(&w, start, PROV_ROLE_OTHER, 0);
    w.o = keep;
    struct prov_node *n;
    while ((n = g_queue_pop_head(&w.queue))) {
        int64_t id = n->v->id;
        int depth = n->depth + 1;
        if (n->v->base_id)
            walk_add(&w, n->v->base_id, classify(n->v->path, TRACEDB_READ, NULL, false), depth);
        GArray *writers = g_array_new(FALSE, FALSE, sizeof(int64_t) * 2);
        sqlite3_stmt *st = p->st_writers;
        sqlite3_bind_int64(st, 1, id);
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t row[2] = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
            g_array_append_val(writers, row);
        }
        sqlite3_reset(st);
        for (guint i = 0; i < writers->len; i++) {
            int64_t *row = &g_array_index(writers, int64_t, i * 2);
            expand_writer(&w, row[0], row[1], depth);
        }
        g_array_free(writers, TRUE);
    }
    return walk_finish(&w, start);
}

/* ---- outputs ----------------------------------------------------------------------------- */

static void load_successors(struct prov *p)
{
    if (p->successors)
        return;
    p->successors = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free,
                                          (GDestroyNotify)g_array_unref);
    qdb_load_all(p->q);
    GHashTableIter it;
    gpointer value;
    g_hash_table_iter_init(&it, p->q->processes);
    while (g_hash_table_iter_next(&it, NULL, &value)) {
        const struct qdb_process *c = value;
        int64_t up = c->prev_image_id ? c->prev_image_id : c->parent_id;
        if (!up)
            continue;
        GArray *list = g_hash_table_lookup(p->successors, &up);
        if (!list) {
            list = g_array_new(FALSE, FALSE, sizeof(int64_t));
            g_hash_table_insert(p->successors, id_key(up), list);
        }
        g_array_append_val(list, c->id);
    }
}

/* Add the versions process `pid` wrote at or after `from` (and before `until`). */
static void add_writes(struct walk *w, int64_t pid, int64_t from, int64_t until, int depth)
{
    struct prov *p = w->p;
    GArray *found = g_array_new(FALSE, FALSE, sizeof(int64_t));
    sqlite3_stmt *st = p->st_writes;
    sqlite3_bind_int64(st, 1, pid);
    sqlite3_bind_int64(st, 2, from);
    sqlite3_bind_int64(st, 3, until);
    while (sqlite3_step(st) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(st, 0);
        g_array_append_val(found, id);
    }
    sqlite3_reset(st);
    for (guint i = 0; i < found->len; i++)
        walk_add(w, g_array_index(found, int64_t, i), PROV_ROLE_OTHER, depth);
    g_array_free(found, TRUE);
}

static void expand_reader(struct walk *w, int64_t pid, int64_t since, int depth)
{
    int64_t until = advance(w->done_data, pid, since, false);
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
            int64_t d = g_array_index(succ, int64_t, k);
            int64_t d_until = advance(w->done_script, d, since, false);
            if (d_until == INT64_MIN)
                continue; /* it and its descendants were expanded from an earlier read */
            add_writes(w, d, since, d_until, depth);
            g_array_append_val(todo, d);
        }
    }
    g_array_free(todo, TRUE);
}

GArray *prov_outputs(struct prov *p, GArray *starts, const struct prov_walk_opts *o)
{
    struct walk w;
    walk_init(&w, p, o);
    static const struct prov_walk_opts none = {0};
    w.o = &none;
    for (guint i = 0; i < starts->len; i++)
        walk_add(&w, g_array_index(starts, int64_t, i), PROV_ROLE_OTHER, 0);
    w.o = o;
    GHashTable *start_ids = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < starts->len; i++)
        g_hash_table_add(start_ids, &g_array_index(starts, int64_t, i));
    struct prov_node *n;
    while ((n = g_queue_pop_head(&w.queue))) {
        int64_t id = n->v->id;
        int depth = n->depth + 1;
        GArray *found = g_array_new(FALSE, FALSE, sizeof(int64_t) * 2);
        sqlite3_stmt *st = p->st_based;
        sqlite3_bind_int64(st, 1, id);
        while (sqlite3_step(st) == SQLITE_ROW) {
            walk_add(&w, sqlite3_column_int64(st, 0), PROV_ROLE_OTHER, depth);
        }
        sqlite3_reset(st);
        st = p->st_readers;
        sqlite3_bind_int64(st, 1, id);
        while (sqlite3_step(st) == SQLITE_ROW) {
            int64_t row[2] = {sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1)};
            g_array_append_val(found, row);
        }
        sqlite3_reset(st);
        for (guint i = 0; i < found->len; i++) {
            int64_t *row = &g_array_index(found, int64_t, i * 2);
            expand_reader(&w, row[0], row[1], depth);
        }
        g_array_free(found, TRUE);
    }
    /* The starts themselves are not outputs (unless made from another start). */
    GArray *out = g_array_new(FALSE, FALSE, sizeof(struct prov_node));
    GArray *all = walk_finish(&w, 0);
    for (guint i = 0; i < all->len; i++) {
        struct prov_node *x = &g_array_index(all, struct prov_node, i);
        if (x->depth > 0 || !g_hash_table_contains(start_ids, &x->v->id))
            g_array_append_val(out, *x);
    }
    g_array_unref(all);
    g_hash_table_destroy(start_ids);
    return out;
}
