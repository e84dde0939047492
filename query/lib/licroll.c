/* licroll — the licenses of what one built file incorporates (contract in licroll.h). */
#include "licroll.h"

#include "closures.h"

#include "filekind.h"
#include "licdetect.h"
#include "tracedb.h"

#include <string.h>

const char *const lic_cat_titles[CAT_COUNT] = {
    "incorporated (compiled sources and project headers)",
    "toolchain runtime (linked under its license exception)",
    "prebuilt objects and archives linked in",
    "system headers (interfaces, not counted)",
    "shared libraries (linked dynamically, not incorporated)",
    "executed tools",
    "build scripts",
    "other inputs",
};
const char *const lic_cat_names[CAT_COUNT] = {
    "incorporated", "toolchain-runtime", "prebuilt-object", "system-header", "dynamic",
    "tool", "script", "other",
};

static bool is_system(const char *path)
{
    static char usr[] = "/usr", etc[] = "/etc", opt[] = "/opt", lib[] = "/lib", lib64[] = "/lib64";
    char *const sys[] = {usr, etc, opt, lib, lib64, NULL};
    return prov_path_under(path, sys);
}

static enum lic_category categorise(const struct prov_node *n)
{
    const char *path = n->v->path;
    switch (n->role) {
    case PROV_ROLE_SOURCE:
        return CAT_INCORPORATED;
    case PROV_ROLE_HEADER:
        return is_system(path) ? CAT_SYSTEM_HEADER : CAT_INCORPORATED;
    case PROV_ROLE_OBJECT:
        if (n->v->size >= 0 && n->v->size <= 8)
            return CAT_OTHER; /* an empty archive ("!<arch>\n": glibc's libpthread.a) */
        return filekind_toolchain_runtime(path) ? CAT_RUNTIME : CAT_OBJECT;
    case PROV_ROLE_COPY: /* the product carries its content: a copy, a stripped binary */
        return filekind_toolchain_runtime(path) ? CAT_RUNTIME : CAT_INCORPORATED;
    case PROV_ROLE_GENERATED: /* a generator's input: its text went into generated code */
        return is_system(path) ? CAT_OTHER : CAT_INCORPORATED;
    case PROV_ROLE_SHLIB:
        return CAT_DYNAMIC;
    case PROV_ROLE_TOOL:
        return CAT_TOOL;
    case PROV_ROLE_SCRIPT:
        return CAT_SCRIPT;
    default:
        return CAT_OTHER;
    }
}

/* The file named `name` in `dir` on disk, its case ignored (a notice's "see the file COPYING"
 * is read in lower case): the exact name first, else the first entry that matches.  NULL when
 * there is none. */
static char *beside_on_disk(const char *dir, const char *name)
{
    char *exact = g_build_filename(dir, name, NULL);
    if (g_file_test(exact, G_FILE_TEST_EXISTS))
        return exact;
    g_free(exact);
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *e;
    char *found = NULL;
    while (d && !found && (e = g_dir_read_name(d)))
        if (!g_ascii_strcasecmp(e, name))
            found = g_build_filename(dir, e, NULL);
    if (d)
        g_dir_close(d);
    return found;
}

static void detect(struct lic_file *f, GPtrArray *all)
{
    gsize len = 0;
    g_autofree char *text = prov_read_version(f->v, &len, &f->problem);
    if (!text)
        return;
    f->license = lic_detect(text, len);
    if (f->license)
        return;
    g_autofree char *ref = lic_reference(text, len);
    if (!ref)
        return;
    /* The referenced file: in the closure (same directory first), else beside this one. */
    g_autofree char *dir = g_path_get_dirname(f->v->path);
    g_autofree char *beside = g_build_filename(dir, ref, NULL);
    char *target = NULL;
    for (guint i = 0; i < all->len && !target; i++) {
        const struct lic_file *o = all->pdata[i];
        if (!g_ascii_strcasecmp(o->v->path, beside))
            target = g_strdup(o->v->path);
    }
    for (guint i = 0; i < all->len && !target; i++) {
        const struct lic_file *o = all->pdata[i];
        g_autofree char *b = g_path_get_basename(o->v->path);
        if (!g_ascii_strcasecmp(b, ref))
            target = g_strdup(o->v->path);
    }
    if (!target)
        target = beside_on_disk(dir, ref);
    if (!target)
        return;
    char *other = NULL;
    gsize olen = 0;
    /* (a FIFO or a device there, /dev/zero through a link, is not read) */
    if ((other = prov_read_regular_file(target, &olen))) {
        f->license = lic_detect(other, olen);
        g_free(other);
    }
    if (f->license)
        f->via = target;
    else
        g_free(target);
}

