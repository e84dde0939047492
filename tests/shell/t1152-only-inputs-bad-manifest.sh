#!/bin/sh
# run --only-inputs with a manifest that cannot be used — missing, unreadable, a FIFO (never
# opened for long: no hang), a directory, a line that does not parse — fails before anything
# runs: one line naming the manifest (and the line), exit 2, no trace written, the command
# never started.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
echo ok > GOOD
mkfifo FIFO
mkdir ADIR
printf 'a.c\n0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n' > BAD
check() { # MANIFEST WANT
    one_line_error timeout 20 "$BUILDTRAIL" run -o "$T/t.db" --only-inputs GOOD --only-inputs "$1" -- touch "$T/ran"
    assert_eq "$st" 2 "exit status for $1"
    assert_contains "$e" "--only-inputs $1: $2" "the error for $1"
    [ ! -e "$T/ran" ] || fail "the command ran with manifest $1"
    [ ! -e "$T/t.db" ] || fail "a trace was written with manifest $1"
}
check NOPE "No such file or directory"
check FIFO "a FIFO"
check ADIR "a directory"
check BAD "line 2: a SHA-256 with no path after it"
if [ "$(id -u)" != 0 ]; then
    echo x > SHUT && chmod 000 SHUT
    check SHUT "Permission denied"
fi
assert_no_leftovers
