# lib.sh — sourced by every shell test (tests/shell/tNNNN-*.sh).
#
# Gives each test a private directory $T (removed on exit), helpers to fail or skip (exit 77),
# and checks that buildtrail left no mount, no private directory and no process behind.
# Environment: BUILDTRAIL (the binary), WORKLOADS (the workload cache that .ci/fetch-workloads
# fills), SCHEMAS, set by ctest; CI=true makes a missing input, tool or consumer a failure;
# BT_SKIP_LOG (if set) collects the sub-checks that were skipped; BT_VARIANT=user in the
# unprivileged variant (as-user.sh); BT_SANITIZED=1 in the ASan/UBSan build's tests.
set -eu
# The tests' Python checks are asserts (assert_sboms_valid's too): PYTHONOPTIMIZE drops them,
# and every check would pass.
unset PYTHONOPTIMIZE
# This directory (sbomcheck.py), known before a test changes its own: $0 may be relative.
BT_SHELL_DIR=$(cd "$(dirname "$0")" && pwd)

: "${BUILDTRAIL:?BUILDTRAIL must name the buildtrail binary}"
WORKLOADS=${WORKLOADS:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/bt-test.XXXXXX")
chmod 755 "$T"
# buildtrail's private directories go here, so that leftovers can be seen.
mkdir "$T/tmpdir"
export TMPDIR="$T/tmpdir"
TEST_MARK="bt-mark-$$-$(date +%s%N)"
# A test writes under $T only.  At exit, an entry made since the start in /tmp, /var/tmp or
# $HOME whose name carries this test's pid ($$, as a word: the whole name, or set off by '.',
# '-' or '_') or TEST_MARK is a leftover: the test fails and the entry goes.  (Only marked
# names: other tests run at the same time, and their random names -- gcc's ccQ1234z.s -- may
# hold our pid between letters; pid_max is small.  .ci/leftovers checks every name once the
# whole suite is done.)
# (A second early: file times move in clock ticks, so a file made within the same tick as
# the stamp would not be newer than it.)
touch -d "@$(($(date +%s) - 1))" "$T/.started"
_marked_leftovers() {
    find /tmp /var/tmp ${HOME:+"$HOME"} -mindepth 1 -maxdepth 1 -newer "$T/.started" \
        ! -name 'bt-test.*' ! -name 'bt-user.*' \( -name "*$TEST_MARK*" -o -name "$$" \
        -o -name "$$[._-]*" -o -name "*[._-]$$" -o -name "*[._-]$$[._-]*" \) \
        2>/dev/null | sort -u || true
}

_cleanup_hooks=""
on_cleanup() { _cleanup_hooks="$_cleanup_hooks
$*"; }
_cleanup() {
    status=$?
    eval "$_cleanup_hooks" || true
    pkill -KILL -f "$TEST_MARK" 2>/dev/null || true
    _left=$(_marked_leftovers)
    if [ -n "$_left" ]; then
        echo "FAIL: the test left these outside \$T: $(echo $_left)" >&2
        printf '%s\n' "$_left" | while IFS= read -r _f; do rm -rf "$_f"; done
        [ "$status" != 0 ] && [ "$status" != 77 ] || status=1
    fi
    rm -rf "$T" 2>/dev/null || true
    exit $status
}
trap _cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
# skip WHY: the test does not apply here (a root-only test in the unprivileged variant).
skip() { echo "SKIP: $*"; exit 77; }
# missing WHAT: something the test needs is missing (an input, a tool, a consumer).  In CI
# (CI=true) that is a failure, never a silent skip; elsewhere the test skips, saying what.
missing() {
    [ "${CI:-}" = true ] && fail "missing in CI: $*"
    echo "SKIP: missing $*" >&2
    exit 77
}
# missing_part WHAT: one sub-check cannot run.  In CI a failure; elsewhere said and logged.
missing_part() {
    [ "${CI:-}" = true ] && fail "missing in CI: $*"
    echo "# skipped: $*"
    if [ -n "${BT_SKIP_LOG:-}" ]; then
        echo "$(basename "$0" .sh) ($(id -un)): $*" >> "$BT_SKIP_LOG" 2>/dev/null || true
    fi
}
# assert_sboms_valid SPDX CYCLONEDX SPDX3: each document given ("" for none) is valid by its
# official JSON schema in $SCHEMAS (tests/shell/sbomcheck.py), else the test fails; without
# python3-jsonschema or the schemas, a skipped part.  SPDX 3 is checked in the strict build's
# root variant only: its schema costs jsonschema about a second per element (Debian's 4.10:
# three minutes for t7012's 215), a document does not depend on who ran the build it
# describes, and a sanitizer sees nothing of Python's check (BT_SANITIZED, set by CMake).
assert_sboms_valid() {
    _s3=$3
    if [ -n "$_s3" ] && { [ "${BT_VARIANT:-}" = user ] || [ -n "${BT_SANITIZED:-}" ]; }; then
        echo "# SPDX 3 schema validation: in the strict build's root variant (the same code)"
        _s3=
    fi
    _valid=0
    PYTHONPATH="$BT_SHELL_DIR${PYTHONPATH:+:$PYTHONPATH}" \
        python3 - "${SCHEMAS:-}" "$1" "$2" "$_s3" <<'PY' || _valid=$?
import sys
import sbomcheck as S
sys.exit(0 if S.validate(*sys.argv[1:]) else 3)
PY
    case $_valid in
    0) ;;
    3) missing_part "python3-jsonschema or the schemas in ${SCHEMAS:-(SCHEMAS unset)}: validation" ;;
    *) fail "an export is not valid by its schema (above)" ;;
    esac
}
# workload FILE: the path of a workload tarball, or missing (run .ci/fetch-workloads).
workload() {
    [ -f "$WORKLOADS/$1" ] || missing "the workload $1 in ${WORKLOADS:-(WORKLOADS unset)}; run .ci/fetch-workloads"
    echo "$WORKLOADS/$1"
}
say() { echo "# $*"; }

