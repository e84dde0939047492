/* dpkgdb — see dpkgdb.h for the contract. */
#include "dpkgdb.h"

#include "debdeps.h"
#include "lines.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

struct dpkgdb {
    GPtrArray *pkgs;     /* struct dpkg_pkg* (owned) */
    GHashTable *by_name; /* "name" and "name:arch" -> struct dpkg_pkg* */
    GHashTable *owner;   /* path -> struct dpkg_pkg*, filled on the first dpkgdb_owner() */
    bool owners_loaded;
    GHashTable *diverted; /* FROM -> GStrv {TO, diverting package or ":"}; NULL: none read */
    char *admindir;
};

void dpkg_pkg_free(gpointer p)
{
    struct dpkg_pkg *k = p;
    if (!k)
        return;
    g_free(k->name);
    g_free(k->arch);
    g_free(k->version);
    g_free(k->source);
    g_free(k->source_version);
    g_strfreev(k->provides);
    g_strfreev(k->depends);
    g_free(k->depends_field);
    g_free(k);
}

/* One field's value (a single line; continuation lines are not needed for these fields). */
static char *field(const char *line, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (len <= n || g_ascii_strncasecmp(line, name, n) || line[n] != ':')
        return NULL;
    size_t i = n + 1;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    size_t end = len;
    while (end > i && (line[end - 1] == ' ' || line[end - 1] == '\r'))
        end--;
    return g_strndup(line + i, end - i);
}

/* The package names of a relationship field, each once (NULL-terminated). */
static char **relation_names(const GString *field)
{
    GPtrArray *names = g_ptr_array_new();
    GPtrArray *clauses = debdeps_parse(field->str, field->len);
    for (guint i = 0; i < clauses->len; i++) {
        const struct debdep_clause *c = clauses->pdata[i];
        for (guint a = 0; a < c->alts->len; a++) {
            const char *n = ((const struct debdep_alt *)c->alts->pdata[a])->name;
            bool dup = false;
            for (guint j = 0; j < names->len && !dup; j++)
                dup = !strcmp(names->pdata[j], n);
            if (!dup)
                g_ptr_array_add(names, g_strdup(n));
        }
    }
    g_ptr_array_free(clauses, TRUE);
    g_ptr_array_add(names, NULL);
    return (char **)g_ptr_array_free(names, FALSE);
}

/* The relationship fields kept, with continuation lines folded. */
enum { REL_PROVIDES, REL_DEPENDS, REL_N };
static const char *const rel_fields[][3] = {{"Provides", NULL}, {"Depends", "Pre-Depends", NULL}};

static void finish(struct dpkg_pkg *k, bool installed, GString *const *rel, GPtrArray *pkgs)
{
    if (!k->name || !*k->name || !installed) {
        dpkg_pkg_free(k);
        return;
    }
    k->provides = relation_names(rel[REL_PROVIDES]);
    k->depends = relation_names(rel[REL_DEPENDS]);
    k->depends_field = g_strdup(rel[REL_DEPENDS]->str);
    if (!k->version)
        k->version = g_strdup("");
    if (!k->arch)
        k->arch = g_strdup("");
    if (k->source) {
        /* "name" or "name (version)" */
        char *paren = strchr(k->source, '(');
        if (paren) {
            char *close = strchr(paren, ')');
            k->source_version = g_strndup(paren + 1, close ? (size_t)(close - paren - 1)
                                                           : strlen(paren + 1));
            *paren = '\0';
            g_strstrip(k->source);
        }
        if (!*k->source) {
            g_free(k->source);
            k->source = NULL;
        }
    }
    if (!k->source)
        k->source = g_strdup(k->name);
    if (!k->source_version)
        k->source_version = g_strdup(k->version);
    g_ptr_array_add(pkgs, k);
}

