#!/bin/bash
# query-bench.sh — how fast are the queries on a large trace?  Makes a synthetic trace shaped
# like a big C build (25 000 compile jobs: make → sh → gcc → cc1 + as, one final link reading
# every object: 100 000 processes, ~1 000 000 accesses, 100 000 output chunks), then times
# who-wrote, who-read, tree, log, inputs of the final binary (its whole closure: every object,
# assembler file, source and header) and outputs of a header on it (median of 5); then diff
# against a changed copy (one header found with other content: the ~375 objects including
# it, their assembler files and the final binary differ), with diff's peak memory; then every
# query and every export format on it, with peak memory (query-all.sh).  With --trace, only
# the last, on a real build's trace (bench.sh --debian PKG --keep-trace DIR records one).
#
# --make-only FILE writes the synthetic trace to FILE and stops there; --headers N (30) sets the
# headers each compile reads and --programs N (1) links N programs, program k from the objects
# j with j % N == k and the first tenth of all objects (a shared library part, as gnulib is in
# coreutils): `--jobs 4500 --headers 280 --programs 100` is coreutils' size (18k processes,
# 1.3M accesses, ~100 programs), which store-scale.sh pushes.
#
# Usage: tests/bench/query-bench.sh [--build DIR] [--jobs N] [--out FILE]
#                                   [--trace FILE [--product PATH] [--source PATH]]
#                                   [--make-only FILE] [--headers N] [--programs N]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build="$top/build"
jobs=25000
out="$PWD/query-bench-results.txt"
trace=
make_only=
headers=30
programs=1
all_args=()
while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --trace) trace=$2; shift 2 ;;
        --make-only) make_only=$2; shift 2 ;;
        --headers) headers=$2; shift 2 ;;
        --programs) programs=$2; shift 2 ;;
        --product|--source) all_args+=("$1" "$2"); shift 2 ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "query-bench.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
    esac
done
bt="$build/launcher/buildtrail"
[ -x "$bt" ] || { echo "query-bench.sh: no buildtrail at $bt" >&2; exit 2; }
if [ -n "$trace" ]; then
    [ -f "$trace" ] || { echo "query-bench.sh: no trace at $trace" >&2; exit 2; }
    "$here/query-all.sh" --build "$build" "${all_args[@]}" "$trace" | tee "$out"
    exit "${PIPESTATUS[0]}"
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bt-qbench.XXXXXX")
trap '[ -n "${KEEP_SCRATCH:-}" ] || rm -rf "$scratch"' EXIT
db="$scratch/synth.db"

# The schema comes from buildtrail itself: record an empty build, then fill it.
(cd "$scratch" && "$bt" run -o "$db" -- true)
python3 - "$db" "$jobs" "$headers" "$programs" <<'PY'
import random, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
jobs, nheaders, programs = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
random.seed(1)
db.execute("PRAGMA synchronous=OFF")
db.execute("DELETE FROM processes"); db.execute("DELETE FROM accesses")
db.execute("DELETE FROM files"); db.execute("DELETE FROM output"); db.execute("DELETE FROM versions")
W = "/work/big"
files, procs, acc, out, versions = {}, [], [], [], []
current = {}  # file id -> its current version id
def found(f, t):
    if f not in current:
        versions.append((len(versions) + 1, f, 1, t))
        current[f] = len(versions)
    return current[f]
def written(f, t):
    versions.append((len(versions) + 1, f, 2, t))
    current[f] = len(versions)
    return current[f]
def fid(path):
    if path not in files:
        files[path] = len(files) + 1
    return files[path]
def proc(parent, argv, t):
    pid = len(procs) + 1
    procs.append((pid, 1000 + pid % 30000, t, parent, "\0".join(argv).encode() + b"\0", W))
    return pid
