// A segment run's SIGTRAPs, each handled by its owner (trap_router.h).
#include <signal.h>

#include "common/log.h"
#include "engine/replay/segment_run.h"
#include "process/task_clock.h"

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT 4
#endif

namespace slsdbg::replay {

ArrivalWay ReplaySession::SegmentRun::way() const {
  if (std::holds_alternative<HeldArrival>(arrival_)) return ArrivalWay::Held;
  if (std::holds_alternative<ConditionalArrival>(arrival_)) return ArrivalWay::Conditional;
  if (std::holds_alternative<DebugRegisterArrival>(arrival_)) return ArrivalWay::DebugRegister;
  if (std::holds_alternative<PatchedArrival>(arrival_)) return ArrivalWay::Patched;
  return ArrivalWay::Nothing;
}

Result<std::optional<ReplaySession::SegmentRun::Next>> ReplaySession::SegmentRun::on_sigtrap(const siginfo_t& si,
                                                                                             user_regs_struct& r) {
  const PatchedArrival* patched = armed<PatchedArrival>();
  TrapFacts facts{si.si_code, process::is_cpu_time_alarm(si), r.rip, way(), target_.rip,
                  patched ? patched->patch.resume_addr() : 0, s_.observer_ != nullptr};
  if (si.si_code == TRAP_BRKPT) facts.after_syscall = after_syscall_insn(r.rip, code_reader());
  const auto claimed = [](Next n) { return std::optional<Next>(n); };
  TrapOwner owner = route_trap(facts);
  switch (owner) {
    case TrapOwner::Trampoline:
      return claimed(TRY(on_patched_match(r)));
    case TrapOwner::HoldAlarm:
      // Slower than the recording (the target probe traps per visit): the
      // stop still comes before the checkpoint, which gets its arrival now.
      hold_ = HoldState::Expired;
      arrival_.emplace<NothingArmed>();
      TRY(maybe_patch());
      TRY(go());
      return claimed(Next::Resume);
    case TrapOwner::StaleAlarm:
      TRY(go());  // queued before its arrival went away
      return claimed(Next::Resume);
    case TrapOwner::PatchBudgetAlarm:
      // Far more CPU time than the recorder saw: the patch missed the checkpoint.
      SLSDBG_INFO("replay", "segment %llu: the patched breakpoint's run is over its CPU budget (pc %s)",
                  (unsigned long long)seg_.value, hex(r.rip).c_str());
      patch_ = PatchState::FailedByBudget;
      outcome_.end = SegmentEnd::Diverged;
      return claimed(Next::Done);
    case TrapOwner::CheckpointDebugRegister: {
      Next n = TRY(on_breakpoint(r));
      if (n == Next::Done) return claimed(n);
      const DebugRegisterArrival* d = armed<DebugRegisterArrival>();
      if (d && d->then_patch) {  // out of the moved bytes now: the patch may go in
        TRY(remove_breakpoint());
        TRY(maybe_patch());
      }
      TRY(go());
      return claimed(Next::Resume);
    }
    case TrapOwner::ConditionalBreakpoint:
      if (r.rip == target_.rip) {
        Next n = TRY(on_breakpoint(r));
        if (n == Next::Done) {
          arrival_.emplace<NothingArmed>();
          return claimed(n);
        }
      }
      TRY(go());  // the SIGTRAP is ours: suppressed
      return claimed(Next::Resume);
    case TrapOwner::ObserverWhilePatched:
      // An int3 of the padding after the jump: a branch into the moved bytes.
      if (si.si_code == SI_KERNEL && r.rip > patched->patch.anchor() + 1 &&
          r.rip <= patched->patch.anchor() + patched->patch.length())
        return claimed(diverge(r.rip, expected_here(), "a branch into the bytes the patched breakpoint moved"));
      // A watchpoint that fired in the trampoline's copy of a moved write:
      // the registers are the program's, at the program's pc of the next
      // moved instruction; the observer sees it there.
      if (si.si_code == TRAP_HWBKPT)
        if (const std::optional<uint64_t> shown = patched->patch.program_pc(r.rip)) {
          SLSDBG_DEBUG("replay", "segment %llu: a trap in the trampoline at %s: shown at %s", (unsigned long long)seg_.value,
                       hex(r.rip).c_str(), hex(*shown).c_str());
          r.rip = *shown;
          TRY(task_.set_regs(r));
        }
      if (s_.observer_->stop_before_segment_end(task_, si) || TRY(trap_before_checkpoint(si, r))) {
        // Before the checkpoint, so the run has not passed it unmatched: no
        // rescue needed. A breakpoint keeps it until the patch may go in again.
        SLSDBG_DEBUG("replay", "segment %llu: the observer's trap, before the checkpoint; patch taken away",
                     (unsigned long long)seg_.value);
        TRY(remove_patch());
        patch_ = PatchState::AskAgain;
        TRY(arm_breakpoint());
      } else if (TRY(drop_patch())) {
        TRY(go());
        return claimed(Next::Resume);
      }
      [[fallthrough]];
    case TrapOwner::Observer: {
      const RunObserver::Verdict v = TRY(s_.observer_->on_trap(task_, si));
      if (v == RunObserver::Verdict::Pause) return claimed(Next::Pause);
      if (v == RunObserver::Verdict::Resume) {
        // The observer's debug register at checkpoint k+1's pc fired in the
        // same #DB as the conditional breakpoint, whose SIGTRAP is then lost
        // (a second standard signal is not queued): check here.
        if (armed<ConditionalArrival>() && awaits_checkpoint()) {
          user_regs_struct now = TRY(task_.regs());
          if (now.rip == target_.rip && TRY(on_breakpoint(now)) == Next::Done) {
            arrival_.emplace<NothingArmed>();
            return claimed(Next::Done);
          }
        }
        TRY(go());
        return claimed(Next::Resume);
      }
      owner = unclaimed_trap(si.si_code);
      break;
    }
    case TrapOwner::SingleStep:
    case TrapOwner::Program:
      break;
  }
  if (owner == TrapOwner::SingleStep) {
    TRY(go());
    return claimed(Next::Resume);
  }
  return std::optional<Next>();  // the program's own: a logged signal
}

}  // namespace slsdbg::replay
