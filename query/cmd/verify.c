/* verify: did the build read only what its manifest declares (and with the declared hashes)? */
#include "denials.h"
#include "driver.h"
#include "jsonw.h"
#include "linkres.h"
#include "manifest.h"
#include "query.h"
#include "stmt.h"
#include "textout.h"
#include "tracedb.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

/* The build's inputs: every path it read or executed whose content it did not make itself
 * (a found version), with the hash of what it read there, by path. */
TRACEDB_STATEMENT(sql_found_inputs, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT DISTINCT f.path, lower(hex(v.sha256)) FROM accesses a JOIN versions v "
                  "ON v.id = a.version_id JOIN files f ON f.id = a.file_id WHERE a.kind IN "
                  TRACEDB_KINDS_READ " AND a.result = 0 AND v.origin = 1 ORDER BY f.path");
enum { FOUND_PATH, FOUND_SHA256 };

struct finding {
    const char *what, *path;
    const char *expected, *actual; /* a mismatch's sha256s */
    const char *package;           /* a denial's package (run --only-packages), or NULL */
};
static void report(GString *out, struct jsonw *w, const struct finding *f);

/* The paths the build wrote, made or placed something at. */
TRACEDB_STATEMENT(sql_wrote_paths, 3, TRACEDB_SCHEMA_VERSION,
                  "SELECT DISTINCT f.path FROM accesses a JOIN files f ON f.id = a.file_id "
                  "WHERE a.kind IN " TRACEDB_KINDS_WROTE_PATH " AND a.result = 0");

