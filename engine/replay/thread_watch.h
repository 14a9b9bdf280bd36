// Watchpoints of a threaded replay (threaded_timeline.h): the watched
// ranges go into DR0-DR2 of every thread (DR3 stays thread_reach's), and a
// thread's SIGTRAP is read back as the set of ranges it touched.
//
// A debug register is per thread and the kernel does not copy it to a
// thread created later, so every thread of a restore gets the same ranges;
// threads are only created at checkpoints (a clone ends a segment).
#pragma once

#include <sys/types.h>

#include <compare>
#include <cstdint>
#include <vector>

#include "common/result.h"
#include "engine/replay/timeline.h"

namespace slsdbg::replay {

struct WatchRange {
  WatchKind kind = WatchKind::Write;
  uint64_t addr = 0;
  uint64_t len = 0;  // 1, 2, 4 or 8, aligned to itself
  auto operator<=>(const WatchRange&) const = default;
};

constexpr size_t kMaxThreadWatches = 3;  // DR0-DR2

// Slot i = ranges[i]; slots past ranges.size() off. Clears DR6.
Status arm_thread_watches(pid_t tid, const std::vector<WatchRange>& ranges);

// DR6's B0-B2 bits (which slots fired since the last call), then clears DR6
// so the next trap reads only its own. A trap of DR3 alone (thread_reach's)
// is left as it is and reads as 0.
Result<unsigned> take_fired_watches(pid_t tid);

}  // namespace slsdbg::replay
