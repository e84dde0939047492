#!/bin/sh
# report of a killed run: the page says at its top, before anything else and without
# JavaScript, that the trace is incomplete and why; critical-path answers with the note on
# stderr every query gives, and its JSON says complete: false.  Chromium (where there) shows
# the same at the top of the page after its script ran.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
cat > build.sh <<EOS
echo one > a.txt
cat a.txt > b.txt
echo started
exec sh -c 'sleep 120; :' $TEST_MARK
EOS
"$BUILDTRAIL" run -o "$T/killed.db" -- sh build.sh > "$T/k.out" 2>&1 &
kpid=$!
wait_until 30 test -s "$T/k.out"
sleep 0.5
kill -KILL "$kpid"
wait "$kpid" 2>/dev/null || true
pkill -KILL -f "$TEST_MARK" 2>/dev/null || true

bt report -d "$T/killed.db" -o "$T/report.html" 2> "$T/err" || fail "report on a killed trace: $(cat "$T/err")"
assert_contains "$(cat "$T/err")" "killed" "report's stderr note"
python3 - "$T/report.html" <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
body = html[html.index("<body>"):]
first = re.search(r'<div id="(incomplete|complete)"', body)
assert first and first.group(1) == "incomplete", "no incomplete banner"
# nothing of the answer comes before it: it is the summary's first element
assert body.index('id="incomplete"') < body.index('<table class="summary"') < body.index('id="timeline"')
banner = re.search(r'<div id="incomplete"[^>]*>(.*?)</div>', body, re.S).group(1)
assert "INCOMPLETE" in banner and "killed" in banner, banner
PY
bt critical-path -d "$T/killed.db" > "$T/cp.txt" 2> "$T/err" || fail "critical-path on a killed trace"
assert_contains "$(cat "$T/err")" "killed" "critical-path's stderr note"
assert_contains "$(cat "$T/cp.txt")" "critical path:" "critical-path answers"
bt critical-path -d "$T/killed.db" --json 2> /dev/null |
    python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["trace"]["complete"] is False and d["trace"]["state"] == "killed", d["trace"]' ||
    fail "critical-path --json on a killed trace"

if command -v chromium >/dev/null 2>&1; then
    mkdir -p "$T/home"
    HOME="$T/home" XDG_CONFIG_HOME="$T/home" XDG_CACHE_HOME="$T/home" timeout 180 chromium \
        --headless --disable-gpu --no-sandbox --no-first-run --user-data-dir="$T/home/profile" \
        --virtual-time-budget=5000 --dump-dom "file://$T/report.html" > "$T/dom.html" 2> /dev/null ||
        fail "chromium --dump-dom"
    python3 - "$T/dom.html" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
assert 'data-ready="1"' in dom
assert re.search(r'<div id="errors"[^>]*></div>', dom), "errors in the page"
body = dom[dom.index("<body"):]
assert body.index('id="incomplete"') < body.index('id="timeline"')
PY
else
    missing_part "chromium: the killed run's page was not opened in a browser"
fi
echo "ok"
