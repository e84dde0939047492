/* versions — see versions.h for the contract. */
#include "versions.h"

#include "inokey.h"
#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One file's state.  All fields protected by vers.lock. */
struct vers_entry {
    struct ino_key key;
    int64_t current;   /* the version readers get now (0: none yet) */
    GPtrArray *writers; /* struct vers_writer*: write-opens of `current` begun, not yet ended */
    bool hashing;      /* `current` is final and being hashed: writers wait */
    /* The version being written (writers > 0). */
    int64_t file_id, base_id, begin_ns;
    int64_t previous;  /* current before this version began (for vers_write_abort) */
    bool began_alone;  /* no writer but the one that began it has come yet */
    int spare_fd;      /* a read fd from an earlier writer's end, for the last one (-1) */
};

/* One write-open.  `entry`, `version`, `fd`, `flushed`, `detached` are protected by vers.lock;
 * `dirty` is atomic (set on the write path without the lock). */
struct vers_writer {
    struct vers_entry *entry;
    int64_t version;
    int fd;            /* its open fd (to reopen read-only for a hash), or -1 */
    bool flushed;      /* closed by its last holder, as far as FLUSH says */
    int dirty;         /* written through since that FLUSH */
    bool detached;     /* its version was finished without it (its release came late) */
};

struct vers {
    struct rec *rec;
    pthread_mutex_t lock;
    pthread_cond_t hashed;   /* broadcast when a hash finishes */
    GHashTable *entries;     /* struct ino_key -> struct vers_entry; protected by lock */
    int64_t next_id;         /* protected by lock */
    int in_progress;         /* hashes queued or running; protected by lock */
    int64_t hash_limit;      /* fixed */
    GThreadPool *pool;
};

struct vers_job {
    struct ino_key key;
    int fd;                  /* <0: -errno, nothing to hash */
    struct rec_version version;
};

int vers_open_for_hash(const char *path)
{
    /* Look first (O_PATH opens nothing: no FIFO waits, no device acts), then open what was
     * looked at, through /proc: the path may be changed in between. */
    int at = open(path, O_PATH | O_CLOEXEC);
    if (at < 0)
        return -errno;
    struct stat st;
    int r = fstat(at, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -ESTALE;
    if (r < 0) {
        close(at);
        return r;
    }
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", at);
    int fd = open(p, O_RDONLY | O_NOATIME | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == EPERM) /* O_NOATIME needs the file's owner (or CAP_FOWNER) */
        fd = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    int e = errno;
    close(at);
    return fd < 0 ? -e : fd;
}

int vers_hash_fd(int fd, int64_t limit, uint8_t sha256[32], uint8_t sha1[20],
                 uint8_t git_sha1[20], int64_t *size)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (limit > 0 && st.st_size > limit) {
        *size = st.st_size;
        return -EFBIG;
    }
    GChecksum *s256 = g_checksum_new(G_CHECKSUM_SHA256);
    GChecksum *s1 = g_checksum_new(G_CHECKSUM_SHA1);
    GChecksum *plain1 = g_checksum_new(G_CHECKSUM_SHA1);
    char header[32];
    int hl = snprintf(header, sizeof header, "blob %lld", (long long)st.st_size);
    g_checksum_update(s1, (const guchar *)header, hl + 1); /* with its NUL */
    enum { CHUNK = 256 * 1024 };
    guchar *buf = g_malloc(CHUNK);
    int64_t total = 0;
    int r = 0;
    for (;;) {
        ssize_t n = pread(fd, buf, CHUNK, total);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            r = -errno;
            break;
        }
        if (n == 0)
            break;
        g_checksum_update(s256, buf, n);
        g_checksum_update(s1, buf, n);
        g_checksum_update(plain1, buf, n);
        total += n;
    }
    g_free(buf);
    if (!r && total != st.st_size)
        r = -ESTALE;
    if (!r) {
        gsize l32 = 32, l20 = 20;
        g_checksum_get_digest(s256, sha256, &l32);
        g_checksum_get_digest(s1, git_sha1, &l20);
        l20 = 20;
        g_checksum_get_digest(plain1, sha1, &l20);
        *size = total;
    }
    g_checksum_free(s256);
    g_checksum_free(s1);
    g_checksum_free(plain1);
    return r;
}

static void hash_job(gpointer data, gpointer user_data)
{
    struct vers_job *job = data;
    struct vers *v = user_data;
    struct rec_version *rv = &job->version;
    rv->size = -1;
    if (job->fd < 0) {
        rv->hash_error = -job->fd;
    } else {
        int r = vers_hash_fd(job->fd, v->hash_limit, rv->sha256, rv->sha1, rv->git_sha1,
                             &rv->size);
        close(job->fd);
        if (r < 0)
            rv->hash_error = -r;
        else
            rv->hashed = true;
    }
    if (rv->origin == TRACEDB_VERSION_FOUND)
        rv->end_ns = rec_now_ns();
    rec_add_version(v->rec, rv);

    pthread_mutex_lock(&v->lock);
    struct vers_entry *e = g_hash_table_lookup(v->entries, &job->key);
    if (e && e->current == rv->id)
        e->hashing = false;
    v->in_progress--;
    pthread_cond_broadcast(&v->hashed);
    pthread_mutex_unlock(&v->lock);
    g_free(job);
}

