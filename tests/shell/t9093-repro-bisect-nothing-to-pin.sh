#!/bin/sh
# repro --bisect on a build with no cause to pin (reproducible): no bisect build is made, and
# the report says so (JSON bisect_builds 0, text "bisect: 0 more builds"), not null, which
# means --bisect was not asked.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/tree"
cd "$T/tree"
printf '#!/bin/sh\nmkdir -p out && echo same > out/s\n' > build.sh
chmod +x build.sh
bt repro --json --bisect --vary umask -o "$T/o" -- ./build.sh > "$T/json" 2> "$T/err" || fail "exit: $(cat "$T/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["reproducible"] and d["bisect_builds"] == 0, d' "$T/json" || fail "json: $(cat "$T/json")"
bt repro --bisect --vary umask -o "$T/o2" -- ./build.sh > "$T/out" 2> "$T/err" || fail "exit: $(cat "$T/err")"
assert_contains "$(cat "$T/out")" "bisect: 0 more builds" "the text"
[ -z "$(ls -d "$T"/o2/bisect-* 2>/dev/null)" ] || fail "a bisect build was made: $(ls "$T/o2")"
cd "$T"
assert_no_leftovers
