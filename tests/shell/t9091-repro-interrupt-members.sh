#!/bin/sh
# SIGINT to repro while it compares the members of many large artifacts: it stops after the
# artifact it is on (exit 130, no report), as --diffoscope does, not after reading every
# one of them (each .tar.gz here inflates to 200 MiB a side; it went through all eight).
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir -p "$T/src" "$T/z"
head -c 200M /dev/zero > "$T/z/zero"
tar -C "$T/z" -cf - zero | gzip -1 > "$T/z/a.tar.gz"
rm "$T/z/zero"
# the same bytes but the gzip header's time: every member identical, the files not
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[4:8] = (12345).to_bytes(4, "little"); open(sys.argv[2], "wb").write(b)' "$T/z/a.tar.gz" "$T/z/b.tar.gz"
cat > "$T/src/build.sh" <<EOS
#!/bin/sh
mkdir -p out
case "\$HOME" in *second*) z=$T/z/b.tar.gz ;; *) z=$T/z/a.tar.gz ;; esac
for i in 1 2 3 4 5 6 7 8; do cp "\$z" out/a\$i.tar.gz; done
EOS
chmod +x "$T/src/build.sh"
cd "$T/src"
(exec "$BUILDTRAIL" repro --vary home -o "$T/o" -- ./build.sh >"$T/out" 2>"$T/err") &
pid=$!
n=0
while [ ! -e "$T/o/experiment" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
[ -e "$T/o/experiment" ] || { kill $pid; fail "the experiment never ended: $(cat "$T/err")"; }
sleep 1
start=$(date +%s)
kill -INT $pid
set +e; wait $pid; st=$?; set -e
took=$(($(date +%s) - start))
[ "$st" = 130 ] || fail "exit $st: $(cat "$T/out") $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "no report: $(cat "$T/out")"
assert_contains "$(cat "$T/err")" "stopped by signal 2 while comparing" "said"
[ "$took" -le 8 ] || fail "it went on comparing for $took s after the signal"
cd "$T"
assert_no_leftovers
