/* Unit tests: the process table under process events — scripted event sequences in the orders
 * the kernel really produces.  The kernel reports an exit only after the parent could reap the
 * process (exit_notify() before proc_exit_connector() in do_exit()), so the fork that reuses a
 * pid can be reported before the exit of the task that had it, and the build can end before
 * its last exits are reported.
 *
 * The pids are above the kernel's largest possible pid_max (2^22), so no /proc entry exists for
 * them: the table records what the events say and nothing it reads (except in the tests that
 * say they use real processes). */
#include "proc.h"
#include "recorder.h"
#include "redact.h"
#include "tracedb.h"
#include "unit-sql.h"

#include <glib.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SETUP 5000001
#define INIT 5000002
#define ROOT 5000003
#define CHILD 5000010
#define THREAD 5000020
#define OTHER 5000030

struct fixture {
    sqlite3 *db;
    struct rec *rec;
    struct proc_table *t;
    int64_t now;
};

static void fx_start(struct fixture *f, const char *name)
{
    g_autofree char *p = unit_path(name);
    g_assert_cmpint(tracedb_create(p, 0600, &f->db, NULL, NULL), ==, 0);
    g_assert_cmpint(rec_start(&f->rec, f->db), ==, 0);
    f->t = proc_table_new(f->rec);
    f->now = 1000;
}

static void fx_stop(struct fixture *f)
{
    proc_table_free(f->t);
    g_assert_cmpint(rec_stop(f->rec, &f->db), ==, 0);
    rec_free(f->rec);
}

static void ev_fork(struct fixture *f, pid_t pid, pid_t tgid, pid_t parent)
{
    struct procev_event ev = {.type = PROCEV_FORK, .time_ns = f->now++, .pid = pid, .tgid = tgid,
                              .parent_pid = parent, .parent_tgid = parent};
    proc_table_apply_event(f->t, &ev);
}

static void ev_exec(struct fixture *f, pid_t pid)
{
    struct procev_event ev = {.type = PROCEV_EXEC, .time_ns = f->now++, .pid = pid, .tgid = pid};
    proc_table_apply_event(f->t, &ev);
}

static void ev_exit(struct fixture *f, pid_t pid, pid_t tgid, int status)
{
    struct procev_event ev = {.type = PROCEV_EXIT, .time_ns = f->now++, .pid = pid, .tgid = tgid,
                              .exit_code = status};
    proc_table_apply_event(f->t, &ev);
}

/* The launcher's setup forks init, then the build's root, which execs: image 1. */
static void start_build(struct fixture *f)
{
    proc_table_set_launcher(f->t, SETUP, 0);
    ev_fork(f, INIT, INIT, SETUP);
    ev_fork(f, ROOT, ROOT, SETUP);
    ev_exec(f, ROOT);
    g_assert_cmpint(proc_table_root_id(f->t), ==, 1);
}

static int64_t exit_code_of(sqlite3 *db, int64_t image)
{
    g_autofree char *q = g_strdup_printf("select exit_code from exits where process_id = %lld",
                                         (long long)image);
    return unit_sql_int(db, q);
}

/* Setup reports init's pid over its socket while the event thread may not have applied init's
 * fork yet: init's fork must still be told from the root's (it was taken for the root, and the
 * real root's fork ignored: a build's whole tree missing while the trace said complete). */
static void test_init_known_before_its_fork(void)
{
    struct fixture f;
    fx_start(&f, "init-known.db");
    proc_table_set_launcher(f.t, SETUP, INIT); /* the socket's report came first */
    ev_fork(&f, INIT, INIT, SETUP);
    ev_fork(&f, ROOT, ROOT, SETUP);
    ev_exec(&f, ROOT);
    g_assert_cmpint(proc_table_root_id(f.t), ==, 1);
    ev_fork(&f, CHILD, CHILD, ROOT); /* image 2 */
    ev_exec(&f, CHILD);              /* image 3 */
    ev_exit(&f, CHILD, CHILD, 0);
    ev_exit(&f, ROOT, ROOT, 0);
    fx_stop(&f);
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from processes"), ==, 3);
    g_assert_cmpint(unit_sql_int(f.db, "select parent_id from processes where id = 2"), ==, 1);
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from exits"), ==, 2);
    sqlite3_close(f.db);
}

/* A pid reused before the exit of its earlier holder is reported: that exit is the earlier
 * task's, and the new task stays live (its exec and exit are its own). */
