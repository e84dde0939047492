#!/bin/sh
# Exact attribution under hostile process behaviour (tests/attribution/atgen.c): 2500 processes,
# exec after traced I/O, threads, a double-forked daemon, redirections, a MAP_SHARED writer,
# vfork+exec, an io_uring writer, an exec from a non-main thread, a main thread that exits before
# its other thread — every file access and output line must be credited to the
# process whose marker it carries: 0 wrong, 0 missing (tests/attribution/check.py).  Run with
# process events and again in /proc-only mode.  As root, pids are also forced to be reused
# quickly in the daemon's own pid namespace (the host's ns_last_pid is rewound continuously).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
: "${ATGEN:?ATGEN must name the atgen binary}" "${ATCHECK:?ATCHECK must name check.py}"
N=${BT_ATTRIBUTION_PROCESSES:-2500}

force_reuse() { # start rewinding the pid allocator; stop_forcing ends it
    [ "$(id -u)" = 0 ] && [ -w /proc/sys/kernel/ns_last_pid ] || return 0
    base=$(cat /proc/sys/kernel/ns_last_pid)
    touch "$T/forcing"
    # (it also stops when the test's shell is gone: a killed test must not leave it spinning)
    (while [ -e "$T/forcing" ] && kill -0 $$ 2>/dev/null; do
        echo "$base" > /proc/sys/kernel/ns_last_pid
    done) &
    forcer=$!
    on_cleanup "rm -f '$T/forcing'"
}
stop_forcing() { rm -f "$T/forcing"; [ -z "${forcer:-}" ] || wait "$forcer" 2>/dev/null || true; forcer=; }

for mode in events proc-only; do
    say "mode: $mode"
    ws="$T/ws-$mode"
    mkdir "$ws" && cp "$ATGEN" "$ws/atgen"
    cd "$ws"
    force_reuse
    if [ "$mode" = proc-only ]; then
        BUILDTRAIL_NO_PROC_EVENTS=1 "$BUILDTRAIL" run -- ./atgen run "$N" > out.txt 2> err.txt || fail "atgen failed: $(tail -3 err.txt)"
    else
        bt run -- ./atgen run "$N" > out.txt 2> err.txt || fail "atgen failed: $(tail -3 err.txt)"
    fi
    stop_forcing
    expect=
    [ "$(id -u)" = 0 ] && expect=--expect-reuse
    python3 "$ATCHECK" buildtrail.db "$ws" $expect || fail "attribution is not exact in $mode mode"
    tree=$(sql buildtrail.db "select process_tree from runs")
    case "$mode:$tree" in
        events:complete|proc-only:partial*) ;;
        events:*) say "process events unavailable here ($tree): both runs were /proc-only" ;;
        *) fail "process_tree says '$tree' in $mode mode" ;;
    esac
    cd "$T"
done
assert_no_leftovers
