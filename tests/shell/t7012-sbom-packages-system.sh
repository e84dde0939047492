#!/bin/sh
# The Debian packages a `run --system` build read files of are in the SBOMs: SPDX 2.3
# packages and SPDX 3 software_Package with purls (pkg:deb/VENDOR/NAME@VERSION?arch=ARCH, the
# version and arch dpkg-query says, percent-encoded) that CONTAIN the files of them the
# document lists — each really theirs by `dpkg-query -L`; CycloneDX library components with
# the same purls, their files as evidence occurrences, and the program depending on them.
# A made-up dpkg database (--admindir) with names SPDX ids do not allow ('+') and an epoch
# gets distinct valid ids and encoded purls; one that is not a database (a FIFO, nothing) is
# refused.  All valid by the official schemas.
# cost: workload (a --system build whose exports are checked by schema: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd dpkg-query
require_cmd python3
[ -f /usr/include/zlib.h ] || missing "zlib1g-dev (apt-get install zlib1g-dev)"
export PYTHONPATH="$BT_SHELL_DIR"
mkdir "$T/ws" && cd "$T/ws"
printf '#include <stdio.h>\n#include <zlib.h>\nint main(void) { return puts(zlibVersion()) < 0; }\n' > z.c
bt run --system -o "$T/sys.db" -- cc -o z z.c -lz > "$T/build.log" 2>&1 || fail "build failed: $(cat "$T/build.log")"
for fmt in spdx cyclonedx spdx3; do
    bt export -d "$T/sys.db" --format $fmt -o "$T/out.$fmt" || fail "export $fmt failed"
done
vendor=$(. /etc/os-release 2>/dev/null; echo "${ID:-debian}")
dpkg-query -W -f='${Package} ${Version} ${Architecture}\n' zlib1g-dev libc6-dev > "$T/truth"
for p in zlib1g-dev libc6-dev; do dpkg-query -L $p > "$T/$p.list"; done
python3 - "$T/out.spdx" "$T/out.cyclonedx" "$T/out.spdx3" "$T/truth" "$T" "$vendor" <<'PY' || fail "the SBOMs' packages are wrong (above)"
import sys, urllib.parse
import sbomcheck as S
spdx_path, cdx_path, s3_path, truth_path, T, vendor = sys.argv[1:]
enc = lambda s: urllib.parse.quote(s, safe=":.-_~")
truth = {}
for line in open(truth_path):
    name, version, arch = line.split()
    truth[name] = (version, "pkg:deb/%s/%s@%s?arch=%s" % (vendor, name, enc(version), arch))
def norm(p):  # merged /usr: /lib/x is /usr/lib/x
    return p[4:] if p.startswith("/usr/") else p
d, files, pkgs, rels, by_id = S.spdx(spdx_path)
pid = {p["SPDXID"]: p for p in d["packages"]}
for name, (version, purl) in truth.items():
    p = pkgs[name]
    assert p["versionInfo"] == version, p
    assert [r["referenceLocator"] for r in p["externalRefs"] if r["referenceType"] == "purl"] == [purl], p
    owned = {norm(l.strip()) for l in open("%s/%s.list" % (T, name))}
    contained = [by_id[t]["fileName"] for f, k, t in rels if f == p["SPDXID"] and k == "CONTAINS"]
    assert contained and all(norm(c) in owned for c in contained), (name, contained)
    if name == "zlib1g-dev":
        assert "/usr/include/zlib.h" in contained, contained
    if name == "libc6-dev":
        assert "/usr/include/stdio.h" in contained, contained
assert files["./z"][0]["fileTypes"] == ["BINARY", "APPLICATION"], files["./z"]
assert len(pid) == len(d["packages"]) > 2
# CycloneDX: library components with the same purls; the program depends on zlib1g-dev
c, cfiles, libs = S.cdx(cdx_path)
for name, (version, purl) in truth.items():
    l = libs[name]
    assert l["type"] == "library" and l["purl"] == purl and l["bom-ref"] == purl and l["version"] == version, l
