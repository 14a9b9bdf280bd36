// The checkpoint's breakpoint when the patch is not in: the perf breakpoint
// that compares registers in the kernel (ConditionalArrival), else a debug
// register from the session's owner (DebugRegisterArrival), a #DB per visit.
#include <atomic>
#include <cstdlib>
#include <string>

#include "common/log.h"
#include "engine/replay/segment_run.h"

namespace slsdbg::replay {

// A hardware execution breakpoint (a debug register claimed from the
// session's owner, beside the observer's): the program's code stays
// untouched, and the kernel sets RF on the hit, so resuming does not hit it
// again. then_patch: only until the tracee leaves the bytes the patch's
// jump would replace.
Status ReplaySession::SegmentRun::insert_breakpoint(bool then_patch) {
  if (DebugRegisterArrival* d = armed<DebugRegisterArrival>()) {
    d->then_patch = d->then_patch || then_patch;
    return ok_status();
  }
  if (!has_next_ || next_forced_) return ok_status();
  // A perf breakpoint holds one of the same four registers.
  if (armed<ConditionalArrival>()) arrival_.emplace<NothingArmed>();
  const int slot = TRY_CTX(s_.dregs_.claim(DrUse::CheckpointBreakpoint, target_.rip, DrKind::Execute, 1),
                           "the breakpoint of checkpoint " + std::to_string(seg_.value + 1));
  Status st = s_.dregs_.apply(task_.raw_tid());
  if (!st.ok()) {
    s_.dregs_.release(slot);
    return st;
  }
  arrival_.emplace<DebugRegisterArrival>(DebugRegisterArrival{slot, then_patch});
  return ok_status();
}

// Preferred: the kernel compares the registers at each hit (conditional_breakpoint.h).
Status ReplaySession::SegmentRun::arm_breakpoint() {
  if (!has_next_ || next_forced_) return ok_status();
  // SLSDBG_REPLAY_BREAKPOINT=ptrace forces the fallback (tests, debugging).
  const char* force = std::getenv("SLSDBG_REPLAY_BREAKPOINT");
  const ConditionalBreakpoint::Compare compare = target_at_ == RegsAt::RewoundSyscall ? ConditionalBreakpoint::Compare::AllButRcxR11
                                                 : target_at_ == RegsAt::InsideRepString ? ConditionalBreakpoint::Compare::AllButStringRegs
                                                                                         : ConditionalBreakpoint::Compare::All;
  TRY(remove_breakpoint());
  auto cond = force && std::string(force) == "ptrace" ? Result<ConditionalBreakpoint>(Error::msg("forced by SLSDBG_REPLAY_BREAKPOINT"))
                                                      : ConditionalBreakpoint::arm(task_.raw_tid(), target_, compare);
  if (cond.ok()) {
    arrival_.emplace<ConditionalArrival>(ConditionalArrival{std::move(*cond)});
    return ok_status();
  }
  static std::atomic<bool> warned{false};
  if (!warned.exchange(true)) {
    SLSDBG_WARN("replay", "stopping at every hit of a checkpoint's pc (slow in loops): %s", cond.error().message.c_str());
  }
  return insert_breakpoint();
}

// Gives the debug register back (a process already gone is fine).
Status ReplaySession::SegmentRun::remove_breakpoint() {
  DebugRegisterArrival* d = armed<DebugRegisterArrival>();
  if (!d) return ok_status();
  s_.dregs_.release(d->slot);
  arrival_.emplace<NothingArmed>();
  Status st = s_.dregs_.apply(task_.raw_tid());
  if (!st.ok() && st.error().errno_value != ESRCH) return st;
  return ok_status();
}

}  // namespace slsdbg::replay
