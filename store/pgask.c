/* pgask — the store's questions, list, show and rm (contract in pgstore.h; pgstore.c
 * connects and pushes). */
#include "pgstore-internal.h"

#include <stdlib.h>

int64_t pgstore_count_builds(struct pgstore *s, char **err)
{
    PGresult *r = query(s, "SELECT count(*) FROM build", 0, NULL, "counting builds", err);
    if (!r)
        return -EIO;
    int64_t n = g_ascii_strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
    return n;
}

PGresult *pgstore_list(struct pgstore *s, int64_t only_build, char **err)
{
    return query_build(s, only_build,
                 "SELECT b.id, b.name, to_char(b.started AT TIME ZONE 'UTC',"
                 " 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), b.state, b.complete,"
                 " (SELECT count(*) FROM product p WHERE p.build_id = b.id), b.trace_path,"
                 " encode(b.identity, 'hex'),"
                 /* each key and value in hex: no byte of theirs is ambiguous */
                 " (SELECT string_agg(encode(convert_to(key, 'UTF8'), 'hex') || '='"
                 "  || encode(convert_to(value, 'UTF8'), 'hex'), ',' ORDER BY key)"
                 "  FROM build_label l WHERE l.build_id = b.id), b.packages_from"
                 " FROM build b WHERE $1::bigint = 0 OR b.id = $1::bigint ORDER BY b.id",
                 "listing builds", err);
}

static char *unhex(const char *h, size_t n)
{
    GString *o = g_string_sized_new(n / 2 + 1);
    for (size_t i = 0; i + 1 < n; i += 2)
        g_string_append_c(o, (char)(g_ascii_xdigit_value(h[i]) << 4 | g_ascii_xdigit_value(h[i + 1])));
    return g_string_free(o, FALSE);
}

char **pgstore_labels(const char *hexpairs)
{
    GPtrArray *kv = g_ptr_array_new();
    for (const char *at = hexpairs; at && *at;) {
        const char *eq = strchr(at, '='), *end = strchr(at, ',');
        if (!end)
            end = at + strlen(at);
        if (!eq || eq > end)
            break;
        g_ptr_array_add(kv, unhex(at, (size_t)(eq - at)));
        g_ptr_array_add(kv, unhex(eq + 1, (size_t)(end - eq - 1)));
        at = *end ? end + 1 : end;
    }
    g_ptr_array_add(kv, NULL);
    return (char **)g_ptr_array_free(kv, FALSE);
}

PGresult *pgstore_show_products(struct pgstore *s, int64_t build, char **err)
{
    return query_build(s, build,
                 "SELECT pa.path, encode(c.sha256, 'hex'), p.license, p.leaves"
                 " FROM product p JOIN version v ON v.build_id = p.build_id AND v.vid = p.vid"
                 " LEFT JOIN path pa ON pa.id = v.path_id LEFT JOIN content c ON c.id = v.content_id"
                 " WHERE p.build_id = $1::bigint ORDER BY pa.path",
                 "reading the build's products", err);
}

PGresult *pgstore_show_packages(struct pgstore *s, int64_t build, char **err)
{
    return query_build(s, build,
                 "SELECT name, version, code, headers, runtime, shlib, tool FROM build_packages"
                 " WHERE build_id = $1::bigint ORDER BY name",
                 "reading the build's packages", err);
}

int pgstore_rm(struct pgstore *s, int64_t build, char **err)
{
    /* The per-build tables have no foreign key to cascade along (schema 3): each is emptied
     * of the build, in one transaction with the build's row. */
    static const char *const tables[] = {"closure", "edge", "product_package", "build_package",
                                         "product", "version", "process"};
    int ret = exec(s, "BEGIN", "removing the build", err);
    if (ret < 0)
        return ret;
    for (size_t i = 0; i < G_N_ELEMENTS(tables); i++) {
        g_autofree char *sql = g_strdup_printf("DELETE FROM %s WHERE build_id = $1::bigint",
                                               tables[i]);
        PGresult *r = query_build(s, build, sql, "removing the build", err);
        if (!r)
            goto rollback;
        PQclear(r);
    }
    PGresult *r = query_build(s, build, "DELETE FROM build WHERE id = $1::bigint",
                              "removing the build", err);
    if (!r)
        goto rollback;
    bool gone = atoi(PQcmdTuples(r)) > 0;
    PQclear(r);
    if (!gone) {
        pgs_rollback(s);
        return -ENOENT;
    }
    return exec(s, "COMMIT", "removing the build", err);
rollback:
    pgs_rollback(s);
    return -EIO;
}

