// The observer will stop the run before the checkpoint
// (RunObserver::holds_checkpoint: a target moment of this segment, counted
// in the tracee): a breakpoint there would only cost a #DB per visit on the
// way, so nothing is armed (HeldArrival), only a CPU-time alarm in case the
// observer is slower than the recording.
#include "common/log.h"
#include "engine/replay/segment_run.h"
#include "process/task_clock.h"

namespace slsdbg::replay {

Status ReplaySession::SegmentRun::hold_checkpoint() {
  const DebugRegisterArrival* d = armed<DebugRegisterArrival>();
  if (armed<HeldArrival>() || hold_ == HoldState::Expired || armed<PatchedArrival>() || (d && d->then_patch) ||
      !s_.observer_ || !awaits_checkpoint() || !s_.observer_->holds_checkpoint())
    return ok_status();
  const std::optional<uint64_t> hint = hint_;
  const uint64_t budget = hint ? 20 * *hint + 20'000'000 : 10'000'000'000ull;
  Result<UniqueFd> alarm = process::arm_cpu_time_alarm(task_.raw_tid(), budget);
  if (!alarm.ok()) return ok_status();
  SLSDBG_DEBUG("replay", "checkpoint %llu: nothing armed until the observer's stop before it",
               (unsigned long long)seg_.value + 1);
  TRY(remove_breakpoint());
  arrival_.emplace<HeldArrival>(HeldArrival{std::move(*alarm)});
  return ok_status();
}

// The observer no longer stops first (its target is behind): the
// checkpoint gets its arrival now; `deliver` is the signal the coming
// resumption delivers.
Status ReplaySession::SegmentRun::release_hold(int deliver) {
  arrival_.emplace<NothingArmed>();
  return maybe_patch(deliver);
}

}  // namespace slsdbg::replay