bt() { "$BUILDTRAIL" "$@"; }

# wait_until SECONDS COMMAND...: run COMMAND every 0.1 s until it succeeds, for at most SECONDS,
# then go on (the test's next assertion says what did not happen).
wait_until() {
    _wait_n=$(($1 * 10))
    shift
    while [ "$_wait_n" -gt 0 ]; do
        "$@" 2>/dev/null && return 0
        _wait_n=$((_wait_n - 1))
        sleep 0.1
    done
}

# Skip unless this machine can run buildtrail at all (FUSE usable by us).
require_fuse() {
    [ -e /dev/fuse ] || missing "/dev/fuse (modprobe fuse)"
    [ -r /dev/fuse ] && [ -w /dev/fuse ] || missing "/dev/fuse usable by $(id -un) (chmod 0666 /dev/fuse)"
}
require_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }
require_cmd() { command -v "$1" >/dev/null 2>&1 || missing "the command $1"; }
# chown_other PATH...: make PATH (a link itself, not its target) belong to another, non-root
# user, as if that user had put it there: as root, $BT_TEST_USER (buildtrail-test); otherwise
# the first of our subordinate uids (/etc/subuid), through a user namespace.  Sets OTHER_UID.
# Fails (status 1) when neither can be done: the caller says what it skips (missing_part).
chown_other() {
    if [ "$(id -u)" = 0 ]; then
        OTHER_UID=$(id -u "${BT_TEST_USER:-buildtrail-test}" 2>/dev/null) || return 1
        chown -h "$OTHER_UID:$OTHER_UID" "$@"
        return
    fi
    _sub=$(awk -F: -v u="$(id -un)" '$1 == u { print $2; exit }' /etc/subuid 2>/dev/null)
    _subg=$(awk -F: -v u="$(id -un)" '$1 == u { print $2; exit }' /etc/subgid 2>/dev/null)
    [ -n "$_sub" ] && [ -n "$_subg" ] || return 1
    unshare --map-root-user --map-users="$_sub,1,1" --map-groups="$_subg,1,1" \
        chown -h 1:1 "$@" 2>/dev/null || return 1
    OTHER_UID=$_sub
}

