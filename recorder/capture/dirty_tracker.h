// Finding the pages a tracee wrote between two checkpoints. Two kinds:
// userfaultfd async write-protect + PAGEMAP_SCAN (uffd_wp_tracker.cc), and
// page hashes (page_hash_tracker.cc) where the kernel lacks the former.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "common/result.h"
#include "process/task.h"

namespace slsdbg::recorder {

struct PageRange {
  uint64_t start;  // page aligned
  uint64_t end;    // exclusive
};

class DirtyTracker {
 public:
  virtual ~DirtyTracker() = default;
  virtual const char* name() const = 0;
  // Starts tracking a range that just appeared: writes from now on count.
  virtual Status track(const PageRange& range) = 0;
  // The range is gone (unmapped): forget it.
  virtual void untrack(const PageRange& range) = 0;
  // Page addresses written since the previous collect(), ascending; re-arms.
  // Ranges whose tracking the kernel dropped behind our back (a mapping
  // replaced by an identical-looking one between two map reads) are appended
  // to `lost`: their contents must be taken afresh, and the caller track()s
  // them again after reading which pages are populated (markers of the
  // protection would make every page look so).
  virtual Result<std::vector<uint64_t>> collect(std::vector<PageRange>& lost) = 0;
  // After collect(): would a write to `page` show in written_among() on the
  // process's pagemap (uffd write-protected, not hashed)? A deferred copy
  // may only take such pages.
  virtual bool watches(uint64_t page) const = 0;
};

// uffd-wp-async; fails (so Auto can fall back) when the kernel lacks it.
// May inject syscalls into `leader` (stopped).
Result<std::unique_ptr<DirtyTracker>> make_uffd_wp_tracker(process::Task& leader);
std::unique_ptr<DirtyTracker> make_page_hash_tracker(pid_t pid);

}  // namespace slsdbg::recorder
