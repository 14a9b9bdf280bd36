#!/usr/bin/env bash
# Checks what recording does with calls it cannot follow yet (execve while a
# second thread lives, and a fork while writable MAP_SHARED memory exists,
# which the unrecorded child could write behind the log): a one-line message
# naming the call by its name (execve, clone from glibc's fork), a nonzero
# exit, and the recording up to that point valid (`info` reads it, `replay
# --check` replays it). Threads and plain child processes record
# (e2e_record_threads, e2e_record_children).
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record_refusals.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
refused() {  # refused NAME CALL CMD...
  local name=$1 call=$2 rc out
  shift 2
  "$SLSDBG" record -o "$tmp/$name" -- "$@" >/dev/null 2>"$tmp/$name.err" </dev/null; rc=$?
  [ "$rc" -ne 0 ] || fail "$name: recorded with exit 0"
  grep -q "the program called $call)" "$tmp/$name.err" || fail "$name: message does not name $call: $(cat "$tmp/$name.err")"
  grep -q "syscall_[0-9]" "$tmp/$name.err" && fail "$name: a number instead of a name: $(cat "$tmp/$name.err")"
  "$SLSDBG" info "$tmp/$name" >/dev/null 2>&1 || fail "$name: info cannot read the recording"
  out=$(timeout 300 "$SLSDBG" replay "$tmp/$name" --check 2>&1 </dev/null) || fail "$name: --check: $out"
  echo "$name: $(head -1 "$tmp/$name.err") / $out"
}
refused thr_exec execve "$PROGRAMS/thr_exec"
refused fork_shared clone "$PROGRAMS/rec_fork_shared"
grep -q "MAP_SHARED" "$tmp/fork_shared.err" || fail "fork_shared: the message does not say why: $(cat "$tmp/fork_shared.err")"
echo "record_refusals: OK"
