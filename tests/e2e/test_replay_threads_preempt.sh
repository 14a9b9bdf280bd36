#!/usr/bin/env bash
# Threads resuming at a pc saved before the checkpoint's patch went in
# (#16). Go preempts a goroutine by a signal whose handler makes it resume
# later, from any thread, through a `ret` to the interrupted pc: any
# instruction of a hot loop. The threaded replay puts a jump at checkpoint
# k+1's pc as soon as the log is consumed; a jump covering two instructions
# was entered at the second one and ran its bytes as code (SIGSEGV, then
# "checkpoint N not reached within 3 s": 2 Go recordings in 3 failed). The
# jump now stays inside pc's own instruction (relay_site.h).
# - thr_preempt (the same preemption in C, a hand-written loop without CFI
#   as Go's), three recordings: output as native, `replay --check` OK with
#   no segment replayed again (each failing way was one), checkpoints
#   reached by the patch;
# - where Go is installed (not on CI's Debian: skipped), go_spin.go, two
#   recordings, the same.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_threads_preempt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check() {  # check NAME PROGRAM: recorded output as native, replay --check OK without reruns
  local name=$1 prog=$2 out
  "$prog" >"$tmp/native.out" 2>/dev/null || fail "$name natively"
  rm -rf "${tmp:?}/$name"
  timeout 120 "$SLSDBG" record -o "$tmp/$name" -- "$prog" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null ||
    fail "$name: record: $(cat "$tmp/$name.err")"
  cmp -s "$tmp/native.out" "$tmp/$name.out" || fail "$name: recorded output differs: $(cat "$tmp/$name.out")"
  grep -q "the program ran [2-9] threads" "$tmp/$name.err" || fail "$name: ran no thread: $(cat "$tmp/$name.err")"
  out=$(timeout 300 "$SLSDBG" replay "$tmp/$name" --check 2>&1 </dev/null) || fail "$name: replay --check: $out"
  grep -q "^OK: .* [1-9][0-9]* reached by patched breakpoint, 0 segments replayed again$" <<<"$out" ||
    fail "$name: replay --check: $out"
  grep -q "^history ends when the process ends" <<<"$out" || fail "$name: history does not end with the exit: $out"
  echo "$name: $(head -1 <<<"$out")"
}

for i in 1 2 3; do
  check thr_preempt "$PROGRAMS/thr_preempt"
  n=$(sed -n 's/^preemptions //p' "$tmp/thr_preempt.err")
  [ "${n:-0}" -ge 5 ] || fail "thr_preempt: only ${n:-no} preemptions while recorded"
done

. "$(dirname "$0")/go_fixture_lib.sh"
go_fixture go_spin "$tmp"
case $? in
  0) for i in 1 2; do check go_spin "$tmp/gosrc/go_spin"; done ;;
  2) echo "go_spin: skipped (no Go toolchain)" ;;
  *) fail "go build of go_spin.go" ;;
esac
echo "replay_threads_preempt: OK"
