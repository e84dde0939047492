#!/bin/sh
# export: every format from a traced zlib build, each checked by its consumer — Bear's
# compile_commands.json and clang-tidy, Graphviz, the official SPDX 2.3 and CycloneDX 1.6
# JSON schemas — or, for formats without one, by their structure and the hashes of the files.
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd python3
tarball=$(workload zlib_1.2.13.dfsg.orig.tar.bz2)
tar xjf "$tarball" -C "$T"
src="$T/zlib-1.2.13.dfsg"
cd "$src"
bt run -o "$T/trace.db" -- sh -c './configure && make -j2' > "$T/build.log" 2>&1 || fail "build failed: $(tail "$T/build.log")"
ex() { fmt=$1; shift; bt export -d "$T/trace.db" --format "$fmt" -o "$T/out.$fmt" "$@" || fail "export $fmt failed"; }
for f in compile-commands dot chrome-trace spdx cyclonedx intoto slsa; do ex $f; done

# compile-commands: one entry per compiled file, the object each compile really wrote.
python3 - "$T/out.compile-commands" "$src" <<'PY'
import json, sys
db = json.load(open(sys.argv[1])); src = sys.argv[2]
files = sorted((e["file"], e["output"]) for e in db)
assert (src + "/adler32.c", src + "/adler32.o") in files, files[:5]
assert (src + "/adler32.c", src + "/objs/adler32.o") in files, "the shared-library compile too (its output is renamed to .lo later)"
assert (src + "/test/example.c", src + "/example.o") in files
assert not any("ztest" in f for f, _ in files), "configure's deleted test sources are left out"
assert all(e["directory"] == src and e["arguments"][0].startswith("/") for e in db)
assert len(db) == 34, len(db)
PY
if command -v bear >/dev/null 2>&1; then
    # The same build under Bear: the same (file, output, arguments) for every entry, the
    # program as invoked (arguments[0]) included.
    mkdir "$T/bear" && tar xjf "$tarball" -C "$T/bear"
    (cd "$T/bear/zlib-1.2.13.dfsg" && bear -- sh -c './configure && make -j2' > /dev/null 2>&1) || fail "bear build failed"
    python3 - "$T/out.compile-commands" "$T/bear/zlib-1.2.13.dfsg/compile_commands.json" <<'PY'
import json, os, sys
def key(path):
    return sorted((os.path.relpath(e["file"], e["directory"]),
                   os.path.relpath(e["output"], e["directory"]), tuple(e["arguments"]))
                  for e in json.load(open(path)))
ours, bears = key(sys.argv[1]), key(sys.argv[2])
assert ours == bears, (set(ours) ^ set(bears))
PY
else
    missing_part "bear (apt-get install bear): comparison with Bear"
fi
if command -v clang-tidy >/dev/null 2>&1; then
    cp "$T/out.compile-commands" "$src/compile_commands.json"
    out=$(clang-tidy -p "$src" --checks='-*,clang-analyzer-core.*' "$src/inflate.c" 2>&1) || fail "clang-tidy failed: $out"
    case "$out" in *"Error while"*|*"error:"*) fail "clang-tidy could not use the database: $out";; esac
else
    missing_part "clang-tidy (apt-get install clang-tidy): the compilation database in use"
fi

# dot: Graphviz renders the whole graph and a closure with collapsed system files.
if command -v dot >/dev/null 2>&1; then
    dot -Tsvg "$T/out.dot" > "$T/all.svg" || fail "dot rejected the whole-build graph"
    bt export -d "$T/trace.db" --format dot --closure-of libz.a --collapse /usr --depth 4 | dot -Tsvg > "$T/libz.svg" || fail "dot rejected the closure graph"
    grep -q "adler32.o" "$T/libz.svg" || fail "the closure graph lacks adler32.o"
else
    missing_part "dot (apt-get install graphviz): rendering the graphs"
fi

# SPDX 2.3 and CycloneDX 1.6 against the official schemas; and what they say.
assert_sboms_valid "$T/out.spdx" "$T/out.cyclonedx" ""
python3 - "$T/out.spdx" "$T/out.cyclonedx" "$src" <<'PY'
import hashlib, json, sys
spdx = json.load(open(sys.argv[1])); cdx = json.load(open(sys.argv[2])); src = sys.argv[3]
files = {f["SPDXID"]: f for f in spdx["files"]}
libz = [i for i, f in files.items() if f["fileName"] == "./libz.a"][0]
data = open(src + "/libz.a", "rb").read()
sums = {c["algorithm"]: c["checksumValue"] for c in files[libz]["checksums"]}
assert sums["SHA256"] == hashlib.sha256(data).hexdigest() and sums["SHA1"] == hashlib.sha1(data).hexdigest()
gen = {files[r["relatedSpdxElement"]]["fileName"] for r in spdx["relationships"]
       if r["relationshipType"] == "GENERATED_FROM" and r["spdxElementId"] == libz}
assert "./adler32.c" in gen and "./zlib.h" in gen and "./test/example.c" not in gen, sorted(gen)
tools = {files[r["spdxElementId"]]["fileName"] for r in spdx["relationships"] if r["relationshipType"] == "BUILD_TOOL_OF"}
assert "./configure" in tools, tools
comps = {c["bom-ref"]: c for c in cdx["components"]}
tasks = cdx["formulation"][0]["workflows"][0]["tasks"]
makers = [t["name"].split()[0] for t in tasks
          if any(comps[o["resource"]["ref"]]["name"] == "./libz.a" for o in t["outputs"])]
