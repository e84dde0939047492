#!/bin/sh
# report: the page of a real build (zlib, ./configure && make -j2) opened from file:// in
# headless Chromium: its script runs without an error (none in #errors, none on the console),
# the DOM then holds one timeline bar per process of the build and the critical path's steps
# as `critical-path --json` lists them, in order; a screenshot is kept (for CI's artifacts:
# $BT_ARTIFACTS, else $BUILD_DIR/artifacts) — the one in docs/ is made so.
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd python3
command -v chromium >/dev/null 2>&1 || missing "chromium (Debian's; .ci/install-deps installs it with BT_WITH_CHECKERS=1)"
tarball=$(workload zlib_1.2.13.dfsg.orig.tar.bz2)
tar xjf "$tarball" -C "$T"
cd "$T/zlib-1.2.13.dfsg"
bt run -o "$T/trace.db" -- sh -c './configure && make -j2' > "$T/build.log" 2>&1 || fail "build failed: $(tail "$T/build.log")"
bt report -d "$T/trace.db" -o "$T/report.html" 2> "$T/err" || fail "report: $(cat "$T/err")"
bt critical-path -d "$T/trace.db" --json > "$T/cp.json" || fail "critical-path --json"

# Chromium keeps its profile and caches under $HOME: a private one.
mkdir -p "$T/home"
browse() {
    HOME="$T/home" XDG_CONFIG_HOME="$T/home" XDG_CACHE_HOME="$T/home" \
        timeout 180 chromium --headless --disable-gpu --no-sandbox --no-first-run \
        --user-data-dir="$T/home/profile" --hide-scrollbars --window-size=1400,1600 \
        --virtual-time-budget=10000 "$@" "file://$T/report.html"
}
browse --enable-logging=stderr --v=0 --dump-dom > "$T/dom.html" 2> "$T/console.log" ||
    fail "chromium --dump-dom failed: $(tail -5 "$T/console.log")"
python3 - "$T/dom.html" "$T/cp.json" "$T/console.log" <<'PY'
import json, re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
cp = json.load(open(sys.argv[2]))
console = open(sys.argv[3], encoding="utf-8", errors="replace").read()
assert 'data-ready="1"' in dom, "the page's script did not finish"
errors = re.search(r'<div id="errors"[^>]*>(.*?)</div>', dom, re.S).group(1)
assert errors.strip() == "", "errors in the page: " + errors
bad = [l for l in console.splitlines() if "CONSOLE" in l or "Uncaught" in l]
assert not bad, "console: " + "\n".join(bad)
bars = re.findall(r'<rect class="bar k\d[^"]*" data-id="(\d+)"', dom)
assert len(bars) == cp["processes"] == len(set(bars)), (len(bars), cp["processes"])
steps = [int(s) for s in re.findall(r'<tr class="cp-step" data-id="(\d+)"', dom)]
want = [s["process"]["id"] for s in cp["steps"]]
assert steps == want, (steps[:10], want[:10])
assert len(want) > 10
on_path = set(re.findall(r'<rect class="bar k\d cp[^"]*" data-id="(\d+)"', dom))
assert on_path == set(map(str, want)), "the critical path drawn over the timeline"
# the summary, the log and the products were drawn too
assert "This trace is complete" in dom
assert dom.count('class="log-group') >= 1
assert re.search(r'<tr data-path="[^"]*/libz\.a"', dom), "libz.a among the products"
print("bars", len(bars), "steps", len(steps))
PY
dir=${BT_ARTIFACTS:-${BUILD_DIR:-$T}/artifacts}
if mkdir -p "$dir" 2>/dev/null && [ -w "$dir" ]; then
    shot="$dir/report-zlib-$(id -un).png"
else
    shot="$T/report.png"
fi
browse --screenshot="$shot" > /dev/null 2>&1 || fail "chromium --screenshot failed"
[ -s "$shot" ] || fail "no screenshot"
say "screenshot: $shot"
echo "ok"
