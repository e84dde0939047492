#!/bin/sh
# store uses PACKAGE=VERSION compares Debian versions as dpkg does (an epoch written 01: is
# epoch 1, no epoch is epoch 0, 1.2.013 is 1.2.13), not as strings: the same version written
# otherwise finds the same builds, another version none.
. "$(dirname "$0")/lib.sh"
store_with_zlib_static
bt store push -d "$T/static.db" --name static >/dev/null || fail "push"
ver=$(dpkg-query -W -f '${Version}' zlib1g-dev)
case $ver in *:*) same="0$ver" ;; *) same="0:$ver" ;; esac
dpkg --compare-versions "$same" eq "$ver" || fail "test: $same is not $ver for dpkg"
assert_contains "$(bt store uses "zlib1g-dev=$ver")" "its code is in 1 of 1 builds" "uses with the version as stored"
assert_contains "$(bt store uses "zlib1g-dev=$same")" "its code is in 1 of 1 builds" "uses $same"
other="${ver}.1"
set +e
out=$(bt store uses "zlib1g-dev=$other")
st=$?
set -e
assert_eq "$st" 1 "uses of another version"
assert_contains "$out" "its code is in 0 of 1 builds" "uses $other"
