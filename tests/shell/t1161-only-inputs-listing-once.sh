#!/bin/sh
# run --only-inputs: one listing of a directory records each name it left out once (the
# kernel's next readdir, at the offset of the last name shown, went back over the hidden names
# after it and recorded them a second time); a directory of many visible names, listed in
# several replies, shows each once.  The same with reversed listings (--vary fileordering).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir -p "$T/ws/d" && cd "$T/ws"
for i in 1 2 3 4 5 6 7 8; do echo "$i" > "d/hidden$i"; done
printf 'd/shown*\nd/many/\n' > MANIFEST
for vary in "" "--vary fileordering"; do
    rm -rf d/many
    out=$(bt run -q -o "$T/t.db" $vary --only-inputs MANIFEST -- sh -c '
        ls -a d | tr "\n" " "; echo
        mkdir d/many && for i in $(seq 300); do : > d/many/shown-a-long-name-to-fill-the-buffer-$i; done
        echo "MANY $(ls d/many | sort -u | wc -l) $(ls d/many | wc -l)"' 2>&1) || fail "the build failed ($vary): $out"
    assert_eq "$(printf '%s\n' "$out" | head -n 1)" ". .. " "the listing ($vary)"
    assert_contains "$out" "MANY 300 300" "a directory the build filled, listed in several replies ($vary)"
    bt files -d "$T/t.db" --denied --json > "$T/d.json"
    python3 - "$T/d.json" "$T/ws/d" <<'PY' || fail "files --denied --json ($vary): $(cat "$T/d.json")"
import json, sys
d = json.load(open(sys.argv[1]))
listed = [x for x in d["denied"] if x["path"].startswith(sys.argv[2] + "/hidden")]
assert len(listed) == 8, listed
for x in listed:
    ls = [p for p in x["processes"] if p["how"] == "listing"]
    assert len(ls) == 1 and ls[0]["times"] == 1, x
PY
done
assert_no_leftovers
