#!/bin/sh
# A trace found by looking up from the current directory (not one named with -d or
# BUILDTRAIL_DB) is read only if it is yours or root's, and so are the directory holding it and,
# for a link, the file the link leads to: another user's buildtrail.db above (in /tmp, say)
# gets one line with the fix from every query — info, verify, licenses --deny, export — and
# no answer.  -d, BUILDTRAIL_DB and BUILDTRAIL_SAFE_DIRS read it on purpose.  Root is asked
# like anyone (the root variant plants as buildtrail-test; the unprivileged one as a
# subordinate uid, or checks only that its own traces are read).
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/mine/sub" "$T/shared/newproj"
chmod 1777 "$T/shared"
cd "$T/mine"
bt run -q -- sh -c 'echo x > made.txt'
echo 'made.txt' > "$T/manifest"

# refused WHERE WHAT: every query asked in WHERE is refused, one line naming the fix, with its
# exit status for an unreadable trace (the verdicts' is 2, an error, never 0 "clean").
refused() {
    for q in "1 info" "2 verify --inputs $T/manifest" "2 licenses --deny GPL-* $T/mine/made.txt" "1 export --format dot"; do
        want=${q%% *} q=${q#* }
        set +e
        (cd "$1" && bt $q > "$T/out" 2> "$T/err"); st=$?
        set -e
        [ "$st" = "$want" ] || fail "$q in $1 ($2): exit $st, not $want: $(cat "$T/err")"
        [ ! -s "$T/out" ] || fail "$q in $1 ($2) answered: $(head -3 "$T/out")"
        [ "$(wc -l < "$T/err")" = 1 ] || fail "$q in $1 ($2): not one line: $(cat "$T/err")"
        assert_contains "$(cat "$T/err")" "$2 belongs to" "$q: says whose it is"
        assert_contains "$(cat "$T/err")" "(uid $OTHER_UID), neither you nor root" "$q: names the owner"
        assert_contains "$(cat "$T/err")" "name it with -d " "$q: names the fix"
    done
}
# read WHERE [ENV...]: a query asked in WHERE answers from the trace.
read_ok() {
    where=$1; shift
    out=$(cd "$where" && env "$@" "$BUILDTRAIL" tree 2> "$T/err") || fail "tree in $where ($*): $(cat "$T/err")"
    assert_contains "$out" "echo x > made.txt" "tree in $where ($*)"
}

# Yours, in your directory, and a link of yours to it: read, with no word.
read_ok "$T/mine/sub"
ln -s "$T/mine/buildtrail.db" "$T/shared/newproj/buildtrail.db"
read_ok "$T/shared/newproj"
[ ! -s "$T/err" ] || fail "your own trace got a word: $(cat "$T/err")"
rm "$T/shared/newproj/buildtrail.db"

cp "$T/mine/buildtrail.db" "$T/shared/buildtrail.db"
chmod 644 "$T/shared/buildtrail.db" # (readable once it is theirs, for the reads on purpose)
if ! chown_other "$T/shared/buildtrail.db"; then
    missing_part "another user to plant a trace as (root, or subordinate uids in /etc/subuid)"
    exit 0
fi
# Another user's trace in a sticky shared directory, asked from a new project below it.
refused "$T/shared/newproj" "it"
assert_contains "$(cat "$T/err")" "found $T/shared/buildtrail.db, but it" "names the trace"
# ... read on purpose: -d, BUILDTRAIL_DB, BUILDTRAIL_SAFE_DIRS.
out=$(cd "$T/shared/newproj" && bt tree -d ../buildtrail.db) || fail "-d did not read it"
assert_contains "$out" "echo x > made.txt" "-d"
read_ok "$T/shared/newproj" BUILDTRAIL_DB="$T/shared/buildtrail.db"
read_ok "$T/shared/newproj" BUILDTRAIL_SAFE_DIRS="/nowhere:$T/shared/newproj/.."
read_ok "$T/shared/newproj" BUILDTRAIL_SAFE_DIRS="*"
if [ "$(id -u)" = 0 ]; then # root under sudo trusts the user who ran it, as git does
    read_ok "$T/shared/newproj" SUDO_UID="$OTHER_UID"
else
    refused_by_sudo=$(cd "$T/shared/newproj" && SUDO_UID="$OTHER_UID" bt info 2>&1) &&
        fail "SUDO_UID counted for a caller that is not root: $refused_by_sudo"
fi
out=$(cd "$T/shared/newproj" && BUILDTRAIL_SAFE_DIRS="$T/shared/newproj" bt tree 2>&1) &&
    fail "a safe directory below the trace's trusted it: $out"
rm -f "$T/shared/buildtrail.db" 2>/dev/null || fail "cannot remove the planted trace"

# A link named buildtrail.db that another user put there, to your own trace.
ln -s "$T/mine/buildtrail.db" "$T/shared/buildtrail.db"
chown_other "$T/shared/buildtrail.db"
refused "$T/shared/newproj" "the link"
rm "$T/shared/buildtrail.db"

# Your link, to a trace another user owns.
cp "$T/mine/buildtrail.db" "$T/theirs.db"
chmod 644 "$T/theirs.db"
chown_other "$T/theirs.db"
ln -s "$T/theirs.db" "$T/shared/buildtrail.db"
refused "$T/shared/newproj" "the file the link leads to"
rm "$T/shared/buildtrail.db"

# Your trace, in a directory another user owns (they can swap it for theirs at any moment).
mkdir -p "$T/their-dir/proj"
cp "$T/mine/buildtrail.db" "$T/their-dir/buildtrail.db"
chmod 777 "$T/their-dir"
chown_other "$T/their-dir"
refused "$T/their-dir/proj" "the directory holding it"
cd "$T"
assert_no_leftovers