static void test_reuse_before_exit(void)
{
    struct fixture f;
    fx_start(&f, "reuse.db");
    start_build(&f);
    ev_fork(&f, CHILD, CHILD, ROOT);     /* image 2 */
    ev_fork(&f, CHILD, CHILD, ROOT);     /* image 3: the pid again, image 2's exit not seen yet */
    ev_exit(&f, CHILD, CHILD, 1 << 8);   /* image 2 exited 1 */
    ev_exec(&f, CHILD);                  /* image 4, the exec of image 3 */
    ev_exit(&f, CHILD, CHILD, 2 << 8);   /* image 4 exited 2 */
    /* A thread's tid reused by a new process before the thread's exit is reported. */
    ev_fork(&f, THREAD, ROOT, ROOT);     /* a thread of the root */
    ev_fork(&f, THREAD, THREAD, ROOT);   /* image 5 */
    ev_exit(&f, THREAD, ROOT, 0);        /* the thread's exit: not image 5's */
    ev_exit(&f, THREAD, THREAD, 3 << 8); /* image 5 exited 3 */
    ev_exit(&f, ROOT, ROOT, 0);
    /* After the build: another process gets init's pid and forks and execs a child. */
    ev_exit(&f, INIT, INIT, 0);
    ev_fork(&f, INIT, INIT, 1);
    ev_fork(&f, OTHER, OTHER, INIT);
    ev_exec(&f, OTHER);
    ev_exit(&f, OTHER, OTHER, 1 << 8);
    /* ... and another gets setup's pid and does the same: neither is the build's. */
    ev_exit(&f, SETUP, SETUP, 0);
    ev_fork(&f, SETUP, SETUP, 1);
    ev_fork(&f, OTHER + 1, OTHER + 1, SETUP);
    ev_exec(&f, OTHER + 1);
    ev_exit(&f, OTHER + 1, OTHER + 1, 1 << 8);
    g_assert_cmpint(proc_table_root_id(f.t), ==, 1);
    fx_stop(&f);

    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from processes"), ==, 5);
    g_assert_cmpint(unit_sql_int(f.db, "select prev_image_id from processes where id = 4"), ==, 3);
    g_assert_cmpint(unit_sql_int(f.db, "select parent_id from processes where id = 5"), ==, 1);
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from exits"), ==, 4);
    g_assert_cmpint(exit_code_of(f.db, 1), ==, 0);
    g_assert_cmpint(exit_code_of(f.db, 2), ==, 1);
    g_assert_cmpint(exit_code_of(f.db, 3), ==, -1); /* replaced by its exec: no exit of its own */
    g_assert_cmpint(exit_code_of(f.db, 4), ==, 2);
    g_assert_cmpint(exit_code_of(f.db, 5), ==, 3);
    sqlite3_close(f.db);
}

/* A tid reused by a thread of another process that exits before the late exit event of the
 * tid's earlier task: the thread's exit is its process's, the late one the earlier task's. */
static void test_reuse_by_thread_before_exit(void)
{
    struct fixture f;
    fx_start(&f, "reuse-thread.db");
    start_build(&f);
    ev_fork(&f, CHILD, CHILD, ROOT);     /* image 2 */
    ev_fork(&f, CHILD, ROOT, ROOT);      /* its tid, now a thread of the root */
    ev_exit(&f, CHILD, ROOT, 0);         /* that thread ends */
    ev_exit(&f, CHILD, CHILD, 5 << 8);   /* image 2's late exit: 5 */
    ev_exit(&f, ROOT, ROOT, 0);          /* the root, its last thread gone: 0 */
    fx_stop(&f);
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from exits"), ==, 2);
    g_assert_cmpint(exit_code_of(f.db, 2), ==, 5);
    g_assert_cmpint(exit_code_of(f.db, 1), ==, 0);
    sqlite3_close(f.db);
}

/* Threads: a non-main thread's exec kills the main thread (whose exit the kernel reports) and
 * takes over the pid; a main thread that exits first leaves the process running in the other. */
