#!/bin/sh
# repro --json: one JSON document as docs/json.md describes it (every member there, of its
# type), each differing artifact's causes pointing at its own root cause (hostname's process
# for out/host.txt, with domain_host among may_explain), the members of a tar; and
# --artifacts GLOB (repeatable) choosing what is compared: only the matching products are
# artifacts, and an artifact that does not differ makes the build reproducible (exit 0).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
require_cmd cc
require_cmd make
require_cmd python3
repro_scenario "$T/proj"
cd "$T/proj"
set +e; bt repro --json --vary domain_host,umask -o "$T/out" -- make -s > "$T/r.json" 2>"$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "exit $st: $(cat "$T/err")"
python3 - "$T/r.json" "$T/out" <<'PY' || fail "the document: $(cat "$T/r.json")"
import json, sys
d = json.load(open(sys.argv[1]))
out = sys.argv[2]
assert d["json_version"] == 1 and d["reproducible"] is False and d["output"] == out, d
assert d["command"] == "make -s", d["command"]
for side in ("control", "experiment"):
    b = d[side]
    assert set(b) == {"copy", "built_at", "trace", "log"}, b
    assert b["copy"] == out + "/" + side + "/proj" and b["trace"] == out + "/" + side + ".db", b
assert d["asked"] == ["umask", "domain_host"], d["asked"]
assert d["varied"] == ["umask", "domain_host"] and d["not_varied"] == [], (d["varied"], d["not_varied"])
assert d["bisect_builds"] is None and d["diffoscope_missing"] is False
arts = {a["relative"]: a for a in d["artifacts"]}
assert [a["path"] for a in d["artifacts"]] == sorted(a["path"] for a in d["artifacts"])
for a in d["artifacts"]:
    assert set(a) == {"path", "relative", "state", "members", "members_error", "causes", "diffoscope"}, a
    assert a["state"] in ("identical", "differs", "only_control", "only_experiment"), a
assert arts["out/const.txt"]["state"] == "identical" and arts["out/where.txt"]["state"] == "identical"
causes = d["root_causes"]
for c in causes:
    assert set(c) == {"kind", "path", "key", "detail", "process_control", "process_experiment",
                      "may_explain", "hints_not_varied", "pinned", "unvaried"}, c
    assert c["pinned"] is None
    assert c["unvaried"] is None
def own(rel):
    a = arts[rel]
    assert a["state"] == "differs" and a["causes"], a
    return [causes[x["cause"]] for x in a["causes"]]
(host,) = own("out/host.txt")
assert host["process_experiment"]["argv"] == ["hostname"] and host["may_explain"] == ["domain_host"], host
(tar,) = own("out/modes.tar")
assert tar["process_experiment"]["argv"][0] == "tar" and "umask" in tar["may_explain"], tar
assert "domain_host" not in tar["may_explain"], tar
m = {(x["member"], x["kind"]): x for x in arts["out/modes.tar"]["members"]}
assert m[("t/x", "mode")]["a"] == "0644" and m[("t/x", "mode")]["b"] == "0664", m
assert m[("t/x", "mode")]["parts"] == ["t/x"], m
(lib,) = own("out/libh.a")
assert lib["key"] == "h.c" and [x["chain"] for x in arts["out/libh.a"]["causes"]][0][-1].endswith("/h.c"), lib
PY
# --artifacts: the constant output alone is identical -> reproducible
set +e; out=$(bt repro --vary domain_host --artifacts 'out/const.txt' -o "$T/out2" -- make -s 2>&1); st=$?; set -e
[ "$st" = 0 ] || fail "--artifacts out/const.txt: exit $st: $out"
assert_contains "$out" "reproducible: 1 artifact identical" "one artifact"
# two globs: both host.txt and the tars, nothing else
set +e; out=$(bt repro --json --vary domain_host,umask --artifacts 'out/*.tar' --artifacts out/host.txt -o "$T/out3" -- make -s 2>/dev/null); st=$?; set -e
[ "$st" = 1 ] || fail "--artifacts two globs: exit $st"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert sorted(a["relative"] for a in d["artifacts"]) == ["out/host.txt", "out/modes.tar", "out/order.tar"], d["artifacts"]
' || fail "--artifacts: $out"
assert_no_leftovers
