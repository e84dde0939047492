#!/bin/sh
# The README's quick start traces the bundled sample in one directory it owns (build/sample,
# here BT_SAMPLE_DIR), replaced on each run, and leaves nothing in TMPDIR or /tmp; the trace
# stays there to query.  The README's build-tree commands (man -l, completion) name files that
# exist, and the quick start is two commands.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
# The source tree (the unprivileged variant gets a copy of the quick start and the sample).
src=$(cd "${SAMPLE:?SAMPLE names tests/sample}/../.." && pwd)
qs=${QUICKSTART:-$src/.ci/quickstart}
before=$(ls -A /tmp | grep '^buildtrail-sample' | sort || true)
out=$(BUILDTRAIL="$BUILDTRAIL" BT_SAMPLE_DIR="$T/sample" BUILDTRAIL_PAGER=cat NO_COLOR=1 "$qs" 2>&1) ||
    fail "the quick start failed: $out"
assert_contains "$out" "written by" "who-wrote's answer"
assert_contains "$out" "The sample and its trace are in $T/sample" "where the trace is"
[ -s "$T/sample/buildtrail.db" ] || fail "no trace in the sample directory"
(cd "$T/sample" && bt who-wrote hello | grep -q "written by") || fail "the trace there does not answer"
[ -z "$(ls -A "$TMPDIR")" ] || fail "the quick start left $(ls -A "$TMPDIR") in TMPDIR"
after=$(ls -A /tmp | grep '^buildtrail-sample' | sort || true)
assert_eq "$after" "$before" "scratch directories in /tmp"
# Run again: the directory is replaced, not added to.
touch "$T/sample/stale"
BUILDTRAIL="$BUILDTRAIL" BT_SAMPLE_DIR="$T/sample" BUILDTRAIL_PAGER=cat "$qs" >/dev/null 2>&1 ||
    fail "the quick start failed the second time"
[ ! -e "$T/sample/stale" ] || fail "the sample directory was not replaced"

# The README: two commands in the quick start, and the build-tree paths it gives exist.
[ -n "${BUILD_DIR:-}" ] || { assert_no_leftovers; exit 0; } # (checked once, in the root variant)
readme=$src/README.md
block=$(awk '/^## Quick start/ { on = 1; next } on && /^```sh$/ { inb = 1; next } inb && /^```$/ { exit } inb { print }' "$readme")
assert_eq "$(printf '%s\n' "$block" | grep -c .)" 2 "commands in the quick start"
assert_contains "$(cat "$readme")" "man -l build/man/buildtrail.1" "how to read the man pages"
assert_contains "$(cat "$readme")" "source launcher/completions/buildtrail.bash" "how to load completion"
[ -f "$src/launcher/completions/buildtrail.bash" ] || fail "the README's completion file is not there"
[ -f "$BUILD_DIR/man/buildtrail.1" ] || fail "the README's man page is not in the build tree ($BUILD_DIR/man)"
assert_no_leftovers
