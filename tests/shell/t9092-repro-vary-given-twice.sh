#!/bin/sh
# repro --vary given again goes on from the last LIST, as run's does (`--vary all --vary
# -umask`: every variation but umask), never the last LIST alone (it varied nothing there,
# and `--vary home --vary umask` umask alone).
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/tree"
cd "$T/tree"
printf '#!/bin/sh\nmkdir -p out && umask > out/u && echo "$HOME" > out/h\n' > build.sh
chmod +x build.sh
bt repro --json --vary home --vary umask -o "$T/o1" -- ./build.sh > "$T/j1" 2> "$T/err" || true
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["asked"] == ["home", "umask"], d["asked"]' "$T/j1" || fail "--vary home --vary umask: $(cat "$T/j1" "$T/err")"
bt repro --json --vary all --vary -umask,-home -o "$T/o2" -- ./build.sh > "$T/j2" 2> "$T/err" || true
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert "umask" not in d["asked"] and "home" not in d["asked"] and "timezone" in d["asked"], d["asked"]
assert d["reproducible"], d' "$T/j2" || fail "--vary all --vary -umask,-home: $(cat "$T/j2" "$T/err")"
cd "$T"
assert_no_leftovers
