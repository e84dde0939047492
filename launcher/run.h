/* run — `buildtrail run`: trace one build into a trace database.
 *
 * The daemon side of the design in docs/architecture.md: prepares the plan (trees, private
 * /tmp, database), starts the namespaces (ns.h), serves the FUSE connection (fs.h) with the
 * recorder (recorder.h), waits for the build, finishes the run record, cleans up, and exits
 * with the build's status (128+signal when a signal killed it; 125 when buildtrail itself
 * failed before the build could run).
 *
 * This is main-level code: it reports errors (one line on stderr, naming the problem and the
 * fix) and returns an exit status.
 */
#pragma once

#define RUN_EXIT_SETUP_FAILED 125

int run_main(int argc, char **argv);
