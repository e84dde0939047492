#!/bin/sh
# SIGTERM to repro while it compares (here during --diffoscope, a stand-in that waits): exit
# 128+15 and no report, as during a build (it went on and exited 1 with the full report).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
mkdir -p "$T/proj" "$T/bin"
printf 'all:\n\thead -c8 /dev/urandom > out\n' > "$T/proj/Makefile"
cat > "$T/bin/diffoscope" <<EOS
#!/bin/sh
touch "$T/started"
sleep 2
echo "a stand-in report"
EOS
chmod +x "$T/bin/diffoscope"
cd "$T/proj"
(PATH="$T/bin:$PATH" exec "$BUILDTRAIL" repro --diffoscope --vary umask -o "$T/o" -- make -s >"$T/out" 2>"$T/err") &
pid=$!
n=0
while [ ! -e "$T/started" ] && [ $n -lt 300 ]; do sleep 0.1; n=$((n + 1)); done
[ -e "$T/started" ] || { kill $pid; fail "diffoscope never started: $(cat "$T/err")"; }
kill -TERM $pid
set +e; wait $pid; st=$?; set -e
[ "$st" = 143 ] || fail "exit $st: $(cat "$T/out") $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "no report: $(cat "$T/out")"
assert_contains "$(cat "$T/err")" "stopped by signal 15 while comparing" "said"
assert_no_leftovers
