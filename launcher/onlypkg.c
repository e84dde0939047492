/* onlypkg — see onlypkg.h. */
#include "onlypkg.h"

#include "debdeps.h"
#include "debset.h"
#include "dpkgdb.h"
#include "paths.h"
#include "pkggate.h"
#include "textout.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#define CONTROL_MAX (16u << 20)

/* The relationship text `spec` stands for: the list itself, or @FILE's Build-Depends fields.
 * NULL after one line on stderr. */
static char *relations_of(const char *spec)
{
    if (spec[0] != '@') {
        if (spec[strspn(spec, ", \t\n\r")] == '\0') {
            /* An empty list ("$PKGS" unset) would allow the base set alone, silently. */
            fputs("buildtrail run: --only-packages names no package; give the packages the "
                  "build may use (--only-packages a,b) or @debian/control\n", stderr);
            return NULL;
        }
        return g_strdup(spec);
    }
    g_autoptr(GString) esc = g_string_new(NULL);
    text_escape(esc, spec + 1, strlen(spec + 1));
    g_autoptr(GString) text = g_string_new(NULL);
    const char *why = NULL;
    int r = path_read_regular(spec + 1, text, CONTROL_MAX, &why);
    if (r < 0) {
        fprintf(stderr, "buildtrail run: --only-packages @%s: %s; give a debian/control or .dsc "
                        "file after @\n", esc->str, why ? why : g_strerror(-r));
        return NULL;
    }
    char *fields = debdeps_from_control(text->str, text->len);
    if (!fields)
        fprintf(stderr, "buildtrail run: --only-packages @%s: no Build-Depends, "
                        "Build-Depends-Arch or Build-Depends-Indep field; give a debian/control "
                        "or .dsc file, or name the packages (--only-packages a,b)\n", esc->str);
    return fields;
}

/* The active build profiles: $DEB_BUILD_PROFILES, and those $DEB_BUILD_OPTIONS implies. */
static char **active_profiles(void)
{
    const char *given = g_getenv("DEB_BUILD_PROFILES");
    g_auto(GStrv) named = g_strsplit_set(given ? given : "", " ,", -1);
    g_auto(GStrv) implied = debdeps_options_as_profiles(
        g_getenv("DEB_BUILD_OPTIONS") ? g_getenv("DEB_BUILD_OPTIONS") : "");
    GPtrArray *all = g_ptr_array_new();
    for (char **p = named; *p; p++)
        if (**p)
            g_ptr_array_add(all, g_strdup(*p));
    for (char **p = implied; *p; p++)
        if (!g_strv_contains((const char *const *)named, *p))
            g_ptr_array_add(all, g_strdup(*p));
    g_ptr_array_add(all, NULL);
    return (char **)g_ptr_array_free(all, FALSE);
}

struct listing {
    struct pkggate *g;
    struct dpkgdb *db;
    const char *lister;  /* the package whose list it is */
    const char *package; /* NULL: an allowed package's */
};

static void add_path(const char *path, void *data)
{
    const struct listing *l = data;
    /* A diverted file of this package's lies where dpkg-divert moved it: what is at `path`
     * is the diverting package's (libpq-dev's pg_config and postgresql-common's wrapper). */
    const char *moved = dpkgdb_diverted(l->db, path, l->lister);
    if (moved)
        path = moved;
    if (l->package)
        pkggate_add_denied(l->g, path, l->package);
    else
        pkggate_add_allowed(l->g, path);
}

/* Every installed package's files into a new pkggate, judged by `set`.  NULL after one line. */
static struct pkggate *gate_from(struct dpkgdb *db, const struct debset *set,
                                 const char *workspace)
{
    struct pkggate *g = pkggate_new();
    const GPtrArray *pkgs = dpkgdb_packages(db);
    for (guint i = 0; i < pkgs->len; i++) {
        const struct dpkg_pkg *k = pkgs->pdata[i];
        struct listing l = {g, db, k->name, debset_has(set, k->name) ? NULL : k->name};
        int r = dpkgdb_each_listed(db, k, add_path, &l);
        if (r < 0) {
            fprintf(stderr, "buildtrail run: --only-packages: cannot read the file list of %s:%s "
                            "in dpkg's database: %s; check that dpkg works ('dpkg -L %s')\n",
                    k->name, k->arch, g_strerror(-r), k->name);
            pkggate_free(g);
            return NULL;
        }
    }
    pkggate_spare(g, workspace);
    pkggate_seal(g);
    size_t kept = pkggate_n_spared(g);
    if (kept) {
        g_autoptr(GString) esc = g_string_new(NULL);
        text_escape(esc, workspace, strlen(workspace));
        fprintf(stderr, "buildtrail run: warning: --only-packages: the build starts in %s, which "
                        "holds %zu file%s of packages not allowed: %s visible, as all the "
                        "build's directory holds; run from the project's directory\n",
                esc->str, kept, kept == 1 ? "" : "s", kept == 1 ? "it stays" : "they stay");
    }
    return g;
}

int onlypkg_load(const char *spec, const char *admindir, const char *workspace,
                 struct pkggate **out)
{
    if (!admindir)
        admindir = "/var/lib/dpkg";
    g_autofree char *relations = relations_of(spec);
    if (!relations)
        return -1;
    struct dpkgdb *db = NULL;
    if (dpkgdb_load(admindir, &db) < 0) {
        fprintf(stderr, "buildtrail run: --only-packages: no dpkg database in %s; it restricts "
                        "a build to Debian packages, on Debian and Ubuntu\n", admindir);
        return -1;
    }
    g_auto(GStrv) profiles = active_profiles();
    struct debset *set = debset_new(db);
    g_autofree char *missing = NULL;
    const char *arch = dpkgdb_native_arch(db);
    int r = debset_resolve(set, relations, arch ? arch : "amd64", (const char *const *)profiles,
                           &missing);
    struct pkggate *g = NULL;
    if (r < 0) {
        g_autoptr(GString) esc = g_string_new(NULL);
        text_escape(esc, missing, strlen(missing));
        if (spec[0] != '@' && strchr(missing, '/') && g_file_test(missing, G_FILE_TEST_EXISTS))
            /* A package name has no '/': a control file given without its '@'. */
            fprintf(stderr, "buildtrail run: --only-packages: %s is a file, not a package; "
                            "give @%s to read its Build-Depends\n", esc->str, esc->str);
        else
            fprintf(stderr, "buildtrail run: --only-packages: %s is not installed; install it "
                            "(apt-get install), or leave it out\n", esc->str);
    } else {
        g = gate_from(db, set, workspace);
    }
    debset_free(set);
    dpkgdb_free(db);
    if (!g)
        return -1;
    *out = g;
    return 0;
}
