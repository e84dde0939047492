/* query — the read-only subcommands over a trace: info, who-wrote, who-read, tree, log,
 * show, files, inputs, outputs, verify, export, licenses, packages, copies, diff.
 *
 * Each *_main is main-level code (query/cmd/, query/export/export.c): it parses its options
 * through the driver (cmd/driver.h: --help to stdout and exit 0; usage errors to stderr and
 * exit 2), reports errors as one line on stderr, and returns the exit status (1 for an error
 * or a damaged trace; verify and licenses --deny use 1 for their verdict and 2 for errors).
 * Every command reads the trace named by -d FILE, else by $BUILDTRAIL_DB, else the nearest
 * buildtrail.db in the current directory or above it, read only when it and its directory
 * belong to the caller or root (or lie under BUILDTRAIL_SAFE_DIRS: cmd/driver.c, find_trace);
 * it prints text for people or, with --json, one JSON object for programs, whose "trace"
 * member says what it stands on.
 */
#pragma once

#include <stdbool.h>

int query_who_wrote_main(int argc, char **argv);
int query_who_read_main(int argc, char **argv);
int query_tree_main(int argc, char **argv);
int query_info_main(int argc, char **argv);
int query_log_main(int argc, char **argv);
int query_inputs_main(int argc, char **argv);
int query_outputs_main(int argc, char **argv);
int query_files_main(int argc, char **argv);
int query_verify_main(int argc, char **argv);
int query_show_main(int argc, char **argv);
int query_export_main(int argc, char **argv);
int query_licenses_main(int argc, char **argv);
int query_packages_main(int argc, char **argv);
int query_copies_main(int argc, char **argv);
int query_diff_main(int argc, char **argv);
int query_repro_main(int argc, char **argv);
int query_critpath_main(int argc, char **argv);
int query_report_main(int argc, char **argv);

/* How many edits (insert, delete, substitute, swap two neighbours) make a into b (INT_MAX
 * for words over 64 bytes); and whether `typed` looks like a mistyped or shortened `name`
 * (a prefix of two bytes or more, or one or two edits away): the CLI's "did you mean". */
int query_edit_distance(const char *a, const char *b);
bool query_like(const char *typed, const char *name);
