/* libFuzzer target: /proc/self/mountinfo, read by run's planning (launcher/plan.h), is the
 * kernel's, but its mount points are names whoever may mount chooses.  Any bytes parse: each
 * line read has a mount point, a type comes with its super options; planning a made-up machine
 * on the text (and asking which filesystems judge permissions themselves) neither crashes
 * nor plans a tree outside the traced tops, more trees than allowed, or a mark outside the
 * watched trees. */
#include "plan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_dir(void *ctx, const char *path, bool follow)
{
    return path[0] == '/' && (!strchr(path + 1, '/') || (strlen(path) & 1));
}

static unsigned long fs_type(void *ctx, const char *path)
{
    return strstr(path, "proc") ? 0x9fa0 : 0xef53;
}

static unsigned long mount_flags(void *ctx, const char *path)
{
    return strlen(path) % 3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = g_strndup((const char *)data, size);
    GArray *m = plan_mountinfo_parse(text);
    for (guint i = 0; i < m->len; i++) {
        const struct plan_mount *e = &g_array_index(m, struct plan_mount, i);
        if (!e->point || !e->type != !e->super_opts)
            abort();
    }
    plan_mountinfo_free(m);

    static const char *const tops[] = {"home", "usr", "tmp", "proc"};
    static const struct plan_probe probe = {is_dir, fs_type, mount_flags, NULL};
    struct plan_input in = {tops, 4, text, true, true, false, 8};
    struct plan *p = plan_new(&in, &probe);
    for (int i = 0; i < plan_n_trees(p); i++) {
        const char *t = plan_tree(p, i)->path;
        if (!plan_path_under(t, "/home") && !plan_path_under(t, "/tmp"))
            abort(); /* only the two traced tops, and what is mounted inside them */
    }
    if (plan_n_trees(p) > 8)
        abort();
    for (guint i = 0; i < p->watch_marks->len; i++)
        if (!plan_watched(p, p->watch_marks->pdata[i]))
            abort();
    g_free(plan_own_judge(p, text));
    plan_free(p);
    g_free(text);
    return 0;
}
