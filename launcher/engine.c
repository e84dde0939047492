/* engine — see engine.h. */
#include "engine.h"

#include "nsguard.h"
#include "proc.h"
#include "recorder.h"
#include "run.h"
#include "syswatch.h"
#include "trace.h"
#include "versions.h"

#include <stdio.h>
#include <unistd.h>

void engine_init(struct engine *e)
{
    *e = (struct engine){.watch_fd = -1};
}

int engine_open_watch(struct engine *e, bool system, enum engine_system how)
{
    if (system && how != ENGINE_SYSTEM_FULL && geteuid() == 0) {
        e->watch_fd = syswatch_group_new();
        if (e->watch_fd < 0) {
            int err = -e->watch_fd;
            if (how == ENGINE_SYSTEM_OPENS) {
                fprintf(stderr, "buildtrail run: --system=opens: cannot watch the system trees "
                                "with fanotify: %s; use --system=full" DOCTOR_HINT "\n",
                        g_strerror(err));
                return -1;
            }
            e->watch_why_not = g_strdup_printf("fanotify permission events unavailable: %s",
                                               g_strerror(err));
            e->watch_fd = -1;
        }
        /* Without the guard a mount namespace of the build's own would hide its opens. */
        int ge = e->watch_fd >= 0 ? nsguard_probe() : 0;
        if (ge < 0) {
            close(e->watch_fd);
            e->watch_fd = -1;
            if (how == ENGINE_SYSTEM_OPENS) {
                fprintf(stderr, "buildtrail run: --system=opens: cannot watch the build's mount "
                                "calls (seccomp user notifications): %s; use --system=full"
                                DOCTOR_HINT "\n", g_strerror(-ge));
                return -1;
            }
            e->watch_why_not = g_strdup_printf("seccomp user notifications unavailable: %s",
                                               g_strerror(-ge));
        }
    } else if (system && how == ENGINE_SYSTEM_OPENS) {
        fputs("buildtrail run: --system=opens needs root (fanotify); run as root, or use "
              "--system to trace the system trees through FUSE\n", stderr);
        return -1;
    }
    return 0;
}

int engine_start(struct engine *e, const struct engine_config *c)
{
    rec_start(&e->rec, NULL); /* its trace comes when the build's command starts */
    if (!e->rec) {
        fprintf(stderr, "buildtrail run: cannot start the recorder for %s\n", c->db_path);
        for (int i = 0; i < c->fs.n_trees; i++)
            close(c->fs.trees[i].fd);
        return -1;
    }
    rec_set_hooks(e->rec, c->hooks);
    e->procs = proc_table_new(e->rec);
    for (guint i = 0; i < c->env_redact->len; i++)
        proc_table_add_env_redact(e->procs, c->env_redact->pdata[i]);
    for (char *const *a = c->argv_redact; *a; a++)
        proc_table_add_argv_redact(e->procs, *a);
    /* Before the spawn, so that no fork of the build happens before the subscription.  Without
     * events the tree is partial and runs.process_tree says so.  BUILDTRAIL_NO_PROC_EVENTS=1
     * forces that /proc-only mode (tests use it to keep the fallback exercised). */
    if (g_strcmp0(g_getenv("BUILDTRAIL_NO_PROC_EVENTS"), "1") != 0)
        proc_table_enable_events(e->procs);
    e->vers = vers_new(e->rec, 0, c->hash_limit);
    struct fs_config fcfg = c->fs;
    fcfg.rec = e->rec;
    fcfg.procs = e->procs;
    fcfg.vers = e->vers;
    e->fs = fs_new(&fcfg);
    if (e->watch_fd < 0)
        return 0;
    /* The watcher takes the group (setup inherits it, same number, to make the marks). */
    int err = 0;
    g_autofree const char **served = g_new0(const char *, c->fs.n_trees + 1);
    for (int i = 0; i < c->fs.n_trees; i++)
        served[i] = c->fs.trees[i].path;
    g_autofree const char **watched = g_new0(const char *, c->watched->len + 1);
    for (guint i = 0; i < c->watched->len; i++)
        watched[i] = c->watched->pdata[i];
    e->syswatch = syswatch_start(e->watch_fd, e->rec, e->procs, e->vers,
                                 (char *const *)watched, (char *const *)served, &err);
    if (!e->syswatch) {
        e->watch_fd = -1;
        fprintf(stderr, "buildtrail run: cannot start watching the system trees: %s\n",
                g_strerror(-err));
        return -1;
    }
    return 0;
}

void engine_stop(struct engine *e, char **tree_note)
{
    proc_table_stop_events(e->procs, 5000);
    *tree_note = proc_table_tree_note(e->procs);
    if (!e->syswatch)
        return;
    g_autofree char *lost = NULL;
    e->watch_note = syswatch_stop(e->syswatch, &lost); /* after the last exec events */
    if (lost) /* the trace misses accesses: say so where queries look */
        *tree_note = trace_note_lost(*tree_note, lost);
    e->syswatch = NULL;
    e->watch_fd = -1;
}

void engine_leave(struct engine *e)
{
    e->fs = NULL;
    e->vers = NULL;
    e->procs = NULL;
    e->rec = NULL;
}

void engine_free(struct engine *e)
{
    if (e->syswatch) /* the build never ran: nothing to record */
        g_free(syswatch_stop(e->syswatch, NULL));
    else if (e->watch_fd >= 0)
        close(e->watch_fd);
    fs_free(e->fs);
    vers_free(e->vers);
    proc_table_free(e->procs);
    rec_free(e->rec);
    g_free(e->watch_why_not);
    g_free(e->watch_note);
}
