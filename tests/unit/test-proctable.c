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
#include "tracedb.h"
#include "unit-sql.h"

#include <glib.h>
#include <signal.h>
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

/* Redaction keeps a matching variable's name and drops its value, whatever the case of the
 * name; empty entries go; the rest is kept byte for byte. */
static void test_env_redact(void)
{
    static const char in[] = "PATH=/bin\0GITHUB_TOKEN=abc\0\0db_password=x=y\0AWS_KEY=k\0"
                             "KEYRING=1\0NOEQUALS\0";
    char buf[sizeof in];
    memcpy(buf, in, sizeof in);
    size_t n = proc_env_redact(buf, sizeof in - 1, (char *const *)proc_default_env_redact);
    static const char want[] = "PATH=/bin\0GITHUB_TOKEN\0db_password\0AWS_KEY\0KEYRING=1\0"
                               "NOEQUALS\0";
    g_assert_cmpmem(buf, n, want, sizeof want - 1);
    /* An added pattern; an empty environment. */
    char *const mine[] = {(char *)"PATH", NULL};
    memcpy(buf, in, sizeof in);
    n = proc_env_redact(buf, 10, mine);
    g_assert_cmpmem(buf, n, "PATH\0", 5);
    g_assert_cmpuint(proc_env_redact(buf, 0, mine), ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/proctable/reuse-before-exit", test_reuse_before_exit);
    g_test_add_func("/proctable/reuse-by-thread-before-exit", test_reuse_by_thread_before_exit);
    g_test_add_func("/proctable/thread-exec-and-leader-exit", test_thread_exec_and_leader_exit);
    g_test_add_func("/proctable/pid-reuse-before-thread-exit", test_pid_reuse_before_thread_exit);
    g_test_add_func("/proctable/exit-owed-at-stop", test_exit_owed_at_stop);
    g_test_add_func("/proctable/reattach-after-lost-events", test_reattach_after_lost_events);
    g_test_add_func("/proctable/env-redact", test_env_redact);
    return unit_run();
}