# start_postgres: a private PostgreSQL cluster in $T/pg (as the postgres user when we are root:
# initdb refuses root), stopped at exit; defines as_pg and psql (ON_ERROR_STOP, unaligned).
# Run it after writing the files the server must read ($T/*.sql).
start_postgres() {
    _pg_initdb=$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null | tail -n 1)
    [ -n "$_pg_initdb" ] || missing "PostgreSQL (apt-get install postgresql)"
    pg_bin=$(dirname "$_pg_initdb")
    pg=$T/pg
    mkdir "$pg"
    [ "$(id -u)" = 0 ] && { chown postgres "$pg"; chmod 755 "$T"; chmod a+r "$T"/*.sql 2>/dev/null || true; }
    as_pg "$pg_bin/initdb" -D "$pg/data" -A trust -U bt > "$T/initdb.log" 2>&1 || fail "initdb: $(tail -3 "$T/initdb.log")"
    as_pg "$pg_bin/pg_ctl" -D "$pg/data" -o "-k $pg -c listen_addresses=''" -l "$pg/log" -w start > /dev/null ||
        fail "postgres did not start: $(tail -5 "$pg/log")"
    on_cleanup "as_pg '$pg_bin/pg_ctl' -D '$pg/data' -m immediate stop >/dev/null 2>&1"
}
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql() { as_pg "$pg_bin/psql" -h "$pg" -U bt -d postgres -v ON_ERROR_STOP=1 -qAt "$@"; }
# start_store: for the store tests (t95xx): FUSE, a private PostgreSQL (start_postgres) and
# BUILDTRAIL_STORE naming its database.
start_store() {
    require_fuse
    start_postgres
    export BUILDTRAIL_STORE="host=$pg dbname=postgres user=bt"
}
# require_postgres: skip (missing) early when there is no PostgreSQL.
require_postgres() {
    ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1 || missing "PostgreSQL (apt-get install postgresql)"
}
# store_with_build [CMD...]: a private store (start_store) and, in $T/p (the current directory
# after), a traced build of CMD — by default a one-file C program, a.c into a — as buildtrail.db.
store_with_build() {
    require_postgres
    start_store
    mkdir "$T/p" && cd "$T/p"
    if [ $# = 0 ]; then
        printf 'int main(void) { return 0; }\n' > a.c
        set -- cc -o a a.c
    fi
    bt run -q -- "$@" || fail "the build failed"
}
# store_with_zlib_static: (as root, with PostgreSQL and zlib1g-dev, else skipped) a private
# store, initialised, and in $T/z (the current directory after) z.c linked with libz.a, traced
# with --system as $T/static.db.
store_with_zlib_static() {
    require_root
    require_postgres
    require_zlib_dev
    start_store
    bt store init >/dev/null
    mkdir "$T/z" && cd "$T/z"
    printf '#include <zlib.h>\nint main(void) { return zlibVersion()[0] == 49 ? 0 : 1; }\n' > z.c
    bt run -q --system -o "$T/static.db" -- cc -o zstatic z.c "$zlib_a" || fail "the static build"
}
# store_downgrade_to_2: a store made by this buildtrail (schema 3) with builds in it, turned
# back into what schema 2 was (migration 3 undone by hand: the per-build foreign keys and
# primary keys back, build_package, product.leaves and build.packages_from gone), for the
# upgrade tests (t9530, t9560).
store_downgrade_to_2() {
    psql -c "CREATE OR REPLACE VIEW build_packages AS SELECT pp.build_id, pk.name, pk.version,
  pk.source, bool_or(pp.role IN ('source', 'object', 'copy', 'generated')) AS code,
  bool_or(pp.role = 'header') AS headers, bool_or(pp.role = 'runtime') AS runtime,
  bool_or(pp.role = 'shlib') AS shlib, bool_or(pp.role = 'tool') AS tool
  FROM product_package pp JOIN package pk ON pk.id = pp.package_id GROUP BY pp.build_id, pk.id" \
         -c "DROP TABLE build_package" -c "ALTER TABLE product DROP COLUMN leaves" \
         -c "ALTER TABLE build DROP COLUMN packages_from" \
         -c "ALTER TABLE process ADD FOREIGN KEY (build_id) REFERENCES build ON DELETE CASCADE" \
         -c "ALTER TABLE version ADD FOREIGN KEY (build_id) REFERENCES build ON DELETE CASCADE" \
         -c "ALTER TABLE product ADD FOREIGN KEY (build_id) REFERENCES build ON DELETE CASCADE" \
         -c "ALTER TABLE closure ADD FOREIGN KEY (build_id) REFERENCES build ON DELETE CASCADE,
             ADD FOREIGN KEY (package_id) REFERENCES package, ADD PRIMARY KEY (build_id, product_vid, vid)" \
         -c "ALTER TABLE edge ADD FOREIGN KEY (build_id) REFERENCES build ON DELETE CASCADE,
             ADD PRIMARY KEY (build_id, vid, from_vid)" \
         -c "ALTER TABLE product_package ADD FOREIGN KEY (build_id) REFERENCES build ON DELETE CASCADE,
             ADD FOREIGN KEY (package_id) REFERENCES package" \
         -c "UPDATE bt_schema SET version = 2" || fail "the downgrade to schema 2"
}
# require_zlib_dev: zlib1g-dev's libz.a (its path in zlib_a) and zlib.h, or missing.
require_zlib_dev() {
    zlib_a=$(ls /usr/lib/*/libz.a 2>/dev/null | head -n 1)
    [ -n "$zlib_a" ] && [ -f /usr/include/zlib.h ] || missing "zlib1g-dev (libz.a, zlib.h)"
}