static void test_thread_exec_and_leader_exit(void)
{
    struct fixture f;
    fx_start(&f, "threads.db");
    start_build(&f);
    ev_fork(&f, CHILD, CHILD, ROOT);       /* image 2 */
    ev_fork(&f, THREAD, CHILD, ROOT);      /* its second thread */
    ev_exit(&f, CHILD, CHILD, 9);          /* the main thread, killed by the exec */
    ev_exec(&f, CHILD);                    /* image 3: the thread's exec, same pid */
    ev_exit(&f, CHILD, CHILD, 0);          /* image 3 exited 0 */
    ev_fork(&f, OTHER, OTHER, ROOT);       /* image 4 */
    ev_fork(&f, THREAD + 1, OTHER, ROOT);  /* its second thread */
    ev_exit(&f, OTHER, OTHER, 0);          /* the main thread exits first: not yet the end */
    ev_exit(&f, THREAD + 1, OTHER, 4 << 8); /* the last thread: image 4 exited 4 */
    ev_exit(&f, ROOT, ROOT, 0);
    fx_stop(&f);
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from processes"), ==, 4);
    g_assert_cmpint(unit_sql_int(f.db, "select prev_image_id from processes where id = 3"), ==, 2);
    g_assert_cmpint(exit_code_of(f.db, 2), ==, -1); /* replaced by the exec */
    g_assert_cmpint(exit_code_of(f.db, 3), ==, 0);
    g_assert_cmpint(exit_code_of(f.db, 4), ==, 4);
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from exits"), ==, 3);
    sqlite3_close(f.db);
}

/* A process whose main thread's exit is reported before its other thread's: the parent can reap
 * it, and its pid be given to a new process (or thread), before that last exit is reported
 * (a thread that has exited no longer holds the group up; its exit event comes after).  The
 * late exit is the earlier process's, not the new one's.  Before, the fork that reused the pid
 * dropped the earlier process from the table: its exit was lost, and the tree still said
 * complete. */
static void test_pid_reuse_before_thread_exit(void)
{
    struct fixture f;
    fx_start(&f, "reuse-group.db");
    start_build(&f);
    ev_fork(&f, CHILD, CHILD, ROOT);      /* image 2 */
    ev_fork(&f, THREAD, CHILD, ROOT);     /* its second thread */
    ev_fork(&f, THREAD + 1, CHILD, ROOT); /* and a third */
    ev_exit(&f, CHILD, CHILD, 4 << 8);    /* the main thread's exit, reported first */
    ev_exit(&f, THREAD + 1, CHILD, 4 << 8);
    ev_fork(&f, CHILD, CHILD, ROOT);      /* image 3: the pid again, image 2 reaped */
    ev_fork(&f, THREAD + 2, CHILD, ROOT); /* a thread of image 3 */
    ev_exit(&f, THREAD, CHILD, 4 << 8);   /* image 2's last thread: image 2 exited 4 */
    ev_exit(&f, THREAD + 2, CHILD, 0);
    ev_exit(&f, CHILD, CHILD, 5 << 8);    /* image 3 exited 5 */
    /* The same with a thread of the root taking the pid. */
    ev_fork(&f, OTHER, OTHER, ROOT);      /* image 4 */
    ev_fork(&f, OTHER + 1, OTHER, ROOT);
    ev_exit(&f, OTHER, OTHER, 6 << 8);
    ev_fork(&f, OTHER, ROOT, ROOT);       /* a thread of the root gets image 4's pid */
    ev_exit(&f, OTHER + 1, OTHER, 6 << 8); /* image 4 exited 6 */
    ev_exit(&f, OTHER, ROOT, 0);
    ev_exit(&f, ROOT, ROOT, 0);
    fx_stop(&f);
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from processes"), ==, 4);
    g_assert_cmpint(exit_code_of(f.db, 2), ==, 4);
    g_assert_cmpint(exit_code_of(f.db, 3), ==, 5);
    g_assert_cmpint(exit_code_of(f.db, 4), ==, 6);
    g_assert_cmpint(exit_code_of(f.db, 1), ==, 0);
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from exits"), ==, 4);
    sqlite3_close(f.db);
}

/* A process that joins its threads and returns 3 from main: the threads' own exits say 0, and
 * one may be reported after the main thread's; the process's status is 3 (before, the last
 * exit reported: 0).  One whose main thread exits first and whose other thread calls exit(4):
 * 4. */
