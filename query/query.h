/* query — the read-only subcommands over a trace: who-wrote, who-read, tree, log,
 * show, files, inputs, outputs, verify, export, licenses, packages, copies.
 *
 * Each *_main is main-level code: it parses its options (getopt_long; --help to stdout and
 * exit 0; usage errors to stderr and exit 2), reports errors as one line on stderr, and
 * returns the exit status.  Every command reads ./buildtrail.db unless -d FILE is given, and
 * prints text for people or, with --json, one JSON document for programs.
 */
#pragma once

int query_who_wrote_main(int argc, char **argv);
int query_who_read_main(int argc, char **argv);
int query_tree_main(int argc, char **argv);
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