zl = {o["location"] for o in libs["zlib1g-dev"]["evidence"]["occurrences"]}
assert "/usr/include/zlib.h" in zl, zl
zref = cfiles["./z"][-1]["bom-ref"]
dep = [x for x in c["dependencies"] if x["ref"] == zref]
assert dep and truth["zlib1g-dev"][1] in dep[0]["dependsOn"], dep
# SPDX 3: the package with its purl, containing zlib.h
g, r3 = S.spdx3(s3_path)
p3 = [k for k, e in g.items() if e["type"] == "software_Package" and e["name"] == "zlib1g-dev"]
assert len(p3) == 1 and g[p3[0]]["software_packageUrl"] == truth["zlib1g-dev"][1]
assert "/usr/include/zlib.h" in {g[t]["name"] for f, k, to in r3 if f == p3[0] and k == "contains" for t in to}
PY
assert_sboms_valid "$T/out.spdx" "$T/out.cyclonedx" "$T/out.spdx3"
# A made-up database: '+' in a name (not allowed in SPDX ids), a name that sanitizes the same,
# an epoch and '+' in a version.
mkdir -p "$T/dpkg/info"
cat > "$T/dpkg/status" <<'EOF2'
Package: g++-fake
Status: install ok installed
Architecture: amd64
Version: 1:2.0+b1~rc
Source: fakesrc (3.0)

Package: g--fake
Status: install ok installed
Architecture: all
Version: 1.0
EOF2
echo /usr/include/zlib.h > "$T/dpkg/info/g++-fake.list"
echo /usr/include/stdio.h > "$T/dpkg/info/g--fake.list"
bt export -d "$T/sys.db" --admindir "$T/dpkg" --format spdx -o "$T/fake.spdx" || fail "export with --admindir failed"
bt export -d "$T/sys.db" --admindir "$T/dpkg" --format cyclonedx -o "$T/fake.cdx" || fail "export cyclonedx with --admindir failed"
python3 - "$T/fake.spdx" "$T/fake.cdx" "$vendor" <<'PY' || fail "made-up packages (above)"
import re, sys
import sbomcheck as S
d, files, pkgs, rels, by_id = S.spdx(sys.argv[1])
assert set(pkgs) == {"g++-fake", "g--fake"}, set(pkgs)
ids = [p["SPDXID"] for p in pkgs.values()]
assert len(set(ids)) == 2 and all(re.fullmatch(r"SPDXRef-[A-Za-z0-9.-]+", i) for i in ids), ids
purl = pkgs["g++-fake"]["externalRefs"][0]["referenceLocator"]
assert purl == "pkg:deb/%s/g%%2B%%2B-fake@1:2.0%%2Bb1~rc?arch=amd64" % sys.argv[3], purl
assert "fakesrc 3.0" in pkgs["g++-fake"]["sourceInfo"], pkgs["g++-fake"]
c, cfiles, libs = S.cdx(sys.argv[2])
assert libs["g--fake"]["purl"] == "pkg:deb/%s/g--fake@1.0?arch=all" % sys.argv[3], libs["g--fake"]
PY
# A chroot's database (ROOT/var/lib/dpkg) names its own distribution in the purls, from
# ROOT/etc/os-release, else ROOT/usr/lib/os-release: never the exporting machine's.
mkdir -p "$T/root/var/lib" "$T/root/etc" "$T/root2/var/lib" "$T/root2/usr/lib"
cp -r "$T/dpkg" "$T/root/var/lib/dpkg"
cp -r "$T/dpkg" "$T/root2/var/lib/dpkg"
printf 'NAME="Other"\nID=otherdist\n' > "$T/root/etc/os-release"
printf 'ID="libdist"\n' > "$T/root2/usr/lib/os-release"
for r in root:otherdist root2:libdist; do
    bt export -d "$T/sys.db" --admindir "$T/${r%%:*}/var/lib/dpkg" --format cyclonedx -o "$T/chroot.cdx" ||
        fail "export with a chroot's --admindir failed"
    python3 - "$T/chroot.cdx" "${r#*:}" <<'PY' || fail "the chroot's vendor (above)"
import sys
import sbomcheck as S
c, cfiles, libs = S.cdx(sys.argv[1])
assert libs["g--fake"]["purl"] == "pkg:deb/%s/g--fake@1.0?arch=all" % sys.argv[2], libs["g--fake"]
PY
done
assert_sboms_valid "$T/fake.spdx" "$T/fake.cdx" ""
# --admindir that is not a dpkg database: one line and exit 2, never a read that waits on a
# FIFO for ever, nor an SBOM that silently has no packages.
mkdir "$T/fifo" && mkfifo "$T/fifo/status"
for dir in "$T/fifo" "$T/nothere"; do
    timeout 60 "$BUILDTRAIL" export -d "$T/sys.db" --admindir "$dir" --format spdx > "$T/bad.out" 2> "$T/bad.err" && st=0 || st=$?
    [ "$st" = 2 ] || fail "--admindir $dir: exit $st (124: it hung): $(cat "$T/bad.err")"
    [ "$(wc -l < "$T/bad.err")" = 1 ] && grep -q "buildtrail export: --admindir" "$T/bad.err" ||
        fail "--admindir $dir: $(cat "$T/bad.err")"
done
cd "$T"
assert_no_leftovers
