#include "recorder/capture/split_scan.h"

#include <errno.h>
#include <time.h>

#include <algorithm>

#include "recorder/capture/pagemap_scan.h"

namespace slsdbg::recorder {

namespace {
// Below this much tracked memory waking the thread costs more than it saves.
constexpr uint64_t kSplitBytes = 64ull << 20;
// Halves end on a page-table (2 MiB) boundary, so no PTE table is walked twice.
constexpr uint64_t kPmdSize = 2ull << 20;
// A walk that took less CPU than this last time is not split: a wake-up
// costs ~50 us on a quiet machine and milliseconds on a loaded one.
constexpr uint64_t kSplitMinWalkNs = 200'000;

uint64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}
}  // namespace

Status SplitScanner::scan_pieces(int fd, const std::vector<Piece>& pieces, SplitScanResult& out) {
  for (const Piece& p : pieces) {
    Status s = scan_written_pages(fd, p.range.start, p.range.end, true, out.written);
    if (s.ok()) continue;
    // EPERM (PM_SCAN_CHECK_WPASYNC): some VMA here is no longer registered,
    // e.g. mmap(MAP_FIXED) over it without us re-reading the map in between.
    if (s.error().errno_value != EPERM) return s;
    out.unregistered.push_back(p.index);
  }
  return ok_status();
}

Result<SplitScanResult> SplitScanner::scan(int pagemap_fd, const std::vector<PageRange>& ranges) {
  uint64_t total = 0;
  for (const PageRange& r : ranges) total += r.end - r.start;
  const bool split = total >= kSplitBytes && (last_walk_ns_ == 0 || last_walk_ns_ >= kSplitMinWalkNs);
  std::vector<Piece> first, second;
  uint64_t seen = 0;
  const uint64_t half = total / 2;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const PageRange& r = ranges[i];
    const uint64_t size = r.end - r.start;
    if (!split || seen + size <= half) {
      first.push_back({r, i});
    } else if (seen >= half) {
      second.push_back({r, i});
    } else {
      uint64_t cut = (r.start + (half - seen) + kPmdSize - 1) & ~(kPmdSize - 1);
      if (cut <= r.start || cut >= r.end) {
        first.push_back({r, i});
      } else {
        first.push_back({{r.start, cut}, i});
        second.push_back({{cut, r.end}, i});
      }
    }
    seen += size;
  }
  SplitScanResult out;
  SplitScanResult theirs;
  Status their_status = ok_status();
  const bool helped =
      !second.empty() && thread_.start([&] { their_status = scan_pieces(pagemap_fd, second, theirs); }).ok();
  if (!helped) first.insert(first.end(), second.begin(), second.end());  // no thread: all of it here
  const uint64_t cpu0 = thread_cpu_ns();
  Status mine = scan_pieces(pagemap_fd, first, out);
  last_walk_ns_ = std::max<uint64_t>(1, (thread_cpu_ns() - cpu0) * (helped ? 2 : 1));
  thread_.wait();
  TRY(std::move(mine));
  if (!helped) return out;
  TRY(std::move(their_status));
  out.written.insert(out.written.end(), theirs.written.begin(), theirs.written.end());
  out.unregistered.insert(out.unregistered.end(), theirs.unregistered.begin(), theirs.unregistered.end());
  return out;
}

}  // namespace slsdbg::recorder
