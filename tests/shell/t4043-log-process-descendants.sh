#!/bin/sh
# log --process ID prints what process ID and every process it started wrote (libtool's gcc
# error is its compiler's, not libtool's), grouped as log groups a job: make's echo of the
# job first; with --raw, every line still names its writer; --failed --process keeps the
# failed jobs inside ID; other jobs' output is left out.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
cat > wrap.sh <<'W'
echo wrapper starts
sh -c 'echo inner says hi; echo inner error >&2; exit 1' || echo wrapper saw the failure
sh -c 'sh -c "echo grandchild"'
W
printf 'all: lib other\nlib:\n\tsh wrap.sh\nother:\n\t@echo other job\nbad:\n\tsh wrap.sh; exit 2\n' > Makefile
bt run -q -- make -j1 all > /dev/null
id=$(bt tree --json | python3 -c '
import json, sys
def walk(n):
    if n["process"]["argv"] == ["sh", "wrap.sh"]: print(n["process"]["id"])
    for c in n["children"]: walk(c)
for r in json.load(sys.stdin)["processes"]: walk(r)' | sort -n | head -n 1)  # (its forks run it too)
[ -n "$id" ] || fail "no sh wrap.sh in: $(bt tree)"
assert_eq "$(bt log --process "$id")" "sh wrap.sh
wrapper starts
inner says hi
inner error
wrapper saw the failure
grandchild" "log --process $id"
inner=$(bt tree "$id" | grep -F "echo inner says hi" | sed 's/^ *\[\([0-9]*\)\].*/\1/')
assert_eq "$(bt log --process "$inner")" "inner says hi
inner error" "log --process of the inner shell"
assert_eq "$(bt log --process "$id" --stream err)" "inner error" "--stream err"
raw=$(bt log --raw --process "$id")
printf '%s\n' "$raw" | grep -q "^\[$inner\] inner error$" || fail "--raw: $raw"
! printf '%s\n' "$raw" | grep -q "other job" || fail "--raw took another job: $raw"
[ "$(printf '%s\n' "$raw" | wc -l)" = 5 ] || fail "--raw lines: $raw"
bt log --json --process "$id" | python3 -c '
import json, sys
chunks = json.load(sys.stdin)["chunks"]
assert "".join(c["data"] for c in chunks).endswith("grandchild\n"), chunks
assert len({c["process"] for c in chunks}) >= 4, chunks
' || fail "--json --process"
# --failed within a process: the failed job under make, not other jobs
set +e; bt run -q -o "$T/f.db" -- make -k bad other > /dev/null 2>&1; set -e
mk=$(bt tree -d "$T/f.db" | sed -n '1s/^\[\([0-9]*\)\].*/\1/p')
failed=$(bt log -d "$T/f.db" --failed --process "$mk")
assert_contains "$failed" "inner error" "--failed --process"
! printf '%s\n' "$failed" | grep -q "other job" || fail "--failed --process: $failed"
assert_no_leftovers
