/* aclx — POSIX ACL extended attribute values naming ids a user namespace does not hold.
 *
 * Why
 *   With kernel checks (fs.h, fs_config.kernel_checks) the kernel reads a file's ACL through
 *   the daemon (system.posix_acl_access / _default) and parses it as ids of the namespace the
 *   mount was made in.  In user-namespace mode an entry naming an id that namespace does not
 *   map (a uid at or above its range's size) makes the kernel reject the whole ACL: every
 *   permission check on the file then fails with EINVAL.  Such an entry can never name the
 *   caller (its uid and, with kernel checks, each of its groups are mapped), so the daemon
 *   hides it: the caller's result is the same without it.
 *
 * Format (the kernel's, little-endian on every Linux ABI we run on): a 4-byte version (2), then
 * 8-byte entries {u16 tag, u16 perm, u32 id}; only ACL_USER (2) and ACL_GROUP (8) entries name
 * an id.  A value that is not of this form is left alone (the kernel rejects it as before).
 *
 * Contract: pure functions on the bytes given, no allocation, no I/O; fuzzed
 * (tests/fuzz/fuzz-aclx.c).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the id of a user (is_group false) or group entry exists in the namespace. */
typedef bool (*aclx_mapped_fn)(void *ctx, bool is_group, uint32_t id);

/* Is `name` one of the two POSIX ACL attributes? */
bool aclx_is_acl_name(const char *name);

/* How many entries of the value name an id `mapped` says does not exist (0 for a value not of
 * the form above). */
size_t aclx_count_unmapped(const void *value, size_t len, aclx_mapped_fn mapped, void *ctx);

/* Drop those entries in place; returns the value's new length (len when nothing changed or
 * the value is not of the form above). */
size_t aclx_drop_unmapped(void *value, size_t len, aclx_mapped_fn mapped, void *ctx);
