#!/bin/sh
# A process that does traced I/O and then execs gets a new process record, linked to the image
# it replaced; each file access belongs to the image that made it.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
echo one > one.txt; echo two > two.txt
bt run -- sh -c 'read x < one.txt; exec cat two.txt' > out.txt
assert_eq "$(cat out.txt)" two "output"
sh_id=$(bt who-read one.txt --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["paths"][0]["readers"][0]["process"]["id"])')
cat_json=$(bt who-read two.txt --json)
cat_id=$(printf '%s' "$cat_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["paths"][0]["readers"][0]["process"]["id"])')
exec_of=$(printf '%s' "$cat_json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["paths"][0]["readers"][0]["process"].get("exec_of"))')
[ "$sh_id" != "$cat_id" ] || fail "the exec'd cat shares the shell's record"
assert_eq "$exec_of" "$sh_id" "the cat image records the shell image it replaced"
assert_eq "$(sql buildtrail.db "select count(distinct pid) from processes where id in ($sh_id,$cat_id)")" 1 "same pid"
bt tree | grep -q "^\[$cat_id\] cat two.txt  (exec of \[$sh_id\])" || fail "tree does not show the exec: $(bt tree)"
assert_no_leftovers
