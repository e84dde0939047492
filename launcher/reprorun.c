/* reprorun — the builds of `buildtrail repro` (reprorun.h has the contract). */
#include "reprorun.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;
static volatile pid_t current_child;
static const int handled[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
static struct sigaction saved[G_N_ELEMENTS(handled)];

/* Async-signal-safe: remember, and pass a signal some process sent on to the child (the
 * terminal's Ctrl-C reached it already: it is in our process group). */
static void on_signal(int sig, siginfo_t *info, void *uc)
{
    (void)uc;
    if (!stop_signal)
        stop_signal = sig;
    pid_t child = current_child;
    if (child > 0 && info && info->si_code <= 0)
        kill(child, sig);
}

void reprorun_signals_begin(void)
{
    struct sigaction sa = {.sa_sigaction = on_signal, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < G_N_ELEMENTS(handled); i++)
        if (sigaction(handled[i], &sa, &saved[i]) < 0)
            saved[i].sa_handler = SIG_DFL;
}

void reprorun_signals_end(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(handled); i++)
        (void)sigaction(handled[i], &saved[i], NULL);
}

int reprorun_stopped(void)
{
    return stop_signal;
}

const volatile sig_atomic_t *reprorun_stop_flag(void)
{
    return &stop_signal;
}

int reprorun_outdir(const char *arg, const char *src, char **out, char **err)
{
    if (!arg) {
        g_autofree char *parent = g_path_get_dirname(src);
        g_autofree char *name = g_path_get_basename(src);
        for (unsigned n = 1; n < 1000; n++) {
            char *cand = n == 1 ? g_strdup_printf("%s/%s.repro", parent, name)
                                : g_strdup_printf("%s/%s.repro-%u", parent, name, n);
            if (mkdir(cand, 0755) == 0) { /* claimed: another repro at once takes the next */
                *out = cand;
                return 0;
            }
            int e = errno;
            g_free(cand);
            if (e != EEXIST) {
                *err = g_strdup_printf("cannot make a directory NAME.repro beside %s: %s; give "
                                       "one with -o DIR", src, g_strerror(e));
                return -e;
            }
        }
        *err = g_strdup_printf("no free name NAME.repro-N beside %s; give one with -o DIR", src);
        return -EEXIST;
    }
    if (!*arg) { /* else the cwd: "inside the source tree" */
        *err = g_strdup("-o '' names no directory; give a new or empty directory");
        return -EINVAL;
    }
    /* from the cwd, its parent's symbolic links resolved: a link into the tree is the tree */
    g_autofree char *given = g_canonicalize_filename(arg, NULL);
    g_autofree char *given_parent = g_path_get_dirname(given);
    g_autofree char *given_name = g_path_get_basename(given);
    char *real_parent = realpath(given_parent, NULL);
    g_autofree char *canon = real_parent && strcmp(given, "/")
                                 ? g_build_filename(real_parent, given_name, NULL)
                                 : g_strdup(given);
    free(real_parent);
    size_t sl = strlen(src);
    if (!strncmp(canon, src, sl) && (canon[sl] == '/' || !canon[sl])) {
        *err = g_strdup_printf("-o %s is inside the source tree %s, which is copied; give a "
                               "directory outside it", arg, src);
        return -EINVAL;
    }
    struct stat st;
    if (lstat(canon, &st) < 0) {
        if (errno != ENOENT) {
            *err = g_strdup_printf("-o %s: %s", arg, g_strerror(errno));
            return -errno;
        }
    } else if (S_ISLNK(st.st_mode)) {
        *err = g_strdup_printf("-o %s is a symbolic link; give the directory itself (new or "
                               "empty)", arg);
        return -ELOOP;
    } else if (!S_ISDIR(st.st_mode)) {
        *err = g_strdup_printf("-o %s is not a directory; give a new or empty directory", arg);
        return -ENOTDIR;
    } else {
        DIR *d = opendir(canon);
        if (!d) {
            *err = g_strdup_printf("-o %s: %s", arg, g_strerror(errno));
            return -errno;
        }
        struct dirent *e;
        bool empty = true;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                empty = false;
        closedir(d);
        if (!empty) {
            *err = g_strdup_printf("-o %s is not empty; give a new or empty directory (repro "
                                   "keeps its copies and traces there)", arg);
            return -ENOTEMPTY;
        }
        if (access(canon, W_OK | X_OK) < 0) {
            int denied = errno;
            *err = g_strdup_printf("-o %s: cannot write in it (%s); give a directory you can "
                                   "write in", arg, g_strerror(denied));
            return -denied;
        }
    }
    *out = g_steal_pointer(&canon);
    return 0;
}

