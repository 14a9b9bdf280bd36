// Backward moves across an execve. The image before an exec is another
// program: GDB must reload its symbols, as it does for the forward exec
// stop. So a reverse move that would cross an "exec" checkpoint stops at the
// old image's execve instruction and says Exec; GDB follows the exec (the
// stop names the old program) and, with nothing to stop for, goes on
// backward with the old program's breakpoints.
#include "engine/replay/exec_boundary.h"
#include "engine/replay/timeline_impl.h"

namespace slsdbg::replay {

uint64_t Timeline::Impl::exec_floor(uint64_t k) const {
  for (uint64_t i = std::min<uint64_t>(k, reader.checkpoints().size() - 1); i > 0; --i)
    if (is_exec_checkpoint(reader, i)) return i;
  return 0;
}

Result<TimelineStop> Timeline::Impl::before_exec(uint64_t k) {
  const ExecveEvent execve = TRY(execve_event_before(reader, k));
  TimelineStop st = TRY(before_event(k - 1, execve.index + 1));
  st.cause = StopCause::Exec;
  return st;
}

}  // namespace slsdbg::replay
