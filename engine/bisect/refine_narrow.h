// Pass 0 of refinement (refine.h): where the stop-at-every-write pass may
// start. A segment of a hot loop writes the watched memory tens of
// thousands of times, a debug-exception stop each (about 0.5 ms with the
// replay's bookkeeping). Instead, the first watchpoint stop names a pc that
// runs right after a write; its arrivals in that event window are counted
// in the tracee (Timeline::arrivals), and a binary search over them, one
// goto (counted in the tracee too) and one evaluation each, finds the last
// arrival where the invariant still holds. Pass 1 then starts there and
// meets the flip within a few stops. Like the search over checkpoints, it
// assumes the invariant, once false, stays false within the segment.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/result.h"
#include "engine/replay/timeline.h"

namespace slsdbg::bisect {

struct NarrowInput {
  replay::Timeline* timeline = nullptr;
  uint64_t segment = 0;  // the last good checkpoint
  // The invariant at the timeline's current moment: true when it is false ("bad").
  std::function<Result<bool>()> bad_here;
  std::function<void(const std::string&)> say;
};

struct Narrowed {
  std::optional<replay::Moment> from;  // a moment where the invariant holds; nullopt: the checkpoint
  uint64_t arrivals = 0;               // of the counted pc in its window
  uint64_t probes = 0;                 // evaluations made
};

// The timeline stands at the segment's start with the watchpoints armed;
// afterwards it stands anywhere (the caller goes to `from`).
// SLSDBG_BISECT_NARROW=off skips it (measurements).
Result<Narrowed> narrow_by_arrivals(const NarrowInput& in);

}  // namespace slsdbg::bisect
