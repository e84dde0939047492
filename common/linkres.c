/* linkres — see linkres.h. */
#include "linkres.h"

#include "paths.h"

#include <glib.h>
#include <string.h>
#include <sys/stat.h>

#define LINKS_MAX 40 /* symlinks followed for one path, as the kernel's limit */

struct linkres {
    linkres_crossed_fn crossed;
    void *data;
    GHashTable *seen; /* directory -> where it leads */
};

struct linkres *linkres_new(linkres_crossed_fn crossed, void *data)
{
    struct linkres *r = g_new0(struct linkres, 1);
    r->crossed = crossed;
    r->data = data;
    r->seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    return r;
}

void linkres_free(struct linkres *r)
{
    if (!r)
        return;
    g_hash_table_destroy(r->seen);
    g_free(r);
}

static const char *resolve_dir(struct linkres *r, const char *path, int links);

/* Where `path` leads, `links` followed so far. */
static char *resolve_name(struct linkres *r, const char *path, int links, bool *is_dir)
{
    if (!strcmp(path, "/"))
        return g_strdup("/");
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    const char *rdir = resolve_dir(r, dir, links);
    char *at = g_build_filename(rdir, base, NULL);
    struct stat st;
    bool found = lstat(at, &st) == 0;
    if (is_dir)
        *is_dir = found && S_ISDIR(st.st_mode);
    if (links >= LINKS_MAX || !found || !S_ISLNK(st.st_mode))
        return at;
    g_autofree char *target = g_file_read_link(at, NULL);
    if (!target)
        return at;
    if (r->crossed)
        r->crossed(at, r->data);
    g_autofree char *next = path_absolute_in(rdir, target);
    g_free(at);
    return g_strdup(resolve_dir(r, next, links + 1));
}

/* resolve_name() of a directory, each answer kept. */
static const char *resolve_dir(struct linkres *r, const char *path, int links)
{
    const char *known = g_hash_table_lookup(r->seen, path);
    if (known)
        return known;
    char *to = resolve_name(r, path, links, NULL);
    g_hash_table_insert(r->seen, g_strdup(path), to);
    return to;
}

char *linkres_resolve(struct linkres *r, const char *path, bool *is_dir)
{
    return resolve_name(r, path, 0, is_dir);
}

char *linkres_target(struct linkres *r, const char *path, const char *root, bool *is_dir)
{
    char *real = resolve_name(r, path, 0, is_dir);
    if (strcmp(real, path) && path_is_under(real, root))
        return real;
    g_free(real);
    return NULL;
}
