// Where a core dump or a backtrace gets the bytes of the address space from:
// a checkpoint in the store (recording_memory.h) or, in tests and benches, a
// live ptrace-stopped process (testing/live_process.h). The writer and the
// unwinder know only this interface.
#pragma once

#include <cstdint>
#include <span>

#include "common/result.h"

namespace slsdbg::dump {

class MemorySource {
 public:
  virtual ~MemorySource() = default;
  // Fills `out` with [addr, addr + out.size()). An error means the bytes are
  // not known (damaged store, unmapped range); never returns guessed bytes.
  virtual Status read(uint64_t addr, std::span<uint8_t> out) = 0;
  // How many threads may call read() at once (disjoint ranges). 1 unless the
  // source says it is safe: the core writer then reads with that many threads.
  virtual unsigned concurrent_reads() const { return 1; }
};

}  // namespace slsdbg::dump
