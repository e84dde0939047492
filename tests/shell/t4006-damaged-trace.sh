#!/bin/sh
# A damaged trace is an error, never an answer: with leaf pages of the trace's tables
# overwritten, truncated, or with a table missing, every query and every export format exits
# non-zero with one line saying the trace is damaged, and prints no answer on stdout.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd sqlite3
cp -r "$SAMPLE" "$T/s"
cd "$T/s"
bt run -o "$T/good.db" -- make -j2 > "$T/build.log" 2>&1 || fail "the sample build failed: $(cat "$T/build.log")"
bt tree -d "$T/good.db" > /dev/null || fail "tree on the good trace"

# Overwrite page N of a copy with 0xff bytes (the btree page header becomes invalid).
damage_pages() { # SRC DST PAGE...
    src=$1; dst=$2; shift 2
    cp "$src" "$dst"
    ps=$(sql "$src" "PRAGMA page_size")
    for pg in "$@"; do
        head -c "$ps" /dev/zero | tr '\0' '\377' |
            dd of="$dst" bs="$ps" seek=$((pg - 1)) conv=notrunc status=none
    done
}
# One leaf page (the last) of each table the answers stand on; not runs, which every query
# reads when it opens the trace: the damage must be met in the middle of an answer.
leaf() { sql "$T/good.db" "SELECT MAX(pageno) FROM dbstat WHERE name='$1' AND pagetype='leaf'"; }
pages=""
for t in processes files accesses versions output exits; do
    p=$(leaf "$t")
    [ -n "$p" ] || fail "no leaf page for table $t"
    pages="$pages $p"
done
damage_pages "$T/good.db" "$T/pages.db" $pages

# Truncated: the first third of the file.
size=$(stat -c %s "$T/good.db")
head -c $((size / 3)) "$T/good.db" > "$T/short.db"

# A table missing (dropped from a copy).
cp "$T/good.db" "$T/notable.db"
sqlite3 "$T/notable.db" "DROP TABLE accesses"

out_file="$T/s/hello"
src_file="$T/s/src/greet.h"
check() { # TRACE LABEL ARGS...: must fail, say "damaged" in one line, print nothing on stdout
    db=$1; label=$2; shift 2
    set +e
    "$BUILDTRAIL" "$@" -d "$db" > "$T/out" 2> "$T/err"
    st=$?
    set -e
    [ "$st" != 0 ] || fail "$label on $(basename "$db"): exit 0 on a damaged trace; stdout: $(head -c 300 "$T/out")"
    grep -q "the trace $db is damaged" "$T/err" ||
        fail "$label on $(basename "$db"): no 'damaged' line (exit $st): $(cat "$T/err")"
    [ ! -s "$T/out" ] || fail "$label on $(basename "$db"): printed an answer: $(head -c 300 "$T/out")"
}
for db in "$T/pages.db" "$T/short.db" "$T/notable.db"; do
    check "$db" who-wrote who-wrote "$out_file"
    check "$db" who-read who-read "$src_file"
    check "$db" tree tree
    check "$db" "tree --json" tree --json
    check "$db" log log
    check "$db" show show 1
    check "$db" files files
    check "$db" inputs inputs "$out_file"
    check "$db" outputs outputs "$src_file"
    check "$db" verify verify --inputs /dev/null
    check "$db" licenses licenses "$out_file"
    check "$db" copies copies
    check "$db" packages packages
    for f in compile-commands dot prov chrome-trace spdx spdx3 cyclonedx intoto slsa sql; do
        check "$db" "export $f" export --format "$f"
    done
done

# An export to a file leaves no file behind when the trace is damaged.
set +e; bt export -d "$T/pages.db" --format sql -o "$T/dump.sql" 2>/dev/null; set -e
[ ! -e "$T/dump.sql" ] || fail "export left a partial file from a damaged trace"
# Nor through a link to a name that does not exist yet (its target is made as the kernel
# follows the link, and removed again).
ln -s "$T/dump-target.sql" "$T/dump-link.sql"
set +e; bt export -d "$T/pages.db" --format sql -o "$T/dump-link.sql" 2>/dev/null; st=$?; set -e
[ "$st" != 0 ] || fail "export through a link from a damaged trace succeeded"
[ ! -e "$T/dump-target.sql" ] || fail "export through a link left a file from a damaged trace"
[ -L "$T/dump-link.sql" ] || fail "export through a link replaced the link"

# Something that is not a trace at all is still said so (not "damaged").
printf 'hello\n' > "$T/text.db"
set +e; bt tree -d "$T/text.db" 2> "$T/err"; st=$?; set -e
[ "$st" != 0 ] || fail "a text file read as a trace"
assert_contains "$(cat "$T/err")" "not a buildtrail trace" "a text file"
echo ok