t = 1_000_000_000
make = proc(None, ["make", "-j8"], t)
headers = ["%s/include/h%04d.h" % (W, i) for i in range(2000)]
objects = []
for j in range(jobs):
    t += 1000
    src, obj, asm = "%s/src/f%05d.c" % (W, j), "%s/obj/f%05d.o" % (W, j), "/tmp/cc%05d.s" % j
    sh = proc(make, ["/bin/sh", "-c", "gcc -c -o %s %s" % (obj, src)], t)
    gcc = proc(sh, ["gcc", "-c", "-o", obj, src], t + 10)
    cc1 = proc(gcc, ["/usr/lib/gcc/x86_64-linux-gnu/12/cc1", "-quiet", src, "-o", asm], t + 20)
    as_ = proc(gcc, ["as", "--64", "-o", obj, asm], t + 500)
    acc.append((cc1, fid(src), 1, 0, 4000, t + 21, found(fid(src), t)))
    for h in random.sample(headers, nheaders):
        acc.append((cc1, fid(h), 1, 0, 2000, t + 22, found(fid(h), t)))
    va = written(fid(asm), t + 400)
    acc.append((cc1, fid(asm), 3, 577, 0, t + 400, va))
    acc.append((cc1, fid(asm), 2, 577, 9000, t + 401, va))
    acc.append((as_, fid(asm), 1, 0, 9000, t + 501, va))
    vo = written(fid(obj), t + 502)
    acc.append((as_, fid(obj), 3, 577, 0, t + 502, vo))
    acc.append((as_, fid(obj), 2, 577, 5000, t + 503, vo))
    acc.append((gcc, fid(asm), 6, None, None, t + 600, va))
    out.append((sh, 1, t + 1, ("gcc -c -o %s %s\n" % (obj, src)).encode()))
    out.append((cc1, 2, t + 300, ("%s: warning: unused variable\n" % src).encode()))
    objects.append(obj)
for k in range(programs):
    app = W + ("/app" if programs == 1 else "/bin/prog%03d" % k)
    t += 1000
    sh = proc(make, ["/bin/sh", "-c", "gcc -o %s obj/*.o" % app], t)
    gcc = proc(sh, ["gcc", "-o", app], t + 10)
    ld = proc(gcc, ["/usr/bin/ld", "-o", app], t + 20)
    for j, o in enumerate(objects):
        if programs == 1 or j % programs == k or j < jobs // 10:
            acc.append((ld, fid(o), 1, 0, 5000, t + 30, current[fid(o)]))
    vapp = written(fid(app), t + 40)
    acc.append((ld, fid(app), 3, 577, 0, t + 40, vapp))
    acc.append((ld, fid(app), 2, 577, 10_000_000, t + 41, vapp))
# A deep binary: a 40-step chain of generators (each reads the previous step's output and a few
# headers, and writes the next), then a compile and link of the last step's output.
prev = "%s/chain/step00.c" % W
for k in range(40):
    t += 1000
    gen = proc(make, ["./gen%02d" % k, prev], t)
    acc.append((gen, fid(prev), 1, 0, 3000, t + 1, current.get(fid(prev)) or found(fid(prev), t)))
    for h in headers[k:k + 5]:
        acc.append((gen, fid(h), 1, 0, 2000, t + 2, found(fid(h), t)))
    out_c = "%s/chain/step%02d.c" % (W, k + 1)
    v = written(fid(out_c), t + 3)
    acc.append((gen, fid(out_c), 3, 577, 0, t + 3, v))
    acc.append((gen, fid(out_c), 2, 577, 3000, t + 4, v))
    prev = out_c
t += 1000
ld = proc(make, ["cc", "-o", "deep", prev], t)
acc.append((ld, fid(prev), 1, 0, 3000, t + 1, current[fid(prev)]))
vd = written(fid(W + "/deep"), t + 2)
acc.append((ld, fid(W + "/deep"), 3, 577, 0, t + 2, vd))
acc.append((ld, fid(W + "/deep"), 2, 577, 50000, t + 3, vd))
db.executemany("INSERT INTO files (id, path) VALUES (?, ?)", ((i, p) for p, i in files.items()))
db.executemany("INSERT INTO processes (id, pid, start_ticks, exec_seq, parent_id, start_ns, "
               "first_seen_ns, argv, cwd) VALUES (?,?,0,0,?,?,?,?,?)",
               ((p[0], p[1], p[3], p[2], p[2], p[4], p[5]) for p in procs))
db.executemany("INSERT INTO accesses (process_id, file_id, kind, open_flags, bytes, first_ns, "
               "last_ns, version_id) VALUES (?,?,?,?,?,?,?,?)",
               ((a[0], a[1], a[2], a[3], a[4], a[5], a[5], a[6]) for a in acc))