# No FUSE mount of ours, no private directory, no marked process left behind.
assert_no_leftovers() {
    if grep -q 'fuse.buildtrail' /proc/self/mountinfo; then
        fail "a buildtrail mount is left: $(grep fuse.buildtrail /proc/self/mountinfo)"
    fi
    if [ -n "$(ls -A "$TMPDIR")" ]; then
        fail "buildtrail left files in its private directory: $(ls -A "$TMPDIR")"
    fi
    # Processes die asynchronously after a pid namespace's init exits: allow a moment (a loaded
    # machine running the sanitizer build may need several seconds).
    for _ in $(seq 50); do
        pgrep -f "$TEST_MARK" >/dev/null 2>&1 || return 0
        sleep 0.2
    done
    fail "processes left behind: $(pgrep -af "$TEST_MARK")"
}

# forged_name CMD: sets `name` to a file name holding a line break, a forged "buildtrail CMD:"
# line and a terminal escape (`esc`), for checking that CMD prints names escaped.
forged_name() {
    esc=$(printf '\033')
    name="a
buildtrail $1: forged${esc}[31m"
}
# assert_one_escaped_line CMD LABEL: $T/err is one line, without a raw escape byte or a line
# forged by a name (forged_name CMD).
assert_one_escaped_line() {
    [ "$(wc -l < "$T/err")" = 1 ] || fail "$2: not one line: $(cat "$T/err")"
    ! grep -q "$esc" "$T/err" || fail "$2: a raw escape byte on stderr"
    ! grep -q "^buildtrail $1: forged" "$T/err" || fail "$2: a forged line"
}

# sql DB QUERY — run a query on a trace (sqlite3 CLI, read-only).
sql() { sqlite3 -readonly "$1" "$2"; }

assert_eq() { [ "$1" = "$2" ] || fail "${3:-values differ}: expected '$2', got '$1'"; }
assert_contains() { printf '%s' "$1" | grep -qF -- "$2" || fail "${3:-missing text}: '$2' not in: $1"; }

# require_private_usr_local: root (fanotify), unshare, and a /usr/local to mount a private
# tmpfs over: the --system tests that write in a watched tree of their own (system_build).
require_private_usr_local() {
    [ "$(id -u)" = 0 ] || skip "needs root (fanotify, and a /usr/local of its own)"
    require_cmd unshare
    [ -d /usr/local ] || skip "no /usr/local to mount over"
}

# system_build NAME COMMAND — as root: `run --system -o $T/NAME.db -- sh -c COMMAND` from $T/ws,
# in a private mount namespace whose /usr/local is a fresh tmpfs holding `data` (a line) and
# `tool` (a copy of true); the run's stderr goes to $T/NAME.err.  Fails the test if run fails.
system_build() {
    mkdir -p "$T/ws"
    unshare -m --propagation private sh -ec '
        T=$1 name=$2 bt=$3 cmd=$4
        mount -t tmpfs bt-test /usr/local
        printf "data\n" > /usr/local/data
        cp /bin/true /usr/local/tool
        cd "$T/ws"
        "$bt" run -o "$T/$name.db" --system -- sh -c "$cmd" 2> "$T/$name.err"
    ' sh "$T" "$1" "$BUILDTRAIL" "$2" || fail "build $1: $(cat "$T/$1.err")"
}
# one_line_error CMD...: CMD fails (status in $st) with one line on stderr, in buildtrail's
# form ("buildtrail ...: what; the fix"), never getopt's wording; the line in $e.
one_line_error() {
    set +e; "$@" > "$T/out" 2> "$T/err"; st=$?; set -e
    [ "$st" != 0 ] || fail "$* succeeded"
    e=$(cat "$T/err")
    [ "$(wc -l < "$T/err")" = 1 ] || fail "$*: not one line: $e"
    case $e in "buildtrail"*) ;; *) fail "$*: not buildtrail's form: $e" ;; esac
    case $e in *"invalid option"*|*"unrecognized option"*|*"requires an argument"*|*"Try '"*)
        fail "$*: getopt's wording: $e" ;; esac
}
