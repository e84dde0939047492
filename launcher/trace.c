/* trace — see trace.h. */
#include "trace.h"

#include "ns.h"
#include "queries.h"
#include "recorder.h"
#include "redact.h"
#include "stmt.h"
#include "textout.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Move what was committed into the trace and empty the WAL. */
TRACEDB_STATEMENT(sql_checkpoint, 1, TRACEDB_SCHEMA_VERSION, "PRAGMA wal_checkpoint(TRUNCATE)");
/* The exits by SIGKILL at or after ?1 (ns): killed at the end with the build's pid namespace. */
TRACEDB_STATEMENT(sql_mark_killed_at_end, 7, TRACEDB_SCHEMA_VERSION,
                  "UPDATE exits SET killed_at_end = 1 WHERE exit_signal = 9 AND end_ns >= ?1");
/* Every distinct executable path the build ran. */
/* How many distinct files were hidden from the build: undeclared (run --only-inputs), and of
 * packages not allowed (--only-packages), with how many packages. */
TRACEDB_STATEMENT(sql_hidden_files, 8, TRACEDB_SCHEMA_VERSION,
                  "SELECT count(DISTINCT CASE WHEN reason = 1 THEN file_id END), "
                  "count(DISTINCT CASE WHEN reason = 2 THEN file_id END), "
                  "count(DISTINCT CASE WHEN reason = 2 THEN package END) FROM denials");
enum { HIDDEN_UNDECLARED, HIDDEN_OF_PACKAGES, HIDDEN_PACKAGES };
TRACEDB_STATEMENT(sql_executables, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT DISTINCT exe FROM processes WHERE exe IS NOT NULL ORDER BY exe");
enum { EXECUTABLES_EXE };

static const char *const role_names[] = {[PLAN_WORKSPACE] = "workspace", [PLAN_TRACE] = "trace",
                                         [PLAN_TMP] = "tmp"};

void trace_init(struct trace *t)
{
    *t = (struct trace){.lock_fd = -1};
    t->pending.lock_fd = -1;
}

void trace_resolve_path(struct trace *t, const char *given, const char *cwd)
{
    struct stat dst;
    g_autofree char *real_dir = NULL;
    t->shown = g_strdup(given ? given : TRACE_DEFAULT_NAME);
    if (given && stat(given, &dst) == 0 && S_ISDIR(dst.st_mode)) {
        /* -o DIR: DIR/buildtrail.db, named as given, opened where DIR really is (SQLite
         * follows no link) */
        real_dir = realpath(given, NULL);
        g_free(t->shown);
        t->shown = g_build_filename(given, TRACE_DEFAULT_NAME, NULL);
    }
    t->path = real_dir ? g_build_filename(real_dir, TRACE_DEFAULT_NAME, NULL)
              : !given ? g_build_filename(cwd, TRACE_DEFAULT_NAME, NULL)
              : g_path_is_absolute(t->shown) ? g_strdup(t->shown)
                                              : g_build_filename(cwd, t->shown, NULL);
}

static int64_t realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The build's command as runs.argv records it: NUL-separated, redacted as every process's
 * argv is (capture/redact.h). */
static GBytes *join_argv(char **argv, char *const *redact)
{
    GByteArray *b = g_byte_array_new();
    for (char **a = argv; *a; a++)
        g_byte_array_append(b, (const guint8 *)*a, (guint)strlen(*a) + 1);
    size_t len;
    char *kept = redact_argv((const char *)b->data, b->len, redact, &len);
    g_byte_array_free(b, TRUE);
    return g_bytes_new_take(kept, len);
}

/* The run row: the command, where, who, and every mounted tree (the workspace too where it
 * lies inside one, and the watched system trees). */
static int write_start(struct trace *t, const struct trace_start *s)
{
    g_autofree char *err = NULL;
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) < 0)
        host[0] = '\0';
    g_autoptr(GBytes) args = join_argv(s->argv, s->argv_redact);
    const struct plan *p = s->plan;
    struct tracedb_tree rows[2 * NS_MAX_TREES + 1];
    int n_rows = 0;
    for (int i = 0; i < plan_n_trees(p) && i < NS_MAX_TREES; i++)
        rows[n_rows++] = (struct tracedb_tree){plan_tree(p, i)->path,
                                               role_names[plan_tree(p, i)->role]};
    if (p->workspace_nested)
        rows[n_rows++] = (struct tracedb_tree){s->cwd, role_names[PLAN_WORKSPACE]};
    for (guint i = 0; i < p->watched->len && i < NS_MAX_TREES; i++)
        rows[n_rows++] = (struct tracedb_tree){p->watched->pdata[i], "watched"};
    struct tracedb_variation vrows[VARY_COUNT];
    int n_vrows = 0;
    for (int i = 0; s->vary && i < s->vary->n_rows; i++) {
        const struct vary_row *v = &s->vary->rows[i];
        vrows[n_vrows++] = (struct tracedb_variation){
            vary_name_str(v->name), vary_side_str(v->side), v->value, v->applied,
            v->why_not};
    }
    gsize args_len = 0;
    const void *args_data = g_bytes_get_data(args, &args_len);
    struct tracedb_run_start start = {
        .argv = args_data, .argv_len = args_len, .cwd = s->cwd,
        .start_realtime_ns = realtime_ns(), .start_ns = rec_now_ns(),
        .uid = getuid(), .gid = getgid(), .hostname = host, .version = BT_VERSION,
        .options = s->options, .trees = rows, .n_trees = n_rows, .variations = vrows,
        .n_variations = n_vrows};
    if (tracedb_write_run_start(t->db, &start, &err) < 0) {
        fprintf(stderr, "buildtrail run: cannot write the trace %s: %s; choose a writable place "
                        "with -o FILE\n", t->path, err);
        return -1;
    }
    return 0;
}

