#!/bin/sh
# doctor checks what tracing needs and proves it with a trial run: on this machine every
# check is ok or a note (how --system traces among them), it says "tracing works here" and
# exits 0, leaving nothing behind.
# As root, with /dev/null bound over /dev/fuse in a private mount namespace, it says
# /dev/fuse is not the FUSE device, how to fix it, that the trial run failed, and exits 1;
# run's own error then points to doctor.
. "$(dirname "$0")/lib.sh"
require_fuse
out=$(bt doctor) || fail "doctor failed where tracing works: $out"
for c in "/dev/fuse" "FUSE in the kernel" "user namespaces" "id maps" "process events" "--system" "versions" "TMPDIR" "variations" "a trial run"; do
    printf '%s\n' "$out" | grep -Eq "^(ok  |note)  $c " || fail "check '$c': $out"
done
printf '%s\n' "$out" | grep -q "^FAIL" && fail "a FAIL where tracing works: $out"
assert_contains "$out" "tracing works here" "verdict"
[ -z "$(ls "$TMPDIR")" ] || fail "doctor left $(ls "$TMPDIR") in TMPDIR"
set +e; bt doctor extra > /dev/null 2>&1; st=$?; set -e
[ "$st" = 2 ] || fail "doctor extra: exit $st"
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null; then
    set +e
    out=$(unshare -m sh -c 'mount --bind /dev/null /dev/fuse && exec "$0" doctor' "$BUILDTRAIL"); st=$?
    err=$(unshare -m sh -c 'mount --bind /dev/null /dev/fuse && exec "$0" run -q -o "$1" -- true' "$BUILDTRAIL" "$T/x.db" 2>&1)
    set -e
    [ "$st" = 1 ] || fail "doctor with a broken /dev/fuse: exit $st: $out"
    printf '%s\n' "$out" | grep -q "^FAIL  /dev/fuse  *is not the FUSE device" || fail "/dev/fuse check: $out"
    printf '%s\n' "$out" | grep -q "fix: remove it and load the fuse module" || fail "the fix: $out"
    printf '%s\n' "$out" | grep -q "^FAIL  a trial run" || fail "the trial run: $out"
    assert_contains "$out" "tracing will not work here" "verdict"
    assert_contains "$err" "'buildtrail doctor' checks this machine" "run points to doctor"
fi
assert_no_leftovers
