#!/bin/sh
# A variation that cannot take effect is said and recorded as not varied, never skipped in
# silence: num_cpus with one CPU (taskset -c 0), time (it would need faketime) asked for by
# name, locales with no second locale; the build still runs, with the control's value.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd taskset
mkdir "$T/ws"
cd "$T/ws"
taskset -c 0 "$BUILDTRAIL" run -o "$T/t.db" --vary num_cpus,time,umask -- sh -c 'nproc; umask' \
    > "$T/out" 2> "$T/err" || fail "run: $(cat "$T/err")"
assert_eq "$(cat "$T/out")" "1
0002" "the build: one CPU, the experiment's umask"
line=$(grep 'variations' "$T/err") || fail "no variations line: $(cat "$T/err")"
assert_contains "$line" "experiment values: umask; not varied: time (varying the time needs an LD_PRELOAD library (faketime)"
assert_contains "$line" "num_cpus (only 1 CPU is available"
assert_eq "$(sql "$T/t.db" "SELECT name || ':' || applied FROM variations ORDER BY rowid" | tr '\n' ' ')" \
    "time:0 umask:1 num_cpus:0 " "the rows"
assert_contains "$(sql "$T/t.db" "SELECT why_not FROM variations WHERE name = 'num_cpus'")" "only 1 CPU"
bt info -d "$T/t.db" > "$T/info" || fail "info"
assert_contains "$(cat "$T/info")" "  num_cpus      NOT VARIED: all 1 CPUs of the caller's affinity (only 1 CPU"
assert_contains "$(cat "$T/info")" "  time          NOT VARIED: the real clock"
# locales, where no locale but C's is installed (LOCPATH unset)
if ! locale -a | grep -qvE '^(C|POSIX|C\..*)$'; then
    env -u LOCPATH "$BUILDTRAIL" run -o "$T/l.db" --vary locales -- sh -c 'echo "$LANG"' \
        > "$T/lout" 2> "$T/lerr" || fail "run: $(cat "$T/lerr")"
    assert_eq "$(cat "$T/lout")" "C.UTF-8" "no second locale: the control's"
    assert_contains "$(cat "$T/lerr")" "not varied: locales (no locale but C and POSIX is installed"
    assert_eq "$(sql "$T/l.db" "SELECT applied FROM variations WHERE name = 'locales'")" 0 "locales row"
fi
# -q keeps the line when something was not varied
taskset -c 0 "$BUILDTRAIL" run -q -o "$T/q.db" --vary num_cpus -- true 2> "$T/qerr" ||
    fail "run -q: $(cat "$T/qerr")"
assert_contains "$(cat "$T/qerr")" "not varied: num_cpus"
assert_no_leftovers
echo ok
