#!/usr/bin/env python3
"""Prints a recording's syscall events, one per line: number, result and the
bytes written (hex), in log order (docs/formats/event-log.md). Helper of
test_record_syscall_buffer.sh: comparing two recordings' effects. What
differs between any two runs is left out: addresses mmap and brk return
(randomized), the bytes of stat buffers (inode numbers, times), process ids
and getrandom's bytes."""
import glob
import os
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return v, i


def svarint(b, i):
    v, i = varint(b, i)
    return (v >> 1) ^ -(v & 1), i


def events(path):
    b = open(path, "rb").read()
    # A sealed log ends with its index (u64 offsets) and a trailer naming
    # where the index starts: records end there. (Reading on into the index
    # took its offsets for records.) An unsealed log is scanned to the end.
    end = len(b)
    if len(b) >= 32 + 40 and b[-40:-32] == b"SLSEVIDX":
        end = int.from_bytes(b[-24:-16], "little")
    i = 32
    while i + 8 <= end:
        n = int.from_bytes(b[i:i + 4], "little")
        if n == 0 or i + 8 + n > end:
            break
        yield b[i + 8:i + 8 + n]
        i += 8 + n


def decode(p):
    kind, bits = p[0], int.from_bytes(p[1:3], "little")
    i, nr, result, writes = 3, -1, 0, []
    if bits & 1: _, i = svarint(p, i)
    if bits & 2: _, i = varint(p, i)
    if bits & 4: nr, i = svarint(p, i)
    if bits & 8:
        for _ in range(6): _, i = varint(p, i)
    if bits & 16: result, i = svarint(p, i)
    if bits & 32:
        count, i = varint(p, i)
        for _ in range(count):
            _, i = varint(p, i)
            n, i = varint(p, i)
            writes.append(p[i:i + n].hex())
            i += n
    return kind, nr, result, writes


for log in sorted(glob.glob(os.path.join(sys.argv[1], "events", "*.log"))):
    for payload in events(log):
        kind, nr, result, writes = decode(payload)
        if kind == 1:
            if nr in (9, 12, 39, 186, 218):  # mmap, brk, getpid, gettid, set_tid_address
                result = "varies"
            if nr == 318:  # getrandom
                writes = ["random"] if writes else []
            if nr in (4, 5, 6, 262, 332):  # stat, fstat, lstat, newfstatat, statx
                writes = ["stat"] if writes else []
            print(nr, result, ",".join(writes))
