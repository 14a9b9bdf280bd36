#!/usr/bin/env bash
# Checks python3's multiprocessing.shared_memory: the parent creates a
# SharedMemory block (shm_open + mmap of /dev/shm/psm_*), a forked worker
# maps it again by name (a member that starts sharing at its mmap: the
# block's bytes reach its log with that call) and writes it; the parent
# prints what it reads. The resource tracker is a third process. Output as
# native, every member replays --check OK to its end.
. "$(dirname "$0")/shared_python_lib.sh"

check shm 'buf0 42' '
import multiprocessing as mp
from multiprocessing import shared_memory
def child(name):
    s = shared_memory.SharedMemory(name=name)
    s.buf[0] = s.buf[1] + 40
    s.close()
if __name__ == "__main__":
    mp.set_start_method("fork")
    s = shared_memory.SharedMemory(create=True, size=64)
    s.buf[1] = 2
    p = mp.Process(target=child, args=(s.name,))
    p.start(); p.join()
    print("buf0", s.buf[0])
    s.close(); s.unlink()
'
echo "record_shared_python_shm: OK"
