/* buildtrail — one binary, subcommands as a table (run, and the queries over a trace). */
#include "doctor.h"
#include "query.h"
#include "run.h"

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
    {"export", query_export_main, "the trace as compile_commands.json, DOT, SPDX, CycloneDX..."},
    {"doctor", doctor_main, "check what tracing needs on this machine"},
};

static void usage(FILE *f)
{
    fputs("Usage: buildtrail COMMAND [OPTION]... [ARG]...\n"
          "Trace a build (every file access and output line, with the process that did it)\n"
          "and answer questions about it afterwards.\n\nCommands:\n", f);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\n'buildtrail help COMMAND' (or 'buildtrail COMMAND --help') tells more about each;\n"
          "'man buildtrail' has them all.\n"
          "\n"
          "Example:\n"
          "  buildtrail run -- make -j2 && buildtrail who-wrote libfoo.a\n"
          "\n"
          "Options:\n"
          "  -h, --help            print this help\n"
          "  -V, --version         print the version\n"
          "\n"
          "Exit status: run exits with the build's status; the queries 0 when answered, 1\n"
          "when what was asked about was not found or the trace cannot be read, 2 for a\n"
          "usage error (see each command's help).\n", f);
}

int main(int argc, char **argv)
{
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
        fprintf(stderr, "buildtrail: '%s' is not a command; see 'buildtrail --help'\n", argv[2]);
        return 2;
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
    fprintf(stderr, "buildtrail: '%s' is not a command; see 'buildtrail --help'\n", cmd);
    return 2;
}
