#!/bin/sh
# A run whose command cannot start (not found: 127, not executable: 126) keeps no trace: the
# previous trace stays in place, byte for byte, and stderr says so; no temporary file is left.
# A run that replaces a trace says which one it replaced.  While a build runs its trace is
# readable in place, as before (the new trace takes the old one's place once the command runs).
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
no_temporaries() {
    left=$(ls -A | grep buildtrail-new || true)
    [ -z "$left" ] || fail "$1: temporary files left: $left"
}

bt run -q -- sh -c 'echo hi > f'
good=$(sha256sum buildtrail.db)

# Not found: exit 127, the trace left as it was.
set +e
err=$(bt run -- "no-such-cmd-$TEST_MARK" 2>&1); st=$?
set -e
assert_eq "$st" 127 "exit status of a command not found"
assert_contains "$err" "buildtrail run: cannot run 'no-such-cmd-$TEST_MARK': No such file or directory; no trace kept: the previous trace buildtrail.db is left as it was" "not found"
assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "not found: one line"
assert_eq "$(sha256sum buildtrail.db)" "$good" "a good trace was replaced by a run that never started"
bt info | grep -q "command:    sh -c 'echo hi > f'" || fail "info no longer describes the good trace"
no_temporaries "not found"

# Not executable: exit 126, the same.
printf 'echo x\n' > notexec && chmod 644 notexec
set +e
err=$(bt run -- ./notexec 2>&1); st=$?
set -e
assert_eq "$st" 126 "exit status of a command not executable"
assert_contains "$err" "Permission denied; no trace kept: the previous trace buildtrail.db is left as it was" "not executable"
assert_eq "$(sha256sum buildtrail.db)" "$good" "a good trace was replaced by a run that never started (126)"
no_temporaries "not executable"

# Nothing there before: nothing there after.
set +e
err=$(bt run -o fresh.db -- "no-such-cmd-$TEST_MARK" 2>&1); st=$?
set -e
assert_eq "$st" 127 "exit status, fresh"
assert_contains "$err" "no trace written to fresh.db" "fresh"
[ ! -e fresh.db ] || fail "a trace of a run that never started was written"
no_temporaries "fresh"

# A run that starts replaces it, and says which trace it replaced.
err=$(bt run -- true 2>&1)
assert_contains "$err" "buildtrail run: replaced the trace of sh -c 'echo hi > f' (started " "which trace"
assert_contains "$err" ", finished, exit 0)" "how that run ended"
: > empty.db
err=$(bt run -o empty.db -- true 2>&1)
assert_contains "$err" "buildtrail run: replaced an empty file" "empty file"
if command -v sqlite3 >/dev/null 2>&1; then
    bt run -q -o killed.db -- sh -c 'exit 3' || true
    sqlite3 killed.db "update runs set state = 'running', exit_status = NULL"
    err=$(bt run -o killed.db -- true 2>&1)
    assert_contains "$err" "buildtrail run: replaced the trace of sh -c 'exit 3' (started " "a killed run's trace"
    assert_contains "$err" ", killed before it finished)" "a killed run's trace: how it ended"
fi
rm -f new.db
err=$(bt run -o new.db -- true 2>&1)
case $err in *replaced*) fail "a new trace said it replaced something: $err" ;; esac

# A run killed before its build started leaves its new trace under a temporary name, with no
# lock holder: the next run in that directory removes it; a file of that name that is not a
# SQLite file, or (as root) another user's, is left alone.
cp buildtrail.db .buildtrail-new-0123456789abcdef-01234567.db
echo notes > .buildtrail-new-0123456789abcdef-89abcdef.db
if [ "$(id -u)" = 0 ]; then
    cp buildtrail.db .buildtrail-new-0123456789abcdef-00000000.db
    chown nobody .buildtrail-new-0123456789abcdef-00000000.db
fi
bt run -q -- true
[ ! -e .buildtrail-new-0123456789abcdef-01234567.db ] || fail "a killed run's temporary trace was left"
assert_eq "$(cat .buildtrail-new-0123456789abcdef-89abcdef.db)" notes "a file that is not a trace was touched"
rm .buildtrail-new-0123456789abcdef-89abcdef.db
if [ "$(id -u)" = 0 ]; then
    [ -e .buildtrail-new-0123456789abcdef-00000000.db ] || fail "another user's file was removed"
    rm .buildtrail-new-0123456789abcdef-00000000.db
fi

# A full disk (root: a small tmpfs of the test's own): the new trace cannot be made, the old
# one stays as it was, and nothing is left beside it.
if [ "$(id -u)" = 0 ]; then
    mkdir "$T/small"
    mount -t tmpfs -o size=2m tmpfs "$T/small"
    on_cleanup "umount -l '$T/small'"
    bt run -q -o "$T/small/t.db" -- true
    kept=$(sha256sum "$T/small/t.db")
    dd if=/dev/zero of="$T/small/fill" bs=64k 2>/dev/null || true
    set +e; err=$(bt run -o "$T/small/t.db" -- true 2>&1); st=$?; set -e
    assert_eq "$st" 125 "exit status on a full disk"
    assert_contains "$err" "No space left on device" "full disk"
    assert_eq "$(sha256sum "$T/small/t.db")" "$kept" "the trace on the full disk"
    assert_eq "$(ls -A "$T/small" | sort | tr '\n' ' ')" "fill t.db " "what is on the full disk"
fi

# While the build runs, the trace in place is the new one, readable by queries (WAL).
bt run -q -- sh -c "echo x > live.txt; while [ ! -e go ]; do sleep 0.1; done; sh -c ': $TEST_MARK'" &
run=$!
wait_until 30 sh -c "'$BUILDTRAIL' who-wrote live.txt 2>/dev/null | grep -q 'written by'"
ans=$(bt who-wrote live.txt 2>&1)
assert_contains "$ans" "is still going" "a live query says the run is being recorded"
touch go
wait "$run" || fail "the live run failed"
no_temporaries "live"
assert_no_leftovers
