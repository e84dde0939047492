#!/bin/sh
# dash's Debian package built twice, traced, at two paths (.../p1/pkg/dash-0.5.12 and
# .../p2x/pkg/dash-0.5.12), nothing else changed: the .debs are byte-identical, and diff says
# so.  The build's layout maps (/…/p1 onto /…/p2x), so the packages, the .buildinfo and the
# .changes dpkg-buildpackage leaves in `..` are compared, never "only in A/B"; they lead the
# report ("artifacts:"); the intermediate files that embed the build path (Makefile,
# config.status, config.log, builtins.def) are one cause, "build path: /…/p1 → /…/p2x";
# configure's repeated temporaries (conftest.err written by `gcc -v`, then `gcc -V`...,
# confdefs.h appended to) pair with the other build's made by the same command, in order, so
# no cause is a wrong pairing (no argv `-v → -version`, no "written in 19 steps by one build
# and 39 by the other", no temporary "read by one build only").
# cost: package (two whole Debian package builds, one test: both variants are left out of
# the ASan pass)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
mkdir "$T/p1" "$T/p2x"
deb_build_into "$T/p1" dash 0.5.12-2 nocheck nocheck
A=$TRACE PA=$PKG
deb_build_into "$T/p2x" dash 0.5.12-2 nocheck nocheck
B=$TRACE PB=$PKG
for deb in "$PA"/*.deb; do
    cmp -s "$deb" "$PB/$(basename "$deb")" || missing "the two builds' $(basename "$deb") differ here (not reproducible on this machine)"
done
set +e; out=$(bt diff "$A" "$B"); st=$?; set -e
[ "$st" -le 1 ] || fail "exit $st: $out"
printf '%s\n' "$out" | grep -Eq '^products: [0-9]+ identical, [0-9]+ differ, 0 only in A, 0 only in B$' ||
    fail "every product matched: $out"
printf '%s\n' "$out" | grep -Eq '^artifacts: [0-9]+ identical, [0-2] differ, 0 only in A, 0 only in B$' ||
    fail "artifacts first: $out"
[ "$(printf '%s\n' "$out" | sed -n 3p | cut -c1-10)" = "artifacts:" ] || fail "the artifacts lead: $out"
for deb in "$PB"/*.deb; do
    assert_contains "$out" "  identical: $deb" "the package $(basename "$deb")"
done
printf '%s\n' "$out" | grep -q '^  differs: .*\.deb$' && fail "a .deb said to differ: $out"
bt diff --json "$A" "$B" > "$T/d.json" || [ $? = 1 ] || fail "diff --json"
python3 - "$T/d.json" "$T/p1" "$T/p2x" <<'PY' || fail "the causes: $out"
import json, sys
d = json.load(open(sys.argv[1]))
p1, p2 = sys.argv[2], sys.argv[3]
causes = d["root_causes"]
kinds = [c["kind"] for c in causes]
# nothing that is not true: no pairing mistake, no temporary read by one build only
assert "unexplained" not in kinds and "inputs" not in kinds, [(c["kind"], c["path"], c["detail"][:90]) for c in causes]
assert not any("-version" in c["detail"] or "conftest" in c["path"] or "confdefs" in c["path"]
               for c in causes), [(c["kind"], c["path"]) for c in causes]
# a command line given as one argument (sh -c '/usr/bin/autom4te ...', its --trace options in
# perl's hash order) is said by what differs inside it, not as two whole command lines
assert all(len(c["detail"]) < 1000 for c in causes), [c["detail"][:200] for c in causes if len(c["detail"]) >= 1000]
bp = [c for c in causes if c["kind"] == "build path"]
assert len(bp) == 1, kinds
assert bp[0]["detail"].startswith(p1 + " \u2192 " + p2 + ", embedded by "), bp[0]["detail"]
names = {p.rsplit("/", 1)[1] for p in bp[0]["products"]}
assert {"Makefile", "config.status", "config.log"} <= names, names
arts = d["artifacts"]
assert any(a.endswith(".deb") for a in arts) and not any(a.endswith(".deb") for a in d["differ"]), arts
assert not d["only_a"] and not d["only_b"], (d["only_a"], d["only_b"])
# what differs among the artifacts is what dpkg-genbuildinfo dates, and the .changes listing it
for a in d["differ"]:
    if a in arts:
        assert a.endswith((".buildinfo", ".changes")), a
PY
cd "$T"
assert_no_leftovers
