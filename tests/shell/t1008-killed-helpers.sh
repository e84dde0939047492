#!/bin/sh
# Killing buildtrail's helpers from outside (the setup process, or the build's pid 1) ends the
# build; the run is recorded as failed with the reason, never as finished.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"

# child_of PARENT [NSPID]: a child of PARENT (whose innermost pid is NSPID, if given)
child_of() {
    for c in $(pgrep -P "$1"); do
        [ -z "${2:-}" ] && { echo "$c"; return; }
        [ "$(awk '/^NSpid:/ {print $NF}' "/proc/$c/status")" = "$2" ] && { echo "$c"; return; }
    done
}

try() { # WHICH(setup|init) EXPECTED-FAILURE
    "$BUILDTRAIL" run -- sh -c "echo started; exec sh -c 'sleep 30; :' $TEST_MARK" > "$T/run.out" 2> "$T/run.err" &
    pid=$!
    wait_until 30 grep -q started "$T/run.out"
    # (asked again for a while: once, under load, the first look at /proc found no child)
    setup=
    for _ in $(seq 50); do
        setup=$(child_of "$pid")
        [ -n "$setup" ] && break
        sleep 0.1
    done
    [ -n "$setup" ] || fail "no setup process: $(ps -o pid,ppid,stat,args --ppid "$pid" 2>&1)"
    victim=$setup
    [ "$1" = init ] && victim=$(child_of "$setup" 1)
    [ -n "$victim" ] || fail "no $1 process"
    kill -KILL "$victim"
    set +e; wait "$pid"; st=$?; set -e
    assert_eq "$st" 125 "$1 killed: exit status ($(cat "$T/run.err"))"
    assert_eq "$(sql buildtrail.db 'select state from runs')" failed "$1 killed: state"
    assert_contains "$(sql buildtrail.db 'select failure from runs')" "$2" "$1 killed: failure"
    assert_contains "$(cat "$T/run.err")" "$2" "$1 killed: message"
    assert_no_leftovers
}
try setup "the build's setup process was killed by signal 9"
try init "the build's pid-namespace init was killed by signal 9"
