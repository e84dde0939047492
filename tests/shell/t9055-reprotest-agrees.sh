#!/bin/sh
# reprotest (the Debian package, its null backend) and `buildtrail repro --json` on the same
# scenario (repro.sh: one output per variation, one constant output; every out/* it makes) agree
# on whether each output differs, variation by variation and for every variation at once:
# reprotest's own artifacts (--store-dir) compared with cmp, buildtrail's verdict from its
# document (and its two copies, which must say the same).  Left out: time (buildtrail never
# varies it; reprotest would need faketime) and user_group (reprotest needs sudo and a second
# user).  A disagreement fails the test, but for the two docs/repro.md explains (reprotest's
# build_path moves $HOME; its domain_host without sudo runs the build as uid 0), each
# accepted only when the output's contents show it (reprotest.sh, rt_explained).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
. "$(dirname "$0")/reprotest.sh"
reprotest_require
repro_scenario "$T/proj"
cd "$T/proj"
sets="$RT_VARIATIONS all"
# shellcheck disable=SC2086
reprotest_run $sets
for s in $sets; do bt_run "$s"; done
# shellcheck disable=SC2086
reprotest_agree $sets
# the comparison is not vacuous: each tool found differences under each set that varies one
# of the scenario's outputs (where buildtrail could vary it here)
for s in umask fileordering domain_host timezone build_path all; do
    grep -q '^differs ' "$T/bt-$s.states" || fail "buildtrail found no output differing under $s"
done
if [ ! -s "$T/bt-num_cpus.nv" ]; then grep -q '^differs ' "$T/bt-num_cpus.states" || fail "num_cpus varied nothing"; fi
if [ ! -s "$T/bt-locales.nv" ]; then grep -q '^differs ' "$T/bt-locales.states" || fail "locales varied nothing"; fi
say "explained: $(tr '\n' ";" < "$T/explained")"
if grep -F "$T/" /proc/self/mountinfo | grep -q disorderfs; then fail "reprotest left a disorderfs mount"; fi
assert_no_leftovers
