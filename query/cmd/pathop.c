/* pathop — path operands: a path as the trace knows it (query_path_lookup and its shapes in
 * text and JSON; contract in driver.h, "Provenance helpers"; docs/architecture.md, "Path
 * operands").  Split from driver.c: main-level code, it prints its errors. */
#include "driver.h"

#include "textout.h"
#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void text_path_here(GString *out, const char *path)
{
    g_autofree char *cwd = g_get_current_dir();
    size_t n = strlen(cwd);
    const char *show = path;
    if (strcmp(cwd, "/") && !strncmp(path, cwd, n) && path[n] == '/')
        show = path + n + 1;
    text_escape(out, show, strlen(show));
}

/* Hash the regular file at fd (SHA-256, hex into hex[65]): false if it cannot be read. */
static bool sha256_fd(int fd, char hex[65])
{
    GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        g_checksum_update(c, (const guchar *)buf, n);
    if (n == 0)
        g_strlcpy(hex, g_checksum_get_string(c), 65);
    g_checksum_free(c);
    return n == 0;
}

/* The file on disk at `path` against the trace's last version there. */
static enum query_disk disk_state(struct qdb *q, int64_t file_id, const char *path)
{
    struct prov *p = prov_new(q);
    if (!p)
        return QUERY_DISK_UNKNOWN; /* (no versions before schema 3) */
    enum query_disk d = QUERY_DISK_UNKNOWN;
    int64_t vid = prov_version_at(p, file_id);
    const struct prov_version *v = vid ? prov_version(p, vid) : NULL;
    bool at_end = prov_exists_at_end(p, file_id);
    struct stat st;
    int r = lstat(path, &st);
    int err = r < 0 ? errno : 0;
    struct stat wst;
    const char *ws = qdb_run(q)->cwd;
    if (qdb_failed(q) || prov_in_private_tmp(p, path) || (r < 0 && err != ENOENT))
        goto out; /* (the build's private /tmp is gone with its run) */
    if (r < 0 && ws && stat(ws, &wst) < 0)
        goto out; /* no build directory here: a trace from elsewhere (another machine, CI) */
    if (!at_end) { /* the build removed it (or moved it away) */
        d = r == 0 ? QUERY_DISK_CHANGED : QUERY_DISK_SAME;
        goto out;
    }
    if (!v)
        goto out; /* a directory, or only looked up */
    if (r < 0) {
        d = QUERY_DISK_REMOVED;
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        d = QUERY_DISK_CHANGED; /* a file then, something else now */
        goto out;
    }
    if (v->size >= 0 && st.st_size != v->size) {
        d = QUERY_DISK_CHANGED;
        goto out;
    }
    /* Same size: unchanged if not modified since the run ended; else the hash decides. */
    int64_t end = qdb_run(q)->end_realtime_ns;
    int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    if (end && mtime <= end) {
        d = QUERY_DISK_SAME;
        goto out;
    }
    if (!v->sha256[0])
        goto out;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    char hex[65];
    struct stat fst; /* (what was opened is what was looked at: not a FIFO put there since) */
    if (fd >= 0 && fstat(fd, &fst) == 0 && S_ISREG(fst.st_mode) && fst.st_ino == st.st_ino &&
        fst.st_dev == st.st_dev && sha256_fd(fd, hex))
        d = strcmp(hex, v->sha256) ? QUERY_DISK_CHANGED : QUERY_DISK_SAME;
    if (fd >= 0)
        close(fd);
out:
    prov_free(p);
    return d;
}

/* Where the symlink the build last made at file_id (path) pointed, by the command that made
 * it (the trace records a link's creation, not its target); NULL when not known, or when the
 * build's last write of the path made something else there (rm foo; echo x > foo). */
static char *traced_link_target(struct qdb *q, int64_t file_id, const char *path)
{
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(q, tracedb_sql(TQ_WRITERS_OF_FILE), &st))
        return NULL;
    int64_t maker = 0;
    qdb_bind_int64(q, st, 1, file_id);
    while (qdb_row(q, st))
        maker = sqlite3_column_int(st, TQ_WRITERS_KIND) == TRACEDB_SYMLINK
                    ? sqlite3_column_int64(st, TQ_WRITERS_PROCESS) /* (in time order: the last) */
                    : 0; /* written through a link is recorded at the target: a file here */
    sqlite3_finalize(st);
    const struct qdb_process *p = maker ? qdb_process(q, maker) : NULL;
    return p && p->cwd ? qdb_link_target_from_argv(p->argv, p->argv_len, p->cwd, path) : NULL;
}

