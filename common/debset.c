/* debset — see debset.h. */
#include "debset.h"

#include "debdeps.h"
#include "dpkgdb.h"

#include <errno.h>
#include <glib.h>
#include <string.h>

struct debset {
    struct dpkgdb *db;
    GHashTable *names;     /* the set: package name (owned) */
    GHashTable *providers; /* virtual name -> GPtrArray of package names (borrowed), sorted */
};

static gint by_name(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct debset *debset_new(struct dpkgdb *db)
{
    struct debset *s = g_new0(struct debset, 1);
    s->db = db;
    s->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    s->providers = g_hash_table_new_full(g_str_hash, g_str_equal, NULL,
                                         (GDestroyNotify)g_ptr_array_unref);
    const GPtrArray *pkgs = dpkgdb_packages(db);
    for (guint i = 0; i < pkgs->len; i++) {
        const struct dpkg_pkg *k = pkgs->pdata[i];
        for (char **p = k->provides; *p; p++) {
            GPtrArray *l = g_hash_table_lookup(s->providers, *p);
            if (!l) {
                l = g_ptr_array_new();
                g_hash_table_insert(s->providers, *p, l);
            }
            g_ptr_array_add(l, k->name);
        }
    }
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, s->providers);
    while (g_hash_table_iter_next(&it, NULL, &v))
        g_ptr_array_sort(v, by_name);
    return s;
}

void debset_free(struct debset *s)
{
    if (!s)
        return;
    g_hash_table_destroy(s->providers);
    g_hash_table_destroy(s->names);
    g_free(s);
}

/* The installed package that satisfies `name`: itself, else a provider already in the set,
 * else the first provider by name; NULL when nothing installed does. */
static const char *satisfier(const struct debset *s, const char *name)
{
    if (dpkgdb_package(s->db, name))
        return name;
    const GPtrArray *l = g_hash_table_lookup(s->providers, name);
    if (!l || !l->len)
        return NULL;
    for (guint i = 0; i < l->len; i++)
        if (g_hash_table_contains(s->names, l->pdata[i]))
            return l->pdata[i];
    return l->pdata[0];
}

/* The clause's alternatives that apply, as "a | b". */
static char *clause_text(const struct debdep_clause *c, const char *arch,
                         const char *const *profiles)
{
    GString *t = g_string_new(NULL);
    for (guint a = 0; a < c->alts->len; a++) {
        const struct debdep_alt *alt = c->alts->pdata[a];
        if (arch && !debdeps_applies(alt, arch, profiles))
            continue;
        g_string_append_printf(t, "%s%s", t->len ? " | " : "", alt->name);
        if (alt->archqual)
            g_string_append_printf(t, ":%s", alt->archqual);
        if (alt->op)
            g_string_append_printf(t, " (%s %s)", alt->op, alt->version);
    }
    return g_string_free(t, FALSE);
}

/* Add what `text`'s clauses resolve to.  `strict`: a clause nothing installed satisfies is an
 * error (-ENOENT, *missing); otherwise it is skipped. */
static int add_clauses(struct debset *s, const char *text, const char *arch,
                       const char *const *profiles, bool strict, char **missing)
{
    GPtrArray *clauses = debdeps_parse(text, strlen(text));
    int r = 0;
    for (guint i = 0; i < clauses->len && !r; i++) {
        const struct debdep_clause *c = clauses->pdata[i];
        bool applies = false;
        const char *got = NULL;
        for (guint a = 0; a < c->alts->len && !got; a++) {
            const struct debdep_alt *alt = c->alts->pdata[a];
            if (arch && !debdeps_applies(alt, arch, profiles))
                continue;
            applies = true;
            got = satisfier(s, alt->name);
            /* The relations given: the version too, when the package itself is the answer
             * (a provider's version is not the virtual package's). */
            const struct dpkg_pkg *k = got && strict && alt->op ? dpkgdb_package(s->db, got)
                                                                : NULL;
            if (k && !strcmp(k->name, alt->name) &&
                !debdeps_version_satisfies(k->version, alt->op, alt->version))
                got = NULL;
            /* "libc6:i386": that architecture's package ("any" and "native" take any). */
            if (got && strict && alt->archqual && strcmp(alt->archqual, "any") &&
                strcmp(alt->archqual, "native") && !strcmp(got, alt->name)) {
                g_autofree char *q = g_strdup_printf("%s:%s", alt->name, alt->archqual);
                if (!dpkgdb_package(s->db, q))
                    got = NULL;
            }
        }
        if (got)
            g_hash_table_add(s->names, g_strdup(got));
        else if (applies && strict) {
            if (missing)
                *missing = clause_text(c, arch, profiles);
            r = -ENOENT;
        }
    }
    g_ptr_array_free(clauses, TRUE);
    return r;
}

