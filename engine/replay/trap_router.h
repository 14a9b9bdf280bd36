// Whose SIGTRAP is it? A segment's run (segment_run.h) gets one kind of
// stop for many owners: the patch trampoline's int3, the CPU-time alarm of
// the hold or of the patched run, the checkpoint's debug register or perf
// breakpoint, the observer's breakpoints, watchpoints, probes and counter
// stub (timeline_traps.cc, timeline_counting.cc), a single step, or a
// SIGTRAP of the program itself (then matched against the log). The rep
// string watch (checkpoint_arrival_rep_string.cc) waits for its own trap
// and never reaches here. route_trap decides from facts alone, so the order
// of precedence is in one place and testable without a tracee.
#pragma once

#include <cstdint>

#include "engine/replay/code_function.h"

namespace slsdbg::replay {

enum class ArrivalWay { Nothing, Held, Conditional, DebugRegister, Patched };

struct TrapFacts {
  int si_code = 0;
  bool cpu_alarm = false;       // process::is_cpu_time_alarm
  uint64_t rip = 0;
  ArrivalWay way = ArrivalWay::Nothing;
  uint64_t checkpoint_pc = 0;   // checkpoint k+1's rip
  uint64_t patch_resume = 0;    // Patched: the rip of its match's SIGTRAP
  bool observer = false;
  // The 2 bytes before rip are a `syscall` (read only for TRAP_BRKPT): a
  // single step over a system call reports TRAP_BRKPT there too.
  bool after_syscall = false;
};

enum class TrapOwner {
  Trampoline,               // the patch matched the registers (checkpoint_arrival_patched.cc)
  HoldAlarm,                // held past its CPU budget: arm the checkpoint now
  PatchBudgetAlarm,         // the patched run overran its budget: it failed
  StaleAlarm,               // queued before its arrival went away: dropped
  CheckpointDebugRegister,  // the checkpoint's debug register at its pc
  ConditionalBreakpoint,    // the checkpoint's perf breakpoint
  ObserverWhilePatched,     // the observer's, but the patch must go first (then Observer)
  Observer,                 // RunObserver::on_trap; NotMine goes on to unclaimed_trap()
  SingleStep,               // a step nobody claimed: resume
  Program,                  // a SIGTRAP the program raised: a logged signal
};

TrapOwner route_trap(const TrapFacts& f);
// After the observer said NotMine (or without one): a step, or the program's.
TrapOwner unclaimed_trap(int si_code);
const char* trap_owner_name(TrapOwner owner);
const char* arrival_way_name(ArrivalWay way);
// Whether the instruction before rip is a `syscall` (TrapFacts::after_syscall).
bool after_syscall_insn(uint64_t rip, const CodeReader& read);

}  // namespace slsdbg::replay
