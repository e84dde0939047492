/* driver — see driver.h. */
#include "driver.h"

#include "query.h"
#include "jsonw.h"

#include "terminal.h"
#include "textout.h"
#include "tracedb.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The command being run, for query_emit's and query_failed's messages; and its trace, for
 * wall-clock times in JSON. */
static const char *current_cmd = "query";
static const struct qdb *current_q;

enum { OPT_DB = 'd', OPT_HELP = 'h', OPT_JSON = 0x1000, OPT_ALLOW_INCOMPLETE = 0x1001,
       OPT_FULL = 0x1002, OPT_NO_PAGER = 0x1003 };

static void print_help(const struct query_command *cmd)
{
    printf("Usage: buildtrail %s [OPTION]...%s%s\n", cmd->name, *cmd->operands ? " " : "",
           cmd->operands);
    fputs(cmd->about, stdout);
    if (cmd->more_about)
        cmd->more_about();
    if (!strncmp(cmd->operands, "PATH", 4)) /* (query_path_lookup) */
        fputs("PATH is relative to the current directory.  A symlink answers for the file it\n"
              "leads to (\"LINK \u2192 TARGET\"; one the build made and that is gone, as the\n"
              "build's ln -s made it).  When the file on disk is no longer the one the trace\n"
              "last saw there, stderr says \"PATH: changed since the trace\" (or \"removed\").\n",
              stdout);
    fputs("\nOptions:\n", stdout);
    if (cmd->options_help)
        fputs(cmd->options_help, stdout);
    if (cmd->flags & QUERY_ALLOW_INCOMPLETE)
        fputs("      --allow-incomplete  answer on an incomplete trace (a killed, failed or\n"
              "                        interrupted run, a partial process tree), marked so\n",
              stdout);
    fputs("  -d, --db FILE         read the trace FILE (default: $BUILDTRAIL_DB, else the\n"
          "                        nearest ./" QUERY_DEFAULT_DB " here or in a directory above,\n"
          "                        if it and its directory are yours or root's, or the\n"
          "                        directory is in $BUILDTRAIL_SAFE_DIRS, DIR:DIR or *)\n",
          stdout);
    if (!(cmd->flags & QUERY_NO_JSON))
        fputs("      --json            print JSON (one object, with the trace's state)\n",
              stdout);
    if (cmd->flags & QUERY_CUT_ARGV)
        fputs("      --full            do not cut long command lines to the terminal's width\n",
              stdout);
    fputs("      --no-pager        do not page the answer (on a terminal it goes through\n"
          "                        $BUILDTRAIL_PAGER, $PAGER or less)\n"
          "  -h, --help            print this help\n", stdout);
    fputs(cmd->exit_help ? cmd->exit_help
                         : "\nExit status: 0 answered; 1 a path or process the build never "
                           "touched, or\nthe trace cannot be read (missing, damaged, not a "
                           "trace); 2 a usage error.\n",
          stdout);
}

