// Test and bench helper: the state of a LIVE ptrace-stopped process as a
// store::ProcessState plus a MemorySource over its memory, so the core writer
// and the unwinder can be checked against real gdb/lldb before (and beside)
// recordings. Not part of slsdbg itself.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "common/result.h"
#include "engine/dump/memory_source.h"
#include "store/process_state.h"

namespace slsdbg::dump::testing {

// Every tid in `tids` must be ptrace-stopped by the caller; tids[0] is the
// thread reported first (the "current" thread).
Result<store::ProcessState> read_live_state(pid_t pid, const std::vector<pid_t>& tids);

// Reads with process_vm_readv; pages the kernel will not give (a file mapping
// past the end of its file) read as zero, as in a kernel core dump.
class LiveMemory final : public MemorySource {
 public:
  explicit LiveMemory(pid_t pid) : pid_(pid) {}
  Status read(uint64_t addr, std::span<uint8_t> out) override;
  unsigned concurrent_reads() const override { return 2; }  // process_vm_readv is reentrant

 private:
  pid_t pid_;
};

// Spawns PROGRAM ARGS under PTRACE_TRACEME and runs it until it stops with
// `stop_signal` (left undelivered). Returns the pid; kill it with kill_traced.
Result<pid_t> spawn_until_signal(const std::vector<std::string>& argv, int stop_signal);
void kill_traced(pid_t pid);

// Seizes and interrupts every thread of a running (untraced) process; returns
// the tids, thread group leader first. Kill the process with kill_traced.
Result<std::vector<pid_t>> seize_all_threads(pid_t pid);

}  // namespace slsdbg::dump::testing
