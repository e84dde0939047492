#!/bin/bash
# query-diff.sh — do two buildtrail binaries answer the same?  Runs every query (text and
# --json) and every export format on one trace with both, and diffs stdout, stderr and the
# exit status.  For refactors of the query side: "no behaviour change" is 0 differences.
#
# Usage: tests/bench/query-diff.sh OLD NEW TRACE SRCDIR PRODUCT SOURCE
#   OLD, NEW  the two buildtrail binaries
#   TRACE     a trace (e.g. of zlib's or lz4's build); SRCDIR the directory it was built in
#   PRODUCT   a file the build made (libz.a), SOURCE one it read (zutil.c), relative to SRCDIR
set -uo pipefail
[ $# = 6 ] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
old=$1 new=$2 db=$(realpath "$3") dir=$4 prod=$5 src=$6
cd "$dir" || exit 2
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bt-qdiff.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
n=0 bad=0
run() {
    n=$((n + 1))
    "$old" "$@" -d "$db" > "$scratch/o.out" 2> "$scratch/o.err"; so=$?
    "$new" "$@" -d "$db" > "$scratch/n.out" 2> "$scratch/n.err"; sn=$?
    if [ $so != $sn ] || ! cmp -s "$scratch/o.out" "$scratch/n.out" ||
        ! cmp -s "$scratch/o.err" "$scratch/n.err"; then
        bad=$((bad + 1))
        echo "DIFF: $* (exit $so vs $sn)"
        diff <(head -c 3000 "$scratch/o.out") <(head -c 3000 "$scratch/n.out") | head -5
        diff "$scratch/o.err" "$scratch/n.err" | head -4
    fi
}
for j in "" --json; do
    run tree $j; run log $j; run log --raw $j; run files $j; run show 1 2 3 $j
    run who-wrote "$prod" $j; run who-read "$src" $j
    run inputs "$prod" $j; run inputs --roles --hashes "$prod" $j; run inputs --leaves "$prod" $j
    run outputs "$src" $j; run licenses "$prod" $j; run packages $j; run copies $j
    run verify --inputs /dev/null $j
done
for f in compile-commands dot prov chrome-trace spdx spdx3 cyclonedx intoto slsa sql; do
    run export --format "$f"
done
run export --format compile-commands --with-links
run export --format dot --closure-of "$prod" --collapse /usr
echo "$n compared, $bad differ"
[ "$bad" = 0 ]
