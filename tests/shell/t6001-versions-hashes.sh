#!/bin/sh
# Every write-open ... last close makes a version; each version's SHA-256 and git blob id are
# the bytes its readers saw, even when a writer reopens the file at once; each read is bound
# to the version current when it opened; rename carries a version; appends have a base.
. "$(dirname "$0")/lib.sh"
require_fuse
require_cmd python3
mkdir "$T/ws" && cd "$T/ws"
echo source > src.txt
echo untouched > opened-only.txt
touch -a -d '2001-01-01 00:00:00 UTC' opened-only.txt
cat > build.sh <<'B'
set -e
# Opened and never read: hashing it (a found version) must not update its access time.
exec 3< opened-only.txt
exec 3<&-
# Rewritten at once, many times: each reader copies what it saw.
i=0
while [ $i -lt 200 ]; do
    echo "content $i" > f
    cat f > "seen.$i"
    i=$((i + 1))
done
# Appended to: the second version is written on top of the first.
echo one > log
echo two >> log
# Temp file, then rename onto the final name.
cat src.txt > out.tmp
mv out.tmp out
cat out > final
B
bt run -o "$T/trace.db" -- sh build.sh
python3 - "$T/trace.db" "$T/ws" <<'PY'
import hashlib, sqlite3, sys
db = sqlite3.connect(sys.argv[1]); ws = sys.argv[2]
def path(fid): return db.execute("SELECT path FROM files WHERE id=?", (fid,)).fetchone()[0]
def fid(p): return db.execute("SELECT id FROM files WHERE path=?", (ws + "/" + p,)).fetchone()[0]
versions = {r[0]: r[1:] for r in db.execute(
    "SELECT id, file_id, origin, base_id, size, sha256, git_sha1, hash_error, sha1 FROM versions")}
def check_hash(vid, data, what):
    _, _, _, size, sha, git, err, sha1 = versions[vid]
    assert err is None, (what, err)
    assert size == len(data), (what, size, len(data))
    assert sha == hashlib.sha256(data).digest(), what
    assert sha1 == hashlib.sha1(data).digest(), what
    assert git == hashlib.sha1(b"blob %d\0" % len(data) + data).digest(), what
# f: 200 versions, each read by one cat whose copy holds exactly those bytes.
fvers = set()
for i in range(200):
    seen = open(f"{ws}/seen.{i}", "rb").read()
    rows = db.execute("SELECT a.version_id FROM accesses a JOIN processes p ON p.id=a.process_id "
                      "WHERE a.file_id=? AND a.kind=1 AND p.argv=?",
                      (fid("f"), b"cat\0f\0")).fetchall()
    # the reader of this round is the cat that wrote seen.i
    w = db.execute("SELECT process_id FROM accesses WHERE file_id=? AND kind=2 AND bytes>0",
                   (fid(f"seen.{i}"),)).fetchone()[0]
    v = db.execute("SELECT version_id FROM accesses WHERE process_id=? AND file_id=? AND kind=1",
                   (w, fid("f"))).fetchone()[0]
    assert v not in fvers, "two rounds bound to one version"
    fvers.add(v)
    check_hash(v, seen, f"f as read in round {i}")
    assert versions[v][1] == 2 and versions[v][2] is None, ("written, truncated: no base", versions[v])
    # and the copy's own version hashes the same bytes
    sv = db.execute("SELECT version_id FROM accesses WHERE file_id=? AND kind=2 AND bytes>0",
                    (fid(f"seen.{i}"),)).fetchone()[0]
    check_hash(sv, seen, f"seen.{i}")
# log: two versions, the second based on the first.
lv = [r[0] for r in db.execute("SELECT id FROM versions WHERE file_id=? ORDER BY id", (fid("log"),))]
assert len(lv) == 2, lv
check_hash(lv[0], b"one\n", "log v1")
check_hash(lv[1], b"one\ntwo\n", "log v2")
assert versions[lv[1]][2] == lv[0], "append is based on the previous version"
# src.txt: found (never written), hashed at first read.
sv = db.execute("SELECT version_id FROM accesses WHERE file_id=? AND kind=1", (fid("src.txt"),)).fetchall()
assert len({r[0] for r in sv}) == 1
assert versions[sv[0][0]][1] == 1, "src.txt is a found version"
check_hash(sv[0][0], b"source\n", "src.txt")
# out.tmp -> out: the rename rows carry the version written at out.tmp; final's reader got it.
tmpv = db.execute("SELECT version_id FROM accesses WHERE file_id=? AND kind=2 AND bytes>0", (fid("out.tmp"),)).fetchone()[0]
for kind, p in ((9, "out.tmp"), (10, "out")):
    r = db.execute("SELECT version_id FROM accesses WHERE file_id=? AND kind=?", (fid(p), kind)).fetchone()
    assert r and r[0] == tmpv, (kind, r, tmpv)
rv = db.execute("SELECT version_id FROM accesses WHERE file_id=? AND kind=1", (fid("out"),)).fetchone()[0]
assert rv == tmpv, "the reader of out read the renamed version"
check_hash(tmpv, b"source\n", "out")
print("ok", len(versions), "versions")
PY
[ "$(stat -c %X "$T/ws/opened-only.txt")" = 978307200 ] || fail "hashing changed the access time of a file the build only opened"
# The query side agrees: inputs of final reach src.txt through the rename.
out=$(bt inputs -d "$T/trace.db" --leaves final)
assert_contains "$out" "$T/ws/src.txt" "src.txt is a leaf input of final"
bt inputs -d "$T/trace.db" final | grep -Eq "built +copy +$T/ws/out\$" || fail "out (the renamed temp file, copied to final) is not in the chain"
assert_no_leftovers
