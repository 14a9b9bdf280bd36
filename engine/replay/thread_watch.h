// Watchpoints of a threaded replay (threaded_timeline.h): the watched
// ranges take up to three debug registers of every thread, claimed from the
// thread's owner (thread_debug_registers.h) beside thread_reach's
// breakpoint, and a thread's SIGTRAP is read back as the set of ranges it
// touched.
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

constexpr size_t kMaxThreadWatches = 3;  // the fourth register is thread_reach's

// Claims a slot per range (the thread's earlier watches released first) and
// writes the thread's debug registers. Clears DR6.
Status arm_thread_watches(pid_t tid, const std::vector<WatchRange>& ranges);

// Which ranges fired since the last call (bit i: ranges[i]), then clears
// DR6 so the next trap reads only its own. A trap of thread_reach's
// breakpoint alone is left as it is and reads as 0.
Result<unsigned> take_fired_watches(pid_t tid);

}  // namespace slsdbg::replay
