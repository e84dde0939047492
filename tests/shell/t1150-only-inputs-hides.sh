#!/bin/sh
# run --only-inputs MANIFEST: a file that existed before the build and that the manifest does
# not name looks absent to the build (lookup fails, a listing leaves it out), in the workspace
# and the other traced trees; a declared one is read; what the build makes is visible; a
# directory left by an earlier build can be made again (mkdir -p) and its old contents stay
# hidden.  The hidden files are all still there afterwards, unchanged.  Every denial is
# recorded with its process: files --denied (text, JSON), show, the summary line, verify.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
mkdir -p "$T/ws/inc" "$T/ws/old/deep" "$T/sibling" && cd "$T/ws"
echo '#define DECLARED 1' > inc/decl.h
echo '#define UNDECLARED 1' > inc/undecl.h
echo 'left by an earlier build' > old/deep/stale.o
echo secret > "$T/sibling/data"
cat > main.c <<'C'
#include "inc/decl.h"
#if __has_include("inc/undecl.h")
#include "inc/undecl.h"
#endif
#include <stdio.h>
int main(void)
{
#ifdef UNDECLARED
    puts("found the undeclared header");
#else
    puts("built without the undeclared header");
#endif
    return DECLARED - 1;
}
C
printf '# what the build may read\nmain.c\ninc/decl.h\n' > MANIFEST
out=$(bt run --only-inputs MANIFEST -- sh -c '
    cc -o prog main.c && ./prog
    echo "LIST: $(ls -a . inc | tr "\n" " ")"
    cat ../sibling/data 2>&1 || true
    mkdir -p old/deep && echo "OLD: $(ls -a old/deep | tr "\n" " ")"
    echo new > made.txt && cat made.txt && ls made.txt' 2>&1) || fail "the build failed: $out"
assert_contains "$out" "built without the undeclared header" "the probe of the undeclared header"
case $out in *"found the undeclared"*) fail "the undeclared header was found: $out" ;; esac
listing=$(printf '%s\n' "$out" | grep '^LIST: ')
case $listing in *undecl.h*|*MANIFEST*|*old*) fail "a listing shows a hidden name: $listing" ;; esac
assert_contains "$listing" "decl.h" "the declared header in its directory's listing"
assert_contains "$listing" "main.c" "the declared source in the listing"
assert_contains "$out" "../sibling/data: No such file or directory" "a file in a sibling tree"
assert_eq "$(printf '%s\n' "$out" | grep '^OLD: ')" "OLD: . .. " "old/deep made again, its stale file hidden"
assert_contains "$out" "new
made.txt" "a file the build made"
# The probe is recorded as one: the build looked for it and did not find it.
missing=$(bt files --missing)
assert_contains "$missing" "inc/undecl.h" "files --missing"
# ... and as a denial, with the process that asked.
summary=$(printf '%s\n' "$out" | grep '^buildtrail run: ')
assert_contains "$summary" "undeclared files hidden ('buildtrail files --denied')" "the summary line"
denied=$(bt files --denied)
line=$(printf '%s\n' "$denied" | grep "^$T/ws/inc/undecl.h: undeclared; ") || fail "files --denied: $denied"
assert_contains "$line" "looked up by " "files --denied: how"
assert_contains "$line" " cc1" "files --denied: the compiler's process"
printf '%s\n' "$denied" | grep -q "^$T/ws/old: undeclared; listed by " || fail "files --denied: the listing: $denied"
! printf '%s\n' "$denied" | grep -q "/inc/decl.h:" || fail "a declared file denied: $denied"
bt files --denied --json > "$T/d.json"
cc1=$(python3 - "$T/d.json" "$T/ws/inc/undecl.h" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["denials_recorded"] is True, d
e = [x for x in d["denied"] if x["path"] == sys.argv[2]]
assert len(e) == 1 and e[0]["reason"] == "undeclared" and e[0]["package"] is None, e
p = [x for x in e[0]["processes"] if x["how"] == "lookup"]
assert p and p[0]["times"] >= 1, e
print(p[0]["process"])
PY
) || fail "files --denied --json: $(cat "$T/d.json")"
shown=$(bt show "$cc1")
assert_contains "$shown" "hidden from it:" "show of the compiler"
assert_contains "$shown" "$T/ws/inc/undecl.h (undeclared; looked up)" "show of the compiler"
bt show --json "$cc1" | python3 -c 'import json,sys; d=json.load(sys.stdin)["processes"][0]["denied"]; assert any(x["how"] == "lookup" and x["path"].endswith("/inc/undecl.h") for x in d), d' ||
    fail "show --json has no denial"
# verify: a denial is a finding.
set +e
v=$(bt verify --inputs MANIFEST 2>&1); vst=$?
set -e
assert_eq "$vst" 1 "verify's status with denials: $v"
assert_contains "$v" "denied     $T/ws/inc/undecl.h" "verify lists the denial"
# Nothing hidden was touched.
assert_eq "$(cat inc/undecl.h)" '#define UNDECLARED 1' "the undeclared header afterwards"
assert_eq "$(cat old/deep/stale.o)" 'left by an earlier build' "the stale file afterwards"
assert_eq "$(cat "$T/sibling/data")" secret "the sibling's file afterwards"
# Without the option the same build finds the header.
out=$(bt run -q -o "$T/free.db" -- sh -c 'cc -o prog main.c && ./prog') || fail "unrestricted: $out"
assert_contains "$out" "found the undeclared header" "the unrestricted build"
assert_no_leftovers
