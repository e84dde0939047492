/* collect — one trace as the rows `store push` sends (contract in collect.h). */
#include "collect.h"

#include "closures.h"
#include "dpkgdb.h"
#include "filekind.h"
#include "licroll.h"
#include "objsyms.h"
#include "prov.h"
#include "qdb.h"
#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *const store_table_names[ST_COUNT] = {
    "t_content", "t_path", "t_argv", "t_package", "t_process",
    "t_version", "t_product", "t_closure", "t_edge", "t_product_package",
};

void store_parse_known(const char *text, size_t len, GPtrArray *hashes, GHashTable *names)
{
    const char *end = text + len;
    for (const char *l = text; l < end;) {
        const char *nl = memchr(l, '\n', (size_t)(end - l));
        const char *le = nl ? nl : end;
        size_t n = (size_t)(le - l);
        size_t hex = 0;
        while (hex < n && hex < 64 && g_ascii_isxdigit(l[hex]) && !g_ascii_isupper(l[hex]))
            hex++;
        if (hex == 64 && n > 65 && l[64] == ' ') {
            const char *nm = l + 65;
            while (nm < le && (*nm == ' ' || *nm == '*'))
                nm++;
            char *h = g_strndup(l, 64);
            g_ptr_array_add(hashes, h);
            g_hash_table_insert(names, g_strdup(h), g_strndup(nm, (size_t)(le - nm)));
        }
        l = nl ? nl + 1 : end;
    }
}

void store_copy_text(GString *out, const char *s)
{
    if (!s) {
        g_string_append(out, "\\N");
        return;
    }
    for (; *s; s++) {
        switch (*s) {
        case '\\': g_string_append(out, "\\\\"); break;
        case '\t': g_string_append(out, "\\t"); break;
        case '\n': g_string_append(out, "\\n"); break;
        case '\r': g_string_append(out, "\\r"); break;
        default: g_string_append_c(out, *s);
        }
    }
}

void store_copy_bytea(GString *out, const void *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *b = s;
    g_string_append(out, "\\\\x");
    for (size_t i = 0; i < len; i++) {
        g_string_append_c(out, hex[b[i] >> 4]);
        g_string_append_c(out, hex[b[i] & 15]);
    }
}

void store_copy_hex_bytea(GString *out, const char *hex)
{
    if (!hex || !*hex) {
        g_string_append(out, "\\N");
        return;
    }
    g_string_append(out, "\\\\x");
    g_string_append(out, hex);
}

static void col(GString *o) { g_string_append_c(o, '\t'); }
static void endrow(struct store_trace *t, enum store_table k)
{
    g_string_append_c(t->rows[k], '\n');
    t->nrows[k]++;
}

/* The SHA-256 of the file open at fd (from its start), hex; NULL on a read error. */
static char *hash_fd(int fd, int64_t *size)
{
    GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
    char buf[1 << 16];
    ssize_t n;
    *size = 0;
    while ((n = pread(fd, buf, sizeof buf, *size)) > 0) {
        g_checksum_update(c, (const guchar *)buf, (gssize)n);
        *size += n;
    }
    char *hex = n < 0 ? NULL : g_strdup(g_checksum_get_string(c));
    g_checksum_free(c);
    return hex;
}

