// A breakpoint that stops the tracee only where its general registers equal a
// target: a hardware execution breakpoint (perf PERF_TYPE_BREAKPOINT) with a
// BPF program attached that compares the registers in the kernel and lets the
// overflow raise a synchronous SIGTRAP (attr.sigtrap, si_code TRAP_PERF) only
// on a match. A hit in a hot loop therefore costs no context switch, which is
// what makes reaching a tick checkpoint inside a loop affordable without a
// PMU. Needs Linux >= 6.10 (BPF decides the perf overflow) and CAP_PERFMON +
// CAP_BPF; callers fall back to stopping at every hit (ptrace debug registers).
#pragma once

#include <sys/types.h>
#include <sys/user.h>

#include "common/fd.h"
#include "common/result.h"

namespace slsdbg::replay {

class ConditionalBreakpoint {
 public:
  // AllButRcxR11: for a target rewound over a `syscall` (which set them).
  // AllButStringRegs: a target inside a rep string instruction (rep_string.h).
  enum class Compare { All, AllButRcxR11, AllButStringRegs };
  // Armed at once on thread `tid` for pc = target.rip.
  static Result<ConditionalBreakpoint> arm(pid_t tid, const user_regs_struct& target, Compare compare);
  ConditionalBreakpoint(ConditionalBreakpoint&&) = default;
  ConditionalBreakpoint& operator=(ConditionalBreakpoint&&) = default;
  // Logs (debug) how many #DBs the breakpoint took: the cost a counted
  // arrival avoids (checkpoint_arrival_counted.cc; tests read it).
  ~ConditionalBreakpoint();
  // Debug exceptions of every such breakpoint this process has closed (one
  // per visit of its pc, matching or not): what a run without the patched
  // breakpoint paid (`monitor stats`).
  static uint64_t closed_debug_exceptions();

 private:
  ConditionalBreakpoint(UniqueFd prog, UniqueFd event, uint64_t pc)
      : prog_(std::move(prog)), event_(std::move(event)), pc_(pc) {}
  UniqueFd prog_;
  UniqueFd event_;
  uint64_t pc_ = 0;
};

}  // namespace slsdbg::replay
