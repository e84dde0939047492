# reprotest.sh — sourced after lib.sh and repro.sh by t9055-t9056 (issue #36): the scenario
# project built by reprotest (the Debian package, its null backend) and by `buildtrail repro
# --json`, one variation (or one set) at a time, and each output's verdict from both: does it
# differ between the control and the experiment?  docs/repro.md, "Agreement with reprotest".
#
# A SET is a name: one variation, or `all` (every variation both can make here).  Left out:
#   time        buildtrail never varies it (docs/repro.md, "What cannot be varied"); reprotest
#               needs faketime, an LD_PRELOAD library, for it.
#   user_group  reprotest needs sudo and a second user allowed to run the build through it
#               (user_group.available); without them it is a no-op (its warning says so).
# reprotest runs in the test's private TMPDIR ($T/tmpdir, its scratch removed when it ends);
# its fileordering mounts disorderfs (FUSE) over its copy there, unmounted at the test's end
# if reprotest could not do it.

# The variations compared, in reprotest's order (what its log lists for `all`).
RT_VARIATIONS="environment build_path kernel aslr num_cpus fileordering domain_host home locales exec_path timezone umask"

reprotest_require() {
    require_fuse
    require_cmd cc
    require_cmd make
    require_cmd python3
    require_cmd reprotest
    require_cmd disorderfs
    # reprotest's control sets LANG alone (buildtrail's sets LC_ALL too): a caller's LC_ALL or
    # LC_COLLATE would then keep the locale of reprotest's control, not of buildtrail's.
    for _v in $(env | sed -n 's/^\(LC_[A-Z_]*\)=.*/\1/p'); do unset "$_v"; done
    # the second locale both vary to: fr_CH.UTF-8 under $T/loc, in LOCPATH, which reprotest
    # passes on to its builds as it passes the whole environment
    repro_second_locale
    on_cleanup rt_unmount
}

# rt_unmount: a disorderfs mount reprotest left under $T (killed midway) is taken down.
rt_unmount() {
    awk -v t="$T/" '{ for (i = 7; i <= NF; i++) if ($i == "-") break }
        $(i + 1) ~ /disorderfs/ && index($5, t) == 1 { print $5 }' /proc/self/mountinfo |
        while IFS= read -r _m; do fusermount -u -z "$_m" 2>/dev/null || true; done
}

# rt_spec SET / bt_list SET: the set as reprotest's --extra-build and as buildtrail's --vary.
# locales: reprotest's default locale is et_EE.UTF-8; both are given fr_CH.UTF-8.
rt_spec() {
    case $1 in
    all) echo "+all,-time,-user_group,locales.locale=fr_CH.UTF-8" ;;
    locales) echo "+locales,locales.locale=fr_CH.UTF-8" ;;
    *) echo "+$1" ;;
    esac
}
bt_list() { if [ "$1" = all ]; then echo "all,-user_group"; else echo "$1"; fi; }
rt_expected_vary() { if [ "$1" = all ]; then echo "$RT_VARIATIONS"; else echo "$1"; fi; }

