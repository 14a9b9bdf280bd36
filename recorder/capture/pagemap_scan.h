// PAGEMAP_SCAN over one range of a /proc/PID/pagemap fd: the pages whose
// uffd write-protection is gone (written since they were last protected).
// With `protect_again`, the same ioctl protects them again (the tracker's
// collect); without it, a read-only look (a deferred copy's check).
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"

namespace slsdbg::recorder {

Status scan_written_pages(int pagemap_fd, uint64_t start, uint64_t end, bool protect_again, std::vector<uint64_t>& out);

// The pages of `pages` (ascending) written since the last protecting scan.
// Scans clusters of nearby pages rather than the whole span, so memory in
// between (libraries, other heaps) is not walked.
Result<std::vector<uint64_t>> written_among(int pagemap_fd, const std::vector<uint64_t>& pages);

}  // namespace slsdbg::recorder
