#!/bin/sh
# A test writes under its own $T only.  lib.sh fails a test that leaves an entry in /tmp or
# $HOME whose name carries its pid or TEST_MARK (and removes it), whatever else runs at the
# same time; .ci/leftovers (run by .ci/run around each ctest pass) lists every entry a whole
# run added to /tmp, /var/tmp and $HOME, but the test directories themselves.
. "$(dirname "$0")/lib.sh"
mkdir "$T/sub"
cp "$(dirname "$0")/lib.sh" "$T/sub/"
cat > "$T/sub/leaves.sh" <<'SUB'
. "$(dirname "$0")/lib.sh"
echo left > "/tmp/bt-t1113-$$.out"
mkdir "$HOME/bt-t1113-dir-$$"
echo "$$" > "$PIDFILE"
SUB
cat > "$T/sub/clean.sh" <<'SUB'
. "$(dirname "$0")/lib.sh"
echo kept > "$T/own"; echo gone > "/tmp/bt-t1113-$$.tmp"; rm "/tmp/bt-t1113-$$.tmp"
echo "$$" > "$PIDFILE"
# Another test's random name that holds this pid between letters (gcc's temporaries): not ours.
touch "/tmp/ccQ$$${BT_T1113_TAG}z.s"
SUB
set +e
HOME=$T/home; mkdir "$HOME"
HOME=$HOME PIDFILE=$T/pid sh "$T/sub/leaves.sh" > "$T/leaves.out" 2>&1; st=$?
set -e
[ "$st" = 1 ] || fail "a test that left files behind exited $st: $(cat "$T/leaves.out")"
pid=$(cat "$T/pid")
assert_contains "$(cat "$T/leaves.out")" "/tmp/bt-t1113-$pid.out" "the /tmp leftover is named"
assert_contains "$(cat "$T/leaves.out")" "$T/home/bt-t1113-dir-$pid" "the \$HOME leftover is named"
[ ! -e "/tmp/bt-t1113-$pid.out" ] && [ ! -e "$T/home/bt-t1113-dir-$pid" ] || fail "the leftovers were not removed"
tag=$(basename "$T" | tr -cd 'a-zA-Z')
on_cleanup 'rm -f /tmp/ccQ$(cat "$T/pid2")'"${tag}z.s"
BT_T1113_TAG=$tag PIDFILE=$T/pid2 sh "$T/sub/clean.sh" > "$T/clean.out" 2>&1 ||
    fail "a clean test failed: $(cat "$T/clean.out")"

# .ci/leftovers, on directories of our own (the project is reachable from the invoking user's
# variant only: the unprivileged one runs a copy of the test).
tool=$(dirname "$0")/../../.ci/leftovers
[ -x "$tool" ] || { say ".ci/leftovers is checked by the variant that runs from the project"; exit 0; }
mkdir "$T/a" "$T/b" && touch "$T/a/old"
"$tool" snapshot "$T/snap" "$T/a" "$T/b"
"$tool" check "$T/snap" "$T/a" "$T/b" || fail "nothing new, but leftovers says there is"
mkdir "$T/b/bt-test.xyz" "$T/b/bt-user.xyz" && touch "$T/a/new file"
set +e
out=$("$tool" check "$T/snap" "$T/a" "$T/b" 2>&1); st=$?
set -e
[ "$st" = 1 ] || fail "leftovers check with a new file exited $st"
assert_contains "$out" "$T/a/new file" "the new entry is named"
case $out in *bt-test.xyz*|*bt-user.xyz*|*"$T/a/old"*) fail "leftovers named what it should not: $out" ;; esac
set +e
"$tool" check "$T/none" "$T/a" 2> "$T/err"; st=$?
set -e
[ "$st" = 2 ] || fail "leftovers check without a snapshot exited $st"
