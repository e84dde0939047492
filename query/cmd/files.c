/* files: the files the build touched, by what it did to them. */
#include "denials.h"
#include "driver.h"
#include "jsonw.h"
#include "queries.h"
#include "query.h"
#include "stmt.h"
#include "textout.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_READ = 1, F_WRITTEN = 2, F_CREATED = 4, F_DELETED = 8, F_MISSING = 16, F_TEMP = 64 };

static const struct {
    int flag;
    char letter;
    const char *name;
} flag_names[] = {
    {F_READ, 'r', "read"},       {F_WRITTEN, 'w', "written"}, {F_CREATED, 'c', "created"},
    {F_DELETED, 'd', "deleted"}, {F_MISSING, 'm', "missing"}, {F_TEMP, 't', "temporary"},
};
#define N_FLAGS ((int)G_N_ELEMENTS(flag_names))

/* What was done to each file: successful reads/execs; changes as who-wrote counts them;
 * creations; removals; lookups or opens that found nothing (kept only if the build never made
 * or read the file).  One sequential pass over the accesses (an index walk would fetch every
 * row at random), then the paths of the files that have a mark. */

enum { F_FOUND_OK = 32 }; /* internal: read or made successfully (cancels 'missing') */

static int marks_of(int kind, int result, int64_t bytes)
{
    int m = 0;
    if (result == 0) {
        if (kind == 1 || kind == 5)
            m |= F_READ;
        if (kind == 3 || kind == 4 || kind == 7 || kind == 10 || kind == 11 || kind == 12 ||
            (kind == 2 && bytes > 0))
            m |= F_WRITTEN;
        if (kind == 3 || kind == 7 || kind == 11 || kind == 12)
            m |= F_CREATED;
        if (kind == 6 || kind == 8)
            m |= F_DELETED;
        if (kind == 1 || kind == 2 || kind == 3 || kind == 4 || kind == 5 || kind == 10 ||
            kind == 11 || kind == 12)
            m |= F_FOUND_OK;
    } else if ((result == 2 || result == 20) && (kind == 1 || kind == 5 || kind == 15)) {
        m |= F_MISSING;
    }
    return m;
}

struct file_marks {
    char *path;
    int marks;
};

static gint by_path(gconstpointer a, gconstpointer b)
{
    return strcmp(((const struct file_marks *)a)->path, ((const struct file_marks *)b)->path);
}

/* Every file with a mark, sorted by path; NULL on a database error. */
/* (file, kind, result, bytes, first time) of every access, or of image ?1's (0: all). */
TRACEDB_STATEMENT(sql_access_marks, 1, TRACEDB_SCHEMA_VERSION,
                  "SELECT file_id, kind, result, bytes, first_ns FROM accesses NOT INDEXED "
                  "WHERE ?1 = 0 OR process_id = ?1");
enum { MARK_FILE, MARK_KIND, MARK_RESULT, MARK_BYTES, MARK_FIRST };

