#!/bin/sh
# repro --bisect whose bisect build fails: the comparison of the control and the experiment is
# still reported (the differing artifact, its cause, "not reached: a build failed" where
# --bisect could not pin it; JSON bisect_failed true), and the exit is 2 (an error), because
# the whole report was thrown away for a failure after both builds had been compared.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/tree" "$T/count"
chmod 777 "$T/count"
cd "$T/tree"
# The third build (the first bisect build) fails: a count kept outside the tree.
cat > build.sh <<EOF2
#!/bin/sh
n=\$(cat "$T/count/n" 2>/dev/null || echo 0)
n=\$((n + 1))
echo \$n > "$T/count/n"
[ \$n -le 2 ] || { echo "build \$n fails on purpose" >&2; exit 3; }
mkdir -p out && umask > out/umask.txt
EOF2
chmod +x build.sh
bt repro --bisect --vary umask -o "$T/o" -- ./build.sh > "$T/out" 2> "$T/err" && st=0 || st=$?
[ "$st" = 2 ] || fail "exit $st, not 2: $(cat "$T/err")"
assert_contains "$(cat "$T/out")" "differs: out/umask.txt" "the report"
assert_contains "$(cat "$T/out")" "not reached: a build failed" "the report"
rm -f "$T/count/n"
bt repro --json --bisect --vary umask -o "$T/o2" -- ./build.sh > "$T/json" 2> "$T/err" && st=0 || st=$?
[ "$st" = 2 ] || fail "--json: exit $st, not 2: $(cat "$T/err")"
python3 - "$T/json" <<'PY' || fail "json: $(cat "$T/json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["reproducible"] is False and d["bisect_failed"] is True, d
assert any(a["relative"] == "out/umask.txt" and a["state"] != "identical" for a in d["artifacts"]), d["artifacts"]
PY
cd "$T"
assert_no_leftovers
