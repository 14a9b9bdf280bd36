// Copying a set of tracee pages into one local buffer inside the stop:
// process_vm_readv with up to 1024 remote iovecs per call (adjacent pages
// merged into one iovec), /proc/PID/mem for pages it cannot read (PROT_NONE).
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "recorder/process/task.h"

namespace slsdbg::recorder {

class PageCopier {
 public:
  // Copies `pages` (ascending, page aligned). Pages readable by neither path
  // (file pages beyond EOF, vanished memory) are dropped from `pages`.
  // Afterwards data(i) is the copy of pages[i], valid until the next copy().
  Status copy(process::Task& task, std::vector<uint64_t>& pages);
  const uint8_t* data(size_t i) const { return buf_.data() + i * 4096; }

 private:
  std::vector<uint8_t> buf_;
};

}  // namespace slsdbg::recorder
