#include "engine/replay/syscall_policy.h"

#include <fcntl.h>
#include <sys/syscall.h>

namespace slsdbg::replay {

SyscallHandling handling_of(int64_t nr, const std::array<uint64_t, 6>& args) {
  switch (nr) {
    case SYS_mmap: case SYS_munmap: case SYS_mremap: case SYS_mprotect: case SYS_brk: case SYS_madvise:
    case SYS_arch_prctl: case SYS_prctl: case SYS_set_robust_list:
    case SYS_rt_sigaction: case SYS_rt_sigprocmask: case SYS_sigaltstack:
      return SyscallHandling::RunAndCheck;
    case SYS_rt_sigreturn:
      return SyscallHandling::RunAndCheck;  // "result" is the restored rax
    case SYS_openat: {
      // A read-only open is harmless to repeat and a later mmap needs the fd;
      // anything that could create or truncate a file is emulated.
      const uint64_t flags = args[2];
      const bool read_only = (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC | O_TMPFILE));
      return read_only ? SyscallHandling::RunAndCheck : SyscallHandling::Emulate;
    }
    case SYS_close:
    case SYS_set_tid_address:  // returns the tid, which differs in the replaying process
      return SyscallHandling::RunUseLogged;
    case SYS_exit: case SYS_exit_group:
      return SyscallHandling::EndOfProcess;
    default:
      return SyscallHandling::Emulate;
  }
}

}  // namespace slsdbg::replay
