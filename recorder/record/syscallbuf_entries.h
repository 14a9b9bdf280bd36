// SysbufEntries: the syscall buffer's committed entries, copied out of the
// tracee at a stop (SyscallBuf::take) and turned into Syscall events later,
// on the store writer's thread (CheckpointWriter::append_events). Decoding
// and encoding a million entries costs about as much CPU as the program
// spends making the calls; the recorder's own thread shares the tracee's
// CPU, the writer's thread does not.
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "common/result.h"
#include "store/event.h"

namespace slsdbg::recorder {

// What the recorder's thread needs of an entry at once (fd mirrors).
struct SysbufEntryHead {
  long nr;
  std::array<uint64_t, 6> args;
  int64_t result;
};

// Buffers the size of the tracee's entries area, handed from the
// recorder's thread (filled at a drain) to the writer's and back: a fresh
// MiB at every drain cost page faults and zeroing on the tracee's CPU.
// A new buffer is not zeroed: only the bytes a drain copies in are touched.
class SysbufBytePool : public std::enable_shared_from_this<SysbufBytePool> {
 public:
  using Bytes = std::shared_ptr<uint8_t>;  // an array of size() bytes
  static std::shared_ptr<SysbufBytePool> create(size_t size);
  size_t size() const { return size_; }
  // A buffer (contents undefined), back in the pool when the last
  // reference goes.
  Bytes take();

 private:
  explicit SysbufBytePool(size_t size) : size_(size) {}
  void give(uint8_t* p);
  const size_t size_;
  std::mutex mu_;
  std::vector<std::unique_ptr<uint8_t[]>> free_;  // guarded by mu_
};

class SysbufEntries {
 public:
  SysbufEntries() = default;
  // Checks the entries' framing in the first `size` bytes of `bytes` (at
  // most the pool's size: a whole number of entries, each output inside
  // it) and calls `seen` with each, in order.
  static Result<SysbufEntries> parse(pid_t pid, SysbufBytePool::Bytes bytes, size_t size,
                                     const std::function<void(const SysbufEntryHead&)>& seen);

  size_t count() const { return count_; }
  size_t bytes() const { return size_; }
  // Calls `log` with each entry as the Syscall event the traced path would
  // have logged, in order. The Event passed is reused between calls.
  Status each(const std::function<Status(const store::Event&)>& log) const;

 private:
  pid_t pid_ = -1;
  SysbufBytePool::Bytes bytes_;
  size_t size_ = 0;
  size_t count_ = 0;
};

}  // namespace slsdbg::recorder