int trace_create(struct trace *t, const struct trace_start *s)
{
    g_autofree char *err = NULL;
    int e = tracedb_create_pending(t->path, s->mode, &t->pending, &t->db, &err);
    if (e < 0) {
        fprintf(stderr, "buildtrail run: cannot write the trace %s: %s; %s\n", t->path, err,
                e == -EEXIST ? "remove it or choose another file with -o"
                : e == -EBUSY ? "wait for that run, or choose another file with -o"
                : e == -ENOSPC || e == -EDQUOT
                    ? "free space there, or choose another place with -o FILE"
                    : "choose a writable place with -o FILE");
        return -1;
    }
    t->lock_fd = t->pending.lock_fd;
    t->dir = g_path_get_dirname(t->path);
    t->base = g_path_get_basename(t->path);
    t->pending_base = g_path_get_basename(t->pending.tmp_path);
    if (stat(t->dir, &t->dir_st) < 0)
        memset(&t->dir_st, 0, sizeof t->dir_st);
    if (fstat(t->lock_fd, &t->st) < 0)
        memset(&t->st, 0, sizeof t->st);
    if (write_start(t, s) < 0)
        return -1;
    /* Opened again, in place, once the build's command has started (trace_publish). */
    sqlite3_close(t->db);
    t->db = NULL;
    return 0;
}

int trace_publish(struct trace *t, struct rec *rec, char **why)
{
    g_autofree char *err = NULL;
    sqlite3 *db = NULL;
    int e = tracedb_publish(&t->pending, &db, &t->replaced, &err);
    if (e == 0) {
        t->published = true;
        if (rec_attach(rec, db) == 0)
            return 0;
        t->db = db; /* still ours: the run's end is written to it */
        err = g_strdup("cannot prepare the recorder's statements on it");
    }
    fprintf(stderr, "buildtrail run: cannot put the trace in place at %s: %s; stopping the build, "
                    "which would run unrecorded\n", t->path, err);
    *why = g_strdup_printf("the trace could not be put in place: %s", err);
    return -1;
}

char *trace_problem(const struct trace *t)
{
    /* Where this run's trace is now: in place once published, else its temporary name (NULL
     * when a failed publish removed it: no trace of this run left to watch). */
    const char *path = t->published ? t->path : t->pending.tmp_path;
    if (!path)
        return NULL;
    struct stat now, at_path;
    if (stat(path, &at_path) == 0) {
        if (at_path.st_dev != t->st.st_dev || at_path.st_ino != t->st.st_ino)
            return g_strdup("was replaced by another file");
        return NULL;
    }
    if (errno != ENOENT)
        return g_strdup_printf("cannot be checked: %s", g_strerror(errno));
    if (fstat(t->lock_fd, &now) == 0 && now.st_nlink == 0)
        return g_strdup("was deleted");
    return g_strdup("was renamed");
}