int query_edit_distance(const char *a, const char *b)
{
    /* Optimal string alignment: insertions, deletions, substitutions, adjacent swaps. */
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return INT_MAX;
    int d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int v = MIN(MIN(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                v = MIN(v, d[i - 2][j - 2] + 1);
            d[i][j] = v;
        }
    return d[la][lb];
}

bool query_like(const char *typed, const char *name)
{
    size_t n = strlen(typed);
    if (n >= 2 && !strncmp(name, typed, n))
        return true; /* a prefix: "who" for who-read */
    int dist = query_edit_distance(typed, name);
    return dist <= (n <= 3 ? 1 : 2);
}

/* A usage error of getopt's in the one-line form: the option named as typed, what is
 * wrong, and the fix (the options it may have meant, or --help). */
static void option_error(const struct query_command *cmd, const struct option *longopts,
                         bool missing_value, const char *word)
{
    GString *e = g_string_new(NULL);
    /* word is the last argument getopt stepped past: the long option at fault, or (inside a
     * cluster "-xq", which getopt steps past only at its end) an earlier argument, when
     * optopt names the short option at fault. */
    bool is_long = word && !strncmp(word, "--", 2);
    g_autofree char *typed = NULL;
    if (is_long) {
        const char *eq = strchr(word + 2, '=');
        typed = g_strndup(word + 2, eq ? (size_t)(eq - word - 2) : strlen(word + 2));
        bool its_own = optopt == 0 || optopt >= 0x100;
        for (const struct option *o = longopts; !its_own && o->name; o++)
            its_own = o->val == optopt && !strncmp(o->name, typed, strlen(typed));
        is_long = its_own;
    }
    GString *like = g_string_new(NULL);
    unsigned nlike = 0, nprefix = 0;
    for (const struct option *o = longopts; is_long && o->name; o++)
        if (query_like(typed, o->name)) {
            g_string_append_printf(like, "%s--%s", nlike++ ? ", " : "", o->name);
            nprefix += *typed && !strncmp(o->name, typed, strlen(typed));
        }
    const struct option *exact = NULL;
    for (const struct option *o = longopts; is_long && o->name; o++)
        if (!strcmp(typed, o->name))
            exact = o;
    if (missing_value) {
        if (is_long)
            g_string_append_printf(e, "option '--%s' needs a value", typed);
        else
            g_string_append_printf(e, "option '-%c' needs a value", optopt);
    } else if (exact && strchr(word, '=')) {
        g_string_append_printf(e, "option '--%s' takes no value", typed);
    } else if (is_long) {
        text_escape(e, word, strlen(word));
        g_string_prepend(e, nprefix > 1 ? "ambiguous option '" : "unknown option '");
        g_string_append_c(e, '\'');
    } else if (optopt > ' ' && optopt < 127) {
        g_string_append_printf(e, "unknown option '-%c'", optopt);
    } else {
        g_string_append(e, "unknown option");
    }
    if (nlike && !exact)
        fprintf(stderr, "buildtrail %s: %s; did you mean %s%s? (see 'buildtrail %s --help')\n",
                cmd->name, e->str, nlike > 1 ? "one of " : "", like->str, cmd->name);
    else
        fprintf(stderr, "buildtrail %s: %s; see 'buildtrail %s --help'\n", cmd->name, e->str,
                cmd->name);
    g_string_free(like, TRUE);
    g_string_free(e, TRUE);
}

int query_parse(const struct query_command *cmd, int argc, char **argv, struct query_opts *o,
                void *ctx)
{
    struct option longopts[48];
    size_t n = 0;
    longopts[n++] = (struct option){"db", required_argument, NULL, OPT_DB};
    longopts[n++] = (struct option){"help", no_argument, NULL, OPT_HELP};
    if (!(cmd->flags & QUERY_NO_JSON))
        longopts[n++] = (struct option){"json", no_argument, NULL, OPT_JSON};
    if (cmd->flags & QUERY_ALLOW_INCOMPLETE)
        longopts[n++] =
            (struct option){"allow-incomplete", no_argument, NULL, OPT_ALLOW_INCOMPLETE};
    if (cmd->flags & QUERY_CUT_ARGV)
        longopts[n++] = (struct option){"full", no_argument, NULL, OPT_FULL};
    longopts[n++] = (struct option){"no-pager", no_argument, NULL, OPT_NO_PAGER};
    bool full = false, no_pager = false;
    for (const struct option *p = cmd->options; p && p->name && n < G_N_ELEMENTS(longopts) - 1; p++)
        longopts[n++] = *p;
    longopts[n] = (struct option){0};
    /* (a leading ':': a missing value is ':', told apart from an unknown option) */
    g_autofree char *shortopts = g_strconcat(":d:h", cmd->shortopts ? cmd->shortopts : "", NULL);
    current_cmd = cmd->name;
    int c;
    optind = 1;
    opterr = 0; /* (its errors are said here, in the one-line form) */
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DB:
            /* One trace per query: a second, other -d (before the command or after it) is
             * a mistake said, never a choice made silently. */
            if (o->db_path && strcmp(o->db_path, optarg)) {
                if (!strcmp(cmd->name, "diff"))
                    fprintf(stderr, "buildtrail diff: -d given twice (%s, %s); diff takes the "
                                    "two traces it compares as operands: buildtrail diff %s %s\n",
                            o->db_path, optarg, o->db_path, optarg);
                else
                    fprintf(stderr, "buildtrail %s: -d given twice (%s, %s); a query reads one "
                                    "trace: keep the -d of the one to read\n",
                            cmd->name, o->db_path, optarg);
                return 2;
            }
            o->db_path = optarg;
            break;
        case OPT_JSON:
            o->json = true;
            break;
        case OPT_ALLOW_INCOMPLETE:
            o->allow_incomplete = true;
            break;
        case OPT_FULL:
            full = true;
            break;
        case OPT_NO_PAGER:
            no_pager = true;
            break;
        case OPT_HELP:
            print_help(cmd);
            return 0;
        case '?':
        case ':':
            option_error(cmd, longopts, c == ':', argv[optind - 1]);
            return 2;
        default: {
            int r = cmd->option ? cmd->option(ctx, c, optarg) : 2;
            if (r)
                return r;
        }
        }
    }
    term_setup(cmd->flags & QUERY_CUT_ARGV, full, no_pager, o->json);
    int have = argc - optind;
    if (have < cmd->min_operands) {
        fprintf(stderr, "buildtrail %s: no %s given; usage: buildtrail %s [OPTION]... %s\n",
                cmd->name, cmd->operands, cmd->name, cmd->operands);
        return 2;
    }
    if (cmd->max_operands >= 0 && have > cmd->max_operands) {
        if (cmd->max_operands == 0)
            fprintf(stderr, "buildtrail %s: unexpected argument '%s'; see 'buildtrail %s "
                            "--help'\n", cmd->name, argv[optind], cmd->name);
        else
            fprintf(stderr, "buildtrail %s: give exactly %d %s; usage: buildtrail %s "
                            "[OPTION]... %s\n", cmd->name, cmd->max_operands, cmd->operands,
                    cmd->name, cmd->operands);
        return 2;
    }
    return -1;
}

