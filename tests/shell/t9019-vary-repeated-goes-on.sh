#!/bin/sh
# --vary given twice goes on from the first LIST (`--vary all --vary -fileordering,-aslr`), as
# one LIST joined with commas would: never the last one alone, silently.  A bad word in the
# second is named as in one LIST.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws"
cd "$T/ws"
bt run -q -o "$T/t.db" --vary umask --vary timezone,home --vary -home -- true 2> "$T/err" ||
    fail "run: $(cat "$T/err")"
bt info -d "$T/t.db" --json > "$T/info.json"
python3 - "$T/info.json" <<'PY' || fail "info --json: $(cat "$T/info.json")"
import json, sys
d = json.load(open(sys.argv[1]))
names = sorted(v["name"] for v in d["variations"])
assert names == ["timezone", "umask"], names
PY
one_line_error "$BUILDTRAIL" run -o "$T/t.db" --vary all --vary -bogus -- true
assert_eq "$st" 2 "a bad word in the second LIST: exit status"
assert_contains "$e" "unknown variation 'bogus'"
assert_no_leftovers
