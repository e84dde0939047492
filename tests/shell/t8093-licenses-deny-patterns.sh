#!/bin/sh
# licenses --deny reads patterns as people write them: SPDX ids without regard to case
# ('gpl-*' denies GPL-3.0-or-later), spaces after the commas ('MIT, GPL-*'); patterns that are
# all empty (--deny ',') are a usage error, never a gate that passes everything.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
mkdir -p "$T/ws" && cd "$T/ws"
printf '/* SPDX-License-Identifier: GPL-3.0-or-later */\nint main(void) { return 0; }\n' > m.c
bt run -q -- cc -o prog m.c
st=0; bt licenses --deny 'GPL-*' prog > /dev/null 2>&1 || st=$?
[ "$st" = 1 ] || fail "--deny 'GPL-*': exit $st, not 1"
st=0; bt licenses --deny 'gpl-*' prog > /dev/null 2>&1 || st=$?
[ "$st" = 1 ] || fail "--deny 'gpl-*' (another case): exit $st, not 1"
st=0; bt licenses --deny 'MIT, GPL-*' prog > /dev/null 2>&1 || st=$?
[ "$st" = 1 ] || fail "--deny 'MIT, GPL-*' (a space after the comma): exit $st, not 1"
st=0; bt licenses --deny 'MIT,Apache-*' prog > /dev/null 2>&1 || st=$?
[ "$st" = 0 ] || fail "--deny 'MIT,Apache-*' denied GPL-3.0-or-later: exit $st"
st=0; bt licenses --deny ' , ' prog > /dev/null 2> "$T/err" || st=$?
[ "$st" = 2 ] || fail "--deny ' , ': exit $st, not 2"
assert_contains "$(cat "$T/err")" "names no license pattern" "--deny with no pattern says so"
[ "$(wc -l < "$T/err")" = 1 ] || fail "not one line: $(cat "$T/err")"
assert_no_leftovers