bool query_parse_id(const char *cmd, const char *what, const char *arg, int64_t *id)
{
    char *end;
    errno = 0;
    long long v = strtoll(arg, &end, 10);
    if (end == arg || *end || v <= 0 || errno) {
        fprintf(stderr, "buildtrail %s: %s%s'%s' is not a process id; give the number shown in "
                        "brackets by 'buildtrail tree'\n", cmd, what ? what : "",
                what ? " " : "", arg);
        return false;
    }
    *id = v;
    return true;
}

bool query_parse_mode(const char *cmd, const char *arg, mode_t *mode)
{
    char *end;
    long m = strtol(arg, &end, 8);
    if (end == arg || *end || m < 0 || m > 0777) {
        fprintf(stderr, "buildtrail %s: --output-mode '%s' is not a file mode; give octal "
                        "permissions such as 0600 or 0644\n", cmd, arg);
        return false;
    }
    *mode = (mode_t)m;
    return true;
}

mode_t query_trace_mode(const struct qdb *q)
{
    struct stat st;
    return stat(q->path, &st) == 0 ? st.st_mode & 0777 : 0600;
}

/* One line on stderr when the answer stands on a run that did not end cleanly or a trace that
 * is not complete. */
static void note_run_state(const char *cmd, const char *path, const struct qdb_run *r)
{
    switch (r->state) {
    case QDB_RUN_RECORDING:
        fprintf(stderr, "buildtrail %s: note: the run recording %s is still going; this answer "
                        "covers what it has recorded so far\n", cmd, path);
        return;
    case QDB_RUN_KILLED:
        fprintf(stderr, "buildtrail %s: warning: the run that recorded %s was killed before it "
                        "finished; this answer may be incomplete\n", cmd, path);
        return;
    case QDB_RUN_FAILED:
        fprintf(stderr, "buildtrail %s: warning: the run that recorded %s failed%s%s; this "
                        "answer may be incomplete\n", cmd, path, r->failure ? ": " : "",
                r->failure ? r->failure : "");
        return;
    case QDB_RUN_INTERRUPTED:
        fprintf(stderr, "buildtrail %s: note: the run that recorded %s was interrupted; this "
                        "answer covers the build up to then\n", cmd, path);
        return;
    case QDB_RUN_FINISHED:
        if (!r->complete)
            fprintf(stderr, "buildtrail %s: warning: the trace %s is incomplete: %s; this answer "
                            "may be incomplete\n", cmd, path, r->incomplete);
        else if (r->process_tree && strcmp(r->process_tree, "complete"))
            fprintf(stderr, "buildtrail %s: note: the process tree of %s is %s\n", cmd, path,
                    r->process_tree);
        return;
    }
}


