#!/bin/sh
# run --system --only-packages @debian/control: a build that includes <zlib.h> when it is
# there, with zlib1g-dev installed but not declared, does not find it (/usr/include/zlib.h
# looks absent: the build takes its fallback), and the header is still there afterwards; with
# zlib1g-dev declared (its clause's build profile active, named in a list, or in a .dsc) it is
# found.
# The denial is recorded with the package and the compiler that looked: packages --denied
# (text, JSON), files --denied, show, verify, the summary line.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd dpkg-query
require_zlib_dev
sum_before=$(sha256sum /usr/include/zlib.h)
mkdir -p "$T/ws/debian" && cd "$T/ws"
cat > debian/control <<'CONTROL'
Source: ztest
Build-Depends: libc6-dev,
 zlib1g-dev <pkg.ztest.zlib>,
 libssl-dev [!linux-any]

Package: ztest
Architecture: any
CONTROL
cat > z.c <<'C'
#include <stdio.h>
#if __has_include(<zlib.h>)
#include <zlib.h>
#define HAVE_ZLIB 1
#endif
int main(void)
{
#ifdef HAVE_ZLIB
    puts("built with zlib");
#else
    puts("built without zlib");
#endif
    return 0;
}
C
build='cc -o z z.c && ./z'
bt run -o "$T/no.db" --system --only-packages @debian/control -- sh -c "$build" > "$T/no.out" 2> "$T/no.err" ||
    fail "the restricted build: $(cat "$T/no.err")"
assert_contains "$(cat "$T/no.out")" "built without zlib" "zlib.h absent to the build"
assert_eq "$(sha256sum /usr/include/zlib.h)" "$sum_before" "zlib.h untouched"
grep -Eq "; [0-9]+ files? hidden of [0-9]+ packages? not allowed \('buildtrail packages --denied'\)$" "$T/no.err" ||
    fail "the summary line: $(cat "$T/no.err")"
out=$(bt packages -d "$T/no.db" --denied)
printf '%s\n' "$out" | grep -q '^zlib1g-dev: 1 file hidden, looked for by [0-9]* cc1' || fail "packages --denied: $out"
assert_contains "$out" "
  /usr/include/zlib.h" "the file under its package"
bt packages -d "$T/no.db" --denied --json > "$T/p.json" || fail "packages --denied --json"
python3 - "$T/p.json" <<'PY' || fail "packages --denied --json: $(cat "$T/p.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["denials_recorded"] is True
z = [p for p in d["denied"] if p["package"] == "zlib1g-dev"]
assert len(z) == 1 and z[0]["files"] == ["/usr/include/zlib.h"], d
assert z[0]["processes"] and all(isinstance(i, int) for i in z[0]["processes"]), z
PY
out=$(bt files -d "$T/no.db" --denied)
assert_contains "$out" "/usr/include/zlib.h: package zlib1g-dev not allowed; looked up by" "files --denied"
cc1=$(bt files -d "$T/no.db" --denied --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
z = [f for f in d["denied"] if f["path"] == "/usr/include/zlib.h"][0]
assert z["reason"] == "package-not-allowed" and z["package"] == "zlib1g-dev", z
print(z["processes"][0]["process"])') || fail "files --denied --json"
assert_contains "$(bt show -d "$T/no.db" "$cc1")" "/usr/include/zlib.h (package zlib1g-dev not allowed; looked up)" "show"
echo z.c > M
set +e; out=$(bt verify -d "$T/no.db" --inputs M); st=$?; set -e
assert_eq "$st" 1 "verify's verdict"
assert_contains "$out" "/usr/include/zlib.h  (of package zlib1g-dev, not allowed)" "verify"
# the SQL export names the reason, as files --denied does (it said '2')
bt export -d "$T/no.db" --format sql | grep -q "'package-not-allowed'" ||
    fail "export --format sql: no 'package-not-allowed' denial"
# Declared: through the clause's build profile, or named.
DEB_BUILD_PROFILES=pkg.ztest.zlib bt run -q -o "$T/yes.db" --system --only-packages @debian/control -- sh -c "$build" > "$T/yes.out" ||
    fail "the build with zlib1g-dev declared"
assert_contains "$(cat "$T/yes.out")" "built with zlib" "zlib.h there when declared"
bt run -q -o "$T/named.db" --system --only-packages 'libc6-dev zlib1g-dev' -- sh -c "$build" > "$T/named.out" ||
    fail "the build with zlib1g-dev named"
assert_contains "$(cat "$T/named.out")" "built with zlib" "zlib.h there when named"
# A signed .dsc: the stanza after the signature's header.
printf -- '-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA512\n\nFormat: 3.0 (quilt)\nSource: ztest\nBuild-Depends: libc6-dev, zlib1g-dev\n' > ztest.dsc
bt run -q -o "$T/dsc.db" --system --only-packages @ztest.dsc -- sh -c "$build" > "$T/dsc.out" ||
    fail "the build with a .dsc"
assert_contains "$(cat "$T/dsc.out")" "built with zlib" "zlib.h there when the .dsc declares it"
assert_no_leftovers
