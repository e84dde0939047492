#!/bin/sh
# A build that run could not start (its command not found; a bad value for an option passed
# on, --hash-limit foo) fails the control build with exit 2, saying run's reason and naming
# its log, never a trace that was not written.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
mkdir "$T/p"
cd "$T/p"
set +e; bt repro -o "$T/o" -- ./no-such-build > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "exit $st: $(cat "$T/out" "$T/err")"
assert_contains "$(cat "$T/err")" "its output is in $T/o/control.log" "the log named"
[ ! -e "$T/o/control.db" ] || fail "a trace was written after all"
! grep -qF "its trace" "$T/err" || fail "a trace that does not exist named: $(cat "$T/err")"
assert_contains "$(cat "$T/o/control.log")" "no-such-build" "run's reason in the log"
assert_contains "$(cat "$T/err")" "cannot run './no-such-build'" "run's reason said"
set +e; bt repro --hash-limit foo -o "$T/o2" -- true > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "--hash-limit foo: exit $st: $(cat "$T/out" "$T/err")"
assert_contains "$(cat "$T/err")" "--hash-limit 'foo' is not a size" "run's reason said"
cd "$T"
assert_no_leftovers