bool query_failed(struct qdb *q)
{
    static bool said;
    if (!qdb_failed(q))
        return false;
    if (!said)
        fprintf(stderr, "buildtrail %s: %s\n", current_cmd, qdb_error(q));
    said = true;
    return true;
}

struct qdb *query_open(const char *cmd, const char *db_path)
{
    return query_open_for(cmd, db_path, QUERY_ANY_TRACE);
}

/* Whether BUILDTRAIL_SAFE_DIRS (directories separated by ':', or '*' for all) lists `dir`. */
static bool listed_safe(const char *dir)
{
    const char *list = getenv("BUILDTRAIL_SAFE_DIRS");
    if (!list || !*list)
        return false;
    g_auto(GStrv) dirs = g_strsplit(list, ":", -1);
    g_autofree char *canon = g_canonicalize_filename(dir, NULL);
    for (char **d = dirs; *d; d++) {
        if (!strcmp(*d, "*"))
            return true;
        if (**d != '/')
            continue;
        g_autofree char *c = g_canonicalize_filename(*d, NULL);
        if (!strcmp(c, canon))
            return true;
    }
    return false;
}

/* Whether `uid` may own a trace found by looking up: the caller, root, or, for root under
 * sudo, the user who ran sudo (as git does). */
static bool trusted_owner(uid_t uid)
{
    if (uid == geteuid() || uid == 0)
        return true;
    const char *sudo = geteuid() == 0 ? getenv("SUDO_UID") : NULL;
    char *end;
    unsigned long v = sudo && *sudo ? strtoul(sudo, &end, 10) : 0;
    return sudo && *sudo && !*end && v == uid;
}

/* A trace found by looking up is read only if it is the caller's or root's, and so are the
 * directory holding it and, for a link, the link and the file it leads to: anyone else could
 * have put it there (a buildtrail.db in /tmp answering root's queries in /tmp/newproj).
 * Like git's safe.directory check, on the names as they are now.  false after printing why
 * and the fix. */
static bool trusted_trace(const char *cmd, const char *dir, const char *candidate,
                          const struct stat *lst)
{
    if (listed_safe(dir))
        return true;
    struct stat st;
    const char *what = NULL;
    uid_t owner = 0;
    if (stat(dir, &st) < 0) {
        fprintf(stderr, "buildtrail %s: cannot tell who owns %s: %s; name the trace with -d "
                        "FILE\n", cmd, dir, g_strerror(errno));
        return false;
    }
    if (!trusted_owner(st.st_uid))
        what = "the directory holding it", owner = st.st_uid;
    else if (!trusted_owner(lst->st_uid))
        what = S_ISLNK(lst->st_mode) ? "the link" : "it", owner = lst->st_uid;
    else if (S_ISLNK(lst->st_mode) && stat(candidate, &st) == 0 && !trusted_owner(st.st_uid))
        what = "the file the link leads to", owner = st.st_uid;
    if (!what)
        return true;
    struct passwd *pw = getpwuid(owner);
    GString *e = g_string_new(NULL), *d = g_string_new(NULL);
    text_escape(e, candidate, strlen(candidate));
    text_escape(d, dir, strlen(dir));
    fprintf(stderr, "buildtrail %s: found %s, but %s belongs to %s (uid %u), neither you nor "
                    "root, so anyone could have put it there; to read it, name it with -d %s "
                    "or BUILDTRAIL_DB, or trust its directory with BUILDTRAIL_SAFE_DIRS=%s\n",
            cmd, e->str, what, pw ? pw->pw_name : "another user", (unsigned)owner, e->str,
            d->str);
    g_string_free(e, TRUE);
    g_string_free(d, TRUE);
    return false;
}

/* The trace a query reads when -d is not given: $BUILDTRAIL_DB, else the nearest
 * buildtrail.db in the current directory or above it, as git finds .git (the first that
 * exists, whatever it is: a damaged or foreign file there is reported, never skipped; one
 * that another user could have put there is refused: trusted_trace).  NULL after printing
 * that there is none, or why it is not read. */
