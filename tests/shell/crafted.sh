# crafted.sh — sourced (after lib.sh) by the tests of crafted traces (t4020-t4024): a real
# small traced build to edit with sqlite3, and a bounded way to ask a query about the result.
#
# record_sample: $T/good.db, the sample build's trace (the build in $T/s); $w, the id of the
#   image that wrote $T/s/hello.
# craft NAME SQL...: $T/NAME.db, a copy of good.db with each SQL run on it.
# bounded ARGS...: buildtrail ARGS under `timeout 20` and 1 GiB of address space (not under
#   ASan, whose shadow memory needs more); stdout in $T/out, stderr in $T/err, status in $st.
# refuses DB LABEL ARGS...: the query exits non-zero within the bounds, with one line on
#   stderr saying the trace is damaged (or not a trace) and nothing on stdout.
# answers_or_refuses DB LABEL ARGS...: within the bounds, either that refusal or an answer
#   (exit 0, no line on stderr but warnings; or a one-line answer such
#   as "no process 1 in this trace", exit non-zero).
# QUERIES: one query of each kind, run by every_query.
require_cmd sqlite3
require_cmd timeout

record_sample() {
    cp -r "$SAMPLE" "$T/s"
    (cd "$T/s" && bt run -o "$T/good.db" -- make -j2 > "$T/build.log" 2>&1) ||
        fail "the sample build failed: $(cat "$T/build.log")"
    bt tree -d "$T/good.db" > /dev/null || fail "tree on the good trace"
    w=$(writer_of "$T/s/hello")
    [ -n "$w" ] || fail "no writer of hello in the trace"
}

craft() {
    _name=$1; shift
    cp "$T/good.db" "$T/$_name.db"
    for _sql in "$@"; do
        sqlite3 "$T/$_name.db" "$_sql" || fail "crafting $_name: $_sql"
    done
}

_asan=false
if ldd "$BUILDTRAIL" 2>/dev/null | grep -q 'libasan'; then _asan=true; fi
bounded() {
    set +e
    if $_asan; then
        timeout 20 "$BUILDTRAIL" "$@" > "$T/out" 2> "$T/err"
    else
        (ulimit -v 1048576 && exec timeout 20 "$BUILDTRAIL" "$@") > "$T/out" 2> "$T/err"
    fi
    st=$?
    set -e
}

_within_bounds() { # LABEL
    [ "$st" != 124 ] || fail "$1: still running after 20 s"
    [ "$st" -lt 128 ] || fail "$1: killed by signal $((st - 128)) (memory?): $(head -c 300 "$T/err")"
}

_is_refusal() { # DB: one line on stderr, damaged or not a trace, nothing on stdout
    [ "$st" != 0 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err")" = 1 ] &&
        grep -Eq "the trace $1 is damaged: |not a buildtrail trace" "$T/err"
}

refuses() {
    _db=$1; _label=$2; shift 2
    bounded "$@" -d "$_db"
    _within_bounds "$_label on $(basename "$_db")"
    _is_refusal "$_db" || fail "$_label on $(basename "$_db"): not a one-line refusal (exit $st): $(head -c 400 "$T/err"); stdout: $(head -c 200 "$T/out")"
}

answers_or_refuses() {
    _db=$1; _label=$2; shift 2
    bounded "$@" -d "$_db"
    _within_bounds "$_label on $(basename "$_db")"
    _is_refusal "$_db" && return 0
    # An answer, or one line that is one (as "no process 1 in this trace" is for a trace
    # without processes), besides the warnings that say what the trace lacks.
    grep -v ': warning: ' "$T/err" > "$T/err.main" || true
    { [ "$st" = 0 ] && [ ! -s "$T/err.main" ]; } ||
        { [ "$st" != 0 ] && [ ! -s "$T/out" ] && [ "$(wc -l < "$T/err.main")" = 1 ]; } ||
        fail "$_label on $(basename "$_db"): neither an answer nor a one-line refusal (exit $st): $(head -c 400 "$T/err"); stdout: $(head -c 200 "$T/out")"
}

# every_query CHECK DB: CHECK (refuses or answers_or_refuses) for every kind of query.
every_query() {
    _check=$1; _d=$2
    $_check "$_d" show show 1
    $_check "$_d" who-wrote who-wrote "$T/s/hello"
    $_check "$_d" who-read who-read "$T/s/src/greet.h"
    $_check "$_d" tree tree
    $_check "$_d" "tree --json" tree --json
    $_check "$_d" inputs inputs "$T/s/hello"
    $_check "$_d" log log
    for _f in compile-commands dot prov spdx; do
        $_check "$_d" "export $_f" export --format "$_f"
    done
    $_check "$_d" info info
}

# The id of the image that wrote PATH (its last write).
writer_of() {
    sqlite3 "$T/good.db" "SELECT a.process_id FROM accesses a JOIN files f ON f.id = a.file_id
        WHERE f.path = '$1' AND a.kind IN (2,3) ORDER BY a.last_ns DESC LIMIT 1"
}
