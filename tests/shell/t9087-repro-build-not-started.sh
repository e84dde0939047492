#!/bin/sh
# A command that cannot run (not found) fails the control build with exit 2, naming its log
# (where run says why) and never a trace that was not written.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
mkdir "$T/p"
cd "$T/p"
set +e; bt repro -o "$T/o" -- ./no-such-build > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "exit $st: $(cat "$T/out" "$T/err")"
assert_contains "$(cat "$T/err")" "the control build failed (exit 127); its output is in $T/o/control.log" "the log named"
[ ! -e "$T/o/control.db" ] || fail "a trace was written after all"
! grep -qF control.db "$T/err" || fail "a trace that does not exist named: $(cat "$T/err")"
assert_contains "$(cat "$T/o/control.log")" "no-such-build" "run's reason in the log"
cd "$T"
assert_no_leftovers
