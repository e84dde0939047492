#!/bin/sh
# repro --bisect on the scenario project (repro.sh) under every variation: each differing
# artifact's cause is pinned to exactly the variation that triggers it (out/host.txt and
# out/libh.a to domain_host, out/cpus.txt to num_cpus, out/tz.txt to timezone, out/modes.tar to
# umask, out/where.txt to build_path, out/order.txt and out/order.tar to fileordering,
# out/sorted.txt to locales, out/uid.txt to user_group, out/home.txt to home, out/env.txt to
# environment), in fewer builds than two per variation; the constant out/const.txt is never
# reported; every bisect build's copy and trace is kept.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/repro.sh"
require_fuse
require_cmd cc
require_cmd make
repro_second_locale
repro_scenario "$T/proj"
cd "$T/proj"
set +e; out=$(bt repro --bisect -o "$T/out" -- make -s 2>"$T/err"); st=$?; set -e
[ "$st" = 1 ] || fail "exit $st: $out $(cat "$T/err")"
varied=$(printf '%s\n' "$out" | sed -n 's/^varied: //p')
pinned() { # ARTIFACT VARIATION
    case ", $varied," in *", $2,"*) ;; *) missing_part "$1: $2 cannot be varied here"; return 0 ;; esac
    b=$(block "$out" "$1")
    printf '%s\n' "$b" | grep -qx "        pinned by --bisect to: $2" || fail "$1 pinned to $2: $b"
}
pinned out/host.txt domain_host
pinned out/libh.a domain_host
pinned out/cpus.txt num_cpus
pinned out/tz.txt timezone
pinned out/modes.tar umask
pinned out/where.txt build_path
pinned out/order.txt fileordering
pinned out/order.tar fileordering
pinned out/sorted.txt locales
pinned out/uid.txt user_group
pinned out/home.txt home
pinned out/env.txt environment
case "$out" in *out/const.txt*) fail "the constant output reported: $out" ;; esac
n=$(printf '%s\n' "$out" | sed -n 's/^bisect: \([0-9]*\) more builds*$/\1/p')
v=$(printf '%s\n' "$varied" | tr ',' '\n' | wc -l)
[ -n "$n" ] && [ "$n" -lt $((2 * v + 2)) ] || fail "bisect builds: $n for $v variations: $out"
[ "$(ls -d "$T"/out/bisect-*.db | wc -l)" = "$n" ] || fail "every bisect trace kept: $(ls "$T/out")"
assert_no_leftovers
