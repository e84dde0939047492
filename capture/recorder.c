/* recorder — see recorder.h for the contract. */
#include "recorder.h"

#include "queries.h"
#include "tracedb.h"

#include <errno.h>
#include <stdbool.h>
#include <glib.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>

enum rec_event_type { EV_PROCESS, EV_FILE, EV_ACCESS, EV_OUTPUT, EV_EXIT, EV_VERSION, EV_ENV, EV_DENIAL };

struct rec_event {
    struct rec_event *next;
    enum rec_event_type type;
    union {
        struct {
            struct rec_process p; /* its strings point into `strings` */
            char *strings;
        } process;
        struct {
            int64_t id;
            char *path;
        } file;
        struct {
            int64_t id;
            GBytes *env;
        } env;
        struct rec_access access;
        struct rec_version version;
        struct rec_denial denial; /* its package is owned */
        struct {
            int64_t process_id;
            int stream;
            int64_t time_ns;
            size_t len;
            void *data;
        } output;
        struct {
            int64_t process_id;
            int64_t end_ns;
            int status;
        } exit;
    };
};

struct rec {
    pthread_t writer;
    sqlite3 *db; /* owned by the writer thread between rec_start (or rec_attach) and rec_stop;
                  * set once, under queue_lock, when attached later */

    pthread_mutex_t queue_lock;
    pthread_cond_t queue_nonempty; /* signalled when the queue gains its first event, or stop */
    pthread_cond_t queue_space;    /* signalled when the writer takes the queue */
    struct rec_event *head, *tail; /* protected by queue_lock */
    size_t queued;                 /* protected by queue_lock */
    uint64_t total;                /* protected by queue_lock */
    bool stopping;                 /* protected by queue_lock */
    int error;                     /* protected by queue_lock; first writer error */
    bool abandon;                  /* protected by queue_lock: stop waiting for disk space */
    struct rec_hooks hooks;        /* set before the first event; read by the writer only */
    char *db_path;                 /* the trace's file (as SQLite names it), for diagnosis */

    pthread_mutex_t files_lock;
    GHashTable *file_ids;          /* char *path -> int64 id; protected by files_lock */
    int64_t next_file_id;          /* protected by files_lock */
    pthread_mutex_t envs_lock;     /* a leaf */
    GHashTable *env_ids;           /* GBytes SHA-256 of an env -> int64 id (the digest, not the
                                    * text: 3 000 environments of a Debian build are 22 MB);
                                    * protected by envs_lock */
    int64_t next_env_id;           /* protected by envs_lock */

    /* Prepared statements: used only by the writer thread. */
    sqlite3_stmt *ins_process, *ins_file, *ins_access, *ins_output, *ins_exit, *ins_version,
        *ins_env, *ins_denial;
};

int64_t rec_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void push(struct rec *r, struct rec_event *ev)
{
    pthread_mutex_lock(&r->queue_lock);
    while (r->queued >= REC_QUEUE_MAX && !r->stopping)
        pthread_cond_wait(&r->queue_space, &r->queue_lock);
    ev->next = NULL;
    if (r->tail)
        r->tail->next = ev;
    else
        r->head = ev;
    r->tail = ev;
    r->queued++;
    r->total++;
    if (r->queued == 1)
        pthread_cond_signal(&r->queue_nonempty);
    pthread_mutex_unlock(&r->queue_lock);
}

int64_t rec_file_id(struct rec *r, const char *path)
{
    pthread_mutex_lock(&r->files_lock);
    gpointer v = g_hash_table_lookup(r->file_ids, path);
    int64_t id;
    char *owned = NULL;
    if (v) {
        id = (int64_t)GPOINTER_TO_SIZE(v);
    } else {
        id = r->next_file_id++;
        owned = g_strdup(path);
        g_hash_table_insert(r->file_ids, owned, GSIZE_TO_POINTER((gsize)id));
    }
    pthread_mutex_unlock(&r->files_lock);
    if (owned) {
        struct rec_event *ev = g_new0(struct rec_event, 1);
        ev->type = EV_FILE;
        ev->file.id = id;
        ev->file.path = g_strdup(path);
        push(r, ev);
    }
    return id;
}

