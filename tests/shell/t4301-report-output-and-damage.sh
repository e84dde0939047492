#!/bin/sh
# report -o as a clumsy user gives it, and a damaged trace: a directory, a FIFO (refused at
# once, never waited on), a file that no report made (left as it was), a report made before
# (replaced), '-' (standard output), the default (buildtrail-report.html beside the trace);
# a damaged trace gets one line and no file.  The page references nothing outside itself.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd sqlite3
require_cmd python3
cp -r "$SAMPLE" "$T/s"
cd "$T/s"
mkdir "$T/traces"
bt run -o "$T/traces/good.db" -- make -j2 > "$T/build.log" 2>&1 || fail "the sample build failed: $(cat "$T/build.log")"
cd "$T"

refused() { # LABEL WORDS ARGS...: exit 1, one line on stderr containing WORDS, nothing written
    label=$1; words=$2; shift 2
    set +e
    timeout 20 "$BUILDTRAIL" report -d "$T/traces/good.db" "$@" > "$T/out" 2> "$T/err"
    st=$?
    set -e
    [ "$st" = 1 ] || fail "$label: exit $st, not 1: $(cat "$T/err")"
    assert_eq "$(wc -l < "$T/err")" 1 "$label: one line: $(cat "$T/err")"
    assert_contains "$(cat "$T/err")" "$words" "$label"
    [ ! -s "$T/out" ] || fail "$label: wrote on stdout"
}

say "a directory"
mkdir "$T/dir"
refused "-o DIR" "is a directory; give a file name" -o "$T/dir"
[ -z "$(ls -A "$T/dir")" ] || fail "-o DIR wrote into it"

say "a FIFO, nobody reading it"
mkfifo "$T/fifo"
refused "-o FIFO" "is not a regular file" -o "$T/fifo"
[ -p "$T/fifo" ] || fail "the FIFO was replaced"

say "a file no report made"
echo "my notes" > "$T/notes.html"
refused "-o foreign file" "is not a buildtrail report; remove it or choose another -o" -o "$T/notes.html"
assert_eq "$(cat "$T/notes.html")" "my notes" "the foreign file is untouched"

say "the default: beside the trace, then replaced by the next report"
(cd / && bt report -d "$T/traces/good.db") 2> "$T/err" || fail "default report: $(cat "$T/err")"
[ -s "$T/traces/buildtrail-report.html" ] || fail "no buildtrail-report.html beside the trace"
assert_contains "$(cat "$T/err")" "wrote $T/traces/buildtrail-report.html" "says where"
assert_eq "$(stat -c %a "$T/traces/buildtrail-report.html")" "$(stat -c %a "$T/traces/good.db")" "the trace's permissions"
echo "<!-- edited -->" >> "$T/traces/buildtrail-report.html"
bt report -d "$T/traces/good.db" 2> /dev/null || fail "replacing an earlier report"
! grep -q "edited" "$T/traces/buildtrail-report.html" || fail "the earlier report was not replaced"

say "standard output"
bt report -d "$T/traces/good.db" -o - > "$T/stdout.html" 2> "$T/err" || fail "-o -: $(cat "$T/err")"
cmp -s "$T/stdout.html" "$T/traces/buildtrail-report.html" || fail "-o - differs from the file"

say "self-contained: nothing fetched, no link out of the file"
python3 - "$T/stdout.html" <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
bad = re.findall(r'''(?:src|href)\s*=\s*["']?\s*(?:https?:|file:|//|ftp:|data:)[^"' >]*''', html, re.I)
bad += re.findall(r'@import|url\s*\(', html, re.I)
bad += re.findall(r'<(?:link|iframe|img|object|embed)\b', html, re.I)
bad += re.findall(r'\b(?:fetch|XMLHttpRequest|WebSocket|EventSource|importScripts)\s*\(', html)
assert not bad, bad
# the data element cannot be ended early: its JSON has no '<' at all
data = re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S).group(1)
assert "<" not in data
import json; d = json.loads(data)
assert d["processes"] == len(d["procs"]), (d["processes"], len(d["procs"]))
PY

say "a damaged trace: one line, no file"
cp "$T/traces/good.db" "$T/notable.db"
sqlite3 "$T/notable.db" "DROP TABLE accesses"
size=$(stat -c %s "$T/traces/good.db")
head -c $((size / 3)) "$T/traces/good.db" > "$T/short.db"
# met in the middle of the answer: the last leaf page of accesses and of output overwritten
cp "$T/traces/good.db" "$T/pages.db"
ps=$(sqlite3 "$T/pages.db" "PRAGMA page_size")
for t in accesses output; do
    pg=$(sqlite3 "$T/traces/good.db" "SELECT MAX(pageno) FROM dbstat WHERE name='$t' AND pagetype='leaf'")
    [ -n "$pg" ] || fail "no leaf page for $t"
    head -c "$ps" /dev/zero | tr '\0' '\377' | dd of="$T/pages.db" bs="$ps" seek=$((pg - 1)) conv=notrunc status=none
done
for db in "$T/notable.db" "$T/short.db" "$T/pages.db"; do
    for cmd in report critical-path "critical-path --json"; do
        set +e
        if [ "$cmd" = report ]; then
            "$BUILDTRAIL" $cmd -d "$db" -o "$T/damaged.html" > "$T/out" 2> "$T/err"
        else
            "$BUILDTRAIL" $cmd -d "$db" > "$T/out" 2> "$T/err"
        fi
        st=$?
        set -e
        [ "$st" != 0 ] || fail "$cmd on $(basename "$db"): exit 0"
        grep -q "the trace $db is damaged" "$T/err" || fail "$cmd on $(basename "$db"): $(cat "$T/err")"
        [ ! -s "$T/out" ] || fail "$cmd on $(basename "$db"): printed an answer"
        [ ! -e "$T/damaged.html" ] || fail "$cmd on $(basename "$db"): left a file"
    done
done
echo "ok"
