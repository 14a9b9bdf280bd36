#!/usr/bin/env bash
# Checks python3's multiprocessing with a Queue and a Value: pipes, the
# Value's shared arena and SemLocks, and a feeder thread in the parent (a
# member with threads and shared memory, replayed by the threaded replay,
# one segment per restore: hence the longer interval, which keeps the test
# near 30 s at load 18). Output as native, every member replays --check OK
# to its end.
# The children's SIGCHLD (SIG_DFL: ignored) may reach the feeder thread
# while it waits in futex; the recorder does not log a signal the kernel
# would have discarded (process/signal_policy.h), so the wait goes on as
# natively. (It once replayed as the futex first: stop 29's note on #16.)
. "$(dirname "$0")/shared_python_lib.sh"

check queue "value 200 [('done', 100), ('done', 100), ('parent', 0)]" '
import multiprocessing as mp
def work(q, v, n):
    for i in range(n):
        with v.get_lock():
            v.value += 1
    q.put(("done", n))
if __name__ == "__main__":
    mp.set_start_method("fork")
    q = mp.Queue()
    v = mp.Value("i", 0)
    ps = [mp.Process(target=work, args=(q, v, 100)) for _ in range(2)]
    for p in ps: p.start()
    q.put(("parent", 0))
    got = sorted(q.get() for _ in range(3))
    for p in ps: p.join()
    print("value", v.value, got)
' --interval 100
echo "record_shared_python_queue: OK"
