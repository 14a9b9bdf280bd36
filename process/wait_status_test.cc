// decode_wait_status on the statuses the kernel reports to a PTRACE_SEIZE
// tracer (built with the same layout waitpid uses).
#include "process/wait_status.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

namespace slsdbg::process {
namespace {

int stopped(int sig, int event = 0) { return W_STOPCODE(sig) | (event << 16); }

TEST(WaitStatus, ExitAndDeath) {
  WaitResult w = decode_wait_status(W_EXITCODE(3, 0));
  EXPECT_EQ(w.kind, StopKind::Exited);
  EXPECT_EQ(w.exit_code, 3);
  EXPECT_FALSE(w.stopped());
  w = decode_wait_status(W_EXITCODE(0, SIGKILL));
  EXPECT_EQ(w.kind, StopKind::Killed);
  EXPECT_EQ(w.signo, SIGKILL);
  EXPECT_FALSE(w.stopped());
}

TEST(WaitStatus, PtraceEvents) {
  WaitResult w = decode_wait_status(stopped(SIGTRAP, PTRACE_EVENT_SECCOMP));
  EXPECT_EQ(w.kind, StopKind::PtraceEvent);
  EXPECT_TRUE(w.is_seccomp());
  EXPECT_FALSE(w.is_interrupt());
  w = decode_wait_status(stopped(SIGTRAP, PTRACE_EVENT_STOP));
  EXPECT_TRUE(w.is_interrupt());
  EXPECT_FALSE(w.is_seccomp());
  for (int e : {PTRACE_EVENT_FORK, PTRACE_EVENT_VFORK, PTRACE_EVENT_CLONE}) {
    w = decode_wait_status(stopped(SIGTRAP, e));
    EXPECT_TRUE(w.is_fork_event()) << e;
    EXPECT_EQ(w.event, e);
  }
  w = decode_wait_status(stopped(SIGTRAP, PTRACE_EVENT_EXEC));
  EXPECT_TRUE(w.is_event(PTRACE_EVENT_EXEC));
  EXPECT_FALSE(w.is_fork_event());
}

TEST(WaitStatus, GroupStopSyscallAndSignal) {
  WaitResult w = decode_wait_status(stopped(SIGTSTP, PTRACE_EVENT_STOP));
  EXPECT_EQ(w.kind, StopKind::GroupStop);
  EXPECT_EQ(w.signo, SIGTSTP);
  w = decode_wait_status(stopped(SIGTRAP | 0x80));
  EXPECT_EQ(w.kind, StopKind::SyscallStop);
  EXPECT_EQ(w.signo, SIGTRAP);
  w = decode_wait_status(stopped(SIGSEGV));
  EXPECT_EQ(w.kind, StopKind::SignalDelivery);
  EXPECT_EQ(w.signo, SIGSEGV);
  EXPECT_TRUE(w.stopped());
  // A plain SIGTRAP (a breakpoint) is a signal, not an event.
  w = decode_wait_status(stopped(SIGTRAP));
  EXPECT_EQ(w.kind, StopKind::SignalDelivery);
}

}  // namespace
}  // namespace slsdbg::process
