#!/usr/bin/env bash
# Checks real programs whose processes share memory: python3's
# multiprocessing with a Value (a ctypes int in a MAP_SHARED arena in
# /dev/shm, guarded by a SemLock, a sem_open semaphore mapped shared) that
# two forked workers and the parent increment. Recorded, it prints what it
# prints natively; every member replays --check OK to its end (the arena
# and the semaphore are mapped from files replay has only placeholders
# for: engine/replay/placeholder_mmap.h).
. "$(dirname "$0")/shared_python_lib.sh"

check value 'value 900 exits [0, 0]' '
import multiprocessing as mp
def work(v, n):
    for _ in range(n):
        with v.get_lock():
            v.value += 1
if __name__ == "__main__":
    mp.set_start_method("fork")
    v = mp.Value("i", 0)
    ps = [mp.Process(target=work, args=(v, 300)) for _ in range(2)]
    for p in ps: p.start()
    work(v, 300)
    for p in ps: p.join()
    print("value", v.value, "exits", [p.exitcode for p in ps])
'
echo "record_shared_python: OK"