assert makers and set(makers) <= {"ar", "ranlib"}, makers  # ranlib rewrites what ar made
cc = [t for t in tasks if t["name"].startswith("as ") and "adler32.o" in t["name"]]
assert cc and any(comps[i["resource"]["ref"]]["name"].startswith("/tmp/") for i in cc[0]["inputs"])
PY

# chrome-trace: Trace Event JSON; slices on one lane never overlap; every compile is there;
# every task has one slice, from its fork to its last image's exit, named by that image's argv.
python3 - "$T/out.chrome-trace" "$T/trace.db" <<'PY'
import json, sqlite3, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["traceEvents"] if e["ph"] == "X" and e["cat"] == "process"]
# the critical path (as `critical-path` finds it): a track of its own, arrows between steps
cp = [e for e in d["traceEvents"] if e.get("cat") == "critical_path"]
track = [e for e in cp if e["ph"] == "X"]
assert len(track) > 10 and len({e["tid"] for e in track}) == 1
assert sorted(e["id"] for e in cp if e["ph"] == "s") == sorted(e["id"] for e in cp if e["ph"] == "f")
assert len(ev) > 100 and all(e["dur"] > 0 and e["ts"] >= 0 for e in ev)
lanes = {}
for e in sorted(ev, key=lambda e: e["ts"]):
    end = lanes.get(e["tid"], -1)
    assert e["ts"] >= end - 1e-3, ("overlap on lane", e["tid"])
    lanes[e["tid"]] = e["ts"] + e["dur"]
assert any(e["args"]["argv"][:1] == ["ar"] and any(p.endswith("/libz.a") for p in e["args"]["files_written"]) for e in ev)
assert any(m["name"] == "thread_name" for m in d["traceEvents"] if m["ph"] == "M")
db = sqlite3.connect("file:%s?mode=ro" % sys.argv[2], uri=True)
run_start = db.execute("select start_ns from runs").fetchone()[0]
procs = {i: (prev, start, parent, argv) for i, prev, start, parent, argv in
         db.execute("select id, prev_image_id, start_ns, parent_id, argv from processes")}
ends = dict(db.execute("select process_id, end_ns from exits"))
def first(i):
    while procs[i][0]:
        i = procs[i][0]
    return i
by_task = {}
for e in ev:
    last = e["args"]["id"]
    f = first(last)
    assert f not in by_task, ("two slices for one task", f)
    by_task[f] = e
    assert abs(e["ts"] * 1000 + run_start - procs[f][1]) <= 2, ("start", e["ts"], procs[f][1])
    if last in ends:
        assert abs((e["ts"] + e["dur"]) * 1000 + run_start - ends[last]) <= 2, ("end", last)
    argv = [a.decode() for a in (procs[last][3] or b"").split(b"\0")[:-1]]
    assert e["args"]["argv"] == argv, (e["args"]["argv"], argv)
assert len(by_task) == sum(1 for p in procs.values() if not p[0]), "every task has a slice"
assert ends or db.execute("select process_tree from runs").fetchone()[0] != "complete"
for f, e in by_task.items():  # a child starts after its parent did
    parent = procs[f][2]
    if parent:
        assert by_task[first(parent)]["ts"] <= e["ts"], ("child before parent", f)
PY

# in-toto runtime trace and SLSA provenance: subjects with the digests of the files.
python3 - "$T/out.intoto" "$T/out.slsa" "$src" <<'PY'
import hashlib, json, subprocess, sys
it = json.load(open(sys.argv[1])); sl = json.load(open(sys.argv[2])); src = sys.argv[3]
for st in (it, sl):
    assert st["_type"] == "https://in-toto.io/Statement/v1"
    subj = {s["name"]: s["digest"] for s in st["subject"]}
    data = open(src + "/libz.a", "rb").read()
    assert subj["./libz.a"]["sha256"] == hashlib.sha256(data).hexdigest()
    assert subj["./libz.a"]["gitBlob"] == hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
assert it["predicateType"].startswith("https://in-toto.io/attestation/runtime-trace/")
acc = it["predicate"]["monitorLog"]["fileAccess"]
assert any(a["path"] == src + "/adler32.c" and a["access"] == "read" and "digest" in a for a in acc)
assert sl["predicateType"] == "https://slsa.dev/provenance/v1"
deps = {d["name"]: d["digest"]["sha256"] for d in sl["predicate"]["buildDefinition"]["resolvedDependencies"]}
assert deps["./adler32.c"] == hashlib.sha256(open(src + "/adler32.c", "rb").read()).hexdigest()
assert "./libz.a" not in deps, "a file the build made is not a dependency"
assert [b["name"] for b in sl["predicate"]["runDetails"]["byproducts"]] == ["build log", "buildtrail trace"]
PY

# Bad input: one line, exit 2.
set +e; bt export -d "$T/trace.db" --format nope 2>"$T/err"; st=$?; set -e
[ "$st" = 2 ] || fail "unknown format: exit $st"
assert_contains "$(cat "$T/err")" "'nope' is not a format" "message"
assert_contains "$(bt export --help)" "compile-commands" "--help lists the formats"
assert_no_leftovers
