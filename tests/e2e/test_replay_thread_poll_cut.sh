#!/usr/bin/env bash
# A thread waiting in poll() across checkpoints (#16): the recorder cuts its
# call at each checkpoint, and the kernel writes the pollfd's revents back
# (zero) as it leaves; replay never runs that call, so it takes those bytes
# from the checkpoint (engine/replay/cut_call_writes.h). python3's
# multiprocessing.Pool diverged there in every recording ("page ... differs
# ... first byte 01, recorded 00"). thr_poll_cut: output as native,
# `replay --check` OK, and the check met such a cut call.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/poll_cut.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
prog=$PROGRAMS/thr_poll_cut

"$prog" >"$tmp/native.out" || fail "thr_poll_cut natively"
grep -q '^poll 1 revents 1 read 1 w$' "$tmp/native.out" || fail "native output: $(cat "$tmp/native.out")"
timeout 120 "$SLSDBG" record -o "$tmp/rec" -- "$prog" >"$tmp/rec.out" 2>"$tmp/rec.err" </dev/null ||
  fail "record: $(cat "$tmp/rec.err")"
cmp -s "$tmp/native.out" "$tmp/rec.out" || fail "recorded output differs: $(diff "$tmp/native.out" "$tmp/rec.out")"
SLSDBG_LOG=debug timeout 300 "$SLSDBG" replay "$tmp/rec" --check >"$tmp/check" 2>&1 </dev/null ||
  fail "replay --check: $(grep -v ' debug ' "$tmp/check")"
grep -q '^history ends when the process ends' "$tmp/check" || fail "the check does not reach the exit: $(tail -3 "$tmp/check")"
grep -q 'ranges written by calls it cut set to the recorded bytes' "$tmp/check" ||
  fail "no checkpoint cut the waiter's poll (the spin did not cross a tick?)"
echo "$(grep '^OK' "$tmp/check")"
echo "replay_thread_poll_cut: OK"
