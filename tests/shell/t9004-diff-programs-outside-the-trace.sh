#!/bin/sh
# diff on a program found in a system tree (/usr/local, which a default run does not trace):
# - the same path, other content, default mode: the cause cannot be told from the clock, and
#   diff says so: "or the program it ran, PATH, not traced here, differs (--system traces it)";
# - the same with --system: the program's content is the root cause (input);
# - found at another place on the same PATH (a program that exists in one build only): the
#   executable is the root cause, naming both.
# Root only: each build runs in a private mount namespace with its own /usr/local.
. "$(dirname "$0")/lib.sh"
require_fuse
[ "$(id -u)" = 0 ] || skip "needs root to mount its own /usr/local"
require_cmd unshare
require_cmd cc
[ -d /usr/local ] || skip "no /usr/local to mount over"
mkdir "$T/bin"
for n in 1 2; do
    printf '#include <stdio.h>\nint main(void) { puts("made by %s"); return 0; }\n' "$n" > "$T/gen$n.c"
    cc -o "$T/bin/gen$n" "$T/gen$n.c" || fail "compile gen$n"
done
# build NAME "DIR=PROGRAM ..." [RUN-OPTION]: NAME's build, with /usr/local/DIR/gen = PROGRAM.
build() {
    name=$1 progs=$2; shift 2
    mkdir "$T/$name"
    unshare -m --propagation private sh -ec '
        T=$1 name=$2 progs=$3 bt=$4; shift 4
        mount -t tmpfs bt-test /usr/local
        for p in $progs; do
            mkdir -p "/usr/local/${p%%=*}"
            cp "$T/bin/${p#*=}" "/usr/local/${p%%=*}/gen"
        done
        cd "$T/$name"
        "$bt" run -q -o "$T/$name.db" "$@" -- \
            env PATH=/usr/local/bta:/usr/local/btb:/usr/bin:/bin sh -c "gen > made.txt"
    ' sh "$T" "$name" "$progs" "$BUILDTRAIL" "$@" || fail "build $name"
}
build one "bta=gen1"
build two "bta=gen2"
set +e; out=$(bt diff "$T/one.db" "$T/two.db"); st=$?; set -e
[ "$st" = 1 ] || fail "default mode: exit $st: $out"
assert_contains "$out" "root cause 1: nondeterminism: made.txt" "default mode"
assert_contains "$out" "or the program it ran, /usr/local/bta/gen, not traced here, differs (--system traces it)" \
    "the program not traced"

build three "bta=gen1" --system
build four "bta=gen2" --system
set +e; out=$(bt diff "$T/three.db" "$T/four.db"); st=$?; set -e
[ "$st" = 1 ] || fail "--system: exit $st: $out"
assert_contains "$out" "root cause 1: input: /usr/local/bta/gen" "--system: the program's content"
[ "$(printf '%s\n' "$out" | grep -c '^root cause')" = 1 ] || fail "--system: one root cause: $out"
case $out in *nondeterminism*) fail "--system: still non-determinism: $out" ;; esac

build five "bta=gen1 btb=gen2"
build six "btb=gen2"
set +e; out=$(bt diff "$T/five.db" "$T/six.db"); st=$?; set -e
[ "$st" = 1 ] || fail "another program: exit $st: $out"
assert_contains "$out" "root cause 1: executable: made.txt" "the executable"
assert_contains "$out" "run as /usr/local/bta/gen in A and /usr/local/btb/gen in B" "both programs"
assert_no_leftovers
