// What a system call does in a diversion (the forked copy where GDB's
// `print f(3)` runs). The copy shares open files with the replayed process
// and the user's files with everyone, so nothing may reach a file:
//  - Run: calls that touch only the copy itself (memory: mmap of anonymous
//    memory, munmap, mremap, mprotect, brk, madvise; its signal state;
//    clocks and ids; exit). They run for real.
//  - Output: write(2) to fd 1 or 2. The bytes go to slsdbg's own stdout or
//    stderr (the terminal GDB runs in), never to the recorded descriptor,
//    which may be a file; the call returns the count.
//  - Fail: everything else (open, read, close, lseek, ioctl, fork, kill,
//    futex...) returns -ENOSYS without running.
#pragma once

#include <array>
#include <cstdint>

namespace slsdbg::gdbserver {

enum class DivertedSyscall { Run, Output, Fail };

DivertedSyscall diverted_syscall(int64_t nr, const std::array<uint64_t, 6>& args);

}  // namespace slsdbg::gdbserver
