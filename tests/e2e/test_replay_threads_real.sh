#!/usr/bin/env bash
# Checks real threaded programs from Debian's packages under `record
# --threads`: output identical to a native run, and `replay --check` OK.
# - python3 threading: 4 threads, a Lock, a queue. It reads a clock twice
#   in a row with equal arguments; a checkpoint at the first call's exit
#   stop is not at the second's (thread_check.cc, done_at_checkpoint: the
#   second call was taken as done and replay diverged at the next event).
# node: e2e_replay_threads_node.
# thr_memset, xz -T2 and zstd -T2: e2e_replay_threads_rep.
. "$(dirname "$0")/threads_real_lib.sh"

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
