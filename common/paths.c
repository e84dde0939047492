/* paths — see paths.h. */
#include "paths.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *path_absolute_in(const char *base, const char *arg)
{
    g_autofree char *abs = g_path_is_absolute(arg) ? g_strdup(arg) : g_build_filename(base, arg, NULL);
    /* Lexical normalisation: split on '/', drop "." and empty, pop on "..". */
    gchar **parts = g_strsplit(abs, "/", -1);
    GPtrArray *keep = g_ptr_array_new();
    for (gchar **p = parts; *p; p++) {
        if (!**p || !strcmp(*p, "."))
            continue;
        if (!strcmp(*p, "..")) {
            if (keep->len)
                g_ptr_array_remove_index(keep, keep->len - 1);
            continue;
        }
        g_ptr_array_add(keep, *p);
    }
    GString *s = g_string_new(NULL);
    for (guint i = 0; i < keep->len; i++) {
        g_string_append_c(s, '/');
        g_string_append(s, keep->pdata[i]);
    }
    if (!s->len)
        g_string_append_c(s, '/');
    g_ptr_array_free(keep, TRUE);
    g_strfreev(parts);
    return g_string_free(s, FALSE);
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISLNK(m) ? "a symbolic link" : "a device";
}

bool path_is_under(const char *path, const char *dir)
{
    size_t l = strlen(dir);
    if (l == 1 && dir[0] == '/')
        return true;
    return !strncmp(path, dir, l) && (path[l] == '/' || path[l] == '\0');
}

int path_read_regular(const char *path, GString *out, size_t max, const char **kind)
{
    *kind = NULL;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    struct stat st;
    int r = fstat(fd, &st) < 0 ? -errno : 0;
    if (!r && !S_ISREG(st.st_mode)) {
        *kind = kind_of(st.st_mode);
        r = -EINVAL;
    }
    char buf[65536];
    while (!r) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            r = n < 0 ? -errno : 0;
            break;
        }
        if (out->len + (size_t)n > max) {
            *kind = "too large";
            r = -EFBIG;
            break;
        }
        g_string_append_len(out, buf, n);
    }
    if (close(fd) < 0 && !r)
        r = -errno;
    return r;
}
