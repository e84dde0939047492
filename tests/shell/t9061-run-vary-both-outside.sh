#!/bin/sh
# run --vary-control LIST --vary SUBSET with a SUBSET that is not within LIST (a variation to
# vary that the control does not fix) is one line naming those outside and the fix, exit 2,
# before anything runs: the trace in place stays as it was.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws"
cd "$T/ws"
bt run -q -o "$T/t.db" -- true 2> "$T/err0" || fail "first run: $(cat "$T/err0")"
before=$(sha256sum < "$T/t.db")
one_line_error "$BUILDTRAIL" run -o "$T/t.db" --vary home --vary-control umask -- touch "$T/ran"
assert_eq "$st" 2 "home outside umask: exit status"
assert_eq "$e" "buildtrail run: --vary names home, which --vary-control's LIST leaves out: given together, --vary-control fixes the control's values and --vary picks among them the variations to vary; add home to --vary-control's LIST or take it out of --vary's"
one_line_error "$BUILDTRAIL" run -o "$T/t.db" --vary-control all,-aslr,-kernel --vary all -- touch "$T/ran"
assert_eq "$st" 2 "all outside all,-aslr,-kernel: exit status"
assert_contains "$e" "--vary names kernel,aslr, which"
assert_contains "$e" "add kernel,aslr to --vary-control's LIST or take them out"
# each option's LIST goes on from its own: umask is removed from the control's afterwards
one_line_error "$BUILDTRAIL" run -o "$T/t.db" --vary-control umask,home --vary umask --vary-control -umask -- touch "$T/ran"
assert_contains "$e" "--vary names umask, which"
# an empty --vary-control LIST fixes nothing to vary among
one_line_error "$BUILDTRAIL" run -o "$T/t.db" --vary-control -all --vary umask -- touch "$T/ran"
assert_contains "$e" "--vary names umask, which"
[ ! -e "$T/ran" ] || fail "the command ran"
assert_eq "$(sha256sum < "$T/t.db")" "$before" "the trace in place"
assert_no_leftovers
echo ok