void dpkg_parse_status(const char *text, size_t len, GPtrArray *pkgs)
{
    struct dpkg_pkg *k = g_new0(struct dpkg_pkg, 1);
    bool installed = false;
    int in_rel = -1; /* the relationship field a continuation line belongs to */
    GString *rel[REL_N];
    for (int r = 0; r < REL_N; r++)
        rel[r] = g_string_new(NULL);
    struct lines it = {text, len, 0};
    const char *line;
    size_t l;
    while (lines_next(&it, &line, &l)) {
        if (l == 0 || (l == 1 && line[0] == '\r')) {
            /* A blank line ends a stanza. */
            finish(k, installed, rel, pkgs);
            k = g_new0(struct dpkg_pkg, 1);
            installed = false;
            in_rel = -1;
            for (int r = 0; r < REL_N; r++)
                g_string_truncate(rel[r], 0);
            continue;
        }
        if (memchr(line, '\0', l))
            continue; /* not text */
        char *v;
        if (line[0] == ' ' || line[0] == '\t') {
            if (in_rel >= 0) /* a continuation line */
                g_string_append_len(g_string_append_c(rel[in_rel], ' '), line, l);
            continue;
        }
        in_rel = -1;
        for (int r = 0; r < REL_N && in_rel < 0; r++)
            for (const char *const *f = rel_fields[r]; *f && in_rel < 0; f++)
                if ((v = field(line, l, *f))) {
                    g_string_append(g_string_append(rel[r], rel[r]->len ? ", " : ""), v);
                    g_free(v);
                    in_rel = r;
                }
        if (in_rel >= 0)
            continue;
        if ((v = field(line, l, "Package"))) {
            g_free(k->name);
            k->name = v;
        } else if ((v = field(line, l, "Architecture"))) {
            g_free(k->arch);
            k->arch = v;
        } else if ((v = field(line, l, "Version"))) {
            g_free(k->version);
            k->version = v;
        } else if ((v = field(line, l, "Source"))) {
            g_free(k->source);
            k->source = v;
        } else if ((v = field(line, l, "Essential"))) {
            k->essential = !g_ascii_strcasecmp(v, "yes");
            g_free(v);
        } else if ((v = field(line, l, "Priority"))) {
            k->required = !g_ascii_strcasecmp(v, "required");
            g_free(v);
        } else if ((v = field(line, l, "Status"))) {
            /* "WANT FLAG STATE": installed whatever is wanted of it (install, hold,
             * deinstall: still there until it is removed); a package whose triggers are
             * pending or awaited is configured, as dpkg counts it for Depends. */
            installed = g_str_has_suffix(v, " installed") ||
                        g_str_has_suffix(v, " triggers-pending") ||
                        g_str_has_suffix(v, " triggers-awaited");
            g_free(v);
        }
    }
    finish(k, installed, rel, pkgs);
    for (int r = 0; r < REL_N; r++)
        g_string_free(rel[r], TRUE);
}

struct dpkgdb *dpkgdb_from_status(const char *text, size_t len)
{
    struct dpkgdb *db = g_new0(struct dpkgdb, 1);
    db->pkgs = g_ptr_array_new_with_free_func(dpkg_pkg_free);
    db->by_name = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    db->owner = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    dpkg_parse_status(text, len, db->pkgs);
    for (guint i = 0; i < db->pkgs->len; i++) {
        struct dpkg_pkg *k = db->pkgs->pdata[i];
        g_hash_table_insert(db->by_name, g_strdup_printf("%s:%s", k->name, k->arch), k);
        if (!g_hash_table_contains(db->by_name, k->name))
            g_hash_table_insert(db->by_name, g_strdup(k->name), k);
    }
    return db;
}

/* ADMINDIR/diversions, three lines per diversion (none when it cannot be read). */
static void read_diversions(struct dpkgdb *db)
{
    g_autofree char *path = g_build_filename(db->admindir, "diversions", NULL);
    g_autofree char *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return;
    db->diverted = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify)g_strfreev);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i] && lines[i + 1] && lines[i + 2]; i += 3) {
        char **v = g_new0(char *, 3);
        v[0] = g_strdup(lines[i + 1]);
        v[1] = g_strdup(lines[i + 2]);
        g_hash_table_replace(db->diverted, g_strdup(lines[i]), v);
    }
}

const char *dpkgdb_diverted(struct dpkgdb *db, const char *path, const char *package)
{
    char **v = db->diverted ? g_hash_table_lookup(db->diverted, path) : NULL;
    return v && strcmp(v[1], package) ? v[0] : NULL;
}

int dpkgdb_load(const char *admindir, struct dpkgdb **out)
{
    g_autofree char *status = g_build_filename(admindir, "status", NULL);
    g_autofree char *text = NULL;
    gsize len = 0;
    if (!g_file_get_contents(status, &text, &len, NULL))
        return -ENOENT;
    struct dpkgdb *db = dpkgdb_from_status(text, len);
    db->admindir = g_strdup(admindir);
    read_diversions(db);
    *out = db;
    return 0;
}

