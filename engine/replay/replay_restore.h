// The one way a replay restores a checkpoint: the single-thread
// ReplaySession (replay_session.cc), the threaded check (thread_check.cc)
// and the threaded debugger replay (threaded_timeline_run.cc) all start here.
#pragma once

#include <vector>

#include "common/result.h"
#include "engine/restore/restore.h"
#include "process/task.h"
#include "store/recording.h"

namespace slsdbg::replay {

// Restores checkpoint k as a process to replay: its own session (the
// terminal's signals never reach it), pinned to the recorded CPU, rdtsc
// trapped, the recorder's seccomp filter, exact fd numbers, the vDSO's time
// functions turned into trapped syscalls. Returns the leader; with `threads`
// the checkpoint's other threads are created too and returned there.
Result<process::Task> restore_for_replay(const store::RecordingReader& reader, CheckpointId k,
                                         std::vector<restore::RestoredThread>* threads = nullptr);

}  // namespace slsdbg::replay