static GArray *collect(struct qdb *q, int64_t process)
{
    /* file id -> struct seen: its marks, and when it was last made and last removed (a file
     * the build made whose last event is a removal is a temporary). */
    struct seen {
        int64_t id;
        int marks;
        int64_t last_made, last_gone;
    };
    GHashTable *marks = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(q, sql_access_marks, &st)) {
        g_hash_table_destroy(marks);
        return NULL;
    }
    qdb_bind_int64(q, st, 1, process);
    while (qdb_row(q, st)) {
        int64_t file_id = sqlite3_column_int64(st, MARK_FILE);
        int kind = sqlite3_column_int(st, MARK_KIND), result = sqlite3_column_int(st, MARK_RESULT);
        int m = marks_of(kind, result, sqlite3_column_int64(st, MARK_BYTES));
        if (!m)
            continue;
        struct seen *s = g_hash_table_lookup(marks, &file_id);
        if (!s) {
            s = g_new0(struct seen, 1);
            s->id = file_id;
            g_hash_table_insert(marks, &s->id, s);
        }
        s->marks |= m;
        int64_t t = sqlite3_column_int64(st, MARK_FIRST);
        if (m & (F_CREATED | F_WRITTEN))
            s->last_made = MAX(s->last_made, t);
        if (m & F_DELETED)
            s->last_gone = MAX(s->last_gone, t);
    }
    sqlite3_finalize(st);
    GArray *files = g_array_new(FALSE, FALSE, sizeof(struct file_marks));
    if (qdb_prepare(q, tracedb_sql(TQ_FILE_PATHS), &st)) {
        while (qdb_row(q, st)) {
            int64_t id = sqlite3_column_int64(st, TQ_FILE_PATHS_ID);
            const struct seen *s = g_hash_table_lookup(marks, &id);
            int m = s ? s->marks : 0;
            if ((m & F_CREATED) && (m & F_DELETED) && s->last_gone >= s->last_made)
                m |= F_TEMP;
            if (m & F_FOUND_OK)
                m &= ~(F_MISSING | F_FOUND_OK);
            if (!m)
                continue;
            struct file_marks f = {
                g_strdup((const char *)sqlite3_column_text(st, TQ_FILE_PATHS_PATH)), m};
            g_array_append_val(files, f);
        }
    }
    sqlite3_finalize(st);
    g_hash_table_destroy(marks);
    g_array_sort(files, by_path);
    return files;
}

struct files_cli {
    bool denied;     /* --denied */
    int want;        /* F_* marks to select (0: all) */
    int64_t process; /* 0: every process */
    GPtrArray *under;
};

static int files_option(void *ctx, int c, const char *arg)
{
    struct files_cli *f = ctx;
    switch (c) {
    case 'r': f->want |= F_READ; return 0;
    case 'w': f->want |= F_WRITTEN; return 0;
    case 'c': f->want |= F_CREATED; return 0;
    case 'x': f->want |= F_DELETED; return 0;
    case 'm': f->want |= F_MISSING; return 0;
    case 't': f->want |= F_TEMP; return 0;
    case 'D': f->denied = true; return 0;
    case 'u':
        g_ptr_array_add(f->under, qdb_absolute_path(arg));
        return 0;
    case 'p':
        return query_parse_id("files", "--process", arg, &f->process) ? 0 : 2;
    }
    return 2;
}

static const struct option files_options[] = {
    {"read", no_argument, NULL, 'r'},
    {"written", no_argument, NULL, 'w'},
    {"created", no_argument, NULL, 'c'},
    {"deleted", no_argument, NULL, 'x'},
    {"missing", no_argument, NULL, 'm'},
    {"temporary", no_argument, NULL, 't'},
    {"denied", no_argument, NULL, 'D'},
    {"under", required_argument, NULL, 'u'},
    {"process", required_argument, NULL, 'p'},
    {0}};

static const struct query_command files_command = {
    .name = "files",
    .operands = "",
    .about = "List the files the build touched, one per line, after six columns saying\n"
             "what was done to each: r read (or executed), w written (created, truncated,\n"
             "written to, renamed or linked onto), c created, d deleted, m missing (looked\n"
             "up or opened and not found, and never made or read by the build: what it\n"
             "looked for in vain), t temporary (made by the build and removed again, as\n"
             "cc's /tmp/cc*.s).  Options select the files with any of the given marks;\n"
             "without them, names only looked for in vain are counted, not listed.\n"
             "--denied lists instead the files hidden from the build ('run --only-inputs'),\n"
             "each with why and the processes that looked it up or listed its directory.\n",
    .options_help = "      --read --written --created --deleted --missing --temporary\n"
                    "      --denied          the files hidden from the build, with who asked\n"
                    "  -u, --under DIR       only files under DIR (repeatable)\n"
                    "  -p, --process ID      only what process ID did (ids as in 'buildtrail tree')\n",
    .options = files_options,
    .shortopts = "u:p:",
    .option = files_option,
};

