#!/bin/sh
# repro on a deterministic project under every variation (--vary all): exit 0, "reproducible"
# with every artifact identical (nothing of buildtrail's own variation machinery leaks into the
# outputs), and both copies, traces and logs kept under -o DIR, each copy in its own parent.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
require_cmd cc
require_cmd make
repro_deterministic "$T/proj"
cd "$T/proj"
set +e; out=$(bt repro --vary all -o "$T/out" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 0 ] || fail "exit $st: $out $(cat "$T/err")"
assert_contains "$out" "reproducible: " "the verdict"
printf '%s\n' "$out" | head -1 | grep -q '^reproducible: [0-9]* artifacts identical$' || fail "verdict first: $out"
assert_contains "$out" "artifacts: " "the counts"
printf '%s\n' "$out" | grep -q '^artifacts: [1-9][0-9]* identical, 0 differ, 0 only in control, 0 only in experiment$' ||
    fail "every artifact identical: $out"
assert_contains "$out" "varied: " "what was varied"
assert_contains "$(cat "$T/err")" "$T/out" "the directory said on stderr"
for s in control experiment; do
    [ -f "$T/out/$s/proj/libab.a" ] || fail "the $s copy and its products are kept"
    [ -f "$T/out/$s.db" ] || fail "the $s trace is kept"
    [ -f "$T/out/$s.log" ] || fail "the $s log is kept"
    bt -d "$T/out/$s.db" info >/dev/null || fail "the $s trace reads"
done
# the experiment was built at another path (build_path), of another length
exp=$(printf '%s\n' "$out" | sed -n 's/^experiment: .*built at \(.*\))$/\1/p')
ctl=$(printf '%s\n' "$out" | sed -n 's/^control: .*built at \(.*\))$/\1/p')
[ -n "$exp" ] && [ "$exp" != "$ctl" ] && [ "${#exp}" != "${#ctl}" ] || fail "another path: $ctl / $exp"
# the copy preserves modes, links and times
ln -s src/a.c "$T/proj/link"
chmod 751 "$T/proj/src"
touch -d @1000000000 "$T/proj/src/b.c"
bt repro --vary build_path --private-tmp --env-redact SECRETISH -o "$T/out2" -- make -s >/dev/null 2>&1 || fail "second run"
# run's options are passed on to both builds
for s in control experiment; do
    bt -d "$T/out2/$s.db" info | grep -q '^options: .*--private-tmp --env-redact SECRETISH' ||
        fail "the $s build's options: $(bt -d "$T/out2/$s.db" info | grep options)"
done
c="$T/out2/control/proj"
[ "$(readlink "$c/link")" = src/a.c ] || fail "the link copied as a link"
[ "$(stat -c %a "$c/src")" = 751 ] || fail "the mode copied"
[ "$(stat -c %Y "$c/src/b.c")" = 1000000000 ] || fail "the mtime copied"
assert_no_leftovers
