#!/bin/sh
# critical-path on a make -j2 build of known shape: a generator (1 s) that both jobs wait
# for, then a long job (a copy of the header, then 2 s) and a short one (0.2 s).  The path
# runs through the generator, the copy (which waited for the header) and the long job, not
# the short one; steps are in time order, each wait from the previous
# step's end to its start; -j2 is found and the stretches of one job at a time listed; text
# and JSON agree.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
# (long's cp is a command make runs itself, no shell: the task that reads gen.h)
printf 'all: final short\ngen.h:\n\tsleep 1.0; echo "#define X 1" > gen.h\nlong: gen.h\n\tcp gen.h long\nfinal: long\n\tsleep 2.0\nshort: gen.h\n\tcat gen.h > short; sleep 0.2\n' > Makefile
bt run -o "$T/t.db" -- make -j2 > "$T/build.log" 2>&1 || fail "build: $(cat "$T/build.log")"
bt critical-path -d "$T/t.db" --json > "$T/cp.json" || fail "critical-path --json"
bt critical-path -d "$T/t.db" > "$T/cp.txt" || fail "critical-path"
python3 - "$T/cp.json" "$T/cp.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
assert d["trace"]["complete"] is True
steps = d["steps"]
argv = [" ".join(s["process"]["argv"] or []) for s in steps]
assert any(a == "sleep 1.0" for a in argv), argv
assert any(a == "sleep 2.0" for a in argv), argv
assert not any(a == "sleep 0.2" for a in argv), argv
assert argv.index("sleep 1.0") < argv.index("cp gen.h long") < argv.index("sleep 2.0")
# make started cp after the generator's shell ended; what cp waited for is the header it wrote
cp = steps[argv.index("cp gen.h long")]
assert cp["waited_for"]["kind"] == "file" and cp["waited_for"]["path"].endswith("/gen.h"), cp["waited_for"]
# (written by the generator's shell after its sleep, the step before)
assert argv[argv.index("cp gen.h long") - 1] == "sleep 1.0", argv
assert steps[0]["waited_for"]["kind"] == "start" and steps[0]["process"]["argv"][0] == "make"
prev = None
for s in steps:
    assert s["path_from_ns"] <= s["path_to_ns"]
    assert s["waited_for"]["kind"] in ("start", "parent", "file")
    if prev:
        assert s["path_from_ns"] >= prev["path_to_ns"], (prev, s)
        assert s["wait_ns"] == s["path_from_ns"] - prev["path_to_ns"]
        assert s["waited_for"]["after"] == prev["process"]["id"]
    prev = s
assert d["running_ns"] <= d["wall_ns"] and d["running_ns"] > 0.8 * d["wall_ns"], d
# the long sleep ran to the end of the path: the build ended right after it
last = [s for s in steps if " ".join(s["process"]["argv"]) == "sleep 2.0"][0]
assert d["wall_ns"] - last["path_to_ns"] < 0.5e9, (d["wall_ns"], last)
par = d["parallelism"]
assert par["jobs_allowed"] == 2 and par["max"] == 2, par
assert len(par["buckets"]) == 60
assert par["serial"], "one job at a time: the generator, then the long job alone"
# the same steps in the text, in order
lines = [l for l in text.splitlines() if l.startswith(" ") and "[" in l and not l.strip().startswith("(")]
ids = [int(l.split("[", 1)[1].split("]", 1)[0]) for l in lines[:len(steps)]]
assert ids == [s["process"]["id"] for s in steps], (ids, [s["process"]["id"] for s in steps])
assert text.startswith("critical path: ")
assert "-j2 allowed" in text and "one job at a time while -j2 allowed more" in text, text
PY
echo "ok"
