#include "recorder/capture/state_keeping_syscalls.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>

namespace slsdbg::recorder {
namespace {

TEST(StateKeepingSyscalls, WaitsKeepStateAndChangesDoNot) {
  EXPECT_TRUE(keeps_capture_state(SYS_futex));
  EXPECT_TRUE(keeps_capture_state(SYS_restart_syscall));
  EXPECT_TRUE(keeps_capture_state(SYS_rt_sigprocmask));
  EXPECT_TRUE(keeps_capture_state(SYS_set_robust_list));  // every new thread's first call
  // Each changes something a capture reuses: maps, brk, handlers, fds, offsets, cwd.
  for (long nr : {SYS_mmap, SYS_munmap, SYS_mprotect, SYS_mremap, SYS_madvise, SYS_brk, SYS_rt_sigaction, SYS_openat,
                  SYS_close, SYS_dup2, SYS_fcntl, SYS_read, SYS_write, SYS_lseek, SYS_chdir, SYS_execve, SYS_clone3,
                  SYS_exit_group, SYS_ioctl, SYS_sigaltstack})
    EXPECT_FALSE(keeps_capture_state(nr)) << nr;
  EXPECT_FALSE(keeps_capture_state(-1));
}

}  // namespace
}  // namespace slsdbg::recorder
