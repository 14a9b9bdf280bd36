// Test and benchmark support: a recording made WITHOUT the recorder, from
// process::spawn_traced + recorder::CheckpointCapture + store::RecordingWriter
// directly. Checkpoint 0 is taken at the program's execve stop; each further
// checkpoint after the program ran for the given delay (PTRACE_INTERRUPT).
// The program is killed after the last checkpoint. No event log is written, so
// such recordings serve restore, not replay.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"

namespace slsdbg::restore::testing {

struct CaptureRun {
  std::vector<std::string> argv;
  std::vector<unsigned> delays_ms;  // first entry 0 = the exec stop
  std::string out_dir;
};

// Returns the number of checkpoints written.
Result<size_t> make_recording_by_capture(const CaptureRun& run);

}  // namespace slsdbg::restore::testing
