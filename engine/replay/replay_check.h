// The fidelity check behind `slsdbg replay REC --check`: replay the whole
// recording from checkpoint 0; at every checkpoint reached by execution the
// session has compared registers and the checkpoint's dirty pages.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "common/result.h"
#include "engine/replay/replay_session.h"
#include "store/recording.h"

namespace slsdbg::replay {

struct CheckReport {
  uint64_t checkpoints = 0;
  uint64_t crossed_by_execution = 0;
  uint64_t crossed_by_restore = 0;
  uint64_t events_replayed = 0;
  uint64_t pages_compared = 0;
  uint64_t reached_patched = 0;   // boundaries reached through the patched breakpoint
  uint64_t segments_rerun = 0;    // replays of a segment again after a failed patched run
  std::optional<Divergence> divergence;  // the first one; the check stops there
  // Where history ends: the last checkpoint, and whether the process's end
  // (exit, death) follows it or the recording simply stops there (cut short).
  uint64_t end_checkpoint = 0;
  bool cut_short = false;
};

// `progress(k, total)` is called after each checkpoint is reached.
Result<CheckReport> check_recording(const store::RecordingReader& reader,
                                    const std::function<void(uint64_t, uint64_t)>& progress);

}  // namespace slsdbg::replay
