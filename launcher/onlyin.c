/* onlyin — see onlyin.h. */
#include "onlyin.h"

#include "gate.h"
#include "paths.h"
#include "plan.h"
#include "textout.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define MANIFEST_MAX (256u << 20)
#define LINKS_MAX 40 /* symlinks followed for one path, as the kernel's limit */

static const char *resolve(struct gate *g, GHashTable *seen, const char *path, int links);

/* Where absolute, normalised `path` leads, its symlinks followed (every one crossed declared,
 * so that the kernel may follow it), its directory resolved through `seen`; a part that
 * cannot be looked at is taken as it is.  A new string; *is_dir (if given): `path` itself is
 * a directory, not a symlink (`git ls-files` lists a symlink, and the files it leads to). */
static char *resolve_name(struct gate *g, GHashTable *seen, const char *path, int links,
                          bool *is_dir)
{
    if (!strcmp(path, "/"))
        return g_strdup("/");
    g_autofree char *dir = g_path_get_dirname(path);
    g_autofree char *base = g_path_get_basename(path);
    const char *rdir = resolve(g, seen, dir, links);
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
    gate_add_path(g, at, false);
    g_autofree char *next = path_absolute_in(rdir, target);
    g_free(at);
    return g_strdup(resolve(g, seen, next, links + 1));
}

/* resolve_name() of a directory, each answer kept in `seen`. */
static const char *resolve(struct gate *g, GHashTable *seen, const char *path, int links)
{
    const char *known = g_hash_table_lookup(seen, path);
    if (known)
        return known;
    char *to = resolve_name(g, seen, path, links, NULL);
    g_hash_table_insert(seen, g_strdup(path), to);
    return to;
}

/* Each path the manifests name from entry `first` on, declared also where its symlinks lead
 * when that lies in `root` (the build's directory: a link the project ships to ~/.ssh/id_rsa
 * declares nothing there; globs are not followed).  Returns how many name a directory without
 * DIR/'s slash (what it holds is then not declared), the first in *dir (g_free). */
static unsigned declare_through_links(struct gate *g, size_t first, GHashTable *seen,
                                      const char *root, char **dir)
{
    unsigned dirs = 0;
    for (size_t i = first; i < gate_n_entries(g); i++) {
        bool subtree, is_dir;
        const char *path = gate_entry_path(g, i, &subtree);
        if (!path)
            continue;
        g_autofree char *real = resolve_name(g, seen, path, 0, &is_dir);
        if (strcmp(real, path) && plan_path_under(real, root))
            gate_add_path(g, real, subtree);
        if (is_dir && !subtree && !dirs++)
            *dir = g_strdup(path);
    }
    return dirs;
}

int onlyin_load(GPtrArray *manifests, const char *cwd, struct gate **out)
{
    struct gate *g = gate_new();
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    for (guint i = 0; i < manifests->len; i++) {
        const char *path = manifests->pdata[i];
        g_autoptr(GString) esc = g_string_new(NULL);
        text_escape(esc, path, strlen(path));
        const char *shown = esc->str;
        g_autoptr(GString) text = g_string_new(NULL);
        const char *why;
        int r = path_read_regular(path, text, MANIFEST_MAX, &why);
        if (r < 0) {
            fprintf(stderr, "buildtrail run: --only-inputs %s: %s; give a manifest file (one path "
                            "or glob a line, relative to %s)\n",
                    shown, why ? why : g_strerror(-r), cwd);
            gate_free(g);
            return -1;
        }
        g_autofree char *err = NULL;
        size_t first = gate_n_entries(g);
        if (gate_add_manifest(g, text->str, text->len, cwd, &err) < 0) {
            fprintf(stderr, "buildtrail run: --only-inputs %s: %s; fix that line (a path, a glob, "
                            "DIR/, or a line of sha256sum)\n", shown, err);
            gate_free(g);
            return -1;
        }
        g_autofree char *dir = NULL;
        unsigned dirs = declare_through_links(g, first, seen, cwd, &dir);
        if (dirs) {
            g_autoptr(GString) d = g_string_new(NULL);
            text_escape(d, dir, strlen(dir));
            g_autofree char *more = dirs > 1 ? g_strdup_printf(" (and %u more)", dirs - 1) : NULL;
            fprintf(stderr, "buildtrail run: warning: --only-inputs %s names the directory %s%s "
                            "without a trailing '/': only the directory is declared, what it holds "
                            "stays hidden; write DIR/ to declare its contents\n",
                    shown, d->str, more ? more : "");
        }
    }
    gate_add_visible_dir(g, cwd);
    /* The build's command search path (it inherits ours): the directories stay visible, so
     * that a search through one is a denial only where it finds a hidden command; so do the
     * symlinks on the way to one (~/.nix-profile/bin) and where they lead. */
    const char *search = g_getenv("PATH");
    g_auto(GStrv) dirs = g_strsplit(search ? search : "", ":", -1);
    for (char **d = dirs; *d; d++)
        if (g_path_is_absolute(*d)) {
            g_autofree char *norm = path_absolute_in("/", *d);
            gate_add_visible_dir(g, norm);
            gate_add_visible_dir(g, resolve(g, seen, norm, 0));
        }
    *out = g;
    return 0;
}

void onlyin_add_trees(struct gate *g, const struct plan *plan)
{
    for (int i = 0; i < plan_n_trees(plan); i++) {
        const char *path = plan_tree(plan, i)->path;
        g_autofree char *top = g_strndup(path + 1, strcspn(path + 1, "/"));
        gate_add_tree(g, path, plan_is_system_top(top));
        gate_add_visible_dir(g, path); /* setup mounts it there, through the trees above it */
    }
    /* A system tree the manifests name but this run does not serve through FUSE (untraced, or
     * watched by --system as root) cannot hide anything: say so. */
    static const char *const tops[] = {"/usr", "/etc", "/opt"};
    for (size_t i = 0; i < G_N_ELEMENTS(tops); i++) {
        bool served = false;
        for (int k = 0; k < plan_n_trees(plan) && !served; k++)
            served = !strncmp(plan_tree(plan, k)->path, tops[i], strlen(tops[i]));
        if (!served && gate_names_under(g, tops[i]))
            fprintf(stderr, "buildtrail run: --only-inputs names files in %s, which this run does "
                            "not serve through FUSE: nothing is hidden there; add --system=full "
                            "to restrict it\n", tops[i]);
    }
    gate_seal(g);
}

char *onlyin_exec_hint(const struct gate *g, const struct plan *plan)
{
    GString *s = g_string_new("; --only-inputs may hide it, or what it needs to start (its "
                              "interpreter, its libraries)");
    GString *trees = g_string_new(NULL);
    for (int i = 0; i < plan_n_trees(plan); i++) {
        const char *path = plan_tree(plan, i)->path;
        g_autofree char *top = g_strndup(path + 1, strcspn(path + 1, "/"));
        if (plan_is_system_top(top) && gate_restricts(g, path))
            g_string_append_printf(trees, "%s%s", trees->len ? ", " : "", path);
    }
    if (trees->len)
        g_string_append_printf(s, ": the manifests name files in %s, so all else there is "
                                  "hidden; declare what the build runs too (/usr/bin/, /usr/lib/, "
                                  "...) or name no system path",
                               trees->str);
    else
        g_string_append(s, ": declare it");
    g_string_free(trees, TRUE);
    return g_string_free(s, FALSE);
}
