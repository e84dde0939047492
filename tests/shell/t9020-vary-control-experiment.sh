#!/bin/sh
# run --vary-control all and run --vary all: the build sees each variation's documented value
# (docs/repro.md, Variations) — hostname and domainname, umask, CPUs, ids, the kernel release,
# the time zone, the locale, a listing's order, HOME, PATH, the extra variable, the
# personality — every varied aspect differs between the two sides, and the trace's
# `variations` rows and `info` (text and --json) say the same.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" "$T/ws/d"
cd "$T/ws"
for f in one two three four five six; do : > "d/$f"; done
cat > probe.sh <<'EOS'
echo "hostname=$(hostname)"
echo "domainname=$(cat /proc/sys/kernel/domainname)"
echo "umask=$(umask)"
echo "nproc=$(nproc)"
echo "id=$(id -u):$(id -g)"
echo "uname=$(uname -r)"
echo "date=$(date -d @0 +%Y-%m-%dT%H)"
echo "LANG=$LANG LC_ALL=$LC_ALL LANGUAGE=$LANGUAGE"
echo "weekday=$(date -d @0 +%A)"
echo "listing=$(ls -f d | grep -v '^\.' | tr '\n' ' ')"
echo "HOME=$HOME"
echo "PATH=$PATH"
echo "extra=${REPROTEST_CAPTURE_ENVIRONMENT:-}"
echo "personality=$(cat /proc/self/personality)"
EOS
# A second locale of the test's own where glibc's sources are there (LOCPATH: the machine's
# locales are left alone)
fr=
if command -v localedef > /dev/null && [ -d /usr/share/i18n/locales ]; then
    mkdir "$T/loc"
    localedef -i fr_CH -f UTF-8 "$T/loc/fr_CH.UTF-8" > /dev/null 2>&1 || true
    if [ -f "$T/loc/fr_CH.UTF-8/LC_CTYPE" ]; then
        LOCPATH=$T/loc; export LOCPATH; fr=1
    fi
fi
native_listing=$(ls -f d | grep -v '^\.' | tr '\n' ' ')
bt run -o "$T/c.db" --vary-control all -- sh probe.sh > "$T/c.out" 2> "$T/c.err" ||
    fail "control: $(cat "$T/c.err")"
bt run -o "$T/e.db" --vary all -- sh probe.sh > "$T/e.out" 2> "$T/e.err" ||
    fail "experiment: $(cat "$T/e.err")"
v() { sed -n "s/^$2=//p" "$T/$1.out"; }
# The control: the fixed baseline
assert_eq "$(v c umask)" "0022" "control umask"
assert_eq "$(v c date)" "1969-12-31T12" "control TZ=GMT+12"
assert_eq "$(v c LANG)" "C.UTF-8 LC_ALL=C.UTF-8 LANGUAGE=en_US:en" "control locale"
assert_eq "$(v c HOME)" "/nonexistent/first-build" "control HOME"
assert_eq "$(v c extra)" "" "control: no extra variable"
assert_eq "$(v c PATH)" "$PATH" "control PATH"
assert_eq "$(v c listing)" "$native_listing" "control: the natural order"
assert_eq "$(v c hostname)" "$(hostname)" "control hostname"
assert_eq "$(v c nproc)" "$(nproc)" "control: every CPU"
assert_eq "$(v c id)" "$(id -u):$(id -g)" "control ids"
assert_eq "$(v c uname)" "$(uname -r)" "control release"
[ $(( 0x$(v c personality) & 0x40000 )) != 0 ] || fail "control: ADDR_NO_RANDOMIZE not set"
# The experiment
assert_eq "$(v e umask)" "0002" "experiment umask"
assert_eq "$(v e date)" "1970-01-01T14" "experiment TZ=GMT-14"
assert_eq "$(v e HOME)" "/nonexistent/second-build" "experiment HOME"
assert_eq "$(v e extra)" "i_capture_the_environment" "experiment's extra variable"
assert_eq "$(v e PATH)" "$PATH:/i_capture_the_path" "experiment PATH"
assert_eq "$(v e hostname)" "reprotest-capture-hostname" "experiment hostname"
assert_eq "$(v e domainname)" "reprotest-capture-domainname" "experiment domainname"
reversed=$(printf '%s' "$native_listing" | tr ' ' '\n' | grep . | tac | tr '\n' ' ')
assert_eq "$(v e listing)" "$reversed" "experiment: the listing reversed"
case $(v e uname) in 2.6.*) ;; *) fail "experiment release: $(v e uname)" ;; esac
[ $(( 0x$(v e personality) & 0x40000 )) = 0 ] || fail "experiment: ADDR_NO_RANDOMIZE set"
[ $(( 0x$(v e personality) & 0x20000 )) != 0 ] || fail "experiment: UNAME26 not set"
[ "$(v e id)" != "$(v c id)" ] || fail "experiment: the same ids $(v e id)"
assert_eq "$(v e id)" "2000:2000" "experiment ids"
if [ "$(nproc)" -gt 1 ]; then
    assert_eq "$(v e nproc)" "$(( $(nproc) / 2 ))" "experiment: half the CPUs"
fi
# locales: the private fr_CH.UTF-8 (LOCPATH), else another installed one, else said
if [ -n "$fr" ]; then
    assert_eq "$(v e LANG)" "fr_CH.UTF-8 LC_ALL=fr_CH.UTF-8 LANGUAGE=fr_CH.UTF-8:fr" "experiment locale"
    assert_eq "$(v c weekday)" "Wednesday" "control: C's day names"
    assert_eq "$(v e weekday)" "jeudi" "experiment: French day names"
elif locale -a | grep -qvE '^(C|POSIX|C\..*)$'; then
    [ "$(v e LANG)" != "$(v c LANG)" ] || fail "experiment: the same locale"
else
    assert_eq "$(v e LANG)" "$(v c LANG)" "experiment locale without a second one: the control's"
    assert_contains "$(cat "$T/e.err")" "not varied: locales (no locale but C and POSIX"
fi
# The trace and info agree with what the build saw
assert_eq "$(sql "$T/c.db" "SELECT count(*) FROM variations WHERE side = 'control' AND applied = 1")" 13 \
    "control rows"
assert_eq "$(sql "$T/e.db" "SELECT value FROM variations WHERE name = 'umask'")" "0002" "umask row"
assert_eq "$(sql "$T/e.db" "SELECT value FROM variations WHERE name = 'timezone'")" "TZ=GMT-14" "TZ row"
assert_eq "$(sql "$T/e.db" "SELECT count(*) FROM variations WHERE name = 'time'")" 0 "time not in all"
bt info -d "$T/e.db" > "$T/info" || fail "info"
assert_contains "$(cat "$T/info")" "varied:     the experiment's values (run --vary)"
assert_contains "$(cat "$T/info")" "  umask         0002"
assert_contains "$(cat "$T/info")" "  domain_host   hostname reprotest-capture-hostname"
bt info --json -d "$T/e.db" > "$T/info.json" || fail "info --json"
python3 - "$T/info.json" "$T/e.db" <<'PY' || fail "info --json and the variations rows differ"
import json, sqlite3, sys
doc = json.load(open(sys.argv[1]))
rows = sqlite3.connect(sys.argv[2]).execute(
    "SELECT name, side, value, applied, why_not FROM variations ORDER BY rowid").fetchall()
got = [(v["name"], v["side"], v["value"], int(v["applied"]), v["why_not"]) for v in doc["variations"]]
assert got == rows, (got, rows)
assert len(rows) == 13 and all(r[1] == "experiment" for r in rows), rows
PY
assert_no_leftovers
echo ok