static char *find_trace(const char *cmd)
{
    const char *env = getenv("BUILDTRAIL_DB");
    if (env && *env)
        return g_strdup(env);
    g_autofree char *cwd = g_get_current_dir();
    char *dir = g_strdup(cwd);
    for (bool here = true;; here = false) {
        char *candidate = g_build_filename(dir, QUERY_DEFAULT_DB, NULL);
        struct stat st;
        int found = lstat(candidate, &st);
        if (found == 0 || errno != ENOENT) {
            /* (a name that cannot be looked at: qdb_open says why) */
            bool trusted = found < 0 || trusted_trace(cmd, dir, candidate, &st);
            g_free(dir);
            if (!trusted) {
                g_free(candidate);
                return NULL;
            }
            if (here) { /* shown as the user would write it */
                g_free(candidate);
                return g_strdup(QUERY_DEFAULT_DB);
            }
            return candidate;
        }
        g_free(candidate);
        char *parent = g_path_get_dirname(dir);
        bool top = !strcmp(parent, dir);
        g_free(dir);
        dir = parent;
        if (top)
            break;
    }
    g_free(dir);
    GString *e = g_string_new(NULL);
    text_escape(e, cwd, strlen(cwd));
    fprintf(stderr, "buildtrail %s: no " QUERY_DEFAULT_DB " in %s or any directory above it; "
                    "record one with 'buildtrail run -- COMMAND', or name one with -d FILE or "
                    "BUILDTRAIL_DB\n", cmd, e->str);
    g_string_free(e, TRUE);
    return NULL;
}

/* Keep freed memory in the process: SQLite frees a statement's buffers at every reset, and a
 * query that runs a statement per product or per access made glibc give the top of the heap
 * back and take it again each time — each time a TLB shootdown across CPUs, which on this
 * 2-CPU VM made the slsa export 6.0 s instead of 1.6 s.  The peak stays what it was. */
static void keep_freed_memory(void)
{
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
}

struct qdb *query_open_for(const char *cmd, const char *db_path, enum query_need need)
{
    current_cmd = cmd;
    keep_freed_memory();
    g_autofree char *found = db_path ? NULL : find_trace(cmd);
    if (!db_path && !found)
        return NULL;
    const char *path = db_path ? db_path : found;
    /* A trace named by the environment is named so in every error: the variable may have
     * been set long ago, elsewhere. */
    const char *env = getenv("BUILDTRAIL_DB");
    bool from_env = !db_path && env && *env;
    g_autofree char *shown = from_env ? g_strconcat("BUILDTRAIL_DB=", path, NULL) : NULL;
    struct qdb *q = NULL;
    g_autofree char *err = NULL;
    int r = qdb_open(path, &q, &err);
    if (r == 0) {
        if (query_failed(q)) {
            qdb_close(q);
            return NULL;
        }
        const struct qdb_run *run = qdb_run(q);
        if (need == QUERY_COMPLETE_TRACE && !run->complete) {
            fprintf(stderr, "buildtrail %s: the trace %s is incomplete (%s); %s stands only on a "
                            "complete trace: record the build again, or pass --allow-incomplete "
                            "to have the answer marked incomplete\n", cmd, path, run->incomplete,
                    cmd);
            qdb_close(q);
            return NULL;
        }
        note_run_state(cmd, path, run);
        current_q = q;
        return q;
    }
    if (r == -EBADMSG) {
        fprintf(stderr, "buildtrail %s: the trace %s is damaged: %s; record the build again%s\n",
                cmd, from_env ? shown : path, err ? err : g_strerror(-r),
                from_env ? ", or unset BUILDTRAIL_DB" : "");
        return NULL;
    }
    const char *fix = r == -EPROTO ? "use a newer buildtrail to read it"
                      : r == -EROFS  ? "copy the trace and its -wal to a directory you can write"
                      : from_env     ? "set BUILDTRAIL_DB to a trace written by 'buildtrail run', "
                                       "or unset it to read the nearest " QUERY_DEFAULT_DB
                      : r == -ENOENT ? "record one with 'buildtrail run -- COMMAND' or name one with -d FILE"
                                     : "name a trace written by 'buildtrail run' with -d FILE";
    fprintf(stderr, "buildtrail %s: %s: %s; %s\n", cmd, from_env ? shown : path,
            err ? err : g_strerror(-r), fix);
    return NULL;
}

