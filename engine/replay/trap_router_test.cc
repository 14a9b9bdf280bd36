// The order in which a segment run's SIGTRAP owners are asked
// (trap_router.h): the trampoline's match first, the alarm by what is
// armed, the checkpoint's own breakpoints before the observer, the
// observer before a step or the program.
#include "engine/replay/trap_router.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>

namespace slsdbg::replay {
namespace {

constexpr int kTrapPerf = 6;
constexpr uint64_t kPc = 0x401000;
constexpr uint64_t kResume = 0x7f0000001000;

TrapFacts facts(ArrivalWay way, int si_code, uint64_t rip, bool observer = true) {
  TrapFacts f;
  f.si_code = si_code;
  f.rip = rip;
  f.way = way;
  f.checkpoint_pc = kPc;
  f.patch_resume = way == ArrivalWay::Patched ? kResume : 0;
  f.observer = observer;
  return f;
}

TEST(TrapRouterTest, TheTrampolinesInt3IsTheMatchOnlyAtItsResumeAddress) {
  EXPECT_EQ(route_trap(facts(ArrivalWay::Patched, SI_KERNEL, kResume)), TrapOwner::Trampoline);
  // Another int3 while patched (the observer's, or the padding): not a match.
  EXPECT_EQ(route_trap(facts(ArrivalWay::Patched, SI_KERNEL, kResume + 8)), TrapOwner::ObserverWhilePatched);
  EXPECT_EQ(route_trap(facts(ArrivalWay::Patched, SI_KERNEL, kResume + 8, false)), TrapOwner::Program);
}

TEST(TrapRouterTest, TheCpuAlarmBelongsToWhatIsArmed) {
  TrapFacts f = facts(ArrivalWay::Held, SI_TIMER, 0x1234);
  f.cpu_alarm = true;
  EXPECT_EQ(route_trap(f), TrapOwner::HoldAlarm);
  f.way = ArrivalWay::Patched;
  EXPECT_EQ(route_trap(f), TrapOwner::PatchBudgetAlarm);
  for (ArrivalWay w : {ArrivalWay::Nothing, ArrivalWay::Conditional, ArrivalWay::DebugRegister}) {
    f.way = w;
    EXPECT_EQ(route_trap(f), TrapOwner::StaleAlarm);
  }
}

TEST(TrapRouterTest, TheCheckpointsDebugRegisterWinsAtItsPcOnly) {
  EXPECT_EQ(route_trap(facts(ArrivalWay::DebugRegister, TRAP_HWBKPT, kPc)), TrapOwner::CheckpointDebugRegister);
  // An observer's watchpoint or probe elsewhere.
  EXPECT_EQ(route_trap(facts(ArrivalWay::DebugRegister, TRAP_HWBKPT, kPc + 1)), TrapOwner::Observer);
  EXPECT_EQ(route_trap(facts(ArrivalWay::Conditional, TRAP_HWBKPT, kPc)), TrapOwner::Observer);
}

TEST(TrapRouterTest, APerfTrapIsTheConditionalBreakpointsOnlyWhenItIsArmed) {
  EXPECT_EQ(route_trap(facts(ArrivalWay::Conditional, kTrapPerf, kPc)), TrapOwner::ConditionalBreakpoint);
  EXPECT_EQ(route_trap(facts(ArrivalWay::Nothing, kTrapPerf, kPc)), TrapOwner::Observer);
}

TEST(TrapRouterTest, ACauselessTrapAtTheCheckpointsPcIsItsExecuteBreakpoints) {
  // DR6 named no cause: the kernel reports an icebp (TRAP_BRKPT).
  EXPECT_EQ(route_trap(facts(ArrivalWay::Conditional, TRAP_BRKPT, kPc, false)), TrapOwner::ConditionalBreakpoint);
  EXPECT_EQ(route_trap(facts(ArrivalWay::DebugRegister, TRAP_BRKPT, kPc, false)), TrapOwner::CheckpointDebugRegister);
  // After a `syscall`: the report of a single step over it.
  TrapFacts step = facts(ArrivalWay::Conditional, TRAP_BRKPT, kPc, false);
  step.after_syscall = true;
  EXPECT_EQ(route_trap(step), TrapOwner::Program);
  step.observer = true;
  EXPECT_EQ(route_trap(step), TrapOwner::Observer);
  // Elsewhere, or with nothing armed at the pc, it stays the program's.
  EXPECT_EQ(route_trap(facts(ArrivalWay::Conditional, TRAP_BRKPT, kPc + 1, false)), TrapOwner::Program);
  EXPECT_EQ(route_trap(facts(ArrivalWay::Nothing, TRAP_BRKPT, kPc, false)), TrapOwner::Program);
}

TEST(TrapRouterTest, AfterASyscallIsReadFromTheTwoBytesBeforeRip) {
  const uint8_t code[] = {0x90, 0x0f, 0x05, 0x90};  // nop; syscall; nop at 0x1000
  const CodeReader read = [&](uint64_t addr, std::span<uint8_t> out) {
    if (addr < 0x1000 || addr + out.size() > 0x1000 + sizeof code) return false;
    std::copy_n(code + (addr - 0x1000), out.size(), out.begin());
    return true;
  };
  EXPECT_TRUE(after_syscall_insn(0x1003, read));
  EXPECT_FALSE(after_syscall_insn(0x1002, read));
  EXPECT_FALSE(after_syscall_insn(0x1001, read));  // unreadable: not a syscall
}

TEST(TrapRouterTest, WithoutAnObserverAStepIsResumedAndAnythingElseIsTheProgramsSignal) {
  EXPECT_EQ(route_trap(facts(ArrivalWay::Nothing, TRAP_TRACE, 0x1234, false)), TrapOwner::SingleStep);
  EXPECT_EQ(route_trap(facts(ArrivalWay::Nothing, SI_USER, 0x1234, false)), TrapOwner::Program);
  EXPECT_EQ(unclaimed_trap(TRAP_TRACE), TrapOwner::SingleStep);
  EXPECT_EQ(unclaimed_trap(SI_KERNEL), TrapOwner::Program);
}

}  // namespace
}  // namespace slsdbg::replay
