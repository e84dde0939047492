/* onlyin — `run --only-inputs MANIFEST`: the manifests read and checked before anything runs,
 * and the gate (capture/gate.h) they make for the filesystem.
 *
 * onlyin_load(): each manifest must be a regular file that can be read (not a FIFO, a device
 * or a directory: checked on the descriptor opened O_NONBLOCK, so a FIFO never blocks) and
 * every line must parse (common/manifest.h).  0 and a new gate (not sealed), or -1 after one
 * line on stderr naming the manifest and the fix.  The directory the build starts in and the
 * absolute directories of $PATH (which the build inherits) stay visible (their contents are
 * judged one by one): a command search is a denial only where it finds a hidden command.
 * Each path entry is declared also through its symlinks (the links crossed, and where they
 * lead when that is inside the start directory), resolved now; a line naming a directory
 * without DIR/'s slash is said on stderr (a warning: the run goes on).
 * onlyin_add_trees(): the traced trees of the plan, then seals the gate; a system tree the
 * manifests name that is not served through FUSE is said on stderr (nothing hidden there).
 * onlyin_exec_hint(): what to add to "cannot run 'CMD': ENOENT" under a sealed gate: that it
 * may hide the command or what it needs, and which system trees the manifests restrict
 * ("; ..." to g_free).
 */
#pragma once

#include <glib.h>

struct gate;
struct plan;

int onlyin_load(GPtrArray *manifests, const char *cwd, struct gate **out);
void onlyin_add_trees(struct gate *g, const struct plan *plan);
char *onlyin_exec_hint(const struct gate *g, const struct plan *plan);
