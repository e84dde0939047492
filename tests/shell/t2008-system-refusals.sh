#!/bin/sh
# What --system refuses, each with one line naming the thing and the fix, and nothing made:
# an unknown --system=HOW (exit 2); --system=opens without root (it needs fanotify); as root,
# a trace or TMPDIR inside a watched system tree, where the build could change it (exit 125;
# --system=full, which hides the trace from the build, accepts it).
. "$(dirname "$0")/lib.sh"
require_fuse
cd "$T"
set +e
err=$(bt run --system=fast -- true 2>&1); st=$?
set -e
assert_eq "$st" 2 "an unknown --system=HOW is a usage error"
assert_contains "$err" "--system=fast: not a way to trace the system trees; give --system=opens or --system=full" "the message"
[ ! -e buildtrail.db ] || fail "a usage error made a trace"

if [ "$(id -u)" != 0 ]; then
    set +e
    err=$(bt run --system=opens -- true 2>&1); st=$?
    set -e
    [ "$st" != 0 ] || fail "--system=opens without root succeeded"
    assert_contains "$err" "--system=opens needs root (fanotify)" "the message"
    [ ! -e buildtrail.db ] || fail "a refused run made a trace"
    exit 0
fi

# Root: in a namespace of its own whose /opt is an empty tmpfs.
require_cmd unshare
[ -d /opt ] || skip "no /opt to mount over"
bt run -q --system -o "$T/probe.db" -- true || fail "a --system run of true failed"
case $(sql "$T/probe.db" "select notes from runs") in
    *system_trees=watched*) ;;
    *) skip "no fanotify permission events here: --system serves the system trees, nothing to refuse" ;;
esac
unshare -m --propagation private sh -ec '
    T=$1 bt=$2
    mount -t tmpfs bt-test /opt
    set +e
    err=$("$bt" run --system -o /opt/trace.db -- true 2>&1); st=$?
    set -e
    [ "$st" = 125 ] || { echo "FAIL: exit $st: $err" >&2; exit 1; }
    case $err in *"/opt/trace.db lies in a system tree that --system watches, where the build could change it; write the trace elsewhere with -o FILE, or use --system=full"*) ;;
        *) echo "FAIL: the message: $err" >&2; exit 1 ;; esac
    [ ! -e /opt/trace.db ] || { echo "FAIL: the refused trace was made" >&2; exit 1; }
    mkdir /opt/tmp
    set +e
    err=$(TMPDIR=/opt/tmp "$bt" run --system -o "$T/t.db" -- true 2>&1); st=$?
    set -e
    [ "$st" = 125 ] || { echo "FAIL: TMPDIR in /opt: exit $st: $err" >&2; exit 1; }
    case $err in *"lies in a system tree that --system watches"*"set TMPDIR to a directory outside /usr, /etc and /opt"*) ;;
        *) echo "FAIL: the TMPDIR message: $err" >&2; exit 1 ;; esac
    [ -z "$(ls /opt/tmp)" ] || { echo "FAIL: left $(ls /opt/tmp) in TMPDIR" >&2; exit 1; }
    [ ! -e "$T/t.db" ] || { echo "FAIL: the refused trace was made" >&2; exit 1; }
    "$bt" run -q --system=full -o /opt/trace.db -- true || { echo "FAIL: --system=full with the trace in /opt" >&2; exit 1; }
    [ -s /opt/trace.db ] || { echo "FAIL: no trace in /opt with --system=full" >&2; exit 1; }
' sh "$T" "$BUILDTRAIL" || fail "the refusals in a watched tree"
assert_no_leftovers
