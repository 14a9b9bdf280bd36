// Pages of a range that hold data (present in RAM or swapped out), from
// /proc/PID/pagemap: what the first capture of a range must copy. Pages never
// touched read as zero and need no copy.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "recorder/capture/dirty_tracker.h"

namespace slsdbg::recorder {

// Appends populated page addresses of `range` to `out` (ascending).
Status append_populated_pages(int pagemap_fd, const PageRange& range, std::vector<uint64_t>& out);

}  // namespace slsdbg::recorder
