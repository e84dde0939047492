/* diffeng-procs — what differs between two processes diffeng pairs: their command lines and
 * environments, each in the second build's terms (A's paths mapped, temporaries paired), with
 * the variables that differ by nature (FAKEROOTKEY, ...) and those a caller expects to differ
 * (diffeng_expect_env) left out.  Part of diffeng (diffeng-internal.h). */
#include "diffeng.h"
#include "diffeng-internal.h"
#include "textout.h"

#include <string.h>

/* An argv or environment entry of the first build in the second's terms: every mapped
 * prefix replaced wherever it starts a path (-I/a/b, --prefix=/a/b, PWD=/a/b). */
static char *map_words(struct diffeng *d, const char *s)
{
    GString *out = g_string_new(NULL);
    for (const char *p = s; *p;) {
        bool done = false;
        if (*p == '/') {
            for (guint i = 0; i < d->maps->len && !done; i++) {
                const char *old = d->maps->pdata[i], *new = old + strlen(old) + 1;
                size_t l = strlen(old);
                if (!strncmp(p, old, l) && (p[l] == '/' || !p[l] || p[l] == ' ' || p[l] == ':')) {
                    g_string_append(out, new);
                    p += l;
                    done = true;
                }
            }
            /* the longest paired temporary that starts here ($T.o as itself, not as $T and
             * ".o"): one answer, whatever order the table gives its keys in */
            GHashTableIter it;
            gpointer k, v;
            const char *best = NULL;
            size_t best_len = 0;
            g_hash_table_iter_init(&it, d->tmp_pair);
            while (!done && g_hash_table_iter_next(&it, &k, &v)) {
                size_t l = strlen(k);
                if (l > best_len && !strncmp(p, k, l)) {
                    best = v;
                    best_len = l;
                }
            }
            if (best) {
                g_string_append(out, best);
                p += best_len;
                done = true;
            }
        }
        if (!done)
            g_string_append_c(out, *p++);
    }
    return g_string_free(out, FALSE);
}

/* The words of p's argv (A's mapped into B's terms when `d` is given); g_ptr_array_unref. */
static GPtrArray *argv_words(struct diffeng *d, const struct qdb_process *p)
{
    GPtrArray *w = g_ptr_array_new_with_free_func(g_free);
    for (size_t i = 0; p->argv && i < p->argv_len;) {
        size_t l = strnlen(p->argv + i, p->argv_len - i);
        g_autofree char *word = g_strndup(p->argv + i, l);
        g_ptr_array_add(w, d ? map_words(d, word) : g_steal_pointer(&word));
        i += l + 1;
    }
    return w;
}

static bool has_word(GPtrArray *words, const char *w)
{
    return g_ptr_array_find_with_equal_func(words, w, g_str_equal, NULL);
}

/* Words as a shell reads them, space-separated. */
static void append_words(GString *out, GPtrArray *words)
{
    for (guint i = 0; i < words->len; i++) {
        if (i)
            g_string_append_c(out, ' ');
        text_quote_arg(out, words->pdata[i], strlen(words->pdata[i]));
    }
}

/* How B's argv differs from A's, for people, when it does (else NULL): "-O2 → -O1" for one
 * word that became another, else "removed W..., added W..." (either alone when the other is
 * empty), or "the same words, in another order or number". */
char *de_argv_difference(struct diffeng *d, const struct qdb_process *a,
                         const struct qdb_process *b)
{
    GPtrArray *wa = argv_words(d, a), *wb = argv_words(NULL, b);
    bool same = wa->len == wb->len;
    for (guint i = 0; same && i < wa->len; i++)
        same = !strcmp(wa->pdata[i], wb->pdata[i]);
    char *out = NULL;
    if (!same) {
        GPtrArray *removed = g_ptr_array_new(), *added = g_ptr_array_new();
        for (guint i = 0; i < wa->len; i++)
            if (!has_word(wb, wa->pdata[i]) && !has_word(removed, wa->pdata[i]))
                g_ptr_array_add(removed, wa->pdata[i]);
        for (guint i = 0; i < wb->len; i++)
            if (!has_word(wa, wb->pdata[i]) && !has_word(added, wb->pdata[i]))
                g_ptr_array_add(added, wb->pdata[i]);
        GString *s = g_string_new(NULL);
        if (removed->len == 1 && added->len == 1) {
            append_words(s, removed);
            g_string_append(s, " \u2192 ");
            append_words(s, added);
        } else {
            if (removed->len) {
                g_string_append(s, "removed ");
                append_words(s, removed);
            }
            if (added->len) {
                g_string_append(s, removed->len ? ", added " : "added ");
                append_words(s, added);
            }
        }
        if (!s->len)
            g_string_append(s, "the same words, in another order or number");
        out = g_string_free(s, FALSE);
        g_ptr_array_free(removed, TRUE);
        g_ptr_array_free(added, TRUE);
    }
    g_ptr_array_unref(wa);
    g_ptr_array_unref(wb);
    return out;
}

