#include "engine/replay/trap_router.h"

#include <signal.h>

#include "process/x86_insn.h"

namespace slsdbg::replay {

namespace {
#ifndef TRAP_PERF
constexpr int TRAP_PERF = 6;  // si_code of a perf sigtrap (asm-generic/siginfo.h)
#endif
}  // namespace

TrapOwner route_trap(const TrapFacts& f) {
  const bool patched = f.way == ArrivalWay::Patched;
  if (patched && f.rip == f.patch_resume && f.si_code == SI_KERNEL) return TrapOwner::Trampoline;
  if (f.cpu_alarm) {
    if (f.way == ArrivalWay::Held) return TrapOwner::HoldAlarm;
    return patched ? TrapOwner::PatchBudgetAlarm : TrapOwner::StaleAlarm;
  }
  // A #DB whose DR6 named no cause reaches us as an icebp (TRAP_BRKPT),
  // with no breakpoint handler run, the perf breakpoint's BPF compare
  // included. Seen under load in this VM (1 `replay --check` in ~20 of a
  // hot loop): at the checkpoint's pc it is the hit of the execute
  // breakpoint armed there, which checks the registers itself. Not after a
  // `syscall`: a single step over one also reports TRAP_BRKPT (a checkpoint
  // taken at a syscall's exit stands there).
  const bool causeless_at_pc = f.si_code == TRAP_BRKPT && f.rip == f.checkpoint_pc && !f.after_syscall;
  // The session's debug register wins over an observer's at the same pc.
  if (f.way == ArrivalWay::DebugRegister && f.rip == f.checkpoint_pc && (f.si_code == TRAP_HWBKPT || causeless_at_pc))
    return TrapOwner::CheckpointDebugRegister;
  if (f.way == ArrivalWay::Conditional && (f.si_code == TRAP_PERF || causeless_at_pc))
    return TrapOwner::ConditionalBreakpoint;
  if (patched && f.observer) return TrapOwner::ObserverWhilePatched;
  if (f.observer) return TrapOwner::Observer;
  return unclaimed_trap(f.si_code);
}

TrapOwner unclaimed_trap(int si_code) { return si_code == TRAP_TRACE ? TrapOwner::SingleStep : TrapOwner::Program; }

const char* trap_owner_name(TrapOwner owner) {
  switch (owner) {
    case TrapOwner::Trampoline: return "trampoline";
    case TrapOwner::HoldAlarm: return "hold alarm";
    case TrapOwner::PatchBudgetAlarm: return "patch budget alarm";
    case TrapOwner::StaleAlarm: return "stale alarm";
    case TrapOwner::CheckpointDebugRegister: return "checkpoint debug register";
    case TrapOwner::ConditionalBreakpoint: return "conditional breakpoint";
    case TrapOwner::ObserverWhilePatched: return "observer (while patched)";
    case TrapOwner::Observer: return "observer";
    case TrapOwner::SingleStep: return "single step";
    case TrapOwner::Program: return "program";
  }
  return "?";
}

bool after_syscall_insn(uint64_t rip, const CodeReader& read) {
  uint8_t before[2] = {0, 0};
  return read(rip - 2, before) && process::is_syscall_insn(before);
}

const char* arrival_way_name(ArrivalWay way) {
  switch (way) {
    case ArrivalWay::Nothing: return "nothing";
    case ArrivalWay::Held: return "the hold";
    case ArrivalWay::Conditional: return "the perf breakpoint";
    case ArrivalWay::DebugRegister: return "the debug register";
    case ArrivalWay::Patched: return "the patch";
  }
  return "?";
}

}  // namespace slsdbg::replay