int debset_add_relations(struct debset *s, const char *text, const char *arch,
                         const char *const *profiles, char **missing)
{
    /* A list of bare names ("a b,c"): one clause each. */
    g_autofree char *owned = NULL;
    if (!strpbrk(text, "|([<")) {
        g_auto(GStrv) words = g_strsplit_set(text, ", \t\n\r", -1);
        GString *list = g_string_new(NULL);
        for (char **w = words; *w; w++)
            if (**w)
                g_string_append_printf(list, "%s%s", list->len ? ", " : "", *w);
        owned = g_string_free(list, FALSE);
        text = owned;
    }
    return add_clauses(s, text, arch, profiles, true, missing);
}

void debset_add_base(struct debset *s)
{
    const GPtrArray *pkgs = dpkgdb_packages(s->db);
    for (guint i = 0; i < pkgs->len; i++) {
        const struct dpkg_pkg *k = pkgs->pdata[i];
        if (k->essential || k->required)
            g_hash_table_add(s->names, g_strdup(k->name));
    }
    const char *base = dpkgdb_package(s->db, "build-essential")
                           ? "build-essential, fakeroot, apt"
                           : "libc6-dev | libc-dev, gcc, g++, make, dpkg-dev, fakeroot, apt";
    add_clauses(s, base, NULL, NULL, false, NULL);
}

void debset_close(struct debset *s)
{
    GPtrArray *todo = g_ptr_array_new_with_free_func(g_free);
    GHashTable *done = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    for (;;) {
        /* The names not yet expanded; expanding adds more, until none is left. */
        GHashTableIter it;
        gpointer key;
        g_hash_table_iter_init(&it, s->names);
        while (g_hash_table_iter_next(&it, &key, NULL))
            if (!g_hash_table_contains(done, key))
                g_ptr_array_add(todo, g_strdup(key));
        if (!todo->len)
            break;
        /* in name order: which provider a virtual package gets can hang on what an earlier
         * name brought in, so never the table's (hash) order */
        g_ptr_array_sort(todo, by_name);
        for (guint i = 0; i < todo->len; i++) {
            const char *name = todo->pdata[i];
            g_hash_table_add(done, g_strdup(name));
            const struct dpkg_pkg *k = dpkgdb_package(s->db, name);
            if (k && *k->depends_field)
                add_clauses(s, k->depends_field, NULL, NULL, false, NULL);
        }
        g_ptr_array_set_size(todo, 0);
    }
    g_hash_table_destroy(done);
    g_ptr_array_free(todo, TRUE);
}

int debset_resolve(struct debset *s, const char *text, const char *arch,
                   const char *const *profiles, char **missing)
{
    debset_add_base(s);
    debset_close(s);
    int r = debset_add_relations(s, text, arch, profiles, missing);
    if (r == 0)
        debset_close(s);
    return r;
}

bool debset_has(const struct debset *s, const char *package)
{
    return g_hash_table_contains(s->names, package);
}

unsigned debset_size(const struct debset *s)
{
    return g_hash_table_size(s->names);
}
