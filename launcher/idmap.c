/* idmap — see idmap.h. */
#include "idmap.h"

#include <errno.h>
#include <glib.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_INSIDE 65536UL

/* Every subordinate range of `name` or `id` in `text`, appended to `out` as start, count. */
static void find_ranges(const char *text, const char *name, unsigned id, GArray *out)
{
    char idbuf[16];
    snprintf(idbuf, sizeof idbuf, "%u", id);
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        g_auto(GStrv) f = g_strsplit(*l, ":", 4);
        if (g_strv_length(f) != 3)
            continue;
        if (strcmp(f[0], idbuf) != 0 && (!name || strcmp(f[0], name) != 0))
            continue;
        char *e1, *e2;
        unsigned long s = strtoul(f[1], &e1, 10), c = strtoul(f[2], &e2, 10);
        if (*e1 || *e2 || e1 == f[1] || e2 == f[2] || c == 0 || s > 0xfffffffeUL ||
            c > 0xffffffffUL - s)
            continue;
        unsigned long r[2] = {s, c};
        g_array_append_vals(out, r, 2);
    }
}

int idmap_find_range(const char *text, const char *name, unsigned id, unsigned long *start,
                     unsigned long *count)
{
    GArray *r = g_array_new(FALSE, FALSE, sizeof(unsigned long));
    find_ranges(text, name, id, r);
    int ret = -ENOENT;
    if (r->len >= 2) {
        *start = g_array_index(r, unsigned long, 0);
        *count = g_array_index(r, unsigned long, 1);
        ret = 0;
    }
    g_array_free(r, TRUE);
    return ret;
}

static void add(GPtrArray *a, unsigned long in, unsigned long out, unsigned long n)
{
    if (n == 0)
        return;
    g_ptr_array_add(a, g_strdup_printf("%lu", in));
    g_ptr_array_add(a, g_strdup_printf("%lu", out));
    g_ptr_array_add(a, g_strdup_printf("%lu", n));
}

