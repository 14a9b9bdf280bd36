// The ways a run of segment k notices its arrival at checkpoint k+1
// (segment_run.h). Exactly one is armed at a time, so a run's state is one
// value of CheckpointArrival, not a set of flags:
//
//   NothingArmed ─log consumed─┬─► Patched ─match─► NothingArmed (reached)
//                              │     ├─observer's trap, failed run─► (rescue copy) breakpoint
//                              │     └─refit refused, observer's trap proven first─► breakpoint (patch again at its next continue)
//                              ├─► DebugRegister{then_patch} (rip inside the moved bytes) ─next visit─► Patched
//                              ├─no patch (no site, observer refuses)─► breakpoint
//                              └─observer stops first─► Held ─its stop, or CPU budget─► (as above)
//   breakpoint: Conditional, else (perf refused) DebugRegister. Once the
//   patch is refused, dropped or failed, a counting copy first (checkpoint_arrival_counted.cc):
//   it replaces the tracee at the pc (the breakpoint's one #DB) or at an
//   int3 met first (NothingArmed until that trap), else the breakpoint stays.
//
// What a run has learned about the patch (refused here, dropped, failed)
// is PatchState; whether the hold was spent, HoldState.
#pragma once

#include <optional>
#include <utility>
#include <variant>

#include "common/fd.h"
#include "engine/replay/conditional_breakpoint.h"
#include "engine/replay/patched_breakpoint.h"
#include "process/task.h"

namespace slsdbg::replay {

// Before the log is consumed (the checkpoint cannot be reached yet), after
// the match, or while the rescue copy takes over.
struct NothingArmed {};

// The observer stops the run before the checkpoint (RunObserver::holds_checkpoint):
// only a CPU-time alarm, in case it is slower than the recording
// (checkpoint_arrival_hold.cc).
struct HeldArrival {
  UniqueFd alarm;
};

// A perf breakpoint whose BPF program compares the registers in the kernel
// (conditional_breakpoint.h): a SIGTRAP only at a match.
struct ConditionalArrival {
  ConditionalBreakpoint breakpoint;
};

// A debug register claimed from the session's owner (debug_registers.h):
// a #DB per visit of the pc. then_patch: it only waits for the tracee to
// leave the bytes the patch's jump would replace, then the patch goes in.
struct DebugRegisterArrival {
  int slot = -1;
  bool then_patch = false;
};

// With an observer, a fork of the tracee made when the patch went in: the
// run goes on from it when the patched run fails or the observer traps
// (checkpoint_arrival_patched.cc). Killed when dropped.
class RescueCopy {
 public:
  RescueCopy() = default;
  explicit RescueCopy(process::Task task) : task_(std::move(task)) {}
  RescueCopy(RescueCopy&& o) noexcept : task_(std::exchange(o.task_, std::nullopt)) {}
  RescueCopy& operator=(RescueCopy&& o) noexcept {
    if (this != &o) {
      kill();
      task_ = std::exchange(o.task_, std::nullopt);
    }
    return *this;
  }
  ~RescueCopy() { kill(); }
  void kill() {
    if (task_) task_->kill_and_reap();
    task_.reset();
  }
  void hold(process::Task task) {
    kill();
    task_.emplace(std::move(task));
  }
  explicit operator bool() const { return task_.has_value(); }
  process::Task take() {
    process::Task t = std::move(*task_);
    task_.reset();
    return t;
  }

 private:
  std::optional<process::Task> task_;
};

// The trampoline compares registers (and up to kMaxMemChecks words) in the
// tracee (patched_breakpoint.h), under a CPU-time budget.
struct PatchedArrival {
  PatchedBreakpoint patch;
  UniqueFd budget;
  uint64_t budget_ns = 0;
  RescueCopy rescue;
};

using CheckpointArrival =
    std::variant<NothingArmed, HeldArrival, ConditionalArrival, DebugRegisterArrival, PatchedArrival>;

// What this run knows about patching the checkpoint's pc.
enum class PatchState {
  Allowed,         // may go in (or is in)
  AskAgain,        // the observer refused it for one resumption: asked again at the next plain continue
  SiteRefused,     // the code at the pc takes no patch (patch_site.h): not again in this run
  Dropped,         // a trap for the observer while patched: not again in this run
  Failed,          // the patched run diverged: replayed again (rescue copy or checkpoint k)
  FailedByBudget,  // the patched run overran its CPU budget: again with a larger one
};

// Whether the patched run was seen to reach the checkpoint from an
// observer's trap (checkpoint_arrival_proof.cc): Refused, the trap goes
// back to the rescue copy.
enum class TrampolineProof { Unknown, Proven, Refused };

// Whether the run may still hold the checkpoint for the observer.
enum class HoldState { Available, Expired };

}  // namespace slsdbg::replay