/* Mark the exits by SIGKILL at or after `since_ns`.  0 or -1. */
static int mark_killed_at_end(sqlite3 *db, int64_t since_ns)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql_mark_killed_at_end, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_int64(st, 1, since_ns);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int trace_take_back(struct trace *t, struct rec *rec, int64_t kill_left_ns)
{
    sqlite3 *recorded = NULL;
    int rec_err = rec_stop(rec, &recorded);
    if (recorded)
        t->db = recorded;
    if (rec_err && t->db) {
        /* Make room for the run's end: move what was committed into the trace and empty the
         * WAL (a file-size limit or quota may then allow the few bytes of the end record). */
        (void)tracedb_exec(t->db, sql_checkpoint, NULL);
    }
    if (!rec_err && t->db && kill_left_ns && mark_killed_at_end(t->db, kill_left_ns) < 0)
        rec_err = -EIO;
    return rec_err;
}

int trace_write_end(struct trace *t, const struct trace_end *e)
{
    if (!t->db)
        return 0;
    struct tracedb_run_end end = {
        .end_ns = e->end_ns, .exit_status = e->exit_status, .term_signal = e->term_signal,
        .state = e->failure ? TRACEDB_RUN_FAILED
                 : e->interrupted ? TRACEDB_RUN_INTERRUPTED
                                  : TRACEDB_RUN_FINISHED,
        .root_process_id = e->root_process_id, .notes = e->notes,
        .process_tree = e->process_tree, .failure = e->failure};
    int r = tracedb_write_run_end(t->db, &end, NULL) < 0 ? -EIO : 0;
    /* A self-contained file from here on; if a query still has it open it stays in WAL mode,
     * which loses nothing. */
    (void)tracedb_seal(t->db);
    return r;
}

char *trace_note_lost(char *note, const char *lost)
{
    char *out = tracedb_tree_complete(note)
                    ? g_strdup_printf("incomplete: %s", lost)
                    : g_strdup_printf("incomplete: %s; %s", lost, note ? note : "not recorded");
    g_free(note);
    return out;
}

char *trace_not_replaced(const struct trace *t)
{
    struct stat st;
    bool there = lstat(t->path, &st) == 0;
    GString *line = g_string_new(there ? "no trace kept: the previous trace " : "no trace written to ");
    text_escape(line, t->shown, strlen(t->shown));
    if (there)
        g_string_append(line, " is left as it was");
    return g_string_free(line, FALSE);
}

/* --- the summary ------------------------------------------------------------------------ */

/* The top directory of an absolute path ("/usr" of "/usr/bin/cc"). */
static char *top_dir(const char *path)
{
    const char *slash = strchr(path + 1, '/');
    return slash ? g_strndup(path, slash - path) : g_strdup(path);
}

/* What the build ran from trees that were not traced: "/usr (ran 41 programs from it)", one
 * clause per top directory; with the fix for the system trees.  NULL when there is none. */
static char *untraced_use(struct trace *t, const struct plan *p)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(t->db, sql_executables, -1, &st, NULL) != SQLITE_OK)
        return NULL;
    GHashTable *tops = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *exe = (const char *)sqlite3_column_text(st, EXECUTABLES_EXE);
        if (!exe || exe[0] != '/' || plan_tree_of(p, exe) || plan_watched(p, exe))
            continue;
        char *top = top_dir(exe);
        g_hash_table_insert(tops, top, GINT_TO_POINTER(GPOINTER_TO_INT(
                                           g_hash_table_lookup(tops, top)) + 1));
    }
    sqlite3_finalize(st);
    GString *out = g_string_new(NULL);
    bool system = false;
    GList *keys = g_list_sort(g_hash_table_get_keys(tops), (GCompareFunc)strcmp);
    for (GList *k = keys; k; k = k->next) {
        int n = GPOINTER_TO_INT(g_hash_table_lookup(tops, k->data));
        g_string_append_printf(out, "%s%s (ran %d program%s from it)", out->len ? ", " : "",
                               (char *)k->data, n, n == 1 ? "" : "s");
        system |= plan_is_system_top((char *)k->data + 1);
    }
    g_list_free(keys);
    g_hash_table_destroy(tops);
    for (guint i = 0; i < p->not_traced->len; i++)
        g_string_append_printf(out, "%s%s (more top directories than buildtrail can mount)",
                               out->len ? ", " : "", (char *)p->not_traced->pdata[i]);
    if (system)
        g_string_append(out, "; --system records what the build read in the system trees");
    return out->len ? g_string_free(out, FALSE) : (g_string_free(out, TRUE), NULL);
}

