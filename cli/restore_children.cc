#include "cli/restore_children.h"

#include <sys/syscall.h>

#include <algorithm>
#include <set>

#include "process/syscalls/fork_calls.h"

namespace slsdbg::cli {

Result<std::vector<pid_t>> children_at(const store::RecordingReader& reader, CheckpointId k) {
  std::vector<pid_t> started;
  std::set<pid_t> reaped, tids;
  for (uint64_t s = 0; s < k.value; s++) {
    const std::vector<store::Event> events = TRY(reader.segment_events(SegmentId(s)));
    for (const store::Event& e : events) {
      if (e.tid.value > 0) tids.insert(e.tid.value);
      if (auto child = process::child_started_by(e)) started.push_back(*child);
      if (e.kind == store::EventKind::Syscall && e.syscall_no == SYS_wait4 && e.result > 0)
        reaped.insert(static_cast<pid_t>(e.result));
    }
  }
  // A thread that logged nothing yet is one of the checkpoint's threads.
  const store::ProcessState state = TRY(reader.process_state(k));
  for (const store::ThreadState& t : state.threads) tids.insert(t.tid.value);
  std::erase_if(started, [&](pid_t p) { return reaped.count(p) || tids.count(p); });
  return started;
}

}  // namespace slsdbg::cli
