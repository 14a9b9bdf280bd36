#!/usr/bin/env bash
# Checks `record --threads` (EXPERIMENTAL): one thread runs at a time,
# switching where one blocks and at the tick. Each fixture (mutex+condvar,
# two threads spinning on an atomic that only the tick can switch, a thread
# pool, tgkill to each thread with its own TLS) prints what it prints
# natively and exits 0; `info` reads the recording; the log names more than
# one thread; a checkpoint of the spinning fixture holds both threads, and
# its core (`dump`) shows GDB two threads with their registers. The
# Timeline (--goto/--at, GDB) refuses such a recording with a clear message
# rather than replaying it wrong.
# zstd -T2, xz -T2 and node record with output identical to a native run.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/record_threads.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

rec() {  # rec NAME EXPECTED_OUTPUT
  local name=$1 want=$2 native out rc
  native=$("$PROGRAMS/$name" 2>&1 </dev/null)
  [ "$native" = "$want" ] || fail "$name: native run printed '$native'"
  out=$(timeout 120 "$SLSDBG" record --threads -o "$tmp/$name" -- "$PROGRAMS/$name" 2>"$tmp/$name.err" </dev/null); rc=$?
  [ "$rc" -eq 0 ] || fail "$name: record exit $rc: $(cat "$tmp/$name.err")"
  [ "$out" = "$want" ] || fail "$name: recorded run printed '$out', native '$want'"
  grep -q "the program ran [2-9] threads; replay --check, restore, GDB" "$tmp/$name.err" ||
    fail "$name: record does not report the threads: $(cat "$tmp/$name.err")"
  "$SLSDBG" info "$tmp/$name" >"$tmp/$name.info" 2>&1 || fail "$name: info: $(cat "$tmp/$name.info")"
  grep -qE "^threads +[2-9] \(replay --check" "$tmp/$name.info" || fail "$name: info shows no threads: $(head -8 "$tmp/$name.info")"
  grep -q "^children" "$tmp/$name.info" && fail "$name: info lists threads as children: $(grep children "$tmp/$name.info")"
  # replay --check and GDB run threads (e2e_replay_threads, e2e_replay_gdb_threads);
  # a single-thread moment is refused with a message naming the threaded form.
  out=$(timeout 60 "$SLSDBG" replay "$tmp/$name" --goto 1:2:0x1000:1 --server 127.0.0.1:0 2>&1 </dev/null) &&
    fail "$name: replay --goto a moment succeeded: $out"
  grep -q "with threads a moment is K:t=TID:pc=0xPC:n=N" <<<"$out" ||
    fail "$name: replay's refusal is unclear: $out"
  echo "$name: $out"
}

rec thr_condvar "sum 2001000"
# Without --threads: the same (threads are recorded by default).
out=$(timeout 120 "$SLSDBG" record -o "$tmp/noflag" -- "$PROGRAMS/thr_condvar" 2>"$tmp/noflag.err" </dev/null) ||
  fail "thr_condvar without --threads: $(cat "$tmp/noflag.err")"
[ "$out" = "sum 2001000" ] || fail "thr_condvar without --threads printed '$out'"
grep -qE "^threads +[2-9] " <<<"$("$SLSDBG" info "$tmp/noflag")" || fail "thr_condvar without --threads: info shows no threads"
out=$(timeout 300 "$SLSDBG" replay "$tmp/noflag" --check 2>&1 </dev/null) || fail "thr_condvar without --threads: --check: $out"
echo "thr_condvar without --threads: $(head -1 <<<"$out")"
# A program that starts no thread stays a single-thread recording.
"$SLSDBG" record -o "$tmp/single" -- /bin/true 2>/dev/null </dev/null || fail "/bin/true: not recorded"
! grep -q "^threads" <<<"$("$SLSDBG" info "$tmp/single")" || fail "/bin/true: info shows threads"
rec thr_spin "spin 6 done"
rec thr_pool "pool 45150"
rec thr_tgkill_tls "tls 11 22 33"

