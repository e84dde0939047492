#!/bin/sh
# repro on dash's Debian package (the workload cache), as root and unprivileged (fakeroot:
# FAKEROOTKEY differs in every process, and is no cause):
# - under the variations Debian's reproducibility tests apply (all, user_group included: its
#   cp -a and chown under fakeroot get EPERM as another user's would, which fakeroot hides;
#   time is never varied), its packages are identical: exit 0, "reproducible", with
#   user_group varied (said in the experiment's trace);
# - a copy whose debian/rules ships a listing of src/ in `ls -f` order is not: the .deb
#   differs, the member named (data.tar.xz ./usr/share/doc/dash/src-order), and its cause is
#   that file, written by the grep at the end of the `ls -f src | grep` pipeline (the chain
#   from the .deb follows dpkg-deb's tar down to it, not stopping at dpkg-deb), which
#   fileordering may explain (the pipeline's ls -f listed src/).
# cost: package (four whole Debian package builds, two repro runs)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
dsc=$(workload dash_0.5.12-2.dsc)
for f in dash_0.5.12.orig.tar.gz dash_0.5.12-2.debian.tar.xz; do workload "$f" > /dev/null; done
unpack() { # DIR: dash's tree in DIR/dash-0.5.12
    mkdir -p "$1"
    (cd "$1" && dpkg-source -x "$dsc" > "$T/unpack.log" 2>&1) || fail "dpkg-source -x: $(tail -3 "$T/unpack.log")"
}
unpack "$T/a"
cd "$T/a/dash-0.5.12"
set +e
DEB_BUILD_OPTIONS="nocheck parallel=2" bt repro --vary all --artifacts '../*.deb' \
    -o "$T/o1" -- dpkg-buildpackage -b -uc -us > "$T/r1" 2> "$T/e1"; st=$?
set -e
[ "$st" = 0 ] || fail "dash under the variations: exit $st: $(cat "$T/r1" "$T/e1" | head -40)"
head -1 "$T/r1" | grep -q '^reproducible: [1-9][0-9]* artifacts* identical$' || fail "the verdict: $(cat "$T/r1")"
ls "$T"/o1/experiment/*.deb > /dev/null || fail "the packages beside the experiment's copy"
assert_eq "$(sql "$T/o1/experiment.db" "SELECT applied || coalesce(why_not, '') FROM variations WHERE name = 'user_group'")" \
    1 "user_group made, wholly"

unpack "$T/b"
cd "$T/b/dash-0.5.12"
printf '\nexecute_after_dh_install:\n\tmkdir -p debian/dash/usr/share/doc/dash && ls -f src | grep -v "^\\\\." > debian/dash/usr/share/doc/dash/src-order\n' >> debian/rules
set +e
DEB_BUILD_OPTIONS="nocheck parallel=2" bt repro --json --vary fileordering,timezone,umask \
    --artifacts '../*.deb' -o "$T/o2" -- dpkg-buildpackage -b -uc -us > "$T/r2.json" 2> "$T/e2"; st=$?
set -e
[ "$st" = 1 ] || fail "the listing order shipped: exit $st: $(cat "$T/e2")"
python3 - "$T/r2.json" <<'PY' || fail "the listing order: $(cat "$T/r2.json" | head -c 3000)"
import json, sys
d = json.load(open(sys.argv[1]))
arts = {a["relative"]: a for a in d["artifacts"]}
(deb,) = [a for r, a in arts.items() if r.startswith("../dash_") and r.endswith(".deb")]
assert deb["state"] == "differs", deb
members = {(m["member"], m["kind"]) for m in deb["members"]}
assert ("data.tar.xz ./usr/share/doc/dash/src-order", "content") in members, members
assert not [a for a in d["artifacts"] if a is not deb and a["state"] != "identical"], d["artifacts"]
causes = [d["root_causes"][c["cause"]] for c in deb["causes"]]
own = [c for c in causes if c["key"].endswith("debian/dash/usr/share/doc/dash/src-order")]
assert own, [(c["kind"], c["key"]) for c in causes]
c = own[0]
argv = " ".join(c["process_experiment"]["argv"])
assert argv.startswith("grep -v"), argv   # the writer: the pipeline's last process
assert "fileordering" in c["may_explain"], c   # ... whose `ls -f` listed src/
chain = [x["chain"] for x in deb["causes"] if d["root_causes"][x["cause"]] is c][0]
assert chain and chain[-1].endswith("/src-order"), chain   # through dpkg-deb and its tar
PY
assert_no_leftovers
