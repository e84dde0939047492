#!/bin/sh
# run --only-inputs: when the command cannot start, the one line says that --only-inputs may
# hide it or what it needs; when the manifests name a file in a system tree served through
# FUSE (--system=full), which then hides all else there, it names the tree and what to
# declare — a bare "cannot run 'sh': No such file or directory" left the user to guess.
. "$(dirname "$0")/lib.sh"
require_fuse
[ -f /usr/include/zlib.h ] || missing "zlib1g-dev"
mkdir "$T/ws" && cd "$T/ws"
printf 'main.c\n/usr/include/zlib.h\n' > M
set +e
bt run -q -o "$T/t.db" --system=full --only-inputs M -- sh -c true > "$T/out" 2> "$T/err"
st=$?
set -e
[ "$st" != 0 ] || fail "sh ran with /usr/bin hidden"
assert_eq "$(wc -l < "$T/err")" 1 "one line: $(cat "$T/err")"
err=$(cat "$T/err")
assert_contains "$err" "buildtrail run: cannot run 'sh': No such file or directory; --only-inputs may hide it" "the line"
assert_contains "$err" "the manifests name files in /usr, so all else there is hidden; declare what the build runs too (/usr/bin/" "the tree named"
# A command of the workspace left undeclared: the hint, without a system tree.
printf '#!/bin/sh\necho built\n' > build.sh && chmod +x build.sh
echo main.c > M2
set +e
err=$(bt run -q -o "$T/t2.db" --only-inputs M2 -- ./build.sh 2>&1 >/dev/null)
set -e
assert_contains "$err" "cannot run './build.sh': No such file or directory; --only-inputs may hide it, or what it needs to start (its interpreter, its libraries): declare it" "an undeclared command"
# Without --only-inputs no hint.
err=$(bt run -q -o "$T/t3.db" -- ./nothere 2>&1 >/dev/null) || true
case $err in *only-inputs*) fail "a hint without --only-inputs: $err" ;; esac
assert_no_leftovers
