// Pages of a range that hold data (present in RAM or swapped out), from
// /proc/PID/pagemap: what the first capture of a range must copy. Pages never
// touched read as zero and need no copy.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "recorder/capture/dirty_tracker.h"

namespace slsdbg::recorder {

// Appends populated page addresses of `range` to `out` (ascending): present
// or swapped out. Only meaningful before the range is uffd write-protected:
// the protection's markers on unpopulated pages read as swapped entries.
Status append_populated_pages(int pagemap_fd, const PageRange& range, std::vector<uint64_t>& out);
// Present pages only: for ranges already write-protected (after an madvise
// that discards memory nothing there is swapped out).
Status append_present_pages(int pagemap_fd, const PageRange& range, std::vector<uint64_t>& out);
// Pages of a private file mapping that no longer read as the file: copies
// the process wrote (present and not a file page, or swapped out). Like
// append_populated_pages, only before the range is write-protected.
Status append_private_copies(int pagemap_fd, const PageRange& range, std::vector<uint64_t>& out);

}  // namespace slsdbg::recorder
