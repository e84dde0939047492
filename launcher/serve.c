/* serve — see serve.h. */
#include "serve.h"

#include "fs.h"
#include "nsguard.h"
#include "proc.h"
#include "recorder.h"
#include "trace.h"

#include <errno.h>
#include <glib.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void serve_init(struct serve *s)
{
    *s = (struct serve){.sigfd = -1, .fuse_fd = -1, .watch.wake_fd = -1,
                        .loop = {.lock = PTHREAD_MUTEX_INITIALIZER,
                                 .cond = PTHREAD_COND_INITIALIZER}};
    s->failure = (struct ns_report){-1, 0, -1};
}

void serve_block_signals(struct serve *s, struct ns_plan *plan)
{
    /* The daemon handles them on a signalfd; every thread inherits the mask. */
    sigemptyset(&s->handled);
    sigaddset(&s->handled, SIGINT);
    sigaddset(&s->handled, SIGTERM);
    sigaddset(&s->handled, SIGHUP);
    sigaddset(&s->handled, SIGQUIT);
    sigaddset(&s->handled, SIGCHLD);
    sigprocmask(SIG_BLOCK, &s->handled, &s->old_mask);
    s->signals_blocked = true;
    plan->sigmask = s->old_mask;
    /* a closed stdout becomes EPIPE for the writer, see fusefs/fs-vroot.c */
    plan->sigpipe_ignored = signal(SIGPIPE, SIG_IGN) == SIG_IGN;
    s->sigfd = signalfd(-1, &s->handled, SFD_CLOEXEC);
}

/* --- the recorder's hooks (its writer thread) -------------------------------------------- */

static void watch_wake(struct serve_watch *w)
{
    uint64_t one = 1;
    if (write(w->wake_fd, &one, sizeof one) < 0) {
        /* The counter cannot overflow here; the main loop also polls every second. */
    }
}

static void on_disk_full(void *arg, int err, bool full)
{
    struct serve_watch *w = arg;
    atomic_store(&w->disk_full, full);
    if (full)
        fprintf(stderr, "buildtrail run: the disk holding %s is full (%s); the build is paused "
                        "until space is freed \u2014 Ctrl-C to stop\n", w->db_path,
                g_strerror(err));
    else
        fprintf(stderr, "buildtrail run: there is space again for %s; the build goes on\n",
                w->db_path);
}

static void on_write_failed(void *arg, int err)
{
    struct serve_watch *w = arg;
    atomic_store(&w->write_errno, err);
    fprintf(stderr, "buildtrail run: cannot write the trace %s: %s; stopping the build, which "
                    "would run on unrecorded\n", w->db_path, g_strerror(err));
    watch_wake(w);
}

int serve_watch_start(struct serve *s, const char *db_path)
{
    s->watch.db_path = db_path;
    s->watch.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->watch.wake_fd < 0) {
        fprintf(stderr, "buildtrail run: cannot create an eventfd: %s\n", g_strerror(errno));
        return -1;
    }
    return 0;
}

struct rec_hooks serve_watch_hooks(struct serve *s)
{
    return (struct rec_hooks){on_disk_full, on_write_failed, &s->watch};
}

static int64_t clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void serve_take_clock(struct serve *s)
{
    /* The process events' clock is CLOCK_MONOTONIC made BOOTTIME with an offset taken at
     * their start (procevents.c); take ours too before the build runs, so that setup's
     * monotonic kill time compares with their exit times even across a suspend. */
    s->mono_to_boot_ns = clock_ns(CLOCK_BOOTTIME) - clock_ns(CLOCK_MONOTONIC);
}

/* --- the FUSE session -------------------------------------------------------------------- */

