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
      // O_TMPFILE shares its O_DIRECTORY bit with every opendir: test all
      // of its bits, or directories used as dirfd become placeholders.
      const uint64_t flags = args[2];
      const bool tmpfile = (flags & O_TMPFILE) == O_TMPFILE;
      const bool read_only = (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC)) && !tmpfile;
      return read_only ? SyscallHandling::RunAndCheck : SyscallHandling::Emulate;
    }
    // Copies of a descriptor keep what it refers to (a real file a later
    // mmap needs, or a placeholder); the table matches the recording, so
    // the numbers must too.
    case SYS_dup: case SYS_dup2: case SYS_dup3:
      return SyscallHandling::RunAndCheck;
    case SYS_fcntl:
      return (args[1] == F_DUPFD || args[1] == F_DUPFD_CLOEXEC) ? SyscallHandling::RunAndCheck
                                                                : SyscallHandling::Emulate;
    // A memfd is mapped shared and sized by ftruncate: both must be real for
    // the mapping to hold pages (ftruncate of a placeholder or a read-only
    // file fails harmlessly; the logged result is imposed).
    case SYS_memfd_create:
      return SyscallHandling::RunAndCheck;
    case SYS_chdir:
      // A later read-only open of a relative path runs for real: it must
      // resolve where the recorded one did (`make -C DIR` opens "Makefile").
      return SyscallHandling::RunAndCheck;
    case SYS_fchdir:  // its fd may be a placeholder: best effort
    case SYS_ftruncate:
    case SYS_close_range:
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
