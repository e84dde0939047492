#!/bin/sh
# Where reprotest and `buildtrail repro` mean something else by a variation, as docs/repro.md
# ("Agreement with reprotest") says, and nowhere else: with two more outputs in this test's
# copy of the scenario, $HOME and `id -u`, reprotest's build_path alone changes $HOME (its
# HOME is its build tree when home is not varied) and, for a caller other than root, its
# domain_host changes the uid (without sudo it runs the build under `unshare -r`, as uid 0);
# buildtrail's change neither.  Every other output agrees; home varies $HOME under both.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
. "$(dirname "$0")/reprotest.sh"
reprotest_require
repro_scenario "$T/proj"
cat >> "$T/proj/Makefile" <<'MK'
all: out/rt-home.txt out/rt-uid.txt
out/rt-home.txt: | out
	echo "$$HOME" > $@
out/rt-uid.txt: | out
	id -u > $@
MK
cd "$T/proj"
reprotest_run build_path domain_host home
for s in build_path domain_host home; do bt_run "$s"; done
reprotest_agree build_path domain_host home
expected="build_path out/rt-home.txt: home follows reprotest's build path"
[ "$(id -u)" = 0 ] || expected="$expected
domain_host out/rt-uid.txt: reprotest's domain_host runs the build as uid 0 (unshare -r)"
# (the scenario's own outputs may hold $HOME or the uid too: t9055 checks those)
assert_eq "$(grep ' out/rt-' "$T/explained" || true)" "$expected" "the differences explained"
# home: $HOME differs under both
assert_eq "$(rt_verdict experiment-4 out/rt-home.txt) $(bt_verdict home out/rt-home.txt)" "differs differs" "home"
# an explanation holds only where the contents show it: not for an output without $HOME
[ -z "$(rt_explained build_path experiment-2 out/const.txt)" ] || fail "out/const.txt explained"
[ -z "$(rt_explained domain_host experiment-3 out/host.txt)" ] || fail "out/host.txt explained"
assert_no_leftovers
