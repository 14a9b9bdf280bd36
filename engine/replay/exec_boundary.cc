#include "engine/replay/exec_boundary.h"

#include <sys/syscall.h>

#include <string>
#include <vector>

namespace slsdbg::replay {

bool is_exec_checkpoint(const store::RecordingReader& reader, uint64_t k) {
  const auto& cps = reader.checkpoints();
  return k > 0 && k < cps.size() && cps[k].reason == "exec";
}

Result<ExecveEvent> execve_event_before(const store::RecordingReader& reader, uint64_t k) {
  const std::vector<store::Event> events = TRY(reader.segment_events(SegmentId(k - 1)));
  for (size_t i = events.size(); i-- > 0;) {
    const store::Event& ev = events[i];
    if (ev.kind == store::EventKind::Syscall && (ev.syscall_no == SYS_execve || ev.syscall_no == SYS_execveat))
      return ExecveEvent{i, ev.tid};
  }
  return Error::msg("checkpoint " + std::to_string(k) + " is an exec, but segment " + std::to_string(k - 1) +
                    " logs no execve");
}

}  // namespace slsdbg::replay
