/* steps — what a process's command line says about the step it is in a build, for the code
 * edges of provenance (docs/architecture.md, "Provenance: code and influence").
 *
 * Contract
 *   - Pure functions of process rows (struct qdb_process, as qdb loads them: a NUL past
 *     argv_len) and paths: no I/O, no state.
 *   - A configure step is a process image that configures a build rather than running it:
 *     a shell running a script named `configure` or `config.status` (or a process whose
 *     program is so named: with no exe nor argv recorded, a script's comm is its name); `cmake` in configure mode
 *     (not --build, --install, -E, -P, --find-package, --open, --workflow); meson's `setup`
 *     and `configure` (also meson with no subcommand, and `meson --internal regenerate`).
 *     What such a step and its descendants read — probes, compiler-ABI sources, meson.build,
 *     CMakeLists.txt — is influence on the build, never code in its products (except a
 *     template it fills: `config.h.in` for `config.h`).
 */
#pragma once

#include "qdb.h"

#include <stdbool.h>

bool steps_is_configure_image(const struct qdb_process *pr);

/* Is `in` the template `out` was filled from: the same name plus an extension (`config.h` <-
 * `config.h.in`, `config.h.cmake`, `json_config.h.in`, `foo.pc` <- `foo.pc.in`), or
 * `config.hin`/`config.in.h`?  An output named like a temporary (`config.h.tmp`, `config.h~`)
 * is matched by the name it stands for. */
bool steps_is_template(const char *out, const char *in);

/* How many directories the two paths' parents end in alike (`/b/sub/config.h` and
 * `/s/sub/config.h.in`: 1, sub), to tell which of two templates of one name an output was
 * filled from. */
int steps_common_dirs(const char *a, const char *b);

/* Is one of the paths the other plus a compression suffix (.gz .xz .bz2 .zst .lz4 .lzma .Z)? */
bool steps_compressed_pair(const char *a, const char *b);
/* Those suffixes, NULL-terminated. */
extern const char *const steps_compress_suffixes[];

/* Does `pr`'s command line name `path`: a word equal to it, to its basename, or ending in
 * "/" + basename, or an option's value ("--add-gnu-debuglink=path")?  A path with an empty
 * basename ("", "dir/") is named by nothing. */
bool steps_argv_names(const struct qdb_process *pr, const char *path);

/* Is `path` the script a shell or an interpreter runs: the first word after the program that
 * is not an option (sh gen.sh, perl -w script.pl; not with -c, -e or -m, nor when that word is
 * `-` (stdin) or empty), made absolute against the process's directory and normalized
 * (`/w/./gen.sh` is `/w/gen.sh`)? */
bool steps_is_script_of(const struct qdb_process *pr, const char *path);
