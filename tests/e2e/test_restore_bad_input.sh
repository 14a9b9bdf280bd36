#!/usr/bin/env bash
# Checks that each kind of bad input to `slsdbg restore` is a one-line error
# naming the problem with a nonzero exit: missing arguments, a checkpoint out
# of range, a directory that is not a recording, a damaged recording, and a
# missing restorer executable.
set -u
work=$(mktemp -d "${TMPDIR:-/tmp}/restore_bad.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# expect_error WANT_SUBSTRING CMD...: nonzero exit, exactly one line on stderr containing WANT.
expect_error() {
  local want=$1; shift
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -ne 0 ] || fail "'$*' exited 0"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "'$*': error is not one line: $err"
  [[ "$err" == *"$want"* ]] || fail "'$*': error '$err' does not say '$want'"
}

"$SLSDBG" record -o "$work/rec" --interval 50 -- "$PROGRAMS/restore_compute" 30000000 > "$work/record.out" 2>&1
[ $? -ge 3 ] || { cat "$work/record.out"; fail "recording failed"; }  # the fixture exits 3 + checksum % 100

expect_error "missing --at" "$SLSDBG" restore "$work/rec"
expect_error "missing recording" "$SLSDBG" restore --at 0
expect_error "--repeat needs a positive count" "$SLSDBG" restore "$work/rec" --at 0 --repeat 0
expect_error "checkpoint 99999 out of range" "$SLSDBG" restore "$work/rec" --at 99999
mkdir "$work/empty"
expect_error "not a recording" "$SLSDBG" restore "$work/empty" --at 0
SLSDBG_RESTORER=/nonexistent/slsdbg-restorer expect_error "restorer not found" "$SLSDBG" restore "$work/rec" --at 1

# Damaged recording: flip bytes in every stored page file; the restore must
# fail with an error rather than run a corrupted image.
cp -a "$work/rec" "$work/damaged"
damaged=0
while IFS= read -r f; do
  size=$(stat -c %s "$f")
  [ "$size" -gt 8192 ] || continue
  python3 - "$f" <<'PY'
import sys
p = sys.argv[1]
with open(p, "r+b") as f:
    data = bytearray(f.read())
    for off in range(0, len(data), 4096):
        data[off + 100] ^= 0xff
    f.seek(0); f.write(data)
PY
  damaged=1
done < <(find "$work/damaged" -type f ! -name 'catalog.db*')
[ "$damaged" -eq 1 ] || fail "found no page data to damage"
err=$("$SLSDBG" restore "$work/damaged" --at 1 2>&1 >/dev/null); rc=$?
[ "$rc" -ne 0 ] || fail "damaged recording restored with exit 0"
[ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || fail "damaged: error is not one line: $err"

echo "restore_bad_input: OK"