/* Say that PATH is not in the trace, with the traced paths it may have meant. */
static void not_touched(const char *cmd, struct qdb *q, const char *arg, const char *path)
{
    GString *e = g_string_new(NULL);
    text_escape(e, path, strlen(path));
    g_string_append(e, ": the build never touched this path; ");
    GPtrArray *hints = g_ptr_array_new_with_free_func(g_free);
    /* A path relative to where the build ran (-d naming a trace of another tree). */
    g_autofree char *run_cwd = query_run_cwd(q);
    bool from_run_cwd = false;
    if (!g_path_is_absolute(arg)) {
        char *there = qdb_absolute_path_in(run_cwd, arg);
        if (strcmp(there, path) && qdb_file_id(q, there)) {
            g_ptr_array_add(hints, there);
            from_run_cwd = true;
        }
        else
            g_free(there);
    }
    /* Traced paths with the same name. */
    g_autofree char *name = g_path_get_basename(path);
    enum { MAX_HINTS = 5 };
    GPtrArray *named = strcmp(name, "/") ? qdb_files_named(q, name, MAX_HINTS + 1)
                                         : g_ptr_array_new_with_free_func(g_free);
    guint more = 0;
    for (guint i = 0; i < named->len; i++) {
        bool dup = hints->len && !strcmp(hints->pdata[0], named->pdata[i]);
        if (dup)
            continue;
        if (hints->len < MAX_HINTS)
            g_ptr_array_add(hints, g_strdup(named->pdata[i]));
        else
            more++;
    }
    g_ptr_array_free(named, TRUE);
    if (qdb_failed(q)) {
        g_ptr_array_free(hints, TRUE);
        g_string_free(e, TRUE);
        return; /* (query_failed says it) */
    }
    if (hints->len) {
        g_string_append(e, hints->len == 1 && !more ? "did you mean " : "did you mean one of ");
        for (guint i = 0; i < hints->len; i++) {
            g_string_append(e, i ? ", " : "");
            text_path_here(e, hints->pdata[i]);
        }
        if (more)
            g_string_append(e, ", ...");
        g_string_append_c(e, '?');
        if (from_run_cwd) {
            g_string_append(e, " (a path is relative to where you ask; the build ran in ");
            text_escape(e, run_cwd, strlen(run_cwd));
            g_string_append_c(e, ')');
        }
    } else {
        g_string_append(e, "check the path, or list the files it touched with 'buildtrail "
                           "files'");
    }
    fprintf(stderr, "buildtrail %s: %s\n", cmd, e->str);
    g_ptr_array_free(hints, TRUE);
    g_string_free(e, TRUE);
}