static void json_opt_string(GString *out, const char *key, const char *s)
{
    g_string_append_printf(out, ",\"%s\":", key);
    if (s)
        json_string(out, s, strlen(s));
    else
        g_string_append(out, "null");
}

/* ISO 8601 UTC for wall-clock nanoseconds. */
static void iso_utc(GString *out, int64_t ns)
{
    char buf[32];
    if (text_iso_utc(ns, buf))
        g_string_append_printf(out, "\"%s\"", buf);
    else
        g_string_append(out, "null");
}

void query_json_trace(GString *out, struct qdb *q)
{
    const struct qdb_run *r = qdb_run(q);
    g_string_append(out, "\"trace\":{\"path\":");
    json_string(out, q->path, strlen(q->path));
    g_string_append_printf(out, ",\"state\":\"%s\",\"complete\":%s",
                           qdb_run_state_name(r->state), r->complete ? "true" : "false");
    json_opt_string(out, "incomplete", r->incomplete);
    json_opt_string(out, "process_tree", r->process_tree);
    json_opt_string(out, "failure", r->failure);
    g_string_append(out, ",\"started\":");
    if (r->start_realtime_ns)
        iso_utc(out, r->start_realtime_ns);
    else
        g_string_append(out, "null");
    g_string_append(out, ",\"finished\":");
    if (r->end_realtime_ns)
        iso_utc(out, r->end_realtime_ns);
    else
        g_string_append(out, "null");
    if (r->exit_status >= 0)
        g_string_append_printf(out, ",\"exit_status\":%d}", r->exit_status);
    else
        g_string_append(out, ",\"exit_status\":null}");
}

void query_json_clock(const struct qdb *q)
{
    current_q = q;
}

void query_json_time(GString *out, const char *key, int64_t boot_ns)
{
    char buf[40];
    int64_t wall = current_q ? qdb_wall_ns(current_q, boot_ns) : 0;
    if (wall && text_rfc3339_ns(wall, buf))
        g_string_append_printf(out, ",\"%s\":\"%s\"", key, buf);
    else
        g_string_append_printf(out, ",\"%s\":null", key);
}

void query_json_begin(GString *out, struct qdb *q, const char *key)
{
    g_string_append_printf(out, "{\"json_version\":%d,", QUERY_JSON_VERSION);
    query_json_trace(out, q);
    if (key)
        g_string_append_printf(out, ",\"%s\":", key);
}

void query_jsonw_begin(struct jsonw *w, GString *out, struct qdb *q)
{
    jsonw_init(w, out);
    jsonw_object_begin(w);
    jsonw_kv_int(w, "json_version", QUERY_JSON_VERSION);
    g_autoptr(GString) trace = g_string_new(NULL);
    query_json_trace(trace, q);
    static const char member[] = "\"trace\":";
    g_assert(g_str_has_prefix(trace->str, member));
    jsonw_key(w, "trace");
    jsonw_raw(w, trace->str + strlen(member));
}

void query_text_process(GString *out, const struct qdb_process *p)
{
    g_string_append_printf(out, "[%" G_GINT64_FORMAT "] ", p->id);
    term_mark_begin(out); /* (escaped text only: see terminal.h) */
    if (p->argv && p->argv_len)
        text_argv(out, p->argv, p->argv_len);
    else if (p->exe)
        text_escape(out, p->exe, strlen(p->exe));
    else
        g_string_append(out, "(unknown)");
    term_mark_end(out);
}

void query_text_exit(GString *out, const struct qdb_process *p)
{
    if (!p->exited)
        return;
    if (p->killed_at_end)
        g_string_append(out, "  [left running, killed at the end]");
    else if (p->exit_signal)
        g_string_append_printf(out, "  [killed by signal %d]", p->exit_signal);
    else if (p->exit_code)
        g_string_append_printf(out, "  [exit %d]", p->exit_code);
}