int store_identity(const char *trace_path, char **hex)
{
    *hex = NULL;
    int fd = open(trace_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    struct stat st;
    int64_t size;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    *hex = hash_fd(fd, &size);
    close(fd);
    return *hex ? 0 : -EIO;
}

struct collector {
    struct store_trace *t;
    struct prov *p;
    GHashTable *contents; /* sha256 hex already sent */
    GHashTable *paths;    /* path already sent */
    GHashTable *versions; /* vid (int64 key owned by prov) already sent */
    GHashTable *owners;   /* path -> const struct dpkg_pkg* or NULL (looked up) */
    GHashTable *packages; /* struct dpkg_pkg* already sent -> its row's number + 1 */
    struct dpkgdb *db;
    const char *cwd;
    GHashTable *archive_syms; /* vid -> symbol set of a static archive, or NULL: unknown */
};

/* The content of version v while it is still the traced one, a regular file only (a FIFO or
 * device now at its path is never opened); NULL otherwise. */
static char *read_traced(const struct prov_version *v, gsize *len)
{
    struct stat st;
    const char *problem = NULL;
    if (!v->path || stat(v->path, &st) < 0 || !S_ISREG(st.st_mode))
        return NULL;
    return prov_read_version(v, len, &problem);
}

static GHashTable *name_set_new(void)
{
    return g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
}

/* The global symbols static archive `a` defines (empty: an empty archive), cached; NULL when
 * it cannot be read as it was traced. */
static GHashTable *archive_symbols(struct collector *c, const struct prov_version *a)
{
    gpointer found;
    if (g_hash_table_lookup_extended(c->archive_syms, &a->id, NULL, &found))
        return found;
    gsize len = 0;
    g_autofree char *data = read_traced(a, &len);
    GHashTable *set = data ? name_set_new() : NULL;
    if (set && objsyms_archive(data, len, set) < 0) {
        g_hash_table_destroy(set);
        set = NULL;
    }
    g_hash_table_insert(c->archive_syms, (gpointer)&a->id, set);
    return set;
}

/* Did the link that made `product` pull a member of archive `a` into it?  1: a symbol the
 * archive defines is defined in the product (or the product is itself an archive: it went
 * in), 0: the product's full symbol table has none of them (or the archive is empty), -1:
 * not checked (either file changed or gone since the build, or the product is stripped or
 * not ELF) — which keeps the archive counted as code, as `packages` does. */
static int archive_linked(struct collector *c, const struct prov_version *a,
                          const struct prov_version *product, GHashTable **product_syms,
                          int *product_kind)
{
    GHashTable *defs = archive_symbols(c, a);
    if (!defs)
        return -1;
    if (!g_hash_table_size(defs))
        return 0;
    if (!*product_syms) {
        *product_syms = name_set_new();
        gsize len = 0;
        g_autofree char *data = read_traced(product, &len);
        *product_kind = !data ? -1 : objsyms_is_archive(data, len) ? 3
                                                               : objsyms_elf(data, len, *product_syms);
    }
    if (*product_kind == 3)
        return 1;
    GHashTableIter it;
    gpointer k;
    g_hash_table_iter_init(&it, *product_syms);
    while (g_hash_table_iter_next(&it, &k, NULL))
        if (g_hash_table_contains(defs, k))
            return 1;
    return *product_kind == OBJSYMS_SYMTAB ? 0 : -1;
}

static void archive_set_free(gpointer p)
{
    if (p)
        g_hash_table_destroy(p);
}

static void add_path(struct collector *c, const char *path)
{
    if (!path || g_hash_table_contains(c->paths, path))
        return;
    g_hash_table_add(c->paths, g_strdup(path));
    store_copy_bytea(c->t->rows[ST_PATH], path, strlen(path));
    endrow(c->t, ST_PATH);
}

static void add_version(struct collector *c, const struct prov_version *v)
{
    if (g_hash_table_contains(c->versions, &v->id))
        return;
    g_hash_table_add(c->versions, (gpointer)&v->id);
    struct store_trace *t = c->t;
    if (v->sha256[0] && !g_hash_table_contains(c->contents, v->sha256)) {
        g_hash_table_add(c->contents, g_strdup(v->sha256));
        store_copy_hex_bytea(t->rows[ST_CONTENT], v->sha256);
        col(t->rows[ST_CONTENT]);
        if (v->size >= 0)
            g_string_append_printf(t->rows[ST_CONTENT], "%" G_GINT64_FORMAT, v->size);
        else
            g_string_append(t->rows[ST_CONTENT], "\\N");
        endrow(t, ST_CONTENT);
    }
    add_path(c, v->path);
    GString *o = t->rows[ST_VERSION];
    g_string_append_printf(o, "%" G_GINT64_FORMAT "\t", v->id);
    if (v->path)
        store_copy_bytea(o, v->path, strlen(v->path));
    else
        g_string_append(o, "\\N");
    col(o);
    store_copy_hex_bytea(o, v->sha256);
    col(o);
    if (v->size >= 0)
        g_string_append_printf(o, "%" G_GINT64_FORMAT, v->size);
    else
        g_string_append(o, "\\N");
    col(o);
    store_copy_text(o, prov_origin_name(v->origin));
    endrow(t, ST_VERSION);
}

/* The package owning `path` (outside the run's directory), sent once; NULL: none. */
static const struct dpkg_pkg *owner(struct collector *c, const char *path)
{
    if (!c->db || !path)
        return NULL;
    size_t cl = strlen(c->cwd);
    if (!strncmp(path, c->cwd, cl) && (path[cl] == '/' || !path[cl]))
        return NULL;
    gpointer found;
    if (g_hash_table_lookup_extended(c->owners, path, NULL, &found))
        return found;
    const struct dpkg_pkg *pkg = dpkgdb_owner(c->db, path);
    g_hash_table_insert(c->owners, g_strdup(path), (gpointer)pkg);
    if (pkg && !g_hash_table_contains(c->packages, pkg)) {
        int64_t n = c->t->nrows[ST_PACKAGE];
        g_hash_table_insert(c->packages, (gpointer)pkg, GSIZE_TO_POINTER((gsize)n + 1));
        GString *o = c->t->rows[ST_PACKAGE];
        g_string_append_printf(o, "%" G_GINT64_FORMAT "\t", n);
        store_copy_text(o, pkg->name);
        col(o);
        store_copy_text(o, pkg->version);
        col(o);
        store_copy_text(o, pkg->arch);
        col(o);
        store_copy_text(o, pkg->source);
        col(o);
        store_copy_text(o, pkg->source_version);
        endrow(c->t, ST_PACKAGE);
    }
    return pkg;
}

/* The number of package row `pkg` (sent by owner()), as the last column of a row. */
static void package_col(struct collector *c, GString *o, const struct dpkg_pkg *pkg)
{
    if (pkg)
        g_string_append_printf(o, "%" G_GSIZE_FORMAT,
                               GPOINTER_TO_SIZE(g_hash_table_lookup(c->packages, pkg)) - 1);
    else
        g_string_append(o, "\\N");
}

static void add_processes(struct collector *c, struct qdb *q)
{
    qdb_load_all(q);
    GHashTableIter it;
    gpointer value;
    GPtrArray *all = g_ptr_array_new();
    g_hash_table_iter_init(&it, q->processes);
    while (g_hash_table_iter_next(&it, NULL, &value))
        g_ptr_array_add(all, value);
    GHashTable *argvs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    struct store_trace *t = c->t;
    for (guint i = 0; i < all->len; i++) {
        const struct qdb_process *pr = all->pdata[i];
        g_autofree char *sha = NULL;
        if (pr->argv) {
            sha = g_compute_checksum_for_data(G_CHECKSUM_SHA256, (const guchar *)pr->argv,
                                              pr->argv_len);
            if (!g_hash_table_contains(argvs, sha)) {
                g_hash_table_add(argvs, g_strdup(sha));
                store_copy_hex_bytea(t->rows[ST_ARGV], sha);
                col(t->rows[ST_ARGV]);
                store_copy_bytea(t->rows[ST_ARGV], pr->argv, pr->argv_len);
                endrow(t, ST_ARGV);
            }
        }
        add_path(c, pr->exe);
        add_path(c, pr->cwd);
        GString *o = t->rows[ST_PROCESS];
        g_string_append_printf(o, "%" G_GINT64_FORMAT "\t", pr->id);
        if (pr->parent_id)
            g_string_append_printf(o, "%" G_GINT64_FORMAT, pr->parent_id);
        else
            g_string_append(o, "\\N");
        col(o);
        if (pr->prev_image_id)
            g_string_append_printf(o, "%" G_GINT64_FORMAT, pr->prev_image_id);
        else
            g_string_append(o, "\\N");
        col(o);
        store_copy_hex_bytea(o, sha);
        col(o);
        if (pr->exe)
            store_copy_bytea(o, pr->exe, strlen(pr->exe));
        else
            g_string_append(o, "\\N");
        col(o);
        if (pr->cwd)
            store_copy_bytea(o, pr->cwd, strlen(pr->cwd));
        else
            g_string_append(o, "\\N");
        col(o);
        if (pr->exited && pr->exit_code >= 0)
            g_string_append_printf(o, "%d", pr->exit_code);
        else
            g_string_append(o, "\\N");
        col(o);
        if (pr->exited && pr->exit_signal)
            g_string_append_printf(o, "%d", pr->exit_signal);
        else
            g_string_append(o, "\\N");
        endrow(t, ST_PROCESS);
    }
    g_hash_table_destroy(argvs);
    g_ptr_array_free(all, TRUE);
}

/* A product's rows of product_package: per package and role, how many of its leaves. */
static void add_product_packages(struct store_trace *t, int64_t product, GHashTable *per_package)
{
    GHashTableIter it;
    gpointer k, n;
    g_hash_table_iter_init(&it, per_package);
    while (g_hash_table_iter_next(&it, &k, &n)) {
        const char *tab = strchr(k, '\t');
        g_string_append_printf(t->rows[ST_PRODUCT_PACKAGE], "%" G_GINT64_FORMAT "\t", product);
        store_copy_text(t->rows[ST_PRODUCT_PACKAGE], tab + 1);
        g_string_append_printf(t->rows[ST_PRODUCT_PACKAGE], "\t%" G_GSIZE_FORMAT "\t%.*s",
                               GPOINTER_TO_SIZE(n), (int)(tab - (const char *)k),
                               (const char *)k);
        endrow(t, ST_PRODUCT_PACKAGE);
    }
}

/* Each product: its leaves (what the build did not make) with roles, the package owning each,
 * its licenses — one walk per product (closures_of: `inputs --leaves --roles`, with scripts,
 * stopping at shared libraries, the walk the licenses sort and the SBOM exports list) —; and
 * the one-step code
 * edges of every version the products' code closures pass through (their union in one walk),
 * so that a chain from a product to a leaf can be drawn. */
static void add_products(struct collector *c, struct qdb *q)
{
    struct prov *p = c->p;
    struct store_trace *t = c->t;
    struct closures *closures = closures_new(p); /* (loads the graph) */
    GPtrArray *products = prov_products(p);
    static const struct prov_walk_opts code = {.code_only = true, .stop_at_shlibs = true};
    static const struct prov_walk_opts step = {.code_only = true, .stop_at_shlibs = true,
                                               .max_depth = 1};
    GHashTable *lic_cache = licroll_cache_new();
    GArray *kept = g_array_new(FALSE, FALSE, sizeof(int64_t));
    /* the closures asked below, walked in the order that shares most (closures_plan) */
    for (guint i = 0; i < products->len; i++) {
        const struct prov_version *pv = products->pdata[i];
        if (!prov_made_by_configure(p, pv->id))
            g_array_append_val(kept, pv->id);
    }
    closures_plan(closures, (const int64_t *)(void *)kept->data, kept->len);
    g_array_set_size(kept, 0);
    for (guint i = 0; i < products->len && !qdb_failed(q); i++) {
        const struct prov_version *pv = products->pdata[i];
        if (prov_made_by_configure(p, pv->id))
            continue; /* config.log, conftest: the configure step's, not the build's */
        g_array_append_val(kept, pv->id);
        add_version(c, pv);
        GPtrArray *files = licroll_of_nodes(closures_of(closures, pv->id), lic_cache);
        GHashTable *product_syms = NULL;
        int product_kind = -1;
        /* "PACKAGE-ROW\tROLE" -> how many of the product's leaves */
        g_autoptr(GHashTable) per_package = g_hash_table_new_full(g_str_hash, g_str_equal,
                                                                   g_free, NULL);
        g_autofree char *rollup = licroll_rollup(files);
        int64_t leaves = t->nrows[ST_CLOSURE];
        for (guint k = 0; k < files->len; k++) {
            const struct lic_file *f = files->pdata[k];
            if (f->v->origin != TRACEDB_VERSION_FOUND || filekind_is_runtime_data(f->v->path))
                continue; /* a shared library the build made: its own leaves are listed */
            add_version(c, f->v);
            const struct dpkg_pkg *pkg = owner(c, f->v->path);
            GString *o = t->rows[ST_CLOSURE];
            g_string_append_printf(o, "%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t", pv->id,
                                   f->v->id);
            const char *role = f->cat == CAT_RUNTIME ? "runtime" : prov_role_name(f->role);
            /* a static archive nothing was linked from holds none of the product's code */
            if (f->role == PROV_ROLE_OBJECT && f->cat != CAT_RUNTIME &&
                g_str_has_suffix(f->v->path, ".a") &&
                archive_linked(c, f->v, pv, &product_syms, &product_kind) == 0)
                role = "unlinked-archive";
            store_copy_text(o, role);
            g_string_append_printf(o, "\t%s\t", f->guess ? "t" : "f");
            package_col(c, o, pkg);
            endrow(t, ST_CLOSURE);
            if (pkg) {
                g_autofree char *key = g_strdup_printf(
                    "%" G_GSIZE_FORMAT "\t%s",
                    GPOINTER_TO_SIZE(g_hash_table_lookup(c->packages, pkg)) - 1, role);
                gpointer n = g_hash_table_lookup(per_package, key);
                g_hash_table_insert(per_package, g_steal_pointer(&key),
                                    GSIZE_TO_POINTER(GPOINTER_TO_SIZE(n) + 1));
            }
        }
        add_product_packages(t, pv->id, per_package);
        g_string_append_printf(t->rows[ST_PRODUCT], "%" G_GINT64_FORMAT "\t", pv->id);
        store_copy_text(t->rows[ST_PRODUCT], rollup);
        g_string_append_printf(t->rows[ST_PRODUCT], "\t%" G_GINT64_FORMAT,
                               t->nrows[ST_CLOSURE] - leaves);
        endrow(t, ST_PRODUCT);
        g_ptr_array_free(files, TRUE);
        if (product_syms)
            g_hash_table_destroy(product_syms);
    }
    /* The edges: from every version the products are made of in code (and the products). */
    GArray *nodes = qdb_failed(q) ? g_array_new(FALSE, FALSE, sizeof(struct prov_node))
                                  : prov_inputs_of_all(p, kept, &code);
    GArray *todo = g_array_new(FALSE, FALSE, sizeof(int64_t));
    for (guint k = 0; k < nodes->len; k++) {
        const struct prov_node *n = &g_array_index(nodes, struct prov_node, k);
        if (n->v->origin != TRACEDB_VERSION_FOUND && (n->depth == 0 || n->role < PROV_ROLE_SHLIB))
            g_array_append_val(todo, n->v->id);
    }
    g_array_unref(nodes);
    for (guint i = 0; i < todo->len && !qdb_failed(q); i++) {
        int64_t vid = g_array_index(todo, int64_t, i);
        const struct prov_version *v = prov_version(p, vid);
        if (!v)
            continue;
        add_version(c, v);
        GArray *ins = prov_inputs(p, vid, &step);
        /* one edge per (vid, from): the least role name, as the store's key wants */
        g_autoptr(GHashTable) from = g_hash_table_new(g_int64_hash, g_int64_equal);
        GPtrArray *order = g_ptr_array_new();
        for (guint k = 0; k < ins->len; k++) {
            const struct prov_node *n = &g_array_index(ins, struct prov_node, k);
            if (n->depth != 1)
                continue;
            add_version(c, n->v);
            const char *role = prov_role_name(n->role), *had = g_hash_table_lookup(from, &n->v->id);
            if (!had)
                g_ptr_array_add(order, (gpointer)n->v);
            if (!had || strcmp(role, had) < 0)
                g_hash_table_insert(from, (gpointer)&n->v->id, (gpointer)role);
        }
        for (guint k = 0; k < order->len; k++) {
            const struct prov_version *fv = order->pdata[k];
            g_string_append_printf(t->rows[ST_EDGE], "%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t",
                                   vid, fv->id);
            store_copy_text(t->rows[ST_EDGE], g_hash_table_lookup(from, &fv->id));
            endrow(t, ST_EDGE);
        }
        g_ptr_array_free(order, TRUE);
        g_array_unref(ins);
    }
    g_array_unref(todo);
    g_array_unref(kept);
    g_hash_table_destroy(lic_cache);
    closures_free(closures);
    g_ptr_array_free(products, TRUE);
}

/* BUILDTRAIL_STORE_TEST_PAUSE=read:SECONDS (tests only): sleep with the trace open, before
 * its path is checked, after writing "pausing" to pause_fd. */
static void test_pause_read(int pause_fd)
{
    const char *v = getenv("BUILDTRAIL_STORE_TEST_PAUSE");
    if (!v || strncmp(v, "read:", 5))
        return;
    if (pause_fd >= 0 && write(pause_fd, "pausing\n", 8) < 0) {
        /* a test's pipe gone: nothing to tell */
    }
    sleep((unsigned)atoi(v + 5));
}

/* Whether the file open at fd is no longer as `was` found it (written, truncated). */
static bool changed_since(int fd, const struct stat *was)
{
    struct stat st;
    return fstat(fd, &st) < 0 || st.st_size != was->st_size ||
           st.st_mtim.tv_sec != was->st_mtim.tv_sec || st.st_mtim.tv_nsec != was->st_mtim.tv_nsec;
}

int store_collect(const char *trace_path, bool allow_incomplete, const char *admindir,
                  int pause_fd, struct store_trace **out, char **err)
{
    *out = NULL;
    *err = NULL;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* The identity is the bytes of the file the rows are read from: the file is opened (and
     * later hashed) through one descriptor, opened before the trace is, and the trace's path
     * must still name that file once it is open (a trace replaced in between is refused), and
     * the file must not have changed by the end (a finished trace is never written again;
     * one still being recorded is refused below). */
    int fd = open(trace_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        int r = fd < 0 ? -errno : -EINVAL;
        if (r != -ENOENT)
            *err = g_strdup_printf("cannot read %s: %s", trace_path, g_strerror(-r));
        if (fd >= 0)
            close(fd);
        return r;
    }
    struct qdb *q = NULL;
    int r = qdb_open(trace_path, &q, err);
    if (r < 0) {
        close(fd);
        return r;
    }
    test_pause_read(pause_fd);
    struct store_trace *t = g_new0(struct store_trace, 1);
    struct stat now;
    if (stat(trace_path, &now) < 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino) {
        *err = g_strdup_printf("the trace %s was replaced while it was being read; push it "
                               "again", trace_path);
        r = -ESTALE;
        goto fail;
    }
    t->identity = hash_fd(fd, &t->trace_size);
    const struct qdb_run *run = qdb_run(q);
    if (!t->identity) {
        *err = g_strdup_printf("cannot read %s", trace_path);
        r = -EIO;
        goto fail;
    }
    if (run->state == QDB_RUN_RECORDING) {
        *err = g_strdup("it is still being recorded");
        r = -EBUSY;
        goto fail;
    }
    if (!run->complete && !allow_incomplete) {
        *err = g_strdup(run->incomplete ? run->incomplete : "incomplete");
        r = -EAGAIN;
        goto fail;
    }
    char *abs = realpath(trace_path, NULL);
    t->trace_path = abs ? g_strdup(abs) : qdb_absolute_path(trace_path);
    free(abs);
    t->state = g_strdup(qdb_run_state_name(run->state));
    t->complete = run->complete;
    t->incomplete = g_strdup(run->incomplete);
    t->started_ns = run->start_realtime_ns;
    t->finished_ns = run->end_realtime_ns;
    t->exit_status = run->exit_status;
    struct qdb_run_info ri = {0};
    qdb_load_run_info(q, &ri);
    t->hostname = g_strdup(ri.hostname);
    t->cwd = g_strdup(ri.cwd ? ri.cwd : run->cwd);
    t->version = g_strdup(ri.version);
    if (ri.argv) {
        t->argv = g_memdup2(ri.argv, ri.argv_len + 1);
        t->argv_len = ri.argv_len;
    }
    qdb_run_info_clear(&ri);
    for (int k = 0; k < ST_COUNT; k++)
        t->rows[k] = g_string_sized_new(4096);

    struct collector c = {
        .t = t,
        .contents = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .versions = g_hash_table_new(g_int64_hash, g_int64_equal),
        .owners = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
        .packages = g_hash_table_new(g_direct_hash, g_direct_equal),
        .archive_syms = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                              archive_set_free),
        .cwd = t->cwd ? t->cwd : "/",
    };
    if (admindir && dpkgdb_load(admindir, &c.db) < 0)
        c.db = NULL;
    if (c.db)
        t->packages_from = g_strdup_printf("%s:%s", g_get_host_name(), admindir);
    add_processes(&c, q);
    c.p = prov_new(q);
    if (c.p) {
        add_products(&c, q);
        prov_free(c.p);
    }
    dpkgdb_free(c.db);
    g_hash_table_destroy(c.contents);
    g_hash_table_destroy(c.paths);
    g_hash_table_destroy(c.versions);
    g_hash_table_destroy(c.owners);
    g_hash_table_destroy(c.packages);
    g_hash_table_destroy(c.archive_syms);
    if (qdb_failed(q)) {
        *err = g_strdup(qdb_error(q));
        r = -EINVAL;
        goto fail;
    }
    if (!c.p) {
        *err = g_strdup_printf("the trace %s has no file versions (recorded before schema 3); "
                               "record the build again", trace_path);
        r = -EINVAL;
        goto fail;
    }
    if (changed_since(fd, &st)) {
        *err = g_strdup_printf("the trace %s changed while it was being read; push it again",
                               trace_path);
        r = -ESTALE;
        goto fail;
    }
    close(fd);
    qdb_close(q);
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    t->collect_seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    *out = t;
    return 0;
fail:
    close(fd);
    qdb_close(q);
    store_trace_free(t);
    return r;
}

void store_trace_free(struct store_trace *t)
{
    if (!t)
        return;
    g_free(t->identity);
    g_free(t->trace_path);
    g_free(t->state);
    g_free(t->incomplete);
    g_free(t->hostname);
    g_free(t->cwd);
    g_free(t->version);
    g_free(t->argv);
    g_free(t->packages_from);
    for (int k = 0; k < ST_COUNT; k++)
        if (t->rows[k])
            g_string_free(t->rows[k], TRUE);
    g_free(t);
}
