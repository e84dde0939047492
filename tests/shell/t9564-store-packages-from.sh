#!/bin/sh
# store push names Debian packages from the pushing machine's dpkg database (the trace does not
# record them): the stored build says which machine's and which database, in show and
# show --json.
. "$(dirname "$0")/lib.sh"
store_with_build
bt store init >/dev/null
[ -d /var/lib/dpkg ] || missing "a dpkg database (/var/lib/dpkg)"
bt store push >/dev/null || fail "push"
host=$(hostname)
assert_contains "$(bt store show 1)" "packages named by the dpkg database of $host:/var/lib/dpkg (where it was pushed)" "show"
bt store show --json 1 | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["builds"][0]["packages_from"] == sys.argv[1] + ":/var/lib/dpkg", d' "$host" ||
    fail "show --json packages_from"
