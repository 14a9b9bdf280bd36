#!/usr/bin/env bash
# Checks descriptor numbering in replay: fd_kinds opens one descriptor of
# every kind (directory as dirfd, pipe, socketpair, socket, eventfd, epoll,
# timerfd, signalfd, memfd, pidfd, inotify, a created file, dups) between
# real read-only opens; its output is the same under recording and
# `replay --check` crosses every boundary by execution (a real open after an
# emulated descriptor-creating call got a lower number before placeholders).
# Then gzip writing next to its input (openat on the directory's fd) and
# xz -T1 (numbering after its output open): identical files, --check OK.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_fd_kinds.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
check() {  # check REC: replays to its end, every boundary by execution
  local out rc cps want
  out=$(timeout 300 "$SLSDBG" replay "$1" --check 2>&1 </dev/null); rc=$?
  [ "$rc" -eq 0 ] || fail "$1: --check exit $rc: $out"
  cps=$(sed -n 's/^OK: \([0-9]*\) checkpoints.*/\1/p' <<<"$out")
  want=$(python3 "$SLSDBG_SOURCE_DIR/tests/e2e/boundaries.py" "$1" --max-forced 0) || fail "$1: $want"
  [[ -n "$cps" && "$out" == *"$want"* ]] || fail "$1: $out (want $want)"
  echo "$(basename "$1"): $out"
}

mkdir -p "$tmp/d"
echo X >"$tmp/d/in.txt"
"$PROGRAMS/fd_kinds" "$tmp/d" >"$tmp/native.txt" || fail "fd_kinds natively"
grep -q "^pidfd = [0-9]" "$tmp/native.txt" || fail "native run: $(cat "$tmp/native.txt")"
rm -f "$tmp/d/out.txt"
"$SLSDBG" record -o "$tmp/kinds" -- "$PROGRAMS/fd_kinds" "$tmp/d" >"$tmp/rec.txt" 2>"$tmp/rec.err" ||
  fail "recording fd_kinds: $(cat "$tmp/rec.err")"
diff "$tmp/native.txt" "$tmp/rec.txt" || fail "fd_kinds output differs under recording"
check "$tmp/kinds"

head -c 400000 "$SLSDBG" >"$tmp/d/data.bin"
gzip -c -n "$tmp/d/data.bin" >"$tmp/native.gz"
xz -c -T1 "$tmp/d/data.bin" >"$tmp/native.xz"
"$SLSDBG" record -o "$tmp/gzip" -- gzip -k -f -n "$tmp/d/data.bin" 2>"$tmp/gzip.err" || fail "gzip: $(cat "$tmp/gzip.err")"
cmp "$tmp/native.gz" "$tmp/d/data.bin.gz" || fail "gzip output differs under recording"
check "$tmp/gzip"
"$SLSDBG" record -o "$tmp/xz" -- xz -k -f -T1 "$tmp/d/data.bin" 2>"$tmp/xz.err" || fail "xz: $(cat "$tmp/xz.err")"
cmp "$tmp/native.xz" "$tmp/d/data.bin.xz" || fail "xz output differs under recording"
check "$tmp/xz"
echo "replay_fd_kinds: OK"
