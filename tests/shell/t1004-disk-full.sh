#!/bin/sh
# A full disk loses nothing.  At creation: "No space left on device" and no stub.  While
# recording: the build is paused with one message, and when space is freed it goes on and the
# trace holds everything the build did.
# (root: the test mounts a small tmpfs of its own)
. "$(dirname "$0")/lib.sh"
require_fuse
require_root
mkdir "$T/ws" "$T/small"
mount -t tmpfs -o size=16m tmpfs "$T/small"
on_cleanup "umount -l '$T/small'"
cd "$T/ws"
fill() { dd if=/dev/zero of="$T/small/fill" bs=64k 2>/dev/null || true; sync; }

# Full before the run: the trace cannot be created; nothing is left there.
fill
set +e; err=$(bt run -o "$T/small/t.db" -- true 2>&1); st=$?; set -e
assert_eq "$st" 125 "exit status on a full disk"
assert_contains "$err" "cannot write the trace $T/small/t.db: No space left on device" "message"
assert_eq "$(ls -A "$T/small")" fill "what is left on the full disk"
rm "$T/small/fill"

# Full while recording: paused, then freed, then complete.
cat > build.sh <<EOS
echo started
while [ ! -e go ]; do sleep 0.1; done
i=0
while [ \$i -lt 100 ]; do echo \$i > f\$i.txt; i=\$((i + 1)); done
head -c 4000000 /dev/zero | tr '\0' x
echo; echo finished
EOS
"$BUILDTRAIL" run -o "$T/small/t.db" -- sh build.sh > "$T/run.out" 2> "$T/run.err" &
pid=$!
wait_until 30 grep -q started "$T/run.out"
sleep 0.5
fill
touch go
wait_until 60 grep -q "is full" "$T/run.err"
assert_contains "$(cat "$T/run.err")" "buildtrail run: the disk holding $T/small/t.db is full (No space left on device); the build is paused until space is freed" "pause message"
sleep 1
kill -0 "$pid" 2>/dev/null || fail "the run ended on a full disk: $(cat "$T/run.err")"
rm "$T/small/fill"
set +e; wait "$pid"; st=$?; set -e
assert_eq "$st" 0 "exit status after space came back ($(cat "$T/run.err"))"
assert_contains "$(cat "$T/run.err")" "there is space again" "resume message"
assert_eq "$(sql "$T/small/t.db" 'select state from runs')" finished "run state"
assert_eq "$(sql "$T/small/t.db" "select count(distinct file_id) from accesses a join files f on f.id = a.file_id where f.path like '$T/ws/f%.txt' and a.kind = 3")" 100 "files created while the disk was full"
assert_eq "$(sql "$T/small/t.db" 'select sum(length(data)) from output where stream = 1')" \
    "$(wc -c < "$T/run.out")" "output recorded"
assert_no_leftovers
