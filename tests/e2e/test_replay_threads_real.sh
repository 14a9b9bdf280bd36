#!/usr/bin/env bash
# Checks real threaded programs from Debian's packages under `record
# --threads`: output identical to a native run, and `replay --check` OK.
# - python3 threading: 4 threads, a Lock, a queue. It reads a clock twice
#   in a row with equal arguments; a checkpoint at the first call's exit
#   stop is not at the second's (thread_check.cc, done_at_checkpoint: the
#   second call was taken as done and replay diverged at the next event).
# node: e2e_replay_threads_node.
# thr_memset, xz -T2 and zstd -T2: e2e_replay_threads_rep.
set -u
tmp=$(mktemp -d "${TMPDIR:-/tmp}/replay_threads_real.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

check() {  # check NAME WANT [RECORD_OPTION...] -- CMD...: output WANT, replay --check OK
  local name=$1 want=$2 opts=() out
  shift 2
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  shift
  out=$("$@" 2>&1 </dev/null) || fail "$name: native run failed: $out"
  [ "$out" = "$want" ] || fail "$name: native run printed '$out'"
  timeout 120 "$SLSDBG" record --threads "${opts[@]}" -o "$tmp/$name" -- "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" </dev/null ||
    fail "$name: record: $(cat "$tmp/$name.err")"
  [ "$(cat "$tmp/$name.out")" = "$want" ] || fail "$name: recorded run printed '$(cat "$tmp/$name.out")'"
  grep -qE "the program ran ([2-9]|[1-9][0-9]+) threads" "$tmp/$name.err" || fail "$name: ran no thread: $(cat "$tmp/$name.err")"
  ! grep -q "both run program code" "$tmp/$name.err" || fail "$name: $(cat "$tmp/$name.err")"
  out=$(timeout 300 "$SLSDBG" replay "$tmp/$name" --check 2>&1 </dev/null) || fail "$name: replay --check: $out"
  grep -q "^OK: [0-9]* checkpoints, [1-9][0-9]* boundaries crossed by execution" <<<"$out" || fail "$name: replay --check: $out"
  grep -q "^history ends when the process ends" <<<"$out" || fail "$name: history does not end with the exit: $out"
  echo "$name: $(grep -o 'ran [0-9]* threads' "$tmp/$name.err"); $(head -1 <<<"$out")"
}

cat >"$tmp/pyq.py" <<'PY'
import threading, queue
q, lock, total = queue.Queue(), threading.Lock(), [0]
def worker():
    while (n := q.get()) is not None:
        with lock:
            total[0] += n * n
ts = [threading.Thread(target=worker) for _ in range(4)]
for t in ts: t.start()
for i in range(300): q.put(i)
for t in ts: q.put(None)
for t in ts: t.join()
print("total", total[0])
PY
check python3 "total 8955050" -- /usr/bin/python3 "$tmp/pyq.py"
echo "replay_threads_real: OK"