/* The set of paths the build wrote (sql_wrote_paths), or NULL on a database error (q has it). */
static GHashTable *wrote_paths(struct qdb *q)
{
    sqlite3_stmt *st = NULL;
    if (!qdb_prepare(q, sql_wrote_paths, &st))
        return NULL;
    GHashTable *wrote = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    while (qdb_row(q, st))
        g_hash_table_add(wrote, g_strdup((const char *)sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    if (qdb_failed(q)) {
        g_hash_table_unref(wrote);
        return NULL;
    }
    return wrote;
}

/* What report_denials() did not count as findings. */
struct denials_left {
    int listed_only; /* only left out of listings */
    int then_made;   /* made by the build afterwards */
};

/* A file hidden from the build (run --only-inputs) that it looked up by name is a finding:
 * "denied", once per file.  One it only did not see in a listing is not (`find`, a shell
 * glob, make's directory cache list .git and every undeclared file there, whatever they
 * want), nor one the build then made itself (a stale output of an earlier build that make
 * looked at and built again: its own product): *left counts those.  The number of findings,
 * or -1 on a database error (q has it). */
static int report_denials(struct qdb *q, GHashTable *wrote, GString *out, struct jsonw *w,
                          struct denials_left *left)
{
    bool recorded;
    GArray *d = denials_load(q, 0, &recorded);
    if (!d)
        return -1;
    int n = 0;
    *left = (struct denials_left){0};
    for (guint i = 0; i < d->len && !qdb_failed(q);) {
        const struct denial *first = &g_array_index(d, struct denial, i);
        bool looked_up = false;
        for (; i < d->len && !strcmp(first->path, g_array_index(d, struct denial, i).path); i++)
            looked_up |= g_array_index(d, struct denial, i).how != TRACEDB_DENIED_LISTING;
        if (g_hash_table_contains(wrote, first->path)) {
            left->then_made++;
        } else if (looked_up) {
            report(out, w, &(struct finding){"denied", first->path, .package = first->package});
            n++;
        } else {
            left->listed_only++;
        }
    }
    denials_free(d);
    return qdb_failed(q) ? -1 : n;
}

/* The notes on the hidden files that are not findings. */
static void note_denials_left(GString *out, const struct denials_left *left)
{
    int n = left->listed_only;
    if (n > 0)
        g_string_append_printf(out, "note: %d undeclared file%s left out of listings only (not "
                                    "findings: the build did not ask for %s by name; 'buildtrail "
                                    "files --denied')\n",
                               n, n == 1 ? " was" : "s were", n == 1 ? "it" : "them");
    n = left->then_made;
    if (n > 0)
        g_string_append_printf(out, "note: %d hidden file%s made by the build afterwards (not "
                                    "findings: stale outputs of an earlier build, made again; "
                                    "'buildtrail files --denied')\n",
                               n, n == 1 ? " was" : "s were");
}

/* linkres's crossed(): was a symlink on the way one the build wrote? */
struct crossing {
    GHashTable *wrote;
    bool remade;
};

static void crossed_link(const char *link, void *data)
{
    struct crossing *c = data;
    c->remade |= g_hash_table_contains(c->wrote, link);
}

/* Each entry's path where its symlinks lead inside the project `root`, as `run --only-inputs`
 * declares it (linkres.h: include/v.h with include -> vendor/include is vendor/include/v.h,
 * the path the build read): an entry of its own, or NULL, one for each of `entries`.  Not
 * through a link in `wrote`: the links are looked at after the build, and one it made or
 * remade (ln -sfn secret.txt lnk) leads where it did not before, a declaration of what the
 * build chose to read. */
static GPtrArray *link_targets(const GPtrArray *entries, const char *root, GHashTable *wrote)
{
    GPtrArray *t = g_ptr_array_new_with_free_func(manifest_entry_free);
    for (guint i = 0; i < entries->len; i++) {
        const struct manifest_entry *e = entries->pdata[i];
        /* One resolver each: a directory resolved before would not tell its links again. */
        struct crossing c = {wrote, false};
        struct linkres *lr = linkres_new(crossed_link, &c);
        char *real = e->glob ? NULL : linkres_target(lr, e->pattern, root, NULL);
        linkres_free(lr);
        if (c.remade)
            g_clear_pointer(&real, g_free);
        struct manifest_entry *a = NULL;
        if (real) {
            a = g_new(struct manifest_entry, 1);
            *a = *e; /* the same line: its hash, DIR/ */
            a->pattern = real;
        }
        g_ptr_array_add(t, a);
    }
    return t;
}

/* One problem: into the JSON array `w` is in, else a line of text. */
static void report(GString *out, struct jsonw *w, const struct finding *f)
{
    if (w) {
        jsonw_object_begin(w);
        jsonw_kv_string(w, "problem", f->what);
        jsonw_kv_string(w, "path", f->path);
        if (f->expected) {
            jsonw_kv_string(w, "expected_sha256", f->expected);
            jsonw_kv_string(w, "sha256", f->actual && *f->actual ? f->actual : "");
        }
        if (!strcmp(f->what, "denied")) {
            jsonw_key(w, "package");
            f->package ? jsonw_string(w, f->package) : jsonw_null(w);
        }
        jsonw_object_end(w);
    } else {
        g_string_append_printf(out, "%-10s ", f->what);
        text_escape(out, f->path, strlen(f->path));
        if (f->expected)
            g_string_append_printf(out, "  (declared sha256 %s, read %s)", f->expected,
                                   f->actual && *f->actual ? f->actual : "unhashed");
        if (f->package) {
            g_string_append(out, "  (of package ");
            text_escape(out, f->package, strlen(f->package));
            g_string_append(out, ", not allowed)");
        }
        g_string_append_c(out, '\n');
    }
}

struct verify_cli {
    const char *manifest_path, *root;
    bool unused;
};

static int verify_option(void *ctx, int c, const char *arg)
{
    struct verify_cli *v = ctx;
    switch (c) {
    case 'i': v->manifest_path = arg; return 0;
    case 'u': v->unused = true; return 0;
    case 'r': v->root = arg; return 0;
    }
    return 2;
}

static const struct option verify_options[] = {
    {"inputs", required_argument, NULL, 'i'},
    {"unused", no_argument, NULL, 'u'},
    {"root", required_argument, NULL, 'r'},
    {0}};

static const struct query_command verify_command = {
    .name = "verify",
    .exit_help = "\nExit status: 0 the build was clean; 1 something was reported; 2 an error (a\n"
                 "bad manifest, a trace that is damaged, or incomplete without\n"
                 "--allow-incomplete) or a usage error.\n",
    .operands = "",
    .about = "Check that the build read only declared inputs.  An input is a file the build\n"
             "read or executed without having made it.  Reports each input the manifest does\n"
             "not declare ('undeclared'), each declared hash the input's content does not\n"
             "have ('mismatch'), and with --unused each manifest line no input matched\n"
             "('unused').\n"
             "\n"
             "MANIFEST lines: a path; a glob (* ? [..] within one path component); DIR/ or\n"
             "DIR/** for a whole tree; or 'SHA256  PATH' as sha256sum prints.  '#' starts a\n"
             "comment.  Relative paths are relative to --root DIR (default: the directory\n"
             "the build was run in); a path through a symlink declares where it leads too,\n"
             "when that lies in that directory, as run --only-inputs does (not through a\n"
             "link the build wrote).  Traced system trees (run --system) make /usr files\n"
             "inputs too: declare them, e.g. with '/usr/**'.\n",
    .options_help = "  -i, --inputs MANIFEST the declared inputs\n"
                    "  -u, --unused          also report declared inputs the build never read\n"
                    "      --root DIR        resolve relative manifest paths against DIR\n",
    .options = verify_options,
    .shortopts = "i:u",
    .flags = QUERY_ALLOW_INCOMPLETE,
    .option = verify_option,
};

int query_verify_main(int argc, char **argv)
{
    struct query_opts o = {0};
    struct verify_cli v = {0};
    int r = query_parse(&verify_command, argc, argv, &o, &v);
    if (r >= 0)
        return r;
    const char *manifest_path = v.manifest_path, *root_arg = v.root;
    bool unused = v.unused;
    if (!manifest_path) {
        fprintf(stderr, "buildtrail verify: no manifest given; name the declared inputs with "
                        "--inputs MANIFEST\n");
        return 2;
    }
    g_autofree char *text = NULL;
    gsize len = 0;
    g_autoptr(GError) error = NULL;
    if (!g_file_get_contents(manifest_path, &text, &len, &error)) {
        fprintf(stderr, "buildtrail verify: cannot read the manifest: %s; give a readable file "
                        "to --inputs\n", error->message);
        return 2;
    }
    /* Exit 2 for every error, 1 only for "the build read what was not declared". */
    struct qdb *q = query_open_for("verify", o.db_path,
                                   o.allow_incomplete ? QUERY_ANY_TRACE : QUERY_COMPLETE_TRACE);
    if (!q)
        return 2;
    struct prov *p = query_open_prov("verify", q);
    if (!p) {
        qdb_close(q);
        return 2;
    }
    prov_free(p);
    g_autofree char *root = root_arg ? qdb_absolute_path(root_arg) : query_run_cwd(q);
    GPtrArray *entries = g_ptr_array_new_with_free_func(manifest_entry_free);
    g_autofree char *perr = NULL;
    if (manifest_parse(text, len, root, entries, &perr) < 0) {
        fprintf(stderr, "buildtrail verify: %s: %s; fix that line (see 'buildtrail verify "
                        "--help' for the format)\n", manifest_path, perr);
        g_ptr_array_free(entries, TRUE);
        qdb_close(q);
        return 2;
    }

    g_autoptr(GHashTable) wrote = wrote_paths(q);
    g_autoptr(GPtrArray) targets = wrote ? link_targets(entries, root, wrote) : NULL;
    sqlite3_stmt *st = NULL;
    if (!wrote || !qdb_prepare(q, sql_found_inputs, &st)) {
        query_failed(q);
        g_ptr_array_free(entries, TRUE);
        qdb_close(q);
        return 2;
    }
    GString *out = g_string_new(NULL);
    struct jsonw jw, *w = o.json ? &jw : NULL;
    jsonw_init(&jw, out);
    if (w) {
        query_json_begin(jsonw_raw_object_begin(w), q, NULL);
        jsonw_key(w, "problems");
        jsonw_array_begin(w);
    }
    unsigned n_inputs = 0, n_undeclared = 0, n_mismatch = 0, n_unused = 0;
    while (qdb_row(q, st)) {
        const char *path = (const char *)sqlite3_column_text(st, FOUND_PATH);
        const char *sha = (const char *)sqlite3_column_text(st, FOUND_SHA256);
        n_inputs++;
        bool declared = false;
        for (guint i = 0; i < entries->len; i++) {
            struct manifest_entry *e = entries->pdata[i];
            const struct manifest_entry *t = targets->pdata[i];
            if (!manifest_match(e, path) && !(t && manifest_match(t, path)))
                continue;
            declared = true;
            e->matched++;
            if (e->sha256[0] && (!sha || strcmp(e->sha256, sha) != 0)) {
                report(out, w, &(struct finding){"mismatch", path, e->sha256, sha, NULL});
                n_mismatch++;
            }
        }
        if (!declared) {
            report(out, w, &(struct finding){"undeclared", path, NULL, NULL, NULL});
            n_undeclared++;
        }
    }
    sqlite3_finalize(st);
    struct denials_left left = {0};
    int n_denied = report_denials(q, wrote, out, w, &left);
    if (unused) {
        for (guint i = 0; i < entries->len; i++) {
            const struct manifest_entry *e = entries->pdata[i];
            if (!e->matched) {
                report(out, w, &(struct finding){"unused", e->pattern, NULL, NULL, NULL});
                n_unused++;
            }
        }
    }
    bool ok = !n_undeclared && !n_mismatch && !n_unused && n_denied == 0;
    if (w) {
        jsonw_array_end(w);
        jsonw_kv_int(w, "inputs", n_inputs);
        jsonw_kv_int(w, "undeclared", n_undeclared);
        jsonw_kv_int(w, "mismatch", n_mismatch);
        jsonw_kv_int(w, "unused", n_unused);
        jsonw_kv_int(w, "denied", MAX(n_denied, 0));
        jsonw_kv_int(w, "denied_listed_only", left.listed_only);
        jsonw_kv_int(w, "denied_then_made", left.then_made);
        jsonw_kv_bool(w, "ok", ok);
        jsonw_object_end(w);
        g_string_append_c(out, '\n');
    } else if (ok)
        g_string_append_printf(out, "ok: the build read %u input%s, all declared%s\n", n_inputs,
                               n_inputs == 1 ? "" : "s", unused ? " and all declared used" : "");
    else {
        g_string_append_printf(out, "FAILED: %u input%s read: %u undeclared, %u hash mismatch%s",
                               n_inputs, n_inputs == 1 ? "" : "s", n_undeclared, n_mismatch,
                               n_mismatch == 1 ? "" : "es");
        if (unused)
            g_string_append_printf(out, ", %u declared but unused", n_unused);
        if (n_denied > 0)
            g_string_append_printf(out, "; %d file%s hidden from the build", n_denied,
                                   n_denied == 1 ? "" : "s");
        g_string_append_c(out, '\n');
    }
    if (!o.json)
        note_denials_left(out, &left);
    if (!o.json && !qdb_run(q)->complete)
        g_string_append_printf(out, "INCOMPLETE TRACE: %s; this verdict covers only what was "
                                    "recorded\n", qdb_run(q)->incomplete);
    int status = query_emit(q, out) ? 2 : ok ? 0 : 1;
    g_string_free(out, TRUE);
    g_ptr_array_free(entries, TRUE);
    qdb_close(q);
    return status;
}
