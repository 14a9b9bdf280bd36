#!/usr/bin/env bash
# Checks that file-backed mappings come back with their recorded pages when
# the files changed after recording: a private mapping whose file was replaced
# (new inode) is restored from the recording as anonymous memory, with a
# one-line warning; a private mapping whose file changed in place gets its
# differing pages from the recording; a shared mapping whose file changed is
# restored as a private copy with a warning and the file is left untouched.
# The restored process prints the same digests as a native run.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/restore_file.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

make_files() {
  python3 - "$work" <<'PY'
import sys
d = sys.argv[1]
for name, ch in (("private.dat", b"P"), ("shared.dat", b"S")):
    with open(f"{d}/{name}", "wb") as f:
        for page in range(3):
            f.write((ch + bytes([48 + page])) * 2048)
PY
}
make_files
iters=150000000
"$PROGRAMS/restore_mapped_file" "$work/private.dat" "$work/shared.dat" $iters > "$work/native.out" || fail "native run failed"
"$SLSDBG" record -o "$work/rec" --interval 150 -- "$PROGRAMS/restore_mapped_file" "$work/private.dat" "$work/shared.dat" \
  $iters > "$work/record.out" 2>&1 || { cat "$work/record.out"; fail "recording failed"; }

# A checkpoint in the loop (with the syscall buffer, checkpoint 1 is the one
# after its first patch, before the files are mapped).
at=$("$SLSDBG" info "$work/rec" --json |
  python3 -c 'import json,sys; print(next(c["id"] for c in json.load(sys.stdin)["checkpoints"] if c["reason"] == "tick"))') ||
  fail "no tick checkpoint"

# 1. Files unchanged: no warning about mappings, same output.
"$SLSDBG" restore "$work/rec" --at $at > "$work/same.out" 2> "$work/same.err" || fail "restore (unchanged) failed: $(cat "$work/same.err")"
cmp -s "$work/native.out" "$work/same.out" || fail "unchanged files: output differs: $(cat "$work/same.out")"
! grep -q 'mapping' "$work/same.err" || fail "unchanged files: unexpected warning: $(cat "$work/same.err")"

# 2. Both files changed in place (same inodes): the private mapping gets its
#    differing pages from the recording; the shared one becomes a private copy.
python3 -c "
f = open('$work/private.dat', 'r+b'); f.seek(8192); f.write(b'Z' * 4096); f.close()
f = open('$work/shared.dat', 'r+b'); f.write(b'CHANGED!'); f.close()"
cp "$work/shared.dat" "$work/shared.before"
"$SLSDBG" restore "$work/rec" --at $at > "$work/inplace.out" 2> "$work/inplace.err" || fail "restore (in place) failed: $(cat "$work/inplace.err")"
cmp -s "$work/native.out" "$work/inplace.out" || {
  echo "native:   $(cat "$work/native.out")"; echo "restored: $(cat "$work/inplace.out")"; fail "in-place change: output differs"; }
grep -q "shared mapping .*shared.dat: file contents changed since recording; restored as a private copy" "$work/inplace.err" ||
  fail "no warning for the changed shared file: $(cat "$work/inplace.err")"
! grep -q "private.dat" "$work/inplace.err" || fail "unexpected warning for private.dat: $(cat "$work/inplace.err")"
cmp -s "$work/shared.dat" "$work/shared.before" || fail "restore modified the shared file"

# 3. Private file replaced (new inode; the old one is kept so that ext4 cannot
#    hand out its inode number again): restored from the recording as anonymous memory.
mv "$work/private.dat" "$work/private.old"
python3 -c "open('$work/private.dat','wb').write(b'X' * 3 * 4096)"
"$SLSDBG" restore "$work/rec" --at $at > "$work/replaced.out" 2> "$work/replaced.err" || fail "restore (replaced) failed: $(cat "$work/replaced.err")"
cmp -s "$work/native.out" "$work/replaced.out" || fail "replaced file: output differs: $(cat "$work/replaced.out")"
grep -q "private.dat: file changed since recording; restored its recorded pages as anonymous memory" "$work/replaced.err" ||
  fail "no warning for the replaced private file: $(cat "$work/replaced.err")"
echo "restore_changed_file: OK"
