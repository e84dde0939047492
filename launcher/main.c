/* buildtrail — one binary, subcommands as a table (run, and the queries over a trace). */
#include "doctor.h"
#include "query.h"
#include "run.h"
#ifdef BT_HAVE_STORE
#include "store.h"
#endif

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct command {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"run", run_main, "run a build command and record its trace"},
    {"info", query_info_main, "what a trace is: its run, how it ended, what it holds"},
    {"who-wrote", query_who_wrote_main, "which processes wrote a file"},
    {"who-read", query_who_read_main, "which processes read a file"},
    {"tree", query_tree_main, "the build's process tree"},
    {"log", query_log_main, "the build's output, one job's output together"},
    {"show", query_show_main, "one process: command, parents, exit, files, output"},
    {"files", query_files_main, "the files the build read, wrote, created, deleted, missed"},
    {"inputs", query_inputs_main, "everything a file was made from (its source closure)"},
    {"outputs", query_outputs_main, "everything the build made from a file"},
    {"verify", query_verify_main, "check the build read only its declared inputs"},
    {"licenses", query_licenses_main, "the licenses of what a built file incorporates"},
    {"copies", query_copies_main, "embedded copies of code, exact or edited, and where they shipped"},
    {"packages", query_packages_main, "the Debian packages the build used and incorporated"},
    {"diff", query_diff_main, "why two builds of the same source differ: the root causes"},
    {"repro", query_repro_main, "build twice with reprotest's variations: what differs and why"},
    {"critical-path", query_critpath_main, "what set the build's wall time, and how parallel it was"},
    {"report", query_report_main, "the build as one HTML page: timeline, critical path, log, products"},
    {"export", query_export_main, "the trace as compile_commands.json, DOT, SPDX, CycloneDX..."},
#ifdef BT_HAVE_STORE
    {"store", store_main, "many traces in PostgreSQL: push, and ask across builds"},
#endif
    {"doctor", doctor_main, "check what tracing needs on this machine"},
};

static void usage(FILE *f)
{
    fputs("Usage: buildtrail [-d FILE] COMMAND [OPTION]... [ARG]...\n"
          "Trace a build (every file access and output line, with the process that did it)\n"
          "and answer questions about it afterwards.\n\nCommands:\n", f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-13s %s\n", commands[i].name, commands[i].summary);
    fputs("\n'buildtrail help COMMAND' (or 'buildtrail COMMAND --help') tells more about each;\n"
          "'man buildtrail' has them all.\n"
          "\n"
          "Example:\n"
          "  buildtrail run -- make -j2 && buildtrail who-wrote libfoo.a\n"
          "\n"
          "Options:\n"
          "  -d, --db FILE         the trace the query reads, as each query's -d does\n"
          "  -h, --help            print this help\n"
          "  -V, --version         print the version\n"
          "\n"
          "Exit status: run exits with the build's status; the queries 0 when answered, 1\n"
          "when what was asked about was not found or the trace cannot be read, 2 for a\n"
          "usage error (see each command's help).\n", f);
}

/* "'WORD' is not a command", with the commands it may have meant. */
static int not_a_command(const char *word)
{
    char like[256] = "";
    size_t n = 0, len = 0;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (query_like(word, commands[i].name) && len + 32 < sizeof like)
            len += (size_t)snprintf(like + len, sizeof like - len, "%s'buildtrail %s'",
                                    n++ ? " or " : "", commands[i].name);
    if (n)
        fprintf(stderr, "buildtrail: '%s' is not a command; did you mean %s?\n", word, like);
    else
        fprintf(stderr, "buildtrail: '%s' is not a command; see 'buildtrail --help'\n", word);
    return 2;
}

static bool is_query(const char *name)
{
    return strcmp(name, "run") && strcmp(name, "doctor") && strcmp(name, "help") &&
           strcmp(name, "store") && strcmp(name, "repro") &&
           *name != '-';
}

int main(int argc, char **argv)
{
    /* A trace named before the command, as 'git -C DIR' names a repository:
     * 'buildtrail -d FILE QUERY ...' is 'buildtrail QUERY -d FILE ...' (another -d after
     * the command naming another trace is refused by query_parse: a query reads one). */
    const char *db = NULL;
    int first = 1;
    if (argc > 1 && (!strcmp(argv[1], "-d") || !strcmp(argv[1], "--db"))) {
        if (argc < 3 || !*argv[2]) {
            fprintf(stderr, "buildtrail: %s needs a trace FILE; e.g. 'buildtrail %s FILE info'\n",
                    argv[1], argv[1]);
            return 2;
        }
        db = argv[2];
        first = 3;
    } else if (argc > 1 && (!strncmp(argv[1], "--db=", 5) || !strncmp(argv[1], "-d", 2)) &&
               argv[1][2]) {
        db = argv[1] + (argv[1][1] == '-' ? 5 : 2);
        first = 2;
    }
    if (db) {
        if (argc <= first) {
            fprintf(stderr, "buildtrail: no command after -d %s; e.g. 'buildtrail -d %s info'\n",
                    db, db);
            return 2;
        }
        if (!strcmp(argv[first], "-d") || !strcmp(argv[first], "--db") ||
            !strncmp(argv[first], "--db=", 5) || !strncmp(argv[first], "-d", 2)) {
            fprintf(stderr, "buildtrail: -d given twice before the command; a query reads one "
                            "trace (diff takes its two as operands: buildtrail diff A.db B.db)\n");
            return 2;
        }
        if (!is_query(argv[first])) {
            fprintf(stderr, "buildtrail: -d names the trace a query reads, not one for '%s'; "
                            "%s\n", argv[first], !strcmp(argv[first], "run")
                                ? "'buildtrail run -o FILE' names the trace it writes"
                            : !strcmp(argv[first], "store")
                                ? "'buildtrail store push -d FILE' names the trace it pushes"
                                : "give a query after it, as 'buildtrail -d FILE info'");
            return 2;
        }
        char **args = g_new0(char *, (size_t)(argc - first) + 4);
        int n = 0;
        args[n++] = argv[first];
        args[n++] = (char *)"--db";
        args[n++] = (char *)db;
        for (int i = first + 1; i < argc; i++)
            args[n++] = argv[i];
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[first], commands[i].name)) {
                int r = commands[i].main(n, args);
                g_free(args);
                return r;
            }
        g_free(args);
        return not_a_command(argv[first]);
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "help") && argc > 2) { /* help COMMAND: that command's --help */
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (!strcmp(argv[2], commands[i].name)) {
                char help[] = "--help";
                return commands[i].main(2, (char *[]){argv[2], help, NULL});
            }
        return not_a_command(argv[2]);
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
        printf("buildtrail %s\n", BT_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].main(argc - 1, argv + 1);
    return not_a_command(cmd);
}
