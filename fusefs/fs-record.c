/* fs-record — the one narrow way handlers record: fs_record_path or fs_record_file, with the
 * caller fs-request.c named (see fs-record.h). */
#include "fs-internal.h"

void fs_record_file(struct fs *fs, int64_t process_id, int64_t file_id, int kind, int flags,
                    int64_t bytes, int64_t first_ns, int result, int64_t version_id)
{
    if (process_id < 0)
        return; /* the launcher's own setup */
    struct rec_access a = {
        .process_id = process_id,
        .file_id = file_id,
        .kind = kind,
        .open_flags = flags,
        .bytes = bytes,
        .first_ns = first_ns,
        .last_ns = rec_now_ns(),
        .result = result,
        .version_id = result ? 0 : version_id,
    };
    rec_add_access(fs->rec, &a);
}

void fs_record_path(struct fs *fs, int64_t process_id, struct fs_inode *dir, const char *name,
                    int kind, int result, int64_t version_id)
{
    if (process_id < 0)
        return;
    g_autofree char *path = fs_inode_path(fs, dir, name);
    int64_t now = rec_now_ns();
    fs_record_file(fs, process_id, rec_file_id(fs->rec, path), kind, -1, -1, now, result,
                   version_id);
}

void fs_record_denial(struct fs *fs, int64_t process_id, struct fs_inode *dir, const char *name,
                      int how)
{
    if (process_id < 0)
        return;
    g_autofree char *path = fs_inode_path(fs, dir, name);
    /* A file of a package outside --only-packages is denied for that, even when a manifest
     * leaves it out too. */
    const char *package = fs->pkggate ? pkggate_judge(fs->pkggate, path) : NULL;
    struct rec_denial d = {
        .process_id = process_id,
        .file_id = rec_file_id(fs->rec, path),
        .how = how,
        .reason = package ? TRACEDB_DENIED_PACKAGE : TRACEDB_DENIED_UNDECLARED,
        .package = package,
        .time_ns = rec_now_ns(),
    };
    rec_add_denial(fs->rec, &d);
}

/* The current version of what `name` in `dir` is (0: none, or not a file). */
int64_t fs_version_at(struct fs *fs, struct fs_inode *dir, const char *name)
{
    struct stat st;
    if (fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
        return 0;
    return vers_current(fs->vers, st.st_dev, st.st_ino);
}
