#include "recorder/capture/pagemap_scan.h"

#include <algorithm>

#include "common/ids.h"
#include "recorder/capture/uffd_compat.h"

namespace slsdbg::recorder {

namespace {
// Regions per PAGEMAP_SCAN call. Kernel quirk: when a call returns fewer than
// vec_len regions but more than ~512, walk_end is stale; so stop as soon as a
// call returns fewer than vec_len, and keep vec_len at 512.
constexpr size_t kScanRegions = 512;
// Pages further apart than this are scanned separately: walking the page
// tables in between would cost more than another ioctl.
constexpr uint64_t kClusterGap = 64ull << 20;
}  // namespace

Status scan_written_pages(int pagemap_fd, uint64_t start, uint64_t end, bool protect_again, std::vector<uint64_t>& out) {
  page_region vec[kScanRegions];
  uint64_t cur = start;
  while (cur < end) {
    pm_scan_arg a{};
    a.size = sizeof a;
    a.flags = protect_again ? (PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC) : 0;
    a.start = cur;
    a.end = end;
    a.vec = reinterpret_cast<uint64_t>(vec);
    a.vec_len = kScanRegions;
    a.category_mask = PAGE_IS_WRITTEN;
    a.return_mask = PAGE_IS_WRITTEN;
    long n = ioctl(pagemap_fd, PAGEMAP_SCAN, &a);
    if (n < 0) return Error::from_errno("ioctl(PAGEMAP_SCAN)");
    for (long i = 0; i < n; ++i)
      for (uint64_t p = vec[i].start; p < vec[i].end; p += kPageSize) out.push_back(p);
    if (static_cast<size_t>(n) < kScanRegions) break;  // complete; walk_end may be stale
    cur = a.walk_end;
  }
  return ok_status();
}

Result<std::vector<uint64_t>> written_among(int pagemap_fd, const std::vector<uint64_t>& pages) {
  std::vector<uint64_t> written, hits;
  for (size_t first = 0; first < pages.size();) {
    size_t last = first;
    while (last + 1 < pages.size() && pages[last + 1] - pages[last] <= kClusterGap) ++last;
    TRY(scan_written_pages(pagemap_fd, pages[first], pages[last] + kPageSize, false, written));
    first = last + 1;
  }
  std::sort(written.begin(), written.end());
  std::set_intersection(pages.begin(), pages.end(), written.begin(), written.end(), std::back_inserter(hits));
  return hits;
}

}  // namespace slsdbg::recorder
