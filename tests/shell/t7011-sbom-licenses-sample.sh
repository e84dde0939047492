#!/bin/sh
# The SBOM exports carry what buildtrail knows of licenses and file kinds, on the bundled
# sample (no --system): each read file's detected licenses (SPDX 2.3 licenseInfoInFiles,
# CycloneDX "declared", SPDX 3 hasDeclaredLicense), each product's roll-up of what it
# incorporates (licenseConcluded with the method in licenseComments, CycloneDX "concluded",
# SPDX 3 hasConcludedLicense) — the same as `licenses` says — a LicenseRef- with its
# extracted-licensing entry, and fileTypes from what the file is (the program BINARY and
# APPLICATION, the archive ARCHIVE, objects BINARY, sources SOURCE); all three valid by the
# official schemas.  With a dpkg database of no packages (--admindir) no packages.
# cost: workload (a real upstream build: its unprivileged variant is left out of the ASan pass)
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd make
require_cmd cc
require_cmd python3
export PYTHONPATH="$BT_SHELL_DIR"
mkdir "$T/ws" && cp -r "$SAMPLE/." "$T/ws/" && cd "$T/ws"
# The licenses each file declares (REUSE tags): the ground truth below.
for f in src/greet.c:MIT src/shout.c:Apache-2.0 src/main.c:'GPL-2.0-or-later WITH Bison-exception-2.2' \
         src/greet.h:LicenseRef-Sample-Terms; do
    file=${f%%:*}
    { printf '/* SPDX-License-Identifier: %s */\n' "${f#*:}"; cat "$file"; } > "$T/tmp" && mv "$T/tmp" "$file"
done
bt run -o "$T/trace.db" -- make -j2 > "$T/build.log" 2>&1 || fail "build failed: $(cat "$T/build.log")"
mkdir "$T/nodpkg" && : > "$T/nodpkg/status" # a dpkg database with no packages
for fmt in spdx cyclonedx spdx3; do
    bt export -d "$T/trace.db" --admindir "$T/nodpkg" --format $fmt -o "$T/out.$fmt" ||
        fail "export $fmt failed"
done
bt licenses -d "$T/trace.db" --json hello > "$T/hello.lic" || fail "licenses hello failed"
python3 - "$T/out.spdx" "$T/out.cyclonedx" "$T/out.spdx3" "$T/hello.lic" <<'PY' || fail "the SBOMs do not say what the files say (above)"
import json, sys
import sbomcheck as S
d, files, pkgs, rels, by_id = S.spdx(sys.argv[1])
def one(name):
    assert len(files.get(name, [])) == 1, (name, files.get(name))
    return files[name][0]
want = {"./src/greet.c": {"MIT"}, "./src/shout.c": {"Apache-2.0"},
        "./src/main.c": {"GPL-2.0-or-later WITH Bison-exception-2.2"},
        "./src/greet.h": {"LicenseRef-Sample-Terms"}}
for name, lic in want.items():
    f = one(name)
    assert set(f["licenseInfoInFiles"]) == lic, f
    assert f["fileTypes"] == ["SOURCE"], f
    assert f["licenseConcluded"] == "NOASSERTION", f
hello, lib = one("./hello"), one("./libgreet.a")
assert hello["fileTypes"] == ["BINARY", "APPLICATION"], hello
assert lib["fileTypes"] == ["ARCHIVE"], lib
assert one("./src/greet.o")["fileTypes"] == ["BINARY"]
assert S.license_items(hello["licenseConcluded"]) == set().union(*want.values()), hello
assert S.license_items(lib["licenseConcluded"]) == {"MIT", "Apache-2.0", "LicenseRef-Sample-Terms"}, lib
assert "AND" in hello["licenseConcluded"] and "licenses" in hello["licenseComments"], hello
# the same roll-up as `licenses`
assert json.load(open(sys.argv[4]))["rollup"] == hello["licenseConcluded"]
# a system header of the toolchain never typed as anything else than SOURCE or absent
assert [e["licenseId"] for e in d["hasExtractedLicensingInfos"]] == ["LicenseRef-Sample-Terms"]
assert d["packages"] == [], d["packages"]
# CycloneDX
c, cfiles, libs = S.cdx(sys.argv[2])
assert not libs, libs
h = cfiles["./hello"][-1]
assert h["licenses"] == [{"expression": hello["licenseConcluded"], "acknowledgement": "concluded"}], h
assert cfiles["./src/greet.c"][0]["licenses"] == [{"expression": "MIT", "acknowledgement": "declared"}]
# SPDX 3
g, r3 = S.spdx3(sys.argv[3])
def lic3(name, kind):
    ids = [k for k, e in g.items() if e["type"] == "software_File" and e["name"] == name]
    return {g[t]["simplelicensing_licenseExpression"] for f, k, to in r3 if f in ids and k == kind for t in to}
assert lic3("./hello", "hasConcludedLicense") == {hello["licenseConcluded"]}, lic3("./hello", "hasConcludedLicense")
assert lic3("./src/greet.c", "hasDeclaredLicense") == {"MIT"}
assert {g[k]["software_primaryPurpose"] for k, e in g.items() if e.get("name") == "./hello"} == {"executable"}
doc = [e for e in g.values() if e["type"] == "SpdxDocument"][0]
assert "simpleLicensing" in doc["profileConformance"]
PY
assert_sboms_valid "$T/out.spdx" "$T/out.cyclonedx" "$T/out.spdx3"
cd "$T"
assert_no_leftovers
