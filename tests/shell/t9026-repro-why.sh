#!/bin/sh
# repro on the scenario project (repro.sh: one output per variation, one constant) under every
# variation: exit 1; each artifact that differs is named, with its OWN cause (the process that
# made the difference: hostname for out/host.txt, nproc for out/cpus.txt, date for out/tz.txt,
# tar for out/modes.tar, the shell running pwd for out/where.txt, cat after `ls -f` for
# out/order.txt, id for out/uid.txt, the shells echoing $HOME and reprotest's extra variable for
# out/home.txt and out/env.txt) and the variations that may explain it from what that process did; the
# constant output is not reported; in a tar or a static library, the member that differs is
# named (t/x's mode, h.o's content, the members' order).  A variation this machine cannot make (one CPU, no second
# locale) is said as not varied, and its output is then not expected to differ.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
require_cmd cc
require_cmd make
repro_second_locale
repro_scenario "$T/proj"
cd "$T/proj"
set +e; out=$(bt repro -o "$T/out" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 1 ] || fail "exit $st: $out $(cat "$T/err")"
printf '%s\n' "$out" | head -1 | grep -q '^not reproducible: [0-9]* of [0-9]* artifacts differ' || fail "the verdict: $out"
printf '%s\n' "$out" | grep -q 'out/const.txt' && fail "the constant output reported: $out"
varied=$(printf '%s\n' "$out" | sed -n 's/^varied: //p')
# check ARTIFACT VARIATION PROCESS-PATTERN: its block names the process and the variation
check() {
    case ", $varied," in *", $2,"*) ;; *)
        assert_contains "$out" "not varied: $2" "$2 said as not varied"
        missing_part "$1: $2 cannot be varied here"; return 0 ;;
    esac
    b=$(block "$out" "$1")
    [ -n "$b" ] || fail "$1 not reported as differing: $out"
    printf '%s\n' "$b" | grep -Eq "in the experiment: \[[0-9]+\] $3" || fail "$1's own process ($3): $b"
    printf '%s\n' "$b" | grep -q "may be explained by: .*$2" || fail "$1 may be explained by $2: $b"
}
check out/host.txt domain_host 'hostname$'
check out/cpus.txt num_cpus 'nproc$'
check out/tz.txt timezone "date -d @0 \\+%H$"
check out/modes.tar umask "tar --sort=name"
check out/where.txt build_path "/bin/sh -c 'pwd > out/where.txt'"
check out/order.txt fileordering 'cat d/'
check out/order.tar fileordering 'tar --mtime'
check out/libh.a domain_host '/bin/sh -c .*hostname'
check out/sorted.txt locales 'sort$'
check out/uid.txt user_group 'id -u$'
check out/home.txt home "/bin/sh -c 'echo \"\\\$HOME\" > out/home.txt'"
check out/env.txt environment "/bin/sh -c 'echo \"\\\$REPROTEST_CAPTURE_ENVIRONMENT\" > out/env.txt'"
# archives compared member by member: the member that differs is named, and how
member() { # ARTIFACT LINE-PATTERN
    printf '%s\n' "$(block "$out" "$1")" | grep -Eq "^    $2" || fail "$1: $2: $(block "$out" "$1")"
}
member out/modes.tar 'member t/x: mode 0644 / 0664$'
member out/libh.a 'member h.o: content$'
member out/order.tar 'members in another order: d/'
# the hints are each cause's own: hostname's block does not offer num_cpus, nproc's not domain_host
printf '%s\n' "$(block "$out" out/host.txt)" | grep -q 'may be explained by: .*num_cpus' && fail "host.txt: $out"
printf '%s\n' "$(block "$out" out/cpus.txt)" | grep -q 'may be explained by: .*domain_host' && fail "cpus.txt: $out"
assert_no_leftovers