bool query_path_lookup(const char *cmd, struct qdb *q, const char *arg, struct query_path *qp)
{
    *qp = (struct query_path){0};
    char *asked = qdb_absolute_path(arg);
    int64_t id = 0;
    /* A symlink on disk answers for its target (ld linked through libfoo.so: the reads are
     * the target's); a path through a linked directory, for the path the build saw, when the
     * trace does not have it as given. */
    int followed = 0;
    char *real = qdb_resolve_links(asked, &followed);
    struct stat st;
    bool last_is_link = lstat(asked, &st) == 0 && S_ISLNK(st.st_mode);
    if (followed && strcmp(real, asked)) {
        int64_t as_given = last_is_link ? 0 : qdb_file_id(q, asked);
        if (!as_given && (id = qdb_file_id(q, real)) != 0)
            qp->via_link = true;
        else
            id = as_given;
    } else {
        id = qdb_file_id(q, asked);
    }
    if (!id && !qp->via_link)
        id = qdb_file_id(q, asked);
    /* No link there now (make clean): where the build's own link pointed, by the command
     * that made it (libtool's `ln -s libfoo.so.1.0.0 libfoo.so`), link after link. */
    if (id && !qp->via_link && !last_is_link) {
        char *cur = g_strdup(asked);
        int64_t cur_id = id;
        int64_t seen[41] = {id};
        int n_seen = 1;
        bool loop = true; /* until the chain ends: a cycle or 40 links leads nowhere (ELOOP) */
        for (int hops = 0; hops < 40; hops++) {
            char *t = traced_link_target(q, cur_id, cur);
            int64_t tid = t ? qdb_file_id(q, t) : 0;
            bool again = false;
            for (int k = 0; k < n_seen && tid; k++)
                again = again || seen[k] == tid;
            if (!tid || again) {
                loop = again;
                g_free(t);
                break;
            }
            g_free(cur);
            cur = t;
            cur_id = seen[n_seen++] = tid;
        }
        if (loop) { /* answer for the link itself */
            g_free(cur);
            cur = g_strdup(asked);
            cur_id = id;
        }
        if (cur_id != id) {
            g_free(real);
            real = cur;
            id = cur_id;
            qp->via_link = true;
        } else {
            g_free(cur);
        }
    }
    if (!id) {
        if (!qdb_failed(q))
            not_touched(cmd, q, arg, asked);
        g_free(asked);
        g_free(real);
        return false;
    }
    if (last_is_link && !qp->via_link && strcmp(real, asked)) {
        /* (a link into an untraced tree: /usr without --system) */
        GString *e = g_string_new(NULL);
        text_path_here(e, asked);
        g_string_append(e, " is a symlink to ");
        text_escape(e, real, strlen(real));
        fprintf(stderr, "buildtrail %s: %s, which the build never touched (not traced there?); "
                        "answering for the link itself\n", cmd, e->str);
        g_string_free(e, TRUE);
    }
    qp->file_id = id;
    qp->asked = asked;
    if (qp->via_link) {
        qp->path = real;
    } else {
        qp->path = g_strdup(asked);
        g_free(real);
    }
    qp->disk = disk_state(q, id, qp->path);
    if (qp->disk == QUERY_DISK_CHANGED || qp->disk == QUERY_DISK_REMOVED) {
        GString *e = g_string_new(NULL);
        text_path_here(e, qp->path);
        fprintf(stderr, "buildtrail %s: %s: %s since the trace; this answer is about the file "
                        "as the build left it (record the build again to ask about it as it "
                        "is)\n", cmd, e->str,
                qp->disk == QUERY_DISK_CHANGED ? "changed" : "removed");
        g_string_free(e, TRUE);
    }
    return true;
}

void query_path_clear(struct query_path *qp)
{
    g_free(qp->asked);
    g_free(qp->path);
    *qp = (struct query_path){0};
}

void query_text_path(GString *out, const struct query_path *qp)
{
    if (qp->via_link) {
        text_escape(out, qp->asked, strlen(qp->asked));
        g_string_append(out, " \u2192 ");
    }
    text_escape(out, qp->path, strlen(qp->path));
}

void query_json_path_state(GString *out, const struct query_path *qp)
{
    if (qp->via_link) {
        g_string_append(out, ",\"symlink\":");
        json_string(out, qp->asked, strlen(qp->asked));
    }
    g_string_append_printf(out, ",\"changed_since_trace\":%s,\"removed_since_trace\":%s",
                           qp->disk == QUERY_DISK_CHANGED ? "true" : "false",
                           qp->disk == QUERY_DISK_REMOVED ? "true" : "false");
}

int64_t query_path_file_id(const char *cmd, struct qdb *q, const char *arg, char **abs_out)
{
    struct query_path qp;
    if (!query_path_lookup(cmd, q, arg, &qp))
        return 0;
    if (qp.via_link) {
        GString *e = g_string_new(NULL);
        query_text_path(e, &qp);
        fprintf(stderr, "buildtrail %s: %s (a symlink: answering for its target)\n", cmd, e->str);
        g_string_free(e, TRUE);
    }
    *abs_out = g_steal_pointer(&qp.path);
    int64_t id = qp.file_id;
    query_path_clear(&qp);
    return id;
}
