#!/bin/bash
# query-all.sh — every query and every export format on one trace: wall time and peak memory
# (GNU time's maximum RSS) of each, one table.  For a real build's trace (bench.sh --debian
# records one) and for query-bench.sh's synthetic trace.
#
# Usage: tests/bench/query-all.sh [--build DIR] [--reps N] [--product PATH] [--source PATH] TRACE
#   --reps     run each command N times: the median time and the largest peak RSS (default 1;
#              this VM's timings swing by tens of percent from one run to the next)
#   --product  the file that inputs, who-wrote, licenses ask about (default: the largest product
#              that is an ELF executable or .a, else the last one written)
#   --source   the file that outputs and who-read ask about (default: the first .c read)
#   --allow-incomplete  passed to the attestations (a trace recorded by a killed run)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../../build"
product= source= allow= reps=1
while [ $# -gt 0 ]; do
    case $1 in
        --build) build=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --product) product=$2; shift 2 ;;
        --source) source=$2; shift 2 ;;
        --allow-incomplete) allow=--allow-incomplete; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "query-all.sh: unknown option '$1'; see --help" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# = 1 ] || { echo "query-all.sh: give one trace; see --help" >&2; exit 2; }
case $reps in ''|*[!0-9]*|0) echo "query-all.sh: --reps takes a positive number, not '$reps'" >&2; exit 2 ;; esac
db=$(realpath "$1")
bt="$(realpath "$build")/launcher/buildtrail"
[ -x "$bt" ] || { echo "query-all.sh: no buildtrail at $bt" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "query-all.sh: needs GNU time (apt-get install time)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "query-all.sh: needs sqlite3" >&2; exit 2; }
if [ -z "$product" ]; then
    # the largest built file whose name has no extension (a program) or is an archive
    product=$(sqlite3 -separator ' ' "$db" "SELECT v.size, f.path FROM versions v JOIN files f
        ON f.id = v.file_id WHERE v.origin = 2 AND v.size IS NOT NULL
        ORDER BY v.size DESC" | awk '!found { n = split($2, c, "/"); if (c[n] !~ /[.]/ || c[n] ~ /[.]a$/) { print $2; found = 1 } }')
fi
if [ -z "$source" ]; then
    source=$(sqlite3 "$db" "SELECT f.path FROM accesses a JOIN files f ON f.id = a.file_id
        WHERE f.path LIKE '%.h' AND f.path NOT LIKE '/usr/%' ORDER BY a.id LIMIT 1")
fi
scratch=$(mktemp -d "${TMPDIR:-/tmp}/bt-qall.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
echo "# trace: $db ($(du -h "$db" | cut -f1)); product: $product; source: $source"
printf '%-34s %8s %9s %10s %4s\n' "command" "seconds" "peak MiB" "output" "exit"
one() { # one LABEL ARGS...: run buildtrail ARGS on the trace, print a row
    label=$1; shift
    # The trace in the page cache, as after the build that wrote it: this machine's proactive
    # reclaim (DAMON) drops cold pages, and a query reading from disk measures the disk.
    local times=() kib=0 r t k
    for ((r = 0; r < reps; r++)); do
        cat "$db" > /dev/null
        set +e
        /usr/bin/time -f '%e %M' -o "$scratch/time" "$bt" "$@" > "$scratch/out" 2> "$scratch/err"
        st=$?
        set -e
        read -r t k < <(tail -1 "$scratch/time")
        times+=("$t")
        [ "$k" -le "$kib" ] || kib=$k
    done
    secs=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(( (reps + 1) / 2 ))p")
    size=$(stat -c %s "$scratch/out")
    printf '%-34s %8s %9d %10s %4s\n' "$label" "$secs" $((kib / 1024)) \
        "$(numfmt --to=iec "$size")" "$st"
}
one "info" info -d "$db"
one "tree" tree -d "$db" --no-pager
one "log" log -d "$db" --no-pager
one "files" files -d "$db" --no-pager
one "who-wrote PRODUCT" who-wrote -d "$db" "$product"
one "who-read SOURCE" who-read -d "$db" "$source"
one "show 1" show -d "$db" 1
one "inputs PRODUCT" inputs -d "$db" --no-pager "$product"
one "outputs SOURCE" outputs -d "$db" --no-pager "$source"
one "licenses PRODUCT" licenses -d "$db" "$product"
: > "$scratch/manifest" # nothing declared: every input is reported
one "verify (empty manifest)" verify -d "$db" $allow --inputs "$scratch/manifest"
one "copies" copies -d "$db"
one "packages" packages -d "$db"
for f in compile-commands dot prov chrome-trace spdx spdx3 cyclonedx intoto slsa sql; do
    one "export $f" export -d "$db" $allow -f "$f"
done
