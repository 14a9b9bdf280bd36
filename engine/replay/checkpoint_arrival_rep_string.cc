// A checkpoint inside a rep string instruction (rep_string.h): the
// breakpoint stops at the instruction's start, and the iterations up to the
// recorded rcx run here.
#include "common/log.h"
#include "engine/replay/segment_run.h"
#include "process/x86_insn.h"

namespace slsdbg::replay {

// Resumes the thread at `r` (RF set: not the execution breakpoint on this
// instruction again) until a debug register at `addr` traps: a free one,
// else one of the observer's, borrowed and given back. `r` becomes the
// registers there.
Status ReplaySession::SegmentRun::run_to_debug_register(user_regs_struct& r, uint64_t addr, DrKind kind) {
  const pid_t tid = task_.raw_tid();
  DebugRegisters::Borrowed lent = TRY(s_.dregs_.borrow(DrUse::RepStringWatch, addr, kind, 1));
  TRY(s_.dregs_.apply(tid));
  r.eflags |= process::kEflagsRf;
  TRY(task_.set_regs(r));
  TRY(task_.cont());
  process::WaitResult w = TRY(task_.wait());
  s_.dregs_.give_back(lent);
  TRY(s_.dregs_.apply(tid));
  if (w.kind != process::StopKind::SignalDelivery || w.signo != SIGTRAP)
    return Error::msg("running a rep string instruction toward checkpoint " + std::to_string(seg_.value + 1) +
                      ": unexpected stop (signal " + std::to_string(w.signo) + ")");
  r = TRY(task_.regs());
  return ok_status();
}

// Exactly `n` iterations of the rep string instruction at r.rip, by the CPU:
// with rcx = n the instruction ends after them, at an execution breakpoint on
// the next instruction; rcx then holds what the real count had left beyond
// n. A data breakpoint toward the target element cannot do this: in a fast
// string run it is reported at the end of a group of iterations, here up to
// 127 bytes late, and later on other CPUs (a run past the checkpoint).
// True: the n iterations ran and the instruction goes on (rip back at it);
// false: it ended early by its condition (cmps/scas), where the real count
// ends too, so the thread is left at the next instruction.
Result<bool> ReplaySession::SegmentRun::run_rep_iterations(user_regs_struct& r, uint64_t n) {
  const uint64_t rest = r.rcx - n;
  const uint64_t next = r.rip + target_rep_->length;
  r.rcx = n;
  TRY(run_to_debug_register(r, next, DrKind::Execute));
  if (r.rip != next)
    return Error::msg("running a rep string instruction toward checkpoint " + std::to_string(seg_.value + 1) +
                      ": stopped at " + hex(r.rip) + ", not after it at " + hex(next));
  const bool ended = r.rcx != 0 || rep_ended_early(*target_rep_, r.eflags);
  r.rcx += rest;
  if (!ended) {
    r.rip = target_.rip;
    // Between two iterations the arithmetic flags are dead (the next one sets
    // them before the end test reads them), and the CPU that cut a repe
    // cmpsb left other ones than its last iteration's (0x212 where that set
    // ZF and PF): the recorded ones.
    if (target_rep_->until != RepUntil::Count) r.eflags = process::with_arithmetic_flags_of(r.eflags, target_.eflags);
  }
  TRY(task_.set_regs(r));
  return !ended;
}

// At the start of the rep string instruction checkpoint k+1 interrupted, all
// other registers equal: run iterations up to the recorded rcx. False: not
// this execution of it. With an address-size prefix (ecx counts) a data
// breakpoint a margin before the target and single steps the rest do it:
// each step traps after one iteration.
Result<bool> ReplaySession::SegmentRun::step_rep_iterations(user_regs_struct& r) {
  constexpr uint64_t kStepMargin = 256;  // iterations single-stepped at the end
  if (r.rip == target_.rip && r.rcx > target_.rcx && !target_rep_->counts_ecx) {
    const uint64_t n = r.rcx - target_.rcx;
    if (!TRY(run_rep_iterations(r, n))) {
      SLSDBG_DEBUG("replay", "rep string at %s ended by its condition before rcx %s: not this execution",
                   hex(target_.rip).c_str(), hex(target_.rcx).c_str());
      return false;
    }
    SLSDBG_DEBUG("replay", "rep string at %s: %s iterations run by the CPU to rcx %s", hex(target_.rip).c_str(),
                 std::to_string(n).c_str(), hex(r.rcx).c_str());
  }
  if (r.rip == target_.rip && r.rcx > target_.rcx + 2 * kStepMargin) {
    const uint64_t run = r.rcx - target_.rcx - kStepMargin;  // iterations to let run
    const uint64_t walked = target_rep_->walks_rdi ? r.rdi : r.rsi;
    const bool down = (r.eflags & 0x400) != 0;  // DF
    const uint64_t offset = (run - 1) * target_rep_->element_size;
    const uint64_t watch = down ? walked - offset : walked + offset;
    TRY(run_to_debug_register(r, watch, DrKind::Access));
    SLSDBG_DEBUG("replay", "rep string at %s: watchpoint stop at rcx %s (target %s)", hex(target_.rip).c_str(),
                 hex(r.rcx).c_str(), hex(target_.rcx).c_str());
  }
  int stuck = 0;
  while (r.rip == target_.rip && r.rcx > target_.rcx) {
    const uint64_t before = r.rcx;
    r.eflags |= process::kEflagsRf;
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
  r.eflags &= ~process::kEflagsRf;
  std::string diff;
  const bool there = same_general_registers(r, target_, &diff, RegsAt::Anywhere);
  SLSDBG_DEBUG("replay", "rep string at %s stepped to rcx %s: %s", hex(target_.rip).c_str(), hex(r.rcx).c_str(),
               there ? "registers equal" : diff.c_str());
  return there;
}

}  // namespace slsdbg::replay