void query_json_process(GString *out, const struct qdb_process *p)
{
    g_string_append_printf(out, "{\"id\":%" G_GINT64_FORMAT ",\"pid\":%d", p->id, p->pid);
    json_opt_string(out, "exe", p->exe);
    g_string_append(out, ",\"argv\":");
    if (p->argv)
        json_argv(out, p->argv, p->argv_len);
    else
        g_string_append(out, "null");
    json_opt_string(out, "cwd", p->cwd);
    if (p->parent_id)
        g_string_append_printf(out, ",\"parent\":%" G_GINT64_FORMAT, p->parent_id);
    else
        g_string_append(out, ",\"parent\":null");
    if (p->prev_image_id)
        g_string_append_printf(out, ",\"exec_of\":%" G_GINT64_FORMAT, p->prev_image_id);
    if (p->orphan)
        g_string_append(out, ",\"orphan\":true");
    query_json_time(out, "started", p->start_ns);
    g_string_append_printf(out, ",\"start_ns\":%" G_GINT64_FORMAT, p->start_ns);
    if (p->exited) {
        g_string_append(out, ",\"exit\":{");
        if (p->exit_signal)
            g_string_append_printf(out, "\"signal\":%d", p->exit_signal);
        else
            g_string_append_printf(out, "\"code\":%d", p->exit_code);
        if (p->killed_at_end)
            g_string_append(out, ",\"killed_at_end\":true");
        query_json_time(out, "ended", p->end_ns);
        g_string_append_printf(out, ",\"end_ns\":%" G_GINT64_FORMAT "}", p->end_ns);
    }
    g_string_append_c(out, '}');
}

void query_text_ancestors(GString *out, struct qdb *q, const struct qdb_process *p,
                          const char *first, const char *rest)
{
    bool at_first = true;
    for (const struct qdb_process *a = p && p->parent_id ? qdb_process(q, p->parent_id) : NULL; a;
         a = a->parent_id ? qdb_process(q, a->parent_id) : NULL) {
        g_string_append(out, at_first ? first : rest);
        query_text_process(out, a);
        g_string_append_c(out, '\n');
        at_first = false;
    }
}

void query_json_ancestors(GString *out, struct qdb *q, const struct qdb_process *p)
{
    g_string_append_c(out, '[');
    bool at_first = true;
    for (const struct qdb_process *a = p && p->parent_id ? qdb_process(q, p->parent_id) : NULL; a;
         a = a->parent_id ? qdb_process(q, a->parent_id) : NULL) {
        if (!at_first)
            g_string_append_c(out, ',');
        query_json_process(out, a);
        at_first = false;
    }
    g_string_append_c(out, ']');
}

int query_emit(struct qdb *q, GString *out)
{
    if (q && query_failed(q))
        return 1;
    return term_write(out) < 0 ? 1 : 0;
}

char *query_run_cwd(struct qdb *q)
{
    const char *cwd = qdb_run(q)->cwd;
    return cwd ? g_strdup(cwd) : g_get_current_dir();
}

bool query_each_env(struct qdb *q, int64_t id,
                    void (*fn)(const char *name, const char *value, void *data), void *data)
{
    g_autoptr(GBytes) env = qdb_process_env(q, id);
    if (!env)
        return false;
    gsize len = 0;
    const char *p = g_bytes_get_data(env, &len);
    for (gsize at = 0; at < len;) {
        const char *entry = p + at;
        gsize elen = strnlen(entry, len - at);
        g_autofree char *copy = g_strndup(entry, elen);
        char *eq = strchr(copy, '=');
        if (eq)
            *eq = '\0';
        if (*copy)
            fn(copy, eq ? eq + 1 : NULL, data);
        at += elen + 1;
    }
    return true;
}

static void env_json_entry(const char *name, const char *value, void *data)
{
    struct jsonw *w = data;
    jsonw_kv_string(w, name, value); /* a redacted value: null */
}

void query_json_env(GString *out, struct qdb *q, int64_t id)
{
    size_t mark = out->len;
    struct jsonw w;
    jsonw_init(&w, out);
    jsonw_object_begin(&w);
    if (!query_each_env(q, id, env_json_entry, &w)) {
        g_string_truncate(out, mark);
        g_string_append(out, "null");
        return;
    }
    jsonw_object_end(&w);
}

/* ---- provenance helpers shared by the commands --------------------------------------- */

