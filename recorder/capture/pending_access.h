// The memory a stopped thread's next instruction accesses. A thread stopped
// right after the kernel populated a page for it (the page fault that
// interrupted the instruction) has not yet done the write the page was
// populated for: the tracker already counts that page as written, and the
// write lands right after the thread resumes. A deferred copy must not take
// such a page (the checkpoint would be torn), so capture copies it in the stop.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace slsdbg::recorder {

class PendingAccessDecoder {
 public:
  PendingAccessDecoder();
  ~PendingAccessDecoder();
  PendingAccessDecoder(const PendingAccessDecoder&) = delete;
  PendingAccessDecoder& operator=(const PendingAccessDecoder&) = delete;

  // Addresses of the memory operands of the instruction in `code` (read at
  // regs.rip). Empty if it does not decode or has none.
  std::vector<uint64_t> addresses(const uint8_t* code, size_t size, const user_regs_struct& regs) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace slsdbg::recorder
