#!/bin/sh
# -o never replaces or writes what the kernel would not let the caller write: in a sticky
# world-writable directory (as /tmp), a link, FIFO or file another user put there is refused
# (the rule of fs.protected_symlinks, kept by buildtrail whatever the sysctl says), so root
# exporting to /tmp/sbom.json, a link another user planted there, does not replace the link's
# root-owned target; a link of yours there is followed as before; a link of yours that leads
# through theirs is refused too.  (t1002: what -o does with links, FIFOs and devices of yours.)
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" "$T/sticky" && chmod 1777 "$T/sticky"
cd "$T/ws"
bt run -q -- sh -c 'echo x > a.o'
bt export --format dot -o expected.dot
say "fs.protected_symlinks=$(cat /proc/sys/fs/protected_symlinks 2>/dev/null || echo '?') (the refusals below are buildtrail's own: they hold whatever it says)"

# refused PATH WHY: export -o PATH fails in one line, saying WHY.
refused() {
    set +e
    timeout 20 "$BUILDTRAIL" export --format dot -o "$1" > "$T/out" 2> "$T/err"; st=$?
    set -e
    [ "$st" = 1 ] || fail "export -o $1 ($2): exit $st, not 1: $(cat "$T/err")"
    [ "$(wc -l < "$T/err")" = 1 ] || fail "export -o $1 ($2): not one line: $(cat "$T/err")"
    assert_contains "$(cat "$T/err")" "cannot write $1: it is, or goes through, another user's link, file or FIFO in a sticky directory" "export -o $1 ($2)"
    [ ! -s "$T/out" ] || fail "export -o $1 ($2) wrote standard output"
}

# Yours: a link of yours in the sticky directory is followed, its target replaced, the link kept.
echo old > "$T/mine.dot"
ln -s "$T/mine.dot" "$T/sticky/own.dot"
bt export --format dot -o "$T/sticky/own.dot"
[ -L "$T/sticky/own.dot" ] || fail "-o replaced your own link"
cmp -s "$T/mine.dot" expected.dot || fail "your own link's target was not written"

# Theirs.
echo precious > "$T/victim" # (root's, in the root variant)
ln -s "$T/victim" "$T/sticky/sbom.dot"
ln -s "$T/sticky/made-through-link" "$T/sticky/new.dot"
echo theirs > "$T/sticky/file.dot"
mkfifo "$T/sticky/pipe"
if ! chown_other "$T/sticky/sbom.dot" "$T/sticky/new.dot" "$T/sticky/file.dot" "$T/sticky/pipe"; then
    missing_part "another user to plant links as (root, or subordinate uids in /etc/subuid)"
    assert_no_leftovers
    exit 0
fi
refused "$T/sticky/sbom.dot" "their link to your file"
assert_eq "$(cat "$T/victim")" precious "the target of their link"
[ -L "$T/sticky/sbom.dot" ] || fail "their link was replaced"
refused "$T/sticky/new.dot" "their dangling link"
[ ! -e "$T/sticky/made-through-link" ] || fail "a file was made through their dangling link"
refused "$T/sticky/file.dot" "their regular file"
assert_eq "$(cat "$T/sticky/file.dot")" theirs "their file"
refused "$T/sticky/pipe" "their FIFO (a reader of it would get the document)"
[ -p "$T/sticky/pipe" ] || fail "their FIFO was replaced"
# A link of yours that leads through theirs, and a path through it.
ln -s "$T/sticky/sbom.dot" "$T/ws/via.dot"
refused "$T/ws/via.dot" "your link through theirs"
assert_eq "$(cat "$T/victim")" precious "the target of their link, reached through yours"
[ -L "$T/ws/via.dot" ] || fail "your link through theirs was replaced"
# The same through copies --index -o (every -o is the same code).
mkdir "$T/src" && echo 'int x;' > "$T/src/a.c"
set +e; bt copies --index "$T/src" -o "$T/sticky/sbom.dot" 2> "$T/err"; st=$?; set -e
[ "$st" = 1 ] || fail "copies --index -o their link: exit $st: $(cat "$T/err")"
assert_eq "$(cat "$T/victim")" precious "the target of their link, by copies -o"
ls "$T/sticky" | grep -v '^\(own\|sbom\|new\|file\)\.dot$\|^pipe$' && fail "a temporary file was left in $T/sticky"
assert_no_leftovers
