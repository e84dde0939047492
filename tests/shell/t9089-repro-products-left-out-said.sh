#!/bin/sh
# A build that leaves one file beside its directory delivers that file: it is the artifact,
# and repro may say "reproducible" on it.  What differs among the products it left out (the
# tree's own out/x) is said all the same, with the fix (--artifacts), in the text and in the
# JSON (left_out_differ), never passed over in silence.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/src"
cd "$T/src"
printf '#!/bin/sh\nmkdir -p out\nhead -c 16 /dev/urandom > out/x\necho done > ../build.stamp\n' > build.sh
chmod +x build.sh
set +e; bt repro --vary umask -o "$T/o" -- ./build.sh > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 0 ] || fail "the stamp is identical: exit $st: $(cat "$T/out" "$T/err")"
assert_contains "$(cat "$T/out")" "reproducible: 1 artifact identical" "the verdict on the stamp"
assert_contains "$(cat "$T/out")" "left out: 1 product that differs and is no artifact: out/x (--artifacts GLOB compares it)" "the products left out"
bt repro --json --vary umask -o "$T/oj" -- ./build.sh > "$T/json" 2> "$T/err" || fail "json: $(cat "$T/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["left_out_differ"] == ["out/x"], d' "$T/json" || fail "json: $(cat "$T/json")"
# With --artifacts nothing is left out unsaid: the glob chose.
set +e; bt repro --vary umask --artifacts 'out/*' -o "$T/o2" -- ./build.sh > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "out/x compared: exit $st: $(cat "$T/out" "$T/err")"
! grep -q 'left out' "$T/out" || fail "left out said with --artifacts: $(cat "$T/out")"
cd "$T"
assert_no_leftovers
