#!/usr/bin/env bash
# python3's multiprocessing.Pool (#16): threads (the pool's handler threads)
# and forked worker processes that share memory. Its `replay --check`
# diverged in every recording: the worker handler's poll, cut by a
# checkpoint, had written its revents as the kernel left the call
# (cut_call_writes.h); and in about 1 of 3 a thread parked at the exit of a
# getpid took its next, equal getpid as done before the checkpoint, its last
# event being a shared-memory member's forced checkpoint (thread_check.cc
# last_event_repeats). One recording (~20 s): output as native, `replay --check`
# OK to the process's end. Skipped without /usr/bin/python3.
PY3=/usr/bin/python3
[ -x "$PY3" ] || { echo "SKIP: no $PY3"; exit 0; }
. "$(dirname "$0")/threads_real_lib.sh"
cat >"$tmp/pool.py" <<'PY'
import multiprocessing as m
if __name__ == "__main__":
    with m.Pool(2) as p:
        print(sum(p.map(abs, range(-1000, 1000))))
PY
for i in 1; do
  check "pool$i" "1000000" -- "$PY3" "$tmp/pool.py"
done
echo "replay_threads_python_pool: OK"