/* Every installed package's file list into db->owner (the first lister of a path owns it),
 * on the first question: `run --only-packages` reads the lists itself and never asks. */
static gint by_list_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void load_owners(struct dpkgdb *db)
{
    if (db->owners_loaded || !db->admindir)
        return;
    db->owners_loaded = true;
    g_autofree char *info = g_build_filename(db->admindir, "info", NULL);
    /* the lists by name: a path several list (a directory; both architectures' copyright)
     * is the first's, never the directory's order (a hash's, on ext4) */
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
    GDir *dir = g_dir_open(info, 0, NULL);
    for (const char *n; dir && (n = g_dir_read_name(dir));)
        if (g_str_has_suffix(n, ".list"))
            g_ptr_array_add(names, g_strdup(n));
    if (dir)
        g_dir_close(dir);
    g_ptr_array_sort(names, by_list_name);
    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        g_autofree char *pkgname = g_strndup(name, strlen(name) - 5);
        struct dpkg_pkg *k = g_hash_table_lookup(db->by_name, pkgname);
        if (!k)
            continue;
        g_autofree char *listpath = g_build_filename(info, name, NULL);
        g_autofree char *list = NULL;
        gsize ll = 0;
        if (!g_file_get_contents(listpath, &list, &ll, NULL))
            continue;
        char *save = NULL;
        for (char *p = strtok_r(list, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
            if (p[0] == '/' && !g_hash_table_contains(db->owner, p))
                g_hash_table_insert(db->owner, g_strdup(p), k);
    }
}

const struct dpkg_pkg *dpkgdb_owner(struct dpkgdb *db, const char *path)
{
    load_owners(db);
    const struct dpkg_pkg *k = g_hash_table_lookup(db->owner, path);
    if (k)
        return k;
    /* Merged /usr: /bin, /sbin and /lib* are links into /usr, and dpkg lists either form. */
    static const char *const merged[] = {"/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/",
                                         "/libx32/", NULL};
    for (const char *const *m = merged; *m; m++) {
        if (g_str_has_prefix(path, "/usr") && g_str_has_prefix(path + 4, *m))
            return g_hash_table_lookup(db->owner, path + 4);
        if (g_str_has_prefix(path, *m)) {
            g_autofree char *u = g_strconcat("/usr", path, NULL);
            return g_hash_table_lookup(db->owner, u);
        }
    }
    return NULL;
}

const struct dpkg_pkg *dpkgdb_package(struct dpkgdb *db, const char *name)
{
    return g_hash_table_lookup(db->by_name, name);
}

const GPtrArray *dpkgdb_packages(struct dpkgdb *db)
{
    return db->pkgs;
}

int dpkgdb_each_listed(struct dpkgdb *db, const struct dpkg_pkg *k,
                       void (*fn)(const char *path, void *data), void *data)
{
    if (!db->admindir)
        return 0; /* made from a status text: no lists */
    g_autofree char *info = g_build_filename(db->admindir, "info", NULL);
    g_autofree char *qualified = g_strdup_printf("%s/%s:%s.list", info, k->name, k->arch);
    g_autofree char *plain = g_strdup_printf("%s/%s.list", info, k->name);
    g_autofree char *list = NULL;
    gsize len = 0;
    GError *err = NULL;
    if (!g_file_get_contents(qualified, &list, &len, NULL) &&
        !g_file_get_contents(plain, &list, &len, &err)) {
        int r = g_error_matches(err, G_FILE_ERROR, G_FILE_ERROR_NOENT) ? 0 : -EIO;
        g_error_free(err);
        return r;
    }
    char *save = NULL;
    for (char *p = strtok_r(list, "\n", &save); p; p = strtok_r(NULL, "\n", &save))
        if (p[0] == '/')
            fn(p, data);
    return 0;
}

const char *dpkgdb_native_arch(struct dpkgdb *db)
{
    const struct dpkg_pkg *d = g_hash_table_lookup(db->by_name, "dpkg");
    return d && *d->arch ? d->arch : NULL;
}

void dpkgdb_free(struct dpkgdb *db)
{
    if (!db)
        return;
    g_hash_table_destroy(db->owner);
    if (db->diverted)
        g_hash_table_destroy(db->diverted);
    g_hash_table_destroy(db->by_name);
    g_ptr_array_free(db->pkgs, TRUE);
    g_free(db->admindir);
    g_free(db);
}
