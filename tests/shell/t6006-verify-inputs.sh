#!/bin/sh
# verify --inputs: a clean manifest passes (exit 0); a read of an undeclared file, a declared
# file never read (--unused) and a hash mismatch are each reported (exit 1); a bad manifest is
# a one-line error (exit 2).  Files the build made itself are never inputs.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd sha256sum
mkdir -p "$T/ws/src" && cd "$T/ws"
echo 'int main(void) { return 0; }' > src/main.c
echo 'secret' > undeclared.txt
echo 'docs' > README
cat > build.sh <<'B'
set -e
cat src/main.c > main.copy
cat main.copy > main.final
if [ -n "${READ_EXTRA:-}" ]; then cat undeclared.txt > /dev/null; fi
B
bt run -o "$T/clean.db" -- sh build.sh
READ_EXTRA=1 bt run -o "$T/dirty.db" -- sh build.sh

# Clean: the two inputs declared, one by hash (sha256sum format) and one by glob.
sha256sum src/main.c > "$T/manifest"
echo 'build.*' >> "$T/manifest"
out=$(bt verify -d "$T/clean.db" --inputs "$T/manifest") || fail "clean build fails verify: $out"
assert_contains "$out" "ok: the build read 2 inputs, all declared" "summary"
out=$(bt verify -d "$T/clean.db" --inputs "$T/manifest" --unused) || fail "--unused on a clean build: $out"

# Undeclared read.
set +e; out=$(bt verify -d "$T/dirty.db" --inputs "$T/manifest"); st=$?; set -e
[ "$st" = 1 ] || fail "undeclared read: exit $st: $out"
assert_contains "$out" "undeclared $T/ws/undeclared.txt" "the undeclared file is named"
assert_contains "$out" "FAILED: 3 inputs read: 1 undeclared" "summary"

# Declared but unused (README), only reported with --unused; a whole-tree entry that matched.
printf '%s\n' "$T/ws/src/" build.sh README > "$T/manifest2"
bt verify -d "$T/clean.db" --inputs "$T/manifest2" > /dev/null || fail "unused is only checked with --unused"
set +e; out=$(bt verify -d "$T/clean.db" --inputs "$T/manifest2" --unused); st=$?; set -e
[ "$st" = 1 ] || fail "unused: exit $st: $out"
assert_contains "$out" "unused     $T/ws/README" "the unused entry is named"

# Hash mismatch: the manifest's hash is of other content.
echo "$(printf 'other\n' | sha256sum | cut -d' ' -f1)  src/main.c" > "$T/manifest3"
echo build.sh >> "$T/manifest3"
set +e; out=$(bt verify -d "$T/clean.db" --inputs "$T/manifest3" --json); st=$?; set -e
[ "$st" = 1 ] || fail "mismatch: exit $st: $out"
printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] is False and d["mismatch"] == 1 and d["undeclared"] == 0, d
p = d["problems"][0]
assert p["problem"] == "mismatch" and p["path"].endswith("/src/main.c"), p
assert len(p["sha256"]) == 64 and p["sha256"] != p["expected_sha256"], p
'

# Bad manifest and missing manifest: one line, exit 2.
printf '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n' > "$T/bad"
set +e; bt verify -d "$T/clean.db" --inputs "$T/bad" 2>"$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "bad manifest: exit $st"
assert_contains "$(cat "$T/err")" "line 1" "the bad line is named"
[ "$(wc -l < "$T/err")" = 1 ] || fail "more than one line: $(cat "$T/err")"
set +e; bt verify -d "$T/clean.db" --inputs "$T/nonexistent" 2>"$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "missing manifest: exit $st"
assert_contains "$(cat "$T/err")" "cannot read the manifest" "message"
assert_no_leftovers
