// Timeline::arrivals: how often a pc runs in one event window of a segment
// (between event e and the next event, or the segment's end). One forward
// run with the pc counted in the tracee (timeline_counting.cc), so callers
// can binary-search a window by Moments {k, e, pc, n}, n in [1, count],
// instead of stopping at every visit (bisect refinement, refine.cc).
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

Result<uint64_t> Timeline::Impl::count_window_once(uint64_t k, uint64_t e, uint64_t pc) {
  TRY(reach_base(Base::after(k, e), pc));
  pause_after_event = e + 1;
  Result<DriveResult> dr = drive(false);
  pause_after_event.reset();
  return closed_window_count(TRY(std::move(dr)), k);
}

Result<uint64_t> Timeline::Impl::closed_window_count(const DriveResult& d, uint64_t k) {
  uint64_t n = 0;
  if ((d.halt == Halt::Paused && why == PauseWhy::EventDone) || d.halt == Halt::SegmentEnd) {
    n = count_at_event;  // the window's count, saved when the next event (or the checkpoint) reset it
  } else if (d.halt == Halt::Paused || d.halt == Halt::HistoryEnd) {
    TRY(fold_counter());  // the logged exit or the end of history closes the window
    n = count_value;
  } else if (d.halt == Halt::Diverged) {
    return Error::msg("counting arrivals: " + (d.divergence ? d.divergence->describe() : std::string("replay diverged")));
  } else {
    return Error::msg("counting arrivals: the process was killed in segment " + std::to_string(k));
  }
  TRY(set_count_probe(std::nullopt));
  return n;
}

Result<uint64_t> Timeline::arrivals(uint64_t k, uint64_t e, uint64_t pc) {
  Impl& t = *impl_;
  if (k >= t.checkpoints)
    return Error::msg("no checkpoint " + std::to_string(k) + " (the recording has " + std::to_string(t.checkpoints) + ")");
  t.save_place();
  t.counter_used = false;
  Result<uint64_t> n = t.count_window_once(k, e, pc);
  if (!n.ok() && t.counter_used && t.counting_allowed()) {
    const Impl::CountingOff guard(t, true);
    n = t.count_window_once(k, e, pc);
  }
  t.recover();  // back where the query started
  return n;
}

}  // namespace slsdbg::replay
