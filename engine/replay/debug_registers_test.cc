// The debug-register owner on a real traced child: claims up to four slots
// and refuses a fifth naming every holder; apply() writes DR7 as the table
// says; a claimed write watchpoint fires in the child and DR6 names its
// slot; a borrow when full takes an observer's slot, never the checkpoint's,
// and give_back() restores it.
#include "engine/replay/debug_registers.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

namespace slsdbg::replay {
namespace {

volatile uint64_t g_watched = 0;

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

unsigned long peek_dr(pid_t pid, int i) {
  errno = 0;
  return static_cast<unsigned long>(ptrace(PTRACE_PEEKUSER, pid, offsetof(struct user, u_debugreg) + i * sizeof(unsigned long), 0));
}

TEST(DebugRegisters, FourSlotsThenARefusalNamingTheHolders) {
  DebugRegisters d;
  ASSERT_TRUE(d.claim(DrUse::Watch, 0x1000, DrKind::Write, 8).ok());
  ASSERT_TRUE(d.claim(DrUse::CountProbe, 0x401000, DrKind::Execute, 1).ok());
  ASSERT_TRUE(d.claim(DrUse::TargetProbe, 0x401010, DrKind::Execute, 1).ok());
  auto cp = d.claim(DrUse::CheckpointBreakpoint, 0x401020, DrKind::Execute, 1);
  ASSERT_TRUE(cp.ok());
  EXPECT_EQ(3, *cp);
  EXPECT_EQ(0, d.free_slots());
  auto refused = d.claim(DrUse::Watch, 0x2000, DrKind::Write, 4);
  ASSERT_FALSE(refused.ok());
  const std::string& why = refused.error().message;
  EXPECT_NE(std::string::npos, why.find("no free debug register for a watchpoint at 0x2000")) << why;
  EXPECT_NE(std::string::npos, why.find("DR0: watchpoint 0x1000 (8 bytes, write)")) << why;
  EXPECT_NE(std::string::npos, why.find("DR3: checkpoint breakpoint 0x401020")) << why;
  // A released slot is claimed again.
  d.release(1);
  auto again = d.claim(DrUse::Watch, 0x2000, DrKind::Write, 4);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(1, *again);
  // Borrowing when full takes the first observer slot, never the checkpoint's.
  auto lent = d.borrow(DrUse::RepStringWatch, 0x3000, DrKind::Access, 1);
  ASSERT_TRUE(lent.ok());
  EXPECT_EQ(0, lent->slot);
  EXPECT_EQ(DrUse::RepStringWatch, d.slot(0).use);
  d.give_back(*lent);
  EXPECT_EQ(DrUse::Watch, d.slot(0).use);
  EXPECT_EQ(0x1000u, d.slot(0).addr);
  d.release_all(DrUse::Watch);
  EXPECT_EQ(2, d.free_slots());
  EXPECT_EQ(-1, d.find(DrUse::Watch, 0x1000));
  EXPECT_EQ(3, d.find(DrUse::CheckpointBreakpoint, 0x401020));
  EXPECT_FALSE(d.holds(DrUse::Watch));
  EXPECT_TRUE(d.holds(DrUse::TargetProbe));
  ASSERT_TRUE(d.claim(DrUse::Watch, 0x2000, DrKind::Write, 8).ok());
  EXPECT_TRUE(d.holds(DrUse::Watch, DrKind::Write));
  EXPECT_FALSE(d.holds(DrUse::Watch, DrKind::Access));
}

TEST(DebugRegisters, AppliedWatchpointFiresInTheChild) {
  const pid_t pid = traced_child();
  ASSERT_GT(pid, 0);
  DebugRegisters d;
  // Slot 0 taken by an execute breakpoint the child never reaches, so the
  // watchpoint goes to slot 1 and DR7 must carry both.
  ASSERT_TRUE(d.claim(DrUse::CheckpointBreakpoint, 0x1000, DrKind::Execute, 1).ok());
  const uint64_t addr = reinterpret_cast<uint64_t>(&g_watched);
  auto slot = d.claim(DrUse::Watch, addr, DrKind::Write, 8);
  ASSERT_TRUE(slot.ok());
  ASSERT_EQ(1, *slot);
  Status st = d.apply(pid);
  ASSERT_TRUE(st.ok()) << st.error().message;
  EXPECT_EQ(addr, peek_dr(pid, 1));
  // L0 (execute, 1 byte) | L1 with RW1 = write, LEN1 = 8 bytes.
  EXPECT_EQ((1ul << 0) | (1ul << 2) | ((1ul | (2ul << 2)) << 20), peek_dr(pid, 7));
  ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
  int status = 0;
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  ASSERT_TRUE(WIFSTOPPED(status));
  EXPECT_EQ(SIGTRAP, WSTOPSIG(status));
  auto dr6 = DebugRegisters::take_dr6(pid);
  ASSERT_TRUE(dr6.ok());
  EXPECT_TRUE(*dr6 & (1ul << 1)) << "DR6 " << std::hex << *dr6;
  EXPECT_FALSE(*dr6 & 1ul);
  EXPECT_EQ(0u, peek_dr(pid, 6) & 0xful) << "take_dr6 clears the trap bits";
  // Released and applied: DR7 off, the child runs to its exit.
  d.release(*slot);
  d.release_all(DrUse::CheckpointBreakpoint);
  ASSERT_TRUE(d.apply(pid).ok());
  EXPECT_EQ(0u, peek_dr(pid, 7));
  ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, nullptr, nullptr));
  ASSERT_EQ(pid, waitpid(pid, &status, 0));
  EXPECT_TRUE(WIFEXITED(status));
}

}  // namespace
}  // namespace slsdbg::replay