static void test_status_of_threaded_process(void)
{
    struct fixture f;
    fx_start(&f, "thread-status.db");
    start_build(&f);
    ev_fork(&f, CHILD, CHILD, ROOT);     /* image 2 */
    ev_fork(&f, THREAD, CHILD, ROOT);
    ev_exit(&f, CHILD, CHILD, 3 << 8);   /* main returned 3 (exit_group) ... */
    ev_exit(&f, THREAD, CHILD, 0);       /* ... the joined thread's exit reported after it */
    ev_fork(&f, OTHER, OTHER, ROOT);     /* image 3 */
    ev_fork(&f, OTHER + 1, OTHER, ROOT);
    ev_exit(&f, OTHER, OTHER, 0);        /* pthread_exit() in main */
    ev_exit(&f, OTHER + 1, OTHER, 4 << 8); /* exit(4) from the other thread */
    ev_exit(&f, ROOT, ROOT, 0);
    fx_stop(&f);
    g_assert_cmpint(exit_code_of(f.db, 2), ==, 3);
    g_assert_cmpint(exit_code_of(f.db, 3), ==, 4);
    sqlite3_close(f.db);
}

/* Stopping while an exit is still owed waits for it (here: never comes) and says so. */
static void test_exit_owed_at_stop(void)
{
    struct fixture f;
    fx_start(&f, "owed.db");
    if (proc_table_enable_events(f.t) < 0) {
        fx_stop(&f);
        sqlite3_close(f.db);
        g_test_skip("the process-events connector needs root here");
        return;
    }
    start_build(&f); /* starts the event thread: real events, none of them the build's */
    ev_fork(&f, CHILD, CHILD, ROOT);
    ev_exit(&f, ROOT, ROOT, 0);
    proc_table_stop_events(f.t, 300);
    g_autofree char *note = proc_table_tree_note(f.t);
    fx_stop(&f);
    g_assert_cmpstr(note, ==, "complete, except the exit of 1 process: not reported by the end of "
                              "the run");
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from exits"), ==, 1);
    sqlite3_close(f.db);
}

/* After the kernel dropped events, a build process is found from /proc (its fork was never
 * reported): from then on it is followed by events again — the child it forks next is
 * recorded with it as parent, and both exits are (before, the child was ignored and the
 * process held to the end, exit unknown).  Real processes: this test process plays the
 * launcher's init, and its child was forked before the subscription, as if its fork event had
 * been dropped. */
static void test_reattach_after_lost_events(void)
{
    struct fixture f;
    fx_start(&f, "reattach.db");
    int go[2], done[2];
    g_assert_cmpint(pipe(go), ==, 0);
    g_assert_cmpint(pipe(done), ==, 0);
    pid_t child = fork();
    g_assert_cmpint(child, >=, 0);
    if (child == 0) {
        char c;
        close(go[1]);
        close(done[0]);
        if (read(go[0], &c, 1) != 1) /* until the table has seen it */
            _exit(90);
        pid_t g = fork();
        if (g == 0)
            _exit(7);
        int st;
        if (g < 0 || waitpid(g, &st, 0) != g || write(done[1], "x", 1) != 1)
            _exit(91);
        if (read(go[0], &c, 1) != 1)
            _exit(92);
        _exit(3);
    }
    close(go[0]);
    close(done[1]);
    if (proc_table_enable_events(f.t) < 0) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
        fx_stop(&f);
        sqlite3_close(f.db);
        g_test_skip("the process-events connector needs root here");
        return;
    }
    proc_table_set_launcher(f.t, SETUP, getpid()); /* starts the event thread */
    int64_t id = proc_resolve(f.t, child);
    g_assert_cmpint(id, ==, 1);
    char c;
    g_assert_cmpint(write(go[1], "f", 1), ==, 1);  /* fork the grandchild, which exits 7 */
    g_assert_cmpint(read(done[0], &c, 1), ==, 1);
    g_assert_cmpint(write(go[1], "e", 1), ==, 1);  /* then exit 3 */
    int st;
    g_assert_cmpint(waitpid(child, &st, 0), ==, child);
    g_assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 3);
    proc_table_stop_events(f.t, 3000); /* waits for the exits owed */
    g_autofree char *note = proc_table_tree_note(f.t);
    fx_stop(&f);
    close(go[1]);
    close(done[0]);
    g_assert_cmpstr(note, ==, "complete");
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from processes"), ==, 2);
    g_assert_cmpint(unit_sql_int(f.db, "select parent_id from processes where id = 2"), ==, 1);
    g_assert_cmpint(exit_code_of(f.db, 2), ==, 7);
    g_assert_cmpint(exit_code_of(f.db, 1), ==, 3);
    sqlite3_close(f.db);
}

/* ---- a re-found process with threads (real processes: this program run as a helper) ------- */

static int h_in = -1, h_tin = -1, h_out = -1;

