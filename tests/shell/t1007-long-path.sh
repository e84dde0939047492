#!/bin/sh
# A trace at a path longer than SQLite's 512-byte limit: `run` and every query work (a CI or
# Yocto working directory is often that long).
. "$(dirname "$0")/lib.sh"
require_fuse
d=$T/ws
while [ ${#d} -lt 600 ]; do d=$d/a-long-directory-name-of-forty-characters-; done
mkdir -p "$d" && cd "$d"
[ ${#PWD} -ge 600 ] || fail "the test directory is only ${#PWD} characters"
bt run -- sh -c 'echo hello > out.txt; cat out.txt' > "$T/run.out" 2>&1 || fail "run: $(cat "$T/run.out")"
# (the sqlite3 command-line tool has SQLite's limit: read a copy)
cp buildtrail.db "$T/copy.db"
assert_eq "$(sql "$T/copy.db" 'select state from runs')" finished "run state"
bt who-wrote out.txt | grep -q "written by" || fail "who-wrote on a long path"
bt tree | grep -q "echo hello" || fail "tree on a long path"
bt log | grep -q hello || fail "log on a long path"
bt export --format sql -o "$d/t.sql" && [ -s "$d/t.sql" ] || fail "export -o at a long path"
# -o at a long path too, and -d from elsewhere.
bt run -o "$d/second.db" -- true || fail "run -o at a long path"
cd "$T" && bt tree -d "$d/second.db" >/dev/null || fail "tree -d at a long path"
assert_no_leftovers