/* "; N processes left running by the build, killed at its end: ARGV, ARGV, ARGV, ...": at most
 * three named (the table is small: nothing the build left is rare). */
static void killed_at_end(struct trace *t, GString *line)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(t->db, tracedb_sql(TQ_KILLED_AT_END), -1, &st, NULL) != SQLITE_OK)
        return;
    GString *names = g_string_new(NULL);
    int n = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (++n > 3)
            continue;
        const char *argv = sqlite3_column_blob(st, TQ_KILLED_AT_END_ARGV);
        g_string_append(names, n > 1 ? ", " : "");
        if (argv)
            text_argv(names, argv, (size_t)sqlite3_column_bytes(st, TQ_KILLED_AT_END_ARGV));
        else
            g_string_append(names, "(argv unknown)");
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        g_string_append(line, "; cannot read which processes were killed at the end");
    else if (n)
        g_string_append_printf(line, "; %d process%s left running by the build, killed at its "
                               "end: %s%s", n, n == 1 ? "" : "es", names->str,
                               n > 3 ? ", ..." : "");
    g_string_free(names, TRUE);
}

/* "; N undeclared files hidden ('buildtrail files --denied')" when the gate hid any, and
 * "; N files hidden of M packages not allowed ('buildtrail packages --denied')". */
static void hidden_files(struct trace *t, GString *line)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(t->db, sql_hidden_files, -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    int64_t n = rc == SQLITE_ROW ? sqlite3_column_int64(st, HIDDEN_UNDECLARED) : -1;
    int64_t np = rc == SQLITE_ROW ? sqlite3_column_int64(st, HIDDEN_OF_PACKAGES) : -1;
    int64_t pk = rc == SQLITE_ROW ? sqlite3_column_int64(st, HIDDEN_PACKAGES) : -1;
    sqlite3_finalize(st);
    if (n < 0)
        g_string_append(line, "; cannot count the files hidden from the build");
    if (n > 0)
        g_string_append_printf(line, "; %" G_GINT64_FORMAT " undeclared file%s hidden ('buildtrail "
                               "files --denied')", n, n == 1 ? "" : "s");
    if (np > 0)
        g_string_append_printf(line, "; %" G_GINT64_FORMAT " file%s hidden of %" G_GINT64_FORMAT
                               " package%s not allowed ('buildtrail packages --denied')",
                               np, np == 1 ? "" : "s", pk, pk == 1 ? "" : "s");
}

/* "buildtrail run: replaced the trace of 'make -j2' (started ..., finished, exit 0)": which
 * trace this run's replaced, when it did. */
static void print_replaced(const struct trace *t)
{
    const struct tracedb_replaced *o = &t->replaced;
    if (!o->existed)
        return;
    GString *line = g_string_new("buildtrail run: ");
    if (o->empty) {
        g_string_append(line, "replaced an empty file");
    } else if (!o->argv && !o->state) {
        g_string_append(line, "replaced an earlier trace (its run not recorded)");
    } else {
        g_string_append(line, "replaced the trace of ");
        if (o->argv)
            text_argv(line, o->argv, o->argv_len);
        else
            g_string_append(line, "(command not recorded)");
        char when[32];
        g_string_append(line, " (");
        if (o->start_realtime_ns && text_iso_utc(o->start_realtime_ns, when))
            g_string_append_printf(line, "started %s, ", when);
        /* "running" in a trace nobody records (publishing checked that) is a killed run */
        g_string_append(line, !o->state ? "state not recorded"
                              : !strcmp(o->state, "running") ? "killed before it finished"
                                                             : o->state);
        if (o->exit_status >= 0)
            g_string_append_printf(line, ", exit %d", o->exit_status);
        g_string_append_c(line, ')');
    }
    fprintf(stderr, "%s\n", line->str);
    g_string_free(line, TRUE);
}

/* "; the build could not remove DIR (Directory not empty) because the trace lay in it: ...":
 * an open trace makes the removal of a directory holding it fail (the daemon holds it, and
 * the build cannot see it to remove it first). */