static void *loop_main(void *arg)
{
    struct serve_loop *l = arg;
    struct fuse_loop_config *cfg = fuse_loop_cfg_create();
    fuse_loop_cfg_set_max_threads(cfg, (unsigned)l->max_threads);
    fuse_loop_cfg_set_clone_fd(cfg, 0);
    l->result = fuse_session_loop_mt(l->se, cfg);
    fuse_loop_cfg_destroy(cfg);
    pthread_mutex_lock(&l->lock);
    l->done = true;
    pthread_cond_broadcast(&l->cond);
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

/* Wait up to `seconds` for the FUSE loop to end (the mount went away with the namespace). */
static bool loop_wait(struct serve_loop *l, int seconds)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += seconds;
    pthread_mutex_lock(&l->lock);
    while (!l->done)
        if (pthread_cond_timedwait(&l->cond, &l->lock, &until) == ETIMEDOUT)
            break;
    bool done = l->done;
    pthread_mutex_unlock(&l->lock);
    return done;
}

static int read_full(int fd, void *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EPIPE;
        got += (size_t)n;
    }
    return 0;
}

/* With watched trees: the listener of the build's mount calls, passed after the FUSE fd. */
static void start_guard(struct serve *s, int sock, pid_t setup)
{
    int gfd = ns_recv_fd(sock), e = gfd;
    if (gfd >= 0 && !(s->guard = nsguard_start(gfd, &e)))
        gfd = -1;
    if (gfd < 0 && e != -EPIPE) { /* EPIPE: setup failed, its report says why */
        fprintf(stderr, "buildtrail run: cannot watch the build's mount calls: %s\n",
                g_strerror(-e));
        s->stop_reason = g_strdup("the build's mount calls could not be watched");
        kill(setup, SIGKILL);
    }
}

void serve_session_start(struct serve *s, int sock, pid_t setup, bool guard, struct fs *fs,
                         struct proc_table *procs)
{
    s->fuse_fd = ns_recv_fd(sock);
    if (s->fuse_fd < 0)
        return; /* setup failed: its report says why */
    struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
    fuse_opt_add_arg(&args, "buildtrail");
    s->se = fuse_session_new(&args, fs_operations(), sizeof(struct fuse_lowlevel_ops), fs);
    fuse_opt_free_args(&args);
    if (!s->se || fs_session_attach(fs, s->se, s->fuse_fd) != 0) {
        fputs("buildtrail run: cannot serve the FUSE connection (libfuse refused it)\n", stderr);
        kill(setup, SIGKILL);
        return;
    }
    s->fuse_fd = -1; /* the session owns it */
    s->loop.se = s->se;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    s->loop.max_threads = (int)MAX(16, 4 * ncpu);
    pthread_create(&s->loop_thread, NULL, loop_main, &s->loop);
    s->serving = true;
    if (guard)
        start_guard(s, sock, setup);
    pid_t init = 0;
    if (read_full(sock, &init, sizeof init) == 0)
        proc_table_set_launcher(procs, setup, init);
}

void serve_session_stop(struct serve *s, struct fs *fs)
{
    if (!s->serving)
        return;
    if (!loop_wait(&s->loop, 10)) {
        /* Something outside the build's namespaces holds the mount (an fd passed out over a
         * socket).  Its loop threads may still be serving: leave the session and the
         * filesystem to process exit rather than free them under those threads. */
        fputs("buildtrail run: warning: the FUSE mount outlived the build; its remaining "
              "requests are not recorded\n", stderr);
        fuse_session_exit(s->se);
        s->loop_running = true;
    } else {
        pthread_join(s->loop_thread, NULL);
    }
    fs_flush_open_handles(fs);
}

/* --- the main loop ----------------------------------------------------------------------- */

/* The recorder failed, or the trace's file went: stop the build. */
static void check_trace(struct serve *s, pid_t setup, struct trace *trace)
{
    if (s->stop_reason)
        return;
    int werr = atomic_load(&s->watch.write_errno);
    if (werr) {
        s->stop_reason = g_strdup_printf("writing the trace failed: %s", g_strerror(werr));
    } else if (!s->watch.lost) {
        s->watch.lost = trace_problem(trace);
        if (s->watch.lost) {
            fprintf(stderr, "buildtrail run: the trace %s %s while the build was running; "
                            "stopping the build, whose record would be lost\n",
                    trace->path, s->watch.lost);
            s->stop_reason = g_strdup_printf("the trace file %s during the run", s->watch.lost);
        }
    }
    if (s->stop_reason)
        kill(setup, SIGKILL); /* init and the build's pid namespace die with it */
}

