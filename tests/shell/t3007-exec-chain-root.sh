#!/bin/sh
# The build's own command is the trace's root image from its first instruction (not the
# launcher that started it), and each program's exec open belongs to the image it started,
# also along a chain of execs (a script that execs a program that execs another) — with
# process events and in /proc-only mode.
. "$(dirname "$0")/lib.sh"
require_fuse
mkdir "$T/ws" && cd "$T/ws"
echo input > input.txt
cp "$(command -v cat)" ./mycat
cp "$(command -v env)" ./myenv
printf '#!/bin/sh\nexec ./myenv ./mycat input.txt\n' > build.sh
chmod +x build.sh

# the images whose argv[0] ends in NAME
image_of() {
    sql "$1" "select group_concat(id) from processes
              where cast(substr(argv, 1, instr(argv, x'00') - 1) as text) like '%$2'"
}
exec_owner() {
    sql "$1" "select group_concat(a.process_id) from accesses a join files f on f.id = a.file_id
              where a.kind = 5 and f.path = '$T/ws/$2'"
}

for mode in events proc-only; do
    if [ "$mode" = proc-only ]; then
        BUILDTRAIL_NO_PROC_EVENTS=1 "$BUILDTRAIL" run -o "$mode.db" -- ./build.sh > out.txt
    else
        bt run -o "$mode.db" -- ./build.sh > out.txt
    fi
    assert_eq "$(cat out.txt)" input "what the build printed ($mode)"
    db=$mode.db
    assert_eq "$(sql "$db" "select count(*) from processes where instr(argv, cast('buildtrail' as blob))")" 0 \
        "the launcher is not in the trace ($mode)"
    root=$(sql "$db" "select root_process_id from runs")
    sh_img=$(sql "$db" "select group_concat(id) from processes where instr(argv, cast('build.sh' as blob))")
    cat_img=$(image_of "$db" mycat)
    assert_eq "$sh_img" "$root" "the script is the root image ($mode)"
    assert_eq "$(exec_owner "$db" build.sh)" "$root" "the script's exec open belongs to the root ($mode)"
    assert_eq "$(exec_owner "$db" mycat)" "$cat_img" "mycat's exec open belongs to mycat ($mode)"
    assert_eq "$(sql "$db" "select process_id from accesses a join files f on f.id = a.file_id
                            where a.kind = 1 and f.path = '$T/ws/input.txt'")" "$cat_img" \
        "input.txt was read by mycat ($mode)"
    if [ "$mode" = events ] && [ "$(sql "$db" "select process_tree from runs")" = complete ]; then
        # With events every image of the chain is known: sh, env, cat, one pid.
        env_img=$(image_of "$db" myenv)
        assert_eq "$(exec_owner "$db" myenv)" "$env_img" "myenv's exec open belongs to myenv"
        assert_eq "$(sql "$db" "select prev_image_id from processes where id = $cat_img")" "$env_img" \
            "mycat replaced myenv"
        assert_eq "$(sql "$db" "select count(distinct pid) from processes")" 1 "one pid for the chain"
    fi
done
assert_no_leftovers
