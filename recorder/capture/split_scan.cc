#include "recorder/capture/split_scan.h"

#include <errno.h>

#include <system_error>

#include "recorder/capture/helper_cpu.h"
#include "recorder/capture/pagemap_scan.h"

namespace slsdbg::recorder {

namespace {
// Below this much tracked memory waking the thread costs more than it saves.
constexpr uint64_t kSplitBytes = 64ull << 20;
// Halves end on a page-table (2 MiB) boundary, so no PTE table is walked twice.
constexpr uint64_t kPmdSize = 2ull << 20;
}  // namespace

SplitScanner::~SplitScanner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    quit_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

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
  std::vector<Piece> first, second;
  uint64_t seen = 0;
  const uint64_t half = total / 2;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const PageRange& r = ranges[i];
    const uint64_t size = r.end - r.start;
    if (total < kSplitBytes || seen + size <= half) {
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
  if (second.empty()) {
    TRY(scan_pieces(pagemap_fd, first, out));
    return out;
  }
  if (!thread_.joinable()) {
    try {
      thread_ = std::thread([this] { thread_main(); });
    } catch (const std::system_error&) {
      // No thread: walk it all here.
      first.insert(first.end(), second.begin(), second.end());
      TRY(scan_pieces(pagemap_fd, first, out));
      return out;
    }
    move_off_current_cpu(thread_);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_fd_ = pagemap_fd;
    job_ = std::move(second);
    job_out_ = {};
    done_ = false;
    has_job_ = true;
  }
  cv_.notify_all();
  Status mine = scan_pieces(pagemap_fd, first, out);
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  TRY(std::move(mine));
  TRY(std::move(job_status_));
  out.written.insert(out.written.end(), job_out_.written.begin(), job_out_.written.end());
  out.unregistered.insert(out.unregistered.end(), job_out_.unregistered.begin(), job_out_.unregistered.end());
  return out;
}

void SplitScanner::thread_main() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return has_job_ || quit_; });
    if (quit_) return;
    has_job_ = false;
    lock.unlock();
    SplitScanResult out;
    Status s = scan_pieces(job_fd_, job_, out);
    lock.lock();
    job_out_ = std::move(out);
    job_status_ = std::move(s);
    done_ = true;
    cv_.notify_all();
  }
}

}  // namespace slsdbg::recorder