# reprotest_run SET...: one reprotest run in the current directory (the scenario's tree) with
# one experiment per SET after a first one that varies nothing (experiment-1), artifacts kept
# in $T/rt/NAME/source-root (NAME control, experiment-N), its log in $T/rt.log.  Each
# experiment's variations, as reprotest's log lists them, must be the SET's.
reprotest_run() {
    _args=""
    for _s in "$@"; do _args="$_args --extra-build=$(rt_spec "$_s")"; done
    set +e
    # shellcheck disable=SC2086
    reprotest -v --no-diffoscope --min-cpus=1 --store-dir="$T/rt" --variations=-all $_args \
        'make -s' 'out/*' > "$T/rt.log" 2>&1
    _st=$?
    set -e
    [ "$_st" = 0 ] || [ "$_st" = 1 ] || fail "reprotest: exit $_st: $(tail -20 "$T/rt.log")"
    rt_check_vary 1 ""
    _n=2
    for _s in "$@"; do rt_check_vary "$_n" "$(rt_expected_vary "$_s")"; _n=$((_n + 1)); done
    rt_check_vary control ""
}
# rt_check_vary N|control "NAMES": reprotest's build experiment-N varied exactly NAMES.
rt_check_vary() {
    _b=experiment-$1
    [ "$1" = control ] && _b=control
    _got=$(sed -n "s/^INFO:reprotest:build \"$_b\": //p" "$T/rt.log" | tr ',' '\n' |
        sed -n 's/^ *vary //p' | tr '\n' ' ' | sed 's/ $//')
    [ "$_got" = "$2" ] || fail "reprotest's $_b varied '$_got', not '$2': $(grep "build \"$_b\"" "$T/rt.log")"
}
# rt_path NAME: reprotest's tree for build NAME (control: const_build_path), from its log.
rt_path() {
    _c=$(sed -n 's/^INFO:reprotest.build:BUILD_PATH variation: const_path = //p' "$T/rt.log" | head -1)
    [ -n "$_c" ] || fail "reprotest's log names no const_build_path: $(head -20 "$T/rt.log")"
    if [ "$1" = control ]; then echo "$_c"; else echo "${_c%/const_build_path}/build-$1"; fi
}

# bt_run SET: `buildtrail repro --json --vary LIST --artifacts 'out/*'` in $T/bt-SET
# (-o), its document in $T/bt-SET.json.  A variation buildtrail says it cannot vary here is
# said (missing_part): that set's comparison then proves less.
bt_run() {
    set +e
    bt repro --json --vary "$(bt_list "$1")" --artifacts 'out/*' -o "$T/bt-$1" -- make -s \
        > "$T/bt-$1.json" 2> "$T/bt-$1.err"
    _st=$?
    set -e
    [ "$_st" = 0 ] || [ "$_st" = 1 ] || fail "buildtrail repro --vary $(bt_list "$1"): exit $_st: $(cat "$T/bt-$1.err")"
    python3 - "$T/bt-$1.json" > "$T/bt-$1.states" 2> "$T/bt-$1.nv" <<'PY' || fail "repro --json: $(cat "$T/bt-$1.nv")"
import json, sys
d = json.load(open(sys.argv[1]))
for n in d["not_varied"]:
    print(n, file=sys.stderr)
for a in d["artifacts"]:
    print(a["state"], a["relative"])
PY
    while IFS= read -r _n; do missing_part "$1: buildtrail cannot vary $_n here"; done < "$T/bt-$1.nv"
}

# Verdicts: "differs" or "identical".
rt_verdict() { # EXPERIMENT OUTPUT
    [ -f "$T/rt/$1/source-root/$2" ] || fail "reprotest's $1 has no $2"
    if cmp -s "$T/rt/control/source-root/$2" "$T/rt/$1/source-root/$2"; then echo identical; else echo differs; fi
}
bt_verdict() { # SET OUTPUT: repro's state, which must be what its two copies say
    _state=$(sed -n "s|^\([a-z_]*\) $2\$|\1|p" "$T/bt-$1.states")
    case $_state in
    identical | differs) ;;
    *) fail "buildtrail repro --vary $(bt_list "$1"): $2 is '${_state:-not an artifact}'" ;;
    esac
    _copies=identical
    cmp -s "$T/bt-$1/control/proj/$2" "$T/bt-$1/experiment/proj/$2" || _copies=differs
    [ "$_copies" = "$_state" ] || fail "buildtrail repro --vary $1: $2 said $_state, its copies: $_copies"
    echo "$_state"
}