static void h_read(int fd, char want)
{
    char c;
    if (read(fd, &c, 1) != 1 || c != want)
        _exit(90); /* the test is gone, or out of step */
}

static void *helper_thread(void *leader_exits)
{
    pid_t tid = gettid();
    if (write(h_out, &tid, sizeof tid) != (ssize_t)sizeof tid)
        _exit(91);
    if (leader_exits) {
        h_read(h_in, 'x');
        exit(4); /* the process's end: its main thread has long exited */
    }
    h_read(h_tin, 'q');
    return NULL;
}

/* `test-proctable --helper MODE IN TIN OUT`: "threads": a second thread, then on 'f' a child
 * that execs `sh -c 'exit 7'`, then on 'x' (after the thread was told 'q') exit 3;
 * "leader-exit": a second thread, the main thread exits, the other exits the process (4) on 'x'. */
static int helper_main(char **argv)
{
    h_in = atoi(argv[3]);
    h_tin = atoi(argv[4]);
    h_out = atoi(argv[5]);
    pthread_t th;
    bool leader_exits = !strcmp(argv[2], "leader-exit");
    if (pthread_create(&th, NULL, helper_thread, leader_exits ? &th : NULL) != 0)
        return 92;
    if (leader_exits)
        pthread_exit(NULL);
    h_read(h_in, 'f');
    pid_t g = fork();
    if (g == 0) {
        execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
        _exit(93);
    }
    int st;
    if (g < 0 || waitpid(g, &st, 0) != g || write(h_out, "d", 1) != 1)
        return 94;
    h_read(h_in, 'x');
    pthread_join(th, NULL);
    return 3;
}

struct helper {
    pid_t pid, thread;
    int in, tin, out;
};

/* Start the helper in MODE; its fork and the fork of its thread come before the table knows
 * it, as if their events had been dropped.  FALSE (skipped) without the connector. */
static gboolean helper_start(struct fixture *f, const char *mode, struct helper *h)
{
    int in[2], tin[2], out[2];
    g_assert_cmpint(pipe(in), ==, 0);
    g_assert_cmpint(pipe(tin), ==, 0);
    g_assert_cmpint(pipe(out), ==, 0);
    char a[3][16];
    snprintf(a[0], sizeof a[0], "%d", in[0]);
    snprintf(a[1], sizeof a[1], "%d", tin[0]);
    snprintf(a[2], sizeof a[2], "%d", out[1]);
    /* Under LeakSanitizer the helper's exit would clone a tracer task (a process of its own,
     * recorded as one more child): the helper checks no leaks. */
    g_auto(GStrv) env = g_environ_setenv(g_get_environ(), "ASAN_OPTIONS", "detect_leaks=0", TRUE);
    char name[] = "test-proctable", flag[] = "--helper";
    g_autofree char *mode_arg = g_strdup(mode);
    char *args[] = {name, flag, mode_arg, a[0], a[1], a[2], NULL};
    h->pid = fork();
    g_assert_cmpint(h->pid, >=, 0);
    if (h->pid == 0) {
        close(in[1]);
        close(tin[1]);
        close(out[0]);
        execve("/proc/self/exe", args, env);
        _exit(95);
    }
    close(in[0]);
    close(tin[0]);
    close(out[1]);
    h->in = in[1];
    h->tin = tin[1];
    h->out = out[0];
    g_assert_cmpint(read(h->out, &h->thread, sizeof h->thread), ==, sizeof h->thread);
    if (proc_table_enable_events(f->t) < 0) {
        kill(h->pid, SIGKILL);
        waitpid(h->pid, NULL, 0);
        return FALSE;
    }
    proc_table_set_launcher(f->t, SETUP, getpid()); /* starts the event thread */
    return TRUE;
}

