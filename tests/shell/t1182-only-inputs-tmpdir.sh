#!/bin/sh
# run --only-inputs: the build's $TMPDIR stays visible as a directory (what it holds judged one
# by one: an old file there stays hidden, what the build makes there is the build's), because
# a TMPDIR in a restricted tree ($HOME/tmp, a CI's) looked absent: mktemp failed, and every
# compile (cc looks it up) was a denial, a verify finding for every build.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd mktemp
mkdir -p "$T/ws" "$T/mytmp" && cd "$T/ws"
echo old > "$T/mytmp/old"
echo ok > M
out=$(TMPDIR="$T/mytmp" bt run -q -o "$T/t.db" --only-inputs M -- sh -c '
    f=$(mktemp) && echo made > "$f" && cat "$f" && rm "$f"
    cat "$TMPDIR/old" 2>/dev/null || echo "no old"' 2>&1) || fail "the build failed: $out"
assert_eq "$out" "made
no old" "the build's temporary file, and the old one hidden"
denied=$(bt files -d "$T/t.db" --denied)
case $denied in *"$T/mytmp:"*) fail "TMPDIR was denied: $denied" ;; esac
assert_contains "$denied" "$T/mytmp/old: undeclared" "the old file"
assert_eq "$(cat "$T/mytmp/old")" old "the old file afterwards"
assert_no_leftovers
