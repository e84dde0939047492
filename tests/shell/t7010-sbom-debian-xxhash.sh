#!/bin/sh
# The SBOMs of xxhash 0.8.1-1's Debian build (`run --system -- dpkg-buildpackage`, as t8005)
# carry what buildtrail knows: the shipped libxxhash.so.0.8.1 is BINARY/APPLICATION with
# licenseConcluded BSD-2-Clause (its sources xxhash.c and xxh_x86dispatch.c say so; the CLI's
# GPL-2.0-or-later sources are not in it), the same as `licenses` and in CycloneDX
# ("concluded") and SPDX 3 (hasConcludedLicense); xxhash.c's licenseInfoInFiles is
# BSD-2-Clause and cli/xxhsum.c's GPL-2.0-or-later; no ELF file is typed SOURCE; the
# installed packages the build read from — the same set as `packages` lists — are SPDX
# packages and CycloneDX library components with purls (libc6-dev at the version dpkg-query
# says) related to files they really provide (/usr/include/...).  SPDX 2.3 and CycloneDX
# 1.6 valid by the official schemas (SPDX 3 by t7011/t7012: python's validator takes half an
# hour on this document).
# cost: workload (a real Debian package build: its unprivileged variant is left out of the ASan pass)
# cost: package (a real Debian package build: both variants are left out of the ASan pass)
# shares: xxhash 0.8.1-1|nocheck nodoc|nocheck,nodoc
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/debpkg.sh"
deb_require
export PYTHONPATH="$BT_SHELL_DIR"
deb_build xxhash 0.8.1-1 "nocheck nodoc" nocheck,nodoc
for fmt in spdx cyclonedx spdx3; do
    bt export -d "$TRACE" --format $fmt -o "$T/out.$fmt" || fail "export $fmt failed"
done
cd "$SRC"
lib=$(ls debian/libxxhash0/usr/lib/*/libxxhash.so.0.8.1)
bt licenses -d "$TRACE" --json "$lib" > "$T/lib.lic" || fail "licenses $lib failed"
bt packages -d "$TRACE" --json > "$T/packages.json" || fail "packages failed"
vendor=$(. /etc/os-release 2>/dev/null; echo "${ID:-debian}")
dpkg-query -W -f='${Version} ${Architecture}\n' libc6-dev > "$T/libc6-dev.truth"
dpkg-query -L libc6-dev > "$T/libc6-dev.list"
python3 - "$T" "./$lib" "$vendor" <<'PY' || fail "the SBOMs of xxhash are wrong (above)"
import json, sys, urllib.parse
import sbomcheck as S
T, lib, vendor = sys.argv[1:]
d, files, pkgs, rels, by_id = S.spdx(T + "/out.spdx")
shipped = files[lib]
assert len(shipped) == 1, shipped
f = shipped[0]
assert f["fileTypes"] == ["BINARY", "APPLICATION"], f
assert "BSD-2-Clause" in S.license_items(f["licenseConcluded"]), f
assert not any("GPL" in l for l in S.license_items(f["licenseConcluded"])), f
assert f["licenseConcluded"] == json.load(open(T + "/lib.lic"))["rollup"], f
assert "licenses" in f["licenseComments"]
assert files["./xxhash.c"][0]["licenseInfoInFiles"] == ["BSD-2-Clause"], files["./xxhash.c"]
if "./cli/xxhsum.c" in files:
    assert files["./cli/xxhsum.c"][0]["licenseInfoInFiles"] == ["GPL-2.0-or-later"]
assert files["./xxhash.o"][0]["fileTypes"] == ["BINARY"]
for name, fs in files.items():
    for x in fs:
        path = name if name.startswith("/") else name  # relative to the tree (cwd)
        try:
            head = open(path, "rb").read(4)
        except OSError:
            continue
        if head == b"\x7fELF":
            assert "SOURCE" not in x["fileTypes"] and "BINARY" in x["fileTypes"], x
# the packages: the same set as `packages`, libc6-dev with its version and purl
listed = {p["package"] for p in json.load(open(T + "/packages.json"))["packages"]}
assert set(pkgs) == listed, (set(pkgs) ^ listed)
assert len(pkgs) > 30, len(pkgs)
version, arch = open(T + "/libc6-dev.truth").read().split()
purl = "pkg:deb/%s/libc6-dev@%s?arch=%s" % (vendor, urllib.parse.quote(version, safe=":.-_~"), arch)
p = pkgs["libc6-dev"]
assert p["versionInfo"] == version and p["externalRefs"][0]["referenceLocator"] == purl, p
owned = {l.strip().replace("/usr/", "/", 1) for l in open(T + "/libc6-dev.list")}
contained = [by_id[t]["fileName"] for s, k, t in rels if s == p["SPDXID"] and k == "CONTAINS"]
assert any(c.startswith("/usr/include/") for c in contained), contained
assert all(c.replace("/usr/", "/", 1) in owned for c in contained), contained
# CycloneDX
c, cfiles, libs = S.cdx(T + "/out.cyclonedx")
assert libs["libc6-dev"]["purl"] == purl and set(libs) == listed
assert all(l["type"] == "library" and l["purl"].startswith("pkg:deb/") for l in libs.values())
clib = [x for x in cfiles[lib] if x.get("licenses")]
assert clib and clib[-1]["licenses"][0] == {"expression": f["licenseConcluded"], "acknowledgement": "concluded"}, cfiles[lib]
# SPDX 3
g, r3 = S.spdx3(T + "/out.spdx3")
ids = [k for k, e in g.items() if e["type"] == "software_File" and e["name"] == lib]
assert {g[t]["simplelicensing_licenseExpression"] for s, k, to in r3 if s in ids and k == "hasConcludedLicense" for t in to} == {f["licenseConcluded"]}
assert purl in {e.get("software_packageUrl") for e in g.values()}
PY
assert_sboms_valid "$T/out.spdx" "$T/out.cyclonedx" ""
cd "$T"
assert_no_leftovers
