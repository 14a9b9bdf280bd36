// The tracker's PAGEMAP_SCAN over every tracked range, split in two halves
// by size when there is much to walk: the second half runs on a thread on
// another CPU (otherwise idle while the tracee is stopped). Walking the page
// tables of 1 GiB takes ~0.55 ms on one CPU here, the largest part of a
// checkpoint's stop once the copy is deferred. Only when the walk itself
// costs: sparse memory (8 threads' stacks: 64 MiB, a few pages each) walks
// in tens of microseconds, less than waking the thread on a busy machine.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "recorder/capture/dirty_tracker.h"
#include "recorder/capture/helper_thread.h"

namespace slsdbg::recorder {

struct SplitScanResult {
  std::vector<uint64_t> written;     // unsorted
  std::vector<size_t> unregistered;  // indexes of ranges the kernel refused with EPERM
};

class SplitScanner {
 public:
  // Written pages of `ranges`, write-protecting them again.
  Result<SplitScanResult> scan(int pagemap_fd, const std::vector<PageRange>& ranges);

 private:
  struct Piece {
    PageRange range;
    size_t index;  // into the caller's ranges
  };
  static Status scan_pieces(int fd, const std::vector<Piece>& pieces, SplitScanResult& out);

  HelperThread thread_;
  // CPU time of the last walk, whole (a split one: twice our half); 0 unknown.
  uint64_t last_walk_ns_ = 0;
};

}  // namespace slsdbg::recorder
