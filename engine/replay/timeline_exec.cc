// Backward moves across an execve. The image before an exec is another
// program: GDB must reload its symbols, as it does for the forward exec
// stop. So a reverse move that would cross an "exec" checkpoint stops at the
// old image's execve instruction and says Exec; GDB follows the exec (the
// stop names the old program) and, with nothing to stop for, goes on
// backward with the old program's breakpoints.
#include <sys/syscall.h>

#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

uint64_t Timeline::Impl::exec_floor(uint64_t k) const {
  const auto& cps = reader.checkpoints();
  for (uint64_t i = std::min<uint64_t>(k, cps.size() - 1); i > 0; --i)
    if (cps[i].reason == "exec") return i;
  return 0;
}

Result<TimelineStop> Timeline::Impl::before_exec(uint64_t k) {
  const std::vector<store::Event> events = TRY(reader.segment_events(SegmentId(k - 1)));
  for (size_t i = events.size(); i-- > 0;) {
    const store::Event& ev = events[i];
    if (ev.kind != store::EventKind::Syscall || (ev.syscall_no != SYS_execve && ev.syscall_no != SYS_execveat))
      continue;
    TimelineStop st = TRY(before_event(k - 1, i + 1));
    st.cause = StopCause::Exec;
    return st;
  }
  return Error::msg("checkpoint " + std::to_string(k) + " is an exec, but segment " + std::to_string(k - 1) +
                    " logs no execve");
}

}  // namespace slsdbg::replay
