// Checks that replay creates no process and signals or waits for none: the
// recorded process's children ran unrecorded, so every call that starts,
// signals or waits for one is emulated from the log (the recorded pid, exit
// status, siginfo), never run against a real pid.
#include "engine/replay/syscall_policy.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>

namespace slsdbg::replay {
namespace {

TEST(SyscallPolicy, CallsAboutChildProcessesAreEmulated) {
  for (long nr : {SYS_fork, SYS_vfork, SYS_clone, SYS_clone3, SYS_wait4, SYS_waitid, SYS_kill, SYS_tkill,
                  SYS_tgkill, SYS_rt_sigqueueinfo, SYS_pidfd_open, SYS_pidfd_send_signal, SYS_pidfd_getfd,
                  SYS_process_vm_readv, SYS_process_vm_writev, SYS_ptrace})
    EXPECT_EQ(handling_of(nr, {1234, SIGTERM, 0, 0, 0, 0}), SyscallHandling::Emulate) << "syscall " << nr;
}

TEST(SyscallPolicy, AddressSpaceCallsRunForReal) {
  EXPECT_EQ(handling_of(SYS_mmap, {}), SyscallHandling::RunAndCheck);
  EXPECT_EQ(handling_of(SYS_exit_group, {}), SyscallHandling::EndOfProcess);
}

// Relative opens run for real, so the working directory must follow the log.
TEST(SyscallPolicy, ChangingDirectoryRunsForReal) {
  EXPECT_EQ(handling_of(SYS_chdir, {}), SyscallHandling::RunAndCheck);
  EXPECT_EQ(handling_of(SYS_fchdir, {3}), SyscallHandling::RunUseLogged);
}

}  // namespace
}  // namespace slsdbg::replay