int64_t rec_env_id(struct rec *r, const void *env, size_t len)
{
    guint8 digest[32];
    gsize dlen = sizeof digest;
    GChecksum *c = g_checksum_new(G_CHECKSUM_SHA256);
    g_checksum_update(c, env, (gssize)len);
    g_checksum_get_digest(c, digest, &dlen);
    g_checksum_free(c);
    GBytes *key = g_bytes_new(digest, dlen);
    pthread_mutex_lock(&r->envs_lock);
    gpointer v = g_hash_table_lookup(r->env_ids, key);
    int64_t id;
    bool fresh = !v;
    if (v) {
        id = (int64_t)GPOINTER_TO_SIZE(v);
    } else {
        id = r->next_env_id++;
        g_hash_table_insert(r->env_ids, g_bytes_ref(key), GSIZE_TO_POINTER((gsize)id));
    }
    pthread_mutex_unlock(&r->envs_lock);
    g_bytes_unref(key);
    if (fresh) {
        struct rec_event *ev = g_new0(struct rec_event, 1);
        ev->type = EV_ENV;
        ev->env.id = id;
        ev->env.env = g_bytes_new(env, len); /* the writer's until written */
        push(r, ev);
    }
    return id;
}

void rec_add_process(struct rec *r, const struct rec_process *p)
{
    struct rec_event *ev = g_new0(struct rec_event, 1);
    ev->type = EV_PROCESS;
    ev->process.p = *p;
    /* One allocation for the strings: comm \0 exe \0 cwd \0 argv. */
    size_t lc = p->comm ? strlen(p->comm) + 1 : 0, le = p->exe ? strlen(p->exe) + 1 : 0,
           lw = p->cwd ? strlen(p->cwd) + 1 : 0;
    char *s = g_malloc(lc + le + lw + p->argv_len + 1);
    char *at = s;
    ev->process.p.comm = p->comm ? memcpy(at, p->comm, lc) : NULL;
    at += lc;
    ev->process.p.exe = p->exe ? memcpy(at, p->exe, le) : NULL;
    at += le;
    ev->process.p.cwd = p->cwd ? memcpy(at, p->cwd, lw) : NULL;
    at += lw;
    ev->process.p.argv = p->argv ? memcpy(at, p->argv, p->argv_len) : NULL;
    ev->process.strings = s;
    push(r, ev);
}

void rec_add_access(struct rec *r, const struct rec_access *a)
{
    struct rec_event *ev = g_new(struct rec_event, 1);
    ev->type = EV_ACCESS;
    ev->access = *a;
    push(r, ev);
}

void rec_add_version(struct rec *r, const struct rec_version *v)
{
    struct rec_event *ev = g_new(struct rec_event, 1);
    ev->type = EV_VERSION;
    ev->version = *v;
    push(r, ev);
}

void rec_add_denial(struct rec *r, const struct rec_denial *d)
{
    struct rec_event *ev = g_new(struct rec_event, 1);
    ev->type = EV_DENIAL;
    ev->denial = *d;
    ev->denial.package = g_strdup(d->package);
    push(r, ev);
}

void rec_add_output(struct rec *r, int64_t process_id, int stream, int64_t time_ns,
                    const void *data, size_t len)
{
    struct rec_event *ev = g_new(struct rec_event, 1);
    ev->type = EV_OUTPUT;
    ev->output.process_id = process_id;
    ev->output.stream = stream;
    ev->output.time_ns = time_ns;
    ev->output.len = len;
    ev->output.data = g_memdup2(data, len);
    push(r, ev);
}

void rec_add_exit(struct rec *r, int64_t process_id, int64_t end_ns, int status)
{
    struct rec_event *ev = g_new(struct rec_event, 1);
    ev->type = EV_EXIT;
    ev->exit.process_id = process_id;
    ev->exit.end_ns = end_ns;
    ev->exit.status = status;
    push(r, ev);
}

