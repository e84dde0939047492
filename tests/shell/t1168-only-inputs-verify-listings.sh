#!/bin/sh
# verify after run --only-inputs: a hidden file the build looked up by name is a finding
# (denied, exit 1); one only left out of a listing is not — find, a shell glob, make's
# directory cache list .git and every undeclared file beside the declared ones, whatever they
# want, so every such build failed verify — and the text says how many there were and where
# to see them (--json: denied_listed_only).  files --denied still lists both.  Nor is one the
# build then made itself (a stale output of an earlier build, remade: --json denied_then_made).
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/ws/.git" && cd "$T/ws"
echo ref > .git/HEAD
echo 'int a;' > a.c
echo junk > notes.txt
echo a.c > M
bt run -q -o "$T/list.db" --only-inputs M -- sh -c 'find . -name "*.c" > /dev/null; echo *' > /dev/null ||
    fail "the listing build failed"
out=$(bt verify -d "$T/list.db" --inputs M 2>&1) || fail "verify failed on listings alone: $out"
assert_contains "$out" "note: 3 undeclared files were left out of listings only (not findings" "the note"
denied=$(bt files -d "$T/list.db" --denied)
assert_contains "$denied" "$T/ws/.git: undeclared; listed by " "files --denied keeps the listing"
bt verify -d "$T/list.db" --inputs M --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] is True and d["denied"] == 0 and d["problems"] == [], d
assert d["denied_listed_only"] == 3, d' || fail "verify --json on listings alone (the count the note gives too)"
# A lookup of the same kind of file is a finding.
bt run -q -o "$T/look.db" --only-inputs M -- sh -c 'ls; cat notes.txt .git/HEAD 2>/dev/null || true' > /dev/null ||
    fail "the lookup build failed"
set +e
out=$(bt verify -d "$T/look.db" --inputs M 2>&1); st=$?
set -e
assert_eq "$st" 1 "verify's status with a lookup denied: $out"
assert_contains "$out" "denied     $T/ws/notes.txt" "the looked-up file"
assert_contains "$out" "denied     $T/ws/.git" "the looked-up directory"
case $out in *"denied     $T/ws/M"*) fail "a listed-only file is a finding: $out" ;; esac
assert_contains "$out" "note: 1 undeclared file was left out of listings only" "the note"
# A stale output of an earlier build that the build looked up, was refused and then made
# itself (make's in-tree rebuild): not a finding either, its own product; said in a note.
echo stale > out
bt run -q -o "$T/remade.db" --only-inputs M -- sh -c '[ -e out ] || echo new > out' ||
    fail "the rebuild failed"
out=$(bt verify -d "$T/remade.db" --inputs M 2>&1) || fail "verify failed on a remade output: $out"
assert_contains "$out" "note: 1 hidden file was made by the build afterwards" "the note"
bt verify -d "$T/remade.db" --inputs M --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] is True and d["denied"] == 0 and d["denied_then_made"] == 1, d' ||
    fail "verify --json on a remade output"
assert_no_leftovers
