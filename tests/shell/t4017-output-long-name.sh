#!/bin/sh
# -o takes any name the filesystem takes, up to NAME_MAX (255 bytes), as a shell redirection
# would: the temporary file beside it (replaced atomically) has a name short enough too, and
# none is left.  (Once a name of 249 bytes or more failed with "File name too long".)
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
bt run -q -- sh -c 'echo x > a.o'
for len in 248 249 251 255; do
    name=$(head -c "$((len - 4))" /dev/zero | tr '\0' n).dot
    : > "$T/probe" && mv "$T/probe" "$name" 2>/dev/null || { rm -f "$T/probe"; continue; }
    rm "$name"
    bt export --format dot -o "$name" || fail "-o a name of $len bytes"
    grep -q digraph "$name" || fail "the $len-byte name has no export"
    echo old > "$name"
    bt export --format dot -o "$name" || fail "-o over a file with a name of $len bytes"
    grep -q digraph "$name" || fail "the $len-byte file was not replaced"
    rm "$name"
done
[ "$(ls -A | sort | tr '\n' ' ')" = "a.o buildtrail.db " ] || fail "left behind: $(ls -A)"
assert_no_leftovers
