// Copying a set of tracee pages into a caller's buffer (inside the stop, or
// in the background for a deferred copy):
// process_vm_readv with up to 1024 remote iovecs per call (adjacent pages
// merged into one iovec), /proc/PID/mem for pages it cannot read (PROT_NONE).
// With CopyThreads::Two, a helper thread on another CPU copies half of a
// large set at the same time (the tracee is stopped, so the second CPU is
// otherwise idle): stop time for 4 MiB drops by about half (docs/performance.md).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "process/task.h"
#include "recorder/capture/helper_thread.h"

namespace slsdbg::recorder {

enum class CopyThreads { One, Two };

class PageCopier {
 public:
  explicit PageCopier(CopyThreads threads = CopyThreads::One) : threads_(threads) {}

  // Copies `pages` (ascending, page aligned) to dest (pages.size() pages):
  // page i lands at dest + i * 4096. Pages readable by neither path (file
  // pages beyond EOF, vanished memory) are dropped from `pages` and the
  // copies after them move up.
  Status copy(process::Task& task, std::vector<uint64_t>& pages, uint8_t* dest);

 private:
  // Copies pages[first, last) with process_vm_readv; appends indexes it could not read.
  static void copy_span(pid_t tid, const std::vector<uint64_t>& pages, size_t first, size_t last, uint8_t* dest,
                        std::vector<size_t>& failed);

  CopyThreads threads_;
  HelperThread helper_;  // CopyThreads::Two
};

}  // namespace slsdbg::recorder
