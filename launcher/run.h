/* run — `buildtrail run`: trace one build into a trace database.
 *
 * The daemon side of the design in docs/architecture.md, in modules: run.c the command line
 * and the order of things; plan.h what is traced (pure); spawn.h the build's namespaces from
 * the daemon's side (private directory, namespace plan, id maps); trace.h the trace's life
 * (the only launcher code touching it); engine.h the capture engine (recorder, process table,
 * filesystem, system-tree watcher), made and freed together; serve.h the FUSE session and the
 * main loop that waits for the build.  It exits with the build's status (128+signal when a
 * signal killed it; 125 when buildtrail itself failed before the build could run, or stopped
 * it because it could not record it).
 *
 * This is main-level code: it reports errors (one line on stderr, naming the problem and the
 * fix) and returns an exit status.
 */
#pragma once

#define RUN_EXIT_SETUP_FAILED 125
/* Ends each of run's setup errors that is about the machine, not the build (launcher/run.c,
 * spawn.c, engine.c). */
#define DOCTOR_HINT "; 'buildtrail doctor' checks this machine"

int run_main(int argc, char **argv);