void query_json_version(GString *out, const struct prov_version *v)
{
    g_string_append_printf(out, "{\"version\":%" G_GINT64_FORMAT ",\"path\":", v->id);
    json_string(out, v->path, strlen(v->path));
    g_string_append_printf(out, ",\"origin\":\"%s\"", prov_origin_name(v->origin));
    if (v->size >= 0)
        g_string_append_printf(out, ",\"size\":%" G_GINT64_FORMAT, v->size);
    if (v->sha256[0])
        g_string_append_printf(out, ",\"sha256\":\"%s\",\"sha1\":\"%s\",\"git_sha1\":\"%s\"",
                               v->sha256, v->sha1, v->git_sha1);
    if (v->hash_error)
        g_string_append_printf(out, ",\"hash_error\":\"%s\"", g_strerror(v->hash_error));
    if (v->base_id)
        g_string_append_printf(out, ",\"base\":%" G_GINT64_FORMAT, v->base_id);
}

void query_text_version(GString *out, const struct prov_version *v)
{
    g_string_append_printf(out, "version %" G_GINT64_FORMAT " (%s", v->id,
                           v->origin == TRACEDB_VERSION_FOUND ? "not made by the build"
                                                              : "made by the build");
    if (v->size >= 0)
        g_string_append_printf(out, ", %" G_GINT64_FORMAT " bytes", v->size);
    if (v->sha256[0])
        g_string_append_printf(out, ", sha256 %s", v->sha256);
    else if (v->hash_error)
        g_string_append_printf(out, ", not hashed: %s", g_strerror(v->hash_error));
    g_string_append_c(out, ')');
}

struct prov *query_open_prov(const char *cmd, struct qdb *q)
{
    struct prov *p = prov_new(q);
    if (!p)
        fprintf(stderr, "buildtrail %s: this trace has no file versions (recorded by an older "
                        "buildtrail, schema %d); record the build again to ask this\n",
                cmd, q->schema_version);
    return p;
}

/* A path as the user may paste it: relative to the current directory when under it. */
void query_text_access(GString *out, int kind, int64_t bytes)
{
    if (kind == TRACEDB_READ)
        g_string_append_printf(out, bytes > 0 ? "read at least %" G_GINT64_FORMAT " bytes"
                                              : "opened for reading", bytes);
    else if (kind == TRACEDB_WRITE && bytes >= 0)
        g_string_append_printf(out, "wrote %" G_GINT64_FORMAT " byte%s", bytes,
                               bytes == 1 ? "" : "s");
    else
        g_string_append(out, query_access_phrase(kind));
}

const char *query_access_phrase(int kind)
{
    /* (for people; --json keeps the kind names of tracedb_access_kind_name) */
    static const char *const phrase[TRACEDB_ACCESS_KIND_MAX + 1] = {
        [TRACEDB_READ] = "opened for reading",
        [TRACEDB_WRITE] = "opened for writing",
        [TRACEDB_CREATE] = "created",
        [TRACEDB_TRUNCATE] = "truncated",
        [TRACEDB_EXEC] = "executed",
        [TRACEDB_UNLINK] = "removed",
        [TRACEDB_MKDIR] = "made the directory",
        [TRACEDB_RMDIR] = "removed the directory",
        [TRACEDB_RENAME_FROM] = "renamed it away",
        [TRACEDB_RENAME_TO] = "renamed into place",
        [TRACEDB_LINK] = "hard-linked into place",
        [TRACEDB_SYMLINK] = "made it a symlink",
        [TRACEDB_READDIR] = "listed the directory",
        [TRACEDB_READLINK] = "followed the symlink",
        [TRACEDB_PROBE] = "looked it up",
        [TRACEDB_SETATTR] = "changed its mode, owner or times",
    };
    const char *s = kind >= 1 && kind <= TRACEDB_ACCESS_KIND_MAX ? phrase[kind] : NULL;
    return s ? s : "did something unknown to this buildtrail";
}

void query_json_bytes(GString *out, int kind, int64_t bytes)
{
    g_string_append_printf(out, ",\"bytes\":%" G_GINT64_FORMAT ",\"bytes_exact\":%s", bytes,
                           kind == TRACEDB_READ ? "false" : "true");
}

/* One process as a denial names it: "12 cc1", "?" unknown. */
void query_append_short_process(GString *out, struct qdb *q, int64_t id)
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
