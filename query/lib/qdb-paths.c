/* qdb-paths — the path operands of the queries as the build saw them: made absolute lexically,
 * with today's symlinks followed, and the target a command line made a link point to
 * (qdb.h).  No trace is read here. */
#include "qdb.h"

#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *qdb_absolute_path_in(const char *base, const char *arg)
{
    return path_absolute_in(base, arg);
}

char *qdb_absolute_path(const char *arg)
{
    g_autofree char *cwd = g_get_current_dir();
    return qdb_absolute_path_in(cwd, arg);
}

/* One component at a time, as the kernel walks a path: a symlink met is replaced by its
 * target (relative to the directory that holds it), ".." pops what was resolved so far; once
 * a component is missing (or cannot be looked at), the rest is appended as it is. */
char *qdb_resolve_links(const char *abs, int *followed)
{
    *followed = 0;
    GQueue todo = G_QUEUE_INIT; /* components still to walk (g_free'd) */
    gchar **parts = g_strsplit(abs, "/", -1);
    for (gchar **p = parts; *p; p++)
        g_queue_push_tail(&todo, g_strdup(*p));
    g_strfreev(parts);
    GString *done = g_string_new(NULL); /* resolved so far, "" for "/" */
    bool exists = true;
    while (!g_queue_is_empty(&todo)) {
        char *c = g_queue_pop_head(&todo);
        if (!*c || !strcmp(c, ".")) {
            g_free(c);
            continue;
        }
        if (!strcmp(c, "..")) {
            char *slash = strrchr(done->str, '/');
            g_string_truncate(done, slash ? (gsize)(slash - done->str) : 0);
            g_free(c);
            continue;
        }
        size_t mark = done->len;
        g_string_append_c(done, '/');
        g_string_append(done, c);
        g_free(c);
        struct stat st;
        if (!exists || lstat(done->str, &st) < 0) {
            exists = false;
            continue;
        }
        if (!S_ISLNK(st.st_mode))
            continue;
        if (*followed >= 40) { /* ELOOP, as the kernel says: leave it as it is */
            exists = false;
            continue;
        }
        char target[PATH_MAX];
        ssize_t n = readlink(done->str, target, sizeof target - 1);
        if (n <= 0) {
            exists = false;
            continue;
        }
        target[n] = '\0';
        (*followed)++;
        g_string_truncate(done, target[0] == '/' ? 0 : mark);
        gchar **t = g_strsplit(target, "/", -1);
        for (guint i = g_strv_length(t); i-- > 0;)
            g_queue_push_head(&todo, g_strdup(t[i]));
        g_strfreev(t);
    }
    if (!done->len)
        g_string_append_c(done, '/');
    return g_string_free(done, FALSE);
}

/* (see qdb.h) */
/* Is `w` ("--NAME" or "--NAME=VALUE") ln's long option `name`, given whole or abbreviated to
 * at least `min` letters (getopt_long takes any unambiguous prefix: --sym, --rel)? */
static bool ln_long(const char *w, const char *name, size_t min)
{
    size_t n = strcspn(w + 2, "=");
    return n >= min && n <= strlen(name) && !strncmp(w + 2, name, n);
}

char *qdb_link_target_from_argv(const char *argv, size_t argv_len, const char *cwd,
                                const char *link)
{
    if (!argv || !argv_len || !cwd || !g_path_is_absolute(cwd))
        return NULL;
    GPtrArray *words = g_ptr_array_new();
    for (size_t at = 0; at < argv_len;) {
        size_t n = strnlen(argv + at, argv_len - at);
        g_ptr_array_add(words, g_strndup(argv + at, n));
        at += n + 1;
    }
    g_ptr_array_set_free_func(words, g_free);
    char *found = NULL;
    const char *prog = strrchr(words->pdata[0], '/');
    prog = prog ? prog + 1 : words->pdata[0];
    GPtrArray *ops = g_ptr_array_new();
    const char *tdir = NULL;
    bool symbolic = false, relative = false; /* -r: the target is relative to the cwd */
    if (!strcmp(prog, "cmake") && words->len == 5 && !strcmp(words->pdata[1], "-E") &&
        !strcmp(words->pdata[2], "create_symlink")) {
        symbolic = true;
        g_ptr_array_add(ops, words->pdata[3]);
        g_ptr_array_add(ops, words->pdata[4]);
    } else if (!strcmp(prog, "ln")) {
        bool opts = true;
        for (guint i = 1; i < words->len; i++) {
            const char *w = words->pdata[i];
            if (opts && !strcmp(w, "--")) {
                opts = false;
            } else if (opts && !strncmp(w, "--", 2)) {
                symbolic |= ln_long(w, "symbolic", 2);
                relative |= ln_long(w, "relative", 1);
                const char *eq = strchr(w, '=');
                bool target = ln_long(w, "target-directory", 1);
                if (target && eq)
                    tdir = eq + 1;
                else if (target && i + 1 < words->len)
                    tdir = words->pdata[++i];
                else if (ln_long(w, "suffix", 2) && !eq && i + 1 < words->len)
                    i++; /* (its value) */
            } else if (opts && w[0] == '-' && w[1]) {
                for (const char *c = w + 1; *c; c++) {
                    symbolic |= *c == 's';
                    relative |= *c == 'r';
                    if (*c == 't' || *c == 'S') { /* a value: the rest, or the next word */
                        const char *v = c[1] ? c + 1 : i + 1 < words->len ? words->pdata[++i] : NULL;
                        if (*c == 't')
                            tdir = v;
                        break;
                    }
                }
            } else {
                g_ptr_array_add(ops, (char *)w);
            }
        }
    }
    for (guint i = 0; symbolic && !found && i < ops->len; i++) {
        const char *t = ops->pdata[i];
        g_autofree char *base = g_path_get_basename(t);
        char *made[2] = {NULL, NULL}; /* the links this target may have made */
        if (tdir) {
            g_autofree char *d = qdb_absolute_path_in(cwd, tdir);
            made[0] = qdb_absolute_path_in(d, base);
        } else if (ops->len == 1) {
            made[0] = qdb_absolute_path_in(cwd, base);
        } else if (i + 1 < ops->len) {
            const char *last = ops->pdata[ops->len - 1];
            if (ops->len == 2)
                made[0] = qdb_absolute_path_in(cwd, last);
            g_autofree char *d = qdb_absolute_path_in(cwd, last);
            made[1] = qdb_absolute_path_in(d, base);
        }
        for (int k = 0; k < 2; k++) {
            if (made[k] && !found && !strcmp(made[k], link)) {
                g_autofree char *dir = relative ? g_strdup(cwd) : g_path_get_dirname(link);
                found = qdb_absolute_path_in(dir, t);
            }
            g_free(made[k]);
        }
    }
    g_ptr_array_free(ops, TRUE);
    g_ptr_array_free(words, TRUE);
    return found;
}
