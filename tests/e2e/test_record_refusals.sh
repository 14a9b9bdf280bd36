#!/usr/bin/env bash
# Checks what recording does with calls it cannot follow yet (execve while a
# second thread lives): a one-line message naming the call by its name, a
# nonzero exit, and the recording up to that point valid (`info` reads it,
# `replay --check` replays it). Threads, plain child processes and a fork
# with writable MAP_SHARED memory record (e2e_record_threads,
# e2e_record_children, e2e_record_shared_memory; rec_fork_shared below).
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
# No longer refused: the child's write reaches the parent as natively.
out=$("$SLSDBG" record -o "$tmp/fork_shared" -- "$PROGRAMS/rec_fork_shared" 2>"$tmp/fork_shared.err" </dev/null) ||
  fail "fork_shared: refused: $(cat "$tmp/fork_shared.err")"
grep -q "^rec_fork_shared: child wrote 42$" <<<"$out" || fail "fork_shared: the parent did not see the child's write: $out"
echo "record_refusals: OK"
