/* gate — which files that existed before the build it may see (`run --only-inputs`): pure, no
 * I/O, no logging (tests/unit/test-gate.c).
 *
 * The rules: the manifests' entries (common/manifest.h: paths, globs, DIR/; a SHA-256 given
 * there is not checked here — `verify` checks it), the traced trees, and the directories that
 * must stay reachable (the build's start directory, the trees' own paths).  A path is judged by the deepest tree holding it:
 *   - outside every tree, or in a system tree (/usr, /etc, /opt, ...) no entry lies in:
 *     GATE_VISIBLE (not restricted);
 *   - a tree's root, an entry's match, a reachable directory and its ancestors: visible;
 *   - a directory that leads to an entry (a leading part of a path or of a glob): visible, so
 *     that the entry can be reached (its other contents are judged one by one);
 *   - anything else: GATE_UNDECLARED.
 * What the build itself made is the caller's to let through (fusefs keeps those inodes).
 * Exact paths and directories are hash look-ups; globs are tried one by one.
 * After gate_seal() a gate is read-only and may be judged from many threads at once.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct gate;

enum gate_verdict { GATE_VISIBLE, GATE_UNDECLARED };

struct gate *gate_new(void);
void gate_free(struct gate *g);

/* Add a manifest's `len` bytes, relative paths taken from `root` (the build's directory).
 * 0, or -EINVAL with "line N: why" in *err (g_free). */
int gate_add_manifest(struct gate *g, const char *text, size_t len, const char *root,
                      char **err);

/* Entry `i` (< gate_n_entries) when it is a path, not a glob: the absolute path, *subtree set
 * for DIR/; NULL for a glob. */
const char *gate_entry_path(const struct gate *g, size_t i, bool *subtree);

/* A path the manifests declare under another name (where a symlink on the way leads: the
 * caller resolves them): absolute, normalised; `subtree`: everything under it too. */
void gate_add_path(struct gate *g, const char *path, bool subtree);

/* A traced tree (absolute, normalised); `system`: one of the system trees, restricted only when
 * an entry lies in it. */
void gate_add_tree(struct gate *g, const char *path, bool system);

/* A directory that must stay reachable (the one the build starts in, a tree mounted inside
 * another): it and its ancestors stay visible (its contents are judged as the rest). */
void gate_add_visible_dir(struct gate *g, const char *dir);

/* Does an entry lie in `dir` (or a glob reach into it)? */
bool gate_names_under(const struct gate *g, const char *dir);

/* Done adding; from now on read-only. */
void gate_seal(struct gate *g);

/* The number of entries added (0: every file that existed before the build is hidden from it
 * in the restricted trees). */
size_t gate_n_entries(const struct gate *g);

/* Is the restricted tree holding `path` one that hides (false: `path` lies in no restricted
 * tree)? */
bool gate_restricts(const struct gate *g, const char *path);

/* Judge absolute `path`; `is_dir`: it is a directory (or may be one: DT_UNKNOWN). */
enum gate_verdict gate_judge(const struct gate *g, const char *path, bool is_dir);