static void free_event(struct rec_event *ev)
{
    switch (ev->type) {
    case EV_PROCESS:
        g_free(ev->process.strings);
        break;
    case EV_FILE:
        g_free(ev->file.path);
        break;
    case EV_ENV:
        g_bytes_unref(ev->env.env);
        break;
    case EV_OUTPUT:
        g_free(ev->output.data);
        break;
    case EV_DENIAL:
        g_free((char *)ev->denial.package);
        break;
    case EV_ACCESS:
    case EV_EXIT:
    case EV_VERSION:
        break;
    }
    g_free(ev);
}

static void bind_id_or_null(sqlite3_stmt *st, int col, int64_t id)
{
    if (id > 0)
        sqlite3_bind_int64(st, col, id);
    else
        sqlite3_bind_null(st, col);
}

static void bind_text_or_null(sqlite3_stmt *st, int col, const char *s)
{
    if (s)
        sqlite3_bind_text(st, col, s, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, col);
}

/* Write one event; returns an SQLite result code. */
static int write_event(struct rec *r, const struct rec_event *ev)
{
    sqlite3_stmt *st;
    switch (ev->type) {
    case EV_PROCESS: {
        const struct rec_process *p = &ev->process.p;
        st = r->ins_process;
        sqlite3_bind_int64(st, 1, p->id);
        sqlite3_bind_int(st, 2, p->pid);
        sqlite3_bind_int64(st, 3, (sqlite3_int64)p->start_ticks);
        sqlite3_bind_int(st, 4, p->exec_seq);
        bind_id_or_null(st, 5, p->parent_id);
        bind_id_or_null(st, 6, p->prev_image_id);
        sqlite3_bind_int(st, 7, p->orphan);
        sqlite3_bind_int64(st, 8, p->start_ns);
        sqlite3_bind_int64(st, 9, p->first_seen_ns);
        bind_text_or_null(st, 10, p->comm);
        bind_text_or_null(st, 11, p->exe);
        bind_text_or_null(st, 12, p->cwd);
        if (p->argv)
            sqlite3_bind_blob(st, 13, p->argv, (int)p->argv_len, SQLITE_STATIC);
        else
            sqlite3_bind_null(st, 13);
        bind_id_or_null(st, 14, p->env_id);
        break;
    }
    case EV_ENV: {
        gsize len = 0;
        const void *data = g_bytes_get_data(ev->env.env, &len);
        st = r->ins_env;
        sqlite3_bind_int64(st, 1, ev->env.id);
        sqlite3_bind_blob(st, 2, len ? data : "", (int)len, SQLITE_STATIC);
        break;
    }
    case EV_FILE:
        st = r->ins_file;
        sqlite3_bind_int64(st, 1, ev->file.id);
        sqlite3_bind_text(st, 2, ev->file.path, -1, SQLITE_STATIC);
        break;
    case EV_ACCESS: {
        const struct rec_access *a = &ev->access;
        st = r->ins_access;
        bind_id_or_null(st, 1, a->process_id);
        sqlite3_bind_int64(st, 2, a->file_id);
        sqlite3_bind_int(st, 3, a->kind);
        if (a->open_flags >= 0)
            sqlite3_bind_int(st, 4, a->open_flags);
        else
            sqlite3_bind_null(st, 4);
        if (a->bytes >= 0)
            sqlite3_bind_int64(st, 5, a->bytes);
        else
            sqlite3_bind_null(st, 5);
        sqlite3_bind_int64(st, 6, a->first_ns);
        sqlite3_bind_int64(st, 7, a->last_ns);
        sqlite3_bind_int(st, 8, a->result);
        bind_id_or_null(st, 9, a->version_id);
        break;
    }
    case EV_VERSION: {
        const struct rec_version *v = &ev->version;
        st = r->ins_version;
        sqlite3_bind_int64(st, 1, v->id);
        sqlite3_bind_int64(st, 2, v->file_id);
        sqlite3_bind_int(st, 3, v->origin);
        bind_id_or_null(st, 4, v->base_id);
        sqlite3_bind_int64(st, 5, v->begin_ns);
        sqlite3_bind_int64(st, 6, v->end_ns);
        if (v->size >= 0)
            sqlite3_bind_int64(st, 7, v->size);
        if (v->hashed) {
            sqlite3_bind_blob(st, 8, v->sha256, sizeof v->sha256, SQLITE_STATIC);
            sqlite3_bind_blob(st, 9, v->git_sha1, sizeof v->git_sha1, SQLITE_STATIC);
            sqlite3_bind_blob(st, 11, v->sha1, sizeof v->sha1, SQLITE_STATIC);
        }
        if (v->hash_error)
            sqlite3_bind_int(st, 10, v->hash_error);
        break;
    }
    case EV_OUTPUT:
        st = r->ins_output;
        bind_id_or_null(st, 1, ev->output.process_id);
        sqlite3_bind_int(st, 2, ev->output.stream);
        sqlite3_bind_int64(st, 3, ev->output.time_ns);
        sqlite3_bind_blob(st, 4, ev->output.data, (int)ev->output.len, SQLITE_STATIC);
        break;
    case EV_DENIAL:
        st = r->ins_denial;
        bind_id_or_null(st, 1, ev->denial.process_id);
        sqlite3_bind_int64(st, 2, ev->denial.file_id);
        sqlite3_bind_int(st, 3, ev->denial.how);
        sqlite3_bind_int(st, 4, ev->denial.reason);
        bind_text_or_null(st, 5, ev->denial.package);
        sqlite3_bind_int64(st, 6, ev->denial.time_ns);
        break;
    case EV_EXIT:
        st = r->ins_exit;
        sqlite3_bind_int64(st, 1, ev->exit.process_id);
        sqlite3_bind_int64(st, 2, ev->exit.end_ns);
        if (WIFEXITED(ev->exit.status))
            sqlite3_bind_int(st, 3, WEXITSTATUS(ev->exit.status));
        else if (WIFSIGNALED(ev->exit.status))
            sqlite3_bind_int(st, 4, WTERMSIG(ev->exit.status));
        break;
    default:
        return SQLITE_MISUSE;
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static void note_error(struct rec *r, int err)
{
    pthread_mutex_lock(&r->queue_lock);
    if (!r->error)
        r->error = err;
    pthread_mutex_unlock(&r->queue_lock);
}

/* Write a batch in one transaction: SQLITE_OK, or the failing result (rolled back) with
 * *sys_errno set to the system's errno behind it (0 if SQLite does not say). */
static int write_batch(struct rec *r, const struct rec_event *batch, int *sys_errno)
{
    int rc = sqlite3_exec(r->db, "BEGIN", NULL, NULL, NULL);
    for (const struct rec_event *ev = batch; rc == SQLITE_OK && ev; ev = ev->next)
        rc = write_event(r, ev);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(r->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        rc = sqlite3_extended_errcode(r->db);
        *sys_errno = sqlite3_system_errno(r->db);
        if (!sqlite3_get_autocommit(r->db))
            sqlite3_exec(r->db, "ROLLBACK", NULL, NULL, NULL);
    }
    return rc;
}

/* Does either of the trace's files reach the file-size limit? */
static bool at_size_limit(const char *db_path)
{
    struct rlimit fsize;
    if (!db_path || getrlimit(RLIMIT_FSIZE, &fsize) < 0 || fsize.rlim_cur == RLIM_INFINITY)
        return false;
    const char *suffixes[] = {"", "-wal"};
    for (size_t i = 0; i < G_N_ELEMENTS(suffixes); i++) {
        g_autofree char *p = g_strconcat(db_path, suffixes[i], NULL);
        struct stat st;
        if (stat(p, &st) == 0 && (rlim_t)st.st_size + 65536 >= fsize.rlim_cur)
            return true;
    }
    return false;
}

/* The errno behind a failed write (ENOSPC and EDQUOT mean "wait for space").  SQLite does not
 * keep it: a short write is SQLITE_FULL and a failed one SQLITE_IOERR_WRITE, whatever the
 * cause, and sqlite3_system_errno() is often 0 by then.  So the cause is diagnosed from the
 * trace's files: a file-size limit reached, a read-only or full filesystem. */
static int failure_errno(struct rec *r, int rc, int sys)
{
    if (sys == ENOSPC || sys == EDQUOT || sys == EFBIG || sys == EROFS)
        return sys;
    if (at_size_limit(r->db_path))
        return EFBIG;
    if (r->db_path) {
        g_autofree char *dir = g_path_get_dirname(r->db_path);
        struct statvfs vfs;
        if (statvfs(dir, &vfs) == 0) {
            if (vfs.f_flag & ST_RDONLY)
                return EROFS;
            if (vfs.f_bavail * vfs.f_frsize < 65536)
                return ENOSPC;
        }
    }
    if ((rc & 0xff) == SQLITE_FULL)
        return ENOSPC; /* out of space by a measure statvfs does not show (a quota) */
    return sys ? sys : EIO;
}

static bool abandoned(struct rec *r)
{
    pthread_mutex_lock(&r->queue_lock);
    bool a = r->abandon;
    pthread_mutex_unlock(&r->queue_lock);
    return a;
}

static void free_batch(struct rec_event *batch)
{
    for (struct rec_event *ev = batch, *next; ev; ev = next) {
        next = ev->next;
        free_event(ev);
    }
}

static void *writer_main(void *arg)
{
    struct rec *r = arg;
    for (;;) {
        pthread_mutex_lock(&r->queue_lock);
        while ((!r->head || !r->db) && !r->stopping)
            pthread_cond_wait(&r->queue_nonempty, &r->queue_lock);
        if ((!r->head || !r->db) && r->stopping) {
            /* Stopped before a trace was attached: what was queued has nowhere to go. */
            struct rec_event *unwritten = r->db ? NULL : r->head;
            r->head = r->tail = NULL;
            r->queued = 0;
            pthread_mutex_unlock(&r->queue_lock);
            free_batch(unwritten);
            break;
        }
        bool stopping = r->stopping;
        pthread_mutex_unlock(&r->queue_lock);

        /* Let a batch gather: one commit per interval under load, not one per event. */
        if (!stopping) {
            struct timespec ts = {0, REC_COMMIT_INTERVAL_MS * 1000000L / 4};
            nanosleep(&ts, NULL);
        }

        pthread_mutex_lock(&r->queue_lock);
        struct rec_event *batch = r->head;
        r->head = r->tail = NULL;
        r->queued = 0;
        bool failed = r->error != 0;
        pthread_cond_broadcast(&r->queue_space);
        pthread_mutex_unlock(&r->queue_lock);

        /* Out of space: keep the batch and try again until there is space (the queue fills
         * meanwhile and the build waits, as when the writer is behind), or until told to
         * give up.  Any other failure ends the recording at once and is reported. */
        bool full = false;
        while (!failed) {
            int sys = 0;
            int rc = write_batch(r, batch, &sys);
            if (rc == SQLITE_OK)
                break;
            int e = failure_errno(r, rc, sys);
            if (e != ENOSPC && e != EDQUOT) {
                note_error(r, -e);
                failed = true;
                if (r->hooks.failed)
                    r->hooks.failed(r->hooks.arg, e);
                break;
            }
            if (!full && r->hooks.disk_full)
                r->hooks.disk_full(r->hooks.arg, e, true);
            full = true;
            if (abandoned(r)) {
                note_error(r, -e);
                failed = true;
                break;
            }
            struct timespec ts = {0, 500 * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (full && !failed && r->hooks.disk_full)
            r->hooks.disk_full(r->hooks.arg, 0, false);
        free_batch(batch);
    }
    return NULL;
}

void rec_set_hooks(struct rec *r, const struct rec_hooks *hooks)
{
    r->hooks = *hooks;
}

void rec_abandon(struct rec *r)
{
    pthread_mutex_lock(&r->queue_lock);
    r->abandon = true;
    pthread_mutex_unlock(&r->queue_lock);
}

/* Prepare the writer's statements on `db`: 0 or -EIO (nothing kept). */
static int prepare_statements(struct rec *r, sqlite3 *db)
{
    struct {
        sqlite3_stmt **st;
        enum tracedb_query sql;
    } stmts[] = {
        {&r->ins_process, TQ_INSERT_PROCESS},
        {&r->ins_file, TQ_INSERT_FILE},
        {&r->ins_access, TQ_INSERT_ACCESS},
        {&r->ins_version, TQ_INSERT_VERSION},
        {&r->ins_output, TQ_INSERT_OUTPUT},
        {&r->ins_exit, TQ_INSERT_EXIT},
        {&r->ins_env, TQ_INSERT_ENV},
        {&r->ins_denial, TQ_INSERT_DENIAL},
    };
    for (size_t i = 0; i < G_N_ELEMENTS(stmts); i++) {
        if (sqlite3_prepare_v3(db, tracedb_sql(stmts[i].sql), -1, SQLITE_PREPARE_PERSISTENT, stmts[i].st,
                               NULL) != SQLITE_OK) {
            for (size_t k = 0; k <= i; k++) {
                sqlite3_finalize(*stmts[k].st);
                *stmts[k].st = NULL;
            }
            return -EIO;
        }
    }
    return 0;
}

int rec_start(struct rec **out, sqlite3 *db)
{
    struct rec *r = g_new0(struct rec, 1);
    pthread_mutex_init(&r->queue_lock, NULL);
    pthread_cond_init(&r->queue_nonempty, NULL);
    pthread_cond_init(&r->queue_space, NULL);
    pthread_mutex_init(&r->files_lock, NULL);
    r->file_ids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    r->next_file_id = 1;
    pthread_mutex_init(&r->envs_lock, NULL);
    r->env_ids = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                       (GDestroyNotify)g_bytes_unref, NULL);
    r->next_env_id = 1;
    if (db) {
        if (prepare_statements(r, db) < 0) {
            rec_free(r);
            return -EIO;
        }
        const char *name = sqlite3_db_filename(db, "main");
        r->db_path = name && *name ? g_strdup(name) : NULL;
        r->db = db;
    }
    int e = pthread_create(&r->writer, NULL, writer_main, r);
    if (e) {
        rec_free(r);
        return -e;
    }
    *out = r;
    return 0;
}

int rec_attach(struct rec *r, sqlite3 *db)
{
    if (prepare_statements(r, db) < 0)
        return -EIO;
    const char *name = sqlite3_db_filename(db, "main");
    char *path = name && *name ? g_strdup(name) : NULL;
    pthread_mutex_lock(&r->queue_lock);
    r->db_path = path;
    r->db = db;
    pthread_cond_broadcast(&r->queue_nonempty);
    pthread_mutex_unlock(&r->queue_lock);
    return 0;
}

int rec_error(struct rec *r)
{
    pthread_mutex_lock(&r->queue_lock);
    int e = r->error;
    pthread_mutex_unlock(&r->queue_lock);
    return e;
}

uint64_t rec_event_count(struct rec *r)
{
    pthread_mutex_lock(&r->queue_lock);
    uint64_t n = r->total;
    pthread_mutex_unlock(&r->queue_lock);
    return n;
}

int rec_stop(struct rec *r, sqlite3 **db_out)
{
    pthread_mutex_lock(&r->queue_lock);
    r->stopping = true;
    pthread_cond_broadcast(&r->queue_nonempty);
    pthread_cond_broadcast(&r->queue_space);
    pthread_mutex_unlock(&r->queue_lock);
    pthread_join(r->writer, NULL);
    if (db_out)
        *db_out = r->db;
    return rec_error(r);
}

void rec_free(struct rec *r)
{
    if (!r)
        return;
    sqlite3_finalize(r->ins_process);
    sqlite3_finalize(r->ins_file);
    sqlite3_finalize(r->ins_access);
    sqlite3_finalize(r->ins_output);
    sqlite3_finalize(r->ins_exit);
    sqlite3_finalize(r->ins_version);
    sqlite3_finalize(r->ins_env);
    sqlite3_finalize(r->ins_denial);
    g_hash_table_destroy(r->file_ids);
    g_hash_table_destroy(r->env_ids);
    g_free(r->db_path);
    pthread_mutex_destroy(&r->queue_lock);
    pthread_cond_destroy(&r->queue_nonempty);
    pthread_cond_destroy(&r->queue_space);
    pthread_mutex_destroy(&r->files_lock);
    pthread_mutex_destroy(&r->envs_lock);
    g_free(r);
}
