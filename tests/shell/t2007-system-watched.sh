#!/bin/sh
# --system as root watches the system trees with fanotify instead of serving them through FUSE,
# and records the same reads, execs, writes and symlinks followed there as --system=full does,
# each for the process that did it, with the same versions, also with four jobs at once; a
# filesystem mounted inside a system tree is watched too.  What it does not record (failed lookups) is said by the run's
# notes and by 'files'.
# Root only: the build runs in a private mount namespace with its own /usr/local (a tmpfs, so a
# mount inside /usr), which it reads, runs programs from and writes to.
. "$(dirname "$0")/lib.sh"
require_fuse
require_private_usr_local
mkdir "$T/ws"
# build NAME RUN-OPTION: the same build, in a namespace whose /usr/local is a fresh tmpfs.
build() {
    unshare -m --propagation private sh -ec '
        T=$1 name=$2 bt=$3; shift 3
        mount -t tmpfs bt-test /usr/local
        mkdir /usr/local/bt
        printf "data\n" > /usr/local/bt/data
        cp /bin/true /usr/local/bt/tool
        ln -s tool /usr/local/bt/link
        ln -s bt /usr/local/bt-dir
        cd "$T/ws"
        "$bt" run -q -o "$T/$name.db" "$@" -- sh -c "
            cat /usr/local/bt/data > copy.txt
            /usr/local/bt/tool
            /usr/local/bt/link
            cat /usr/local/bt-dir/data > /dev/null
            echo written > /usr/local/bt/out
            cat /usr/local/bt/out > /dev/null
            test -e /usr/local/bt/missing || true
            for j in 1 2 3 4; do
                (for i in 1 2 3 4 5; do
                    cat /usr/local/bt/data > /dev/null; /usr/local/bt/link; echo \$j\$i > /usr/local/bt/out\$j
                done) &
            done
            wait"
    ' sh "$T" "$1" "$BUILDTRAIL" "$2" || fail "build $1"
}
build watched --system
build full --system=full

notes=$(sql "$T/watched.db" "select notes from runs")
case $notes in
    *"system_trees=watched"*) ;;
    *"system_trees=served"*) skip "this kernel or container offers no fanotify permission events: $notes" ;;
    *) fail "no system_trees note: $notes" ;;
esac
assert_eq "$(sql "$T/watched.db" "select role from trees where path='/usr'")" watched "/usr is watched"
assert_eq "$(sql "$T/full.db" "select role from trees where path='/usr'")" trace "/usr is served with --system=full"

# What each process did under /usr/local: program, argv[0], path, kind, content.
q="select p.exe || ' ' || substr(p.argv, 1, instr(p.argv, char(0)) - 1) || ' ' || f.path || ' '
   || k.name || ' ' || coalesce(hex(v.sha256), '-')
   from accesses a join files f on f.id = a.file_id join access_kinds k on k.code = a.kind
   left join processes p on p.id = a.process_id left join versions v on v.id = a.version_id
   where f.path like '/usr/local/%' and a.result = 0 and k.name in ('read', 'exec', 'write', 'readlink')"
sql "$T/watched.db" "$q" | sort -u > "$T/watched.txt"
sql "$T/full.db" "$q" | sort -u > "$T/full.txt"
diff "$T/full.txt" "$T/watched.txt" >&2 || fail "--system and --system=full recorded different accesses"
# And they are the right ones (not merely the same).
grep -q "/usr/bin/cat cat /usr/local/bt/data read " "$T/watched.txt" || fail "cat's read of data: $(cat "$T/watched.txt")"
grep -q "^/usr/local/bt/tool /usr/local/bt/tool /usr/local/bt/tool exec " "$T/watched.txt" ||
    fail "the exec of tool, by the program it started: $(cat "$T/watched.txt")"
grep -q " /usr/local/bt/link readlink " "$T/watched.txt" || fail "the symlink followed to run tool"
grep -q " /usr/local/bt-dir readlink " "$T/watched.txt" || fail "the directory symlink followed"
sum=$(printf 'written\n' | sha256sum | cut -c1-64 | tr a-f A-F)
grep -q " /usr/local/bt/out write $sum" "$T/watched.txt" || fail "the write of out, with its content's hash"
grep -q "/usr/bin/cat cat /usr/local/bt/out read $sum" "$T/watched.txt" || fail "the read of what was written"

# Four jobs at once (the watchers answer opens in parallel): each job's five versions of its
# file, each written by its own shell.
for j in 1 2 3 4; do
    for i in 1 2 3 4 5; do
        sum=$(printf '%s\n' "$j$i" | sha256sum | cut -c1-64 | tr a-f A-F)
        grep -q "^/usr/bin/dash sh /usr/local/bt/out$j write $sum" "$T/watched.txt" ||
            fail "job $j's write $i of out$j: $(grep out$j "$T/watched.txt")"
    done
done

# Failed lookups there are not recorded, and 'files' says so.
assert_eq "$(sql "$T/watched.db" "select count(*) from files where path='/usr/local/bt/missing'")" 0 \
    "a failed lookup in a watched tree is not recorded"
assert_eq "$(sql "$T/full.db" "select count(*) from files where path='/usr/local/bt/missing'")" 1 \
    "--system=full records it"
bt files -d "$T/watched.db" --missing > /dev/null 2> "$T/files.err"
assert_contains "$(cat "$T/files.err")" "names looked up in vain are not recorded in " "files --missing says what it cannot list"
assert_contains "$(cat "$T/files.err")" "/usr" "files --missing names the watched trees"
assert_no_leftovers
