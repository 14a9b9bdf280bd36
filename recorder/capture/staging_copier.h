// The in-tracee copy path: a memfd shared between recorder and tracee (mapped
// at kStagingAddr in the tracee), and an injected stub that copies the listed
// dirty pages into it at memcpy speed (no per-page get_user_pages as in
// process_vm_readv). The recorder reads the copies straight from its own
// mapping of the memfd. Only for pages the tracee itself can read.
#pragma once

#include <cstdint>
#include <vector>

#include "common/fd.h"
#include "common/result.h"
#include "process/task.h"

namespace slsdbg::recorder {

class StagingCopier {
 public:
  StagingCopier() = default;
  ~StagingCopier();
  StagingCopier(const StagingCopier&) = delete;
  StagingCopier& operator=(const StagingCopier&) = delete;

  // Creates the memfd in the tracee (injected memfd_create/ftruncate/mmap),
  // takes it with pidfd_getfd and maps it here. Needs the injection page.
  Status init(process::Task& leader);

  // Copies up to kStagingMaxPages of `pages` (readable by the tracee);
  // returns how many were copied. data(i) is the copy of pages[i], valid
  // until the next copy().
  Result<size_t> copy(process::Task& leader, const std::vector<uint64_t>& pages);
  const uint8_t* data(size_t i) const;

 private:
  uint8_t* local_ = nullptr;
};

}  // namespace slsdbg::recorder
