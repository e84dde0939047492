#!/bin/sh
# who-wrote / who-read name the right processes with argv, cwd and ancestors; redirections
# record both the opener (shell) and the writer; --json is valid JSON with the same facts.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir -p "$T/ws/sub" && cd "$T/ws"
echo input > in.txt
cat > build.sh <<'B'
cd sub && cp ../in.txt copy.txt
cat ../in.txt > ../redirected.txt
B
bt run -- sh build.sh
out=$(bt who-wrote sub/copy.txt)
assert_contains "$out" "written by [" "writer line"
assert_contains "$out" "cp ../in.txt copy.txt" "writer argv"
assert_contains "$out" "cwd:  $T/ws/sub" "writer cwd"
assert_contains "$out" "from: [1] sh build.sh" "ancestor chain up to the build command"
out=$(bt who-read in.txt)
assert_contains "$out" "read by [" "reader"
assert_contains "$out" "cp ../in.txt copy.txt" "cp read it"
assert_contains "$out" "cat ../in.txt" "cat read it"
# sh opened (created) redirected.txt, cat wrote the bytes.
bt who-wrote --json redirected.txt > w.json
python3 - w.json <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))["paths"]
assert len(doc) == 1 and doc[0]["path"].endswith("/redirected.txt"), doc
kinds = {}
for w in doc[0]["writers"]:
    kinds[w["process"]["argv"][0]] = {a["kind"]: a["bytes"] for a in w["accesses"]}
assert "create" in kinds.get("sh", {}), kinds
assert kinds.get("cat", {}).get("write") == 6, kinds
exact = {a["kind"]: a["bytes_exact"] for w in doc[0]["writers"] for a in w["accesses"]}
assert exact.get("write") is True, exact
for w in doc[0]["writers"]:
    chain = [w["process"]] + w["ancestors"]
    assert chain[-1]["argv"] == ["sh", "build.sh"], chain
PY
# Byte counts say only what is known: reads whose pages the kernel already had moved nothing
# through the daemon; never "read 0 bytes", and JSON says a read's count is not exact.
out=$(bt who-read in.txt)
printf '%s\n' "$out" | grep -q "read 0 bytes" && fail "a page-cache read shown as 0 bytes: $out"
printf '%s\n' "$out" | grep -Eq "opened for reading|read at least [0-9]+ bytes" || fail "read wording: $out"
bt who-read --json in.txt | python3 -c '
import json, sys
d = json.load(sys.stdin)
acc = [a for r in d["paths"][0]["readers"] for a in r["accesses"] if a["kind"] == "read"]
assert acc and all(a["bytes_exact"] is False for a in acc), acc
' || fail "who-read --json bytes_exact"
# Several paths at once, one of them never touched: reported, exit 1, others still printed.
set +e; out=$(bt who-read in.txt nothing-here 2>"$T/err"); st=$?; set -e
assert_eq "$st" 1 "exit status with an untouched path"
assert_contains "$(cat "$T/err")" "nothing-here: the build never touched this path" "message"
assert_contains "$out" "in.txt" "the other path is still answered"
assert_no_leftovers
