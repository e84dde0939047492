#!/bin/sh
# A credential given as an HTTP header never reaches the trace: `curl -H 'Authorization:
# Bearer X'`, `git -c http.extraHeader=Authorization: Basic X` (both as the build's own
# arguments and inside a make-style `sh -c` recipe), git's GIT_CONFIG_VALUE_n form of it in the
# environment, a Private-Token header, and a cookie; the header names and the scheme word stay
# so the trace still shows what was run.  URLs listed with commas (GOPROXY) lose every password.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
m="hq$$x" # every secret below contains this mark, nothing else does
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=http.extraHeader
export GIT_CONFIG_VALUE_0="Authorization: Bearer env-$m"
export GOPROXY="https://proxy.golang.org,https://u:goproxy-$m@corp.example/go,direct"
bt run -q -- sh -c 'sh -c "echo -H '"'Authorization: Bearer sub-$m'"' > /dev/null"
    : -c http.extraHeader="PRIVATE-TOKEN: recipe-$m"' build \
    -H "Authorization: token arg-$m" "http.extraHeader=Authorization: Basic basic-$m" \
    -H "Cookie: session=cookie-$m" -H "Accept: application/json"
for f in buildtrail.db buildtrail.db-wal; do
    [ ! -e "$f" ] || ! grep -a -q "$m" "$f" ||
        fail "a secret is in $f: $(grep -a -o ".\{0,40\}$m" "$f" | head -3)"
done
bt export --format sql -o "$T/x.sql"
! grep -q "$m" "$T/x.sql" || fail "a secret is in the sql export"
info=$(bt info)
for a in "Authorization: token REDACTED" "http.extraHeader=Authorization: Basic REDACTED" \
         "Cookie: REDACTED" "Accept: application/json"; do
    assert_contains "$info" "$a" "runs.argv keeps $a"
done
ids=$(bt tree --json | grep -o '"id": *[0-9]*' | grep -o '[0-9]*' | sort -u)
# shellcheck disable=SC2086
out=$(bt show $ids)
assert_contains "$out" "GIT_CONFIG_VALUE_0=Authorization: Bearer REDACTED" "the environment"
assert_contains "$out" "GOPROXY=https://proxy.golang.org,https://u:REDACTED@corp.example/go,direct" "GOPROXY"
assert_contains "$out" "PRIVATE-TOKEN: REDACTED" "the recipe's header"
assert_contains "$out" "Authorization: Bearer REDACTED" "the child's header"
assert_no_leftovers