# --verify: every checkpoint's stored image (all threads' stacks, the
# memory a cut syscall left) equals the live process's.
out=$(timeout 120 "$SLSDBG" record --threads --verify -o "$tmp/pool_verify" -- "$PROGRAMS/thr_pool" 2>"$tmp/pool_verify.err" </dev/null) ||
  fail "thr_pool --verify: $(cat "$tmp/pool_verify.err")"
[ "$out" = "pool 45150" ] || fail "thr_pool --verify printed '$out'"

# The last checkpoint of thr_spin with both threads (they spin there; the
# first one is at the clone3): its backtrace lists two, and the core from it
# shows them to GDB.
last=$("$SLSDBG" info "$tmp/thr_spin" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]) - 1)') ||
  fail "thr_spin: info --json"
k=
for i in $(seq "$last" -1 1); do
  n=$("$SLSDBG" backtrace "$tmp/thr_spin" --at "$i" --json 2>/dev/null |
      python3 -c 'import json,sys; print(len(json.load(sys.stdin)["threads"]))' 2>/dev/null) || break
  if [ "$n" = 2 ]; then k=$i; break; fi
done
[ -n "$k" ] || fail "thr_spin: no checkpoint holds two threads"
"$SLSDBG" dump "$tmp/thr_spin" --at "$k" -q -o "$tmp/spin.core" || fail "dump --at $k failed"
g=$(gdb -batch -nx "$PROGRAMS/thr_spin" "$tmp/spin.core" -ex 'info threads' -ex 'thread apply all bt 3' 2>&1)
[ "$(grep -cE '^\*? +[0-9]+ +(Thread|LWP)' <<<"$g")" -eq 2 ] || fail "thr_spin core: GDB does not list 2 threads: $g"
grep -q " other (" <<<"$g" || fail "thr_spin core: no thread in other(): $g"
grep -q " main (" <<<"$g" || fail "thr_spin core: no thread in main(): $g"
echo "thr_spin: checkpoint $k holds 2 threads; its core shows GDB both"
# Still refused under --threads, naming the call: execve while a second
# thread lives (the kernel would end it behind the log). What was recorded
# stays readable.
"$SLSDBG" record --threads -o "$tmp/exec" -- "$PROGRAMS/thr_exec" >/dev/null 2>"$tmp/exec.err" </dev/null &&
  fail "thr_exec: recorded with exit 0"
grep -q "execve in a multithreaded program is not supported yet (the program called execve)" "$tmp/exec.err" ||
  fail "thr_exec: unclear refusal: $(cat "$tmp/exec.err")"
"$SLSDBG" info "$tmp/exec" >/dev/null 2>&1 || fail "thr_exec: info cannot read the recording"
echo "thr_exec: $(tail -1 "$tmp/exec.err")"

# Real threaded programs: zstd -T2 and xz -T2 (threads through clone3),
# node (7 threads). Output identical to a native run.
head -c 300000 "$SLSDBG" >"$tmp/data"
real_prog() {  # real_prog NAME OUTFILE CMD...
  local name=$1 outfile=$2 rc
  shift 2
  "$@" >"$tmp/$outfile.native" 2>&1 </dev/null || fail "$name: native run failed"
  timeout 120 "$SLSDBG" record --threads -o "$tmp/$name.rec" -- "$@" >"$tmp/$outfile" 2>"$tmp/$name.err" </dev/null; rc=$?
  [ "$rc" -eq 0 ] || fail "$name: record exit $rc: $(cat "$tmp/$name.err")"
  cmp -s "$tmp/$outfile" "$tmp/$outfile.native" || fail "$name: output differs from a native run"
  grep -q "the program ran [0-9]* threads" "$tmp/$name.err" || fail "$name: ran no thread: $(cat "$tmp/$name.err")"
  echo "$name: $(grep 'ran [0-9]* threads' "$tmp/$name.err")"
}
real_prog zstd zstd.out zstd -q -T2 -c "$tmp/data"
real_prog xz xz.out xz -T2 --block-size=100KiB -c "$tmp/data"
real_prog node node.out node -e 'setTimeout(() => console.log(6 * 7), 10)'
echo "record_threads: OK"
