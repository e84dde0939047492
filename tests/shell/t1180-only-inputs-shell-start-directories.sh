#!/bin/sh
# run --only-inputs: the directories a shell checks when it starts stay visible (their
# contents judged one by one, as $PATH's: t1164) — $PWD, the start directory by the path the
# caller took to it (through a symlink: ~/src -> /data/src), and bash's $OLDPWD — because each
# sh and bash of the build looked them up and was denied, a finding of verify for every build
# run from a linked path or after a cd, whatever it did.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd bash
mkdir -p "$T/real/ws" "$T/before" && ln -s real "$T/link"
echo hidden > "$T/before/hidden"
cd "$T/link/ws"
echo ok > ok
echo ok > M
out=$(PWD="$T/link/ws" OLDPWD="$T/before" bt run -q -o "$T/t.db" --only-inputs M -- sh -c '
    cat ok; bash -c "cat \"\$OLDPWD/hidden\" 2>/dev/null || echo no hidden"' 2>&1) ||
    fail "the build failed: $out"
assert_eq "$out" "ok
no hidden" "the build (the old directory's contents stay hidden)"
denied=$(bt files -d "$T/t.db" --denied)
assert_contains "$denied" "$T/before/hidden: undeclared; looked up by " "the file the build asked for"
others=$(printf '%s\n' "$denied" | grep "^$T" | grep -v "^$T/before/hidden: " || true)
[ -z "$others" ] || fail "the directories the shells start in were denied: $others"
assert_no_leftovers
