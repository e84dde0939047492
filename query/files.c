/* files: the files the build touched, by what it did to them. */
#include "common.h"
#include "query.h"
#include "textout.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { F_READ = 1, F_WRITTEN = 2, F_CREATED = 4, F_DELETED = 8, F_MISSING = 16 };

static const struct {
    int flag;
    char letter;
    const char *name;
} flag_names[] = {
    {F_READ, 'r', "read"},       {F_WRITTEN, 'w', "written"}, {F_CREATED, 'c', "created"},
    {F_DELETED, 'd', "deleted"}, {F_MISSING, 'm', "missing"},
};

/* One row per file: what was done to it (successful reads/execs; changes as who-wrote counts
 * them; creations; removals; lookups or opens that found nothing). */
static const char files_sql[] =
    "SELECT f.path,"
    " MAX(a.kind IN (1,5) AND a.result = 0),"
    " MAX(a.kind IN (2,3,4,7,10,11,12) AND a.result = 0 AND (a.kind != 2 OR a.bytes > 0)),"
    " MAX(a.kind IN (3,7,11,12) AND a.result = 0),"
    " MAX(a.kind IN (6,8) AND a.result = 0),"
    " MAX(a.kind IN (1,5,15) AND a.result IN (2,20))"
    "   AND NOT MAX(a.kind IN (1,2,3,4,5,10,11,12) AND a.result = 0)"
    " FROM accesses a JOIN files f ON f.id = a.file_id"
    " WHERE (?1 = 0 OR a.process_id = ?1)"
    " GROUP BY a.file_id ORDER BY f.path";

int query_files_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        QUERY_COMMON_LONGOPTS,
        {"read", no_argument, NULL, 'r'},
        {"written", no_argument, NULL, 'w'},
        {"created", no_argument, NULL, 'c'},
        {"deleted", no_argument, NULL, 'x'},
        {"missing", no_argument, NULL, 'm'},
        {"under", required_argument, NULL, 'u'},
        {"process", required_argument, NULL, 'p'},
        {0}};
    struct query_opts o = {0};
    int want = 0;
    int64_t process = 0;
    GPtrArray *under = g_ptr_array_new_with_free_func(g_free);
    int c, status = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, QUERY_COMMON_SHORTOPTS "u:p:", longopts, NULL)) != -1) {
        if (query_common_option(c, optarg, &o))
            continue;
        switch (c) {
        case 'r': want |= F_READ; break;
        case 'w': want |= F_WRITTEN; break;
        case 'c': want |= F_CREATED; break;
        case 'x': want |= F_DELETED; break;
        case 'm': want |= F_MISSING; break;
        case 'u':
            g_ptr_array_add(under, qdb_absolute_path(optarg));
            break;
        case 'p': {
            char *end;
            process = strtoll(optarg, &end, 10);
            if (*end || process <= 0) {
                fprintf(stderr, "buildtrail files: --process '%s' is not a process id; give the "
                                "number shown in brackets by 'buildtrail tree'\n", optarg);
                g_ptr_array_free(under, TRUE);
                return 2;
            }
            break;
        }
        case 'h':
            printf("Usage: buildtrail files [-d TRACE] [OPTION]...\n"
                   "List the files the build touched, one per line, after five columns saying\n"
                   "what was done to each: r read (or executed), w written (created, truncated,\n"
                   "written to, renamed or linked onto), c created, d deleted, m missing (looked\n"
                   "up or opened and not found, and never made or read by the build: what it\n"
                   "looked for in vain).  Options select the files with any of the given marks.\n"
                   "\n"
                   "      --read --written --created --deleted --missing\n"
                   "  -u, --under DIR      only files under DIR (repeatable)\n"
                   "  -p, --process ID     only what process ID did (ids as in 'buildtrail tree')\n"
                   "  -d, --db FILE        read the trace FILE (default ./" QUERY_DEFAULT_DB ")\n"
                   "      --json           print JSON\n");
            g_ptr_array_free(under, TRUE);
            return 0;
        default:
            fprintf(stderr, "Try 'buildtrail files --help'.\n");
            g_ptr_array_free(under, TRUE);
            return 2;
        }
    }
    int r = query_no_operands("files", argc, argv);
    if (r) {
        g_ptr_array_free(under, TRUE);
        return r;
    }
    g_ptr_array_add(under, NULL);
    struct qdb *q = query_open("files", o.db_path);
    if (!q) {
        g_ptr_array_free(under, TRUE);
        return 1;
    }
    if (process && !qdb_process(q, process)) {
        fprintf(stderr, "buildtrail files: no process %" G_GINT64_FORMAT " in this trace; see "
                        "'buildtrail tree' for the ids\n", process);
        qdb_close(q);
        g_ptr_array_free(under, TRUE);
        return 1;
    }
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(q->db, files_sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "buildtrail files: cannot query the trace: %s\n", sqlite3_errmsg(q->db));
        qdb_close(q);
        g_ptr_array_free(under, TRUE);
        return 1;
    }
    sqlite3_bind_int64(st, 1, process);
    GString *out = g_string_new(o.json ? "[" : NULL);
    bool first = true;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *path = (const char *)sqlite3_column_text(st, 0);
        int len = sqlite3_column_bytes(st, 0);
        int marks = 0;
        for (int i = 0; i < 5; i++)
            if (sqlite3_column_int(st, 1 + i))
                marks |= flag_names[i].flag;
        if (want && !(marks & want))
            continue;
        if (!marks)
            continue; /* only listed or looked up successfully: not a file it used */
        if (under->len > 1 && !prov_path_under(path, (char *const *)under->pdata))
            continue;
        if (o.json) {
            g_string_append(out, first ? "{\"path\":" : ",{\"path\":");
            json_string(out, path, (size_t)len);
            for (int i = 0; i < 5; i++)
                g_string_append_printf(out, ",\"%s\":%s", flag_names[i].name,
                                       marks & flag_names[i].flag ? "true" : "false");
            g_string_append_c(out, '}');
        } else {
            for (int i = 0; i < 5; i++)
                g_string_append_c(out, marks & flag_names[i].flag ? flag_names[i].letter : '-');
            g_string_append_c(out, ' ');
            text_escape(out, path, (size_t)len);
            g_string_append_c(out, '\n');
        }
        first = false;
    }
    sqlite3_finalize(st);
    if (o.json)
        g_string_append(out, "]\n");
    if (query_emit(out))
        status = 1;
    g_string_free(out, TRUE);
    qdb_close(q);
    g_ptr_array_free(under, TRUE);
    return status;
}
