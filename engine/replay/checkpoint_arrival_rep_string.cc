// A checkpoint inside a rep string instruction (rep_string.h): the
// breakpoint stops at the instruction's start, and the iterations up to the
// recorded rcx run here.
#include "common/log.h"
#include "engine/replay/segment_run.h"

namespace slsdbg::replay {

// At the start of the rep string instruction checkpoint k+1 interrupted, all
// other registers equal: run iterations up to the recorded rcx. False: not
// this execution of it. Single steps trap after each iteration but cost a
// stop each, so a long run first goes to a data watchpoint (any debug
// register, borrowed from the observer when none is free) on the
// element a margin before the target, then steps the rest: a data breakpoint
// in a fast-string run may be reported some iterations late.
Result<bool> ReplaySession::SegmentRun::step_rep_iterations(user_regs_struct& r) {
  constexpr uint64_t kStepMargin = 256;  // iterations single-stepped at the end (the data breakpoint was never seen late here)
  const pid_t tid = task_.raw_tid();
  if (r.rip == target_.rip && r.rcx > target_.rcx + 2 * kStepMargin) {
    const uint64_t run = r.rcx - target_.rcx - kStepMargin;  // iterations to let run
    const uint64_t walked = target_rep_->walks_rdi ? r.rdi : r.rsi;
    const bool down = (r.eflags & 0x400) != 0;  // DF
    const uint64_t offset = (run - 1) * target_rep_->element_size;
    const uint64_t watch = down ? walked - offset : walked + offset;
    // A free debug register, else one of the observer's, borrowed and given back.
    DebugRegisters::Borrowed lent = TRY(s_.dregs_.borrow(DrUse::RepStringWatch, watch, DrKind::Access, 1));
    TRY(s_.dregs_.apply(tid));
    r.eflags |= 0x10000ull;  // RF: not the execution breakpoint on this instruction again
    TRY(task_.set_regs(r));
    TRY(task_.cont());
    process::WaitResult w = TRY(task_.wait());
    s_.dregs_.give_back(lent);
    TRY(s_.dregs_.apply(tid));
    if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP)
      return Error::msg("running a rep string instruction toward checkpoint " + std::to_string(seg_.value + 1) +
                        ": unexpected stop (signal " + std::to_string(w.signo) + ")");
    r = TRY(task_.regs());
    SLSDBG_DEBUG("replay", "rep string at %s: watchpoint stop at rcx %s (target %s)", hex(target_.rip).c_str(),
                 hex(r.rcx).c_str(), hex(target_.rcx).c_str());
  }
  int stuck = 0;
  while (r.rip == target_.rip && r.rcx > target_.rcx) {
    // RF: the execution breakpoint on this very instruction must not fire
    // again before the next iteration.
    const uint64_t before = r.rcx;
    r.eflags |= 0x10000ull;
    TRY(task_.set_regs(r));
    TRY(task_.singlestep());
    process::WaitResult w = TRY(task_.wait());
    if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP)
      return Error::msg("stepping a rep string instruction toward checkpoint " + std::to_string(seg_.value + 1) +
                        ": unexpected stop (signal " + std::to_string(w.signo) + ")");
    r = TRY(task_.regs());
    if (r.rcx == before && ++stuck > 3)
      return Error::msg("stepping a rep string instruction toward checkpoint " + std::to_string(seg_.value + 1) +
                        ": no progress at " + hex(r.rip));
  }
  r.eflags &= ~0x10000ull;
  std::string diff;
  const bool there = same_general_registers(r, target_, &diff, RegsAt::Anywhere);
  SLSDBG_DEBUG("replay", "rep string at %s stepped to rcx %s: %s", hex(target_.rip).c_str(), hex(r.rcx).c_str(),
               there ? "registers equal" : diff.c_str());
  return there;
}

}  // namespace slsdbg::replay
