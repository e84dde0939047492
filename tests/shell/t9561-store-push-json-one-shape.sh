#!/bin/sh
# store push --json: one shape whether the build is stored now or was already there — the
# same members; `rows` are the rows added (all 0 the second time), `complete` the build's.
. "$(dirname "$0")/lib.sh"
store_with_build
bt store init >/dev/null
bt store push --json > "$T/first.json" || fail "the first push"
bt store push --json > "$T/again.json" || fail "the second push"
python3 - "$T/first.json" "$T/again.json" <<'PY' || fail "push --json shapes: $(cat "$T/first.json" "$T/again.json")"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert sorted(a) == sorted(b), (sorted(a), sorted(b))
assert sorted(a["rows"]) == sorted(b["rows"]), (a["rows"], b["rows"])
assert not a["already_stored"] and b["already_stored"]
assert a["build"] == b["build"] == 1 and a["complete"] == b["complete"] is True
assert a["rows"]["process"] > 0 and all(v == 0 for v in b["rows"].values()), b["rows"]
assert a["trace_sha256"] == b["trace_sha256"]
PY
