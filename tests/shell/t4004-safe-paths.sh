#!/bin/sh
# File names with a newline or bytes that are not UTF-8 cannot break a line of text output,
# and come back exactly from --json (non-UTF-8 bytes as \udcXX, Python's surrogateescape).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
bt run -- sh -c 'printf x > "$(printf "new\nline")"; printf y > "$(printf "bad\377byte")"'
out=$(bt who-wrote "$(printf 'new\nline')")
assert_eq "$(printf '%s\n' "$out" | sed -n 1p)" "$T/ws/new\\nline" "escaped newline"
out=$(bt who-wrote "$(printf 'bad\377byte')")
assert_eq "$(printf '%s\n' "$out" | sed -n 1p)" "$T/ws/bad\\xffbyte" "escaped byte"
bt who-wrote --json "$(printf 'bad\377byte')" | python3 -c '
import json, sys, os
doc = json.loads(sys.stdin.buffer.read().decode())["paths"]
p = doc[0]["path"].encode("utf-8", "surrogateescape")
assert p.endswith(b"/bad\xffbyte"), p
'
assert_no_leftovers