/* One process as a denial names it: "12 cc1", "?" unknown. */
static void append_process(GString *out, struct qdb *q, int64_t id)
{
    const struct qdb_process *p = id ? qdb_process(q, id) : NULL;
    if (!p) {
        g_string_append(out, id ? "?" : "an unknown process");
        return;
    }
    const char *name = p->argv ? p->argv : p->comm ? p->comm : "?";
    const char *slash = strrchr(name, '/');
    g_string_append_printf(out, "%" G_GINT64_FORMAT " ", id);
    text_escape(out, slash ? slash + 1 : name, strlen(slash ? slash + 1 : name));
}

/* files --denied: one line per file hidden from the build (text), or "denied" (JSON). */
static int print_denied(struct qdb *q, const struct query_opts *o, int64_t process,
                        GPtrArray *under)
{
    bool recorded;
    GArray *d = denials_load(q, process, &recorded);
    if (!d)
        return query_failed(q), 1;
    GString *out = g_string_new(NULL);
    struct jsonw w;
    jsonw_init(&w, out);
    if (o->json) {
        query_json_begin(jsonw_raw_object_begin(&w), q, NULL);
        jsonw_kv_bool(&w, "denials_recorded", recorded);
        jsonw_key(&w, "denied");
        jsonw_array_begin(&w);
    }
    for (guint i = 0; i < d->len;) {
        const struct denial *first = &g_array_index(d, struct denial, i);
        guint end = i;
        while (end < d->len && !strcmp(g_array_index(d, struct denial, end).path, first->path))
            end++;
        if (under->len > 1 && !prov_path_under(first->path, (char *const *)under->pdata)) {
            i = end;
            continue;
        }
        if (o->json) {
            jsonw_object_begin(&w);
            jsonw_kv_string(&w, "path", first->path);
            jsonw_kv_string(&w, "reason", denial_reason_name(first->reason));
            jsonw_key(&w, "package");
            first->package ? jsonw_string(&w, first->package) : jsonw_null(&w);
            jsonw_key(&w, "processes");
            jsonw_array_begin(&w);
        } else {
            text_escape(out, first->path, strlen(first->path));
            g_string_append_printf(out, ": %s;", denial_reason_name(first->reason));
        }
        for (guint k = i; k < end; k++) {
            const struct denial *e = &g_array_index(d, struct denial, k);
            if (o->json) {
                jsonw_object_begin(&w);
                jsonw_key(&w, "process");
                e->process_id ? jsonw_int(&w, e->process_id) : jsonw_null(&w);
                jsonw_kv_string(&w, "how", denial_how_name(e->how));
                jsonw_kv_int(&w, "times", e->count);
                jsonw_object_end(&w);
            } else {
                g_string_append_printf(out, "%s %s by ", k > i ? "," : "",
                                       e->how == TRACEDB_DENIED_LOOKUP ? "looked up" : "listed");
                append_process(out, q, e->process_id);
                if (e->count > 1)
                    g_string_append_printf(out, " (%u times)", e->count);
            }
        }
        if (o->json) {
            jsonw_array_end(&w);
            jsonw_object_end(&w);
        } else {
            g_string_append_c(out, '\n');
        }
        i = end;
    }
    if (o->json) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        g_string_append_c(out, '\n');
    }
    denials_free(d);
    int status = query_emit(q, out) ? 1 : 0;
    if (!status && !recorded)
        fputs("buildtrail files: this trace is older than schema 8: what was hidden from the "
              "build was not recorded\n", stderr);
    g_string_free(out, TRUE);
    return status;
}