static char *int_array(const int64_t *v, int n)
{
    GString *arr = g_string_new("{");
    for (int i = 0; i < n; i++)
        g_string_append_printf(arr, "%s%" G_GINT64_FORMAT, i ? "," : "", v[i]);
    g_string_append_c(arr, '}');
    return g_string_free(arr, FALSE);
}

/* A text[] literal of `n` strings (NULL when n < 0: no filter). */
static char *text_array(const char *const *v, int n)
{
    if (n < 0)
        return NULL;
    GString *arr = g_string_new("{");
    for (int i = 0; i < n; i++) {
        g_string_append(arr, i ? ",\"" : "\"");
        for (const char *c = v[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                g_string_append_c(arr, '\\');
            g_string_append_c(arr, *c);
        }
        g_string_append_c(arr, '"');
    }
    g_string_append_c(arr, '}');
    return g_string_free(arr, FALSE);
}

/* The versions of the content that a hit is made of: those in a product's closure with a code
 * role, and those that are a product. */
#define SHIPS_HITS(builds)                                                                   \
    " SELECT cl.build_id, cl.product_vid, cl.vid, cl.role FROM content c"                   \
    "  JOIN version v ON v.content_id = c.id"                                               \
    "  JOIN closure cl ON cl.build_id = v.build_id AND cl.vid = v.vid"                      \
    "  WHERE c.sha256 = $1::bytea" builds                                                  \
    "  AND cl.role IN ('source', 'header', 'object', 'copy', 'generated')"                  \
    " UNION"                                                                                 \
    " SELECT p.build_id, p.vid, p.vid, 'product' FROM content c"                            \
    "  JOIN version v ON v.content_id = c.id"                                               \
    "  JOIN product p ON p.build_id = v.build_id AND p.vid = v.vid"                         \
    "  WHERE c.sha256 = $1::bytea" builds

PGresult *pgstore_who_ships_builds(struct pgstore *s, const char *sha256_hex, char **err)
{
    g_autofree char *h = g_strdup_printf("\\x%s", sha256_hex);
    const char *p[] = {h};
    /* a build is hit when one of its versions of the content is: one probe per version (a
     * header every build has is one version per build), not every product's row */
    return query(s,
                 "SELECT DISTINCT v.build_id FROM content c JOIN version v ON v.content_id = c.id"
                 " WHERE c.sha256 = $1::bytea AND (EXISTS (SELECT 1 FROM closure cl"
                 "  WHERE cl.build_id = v.build_id AND cl.vid = v.vid"
                 "  AND cl.role IN ('source', 'header', 'object', 'copy', 'generated'))"
                 "  OR EXISTS (SELECT 1 FROM product p WHERE p.build_id = v.build_id"
                 "  AND p.vid = v.vid)) ORDER BY 1",
                 1, p, "asking who ships it", err);
}

PGresult *pgstore_who_ships(struct pgstore *s, const char *sha256_hex, const int64_t *builds,
                            int nbuilds, char **err)
{
    g_autofree char *h = g_strdup_printf("\\x%s", sha256_hex);
    g_autofree char *b = int_array(builds, nbuilds);
    const char *p[] = {h, b};
    return query(s,
                 "WITH hits AS (" SHIPS_HITS(" AND v.build_id = ANY($2::bigint[])") ")"
                 " SELECT h.build_id, b.name, pp.path, h.product_vid, lp.path, h.vid, h.role"
                 " FROM hits h JOIN build b ON b.id = h.build_id"
                 " JOIN version pv ON pv.build_id = h.build_id AND pv.vid = h.product_vid"
                 " LEFT JOIN path pp ON pp.id = pv.path_id"
                 " JOIN version lv ON lv.build_id = h.build_id AND lv.vid = h.vid"
                 " LEFT JOIN path lp ON lp.id = lv.path_id"
                 " ORDER BY h.build_id, pp.path, lp.path",
                 2, p, "asking who ships it", err);
}

struct edge_to {
    int64_t from;
    char *path; /* the path of `from` */
};

/* A version of one build: the edges' key. */
struct bvid {
    int64_t build, vid;
};

static guint bvid_hash(gconstpointer p)
{
    const struct bvid *k = p;
    return g_int64_hash(&k->build) * 31u + g_int64_hash(&k->vid);
}

static gboolean bvid_equal(gconstpointer a, gconstpointer b)
{
    const struct bvid *x = a, *y = b;
    return x->build == y->build && x->vid == y->vid;
}

struct pgstore_edges {
    GHashTable *down; /* struct bvid -> GArray of struct edge_to */
};

static void edges_array_free(gpointer p)
{
    GArray *a = p;
    for (guint i = 0; i < a->len; i++)
        g_free(g_array_index(a, struct edge_to, i).path);
    g_array_unref(a);
}

struct pgstore_edges *pgstore_edges_load(struct pgstore *s, const int64_t *builds,
                                         const int64_t *leaves, int n, char **err)
{
    g_autofree char *b = int_array(builds, n);
    g_autofree char *l = int_array(leaves, n);
    const char *p[] = {b, l};
    /* The edges up from the leaves (UNION: each edge once, so it ends): what carries a leaf is
     * closed upwards, so these are all the edges among what carries the leaves. */
    PGresult *r = query(s,
                        "WITH RECURSIVE up(build_id, vid, from_vid) AS ("
                        " SELECT e.build_id, e.vid, e.from_vid"
                        "  FROM (SELECT DISTINCT * FROM unnest($1::bigint[], $2::bigint[])) l(b, v)"
                        "  JOIN edge e ON e.build_id = l.b AND e.from_vid = l.v UNION"
                        /* OFFSET 0: an index lookup per row of the step, never a merge join
                         * over the whole edge table (the step's size is misestimated) */
                        " SELECT e.build_id, e.vid, e.from_vid FROM up, LATERAL (SELECT * FROM edge"
                        "  WHERE build_id = up.build_id AND from_vid = up.vid OFFSET 0) e)"
                        /* each path by index (a subquery per row): joined, the walk's
                         * misestimated size made the planner hash every build's versions */
                        " SELECT up.build_id, up.vid, up.from_vid, (SELECT pa.path FROM version v"
                        "  LEFT JOIN path pa ON pa.id = v.path_id WHERE v.build_id = up.build_id"
                        "  AND v.vid = up.from_vid) FROM up",
                        2, p, "drawing the chains", err);
    if (!r)
        return NULL;
    struct pgstore_edges *e = g_new0(struct pgstore_edges, 1);
    e->down = g_hash_table_new_full(bvid_hash, bvid_equal, g_free, edges_array_free);
    for (int i = 0; i < PQntuples(r); i++) {
        struct bvid k = {g_ascii_strtoll(PQgetvalue(r, i, 0), NULL, 10),
                         g_ascii_strtoll(PQgetvalue(r, i, 1), NULL, 10)};
        GArray *a = g_hash_table_lookup(e->down, &k);
        if (!a) {
            a = g_array_new(FALSE, FALSE, sizeof(struct edge_to));
            g_hash_table_insert(e->down, g_memdup2(&k, sizeof k), a);
        }
        size_t len;
        struct edge_to t = {.from = g_ascii_strtoll(PQgetvalue(r, i, 2), NULL, 10),
                            .path = pgstore_bytea(r, i, 3, &len)};
        g_array_append_val(a, t);
    }
    PQclear(r);
    return e;
}

struct step {
    int64_t parent;   /* the version it was reached from */
    const char *path; /* its own path */
};

GPtrArray *pgstore_chain(const struct pgstore_edges *e, int64_t build, int64_t top, int64_t leaf)
{
    if (top == leaf)
        return NULL;
    /* Breadth first from the product: the shortest chain. */
    GHashTable *prev = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    GArray *queue = g_array_new(FALSE, FALSE, sizeof(int64_t));
    g_array_append_val(queue, top);
    for (guint qi = 0; qi < queue->len; qi++) {
        int64_t cur = g_array_index(queue, int64_t, qi);
        if (cur == leaf)
            break;
        struct bvid k = {build, cur};
        GArray *a = g_hash_table_lookup(e->down, &k);
        for (guint i = 0; a && i < a->len; i++) {
            const struct edge_to *t = &g_array_index(a, struct edge_to, i);
            if (t->from == top || g_hash_table_contains(prev, &t->from))
                continue;
            struct step *st = g_new(struct step, 1);
            st->parent = cur;
            st->path = t->path;
            g_hash_table_insert(prev, g_memdup2(&t->from, sizeof t->from), st);
            g_array_append_val(queue, t->from);
        }
    }
    GPtrArray *chain = NULL;
    if (g_hash_table_contains(prev, &leaf)) {
        chain = g_ptr_array_new_with_free_func(g_free);
        for (int64_t at = leaf; at != top;) {
            const struct step *st = g_hash_table_lookup(prev, &at);
            g_ptr_array_insert(chain, 0, g_strdup(st->path ? st->path : "?"));
            at = st->parent;
        }
    }
    g_array_unref(queue);
    g_hash_table_destroy(prev);
    return chain;
}

void pgstore_edges_free(struct pgstore_edges *e)
{
    if (!e)
        return;
    g_hash_table_destroy(e->down);
    g_free(e);
}

PGresult *pgstore_package_versions(struct pgstore *s, const char *package, char **err)
{
    const char *p[] = {package};
    return query(s, "SELECT DISTINCT version FROM package WHERE name = $1", 1, p,
                 "reading the package's versions", err);
}

PGresult *pgstore_uses_builds(struct pgstore *s, const char *package,
                              const char *const *versions, int nversions, char **err)
{
    g_autofree char *vs = text_array(versions, nversions);
    const char *p[] = {package, vs};
    /* one row per build and package version (build_package): the builds' count does not
     * read every product's rows */
    return query(s,
                 "SELECT bp.build_id, bool_or(bp.code) FROM package pk"
                 " JOIN build_package bp ON bp.package_id = pk.id"
                 " WHERE pk.name = $1 AND ($2::text[] IS NULL OR pk.version = ANY($2::text[]))"
                 " GROUP BY bp.build_id ORDER BY 2 DESC, 1",
                 2, p, "asking who uses it", err);
}

PGresult *pgstore_uses(struct pgstore *s, const char *package, const char *const *versions,
                       int nversions, const int64_t *builds, int nbuilds, char **err)
{
    g_autofree char *vs = text_array(versions, nversions);
    g_autofree char *bs = int_array(builds, nbuilds);
    const char *p[] = {package, vs, bs};
    return query(s,
                 "SELECT u.build_id, b.name, pp.path, min(pk.version),"
                 " bool_or(u.role IN ('source', 'object', 'copy', 'generated')),"
                 " bool_or(u.role = 'header'), string_agg(DISTINCT u.role, ','), sum(u.files)"
                 " FROM package pk JOIN product_package u ON u.package_id = pk.id"
                 " JOIN build b ON b.id = u.build_id"
                 " JOIN version pv ON pv.build_id = u.build_id AND pv.vid = u.product_vid"
                 " LEFT JOIN path pp ON pp.id = pv.path_id"
                 " WHERE pk.name = $1 AND ($2::text[] IS NULL OR pk.version = ANY($2::text[]))"
                 " AND u.build_id = ANY($3::bigint[])"
                 " GROUP BY u.build_id, b.name, u.product_vid, pp.path"
                 " ORDER BY u.build_id, pp.path",
                 3, p, "asking who uses it", err);
}

PGresult *pgstore_copies(struct pgstore *s, const char *const *known, int nknown, char **err)
{
    GString *arr = g_string_new("{");
    for (int i = 0; i < nknown; i++)
        g_string_append_printf(arr, "%s\"\\\\x%s\"", i ? "," : "", known[i]);
    g_string_append_c(arr, '}');
    const char *p[] = {arr->str};
    /* Sources and headers of a build's own tree (no package owns them: outside /usr) whose
     * content is in another build too, or in the known index. */
    PGresult *r = query(s,
                        "WITH src AS ("
                        " SELECT DISTINCT v.content_id, cl.build_id, v.path_id, cl.role"
                        " FROM closure cl JOIN version v ON v.build_id = cl.build_id"
                        " AND v.vid = cl.vid WHERE cl.role IN ('source', 'header')"
                        " AND cl.package_id IS NULL AND v.content_id IS NOT NULL),"
                        " hit AS (SELECT content_id FROM src GROUP BY content_id"
                        "  HAVING count(DISTINCT build_id) > 1"
                        "  UNION SELECT c.id FROM content c WHERE c.sha256 = ANY($1::bytea[]))"
                        " SELECT encode(c.sha256, 'hex'), src.build_id, b.name, pa.path, b.cwd,"
                        " src.role FROM src JOIN hit USING (content_id)"
                        " JOIN content c ON c.id = src.content_id JOIN build b ON b.id = src.build_id"
                        " LEFT JOIN path pa ON pa.id = src.path_id"
                        " ORDER BY 1, 2, pa.path",
                        1, p, "finding copies", err);
    g_string_free(arr, TRUE);
    return r;
}

char *pgstore_bytea(const PGresult *r, int row, int col, size_t *len)
{
    *len = 0;
    if (PQgetisnull(r, row, col))
        return NULL;
    unsigned char *b = PQunescapeBytea((const unsigned char *)PQgetvalue(r, row, col), len);
    if (!b)
        return NULL;
    char *s = g_malloc(*len + 1);
    memcpy(s, b, *len);
    s[*len] = 0;
    PQfreemem(b);
    return s;
}
