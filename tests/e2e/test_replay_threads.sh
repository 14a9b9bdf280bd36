#!/usr/bin/env bash
# Checks `replay --check` of recordings made with `record --threads`: every
# segment is replayed from its checkpoint one thread at a time as the log
# orders them (a ThreadSwitch resumes the named thread, a call that was in
# the kernel gets its logged result where the log has it, a futex wait never
# blocks, a thread's exit runs for real), and every checkpoint reached by
# execution equals the recorded one (all threads' registers, dirty pages).
# Fixtures: mutex+condvar, atomics spinning (only the tick switches), a
# thread pool, CPU-bound workers (thr_restore), signals to waiting threads
# (thr_tgkill_tls). An altered syscall event of the thread pool's log is
# reported as a divergence there.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_threads.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check() {  # check NAME CMD...: record with --threads, then replay --check says OK
  local name=$1 out
  shift
  timeout 120 "$SLSDBG" record --threads -o "$tmp/$name" -- "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null ||
    fail "$name: record: $(cat "$tmp/$name.err")"
  grep -q "the program ran [2-9] threads" "$tmp/$name.err" || fail "$name: ran no thread: $(cat "$tmp/$name.err")"
  ! grep -q "two threads ran program code at once" "$tmp/$name.err" || fail "$name: $(cat "$tmp/$name.err")"
  out=$(timeout 300 "$SLSDBG" replay "$tmp/$name" --check 2>&1 </dev/null) || fail "$name: replay --check: $out"
  grep -q "^OK: [0-9]* checkpoints, [1-9][0-9]* boundaries crossed by execution" <<<"$out" ||
    fail "$name: replay --check: $out"
  grep -q "^history ends when the process ends" <<<"$out" || fail "$name: history does not end with the exit: $out"
  echo "$name: $(head -1 <<<"$out")"
}

check thr_condvar "$PROGRAMS/thr_condvar"
check thr_spin "$PROGRAMS/thr_spin"
check thr_pool "$PROGRAMS/thr_pool"
# Signals directed at threads waiting in a call: queued ones are taken and
# held before a checkpoint, re-sent ones logged first thing after it, a
# logged one entered into its handler before the next; trapno and dead
# stack settled. Two recordings (the interleaving varies).
for i in 1 2; do
  check thr_tgkill_tls "$PROGRAMS/thr_tgkill_tls"
  grep -q "^tls 11 22 33$" "$tmp/thr_tgkill_tls.out" || fail "thr_tgkill_tls: $(cat "$tmp/thr_tgkill_tls.out")"
  rm -rf "$tmp/thr_tgkill_tls"
done

# Real threaded programs: python3 in e2e_replay_threads_real, node in
# e2e_replay_threads_node; thr_memset,
# xz and zstd (ticks inside rep stosb) in e2e_replay_threads_rep.

# CPU-bound workers: each tick falls inside a worker's loop, reached by the
# patched breakpoint (the perf breakpoint alone is throttled in such a loop
# and missed the match; thread_reach.h).
check thr_restore "$PROGRAMS/thr_restore"
grep -q "[1-9][0-9]* reached by patched breakpoint" <<<"$(timeout 300 "$SLSDBG" replay "$tmp/thr_restore" --check 2>&1 </dev/null)" ||
  fail "thr_restore: no checkpoint reached by the patched breakpoint"
# Without the patch (its fallbacks): still OK.
out=$(SLSDBG_REPLAY_PATCH=off timeout 300 "$SLSDBG" replay "$tmp/thr_spin" --check 2>&1 </dev/null) ||
  fail "thr_spin without the patch: $out"
grep -q "^OK: " <<<"$out" || fail "thr_spin without the patch: $out"

# One altered syscall event (first argument changed) in a segment where
# the pool's threads run: the check reports that segment and event.
tools="$SLSDBG_BUILD_DIR/engine/replay"
last=$("$SLSDBG" info "$tmp/thr_pool" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["checkpoints"]) - 1)') ||
  fail "info --json"
altered=
for seg in $(seq $((last - 1)) -1 1); do
  for idx in 0 1 2 3 4 5 6 7 8 9; do
    rm -rf "$tmp/copy"; cp -a "$tmp/thr_pool" "$tmp/copy"
    if "$tools/replay_alter_event" "$tmp/copy" "$seg" "$idx" 2>/dev/null; then altered=$seg:$idx; break 2; fi
  done
done
[ -n "$altered" ] || fail "thr_pool: no syscall event to alter"
out=$(timeout 300 "$SLSDBG" replay "$tmp/copy" --check 2>&1 </dev/null); rc=$?
[ "$rc" -eq 1 ] || fail "altered thr_pool: exit $rc, want 1: $out"
[[ "$out" == *"divergence in segment $seg at event $idx: expected syscall"* ]] || fail "altered thr_pool ($altered): $out"
echo "altered event $altered: $(head -1 <<<"$out")"
echo "replay_threads: OK"