/* One report of setup's; false when there are no more. */
static bool read_report(struct serve *s, int report_fd, pid_t setup, struct trace *trace,
                        struct rec *rec)
{
    struct ns_report rep;
    if (read_full(report_fd, &rep, sizeof rep) < 0)
        return false;
    if (rep.step == NS_STEP_STATUS) {
        s->have_status = true;
        s->wait_status = rep.value;
    } else if (rep.step == NS_STEP_STARTED) {
        if (!trace->published && !s->stop_reason && trace_publish(trace, rec, &s->stop_reason) < 0)
            kill(setup, SIGKILL);
    } else if (rep.step == NS_STEP_KILL_LEFT) {
        s->kill_left_ns = rep.time_ns + s->mono_to_boot_ns;
    } else if (s->failure.step < 0) {
        s->failure = rep;
    }
    return true;
}

/* One signal to the daemon. */
static void on_signal(struct serve *s, pid_t setup, struct rec *rec, struct proc_table *procs)
{
    struct signalfd_siginfo si;
    if (read(s->sigfd, &si, sizeof si) != sizeof si)
        return;
    if (si.ssi_signo == SIGCHLD) {
        if (!s->setup_done && waitpid(setup, &s->setup_wait, WNOHANG) == setup)
            s->setup_done = true;
        return;
    }
    s->interrupted = true;
    if (atomic_load(&s->watch.disk_full) && !s->stop_reason) {
        /* The build is paused on a full disk and the user asked to stop: give up. */
        s->stop_reason = g_strdup("stopped while waiting for disk space for the trace");
        rec_abandon(rec);
        kill(setup, SIGKILL);
        return;
    }
    /* A terminal's Ctrl-C already reached the build (same process group); a signal sent to
     * buildtrail alone is passed on to the build's root process. */
    pid_t root = proc_table_root_pid(procs);
    if ((si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE || si.ssi_signo == SIGTERM ||
         si.ssi_signo == SIGHUP) &&
        root > 0)
        kill(root, (int)si.ssi_signo);
    else if (root <= 0 && setup > 0 && si.ssi_code == SI_USER)
        kill(setup, SIGKILL); /* the build never started: stop setting it up */
}

void serve_wait(struct serve *s, int report_fd, pid_t setup, struct trace *trace,
                struct rec *rec, struct proc_table *procs)
{
    s->setup_wait = 0;
    s->setup_done = false;
    bool reports_done = false;
    while (!s->setup_done || !reports_done) {
        struct pollfd pfd[3] = {{s->sigfd, POLLIN, 0}, {s->watch.wake_fd, POLLIN, 0},
                                {report_fd, POLLIN, 0}};
        int n = poll(pfd, reports_done ? 2 : 3, 1000);
        if (n < 0 && errno != EINTR)
            break;
        if (pfd[1].revents & POLLIN) {
            uint64_t v;
            if (read(s->watch.wake_fd, &v, sizeof v) < 0) {
                /* nothing to drain: a spurious wake */
            }
        }
        check_trace(s, setup, trace);
        if (!reports_done && (pfd[2].revents & (POLLIN | POLLHUP)))
            reports_done = !read_report(s, report_fd, setup, trace, rec);
        if (pfd[0].revents & POLLIN)
            on_signal(s, setup, rec, procs);
    }
}

void serve_cleanup(struct serve *s)
{
    g_free(nsguard_stop(s->guard, NULL));
    s->guard = NULL;
    if (s->se && !s->loop_running)
        fuse_session_destroy(s->se);
    s->se = NULL;
    if (s->signals_blocked)
        sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
    if (s->watch.wake_fd >= 0)
        close(s->watch.wake_fd);
    g_free(s->watch.lost);
    if (s->fuse_fd >= 0)
        close(s->fuse_fd);
    if (s->sigfd >= 0)
        close(s->sigfd);
    g_free(s->stop_reason);
}
