#!/bin/sh
# licenses --deny cannot judge an incorporated file of unknown license (no notice, or a
# source edited since the build): it says so on stderr, naming one and the count, and exits
# 0 as before; --deny-unknown denies them (exit 1, each named), alone or with --deny, and
# passes a program whose every incorporated file has a known license.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
mkdir -p "$T/ws" && cd "$T/ws"
printf '/* SPDX-License-Identifier: MIT */\nint known(void) { return 1; }\n' > known.c
printf 'int mystery(void) { return 2; }\n' > mystery.c
printf '/* SPDX-License-Identifier: MIT */\nint known(void);\nint mystery(void);\nint main(void) { return known() + mystery(); }\n' > m.c
printf '/* SPDX-License-Identifier: MIT */\nint known(void);\nint main(void) { return known(); }\n' > k.c
bt run -q -- sh -c 'cc -o prog m.c known.c mystery.c && cc -o clean k.c known.c'

st=0; bt licenses --deny 'GPL-*' prog > /dev/null 2> "$T/err" || st=$?
[ "$st" = 0 ] || fail "--deny 'GPL-*' with nothing GPL: exit $st, $(cat "$T/err")"
assert_eq "$(cat "$T/err")" "buildtrail licenses: not checked against --deny: 1 incorporated file of unknown license ($T/ws/mystery.c); --deny-unknown denies them" "the unknown file is said"

st=0; bt licenses --deny 'GPL-*' --deny-unknown prog > /dev/null 2> "$T/err" || st=$?
[ "$st" = 1 ] || fail "--deny-unknown: exit $st, not 1"
assert_eq "$(cat "$T/err")" "buildtrail licenses: denied: $T/ws/mystery.c is of unknown license (--deny-unknown)" "denied, named"
st=0; bt licenses --deny-unknown prog > /dev/null 2>&1 || st=$?
[ "$st" = 1 ] || fail "--deny-unknown alone: exit $st, not 1"

st=0; bt licenses --deny-unknown clean > /dev/null 2> "$T/err" || st=$?
[ "$st" = 0 ] && [ ! -s "$T/err" ] || fail "--deny-unknown on a program of known licenses: exit $st, $(cat "$T/err")"
# a source edited since the build is of unknown license too
printf '/* SPDX-License-Identifier: MIT */\nint known(void) { return 3; }\n' > known.c
st=0; bt licenses --deny-unknown clean > /dev/null 2> "$T/err" || st=$?
[ "$st" = 1 ] || fail "--deny-unknown with a source edited since the build: exit $st"
assert_contains "$(cat "$T/err")" "denied: $T/ws/known.c is of unknown license" "the edited source"
assert_no_leftovers
