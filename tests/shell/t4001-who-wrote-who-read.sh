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
for w in doc[0]["writers"]:
    chain = [w["process"]] + w["ancestors"]
    assert chain[-1]["argv"] == ["sh", "build.sh"], chain
PY
# Several paths at once, one of them never touched: reported, exit 1, others still printed.
set +e; out=$(bt who-read in.txt nothing-here 2>"$T/err"); st=$?; set -e
assert_eq "$st" 1 "exit status with an untouched path"
assert_contains "$(cat "$T/err")" "nothing-here: the build never touched this path" "message"
assert_contains "$out" "in.txt" "the other path is still answered"
assert_no_leftovers
