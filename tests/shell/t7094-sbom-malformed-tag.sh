#!/bin/sh
# A malformed SPDX-License-Identifier tag ("MIT OR", "(GPL-2.0-only") gives no license
# expression in the SBOMs (NOASSERTION, or none in CycloneDX), never an invalid one that a
# consumer rejects the whole document for; a well-formed compound one is kept.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd python3
mkdir -p "$T/ws/bad" "$T/ws/good" && cd "$T/ws"
printf '// SPDX-License-Identifier: MIT OR\n// SPDX-License-Identifier: (GPL-2.0-only\nint main(void) { return 0; }\n' > bad/m.c
printf '// SPDX-License-Identifier: (MIT OR Apache-2.0) AND GPL-2.0-only WITH Classpath-exception-2.0\nint main(void) { return 0; }\n' > good/m.c
bt run -q -- sh -c 'cc -o bad/prog bad/m.c && cc -o good/prog good/m.c'
bt export --format spdx > spdx.json
bt export --format cyclonedx > cdx.json
bt export --format spdx3 > spdx3.json
python3 - <<'PY'
import json
d = json.load(open("spdx.json"))
by = {f["fileName"]: f for f in d["files"]}
assert by["./bad/prog"]["licenseConcluded"] == "NOASSERTION", by["./bad/prog"]
assert by["./bad/m.c"]["licenseInfoInFiles"] == ["NOASSERTION"], by["./bad/m.c"]
good = by["./good/prog"]["licenseConcluded"]
assert "(MIT OR Apache-2.0)" in good and "GPL-2.0-only WITH Classpath-exception-2.0" in good, good
c = json.load(open("cdx.json"))
for comp in c["components"]:
    for l in comp.get("licenses", []):
        e = l["expression"]
        assert e.count("(") == e.count(")") and "OR)" not in e, e
s3 = open("spdx3.json").read()
assert "MIT OR)" not in s3, "spdx3 holds the malformed expression"
PY
assert_no_leftovers
