/* prov-graph — the id maps, the edges of the provenance graph (from SQL one node at a time,
 * or from the whole graph loaded in memory) and the answers the loaded graph gives per
 * process and per version (prov.h; prov-internal.h). */
#include "prov-internal.h"
#include "queries.h"
#include "stmt.h"
#include "tracedb.h"

#include <stdlib.h>
#include <string.h>

G_STATIC_ASSERT(sizeof(gpointer) >= sizeof(int64_t)); /* walk bounds are stored as values */

void pv_idmap_init(struct idmap *m, int64_t dense_max, GDestroyNotify free_value)
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

gpointer pv_idmap_get(const struct idmap *m, int64_t id)
{
    if (m->dense)
        return id > 0 && id <= m->max ? m->dense[id] : NULL;
    return g_hash_table_lookup(m->h, &id);
}

void pv_idmap_set(struct idmap *m, int64_t id, gpointer v)
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

/* Empty a reusable dense map (made by pv_idmap_init_reusable) in the time its use took, not in
 * the time of its size: a walk per product must not cost a pass over every id. */
void pv_idmap_reset(struct idmap *m)
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

void pv_idmap_init_reusable(struct idmap *m, int64_t dense_max)
{
    pv_idmap_init(m, dense_max, NULL);
    m->touched = g_array_new(FALSE, FALSE, sizeof(int64_t));
}

void pv_idmap_clear(struct idmap *m)
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
void pv_idmap_make_dense(struct idmap *m, int64_t max)
{
    if (m->dense || max <= 0)
        return;
    struct idmap d;
    pv_idmap_init(&d, max, m->free_value);
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
    pv_idmap_clear(m);
    *m = d;
}

int64_t *pv_id_key(int64_t id)
{
    int64_t *k = g_new(int64_t, 1);
    *k = id;
    return k;
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
        g_hash_table_insert(t, pv_id_key(key), list);
    }
    g_array_append_val(list, e);
}

void pv_edges_done(struct edges *x)
{
    if (x->owned)
        g_array_unref(x->owned);
}

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

void pv_graph_free(struct graph *g)
{
    if (!g)
        return;
    csr_free(&g->writers);
    csr_free(&g->reads);
    csr_free(&g->readers);
    csr_free(&g->writes);
    csr_free(&g->based);
    g_free(g->role_memo);
    g_free(g);
}

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

/* Every successful access: the provenance graph (those bound to a version) and the bindings
 * in one scan. */
TRACEDB_STATEMENT(sql_successful_accesses, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT process_id, version_id, kind, first_ns, last_ns, file_id, id, "
                  "COALESCE(open_flags, -1) FROM accesses NOT INDEXED WHERE result = 0");
