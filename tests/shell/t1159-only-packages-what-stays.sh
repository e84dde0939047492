#!/bin/sh
# run --system --only-packages hides by package, not by tree: a listing of /usr/include leaves
# out zlib.h and libssl-dev's openssl/ directory (and openssl/ssl.h is absent under it) and
# keeps libc6-dev's headers and the directories allowed packages share; files no package owns
# stay visible (/etc/ld.so.cache, the /etc/alternatives links: cc still runs gcc).
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd dpkg-query
require_zlib_dev
[ -f /usr/include/openssl/ssl.h ] || missing "libssl-dev (apt-get install libssl-dev)"
[ -L /etc/alternatives/cc ] || missing "the alternative cc (/etc/alternatives/cc)"
[ -f /etc/ld.so.cache ] || missing "/etc/ld.so.cache"
! dpkg-query -S /etc/ld.so.cache > /dev/null 2>&1 || missing "an /etc/ld.so.cache no package owns"
mkdir "$T/ws" && cd "$T/ws"
cat > probe.sh <<'SH'
ls -a /usr/include > listing
for f in /usr/include/openssl /usr/include/openssl/ssl.h /usr/include/stdio.h /usr/include/x86_64-linux-gnu /etc/ld.so.cache /etc/alternatives/cc; do
    if [ -e "$f" ]; then echo "has $f"; else echo "no $f"; fi
done
cc --version | head -n 1
SH
bt run -q -o "$T/t.db" --system --only-packages libc6-dev -- sh probe.sh > out || fail "the run: $(cat out)"
for want in "no /usr/include/openssl" "no /usr/include/openssl/ssl.h" "has /usr/include/stdio.h" \
            "has /usr/include/x86_64-linux-gnu" "has /etc/ld.so.cache" "has /etc/alternatives/cc"; do
    grep -qx "$want" out || fail "$want: $(cat out)"
done
grep -q '^gcc\|^cc' out || fail "cc did not run: $(cat out)"
! grep -qx zlib.h listing || fail "zlib.h listed"
! grep -qx openssl listing || fail "openssl/ listed"
grep -qx stdio.h listing || fail "stdio.h not listed"
out=$(bt files -d "$T/t.db" --denied)
assert_contains "$out" "/usr/include/zlib.h: package zlib1g-dev not allowed; listed by" "the listing's denial"
assert_contains "$out" "/usr/include/openssl: package libssl-dev not allowed" "the directory's denial"
assert_no_leftovers
