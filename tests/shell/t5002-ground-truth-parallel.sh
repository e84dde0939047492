#!/bin/sh
# Ground truth: many processes in parallel (make -j8), each with a unique marker in its argv,
# each writing its own file, stdout line and stderr line and reading its own input.  Every
# file and every output line must be attributed to exactly the process that carries its marker.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd python3
N=${BT_GROUND_TRUTH_JOBS:-300}
mkdir -p "$T/ws/in" "$T/ws/out" && cd "$T/ws"
i=0; targets=""
while [ $i -lt $N ]; do echo "input $i" > "in/m$i"; targets="$targets out/m$i"; i=$((i + 1)); done
cat > job.sh <<'JOB'
# job.sh MARKER: read in/MARKER, write out/MARKER, print a line on each stream.
m=$1
read line < "in/$m"
echo "$m stdout $line"
echo "$m stderr" >&2
printf '%s wrote\n' "$m" > "out/$m"
JOB
{
    echo "all:$targets"
    echo 'out/%: in/%'
    printf '\tsh job.sh $*\n'
} > Makefile
bt run -q -- make -s -j8 > "$T/stdout" 2> "$T/stderr"
assert_eq "$(wc -l < "$T/stdout")" "$N" "stdout lines"
assert_eq "$(wc -l < "$T/stderr")" "$N" "stderr lines"
bt log --json > "$T/log.json"
python3 - "$T/ws/buildtrail.db" "$T/log.json" "$N" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
n = int(sys.argv[3])
argv = {pid: (a or b"").split(b"\0") for pid, a in db.execute("select id, argv from processes")}
def marker_of(pid):
    a = argv.get(pid)
    if a and len(a) >= 3 and a[0] == b"sh" and a[1] == b"job.sh":
        return a[2].decode()
    return None
errors = []
# Files: exactly the marked process wrote out/M and read in/M.
for kind, d, k in (("write", "out", 2), ("read", "in", 1)):
    rows = db.execute("""select f.path, a.process_id from accesses a join files f on f.id=a.file_id
                         where a.kind=? and f.path like ?""", (k, "%/ws/" + d + "/m%")).fetchall()
    seen = {}
    for path, pid in rows:
        m = path.rsplit("/", 1)[1]
        if marker_of(pid) != m:
            errors.append("%s of %s attributed to %r (%s)" % (kind, path, argv.get(pid), pid))
        seen[m] = seen.get(m, 0) + 1
    missing = [("m%d" % i) for i in range(n) if ("m%d" % i) not in seen]
    if missing:
        errors.append("%d %s accesses missing, e.g. %s" % (len(missing), kind, missing[:3]))
# Output: every chunk mentioning a marker came from that marker's process.
lines = {"stdout": 0, "stderr": 0}
for c in json.load(open(sys.argv[2]))["chunks"]:
    for line in c["data"].splitlines():
        m = line.split(" ", 1)[0]
        if marker_of(c["process"]) != m:
            errors.append("%s line %r attributed to %r" % (c["stream"], line, argv.get(c["process"])))
        lines[c["stream"]] += 1
if lines != {"stdout": n, "stderr": n}:
    errors.append("recorded lines %r, expected %d each" % (lines, n))
if errors:
    print("\n".join(errors[:20]), file=sys.stderr)
    print("%d errors" % len(errors), file=sys.stderr)
    sys.exit(1)
print("ok: %d processes, every file and line attributed exactly" % n)
PY
assert_no_leftovers