struct vers *vers_new(struct rec *rec, int hash_threads, int64_t hash_limit)
{
    struct vers *v = g_new0(struct vers, 1);
    v->hash_limit = hash_limit;
    v->rec = rec;
    pthread_mutex_init(&v->lock, NULL);
    pthread_cond_init(&v->hashed, NULL);
    v->entries = g_hash_table_new_full(ino_key_hash, ino_key_equal, NULL, g_free);
    v->next_id = 1;
    if (hash_threads <= 0)
        hash_threads = (int)g_get_num_processors();
    v->pool = g_thread_pool_new(hash_job, v, hash_threads, FALSE, NULL);
    return v;
}

void vers_drain(struct vers *v)
{
    pthread_mutex_lock(&v->lock);
    while (v->in_progress)
        pthread_cond_wait(&v->hashed, &v->lock);
    pthread_mutex_unlock(&v->lock);
}

static void close_spare(gpointer key, gpointer value, gpointer user)
{
    struct vers_entry *e = value;
    if (e->spare_fd >= 0)
        close(e->spare_fd);
    g_ptr_array_free(e->writers, TRUE);
}

void vers_free(struct vers *v)
{
    if (!v)
        return;
    vers_drain(v);
    g_thread_pool_free(v->pool, FALSE, TRUE);
    g_hash_table_foreach(v->entries, close_spare, NULL);
    g_hash_table_destroy(v->entries);
    pthread_mutex_destroy(&v->lock);
    pthread_cond_destroy(&v->hashed);
    g_free(v);
}

/* Called with lock held. */
static struct vers_entry *entry_get(struct vers *v, dev_t dev, ino_t ino, bool create)
{
    struct ino_key k = {dev, ino};
    struct vers_entry *e = g_hash_table_lookup(v->entries, &k);
    if (!e && create) {
        e = g_new0(struct vers_entry, 1);
        e->key = k;
        e->spare_fd = -1;
        e->writers = g_ptr_array_new();
        g_hash_table_insert(v->entries, &e->key, e);
    }
    return e;
}

/* Queue the hash of a final version.  Called with lock held; `e->hashing` is set. */
static void queue_hash_locked(struct vers *v, struct vers_entry *e, int fd,
                              const struct rec_version *rv)
{
    struct vers_job *job = g_new0(struct vers_job, 1);
    job->key = e->key;
    job->fd = fd;
    job->version = *rv;
    e->hashing = true;
    v->in_progress++;
    g_thread_pool_push(v->pool, job, NULL);
}

/* Every writer of the version being written is done as far as the kernel told us: its last
 * fd was closed (FLUSH) and nothing was written through it since.  Called with lock held. */
static bool writers_quiescent(const struct vers_entry *e)
{
    for (guint i = 0; i < e->writers->len; i++) {
        const struct vers_writer *w = e->writers->pdata[i];
        if (!w->flushed || __atomic_load_n(&w->dirty, __ATOMIC_ACQUIRE))
            return false;
    }
    return e->writers->len > 0;
}

/* The last writer is gone: hash the version from `fd`.  Called with lock held. */
static void finish_locked(struct vers *v, struct vers_entry *e, int fd)
{
    struct rec_version rv = {
        .id = e->current,
        .file_id = e->file_id,
        .origin = TRACEDB_VERSION_WRITTEN,
        .base_id = e->base_id,
        .begin_ns = e->begin_ns,
        .end_ns = rec_now_ns(),
    };
    if (e->spare_fd >= 0) {
        if (fd < 0)
            fd = e->spare_fd;
        else
            close(e->spare_fd);
        e->spare_fd = -1;
    }
    queue_hash_locked(v, e, fd, &rv);
}

/* The version's writers all closed their files but their releases have not arrived (the
 * kernel sends RELEASE after close() returns): finish it now, from one of their fds, so that a
 * new writer does not change it under its readers.  Called with lock held. */
static void supersede_locked(struct vers *v, struct vers_entry *e)
{
    int fd = -EBADF;
    for (guint i = 0; i < e->writers->len && fd < 0; i++) {
        struct vers_writer *w = e->writers->pdata[i];
        if (w->fd >= 0) {
            char p[64];
            snprintf(p, sizeof p, "/proc/self/fd/%d", w->fd);
            fd = vers_open_for_hash(p);
        }
    }
    for (guint i = 0; i < e->writers->len; i++)
        ((struct vers_writer *)e->writers->pdata[i])->detached = true;
    g_ptr_array_set_size(e->writers, 0);
    finish_locked(v, e, fd);
}

