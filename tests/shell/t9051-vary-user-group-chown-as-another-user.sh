#!/bin/sh
# run --vary user_group: the build is another user, and chown answers as for one — to root
# (uid or group 0), to the caller's own ids, to a system group (8), or a file of a third user: "Operation not
# permitted" (EPERM), never "Invalid argument" (EINVAL: an id the build's namespace did not
# map); to its own id (2000): done.  It holds no capability, and on disk nothing changed, also
# where the kernel leaves the judging to buildtrail's filesystem.
# (A third user's file only as root: unprivileged, the ids of one outside the run's namespace
# show as 65534 and a chown of it gives EOVERFLOW with or without the variation, idmap.h.)
. "$(dirname "$0")/lib.sh"
require_fuse
me=$(id -u) mygid=$(id -g)
mkdir "$T/ws"
cd "$T/ws"
echo f > f
refusals=6
if [ "$me" = 0 ]; then
    echo o > other
    chown_other other || missing_part "a file of another user (chown_other)"
    other_owner=$(stat -c %u:%g other)
    refusals=8
fi
"$BUILDTRAIL" run -o "$T/t.db" --vary user_group -- sh -c '
    for a in "chown 0 f" "chgrp 0 f" "chown 0:0 f" "chown $1 f" "chgrp $2 f" "chgrp 8 f" "chown 2000 other" \
             "chmod 777 other"; do
        [ -e other ] || [ "${a#*other}" = "$a" ] || continue
        $a 2>&1 || true
    done
    chown 2000:2000 f && echo own-ok
    grep CapEff /proc/self/status
' sh "$me" "$mygid" > "$T/out" 2> "$T/err" || fail "run: $(cat "$T/err")"
if grep -q "user_group (partly: only the build's own ids are mapped" "$T/err"; then
    [ "${CI:-}" = true ] && fail "no subordinate ids for $(id -un) in CI: $(cat "$T/err")"
    skip "no subordinate ids for $(id -un) (said: $(grep variations "$T/err"))"
fi
grep -q "Invalid argument" "$T/out" && fail "EINVAL for an id: $(cat "$T/out")"
assert_eq "$(grep -c "Operation not permitted" "$T/out")" "$refusals" "each refused as for another user: $(cat "$T/out")"
assert_contains "$(cat "$T/out")" "own-ok"
assert_contains "$(cat "$T/out")" "CapEff:	0000000000000000"
assert_eq "$(stat -c %u:%g f)" "$me:$mygid" "f on disk"
[ "$me" != 0 ] || assert_eq "$(stat -c %u:%g:%a other)" "$other_owner:644" "the other user's file on disk"
# The same where the kernel does not check first (BUILDTRAIL_NO_KERNEL_CHECKS, as on a tree whose
# filesystem judges itself): buildtrail's filesystem refuses, as root's daemon would otherwise
# take a caller of uid 0 outside for root with every capability and give the file away.
BUILDTRAIL_NO_KERNEL_CHECKS=1 "$BUILDTRAIL" run -o "$T/n.db" --vary user_group -- \
    sh -c 'chown 0:0 f 2>&1; chown "$1" f 2>&1; true' sh "$me" > "$T/nout" 2> "$T/nerr" ||
    fail "run without kernel checks: $(cat "$T/nerr")"
assert_eq "$(grep -c "Operation not permitted" "$T/nout")" 2 "refused by buildtrail's filesystem: $(cat "$T/nout")"
assert_eq "$(stat -c %u:%g f)" "$me:$mygid" "f on disk, without kernel checks"
assert_no_leftovers
echo ok
