#!/bin/sh
# A crafted source with many distinct SPDX tags (100000, 5 MB) does not make the SBOM exports'
# work quadratic: each tag was compared with every one before it (about 30 s each here, hours
# for tens of MB); linear work takes a few seconds even on a loaded machine.  Every tag is
# still listed once.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd cc
require_cmd python3
require_cmd timeout
mkdir -p "$T/ws" && cd "$T/ws"
python3 - <<'PY'
with open("m.c", "w") as f:
    for i in range(100000):
        f.write("// SPDX-License-Identifier: LicenseRef-x%d\n" % i)
    f.write("// SPDX-License-Identifier: LicenseRef-x7\nint main(void) { return 0; }\n")
PY
bt run -q -- cc -o prog m.c
for f in spdx spdx3 cyclonedx; do
    st=0; timeout 25 "$BUILDTRAIL" export --format "$f" > "$T/$f.json" || st=$?
    [ "$st" = 0 ] || fail "export --format $f: exit $st (124: over 25 s)"
done
python3 - "$T/spdx.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["files"] if x["fileName"].endswith("m.c")][0]
l = f["licenseInfoInFiles"]
assert len(l) == 100000 and len(set(l)) == 100000, len(l)
PY
assert_no_leftovers