int query_files_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct files_cli sel = {.under = g_ptr_array_new_with_free_func(g_free)};
    int r = query_parse(&files_command, argc, argv, &o, &sel);
    if (r >= 0) {
        g_ptr_array_free(sel.under, TRUE);
        return r;
    }
    int want = sel.want, status = 0;
    int64_t process = sel.process;
    GPtrArray *under = sel.under;
    g_ptr_array_add(under, NULL);
    struct qdb *q = query_open("files", o.db_path);
    if (!q) {
        g_ptr_array_free(under, TRUE);
        return 1;
    }
    if (process && !qdb_process(q, process)) {
        if (!query_failed(q))
            fprintf(stderr, "buildtrail files: no process %" G_GINT64_FORMAT " in this trace; see "
                        "'buildtrail tree' for the ids\n", process);
        qdb_close(q);
        g_ptr_array_free(under, TRUE);
        return 1;
    }
    if (sel.denied) {
        status = print_denied(q, &o, process, under);
        qdb_close(q);
        g_ptr_array_free(under, TRUE);
        return status;
    }
    GArray *files = collect(q, process);
    if (!files) {
        query_failed(q);
        qdb_close(q);
        g_ptr_array_free(under, TRUE);
        return 1;
    }
    /* Trees watched instead of served (run --system as root) record no failed lookups. */
    GPtrArray *watched = qdb_watched_trees(q);
    if (query_failed(q)) {
        for (guint k = 0; k < files->len; k++)
            g_free(g_array_index(files, struct file_marks, k).path);
        g_array_free(files, TRUE);
        g_ptr_array_free(watched, TRUE);
        qdb_close(q);
        g_ptr_array_free(under, TRUE);
        return 1;
    }
    GString *out = g_string_new(NULL);
    struct jsonw w;
    jsonw_init(&w, out);
    if (o.json) {
        query_json_begin(jsonw_raw_object_begin(&w), q, NULL);
        jsonw_key(&w, "files");
        jsonw_array_begin(&w);
    }
    unsigned n_probes = 0;
    for (guint k = 0; k < files->len; k++) {
        struct file_marks *f = &g_array_index(files, struct file_marks, k);
        const char *path = f->path;
        size_t len = strlen(path);
        int marks = f->marks;
        if (want && !(marks & want))
            continue;
        /* Names looked for in vain are many (include paths, configure's probes): listed only
         * when asked for (--missing), else counted in one line. */
        if (!want && marks == F_MISSING) {
            n_probes++;
            continue;
        }
        if (under->len > 1 && !prov_path_under(path, (char *const *)under->pdata))
            continue;
        if (o.json) {
            jsonw_object_begin(&w);
            jsonw_key(&w, "path");
            jsonw_string_len(&w, path, len);
            for (int i = 0; i < N_FLAGS; i++)
                jsonw_kv_bool(&w, flag_names[i].name, marks & flag_names[i].flag);
            jsonw_object_end(&w);
        } else {
            for (int i = 0; i < N_FLAGS; i++)
                g_string_append_c(out, marks & flag_names[i].flag ? flag_names[i].letter : '-');
            g_string_append_c(out, ' ');
            text_escape(out, path, len);
            g_string_append_c(out, '\n');
        }
    }
    if (o.json) {
        jsonw_array_end(&w);
        jsonw_kv_int(&w, "missing_not_listed", n_probes);
        jsonw_key(&w, "missing_not_recorded_under");
        jsonw_array_begin(&w);
        for (guint k = 0; k < watched->len; k++)
            jsonw_string(&w, watched->pdata[k]);
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        g_string_append_c(out, '\n');
    }
    for (guint k = 0; k < files->len; k++)
        g_free(g_array_index(files, struct file_marks, k).path);
    g_array_free(files, TRUE);
    if (query_emit(q, out))
        status = 1;
    else if (!o.json && n_probes)
        fprintf(stderr, "buildtrail files: %u name%s looked up and not found %s not listed; see "
                        "'buildtrail files --missing'\n", n_probes, n_probes == 1 ? "" : "s",
                n_probes == 1 ? "is" : "are");
    if (!o.json && watched->len && (!want || (want & F_MISSING))) {
        GString *list = g_string_new(NULL);
        for (guint k = 0; k < watched->len; k++)
            g_string_append_printf(list, "%s%s", k ? ", " : "", (char *)watched->pdata[k]);
        fprintf(stderr, "buildtrail files: names looked up in vain are not recorded in %s "
                        "(watched, not served: 'run --system' as root); 'buildtrail run "
                        "--system=full' records them\n", list->str);
        g_string_free(list, TRUE);
    }
    g_ptr_array_free(watched, TRUE);
    g_string_free(out, TRUE);
    qdb_close(q);
    g_ptr_array_free(under, TRUE);
    return status;
}
