#!/bin/sh
# The main help's example is a block of its own: "Example:" then the command indented (which
# docs/man/mkman.sh keeps as it is), so that buildtrail(1) does not run it into the next
# sentence when it fills paragraphs.
. "$(dirname "$0")/lib.sh"
help=$(bt --help)
printf '%s\n' "$help" | grep -qx 'Example:' || fail "no 'Example:' line of its own: $help"
printf '%s\n' "$help" | grep -A1 -x 'Example:' | tail -1 | grep -q '^  buildtrail run -- make' ||
    fail "the example is not an indented line after 'Example:': $help"
[ -n "${BUILD_DIR:-}" ] || { assert_no_leftovers; exit 0; } # the page: once, in the root variant
page=$BUILD_DIR/man/buildtrail.1
[ -f "$page" ] || missing "the man page $page (the build's man target)"
# In the page: a subsection, then the command between .nf and .fi.
awk '/^\.SS Example$/ { s = 1; next } s == 1 && /^\.nf$/ { s = 2; next }
     s == 2 { if ($0 ~ /buildtrail run \\-\\- make/) ok = 1; exit }
     END { exit !ok }' "$page" || fail "the example is not set apart in $page: $(grep -n -A3 Example "$page")"
if command -v man >/dev/null 2>&1; then
    shown=$(MANWIDTH=80 man -l "$page" 2>/dev/null | col -b)
    line=$(printf '%s\n' "$shown" | grep 'buildtrail run -- make -j2')
    case $line in *"'buildtrail help"*|*"Example:"*) fail "the example runs into other text: $line" ;; esac
fi
assert_no_leftovers
