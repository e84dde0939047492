#!/bin/bash
# bench.sh — how much does tracing cost?  Builds each workload natively, under buildtrail (default
# and --system) and, for context, under strace, Bear and a bare FUSE passthrough (bindfs),
# interleaved over several repetitions in one run, and prints median wall and CPU time with
# ratios to native, the daemon's peak RSS, trace size, bytes per access and FUSE requests.
#
# Usage: tests/bench/bench.sh [--reps N] [--workloads "zlib lua lz4 dash"]
#                             [--modes "native buildtrail system strace bear bindfs"]
#                             (also: cache-lookups, system-cache = with --cache-lookups,
#                              system-full = --system=full: the system trees through FUSE)
#                             [--build DIR (containing launcher/buildtrail)] [--out FILE]
#                             [--baseline DIR (another build: adds mode "baseline"; put
#                              "baseline-system" in --modes for it with --system)]
#                             [--custom NAME SRC_DIR 'BUILD COMMAND']...
#                             [--debian PKG]... (Debian's source of PKG, apt-get source, built
#                              with dpkg-buildpackage -b -uc -us; needs a deb-src entry and
#                              PKG's build dependencies: apt-get build-dep PKG)
#                             [--keep-trace DIR (each workload's last trace, per mode)]
#                             [--path PATH|inherit (the builds' PATH; default Debian's
#                              /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin,
#                              as a package builder has: a PATH through a traced tree, as
#                              ~/.cargo/bin, costs each command's lookups there)]
# Needs root for bindfs and to install the peers (strace, bear, bindfs) when missing.
# Results go to the screen and to --out (default ./bench-results.txt).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
reps=3
workloads="zlib lua lz4 dash"
modes="native buildtrail system strace bear bindfs"
build="$top/build"
out="$PWD/bench-results.txt"
# The workload cache (filled by .ci/fetch-workloads from ../shared/workloads or Debian's archive).
shared=$("$top/.ci/fetch-workloads" | tail -n1)
baseline=
keep=
debian=()
build_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
declare -A custom_src custom_cmd

while [ $# -gt 0 ]; do
    case $1 in
        --reps) reps=$2; shift 2 ;;
        --workloads) workloads=$2; shift 2 ;;
        --modes) modes=$2; shift 2 ;;
        --build) build=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --baseline) baseline=$2; modes="$modes baseline"; shift 2 ;;
        --custom) custom_src[$2]=$3; custom_cmd[$2]=$4; workloads="$workloads $2"; shift 4 ;;
        --debian) debian+=("$2"); shift 2 ;;
        --keep-trace) keep=$2; shift 2 ;;
        --path) build_path=$2; [ "$2" != inherit ] || build_path=$PATH; shift 2 ;;
        -h|--help) sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench.sh: unknown argument '$1'; see --help" >&2; exit 2 ;;
    esac
done

bt="$build/launcher/buildtrail"
[ -n "$baseline" ] || [[ " $modes " != *" baseline-system "* ]] ||
    { echo "bench.sh: mode baseline-system needs --baseline DIR" >&2; exit 2; }
[ -z "$baseline" ] || [ -x "$baseline/launcher/buildtrail" ] ||
    { echo "bench.sh: no buildtrail at $baseline/launcher/buildtrail; build that commit there first" >&2; exit 2; }
[ -x "$bt" ] || { echo "bench.sh: no buildtrail at $bt; build it (cmake --build build) or pass --build" >&2; exit 2; }
need=()
for m in $modes; do
    case $m in
        strace) command -v strace >/dev/null || need+=(strace) ;;
        bear) command -v bear >/dev/null || need+=(bear) ;;
        bindfs) command -v bindfs >/dev/null || need+=(bindfs) ;;
    esac
done
command -v /usr/bin/time >/dev/null || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "bench.sh: missing ${need[*]}; install them or run as root" >&2; exit 2; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

# workload: tarball, directory it unpacks to, configure+build command (from workloads/README.md)
tarball() { case $1 in zlib) echo "$shared/zlib_1.2.13.dfsg.orig.tar.bz2" ;; lua) echo "$shared/lua5.4_5.4.4.orig.tar.gz" ;;
                       lz4) echo "$shared/lz4_1.9.4.orig.tar.gz" ;; dash) echo "$shared/dash_0.5.12.orig.tar.gz" ;; esac; }
