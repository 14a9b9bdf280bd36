// Where a recording crosses an execve, for both timelines (timeline_exec.cc,
// threaded_timeline_moves.cc): an "exec" checkpoint starts the new image, and the
// old image's last act is the execve call logged in the segment before it.
// A move across it stops there so that the debugger reloads symbols.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/ids.h"
#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::replay {

// Checkpoint k starts a new image (its reason is "exec").
bool is_exec_checkpoint(const store::RecordingReader& reader, uint64_t k);

// The execve (or execveat) event that exec checkpoint k follows: its index
// in segment k - 1 and the thread that called it; an Error naming both when
// the log has none.
struct ExecveEvent {
  size_t index = 0;
  Tid tid;
};
Result<ExecveEvent> execve_event_before(const store::RecordingReader& reader, uint64_t k);

}  // namespace slsdbg::replay
