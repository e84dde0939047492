/* onlyin — see onlyin.h. */
#include "onlyin.h"

#include "gate.h"
#include "linkres.h"
#include "paths.h"
#include "plan.h"
#include "textout.h"

#include <stdio.h>
#include <string.h>

#define MANIFEST_MAX (256u << 20)

/* linkres's crossed(): a symlink on the way to a declared path is declared itself, so that
 * the kernel may follow it. */
static void declare_link(const char *link, void *data)
{
    gate_add_path(data, link, false);
}

/* Directory `dir` (when absolute) stays visible, and so do the symlinks on the way to it
 * (~/.nix-profile/bin) and where they lead: what it holds is judged one by one. */
static void keep_visible(struct gate *g, struct linkres *lr, const char *dir)
{
    if (!dir || !g_path_is_absolute(dir))
        return;
    g_autofree char *norm = path_absolute_in("/", dir);
    gate_add_visible_dir(g, norm);
    g_autofree char *real = linkres_resolve(lr, norm, NULL);
    gate_add_visible_dir(g, real);
}

/* Each path the manifests name from entry `first` on, declared also where its symlinks lead
 * when that lies in `root` (the build's directory: a link the project ships to ~/.ssh/id_rsa
 * declares nothing there; globs are not followed).  Returns how many name a directory without
 * DIR/'s slash (what it holds is then not declared), the first in *dir (g_free). */
static unsigned declare_through_links(struct gate *g, size_t first, struct linkres *lr,
                                      const char *root, char **dir)
{
    unsigned dirs = 0;
    for (size_t i = first; i < gate_n_entries(g); i++) {
        bool subtree, is_dir;
        const char *path = gate_entry_path(g, i, &subtree);
        if (!path)
            continue;
        g_autofree char *real = linkres_target(lr, path, root, &is_dir);
        if (real)
            gate_add_path(g, real, subtree);
        if (is_dir && !subtree && !dirs++)
            *dir = g_strdup(path);
    }
    return dirs;
}

int onlyin_load(GPtrArray *manifests, const char *cwd, struct gate **out)
{
    struct gate *g = gate_new();
    struct linkres *lr = linkres_new(declare_link, g);
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
            linkres_free(lr);
            gate_free(g);
            return -1;
        }
        g_autofree char *err = NULL;
        size_t first = gate_n_entries(g);
        if (gate_add_manifest(g, text->str, text->len, cwd, &err) < 0) {
            fprintf(stderr, "buildtrail run: --only-inputs %s: %s; fix that line (a path, a glob, "
                            "DIR/, or a line of sha256sum)\n", shown, err);
            linkres_free(lr);
            gate_free(g);
            return -1;
        }
        g_autofree char *dir = NULL;
        unsigned dirs = declare_through_links(g, first, lr, cwd, &dir);
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
     * that a search through one is a denial only where it finds a hidden command.  So do the
     * directories its shells check when they start: $PWD (the start directory by the path the
     * caller took, through a symlink) and bash's $OLDPWD; and its $TMPDIR, where it writes
     * (mktemp failed, and every compile was a denial of it). */
    const char *search = g_getenv("PATH");
    g_auto(GStrv) dirs = g_strsplit(search ? search : "", ":", -1);
    for (char **d = dirs; *d; d++)
        keep_visible(g, lr, *d);
    keep_visible(g, lr, g_getenv("PWD"));
    keep_visible(g, lr, g_getenv("OLDPWD"));
    keep_visible(g, lr, g_getenv("TMPDIR"));
    linkres_free(lr);
    *out = g;
    return 0;
}

/* Would the gate restrict `path` (before the seal: a tree lies around it, and a system tree
 * only when a manifest names a path in it)? */
static bool restricted(const struct gate *g, const struct plan *plan, const char *path)
{
    const char *best = NULL;
    for (int i = 0; i < plan_n_trees(plan); i++) {
        const char *t = plan_tree(plan, i)->path;
        if (plan_path_under(path, t) && (!best || strlen(t) > strlen(best)))
            best = t;
    }
    if (!best)
        return false;
    g_autofree char *top = g_strndup(best + 1, strcspn(best + 1, "/"));
    return !plan_is_system_top(top) || gate_names_under(g, best);
}

/* The symlinks at the top of tree `tree` that lead where nothing is restricted (/var/run ->
 * /run, /var/lock): declared, as hiding them hides nothing (the target is reachable by its own
 * name) and every getpwuid of the build probed /var/run/nscd/socket, a denial each time. */
static void declare_links_out(struct gate *g, const struct plan *plan, const char *tree)
{
    GDir *d = g_dir_open(tree, 0, NULL);
    if (!d)
        return;
    struct linkres *lr = linkres_new(NULL, NULL);
    for (const char *name; (name = g_dir_read_name(d));) {
        g_autofree char *link = g_build_filename(tree, name, NULL);
        if (!g_file_test(link, G_FILE_TEST_IS_SYMLINK))
            continue;
        g_autofree char *real = linkres_resolve(lr, link, NULL);
        if (strcmp(real, link) && !restricted(g, plan, real))
            gate_add_path(g, link, false);
    }
    linkres_free(lr);
    g_dir_close(d);
}

void onlyin_add_trees(struct gate *g, const struct plan *plan)
{
    for (int i = 0; i < plan_n_trees(plan); i++) {
        const char *path = plan_tree(plan, i)->path;
        g_autofree char *top = g_strndup(path + 1, strcspn(path + 1, "/"));
        gate_add_tree(g, path, plan_is_system_top(top));
        gate_add_visible_dir(g, path); /* setup mounts it there, through the trees above it */
    }
    for (int i = 0; i < plan_n_trees(plan); i++)
        if (restricted(g, plan, plan_tree(plan, i)->path))
            declare_links_out(g, plan, plan_tree(plan, i)->path);
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
