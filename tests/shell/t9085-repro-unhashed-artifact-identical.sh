#!/bin/sh
# An artifact larger than --hash-limit has no hash in either trace; repro compares its two
# files on disk: byte-identical is "identical" (exit 0), never "differs" with a made-up cause
# ("nondeterminism: head -c ..."), as it said when the traces alone decided.  One that does
# differ still differs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
mkdir "$T/p"
printf '#!/bin/sh\nmkdir -p out\nhead -c 100000 /dev/zero > out/big\necho small > out/small\n' > "$T/p/build.sh"
chmod +x "$T/p/build.sh"
cd "$T/p"
set +e; bt repro --hash-limit 1000 -o "$T/o" -- ./build.sh > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 0 ] || fail "identical unhashed artifact: exit $st: $(cat "$T/out" "$T/err")"
assert_contains "$(cat "$T/out")" "reproducible: 2 artifacts identical" "the verdict"
bt repro --json --hash-limit 1000 -o "$T/oj" -- ./build.sh > "$T/json" 2> "$T/err" || fail "json: $(cat "$T/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["reproducible"], d; assert not d["root_causes"], d' "$T/json" || fail "json: $(cat "$T/json")"
# Random bytes past the limit: differs, with its cause.
printf '#!/bin/sh\nmkdir -p out\nhead -c 100000 /dev/urandom > out/big\necho small > out/small\n' > build.sh
set +e; bt repro --hash-limit 1000 -o "$T/o2" -- ./build.sh > "$T/out" 2> "$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "differing unhashed artifact: exit $st: $(cat "$T/out" "$T/err")"
assert_contains "$(cat "$T/out")" "differs: out/big" "the differing artifact"
assert_contains "$(cat "$T/out")" "cause: nondeterminism: out/big" "its cause"
cd "$T"
assert_no_leftovers