db.executemany("INSERT INTO versions (id, file_id, origin, begin_ns, end_ns, size, sha256) "
               "VALUES (?,?,?,?,?,100,randomblob(32))", ((v[0], v[1], v[2], v[3], v[3]) for v in versions))
db.executemany("INSERT INTO output (process_id, stream, time_ns, data) VALUES (?,?,?,?)", out)
db.commit()
db.execute("VACUUM")
print("synthetic trace: %d processes, %d files, %d accesses, %d output chunks" %
      (len(procs), len(files), len(acc), len(out)), file=sys.stderr)
PY
if [ -n "$make_only" ]; then
    mv "$db" "$make_only"
    exit 0
fi

# The changed copy for diff: include/h0042.h found with other content, and so every version
# made from it (the assembler files and objects of the jobs that include it, and the app).
db_b="$scratch/synth-changed.db"
cp "$db" "$db_b"
python3 - "$db_b" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
h = db.execute("SELECT id FROM files WHERE path = '/work/big/include/h0042.h'").fetchone()[0]
changed = {v for (v,) in db.execute("SELECT DISTINCT version_id FROM accesses WHERE file_id = ?", (h,))}
readers = {p for (p,) in db.execute("SELECT DISTINCT process_id FROM accesses WHERE file_id = ?", (h,))}
while readers:  # what they wrote, then who read that, ...
    made = {v for (v,) in db.execute("SELECT DISTINCT version_id FROM accesses WHERE kind IN (2,3) AND process_id IN (%s)" % ",".join(map(str, readers)))}
    made -= changed
    changed |= made
    readers = {p for (p,) in db.execute("SELECT DISTINCT process_id FROM accesses WHERE kind = 1 AND version_id IN (%s)" % ",".join(map(str, made)))} if made else set()
db.executemany("UPDATE versions SET sha256 = randomblob(32) WHERE id = ?", ((v,) for v in changed))
db.commit()
print("changed copy: %d versions differ" % len(changed), file=sys.stderr)
PY

timeit() { # NAME COMMAND... — median of 5 runs, in ms
    local name=$1; shift
    local times=()
    for _ in 1 2 3 4 5; do
        local t0 t1
        t0=$(date +%s%N); "$@" > /dev/null; t1=$(date +%s%N)
        times+=($(( (t1 - t0) / 1000000 )))
    done
    printf '%-34s %6d ms   (runs: %s)\n' "$name" "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)" "${times[*]}"
}
{
    echo "query benchmark: $(sqlite3 "$db" 'select count(*) from processes') processes, $(sqlite3 "$db" 'select count(*) from accesses') accesses, $(stat -c %s "$db") bytes of trace"
    timeit "who-wrote app (the final binary)" "$bt" who-wrote -d "$db" /work/big/app
    timeit "who-wrote obj/f12345.o" "$bt" who-wrote -d "$db" /work/big/obj/f12345.o
    timeit "who-read include/h0042.h (~375)" "$bt" who-read -d "$db" /work/big/include/h0042.h
    timeit "who-read --json src/f00007.c" "$bt" who-read --json -d "$db" /work/big/src/f00007.c
    timeit "tree (100k processes)" "$bt" tree -d "$db"
    timeit "log (50k chunks, grouped)" "$bt" log -d "$db"
    timeit "log --raw" "$bt" log --raw -d "$db"
    timeit "inputs deep (40-step generator chain)" "$bt" inputs -d "$db" /work/big/deep
    timeit "inputs app (links all: whole build)" "$bt" inputs -d "$db" /work/big/app
    timeit "inputs --leaves obj/f12345.o" "$bt" inputs --leaves -d "$db" /work/big/obj/f12345.o
    timeit "outputs include/h0042.h" "$bt" outputs -d "$db" /work/big/include/h0042.h
    timeit "files --missing" "$bt" files --missing -d "$db"
    timeit "diff against a changed copy" sh -c '"$0" diff "$1" "$2"; [ $? = 1 ]' "$bt" "$db" "$db_b"
    echo "diff's peak memory: $(/usr/bin/time -f %M "$bt" diff "$db" "$db_b" 2>&1 >/dev/null | tail -n 1) KiB"
    "$here/query-all.sh" --build "$build" --product /work/big/app \
        --source /work/big/include/h0042.h "$db"
} | tee "$out"
echo "query-bench: results also in $out" >&2