enum {
    ACCESS_PROCESS,
    ACCESS_VERSION,
    ACCESS_KIND,
    ACCESS_FIRST,
    ACCESS_LAST,
    ACCESS_FILE,
    ACCESS_ID,
    ACCESS_FLAGS
};
/* The largest access id (0: none): an upper bound on their number. */
TRACEDB_STATEMENT(sql_max_access_id, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT COALESCE(MAX(id), 0) FROM accesses");

/* Load every file path, version and versioned access in three scans. */
void pv_load_graph(struct prov *p)
{
    struct graph *g = g_new0(struct graph, 1);
    int64_t max_version = pv_max_version_id(p);
    int64_t max_process = qdb_max_id(p->q, tracedb_sql(TQ_MAX_PROCESS_ID));
    int64_t max_file = pv_max_file_id(p);
    pv_load_paths(p, max_file);
    pv_idmap_make_dense(&p->name_kinds, max_file);
    struct placement *moved = g_new0(struct placement, (size_t)max_version + 1);
    sqlite3_stmt *st = NULL;
    /* Sized once for every access (untouched pages cost nothing): no copy as they grow. */
    guint room = (guint)MIN(qdb_max_id(p->q, sql_max_access_id), (int64_t)G_MAXUINT32 / 2);
    GArray *rd = g_array_sized_new(FALSE, FALSE, sizeof(struct keyed), room); /* by process */
    GArray *wr = g_array_sized_new(FALSE, FALSE, sizeof(struct keyed), room); /* by version */
    /* The same scan fills the bindings (prov_load_bindings), which the answers on a big graph
     * ask about for many files. */
    struct bindings *b = p->bindings ? NULL : pv_bindings_new(p);
    if (qdb_prepare(p->q, sql_successful_accesses, &st)) {
        while (qdb_row(p->q, st)) {
            int64_t pid = sqlite3_column_int64(st, ACCESS_PROCESS);
            int64_t vid = sqlite3_column_int64(st, ACCESS_VERSION);
            bool has_version = sqlite3_column_type(st, ACCESS_VERSION) != SQLITE_NULL;
            int kind = sqlite3_column_int(st, ACCESS_KIND);
            if (b)
                pv_bindings_add(b, sqlite3_column_int64(st, ACCESS_FILE), has_version, vid, kind,
                                sqlite3_column_int64(st, ACCESS_FIRST),
                                sqlite3_column_int64(st, ACCESS_ID));
            if (!has_version || vid < 1 || vid > max_version || pid < 0 || pid > max_process)
                continue; /* not a version or process of this trace */
            if (!tracedb_kind_in(TRACEDB_MASK_VERSIONED, kind))
                continue; /* bound to a version but not an edge: removed, moved away */
            int64_t first = sqlite3_column_int64(st, ACCESS_FIRST);
            int64_t last = sqlite3_column_int64(st, ACCESS_LAST);
            int64_t file_id = sqlite3_column_int64(st, ACCESS_FILE);
            if (kind == TRACEDB_RENAME_TO || kind == TRACEDB_LINK) {
                pv_place(moved, vid, first, file_id);
            } else if (!pid) {
                continue;
            } else if (kind == TRACEDB_READ || kind == TRACEDB_EXEC) {
                struct keyed k = {pid, {vid, first, file_id, kind,
                                        sqlite3_column_int(st, ACCESS_FLAGS)}};
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
    pv_load_versions(p, max_version, moved, rd);
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

/* The edges of one node, one statement each (sql_edges reads them): struct edge's fields in
 * order, as many as the statement has (EDGE_ID first); ?1 the node, ?2 and ?3 a window of
 * times for a process's reads and writes. */
enum { EDGE_ID, EDGE_T, EDGE_FILE, EDGE_KIND, EDGE_FLAGS };
/* {process, its last write} of the images that made version ?1 */
TRACEDB_STATEMENT(sql_writers_of_version, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT process_id, MAX(last_ns) FROM accesses WHERE version_id = ? AND kind IN "
                  TRACEDB_KINDS_MADE " AND result = 0 AND process_id IS NOT NULL GROUP BY "
                  "process_id");
/* {version, first read, file, kind, flags} of what image ?1 read with a start in [?2, ?3] */
TRACEDB_STATEMENT(sql_reads_of_process, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT version_id, first_ns, file_id, kind, COALESCE(open_flags, -1) FROM "
                  "accesses WHERE process_id = ? AND kind IN " TRACEDB_KINDS_READ
                  " AND result = 0 AND version_id IS NOT NULL AND first_ns >= ? AND first_ns <= ?");
/* {process, its first read} of the images that read version ?1 */
TRACEDB_STATEMENT(sql_readers_of_version, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT process_id, MIN(first_ns) FROM accesses WHERE version_id = ? AND kind IN "
                  TRACEDB_KINDS_READ " AND result = 0 AND process_id IS NOT NULL GROUP BY "
                  "process_id");
/* {version, last write} of what image ?1 made with a last write in [?2, ?3] */
TRACEDB_STATEMENT(sql_writes_of_process, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT version_id, MAX(last_ns) FROM accesses WHERE process_id = ? AND kind IN "
                  TRACEDB_KINDS_MADE " AND result = 0 AND version_id IS NOT NULL AND last_ns >= ? "
                  "AND last_ns <= ? GROUP BY version_id");
/* {version} of the versions written on top of ?1 */
TRACEDB_STATEMENT(sql_versions_based_on, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT id FROM versions WHERE base_id = ?");

bool pv_prepare_edges(struct prov *p)
{
    return qdb_prepare(p->q, sql_writers_of_version, &p->st_writers) &&
           qdb_prepare(p->q, sql_reads_of_process, &p->st_reads) &&
           qdb_prepare(p->q, sql_readers_of_version, &p->st_readers) &&
           qdb_prepare(p->q, sql_writes_of_process, &p->st_writes) &&
           qdb_prepare(p->q, sql_versions_based_on, &p->st_based);
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
        struct edge e = {sqlite3_column_int64(st, EDGE_ID),
                         cols > EDGE_T ? sqlite3_column_int64(st, EDGE_T) : 0,
                         cols > EDGE_FILE ? sqlite3_column_int64(st, EDGE_FILE) : 0,
                         cols > EDGE_KIND ? sqlite3_column_int(st, EDGE_KIND) : 0,
                         cols > EDGE_FLAGS ? sqlite3_column_int(st, EDGE_FLAGS) : -1};
        g_array_append_val(out, e);
    }
    sqlite3_reset(st);
    return (struct edges){(const struct edge *)(void *)out->data, out->len, out};
}

/* The processes that made version `v`: {process, its last write of v}. */
struct edges pv_writers_of(struct prov *p, int64_t v)
{
    return p->graph ? csr_get(&p->graph->writers, v) : sql_edges(p, p->st_writers, v, 0, 0, 0);
}

/* What process `pid` read: {version, first_ns, file, kind}; a superset of those with a start
 * in [from, until] (the caller filters).  From the graph, in time order (edge_time_cmp). */
struct edges pv_reads_of(struct prov *p, int64_t pid, int64_t from, int64_t until)
{
    return p->graph ? csr_get(&p->graph->reads, pid)
                    : sql_edges(p, p->st_reads, pid, 1, from, until);
}

/* The processes that read version `v`: {process, its first read}. */
struct edges pv_readers_of(struct prov *p, int64_t v)
{
    return p->graph ? csr_get(&p->graph->readers, v) : sql_edges(p, p->st_readers, v, 0, 0, 0);
}

/* The versions process `pid` wrote: {version, last write}; a superset of those with a last
 * write in [from, until] (the caller filters). */
struct edges pv_writes_of(struct prov *p, int64_t pid, int64_t from, int64_t until)
{
    return p->graph ? csr_get(&p->graph->writes, pid)
                    : sql_edges(p, p->st_writes, pid, 1, from, until);
}

/* The versions written on top of `v`. */
struct edges pv_based_on(struct prov *p, int64_t v)
{
    return p->graph ? csr_get(&p->graph->based, v) : sql_edges(p, p->st_based, v, 0, 0, 0);
}

void prov_load(struct prov *p)
{
    if (!p->graph)
        pv_load_graph(p);
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
        pv_load_graph(p);
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
    pv_edges_done(&e);
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
    pv_edges_done(&e);
}

void prov_readers(struct prov *p, int64_t id, GArray *out)
{
    append_processes(pv_readers_of(p, id), out);
}

void prov_makers(struct prov *p, int64_t id, GArray *out)
{
    append_processes(pv_writers_of(p, id), out);
}

/* ---- successors (the outputs walk's way down) --------------------------------------------- */

void pv_load_successors(struct prov *p)
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
    /* each list by id (edge_time_cmp: all at t 0), not in the order the hash table gave */
    g_hash_table_iter_init(&it, p->successors);
    while (g_hash_table_iter_next(&it, NULL, &value))
        g_array_sort(value, edge_time_cmp);
}

void prov_successors(struct prov *p, int64_t id, GArray *out)
{
    pv_load_successors(p);
    GArray *list = g_hash_table_lookup(p->successors, &id);
    for (guint i = 0; list && i < list->len; i++)
        g_array_append_val(out, g_array_index(list, struct edge, i).id);
}

/* ---- the reads of found versions (the SBOMs' packages) ------------------------------------ */

/* {file, kind, version, process} of the successful reads of found versions that the loaded
 * graph does not hold (pv_load_graph skips them): no process identified, a process id
 * outside 1..?1 (the largest), or a version id below 1.  Each kind of row found by index. */
TRACEDB_STATEMENT(sql_found_reads_off_graph, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT DISTINCT a.file_id, a.kind, a.version_id, a.process_id FROM accesses a "
                  "JOIN versions v ON v.id = a.version_id WHERE a.id IN (SELECT id FROM accesses "
                  "WHERE process_id IS NULL UNION ALL SELECT id FROM accesses WHERE process_id < 1 "
                  "UNION ALL SELECT id FROM accesses WHERE process_id > ?1 UNION ALL SELECT id "
                  "FROM accesses WHERE version_id < 1) AND a.kind IN " TRACEDB_KINDS_READ
                  " AND a.result = 0 AND v.origin = 1");
enum { OFF_GRAPH_FILE, OFF_GRAPH_KIND, OFF_GRAPH_VERSION, OFF_GRAPH_PROCESS };

static int found_read_cmp(const void *a, const void *b)
{
    const struct prov_found_read *x = a, *y = b;
    if (x->file_id != y->file_id)
        return (x->file_id > y->file_id) - (x->file_id < y->file_id);
    if (x->kind != y->kind)
        return (x->kind > y->kind) - (x->kind < y->kind);
    if (x->version_id != y->version_id)
        return (x->version_id > y->version_id) - (x->version_id < y->version_id);
    return (x->process_id > y->process_id) - (x->process_id < y->process_id);
}

GArray *prov_found_reads(struct prov *p)
{
    prov_load(p);
    GArray *out = g_array_new(FALSE, FALSE, sizeof(struct prov_found_read));
    for (int64_t vid = 1; vid <= p->graph->readers.max_key; vid++) {
        const struct prov_version *v = prov_version(p, vid);
        if (!v || v->origin != TRACEDB_VERSION_FOUND)
            continue;
        struct edges r = csr_get(&p->graph->readers, vid);
        for (guint i = 0; i < r.n; i++) {
            struct prov_found_read f = {r.e[i].file_id, vid, r.e[i].id, r.e[i].kind};
            g_array_append_val(out, f);
        }
    }
    sqlite3_stmt *st = NULL;
    if (qdb_prepare(p->q, sql_found_reads_off_graph, &st))
        qdb_bind_int64(p->q, st, 1, p->graph->max_process);
    while (st && qdb_row(p->q, st)) {
        bool none = sqlite3_column_type(st, OFF_GRAPH_PROCESS) == SQLITE_NULL;
        struct prov_found_read f = {sqlite3_column_int64(st, OFF_GRAPH_FILE),
                                    sqlite3_column_int64(st, OFF_GRAPH_VERSION),
                                    none ? INT64_MIN : sqlite3_column_int64(st, OFF_GRAPH_PROCESS),
                                    sqlite3_column_int(st, OFF_GRAPH_KIND)};
        g_array_append_val(out, f);
    }
    sqlite3_finalize(st);
    /* each once: a process reads a file many times */
    if (out->len > 1)
        qsort(out->data, out->len, sizeof(struct prov_found_read), found_read_cmp);
    guint k = 0;
    for (guint i = 0; i < out->len; i++) {
        const struct prov_found_read *f = &g_array_index(out, struct prov_found_read, i);
        if (k && !found_read_cmp(f, &g_array_index(out, struct prov_found_read, k - 1)))
            continue;
        g_array_index(out, struct prov_found_read, k++) = *f;
    }
    g_array_set_size(out, k);
    return out;
}
