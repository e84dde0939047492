#!/bin/sh
# repro --diffoscope: when diffoscope is not installed, said clearly (stderr, and a line in the
# report; --json's diffoscope_missing), the verdict unchanged (exit 1); when it is (here a
# stand-in on PATH that prints what it was given, unless the real one is installed), its text
# report is added under each artifact that differs, run on the control's and the
# experiment's copies of that artifact, and on nothing else.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir -p "$T/proj" "$T/bin"
printf 'all:\n\thostname > host.txt\n\techo same > same.txt\n' > "$T/proj/Makefile"
cd "$T/proj"
if command -v diffoscope >/dev/null 2>&1; then
    missing_part "diffoscope is installed: its absence is not checked"
else
    set +e; out=$(bt repro --diffoscope --vary domain_host -o "$T/o1" -- make -s 2>"$T/err"); st=$?; set -e
    [ "$st" = 1 ] || fail "exit $st: $out"
    assert_contains "$(cat "$T/err")" "--diffoscope: diffoscope is not installed (apt install diffoscope)" "said on stderr"
    assert_contains "$out" "diffoscope: not installed, its reports are left out" "said in the report"
    bt repro --json --diffoscope --vary domain_host -o "$T/o2" -- make -s 2>/dev/null |
        python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["diffoscope_missing"] is True, d' ||
        fail "--json: diffoscope_missing"
fi
cat > "$T/bin/diffoscope" <<'SH'
#!/bin/sh
# a stand-in: diffoscope --text - A B
echo "STAND-IN REPORT: $3 vs $4"
exit 1
SH
chmod 755 "$T/bin/diffoscope"
command -v diffoscope >/dev/null 2>&1 || PATH="$T/bin:$PATH"
set +e; out=$(bt repro --diffoscope --vary domain_host -o "$T/o3" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 1 ] || fail "with diffoscope: exit $st: $out"
printf '%s\n' "$out" | grep -q 'not installed' && fail "said missing: $out"
if [ "$(command -v diffoscope)" = "$T/bin/diffoscope" ]; then
    assert_contains "$out" "    diffoscope:
STAND-IN REPORT: $T/o3/control/proj/host.txt vs $T/o3/experiment/proj/host.txt" "its report under host.txt"
    [ "$(printf '%s\n' "$out" | grep -c 'STAND-IN REPORT')" = 1 ] || fail "run once, on the differing artifact: $out"
else
    assert_contains "$out" "    diffoscope:" "its report"
fi
assert_no_leftovers