# rt_explained SET EXPERIMENT OUTPUT: reprotest says OUTPUT differs and buildtrail identical,
# for one of the two reasons docs/repro.md gives; prints which, or nothing.
#  - reprotest's HOME is its build tree when home is not varied (Debian #860428: a HOME that
#    exists), so its build_path moves HOME too: the output holds $HOME (buildtrail's control
#    copy with our $HOME where reprotest's has its tree, with the trailing slash it gives).
#  - reprotest's domain_host without sudo runs the build under `unshare -r`: uid and gid 0 in a
#    user namespace of its own; the output holds them (reprotest's control copy with our uid
#    and gid as 0 is its experiment's).  As root nothing changes.
rt_explained() {
    _rc=$T/rt/control/source-root/$3
    _re=$T/rt/$2/source-root/$3
    _bc=$T/bt-$1/control/proj/$3
    case " $(rt_expected_vary "$1") " in *" build_path "*)
        case " $(rt_expected_vary "$1") " in *" home "*) ;; *)
            _pc=$(rt_path control)/
            _pe=$(rt_path "$2")/
            if [ -n "$HOME" ] && grep -qF "$HOME" "$_bc" &&
                python3 -c 'import sys; r = lambda p: open(p, "rb").read()
b, h = r(sys.argv[1]), sys.argv[2].encode()
sys.exit(not (b.replace(h, sys.argv[3].encode()) == r(sys.argv[4]) and
              b.replace(h, sys.argv[5].encode()) == r(sys.argv[6])))' \
                    "$_bc" "$HOME" "$_pc" "$_rc" "$_pe" "$_re"; then
                echo "home follows reprotest's build path"
                return 0
            fi ;;
        esac ;;
    esac
    case " $(rt_expected_vary "$1") " in *" domain_host "*)
        if [ "$(id -u)" != 0 ] && sed "s/\\b$(id -u)\\b/0/g; s/\\b$(id -g)\\b/0/g" "$_rc" | cmp -s - "$_re"; then
            echo "reprotest's domain_host runs the build as uid 0 (unshare -r)"
            return 0
        fi ;;
    esac
}

# reprotest_agree SET...: after reprotest_run SET... and bt_run of each: every output of the
# scenario (out/*, whatever repro_scenario makes) has the same verdict from both tools, but for
# the differences rt_explained names, which are listed in $T/explained ("SET OUTPUT: WHY").
# Every output is identical in reprotest's experiment-1, which varies nothing.
reprotest_agree() {
    : > "$T/explained"
    _outs=$(cd "$T/rt/control/source-root" && ls out/*)
    [ -n "$_outs" ] || fail "reprotest's control kept no out/*"
    [ "$_outs" = "$(cd "$T/bt-$1/control/proj" && ls out/*)" ] ||
        fail "the two tools' controls made other outputs: $(echo $_outs) / $(cd "$T/bt-$1/control/proj" && echo out/*)"
    for _o in $_outs; do
        [ "$(rt_verdict experiment-1 "$_o")" = identical ] || fail "$_o differs in reprotest's build that varies nothing"
    done
    _n=2
    for _s in "$@"; do
        _both=""
        for _o in $_outs; do
            _r=$(rt_verdict "experiment-$_n" "$_o")
            _b=$(bt_verdict "$_s" "$_o")
            [ "$_r" = "$_b" ] && [ "$_r" = differs ] && _both="$_both $_o"
            [ "$_r" = "$_b" ] && continue
            _why=""
            [ "$_r" = differs ] && _why=$(rt_explained "$_s" "experiment-$_n" "$_o")
            [ -n "$_why" ] || fail "$_s: $_o $_r under reprotest, $_b under buildtrail ($(cd "$T" &&
                cmp "rt/control/source-root/$_o" "rt/experiment-$_n/source-root/$_o" 2>&1;
                cmp "bt-$_s/control/proj/$_o" "bt-$_s/experiment/proj/$_o" 2>&1))"
            echo "$_s $_o: $_why" >> "$T/explained"
        done
        say "$_s: differ under both:${_both:- none}"
        _n=$((_n + 1))
    done
}