static void removal_blocked(struct trace *t, const char *cwd, GString *line)
{
    g_autofree char *dir = NULL, *err = NULL;
    if (tracedb_removal_blocked(t->db, t->path, &dir, &err) < 0) {
        g_string_append_printf(line, "; cannot read which directories the build removed: %s", err);
        return;
    }
    if (!dir)
        return;
    /* Beside the build's directory's subtree that holds it (rm -rf out fails on out/sub
     * first), else beside the directory itself. */
    g_autofree char *parent = tracedb_path_below(cwd, dir) ? g_strdup(cwd)
                                                           : g_path_get_dirname(dir);
    g_autofree char *outside = g_build_filename(parent, t->base, NULL);
    g_string_append(line, "; the build could not remove ");
    text_escape(line, dir, strlen(dir));
    g_string_append(line, " (Directory not empty) because the trace lay in it: write the trace "
                          "outside the directories the build deletes (-o ");
    text_escape(line, outside, strlen(outside));
    g_string_append_c(line, ')');
}

/* ", complete" or ", INCOMPLETE: why". */
static void completeness(const struct trace_summary *s, GString *line)
{
    if (s->failed || s->lost)
        g_string_append(line, ", INCOMPLETE (see above)");
    else if (s->interrupted)
        g_string_append(line, ", INCOMPLETE: the build was interrupted");
    else if (s->tree_note && g_str_has_prefix(s->tree_note, "incomplete: "))
        g_string_append_printf(line, ", INCOMPLETE: %s", s->tree_note + 12);
    else if (!tracedb_tree_complete(s->tree_note))
        g_string_append_printf(line, ", INCOMPLETE: process tree %s",
                               s->tree_note ? s->tree_note : "not recorded");
    else if (s->unseen)
        g_string_append_printf(line, ", INCOMPLETE: %s", s->unseen);
    else
        g_string_append(line, ", complete");
}

void trace_print_summary(struct trace *t, const struct trace_summary *s)
{
    if (!t->db)
        return;
    struct tracedb_counts c;
    g_autofree char *err = NULL;
    if (tracedb_count(t->db, TRACEDB_SCHEMA_VERSION, &c, &err) != SQLITE_OK) {
        fprintf(stderr, "buildtrail run: cannot count what the trace %s holds: %s\n", t->path,
                err);
        return;
    }
    GString *line = g_string_new("buildtrail run: ");
    g_string_append_printf(line, "%" G_GINT64_FORMAT " process%s (%" G_GINT64_FORMAT
                                 " program%s run), %" G_GINT64_FORMAT " file%s read, %"
                                 G_GINT64_FORMAT " written, ",
                           c.processes, c.processes == 1 ? "" : "es", c.images,
                           c.images == 1 ? "" : "s", c.files_read, c.files_read == 1 ? "" : "s",
                           c.files_written);
    text_size(line, c.output_bytes);
    g_string_append(line, " of output; trace ");
    text_escape(line, t->shown, strlen(t->shown));
    struct stat st;
    if (stat(t->path, &st) == 0) {
        g_string_append(line, " (");
        text_size(line, st.st_size);
        g_string_append_c(line, ')');
    }
    completeness(s, line);
    killed_at_end(t, line);
    hidden_files(t, line);
    removal_blocked(t, s->cwd, line);
    g_autofree char *untraced = untraced_use(t, s->plan);
    if (untraced)
        g_string_append_printf(line, "; not traced: %s", untraced);
    if (s->unmapped_groups)
        g_string_append_printf(line, "; groups not mapped inside (shown as nogroup): %s "
                                     "('buildtrail doctor' says how to map them)",
                               s->unmapped_groups);
    fprintf(stderr, "%s\n", line->str);
    g_string_free(line, TRUE);
    print_replaced(t);
}

void trace_close(struct trace *t)
{
    if (t->db)
        sqlite3_close(t->db);
    t->db = NULL;
    /* After the trace is closed: another run may replace it now.  Never published (the build's
     * command did not start): removed, the old trace left as it was. */
    tracedb_pending_discard(&t->pending);
    tracedb_replaced_clear(&t->replaced);
    g_free(t->shown);
    g_free(t->path);
    g_free(t->dir);
    g_free(t->base);
    g_free(t->pending_base);
}
