#!/bin/sh
# diff says how an argv changed readably: one flag that became another is "-O2 → -O1";
# several, "removed W..., added W..."; never "--O2 +-O1".
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd python3
mkdir "$T/src" && cd "$T/src"
printf 'int f(int x) { return x * 3; }\n' > f.c
build() { # build NAME CC-ARGS...: a copy of src at $T/NAME, traced into $T/NAME.db
    name=$1; shift
    cp -r "$T/src" "$T/$name"
    (cd "$T/$name" && bt run -q -o "$T/$name.db" -- cc "$@" -c f.c -o f.o) || fail "build $name"
}
build o2 -O2
build o1 -O1
build o1g -O1 -g -fno-inline
set +e; out=$(bt diff "$T/o2.db" "$T/o1.db"); st=$?; set -e
[ "$st" = 1 ] || fail "-O2 vs -O1: exit $st: $out"
assert_contains "$out" "-O2 → -O1" "one flag for another"
! printf '%s\n' "$out" | grep -qF -- "--O2" || fail "the old form: $out"
set +e; out=$(bt diff "$T/o2.db" "$T/o1g.db"); st=$?; set -e
assert_contains "$out" "removed -O2, added -O1 -g -fno-inline" "several"
set +e; out=$(bt diff "$T/o1g.db" "$T/o1.db"); st=$?; set -e
assert_contains "$out" "removed -g -fno-inline" "removed only"
! printf '%s\n' "$out" | grep -q "added" || fail "nothing was added: $out"
bt diff --json "$T/o2.db" "$T/o1.db" | python3 -c '
import json, sys
c = json.load(sys.stdin)["root_causes"]
assert any(x["kind"] == "argv" and x["detail"].startswith("-O2 \u2192 -O1") for x in c), c
' || fail "--json detail"
cd "$T"
assert_no_leftovers
