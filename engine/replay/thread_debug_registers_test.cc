// A threaded replay's watchpoints (thread_watch.h) and the breakpoint that
// brings a thread to its checkpoint (thread_reach.h) share the thread's
// debug registers through one owner: arming the breakpoint after the
// watchpoints leaves the watchpoint armed (it fires in the child), and
// taking the breakpoint away leaves it too. Before the owner, the
// breakpoint wrote DR7 whole and the child ran to its exit unwatched.
#include "engine/replay/thread_debug_registers.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

#include "engine/replay/thread_reach.h"
#include "engine/replay/thread_watch.h"

namespace slsdbg::replay {
namespace {

volatile uint64_t g_watched = 0;

__attribute__((noinline)) void never_called() { g_watched = 7; }

// A child stopped by SIGSTOP under PTRACE_TRACEME; resumed, it writes g_watched once.
pid_t traced_child() {
  const pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    raise(SIGSTOP);
    g_watched = 42;
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return pid;
}

unsigned long peek_dr7(pid_t pid) {
  errno = 0;
  return static_cast<unsigned long>(ptrace(PTRACE_PEEKUSER, pid, offsetof(struct user, u_debugreg) + 7 * sizeof(unsigned long), 0));
}

TEST(ThreadDebugRegisters, WatchpointSurvivesTheThreadsCheckpointBreakpoint) {
  const pid_t pid = traced_child();
  ASSERT_GT(pid, 0);
  process::Task task(Tid(pid), pid);
  const uint64_t addr = reinterpret_cast<uint64_t>(&g_watched);
  Status st = arm_thread_watches(pid, {WatchRange{WatchKind::Write, addr, 8}});
  ASSERT_TRUE(st.ok()) << st.error().message;
  user_regs_struct target{};
  target.rip = reinterpret_cast<uint64_t>(&never_called);
  auto reach = ThreadTarget::arm(task, target, ThreadTarget::Via::DebugRegister);
  ASSERT_TRUE(reach.ok()) << reach.error().message;
  const DebugRegisters& d = thread_debug_registers(pid);
  EXPECT_EQ(DrUse::Watch, d.slot(0).use);
  EXPECT_EQ(DrUse::ThreadTarget, d.slot(1).use);
  EXPECT_EQ(target.rip, d.slot(1).addr);
  // L0 (write, 8 bytes) | L1 (execute).
  EXPECT_EQ((1ul << 0) | (1ul << 2) | ((1ul | (2ul << 2)) << 16), peek_dr7(pid));
  st = reach->disarm(task);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(DrUse::Free, d.slot(1).use);
  EXPECT_EQ((1ul << 0) | ((1ul | (2ul << 2)) << 16), peek_dr7(pid)) << "the watchpoint stays armed";
  ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  ASSERT_TRUE(WIFSTOPPED(status)) << "the child exited: the watchpoint was lost";
  EXPECT_EQ(SIGTRAP, WSTOPSIG(status));
  auto fired = take_fired_watches(pid);
  ASSERT_TRUE(fired.ok()) << fired.error().message;
  EXPECT_EQ(1u, *fired);
  ASSERT_TRUE(arm_thread_watches(pid, {}).ok());
  EXPECT_EQ(0u, peek_dr7(pid));
  ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  EXPECT_TRUE(WIFEXITED(status));
}

TEST(ThreadDebugRegisters, AWatchpointTakesTheSlotAfterTheBreakpointAndIsReadBackAsItsRange) {
  const pid_t pid = traced_child();
  ASSERT_GT(pid, 0);
  process::Task task(Tid(pid), pid);
  user_regs_struct target{};
  target.rip = reinterpret_cast<uint64_t>(&never_called);
  auto reach = ThreadTarget::arm(task, target, ThreadTarget::Via::DebugRegister);
  ASSERT_TRUE(reach.ok()) << reach.error().message;
  const uint64_t addr = reinterpret_cast<uint64_t>(&g_watched);
  // Range 0 never written, range 1 written: slots 1 and 2.
  Status st = arm_thread_watches(pid, {WatchRange{WatchKind::Write, addr + 64, 8}, WatchRange{WatchKind::Write, addr, 8}});
  ASSERT_TRUE(st.ok()) << st.error().message;
  const DebugRegisters& d = thread_debug_registers(pid);
  EXPECT_EQ(DrUse::ThreadTarget, d.slot(0).use);
  EXPECT_EQ(DrUse::Watch, d.slot(2).use);
  ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  ASSERT_TRUE(WIFSTOPPED(status));
  auto fired = take_fired_watches(pid);
  ASSERT_TRUE(fired.ok()) << fired.error().message;
  EXPECT_EQ(2u, *fired) << "bit 1: the second range";
  ASSERT_TRUE(reach->disarm(task).ok());
  ASSERT_TRUE(arm_thread_watches(pid, {}).ok());
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
}

}  // namespace
}  // namespace slsdbg::replay
