#include "gdbserver/replay/diversion_syscalls.h"

#include <sys/mman.h>
#include <sys/syscall.h>

namespace slsdbg::gdbserver {

DivertedSyscall diverted_syscall(int64_t nr, const std::array<uint64_t, 6>& args) {
  switch (nr) {
    case SYS_mmap:  // a file mapping would read (or, shared, write) a file
      return (args[3] & MAP_ANONYMOUS) ? DivertedSyscall::Run : DivertedSyscall::Fail;
    case SYS_munmap: case SYS_mremap: case SYS_mprotect: case SYS_brk: case SYS_madvise:
    case SYS_rt_sigaction: case SYS_rt_sigprocmask: case SYS_rt_sigreturn: case SYS_sigaltstack:
    case SYS_clock_gettime: case SYS_clock_getres: case SYS_gettimeofday: case SYS_time:
    case SYS_getpid: case SYS_getppid: case SYS_gettid: case SYS_getuid: case SYS_geteuid:
    case SYS_getgid: case SYS_getegid: case SYS_sched_yield: case SYS_getrandom: case SYS_uname:
    case SYS_exit: case SYS_exit_group:
      return DivertedSyscall::Run;
    case SYS_write:
      return (args[0] == 1 || args[0] == 2) ? DivertedSyscall::Output : DivertedSyscall::Fail;
    default:
      return DivertedSyscall::Fail;
  }
}

}  // namespace slsdbg::gdbserver
