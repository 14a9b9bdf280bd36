// restore brings back one process: the children it had started and not yet
// reaped at the checkpoint are not there, so its wait for them fails with
// ECHILD (make: "wait: No child processes", tar: "Cannot waitpid") and the
// pipes to them are gone. Named in a warning before it runs.
#pragma once

#include <sys/types.h>

#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "store/recording.h"

namespace slsdbg::cli {

// The child processes the recorded process started before checkpoint k and
// had not reaped by wait4 (a waitid's reap is not seen: such a child may be
// listed though gone); threads of a threaded recording are not children.
Result<std::vector<pid_t>> children_at(const store::RecordingReader& reader, CheckpointId k);

}  // namespace slsdbg::cli
