#!/usr/bin/env python3
"""check.py TRACE WORKDIR — compare a trace of `atgen run N` with the ground truth.

Every process of atgen carries its marker in argv[2]; every file it writes is out/MARKER[.x],
every input in/MARKER, every output line starts with MARKER[.x].  So the process that must be
credited with each access and line is known.  Prints the counts and exits 1 on any wrong or
missing attribution.
"""
import collections
import sqlite3
import sys

db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
workdir = sys.argv[2]
manifest = [line.split() for line in open(workdir + "/manifest.txt")]

procs = {}
for pid_id, pid, argv, prev in db.execute("select id, pid, argv, prev_image_id from processes"):
    a = (argv or b"").split(b"\0")
    marker = a[2].decode() if len(a) >= 3 and a[0].rsplit(b"/", 1)[-1] == b"atgen" else None
    procs[pid_id] = (pid, marker, prev)
by_marker = collections.defaultdict(list)
for pid_id, (pid, marker, prev) in procs.items():
    if marker:
        by_marker[marker].append(pid_id)


def marker_of(pid_id):
    return procs.get(pid_id, (None, None, None))[1]


def owner(name):
    return name.split(".")[0]


# What the ground truth says must be there.
files, inputs, lines, exec_links = set(), set(), collections.Counter(), []
for m, kind in manifest:
    def own(name, err=True):
        files.add(name)
        lines[(name, "stdout")] += 1
        if err:
            lines[(name, "stderr")] += 1
    if kind == "worker":
        own(m); inputs.add(m)
    elif kind in ("execer", "thread-exec"):
        own(m); own(m + "X"); inputs.update([m, m + "X"]); exec_links.append((m, m + "X"))
    elif kind == "leader-exit":
        own(m + ".t0")
    elif kind == "threads":
        for k in range(4):
            own("%s.t%d" % (m, k))
    elif kind == "redirect":
        files.add(m + "R")
    elif kind in ("mmap", "uring"):
        files.add(m); lines[(m, "stdout")] += 1
    elif kind == "vfork":
        own(m); own(m + "V"); inputs.add(m + "V")
    elif kind == "daemon":
        own(m); own(m + "D")

wrong, missing = [], []
rows = db.execute("""select f.path, a.kind, a.process_id, coalesce(a.bytes, 0) from accesses a
                     join files f on f.id = a.file_id where a.result = 0 and a.kind in (1, 2)""")
writers, readers = collections.defaultdict(set), collections.defaultdict(set)
for path, kind, pid_id, nbytes in rows:
    parts = path.rsplit("/", 2)
    if len(parts) < 3 or parts[1] not in ("in", "out"):
        continue
    name = parts[2]
    if kind == 2 and parts[1] == "out" and nbytes > 0:
        writers[name].add(marker_of(pid_id))
    if kind == 1 and parts[1] == "in":
        readers[name].add(marker_of(pid_id))
for name in sorted(files):
    if not writers.get(name):
        missing.append("no writer recorded for out/" + name)
    elif writers[name] != {owner(name)}:
        wrong.append("out/%s written by %s" % (name, sorted(map(str, writers[name]))))
for name in sorted(inputs):
    if not readers.get(name):
        missing.append("no reader recorded for in/" + name)
    elif readers[name] != {name}:
        wrong.append("in/%s read by %s" % (name, sorted(map(str, readers[name]))))

seen = collections.Counter()
for pid_id, stream, data in db.execute("select process_id, stream, data from output order by seq"):
    for line in data.decode(errors="replace").splitlines():
        if not line:
            continue
        token = line.split(" ", 1)[0]
        if token == "atgen:":
            wrong.append("atgen failed: " + line)
            continue
        stream_name = "stdout" if stream == 1 else "stderr"
        if marker_of(pid_id) != owner(token):
            wrong.append("%s line %r attributed to %r" % (stream_name, line, marker_of(pid_id)))
        seen[(token, stream_name)] += 1
for key, n in lines.items():
    if seen[key] < n:
        missing.append("%s line of %s" % (key[1], key[0]))

for before, after in exec_links:
    a, b = by_marker.get(before), by_marker.get(after)
    if not a or not b:
        missing.append("process record for %s or %s" % (before, after))
        continue
    if len(b) != 1 or procs[b[0]][2] not in a:
        wrong.append("%s is not recorded as the exec successor of %s" % (after, before))
    elif procs[b[0]][0] != procs[procs[b[0]][2]][0]:
        wrong.append("%s and %s have different pids" % (before, after))

# Every exec of atgen (here: the X images, started by an exec from the main thread or from
# another thread) has its exec open of the atgen binary credited to the image it started.
exec_opened = {pid_id for (pid_id,) in db.execute(
    """select a.process_id from accesses a join files f on f.id = a.file_id
       where a.kind = 5 and f.path = ?""", (workdir + "/atgen",))}
for before, after in exec_links:
    for pid_id in by_marker.get(after, []):
        if pid_id not in exec_opened:
            missing.append("exec open of atgen by %s (image %d)" % (after, pid_id))

# With process events the tree is complete: a daemon stays under its real parent, and every
# process's last image has its exit recorded.
tree = db.execute("select process_tree from runs").fetchone()[0] or ""
if tree == "complete":
    parent_of = dict(db.execute("select id, parent_id from processes"))
    for m, kind in manifest:
        if kind != "daemon":
            continue
        late = by_marker.get(m + "D")
        if not late:
            continue
        p = parent_of.get(late[0])
        if marker_of(p) != m:
            wrong.append("%sD's parent is %r, not the process that forked it (%s)" % (m, marker_of(p), m))
    exited = {r[0] for r in db.execute("select process_id from exits")}
    successors = {prev for (pid, marker, prev) in procs.values() if prev}
    for pid_id, (pid, marker, prev) in procs.items():
        if marker and pid_id not in successors and pid_id not in exited:
            missing.append("exit of %s (image %d)" % (marker, pid_id))
    bad_exits = db.execute("select count(*) from exits where exit_code != 0 or exit_signal is not null").fetchone()[0]
    if bad_exits:
        wrong.append("%d processes recorded as failed (atgen's all exit 0)" % bad_exits)

# A task is a chain of images linked by exec; a pid reused by another task is pid reuse.
def task_of(pid_id):
    while procs[pid_id][2] in procs:
        pid_id = procs[pid_id][2]
    return pid_id
tasks_per_pid = collections.defaultdict(set)
for pid_id, (pid, marker, prev) in procs.items():
    tasks_per_pid[pid].add(task_of(pid_id))
reused = sum(1 for t in tasks_per_pid.values() if len(t) > 1)
n_marked = sum(1 for p in procs.values() if p[1])
print("%d process images (%d with markers) over %d pids, %d pids reused by another process; "
      "%d files, %d inputs, %d lines checked: %d wrong, %d missing"
      % (len(procs), n_marked, len(tasks_per_pid), reused, len(files), len(inputs),
         sum(lines.values()), len(wrong), len(missing)))
for e in (wrong + missing)[:25]:
    print("  " + e)
if len(sys.argv) > 3 and sys.argv[3] == "--expect-reuse" and reused == 0:
    print("  no pid was reused: the test did not test pid reuse")
    sys.exit(1)
sys.exit(1 if wrong or missing else 0)
