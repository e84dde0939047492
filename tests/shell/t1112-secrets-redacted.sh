#!/bin/sh
# Secrets never reach the trace: the values of secret-looking environment variables (the
# names a CI sets: GITHUB_PAT, NPM_AUTH, CI_JOB_JWT, ...), the password of every URL in the
# environment and in argv, and the value of an option named by --argv-redact (both forms) or
# a default one (--password) are absent from the trace's bytes (and its WAL), from every
# export and from every query's text and JSON, while the names stay visible.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
echo data > in.txt
m="zq$$x"   # every secret below contains this mark, nothing else does
# The environment: name=value pairs whose values must go.
set -- GITHUB_PAT "pat-$m" NPM_AUTH "npm-$m" APIKEY "api-$m" PRIVATE_KEY_PEM "pem-$m" \
    MY_PASS "pass-$m" CI_JOB_JWT "jwt-$m" DOCKER_AUTH_CONFIG "docker-$m" COOKIE "cookie-$m" \
    SESSION "session-$m" AUTHORIZATION "Bearer-$m" GPG_PASSPHRASE "phrase-$m" \
    AWS_ACCESS_KEY_ID "akid-$m" GITHUB_TOKEN "token-$m"
names=""
while [ $# -gt 0 ]; do
    export "$1=$2"
    names="$names $1"
    shift 2
done
# URL-shaped values: the credentials go, the rest stays.
export DATABASE_URL="postgres://dbuser:db-$m@db.example:5432/app"
export http_proxy="http://puser:proxy-$m@proxy.example:3128"
export BT_PLAIN="plain-value"
# argv: URL credentials, a default option, --argv-redact options in both forms; the build's
# command itself (runs.argv) and a process it runs (processes.argv) carry them.
# A command line in one argument (make's `sh -c RECIPE`) has the options found inside it.
build() {
    bt run -q --argv-redact --pin --argv-redact -P "$@" -- \
        sh -c 'cat in.txt > out.txt; sh -c "cat in.txt > out2.txt" child "$@"
               sh -c "cat in.txt > out3.txt; : --password='"script-$m"' --pin '"'pin3-$m'"'"' build \
        "https://u:url-$m@git.example/x.git" "https://tok-$m@github.com/o/r" \
        "--password=pw-$m" --pin "pin-$m" "-Pshort-$m" "--pin=pin2-$m" > /dev/null
}
build
# (and where processes are found from /proc alone, without process events)
BUILDTRAIL_NO_PROC_EVENTS=1 build -o "$T/procmode.db"

leak() { # WHERE FILE: fail if FILE holds the mark
    if grep -a -q "$m" "$2"; then
        fail "a secret is in $1: $(grep -a -o ".\{0,40\}$m.\{0,10\}" "$2" | head -3)"
    fi
}
for f in buildtrail.db buildtrail.db-wal buildtrail.db-journal "$T/procmode.db"; do
    [ ! -e "$f" ] || leak "the trace file $f" "$f"
done
grep -a -q "plain-value" buildtrail.db || fail "the environment is not in the trace"

# Every query's answer, text and JSON, and every export.
ids=$(bt tree --json | python3 -c '
import json, sys
def walk(n):
    if isinstance(n, dict):
        if isinstance(n.get("process"), dict): yield n["process"]["id"]
        for v in n.values(): yield from walk(v)
    elif isinstance(n, list):
        for v in n: yield from walk(v)
print(*sorted(set(walk(json.load(sys.stdin)))))') || fail "tree --json"
[ "$(echo $ids | wc -w)" -ge 3 ] || fail "the process tree: $ids"
i=0
for q in "info" "tree --full" "log" "files" "who-read in.txt" "show $ids" "diff buildtrail.db buildtrail.db"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    bt $q > "$T/q$i.txt" 2>&1 || true
    leak "'$q'" "$T/q$i.txt"
    # shellcheck disable=SC2086
    bt $q --json > "$T/q$i.json" 2>&1 || true
    leak "'$q --json'" "$T/q$i.json"
done
for fmt in compile-commands dot prov chrome-trace spdx spdx3 cyclonedx intoto slsa sql; do
    bt export --format "$fmt" -o "$T/x.$fmt" || fail "export --format $fmt"
    leak "export --format $fmt" "$T/x.$fmt"
done

# What stays: every name, the URLs without their credentials, the options without values.
# shellcheck disable=SC2086
out=$(bt show $ids)
for n in $names; do
    assert_contains "$out" "$n  (value not recorded: redacted)" "the name $n"
done
assert_contains "$out" "DATABASE_URL=postgres://dbuser:REDACTED@db.example:5432/app" "DATABASE_URL"
assert_contains "$out" "http_proxy=http://puser:REDACTED@proxy.example:3128" "http_proxy"
assert_contains "$out" "BT_PLAIN=plain-value" "a plain variable"
for a in https://u:REDACTED@git.example/x.git https://REDACTED@github.com/o/r \
         --password=REDACTED "--pin REDACTED" -PREDACTED --pin=REDACTED; do
    assert_contains "$(bt info)" "$a" "runs.argv keeps $a"
done
assert_contains "$out" ": --password=REDACTED --pin " "a recipe's options"
child=$(printf '%s\n' "$out" | grep -c -- "--pin REDACTED") || true
[ "$child" -ge 2 ] || fail "the build's command and its child both show --pin REDACTED: $out"
assert_contains "$(bt tree --full -d "$T/procmode.db")" "child https://u:REDACTED@git.example/x.git" "the /proc-mode child"
# The SQL dump carries the environments, as recorded.
grep -q "CREATE TABLE IF NOT EXISTS bt_environments" "$T/x.sql" || fail "sql has no bt_environments"
hex=$(printf 'BT_PLAIN=plain-value' | od -An -tx1 | tr -d ' \n')
grep -q "$hex" "$T/x.sql" || fail "sql's environments lack BT_PLAIN"

# A wrong --argv-redact is a usage error, before anything runs.
set +e
err=$(bt run --argv-redact pin -- true 2>&1); st=$?
set -e
[ "$st" = 2 ] || fail "--argv-redact pin: exit $st"
assert_contains "$err" "buildtrail run: --argv-redact 'pin' is not an option name" "the error"
assert_no_leftovers