srcdir() { case $1 in zlib) echo zlib-1.2.13.dfsg ;; lua) echo lua-5.4.4 ;; lz4) echo lz4-1.9.4 ;; dash) echo dash-0.5.12 ;; esac; }
buildcmd() {
    case $1 in
        zlib|dash) echo './configure >/dev/null && make -j2 >/dev/null' ;;
        lua) echo 'make -j2 linux >/dev/null' ;;
        lz4) echo 'make -j2 lib lz4 >/dev/null' ;;
        *) echo "${custom_cmd[$1]}" ;;
    esac
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/bt-bench.XXXXXX")
mnt="$scratch/mnt"
cleanup() { mountpoint -q "$mnt" 2>/dev/null && fusermount3 -u "$mnt" 2>/dev/null || umount "$mnt" 2>/dev/null || true; rm -rf "$scratch"; }
trap cleanup EXIT
# Debian packages: fetched once (not timed), then built like a --custom workload.
for pkg in "${debian[@]}"; do
    mkdir -p "$scratch/debian/$pkg"
    (cd "$scratch/debian/$pkg" && apt-get source -qq "$pkg" >/dev/null 2>&1) ||
        { echo "bench.sh: apt-get source $pkg failed; add a deb-src entry (apt-get update) first" >&2; exit 2; }
    src=$(find "$scratch/debian/$pkg" -mindepth 1 -maxdepth 1 -type d | head -n1)
    [ -d "$src/debian" ] || { echo "bench.sh: no unpacked source of $pkg in $scratch/debian/$pkg" >&2; exit 2; }
    custom_src[$pkg-deb]=$src
    custom_cmd[$pkg-deb]='dpkg-buildpackage -b -uc -us >/dev/null 2>&1'
    workloads="$workloads $pkg-deb"
done
results="$scratch/results.tsv" # workload mode rep wall cpu rss_kb trace_bytes accesses requests

# Prepare a fresh source tree for one run (not timed).
prepare() {
    local w=$1 dest="$scratch/src"
    rm -rf "$dest" && mkdir -p "$dest"
    if [ -n "${custom_src[$w]:-}" ]; then
        cp -a "${custom_src[$w]}/." "$dest/"
        echo "$dest"
    else
        tar xf "$(tarball "$w")" -C "$dest"
        echo "$dest/$(srcdir "$w")"
    fi
}

run_one() {
    local w=$1 m=$2 rep=$3 dir cmd t0 t1 cpu rss=0 size=0 acc=0 req=""
    dir=$(prepare "$w")
    cmd=$(buildcmd "$w")
    local timing="$scratch/time.txt" db="$scratch/trace.db"
    rm -f "$db"
    case $m in
        native) run=(sh -c "$cmd") ;;
        buildtrail) run=("$bt" run -o "$db" -- sh -c "$cmd") ;;
        baseline) run=("$baseline/launcher/buildtrail" run -o "$db" -- sh -c "$cmd") ;;
        baseline-system) run=("$baseline/launcher/buildtrail" run --system -o "$db" -- sh -c "$cmd") ;;
        system) run=("$bt" run --system -o "$db" -- sh -c "$cmd") ;;
        system-full) run=("$bt" run --system=full -o "$db" -- sh -c "$cmd") ;;
        cache-lookups) run=("$bt" run --cache-lookups -o "$db" -- sh -c "$cmd") ;;
        system-cache) run=("$bt" run --system --cache-lookups -o "$db" -- sh -c "$cmd") ;;
        strace) run=(strace -f -qq -o /dev/null -e trace=%file,%process,write sh -c "$cmd") ;;
        bear) run=(bear --output "$scratch/compile_commands.json" -- sh -c "$cmd") ;;
        bindfs) mkdir -p "$mnt"; bindfs --no-allow-other "$dir" "$mnt"; dir=$mnt; run=(sh -c "$cmd") ;;
    esac
    sync
    t0=$(date +%s.%N)
    (cd "$dir" && PATH=$build_path /usr/bin/time -o "$timing" -f "%U %S" "${run[@]}") > "$scratch/log.txt" 2>&1 ||
        { echo "bench.sh: $w under $m failed:"; tail -5 "$scratch/log.txt"; exit 1; } >&2
    t1=$(date +%s.%N)
    [ "$m" = bindfs ] && fusermount3 -u "$mnt"
    if [ -n "$keep" ] && [ -f "$db" ]; then
        mkdir -p "$keep" && cp "$db" "$keep/$w-$m.db"
    fi
    cpu=$(awk '{print $1 + $2}' "$timing")
    if [ -f "$db" ]; then
        size=$(stat -c %s "$db")
        acc=$(sqlite3 "$db" "select count(*) from accesses")
        local notes; notes=$(sqlite3 "$db" "select notes from runs")
        rss=$(printf '%s' "$notes" | sed -n 's/.*daemon_maxrss_kb=\([0-9]*\).*/\1/p')
        req=$(printf '%s' "$notes" | sed -n 's/.*requests: //p' | tr ' ' ',')
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$m" "$rep" "$(echo "$t1 - $t0" | bc)" "$cpu" \
        "$rss" "$size" "$acc" "$req" >> "$results"
    printf '  %-6s %-10s rep %d: %6.2f s wall, %6.2f s cpu\n' "$w" "$m" "$rep" "$(echo "$t1 - $t0" | bc)" "$cpu" >&2
}

