#!/bin/sh
# A finished trace is one self-contained file: no -wal/-shm files beside it, before or after
# queries, and queries read it where they cannot write (a read-only directory; enforced for
# the unprivileged variant, root is exempt from permissions).
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" "$T/ro" && cd "$T/ws"
echo hello > in.txt
bt run -o "$T/ro/trace.db" -- sh -c 'cat in.txt > out.txt' || fail "run failed"
assert_eq "$(ls -A "$T/ro")" trace.db "files beside the trace after the run"
assert_eq "$(sql "$T/ro/trace.db" "pragma journal_mode")" delete "the trace's journal mode"
chmod 555 "$T/ro"
on_cleanup "chmod 755 '$T/ro'"
out=$(bt who-read -d "$T/ro/trace.db" in.txt) || fail "who-read failed on a read-only directory"
assert_contains "$out" "cat in.txt" "who-read names the reader"
bt tree -d "$T/ro/trace.db" > /dev/null || fail "tree failed on a read-only directory"
assert_eq "$(ls -A "$T/ro")" trace.db "files beside the trace after queries"
assert_no_leftovers