struct vers_writer *vers_write_begin(struct vers *v, dev_t dev, ino_t ino, int64_t file_id,
                                     bool fresh, int64_t *version, int64_t *reads)
{
    pthread_mutex_lock(&v->lock);
    struct vers_entry *e = entry_get(v, dev, ino, true);
    for (;;) {
        while (e->hashing)
            pthread_cond_wait(&v->hashed, &v->lock);
        if (!writers_quiescent(e))
            break;
        supersede_locked(v, e);
    }
    if (e->writers->len == 0) {
        e->previous = e->current;
        e->current = v->next_id++;
        e->file_id = file_id;
        e->base_id = fresh ? 0 : e->previous;
        e->begin_ns = rec_now_ns();
        e->began_alone = true;
        if (reads)
            *reads = e->base_id;
    } else {
        e->began_alone = false;
        if (reads)
            *reads = e->current;
    }
    struct vers_writer *w = g_new0(struct vers_writer, 1);
    w->entry = e;
    w->version = e->current;
    w->fd = -1;
    g_ptr_array_add(e->writers, w);
    if (version)
        *version = e->current;
    pthread_mutex_unlock(&v->lock);
    return w;
}

void vers_write_opened(struct vers *v, struct vers_writer *w, int fd)
{
    pthread_mutex_lock(&v->lock);
    w->fd = fd;
    pthread_mutex_unlock(&v->lock);
}

void vers_write_dirty(struct vers_writer *w)
{
    if (!__atomic_load_n(&w->dirty, __ATOMIC_RELAXED))
        __atomic_store_n(&w->dirty, 1, __ATOMIC_RELEASE);
}

void vers_write_flushed(struct vers *v, struct vers_writer *w)
{
    pthread_mutex_lock(&v->lock);
    w->flushed = true;
    __atomic_store_n(&w->dirty, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&v->lock);
}

void vers_write_end(struct vers *v, struct vers_writer *w, int hash_fd)
{
    pthread_mutex_lock(&v->lock);
    struct vers_entry *e = w->entry;
    if (w->detached) {
        pthread_mutex_unlock(&v->lock);
        if (hash_fd >= 0)
            close(hash_fd);
        g_free(w);
        return;
    }
    g_ptr_array_remove_fast(e->writers, w);
    e->began_alone = false;
    if (e->writers->len > 0) {
        /* Keep an fd for the last writer's end, in case that is an abort that has none. */
        if (e->spare_fd >= 0)
            close(e->spare_fd);
        e->spare_fd = hash_fd;
    } else {
        finish_locked(v, e, hash_fd);
    }
    pthread_mutex_unlock(&v->lock);
    g_free(w);
}

void vers_write_abort(struct vers *v, struct vers_writer *w)
{
    pthread_mutex_lock(&v->lock);
    struct vers_entry *e = w->entry;
    if (!w->detached) {
        g_ptr_array_remove_fast(e->writers, w);
        if (e->writers->len == 0) {
            if (e->began_alone)
                e->current = e->previous; /* nobody wrote through it: the one before again */
            else
                finish_locked(v, e, -EBADF);
        }
    }
    pthread_mutex_unlock(&v->lock);
    g_free(w);
}

int64_t vers_read(struct vers *v, dev_t dev, ino_t ino, int64_t file_id, bool *hash_needed)
{
    *hash_needed = false;
    pthread_mutex_lock(&v->lock);
    struct vers_entry *e = entry_get(v, dev, ino, true);
    if (!e->current) {
        e->current = v->next_id++;
        e->file_id = file_id;
        e->begin_ns = rec_now_ns();
        e->hashing = true; /* writers wait from now on, until vers_hash_found() */
        v->in_progress++;
        *hash_needed = true;
    }
    int64_t id = e->current;
    pthread_mutex_unlock(&v->lock);
    return id;
}

void vers_hash_found(struct vers *v, dev_t dev, ino_t ino, int hash_fd)
{
    pthread_mutex_lock(&v->lock);
    struct vers_entry *e = entry_get(v, dev, ino, false);
    if (!e || !e->hashing) {
        pthread_mutex_unlock(&v->lock);
        if (hash_fd >= 0)
            close(hash_fd);
        return;
    }
    struct rec_version rv = {
        .id = e->current,
        .file_id = e->file_id,
        .origin = TRACEDB_VERSION_FOUND,
        .begin_ns = e->begin_ns,
    };
    v->in_progress--; /* counted again by queue_hash_locked */
    queue_hash_locked(v, e, hash_fd, &rv);
    pthread_mutex_unlock(&v->lock);
}

int64_t vers_current(struct vers *v, dev_t dev, ino_t ino)
{
    pthread_mutex_lock(&v->lock);
    struct vers_entry *e = entry_get(v, dev, ino, false);
    int64_t id = e ? e->current : 0;
    pthread_mutex_unlock(&v->lock);
    return id;
}

/* A read-only fd of the file open as `fd`, to hash it from (or -errno): a new open file
 * description (never a dup: its flags and offset are the build's, and a writer's fd would make
 * an exec of the file fail with ETXTBSY while it is hashed), without updating the access time. */
int vers_reopen_for_hash(int fd)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
    return vers_open_for_hash(p);
}