echo "bench: reps=$reps workloads=[$workloads] modes=[$modes] on $(nproc) cores, $(uname -r)" >&2
echo "bench: PATH=$build_path" >&2
for w in $workloads; do
    for rep in $(seq "$reps"); do
        for m in $modes; do   # interleaved: each repetition runs every mode once
            run_one "$w" "$m" "$rep"
        done
    done
done

python3 - "$results" "$out" "$build_path" <<'PY'
import statistics, sys, collections
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
by = collections.defaultdict(list)
for w, m, rep, wall, cpu, rss, size, acc, req in rows:
    by[(w, m)].append((float(wall), float(cpu), int(rss or 0), int(size or 0), int(acc or 0), req))
lines = []
hdr = "%-8s %-10s %9s %7s %7s %7s %9s %7s %9s %10s %8s %8s" % (
    "workload", "mode", "wall(s)", "x", "x-pair", "x-min", "cpu(s)", "x", "rss(MiB)", "trace(KB)",
    "B/access", "requests")
lines += [hdr, "-" * len(hdr)]
for w in dict.fromkeys(r[0] for r in rows):
    base = by.get((w, "native"))
    bw = statistics.median(r[0] for r in base) if base else None
    bc = statistics.median(r[1] for r in base) if base else None
    for m in dict.fromkeys(r[1] for r in rows if r[0] == w):
        v = by[(w, m)]
        wall = statistics.median(r[0] for r in v)
        cpu = statistics.median(r[1] for r in v)
        rss = max(r[2] for r in v) / 1024
        size = statistics.median(r[3] for r in v)
        acc = statistics.median(r[4] for r in v)
        # x-pair: median over repetitions of (this mode / native in the same repetition), which
        # cancels slow drifts of the machine; x-min: fastest run / fastest native run.
        pair = [a[0] / b[0] for a, b in zip(v, base)] if base else []
        nreq = sum(int(kv.split("=")[1]) for kv in v[-1][5].split(",") if "=" in kv) if v[-1][5] else 0
        lines.append("%-8s %-10s %9.2f %7s %7s %7s %9.2f %7s %9s %10s %8s %8s" % (
            w, m, wall, "%.3f" % (wall / bw) if bw else "-",
            "%.3f" % statistics.median(pair) if pair else "-",
            "%.3f" % (min(r[0] for r in v) / min(r[0] for r in base)) if base else "-",
            cpu, "%.3f" % (cpu / bc) if bc else "-",
            "%.1f" % rss if rss else "-", "%d" % (size / 1024) if size else "-",
            "%d" % (size / acc) if acc else "-", nreq or "-"))
    reqs = [r[5] for r in by.get((w, "buildtrail"), []) if r[5]]
    if reqs:
        lines.append("%-8s requests (buildtrail, last run): %s" % (w, reqs[-1].replace(",", " ")))
lines.append("(median of %d interleaved runs per mode; x = ratio of medians to native, x-pair = "
             "median of per-repetition ratios, x-min = ratio of fastest runs; requests = FUSE "
             "requests of the last run; the builds' PATH=%s)" % (max(len(v) for v in by.values()),
                                                                  sys.argv[3]))
text = "\n".join(lines)
print(text)
open(sys.argv[2], "w").write(text + "\n")
PY
echo "bench: results also in $out" >&2
