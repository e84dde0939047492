#!/bin/sh
# --system as root (fanotify): a file the build wrote whose close the daemon never saw (it is
# still open outside the build: the descriptor was passed to a process that outlives it) is
# hashed at the end from its path, if the path still names the file written.  The path may
# name something else by then (the build replaced it): another file is not hashed in its
# place, and neither a FIFO nor a symlink to one is opened (that blocks until a writer comes,
# which at the end of a run is never: the run would hang), nor a device (opening one acts on it).  Root only: fanotify, and a /usr/local of its own (a tmpfs in a private mount ns).
. "$(dirname "$0")/lib.sh"
require_fuse
require_private_usr_local
require_cmd timeout
require_cmd python3
mkdir "$T/ws"
# The holder, outside the build: takes the build's descriptor and keeps it past the run.
cat > "$T/holder.py" <<'EOF2'
import os, socket, sys, time
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("\0" + sys.argv[1])
s.listen(1)
open(sys.argv[2], "w").close()
c, _ = s.accept()
msg, fds, _, _ = socket.recv_fds(c, 1, 1)
c.send(b"k")
time.sleep(300)
EOF2
# The build: writes /usr/local/bt/w, hands its descriptor to the holder, closes its own, then
# leaves the path as it is, or puts something else there.
cat > "$T/build.py" <<'EOF2'
import os, socket, sys
p = "/usr/local/bt/w"
fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(fd, b"hello\n")
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect("\0" + sys.argv[1])
socket.send_fds(s, [b"x"], [fd])
os.close(fd)
assert s.recv(1) == b"k"
how = sys.argv[2]
if how == "other":
    os.rename(p, p + ".old")
    with open(p, "w") as f:
        f.write("other\n")
elif how == "fifo":
    os.unlink(p)
    os.mkfifo(p)
elif how == "fifolink":
    os.unlink(p)
    os.mkfifo(sys.argv[3])
    os.symlink(sys.argv[3], p)
print("built", how)
EOF2
# case HOW: run the build under 'buildtrail run --system' (at most 60 s), in a namespace whose
# /usr/local is a fresh tmpfs, with the holder running beside it.
case_() {
    unshare -m --propagation private sh -ec '
        T=$1 bt=$2 how=$3 mark=$4
        mount -t tmpfs bt-test /usr/local
        mkdir /usr/local/bt
        cd "$T/ws"
        python3 "$T/holder.py" "$mark-$how" "$T/ready-$how" &
        holder=$!
        while [ ! -e "$T/ready-$how" ]; do sleep 0.05; done
        st=0
        timeout -s KILL 60 "$bt" run -q -o "$T/$how.db" --system -- python3 "$T/build.py" "$mark-$how" "$how" "$T/fifo-$how" || st=$?
        kill $holder
        exit $st
    ' sh "$T" "$BUILDTRAIL" "$1" "$TEST_MARK" > "$T/$1.out" 2>&1 ||
        fail "the run whose written file became a $1 failed or hung (status $?): $(cat "$T/$1.out")"
    assert_contains "$(cat "$T/$1.out")" "built $1" "the build ran ($1)"
}
# hash_of HOW: the hash recorded for the version the build wrote (hex), and its hash_error.
hash_of() {
    sql "$T/$1.db" "select ifnull(hex(v.sha256), '') || ' ' || ifnull(v.hash_error, '') from versions v
        join files f on f.id = v.file_id where f.path = '/usr/local/bt/w' and v.origin = 2"
}

case_ keep
notes=$(sql "$T/keep.db" "select notes from runs")
case $notes in
    *"system_trees=watched"*) ;;
    *"system_trees=served"*) skip "this kernel or container offers no fanotify permission events: $notes" ;;
    *) fail "no system_trees note: $notes" ;;
esac
assert_contains "$notes" "1 write-opens whose close was not seen" "the note says its close was not seen"
sum=$(printf 'hello\n' | sha256sum | cut -c1-64 | tr a-f A-F)
assert_eq "$(hash_of keep)" "$sum " "a file still open is hashed at the end from its path"

case_ other
case $(hash_of other) in
    " "[1-9]*) ;;
    *) fail "another file at the path is hashed in place of the one written: $(hash_of other)" ;;
esac
for how in fifo fifolink; do
    case_ $how
    case $(hash_of $how) in
        " "[1-9]*) ;;
        *) fail "a $how at the path: $(hash_of $how)" ;;
    esac
done
assert_no_leftovers
