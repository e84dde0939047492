/* longpath — see longpath.h. */
#include "longpath.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Below SQLite's 512 with room for "-journal". */
#define SHORT_ENOUGH 480

static sqlite3_vfs shim;
static sqlite3_vfs *unix_vfs;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int register_result;

static pthread_mutex_t dirs_lock = PTHREAD_MUTEX_INITIALIZER;
static GHashTable *dirs; /* char *directory -> fd + 1; protected by dirs_lock */

/* An O_PATH descriptor of `dir`, opened on first use and kept; -errno on failure. */
static int dir_fd(const char *dir)
{
    pthread_mutex_lock(&dirs_lock);
    if (!dirs)
        dirs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    int fd = GPOINTER_TO_INT(g_hash_table_lookup(dirs, dir)) - 1;
    if (fd < 0) {
        fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            fd = -errno;
        else
            g_hash_table_insert(dirs, g_strdup(dir), GINT_TO_POINTER(fd + 1));
    }
    pthread_mutex_unlock(&dirs_lock);
    return fd;
}

static int full_pathname(sqlite3_vfs *vfs, const char *name, int n_out, char *out)
{
    (void)vfs;
    if (g_str_has_prefix(name, "/proc/self/fd/")) { /* already one of ours */
        if ((int)strlen(name) >= n_out)
            return SQLITE_CANTOPEN;
        memcpy(out, name, strlen(name) + 1);
        return SQLITE_OK;
    }
    g_autofree char *abs = NULL;
    if (name[0] == '/') {
        abs = g_strdup(name);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return SQLITE_CANTOPEN;
        abs = g_build_filename(cwd, name, NULL);
    }
    if (strlen(abs) < SHORT_ENOUGH)
        return unix_vfs->xFullPathname(unix_vfs, abs, n_out, out);
    g_autofree char *dir = g_path_get_dirname(abs);
    g_autofree char *base = g_path_get_basename(abs);
    int fd = dir_fd(dir);
    if (fd < 0)
        return SQLITE_CANTOPEN;
    int n = snprintf(out, (size_t)n_out, "/proc/self/fd/%d/%s", fd, base);
    return n < 0 || n >= n_out ? SQLITE_CANTOPEN : SQLITE_OK;
}

static void do_register(void)
{
    unix_vfs = sqlite3_vfs_find("unix");
    if (!unix_vfs) {
        register_result = -ENOSYS;
        return;
    }
    shim = *unix_vfs; /* pAppData too: the Unix VFS finds its locking style through it */
    shim.pNext = NULL;
    shim.zName = LONGPATH_VFS;
    shim.xFullPathname = full_pathname;
    register_result = sqlite3_vfs_register(&shim, 0) == SQLITE_OK ? 0 : -ENOSYS;
}

int longpath_register(void)
{
    pthread_once(&once, do_register);
    return register_result;
}
