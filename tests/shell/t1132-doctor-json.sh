#!/bin/sh
# `doctor --json` prints one JSON document: whether tracing works, and every check with its
# verdict, what was found and its fix, the same checks as the text in the same order; usage
# errors stay one line and exit 2.  As root, a broken /dev/fuse is a "fail" with its fix.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
text=$(bt doctor)
bt doctor --json > "$T/d.json" || fail "doctor --json failed where tracing works: $(cat "$T/d.json")"
python3 - "$T/d.json" "$text" <<'PY' || fail "doctor --json: $(cat "$T/d.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["json_version"] == 1 and d["works"] is True, d
names = [c["check"] for c in d["checks"]]
for want in ["/dev/fuse", "FUSE in the kernel", "id maps", "process events", "versions", "TMPDIR", "a trial run"]:
    assert want in names, (want, names)
lines = [l for l in sys.argv[2].splitlines() if l[:4] in ("ok  ", "note", "FAIL")]
assert len(lines) == len(d["checks"]), (lines, names)
for l, c in zip(lines, d["checks"]):
    assert l[6:].startswith(c["check"]), (l, c)
    assert c["verdict"] in ("ok", "note"), c
    assert isinstance(c["found"], str) and c["found"], c
    assert c["fix"] is None or c["verdict"] != "ok", c
PY
set +e; err=$(bt doctor --json extra 2>&1 >/dev/null); st=$?; set -e
assert_eq "$st" 2 "doctor --json extra: exit status"
assert_eq "$(printf '%s\n' "$err" | wc -l)" 1 "doctor --json extra: one line"
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null; then
    set +e
    unshare -m sh -c 'mount --bind /dev/null /dev/fuse && exec "$0" doctor --json' "$BUILDTRAIL" > "$T/bad.json"; st=$?
    set -e
    assert_eq "$st" 1 "doctor --json with a broken /dev/fuse: exit status"
    python3 - "$T/bad.json" <<'PY' || fail "doctor --json, broken /dev/fuse: $(cat "$T/bad.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["works"] is False, d
c = [c for c in d["checks"] if c["check"] == "/dev/fuse"][0]
assert c["verdict"] == "fail" and "not the FUSE device" in c["found"] and "modprobe fuse" in c["fix"], c
PY
fi
[ -z "$(ls "$TMPDIR")" ] || fail "doctor left $(ls "$TMPDIR") in TMPDIR"
assert_no_leftovers