static int helper_wait(struct helper *h)
{
    int st;
    g_assert_cmpint(waitpid(h->pid, &st, 0), ==, h->pid);
    close(h->in);
    close(h->tin);
    close(h->out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A process re-found from /proc with a second thread, whose fork event comes after the
 * re-attach (made after the request's drain, before the listing: here the event is fed by
 * hand): it is counted once, so the process's exit is recorded when that thread and the main
 * one have ended.  Its child (which execs) and the child's exec and exit are recorded too. */
static void test_reattach_threads(void)
{
    struct fixture f;
    fx_start(&f, "reattach-threads.db");
    struct helper h;
    if (!helper_start(&f, "threads", &h)) {
        fx_stop(&f);
        sqlite3_close(f.db);
        g_test_skip("the process-events connector needs root here");
        return;
    }
    g_assert_cmpint(proc_resolve(f.t, h.pid), ==, 1);
    ev_fork(&f, h.thread, h.pid, h.pid); /* the thread's fork, queued before the listing */
    char c;
    g_assert_cmpint(write(h.in, "f", 1), ==, 1);
    g_assert_cmpint(read(h.out, &c, 1), ==, 1);
    g_assert_cmpint(write(h.tin, "q", 1), ==, 1);
    g_assert_cmpint(write(h.in, "x", 1), ==, 1);
    g_assert_cmpint(helper_wait(&h), ==, 3);
    proc_table_stop_events(f.t, 3000);
    g_autofree char *note = proc_table_tree_note(f.t);
    fx_stop(&f);
    g_assert_cmpstr(note, ==, "complete");
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from processes"), ==, 3);
    g_assert_cmpint(unit_sql_int(f.db, "select parent_id from processes where id = 2"), ==, 1);
    g_assert_cmpint(unit_sql_int(f.db, "select prev_image_id from processes where id = 3"), ==, 2);
    g_assert_cmpint(exit_code_of(f.db, 3), ==, 7);
    g_assert_cmpint(exit_code_of(f.db, 1), ==, 3);
    sqlite3_close(f.db);
}

/* A process re-found from /proc through its second thread after its main thread exited: it is
 * made live without the main thread, and ends when that thread exits the process. */
static void test_reattach_leader_exited(void)
{
    struct fixture f;
    fx_start(&f, "reattach-leader.db");
    struct helper h;
    if (!helper_start(&f, "leader-exit", &h)) {
        fx_stop(&f);
        sqlite3_close(f.db);
        g_test_skip("the process-events connector needs root here");
        return;
    }
    /* The main thread is a zombie once /proc says so. */
    char path[64], buf[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)h.pid);
    for (int i = 0; i < 500 && !strstr(buf, ") Z"); i++) {
        g_autofree char *text = NULL;
        if (g_file_get_contents(path, &text, NULL, NULL))
            g_strlcpy(buf, text, sizeof buf);
        g_usleep(2000);
    }
    g_assert_nonnull(strstr(buf, ") Z"));
    g_assert_cmpint(proc_resolve(f.t, h.thread), ==, 1);
    g_assert_cmpint(write(h.in, "x", 1), ==, 1);
    g_assert_cmpint(helper_wait(&h), ==, 4);
    proc_table_stop_events(f.t, 3000);
    g_autofree char *note = proc_table_tree_note(f.t);
    fx_stop(&f);
    g_assert_cmpstr(note, ==, "complete");
    g_assert_cmpint(unit_sql_int(f.db, "select count(*) from processes"), ==, 1);
    g_assert_cmpint(exit_code_of(f.db, 1), ==, 4);
    sqlite3_close(f.db);
}

/* Redaction keeps a matching variable's name and drops its value, whatever the case of the
 * name; empty entries go; the rest is kept byte for byte. */
static void test_env_redact(void)
{
    static const char in[] = "PATH=/bin\0GITHUB_TOKEN=abc\0\0db_password=x=y\0AWS_KEY=k\0"
                             "KEYRING=1\0NOEQUALS\0";
    size_t n;
    g_autofree char *out = redact_env(in, sizeof in - 1, NULL, &n);
    static const char want[] = "PATH=/bin\0GITHUB_TOKEN\0db_password\0AWS_KEY\0KEYRING=1\0"
                               "NOEQUALS\0";
    g_assert_cmpmem(out, n, want, sizeof want - 1);
    /* An added pattern; an empty environment; a last entry without its NUL. */
    char *const mine[] = {(char *)"PATH", NULL};
    g_autofree char *one = redact_env(in, 10, mine, &n);
    g_assert_cmpmem(one, n, "PATH\0", 5);
    g_autofree char *none = redact_env(in, 0, mine, &n);
    g_assert_cmpuint(n, ==, 0);
    g_autofree char *cut = redact_env("A=1\0B=2", 7, NULL, &n);
    g_assert_cmpmem(cut, n, "A=1\0B=2\0", 8);
}

/* The built-in names: secret-looking ones, and the near misses a build needs to keep. */
static void test_env_secret_names(void)
{
    static const char *const secret[] = {
        "GITHUB_TOKEN", "NPM_AUTH", "npm_config__auth", "GITHUB_PAT", "gh_pat", "PAT",
        "APIKEY", "MY_APIKEY", "PRIVATE_KEY_PEM", "MY_PASS", "pass", "CI_JOB_JWT",
        "DOCKER_AUTH_CONFIG", "COOKIE", "SESSION", "XDG_SESSION_ID", "AUTHORIZATION",
        "GPG_PASSPHRASE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
        "LDAP_PASSWD", "AZURE_CREDENTIALS", "SSH_KEYS", "MYSQL_PWD", "OAUTH2_CLIENT",
        "signing-key", "API.KEY", "SLACK_WEBHOOK_TOKEN", "SSHPASS", "DBPASS", "SMTP_PW", "pw"};
    static const char *const plain[] = {
        "PATH", "PATCH_LEVEL", "PWD", "OLDPWD", "KEYMAP", "XKB_KEYMAP", "PASSTHROUGH",
        "SSH_ASKPASS", "GIT_AUTHOR_NAME", "GIT_AUTHOR_DATE", "DEB_AUTHORS", "COMPASS_DIR",
        "HOME", "LANG", "SOURCE_DATE_EPOCH", "DATABASE_URL", "http_proxy", "MONKEY",
        "SPATIAL", "KEYRING", "DEB_SIGN_KEYID", "BYPASS_CACHE", "GIT_ASKPASS", "PWNED_DIR",
        "POWER"};
    for (size_t i = 0; i < G_N_ELEMENTS(secret); i++)
        if (!redact_env_name_is_secret(secret[i]))
            g_error("%s should be redacted", secret[i]);
    for (size_t i = 0; i < G_N_ELEMENTS(plain); i++)
        if (redact_env_name_is_secret(plain[i]))
            g_error("%s should be kept", plain[i]);
}

/* URL credentials go from values and arguments; the rest of the URL stays. */
static void test_url_credentials(void)
{
    static const char in[] =
        "DATABASE_URL=postgres://u:pa@ss@db.example:5432/x?sslmode=require\0"
        "http_proxy=http://u:p@proxy:3128\0"
        "REPO=https://ghp_abc@github.com/o/r.git https://x:y@h/ ssh://git@host/r\0"
        "PLAIN=https://host/a@b http://@h/ http://u:@h/\0";
    size_t n;
    g_autofree char *out = redact_env(in, sizeof in - 1, NULL, &n);
    static const char want[] =
        "DATABASE_URL=postgres://u:REDACTED@db.example:5432/x?sslmode=require\0"
        "http_proxy=http://u:REDACTED@proxy:3128\0"
        "REPO=https://REDACTED@github.com/o/r.git https://x:REDACTED@h/ ssh://git@host/r\0"
        "PLAIN=https://host/a@b http://@h/ http://u:@h/\0";
    g_assert_cmpmem(out, n, want, sizeof want - 1);

    /* URLs joined by a comma (GOPROXY, pip's and npm's lists): the authority of one ends at
     * the first '/' of the next one's "://", whose credentials go too. */
    static const char list[] = "GOPROXY=https://proxy.golang.org,https://u:p1@corp/x,direct\0"
                               "MIRRORS=https://a:p2@m1,https://p3@m2,ssh://git@m3,ftp://b:p4@m4\0";
    g_autofree char *lout = redact_env(list, sizeof list - 1, NULL, &n);
    static const char lwant[] =
        "GOPROXY=https://proxy.golang.org,https://u:REDACTED@corp/x,direct\0"
        "MIRRORS=https://a:REDACTED@m1,https://REDACTED@m2,ssh://git@m3,ftp://b:REDACTED@m4\0";
    g_assert_cmpmem(lout, n, lwant, sizeof lwant - 1);
    static const char args[] = "--index-url=https://pypi.org/simple,https://u:p5@corp/simple";
    g_autofree char *aout = redact_argv(args, sizeof args, NULL, &n);
    static const char awant[] = "--index-url=https://pypi.org/simple,https://u:REDACTED@corp/simple";
    g_assert_cmpmem(aout, n, awant, sizeof awant);
}

/* Options given by name lose their values in both forms; URLs lose their credentials; the
 * number of arguments stays. */
static void test_argv_redact(void)
{
    static const char in[] = "git\0clone\0https://u:tok@host/x\0--password=pw1\0--password\0pw2\0"
                             "--pin\0p3\0-sp4\0-s\0p5\0--pin=\0--passwordx=1\0-x\0--token";
    char *const mine[] = {(char *)"--pin", (char *)"-s", NULL};
    size_t n;
    g_autofree char *out = redact_argv(in, sizeof in - 1, mine, &n);
    static const char want[] = "git\0clone\0https://u:REDACTED@host/x\0--password=REDACTED\0"
                               "--password\0REDACTED\0--pin\0REDACTED\0-sREDACTED\0-s\0REDACTED\0"
                               "--pin=\0--passwordx=1\0-x\0--token";
    g_assert_cmpmem(out, n, want, sizeof want - 1);
    /* A command line in one argument (make's `sh -c RECIPE`). */
    static const char sh[] = "sh\0-c\0mysql --password=pw6 db; x --pin 'p 7' && "
                             "curl https://u:pw8@h/ --pin=\"p9\"|tail --token\0";
    g_autofree char *out2 = redact_argv(sh, sizeof sh - 1, mine, &n);
    static const char want2[] = "sh\0-c\0mysql --password=REDACTED db; x --pin 'REDACTED' && "
                                "curl https://u:REDACTED@h/ --pin=\"REDACTED\"|tail --token\0";
    g_assert_cmpmem(out2, n, want2, sizeof want2 - 1);
    g_assert_true(redact_option_valid("--pin") && redact_option_valid("-p"));
    g_assert_false(redact_option_valid("pin") || redact_option_valid("-") ||
                   redact_option_valid("--") || redact_option_valid("--pin=x"));
}

/* Credential headers lose their values (the scheme word stays), wherever they start a word;
 * other headers and look-alikes stay. */
static void test_header_credentials(void)
{
    static const char in[] = "curl\0-H\0authorization:token t1\0-H\0Cookie: a=c2; b=c3\0"
                             "http.extraHeader=Proxy-Authorization: Basic t4\0"
                             "sh -c \"curl -H 'X-Api-Key: t5' -H 'Accept: json'\"\0"
                             "Authorization:\0x-authorization: y\0Author: z\0/a:b:c\0";
    size_t n;
    g_autofree char *out = redact_argv(in, sizeof in - 1, NULL, &n);
    static const char want[] = "curl\0-H\0authorization:token REDACTED\0-H\0Cookie: REDACTED\0"
                               "http.extraHeader=Proxy-Authorization: Basic REDACTED\0"
                               "sh -c \"curl -H 'X-Api-Key: REDACTED' -H 'Accept: json'\"\0"
                               "Authorization:\0x-authorization: y\0Author: z\0/a:b:c\0";
    g_assert_cmpmem(out, n, want, sizeof want - 1);
    static const char env[] = "GIT_CONFIG_VALUE_0=Authorization: Bearer t6\0PATH=/bin:/usr/bin\0";
    g_autofree char *eout = redact_env(env, sizeof env - 1, NULL, &n);
    static const char ewant[] =
        "GIT_CONFIG_VALUE_0=Authorization: Bearer REDACTED\0PATH=/bin:/usr/bin\0";
    g_assert_cmpmem(eout, n, ewant, sizeof ewant - 1);
}

int main(int argc, char **argv)
{
    if (argc == 6 && !strcmp(argv[1], "--helper"))
        return helper_main(argv);
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/proctable/init-known-before-its-fork", test_init_known_before_its_fork);
    g_test_add_func("/proctable/reuse-before-exit", test_reuse_before_exit);
    g_test_add_func("/proctable/reuse-by-thread-before-exit", test_reuse_by_thread_before_exit);
    g_test_add_func("/proctable/thread-exec-and-leader-exit", test_thread_exec_and_leader_exit);
    g_test_add_func("/proctable/pid-reuse-before-thread-exit", test_pid_reuse_before_thread_exit);
    g_test_add_func("/proctable/status-of-threaded-process", test_status_of_threaded_process);
    g_test_add_func("/proctable/exit-owed-at-stop", test_exit_owed_at_stop);
    g_test_add_func("/proctable/reattach-after-lost-events", test_reattach_after_lost_events);
    g_test_add_func("/proctable/reattach-threads", test_reattach_threads);
    g_test_add_func("/proctable/reattach-leader-exited", test_reattach_leader_exited);
    g_test_add_func("/proctable/env-redact", test_env_redact);
    g_test_add_func("/proctable/env-secret-names", test_env_secret_names);
    g_test_add_func("/proctable/url-credentials", test_url_credentials);
    g_test_add_func("/proctable/argv-redact", test_argv_redact);
    g_test_add_func("/proctable/header-credentials", test_header_credentials);
    return unit_run();
}