static int cmp_unsigned(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

char **idmap_args(const unsigned *identity, int n_identity, unsigned long start,
                  unsigned long count)
{
    unsigned long n = MIN(count, MAX_INSIDE);
    unsigned *ids = g_memdup2(identity, (gsize)n_identity * sizeof *ids);
    qsort(ids, (size_t)n_identity, sizeof *ids, cmp_unsigned);
    GPtrArray *a = g_ptr_array_new();
    unsigned long next = 0; /* inside ids below this are mapped */
    for (int i = 0; i < n_identity && ids[i] < n; i++) { /* the range's ids up to it, then it */
        if (i > 0 && ids[i] == ids[i - 1])
            continue;
        add(a, next, start + next, ids[i] - next);
        add(a, ids[i], ids[i], 1);
        next = ids[i] + 1UL;
    }
    add(a, next, start + next, next < n ? n - next : 0);
    for (int i = 0; i < n_identity; i++) /* ids beyond the range's size keep theirs too */
        if (ids[i] >= n && (i == 0 || ids[i] != ids[i - 1]))
            add(a, ids[i], ids[i], 1);
    g_free(ids);
    g_ptr_array_add(a, NULL);
    return (char **)g_ptr_array_free(a, FALSE);
}

static char *read_text(const char *path)
{
    char *text = NULL;
    return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

int idmap_plan(uid_t uid, gid_t gid, struct idmap *out, char **why)
{
    memset(out, 0, sizeof *out);
    g_autofree char *helper = g_find_program_in_path("newuidmap");
    g_autofree char *ghelper = g_find_program_in_path("newgidmap");
    if (!helper || !ghelper) {
        *why = g_strdup("newuidmap/newgidmap missing (apt-get install uidmap)");
        return -ENOENT;
    }
    struct passwd *pw = getpwuid(uid);
    const char *name = pw ? pw->pw_name : NULL;
    g_autofree char *subuid = read_text("/etc/subuid");
    g_autofree char *subgid = read_text("/etc/subgid");
    GArray *ur = g_array_new(FALSE, FALSE, sizeof(unsigned long));
    GArray *gr = g_array_new(FALSE, FALSE, sizeof(unsigned long));
    if (subuid)
        find_ranges(subuid, name, uid, ur);
    if (subgid)
        find_ranges(subgid, name, uid, gr);
    int ret = 0;
    if (ur->len < 2 || gr->len < 2) {
        *why = g_strdup_printf("no subordinate id range for %s in /etc/subuid and /etc/subgid "
                               "(usermod --add-subuids/--add-subgids)", name ? name : "this user");
        ret = -ENOENT;
        goto out;
    }
    unsigned long us = g_array_index(ur, unsigned long, 0), uc = g_array_index(ur, unsigned long, 1);
    unsigned long gs = g_array_index(gr, unsigned long, 0), gc = g_array_index(gr, unsigned long, 1);
    unsigned own_uid = uid;
    out->uid_args = idmap_args(&own_uid, 1, us, uc);
    /* The primary group, and each supplementary group that another of the user's subgid
     * ranges allows (an administrator's "user:100:1"), keep their own ids. */
    int ng = getgroups(0, NULL);
    gid_t *groups = g_new0(gid_t, MAX(ng, 1));
    ng = ng > 0 ? getgroups(ng, groups) : 0;
    unsigned *keep = g_new(unsigned, (gsize)MAX(ng, 0) + 1);
    int n_keep = 0;
    keep[n_keep++] = gid;
    GString *unmapped = g_string_new(NULL);
    unsigned long main_end = gs + MIN(gc, MAX_INSIDE);
    for (int i = 0; i < ng; i++) {
        if (groups[i] == gid)
            continue;
        bool allowed = false;
        for (guint k = 2; k + 1 < gr->len; k += 2) {
            unsigned long s = g_array_index(gr, unsigned long, k), c = g_array_index(gr, unsigned long, k + 1);
            allowed |= groups[i] >= s && groups[i] - s < c;
        }
        if (allowed && !(groups[i] >= gs && groups[i] < main_end)) {
            keep[n_keep++] = groups[i];
            continue;
        }
        struct group *gr_ent = getgrgid(groups[i]);
        if (gr_ent)
            g_string_append_printf(unmapped, "%s%s (%u)", unmapped->len ? ", " : "",
                                   gr_ent->gr_name, (unsigned)groups[i]);
        else
            g_string_append_printf(unmapped, "%s%u", unmapped->len ? ", " : "", groups[i]);
        out->unmapped_gids = g_renew(unsigned, out->unmapped_gids, out->n_unmapped + 1);
        out->unmapped_gids[out->n_unmapped++] = groups[i];
    }
    out->gid_args = idmap_args(keep, n_keep, gs, gc);
    if (unmapped->len)
        out->unmapped_groups = g_string_free(g_steal_pointer(&unmapped), FALSE);
    else
        g_string_free(unmapped, TRUE);
    g_free(keep);
    g_free(groups);
out:
    g_array_free(ur, TRUE);
    g_array_free(gr, TRUE);
    return ret;
}

static int run_helper(const char *prog, pid_t pid, char **args, char **why)
{
    GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(argv, g_strdup(prog));
    g_ptr_array_add(argv, g_strdup_printf("%d", (int)pid));
    for (char **a = args; *a; a++)
        g_ptr_array_add(argv, g_strdup(*a));
    g_ptr_array_add(argv, NULL);
    g_autofree char *err = NULL;
    gint status = 0;
    g_autoptr(GError) e = NULL;
    gboolean ok = g_spawn_sync(NULL, (char **)argv->pdata, NULL,
                               G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, &err, &status, &e);
    g_ptr_array_free(argv, TRUE);
    if (!ok || !g_spawn_check_wait_status(status, NULL)) {
        g_autofree char *msg = g_strstrip(g_strdup(err ? err : e ? e->message : "failed"));
        *why = g_strdup_printf("%s failed: %s", prog, msg);
        return -EPERM;
    }
    return 0;
}

int idmap_apply(pid_t pid, const struct idmap *m, char **why)
{
    int r = run_helper("newuidmap", pid, m->uid_args, why);
    if (r == 0)
        r = run_helper("newgidmap", pid, m->gid_args, why);
    return r;
}

void idmap_free(struct idmap *m)
{
    g_strfreev(m->uid_args);
    g_strfreev(m->gid_args);
    g_free(m->unmapped_groups);
    g_free(m->unmapped_gids);
    m->uid_args = m->gid_args = NULL;
    m->unmapped_groups = NULL;
    m->unmapped_gids = NULL;
    m->n_unmapped = 0;
}

int idmap_held(char *const *args, struct idmap_range *out, int max)
{
    int n = 0;
    for (int i = 0; args && args[i] && args[i + 1] && args[i + 2] && n < max; i += 3)
        out[n++] = (struct idmap_range){strtoul(args[i], NULL, 10), strtoul(args[i + 2], NULL, 10)};
    return n;
}

static bool held_in(const struct idmap_range *held, int n, unsigned long id)
{
    for (int i = 0; i < n; i++)
        if (id >= held[i].first && id - held[i].first < held[i].count)
            return true;
    return false;
}

/* One line "inside outside count" of the nested map, counted. */
static void nested_line(GString *s, int *lines, unsigned long in, unsigned long out,
                        unsigned long n)
{
    if (n == 0)
        return;
    g_string_append_printf(s, "%lu %lu %lu\n", in, out, n);
    (*lines)++;
}

char *idmap_nested(const struct idmap_range *held, int n_held, unsigned own, unsigned inner,
                   size_t max_len)
{
    if (own == inner || !held_in(held, n_held, own))
        return NULL;
    GString *s = g_string_new(NULL);
    int lines = 0;
    nested_line(s, &lines, inner, own, 1);
    if (held_in(held, n_held, inner))
        nested_line(s, &lines, own, inner, 1);
    /* Every other held id for itself: each range without `own` and `inner`. */
    for (int i = 0; i < n_held; i++) {
        unsigned long at = held[i].first, end = held[i].first + held[i].count;
        unsigned long cut[2] = {MIN(own, inner), MAX(own, inner)};
        for (int k = 0; k < 2; k++) {
            if (cut[k] < at || cut[k] >= end)
                continue;
            nested_line(s, &lines, at, at, cut[k] - at);
            at = cut[k] + 1;
        }
        nested_line(s, &lines, at, at, end - at);
    }
    if (lines > 340 || s->len >= max_len) {
        g_string_free(s, TRUE);
        return NULL;
    }
    return g_string_free(s, FALSE);
}

char *idmap_nested_root(unsigned inner)
{
    return g_strdup_printf("%u 0 1\n0 %u 1\n1 1 %u\n%u %u %lu\n", inner, IDMAP_NO_FILE_ID,
                           inner - 1, inner + 1, inner + 1, MAX_INSIDE - 1 - inner);
}
