#!/bin/sh
# An -o file in /dev/shm (a tmpfs, sticky and world-writable like /tmp) is an ordinary file:
# it gets the trace's permissions, not the umask's, and an existing one is replaced
# atomically.  Only paths through /proc (/dev/stdout, /dev/fd/1) are written in place
# (t1002).  (Once every path under /dev was written in place with the umask's 0644, so the
# export of a 0600 trace — argv, environment — could be read by every user.)
. "$(dirname "$0")/lib.sh"
require_fuse
[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no writable /dev/shm"
shm=$(mktemp -d /dev/shm/bt-t4016.XXXXXX) || fail "mktemp in /dev/shm"
on_cleanup rm -rf "$shm"
umask 022
mkdir "$T/ws" && cd "$T/ws"
bt run -q -- sh -c 'echo x > a.o'
assert_eq "$(stat -c %a buildtrail.db)" 600 "the trace's mode"
bt export --format dot -o "$shm/new.dot"
assert_eq "$(stat -c %a "$shm/new.dot")" 600 "a new export in /dev/shm"
echo old > "$shm/old.dot" && chmod 644 "$shm/old.dot"
ino=$(stat -c %i "$shm/old.dot")
bt export --format dot -o "$shm/old.dot"
assert_eq "$(stat -c %a "$shm/old.dot")" 600 "an export replacing a 0644 file in /dev/shm"
[ "$(stat -c %i "$shm/old.dot")" != "$ino" ] || fail "the file in /dev/shm was written in place"
grep -q digraph "$shm/old.dot" || fail "the export is not in the file"
# Through a link to it, and with --output-mode.
ln -s "$shm/linked.dot" link.dot
bt export --format dot -o link.dot
assert_eq "$(stat -c %a "$shm/linked.dot")" 600 "an export through a link into /dev/shm"
bt export --format dot -o "$shm/shared.dot" --output-mode 0640
assert_eq "$(stat -c %a "$shm/shared.dot")" 640 "--output-mode 0640 in /dev/shm"
# /dev/stdout still goes to standard output, in place.
bt export --format dot -o /dev/stdout > via-dev.dot
cmp -s via-dev.dot "$shm/new.dot" || fail "-o /dev/stdout did not write standard output"
[ -z "$(ls -A "$shm" | grep -v '^\(new\|old\|linked\|shared\)\.dot$')" ] ||
    fail "temporary files left in /dev/shm: $(ls -A "$shm")"
assert_no_leftovers