int reprorun_outdir_make(const char *out)
{
    if (mkdir(out, 0755) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

/* Run argv in cwd (NULL: here), its stdout and stderr to fd `log` (-1: ours), and wait; its
 * wait status into *status.  -EINTR when a signal came (the child waited for all the same). */
static int spawn_wait(const char *cwd, const char *const *argv, int log, int *status, char **err)
{
    GError *e = NULL;
    GPid pid = 0;
    if (stop_signal)
        return -EINTR;
    if (!g_spawn_async_with_pipes_and_fds(cwd, argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL,
                                          NULL, -1, log, log, NULL, NULL, 0, &pid, NULL, NULL,
                                          NULL, &e)) {
        *err = g_strdup_printf("cannot start %s: %s", argv[0], e->message);
        g_error_free(e);
        return -ENOEXEC;
    }
    current_child = pid;
    if (stop_signal) /* came between the check and the spawn */
        kill(pid, stop_signal);
    int r;
    while ((r = waitpid(pid, status, 0)) < 0 && errno == EINTR)
        ;
    current_child = 0;
    if (r < 0) {
        *err = g_strdup_printf("waiting for %s: %s", argv[0], g_strerror(errno));
        return -ECHILD;
    }
    return stop_signal ? -EINTR : 0;
}

/* OUT/DIR/NAME made from src by `cp -a` (modes, links, times; owners as far as allowed). */
static int copy_tree(const char *src, const char *parent, const char *dest, char **err)
{
    if (mkdir(parent, 0755) < 0) {
        *err = g_strdup_printf("cannot make %s: %s%s", parent, g_strerror(errno),
                               errno == EEXIST ? " (is another repro using the same -o?)" : "");
        return -errno;
    }
    const char *argv[] = {"cp", "-a", "--", src, dest, NULL};
    int status = 0;
    int r = spawn_wait(NULL, argv, -1, &status, err);
    if (r < 0)
        return r;
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        *err = g_strdup_printf("cp -a %s %s failed (%s %d; what it said is above)", src, dest,
                               WIFEXITED(status) ? "exit" : "signal",
                               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return -EIO;
    }
    return 0;
}

/* `buildtrail run -q -o TRACE RUN_ARGS... -- CMD...` */
static GPtrArray *run_argv(const char *trace, const char *const *run_args, const char *const *cmd)
{
    GPtrArray *a = g_ptr_array_new();
    g_ptr_array_add(a, (char *)"/proc/self/exe");
    g_ptr_array_add(a, (char *)"run");
    g_ptr_array_add(a, (char *)"-q");
    g_ptr_array_add(a, (char *)"-o");
    g_ptr_array_add(a, (char *)trace);
    for (; run_args && *run_args; run_args++)
        g_ptr_array_add(a, (char *)*run_args);
    g_ptr_array_add(a, (char *)"--");
    for (; *cmd; cmd++)
        g_ptr_array_add(a, (char *)*cmd);
    g_ptr_array_add(a, NULL);
    return a;
}

int reprorun_build(const char *out, const char *src, const char *slot, bool other_path,
                   const char *const *run_args, const char *const *cmd,
                   struct reprorun_build *b, char **err)
{
    g_autofree char *name = g_path_get_basename(src);
    g_autofree char *parent =
        g_build_filename(out, other_path ? "build-at-another-path" : "build", NULL);
    g_autofree char *final_parent = g_build_filename(out, slot, NULL);
    b->slot = g_strdup(slot);
    b->built_at = g_build_filename(parent, name, NULL);
    b->copy = g_strdup(b->built_at);
    b->trace = g_strdup_printf("%s/%s.db", out, slot);
    b->log = g_strdup_printf("%s/%s.log", out, slot);
    b->status = -1;
    int r = copy_tree(src, parent, b->built_at, err);
    if (r < 0)
        return r;
    int log = open(b->log, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (log < 0) {
        *err = g_strdup_printf("cannot create %s: %s", b->log, g_strerror(errno));
        return -errno;
    }
    GPtrArray *argv = run_argv(b->trace, run_args, cmd);
    int status = 0;
    r = spawn_wait(b->built_at, (const char *const *)argv->pdata, log, &status, err);
    g_ptr_array_free(argv, TRUE);
    close(log);
    if (r < 0 && r != -EINTR)
        return r;
    b->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (rename(parent, final_parent) < 0) {
        if (r == 0)
            *err = g_strdup_printf("cannot rename %s to %s: %s", parent, final_parent,
                                   g_strerror(errno));
        return r ? r : -errno;
    }
    g_free(b->copy);
    b->copy = g_build_filename(final_parent, name, NULL);
    return r;
}

void reprorun_build_clear(struct reprorun_build *b)
{
    g_free(b->slot);
    g_free(b->built_at);
    g_free(b->copy);
    g_free(b->trace);
    g_free(b->log);
    *b = (struct reprorun_build){0};
}