/* Variables whose values say how a driver runs, not what a process makes, or change from run
 * to run whatever the build does (fakeroot's key to its daemon: random per run, so it would
 * make every process under fakeroot differ and blame the first one reached). */
static bool env_noise(const char *name, size_t len)
{
    static const char *const noise[] = {"FAKEROOTKEY", "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKE_TERMOUT",
                                        "MAKE_TERMERR", "_", "OLDPWD", "SHLVL", "TERM",
                                        "DISPLAY", "SSH_AUTH_SOCK", "SSH_CLIENT",
                                        "SSH_CONNECTION", "SSH_TTY", "XDG_SESSION_ID",
                                        "INVOCATION_ID", "JOURNAL_STREAM", NULL};
    for (const char *const *n = noise; *n; n++)
        if (strlen(*n) == len && !memcmp(*n, name, len))
            return true;
    return false;
}

/* Image id's environment as name -> value ("" when redacted), without the driver noise;
 * A's values mapped into B's terms.  NULL when the trace does not have it. */
static GHashTable *env_table(struct diffeng *d, struct side *s, int64_t id, bool mapped)
{
    g_autoptr(GBytes) env = qdb_process_env(s->q, id);
    if (!env)
        return NULL;
    GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    gsize len = 0;
    const char *p = g_bytes_get_data(env, &len);
    for (gsize at = 0; at < len;) { /* NAME=VALUE\0..., a redacted entry NAME alone */
        const char *entry = p + at;
        gsize elen = strnlen(entry, len - at);
        at += elen + 1;
        const char *eq = memchr(entry, '=', elen);
        gsize nlen = eq ? (gsize)(eq - entry) : elen;
        if (!nlen || env_noise(entry, nlen))
            continue;
        g_autofree char *name = g_strndup(entry, nlen);
        if (g_hash_table_contains(d->expected_env, name))
            continue;
        g_autofree char *value = eq ? g_strndup(eq + 1, elen - nlen - 1) : g_strdup("");
        g_hash_table_insert(t, g_strndup(entry, nlen),
                            mapped ? map_words(d, value) : g_steal_pointer(&value));
    }
    return t;
}

/* Whether A's path (mapped) and B's differ; unknown on either side is no difference. */
bool de_differs_mapped(struct diffeng *d, const char *a, const char *b)
{
    if (!a || !b)
        return false;
    g_autofree char *m = de_map_path(d, a);
    return strcmp(m, b) != 0;
}

/* PWD and OLDPWD follow the directory a shell was in: where the processes' directories
 * differ, that is the cause (cwd), not these. */
static bool shell_cwd_var(const char *name)
{
    return !strcmp(name, "PWD") || !strcmp(name, "OLDPWD");
}

/* The environment variables that differ between A's process and B's, for people; NULL when
 * none (or either environment is not known). */
char *de_env_difference(struct diffeng *d, int64_t pa, int64_t pb, bool cwd_differs)
{
    GHashTable *a = env_table(d, &d->s[0], pa, true), *b = env_table(d, &d->s[1], pb, false);
    char *out = NULL;
    if (a && b) {
        GPtrArray *names = g_ptr_array_new();
        GHashTableIter it;
        gpointer k, v;
        g_hash_table_iter_init(&it, a);
        while (g_hash_table_iter_next(&it, &k, &v)) {
            const char *vb = g_hash_table_lookup(b, k);
            if ((!vb || strcmp(vb, v)) && !(cwd_differs && shell_cwd_var(k)))
                g_ptr_array_add(names, k);
        }
        g_hash_table_iter_init(&it, b);
        while (g_hash_table_iter_next(&it, &k, &v))
            if (!g_hash_table_contains(a, k) && !(cwd_differs && shell_cwd_var(k)))
                g_ptr_array_add(names, k);
        g_ptr_array_sort(names, de_by_str); /* (it passes char **: g_strcmp0 read pointers) */
        if (names->len) {
            GString *s = g_string_new(NULL);
            for (guint i = 0; i < names->len; i++) {
                const char *n = names->pdata[i];
                const char *va = g_hash_table_lookup(a, n), *vb = g_hash_table_lookup(b, n);
                g_string_append_printf(s, "%s%s (%s%s%s / %s%s%s)", s->len ? ", " : "", n,
                                       va ? "'" : "", va ? va : "unset", va ? "'" : "",
                                       vb ? "'" : "", vb ? vb : "unset", vb ? "'" : "");
            }
            out = g_string_free(s, FALSE);
        }
        g_ptr_array_free(names, TRUE);
    }
    if (a)
        g_hash_table_destroy(a);
    if (b)
        g_hash_table_destroy(b);
    return out;
}
