/* procfs — what /proc says about a task, for the process table (proc.c, proc-lifecycle.c).
 *
 * Contract: plain reads of /proc/PID/... in the daemon's own pid namespace, with no table and
 * no lock; each says what it returns when the task is gone (it may end at any time: a caller
 * blocked in a FUSE request cannot, which is why proc_resolve reads /proc then).  A process
 * whose main thread has exited (pthread_exit() in main) shows its cmdline, exe and cwd empty
 * there: those are read through another of its threads.  proc_parse_stat (proc.h) is the pure
 * parser of /proc/PID/stat behind procfs_read_stat.
 */
#pragma once

#include "proc.h"

#include <glib.h>
#include <stdbool.h>
#include <sys/types.h>

/* /proc/PID/NAME, whole, NUL-terminated in *out (g_malloc'd): its length or -errno; a
 * process's own entry (cmdline) that its exited main thread shows empty is read through
 * another thread. */
ssize_t procfs_read(pid_t pid, const char *name, char **out);

/* The target of the symlink /proc/PID/NAME (exe, cwd), through another thread if the main one
 * has exited; NULL if unreadable. */
char *procfs_read_link(pid_t pid, const char *name);

/* /proc/PID/stat parsed (proc_parse_stat): 0 or -errno (-ESRCH when empty). */
int procfs_read_stat(pid_t pid, struct proc_stat *si);

/* The value of a field of /proc/PID/status ("Tgid", "NSpid", ...): the last number on its line
 * (NSpid lists one pid per namespace, innermost last).  -1 if unreadable. */
pid_t procfs_status_field(pid_t pid, const char *field);

/* The memory layout of a stat is known (the kernel shows it). */
bool procfs_layout_known(const unsigned long long l[3]);

/* Same image as far as /proc can tell: same comm and, where visible, same memory layout (a
 * layout without its arguments yet, an exec in progress, is still the old image: t5100). */
bool procfs_same_image(const char *comm_a, const unsigned long long la[3], const char *comm_b,
                       const unsigned long long lb[3]);

/* Whether process `pid` still runs this program (the launcher's, before the build's command
 * replaced it): /proc/PID/exe is the file /proc/self/exe is. */
bool procfs_runs_launcher_code(pid_t pid);

/* The tids of process `tgid`'s threads (from /proc/TGID/task), or NULL. */
GArray *procfs_list_tasks(pid_t tgid);

/* Whether the main thread of process `tgid` has exited (a zombie while other threads run on:
 * /proc/TGID/stat shows its state). */
bool procfs_leader_gone(pid_t tgid);
