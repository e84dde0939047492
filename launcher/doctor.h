/* doctor — `buildtrail doctor`: does this machine have what tracing needs?
 *
 * Contract (main-level code: it prints)
 *   - Checks, each on one line "ok", "note" (tracing works, with a loss said) or "FAIL"
 *     (tracing will not work), with what it found and, when not ok, the command or setting
 *     that fixes it: /dev/fuse (present, a character device, readable and writable by the
 *     caller), FUSE in the kernel, running inside a container, user namespaces (made for
 *     real, when not root), id maps (newuidmap, the subordinate ranges; a "group map" note
 *     per supplementary group no /etc/subgid line maps, with the line "USER:GID:1" that
 *     would), the kernel's process events
 *     (root, or Linux 6.6+), libfuse and kernel versions, $TMPDIR writable, the variations
 *     `run --vary all` cannot make here (a note each, launcher/vary.h), and last a trial
 *     run: `buildtrail run -q -- true` into a scratch trace, removed afterwards.
 *   - --json: the same checks as one JSON document (docs/json.md), nothing else on stdout.
 *   - Exit status: 0 when tracing works here (no FAIL), 1 otherwise, 2 for a usage error.
 *   - Leaves nothing behind: the trial run's trace and directory are removed.
 */
#pragma once

int doctor_main(int argc, char **argv);
