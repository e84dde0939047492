#!/bin/sh
# run refuses a standard input that is a directory: the build inherits it, and through
# /proc/self/fd/0 it reached the real directory beneath the FUSE mounts, where it read and
# listed every file --only-inputs hides, untraced (a wrapper's `exec 0<"$dir"`).  A build has
# no use for it (reading it is EISDIR): one line names it and the fix.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
echo SECRET > hidden
echo ok > M
out=$(bt run -q -o "$T/t.db" --only-inputs M -- sh -c 'cat /proc/self/fd/0/hidden' < . 2>&1) &&
    fail "a build with a directory as standard input ran: $out"
case $out in *SECRET*) fail "the build read a hidden file through its standard input: $out" ;; esac
assert_contains "$out" "standard input" "the refusal names it"
# A file as standard input is the caller's to give.
out=$(echo hello | bt run -q -o "$T/f.db" -- cat 2>&1) || fail "a pipe as standard input: $out"
assert_contains "$out" hello "the build read its standard input"
assert_no_leftovers