static void free_file(gpointer p)
{
    struct lic_file *f = p;
    g_free(f->license);
    g_free(f->via);
    g_free(f->declared);
    g_free(f);
}

/* A cached detection: what detect() found for one version. */
struct detection {
    char *license, *via;
    const char *problem;
};

static void free_detection(gpointer p)
{
    struct detection *d = p;
    g_free(d->license);
    g_free(d->via);
    g_free(d);
}

GHashTable *licroll_cache_new(void)
{
    return g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, free_detection);
}

static void detect_cached(struct lic_file *f, GPtrArray *all, GHashTable *cache)
{
    struct detection *d = cache ? g_hash_table_lookup(cache, &f->v->id) : NULL;
    if (!d) {
        detect(f, all);
        if (!cache)
            return;
        d = g_new0(struct detection, 1);
        d->license = g_strdup(f->license);
        d->via = g_strdup(f->via);
        d->problem = f->problem;
        g_hash_table_insert(cache, (gpointer)&f->v->id, d); /* the key lives in the prov */
        return;
    }
    f->license = g_strdup(d->license);
    f->via = g_strdup(d->via);
    f->problem = d->problem;
}

GPtrArray *licroll_closure(struct prov *p, int64_t vid, GHashTable *cache)
{
    GArray *nodes = prov_inputs(p, vid, &closures_walk);
    GPtrArray *files = licroll_of_nodes(nodes, cache);
    g_array_unref(nodes);
    return files;
}

GPtrArray *licroll_of_nodes(const GArray *nodes, GHashTable *cache)
{
    GPtrArray *files = g_ptr_array_new_with_free_func(free_file);
    for (guint i = 0; i < nodes->len; i++) {
        const struct prov_node *n = &g_array_index(nodes, struct prov_node, i);
        /* What the build made is not a source: its own inputs are in the closure.  Shared
         * libraries are listed whoever made them: the closure stops at them. */
        if (n->v->origin != TRACEDB_VERSION_FOUND && n->role != PROV_ROLE_SHLIB)
            continue;
        struct lic_file *f = g_new0(struct lic_file, 1);
        f->v = n->v;
        f->role = n->role;
        f->guess = n->guess;
        f->cat = categorise(n);
        if (f->cat == CAT_RUNTIME)
            f->license = g_strdup(filekind_toolchain_runtime(n->v->path));
        g_ptr_array_add(files, f);
    }
    for (guint i = 0; i < files->len; i++) {
        struct lic_file *f = files->pdata[i];
        if (f->cat == CAT_INCORPORATED || f->cat == CAT_SYSTEM_HEADER || f->cat == CAT_SCRIPT)
            detect_cached(f, files, cache);
    }
    return files;
}

char *licroll_rollup(GPtrArray *files)
{
    GPtrArray *exprs = g_ptr_array_new();
    for (guint i = 0; i < files->len; i++) {
        const struct lic_file *f = files->pdata[i];
        if (f->cat == CAT_INCORPORATED && f->license)
            g_ptr_array_add(exprs, f->license);
    }
    char *r = lic_and_all((const char *const *)exprs->pdata, exprs->len);
    g_ptr_array_free(exprs, TRUE);
    return r;
}

const char *licroll_cached(GHashTable *cache, int64_t vid, bool *looked)
{
    const struct detection *d = g_hash_table_lookup(cache, &vid);
    *looked = d != NULL;
    return d ? d->license : NULL;
}
