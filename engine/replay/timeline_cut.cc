// Interrupts that cut a run in mid-segment (process/wait_cut.h). A run deep
// inside one long CPU-bound segment meets no event or checkpoint at which
// to poll the debugger, so during a public resume() a watcher stops the
// replayed process itself once the debugger's interrupt is there. The
// process is then at no moment the Timeline can name (the arrival count
// of its pc is unknown), so it is dropped and the user lands at one: the
// start of the segment the move had reached (a fork of its snapshot, at
// once) when that lies in the move's direction, else back where the move
// started. The stop says which.
#include "common/log.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

Result<TimelineStop> Timeline::Impl::land_after_cut(Direction direction, uint64_t start_segment) {
  interruptible = false;
  collect = false;
  stop_at_user = false;
  target.reset();
  const uint64_t reached = segment;
  SLSDBG_DEBUG("timeline", "interrupt: the run was cut in segment %llu", (unsigned long long)reached);
  TimelineStop st;
  if (direction == Direction::Backward || reached > start_segment) {
    st = TRY(to_checkpoint(reached));
    saved.reset();
    TRY(leave_sysbuf_stub(st));  // a tick may have stopped the program inside the stub
  } else {
    // A forward move still in its first segment: checkpoint `reached` is
    // behind the user, so the move is undone.
    const std::optional<Path> started = saved ? std::optional<Path>(saved->path) : std::nullopt;
    recover();
    st = last;
    st.pc = pc_now();
    // recover() falls back to checkpoint 0 when the start cannot be reached again.
    st.back_where_started = started && started->base == path.base && started->legs == path.legs;
  }
  st.cause = StopCause::Interrupted;
  return st;
}

}  // namespace slsdbg::replay
