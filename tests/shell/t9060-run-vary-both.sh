#!/bin/sh
# run --vary-control LIST --vary SUBSET (a bisection step): every variation of LIST takes the
# control's value but those of SUBSET, which take the experiment's; the order of the options
# does not matter, each LIST goes on from its own last; the build sees exactly that, and the
# trace's rows, `info` (text and --json) and the summary line say which side each row is.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws"
cd "$T/ws"
cat > probe.sh <<'EOS'
echo "umask=$(umask)"
echo "HOME=$HOME"
echo "PATH=$PATH"
echo "TZ=$TZ"
echo "LANG=$LANG"
echo "extra=${REPROTEST_CAPTURE_ENVIRONMENT:-}"
echo "hostname=$(hostname)"
echo "personality=$(cat /proc/self/personality)"
EOS
bt run -o "$T/s.db" --vary umask,home --vary-control all --vary exec_path -- sh probe.sh \
    > "$T/s.out" 2> "$T/s.err" || fail "both options: $(cat "$T/s.err")"
v() { sed -n "s/^$1=//p" "$T/s.out"; }
# --vary's: the experiment's values
assert_eq "$(v umask)" "0002" "umask (--vary)"
assert_eq "$(v HOME)" "/nonexistent/second-build" "HOME (--vary)"
assert_eq "$(v PATH)" "$PATH:/i_capture_the_path" "PATH (--vary, given again)"
# the rest of --vary-control's: the control's values
assert_eq "$(v TZ)" "GMT+12" "TZ (control)"
assert_eq "$(v LANG)" "C.UTF-8" "LANG (control)"
assert_eq "$(v extra)" "" "no extra variable (control)"
assert_eq "$(v hostname)" "$(hostname)" "hostname (control)"
[ $(( 0x$(v personality) & 0x40000 )) != 0 ] || fail "ADDR_NO_RANDOMIZE (control's aslr) not set"
assert_contains "$(cat "$T/s.err")" "variations (--vary-control with --vary): control values: environment, build_path, fileordering, kernel, locales, timezone, user_group, domain_host, num_cpus, aslr; experiment values: home, exec_path, umask"
assert_eq "$(sql "$T/s.db" "SELECT group_concat(name, ',') FROM variations WHERE side = 'experiment'")" \
    "home,exec_path,umask" "the experiment's rows"
assert_eq "$(sql "$T/s.db" "SELECT count(*) FROM variations WHERE side = 'control'")" 10 "the control's rows"
bt info -d "$T/s.db" > "$T/info" || fail "info"
assert_contains "$(cat "$T/info")" "varied:     the control's values, the experiment's where said (run --vary-control with --vary)"
assert_contains "$(cat "$T/info")" "  umask         experiment: 0002"
assert_contains "$(cat "$T/info")" "  timezone      TZ=GMT+12"
bt info --json -d "$T/s.db" > "$T/info.json" || fail "info --json"
python3 - "$T/info.json" <<'PY' || fail "info --json: $(cat "$T/info.json")"
import json, sys
sides = {v["name"]: v["side"] for v in json.load(open(sys.argv[1]))["variations"]}
assert len(sides) == 13, sides
assert {n for n, s in sides.items() if s == "experiment"} == {"home", "exec_path", "umask"}, sides
PY
# --vary -all with --vary-control: the control's values of everything
bt run -q -o "$T/c.db" --vary-control umask,timezone --vary -all -- sh probe.sh > "$T/c.out" 2> "$T/c.err" ||
    fail "--vary -all: $(cat "$T/c.err")"
assert_eq "$(sed -n 's/^umask=//p' "$T/c.out")" "0022" "--vary -all: the control's umask"
assert_eq "$(sql "$T/c.db" "SELECT group_concat(side, ',') FROM variations")" "control,control" "--vary -all: rows"
assert_no_leftovers
echo ok
