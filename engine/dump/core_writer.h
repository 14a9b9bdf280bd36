// Writes an ELF64 x86-64 core file of a process state and its memory image,
// streaming the memory in bounded chunks (a 1 GiB image never sits in RAM).
//
//   ELF header | PT_NOTE, PT_LOAD... | notes | pad | load 0 | load 1 | ...
//                                              (page aligned, holes for zero pages)
//
// A mapping without contents (PROT_NONE, unreadable, [vvar]) gets a PT_LOAD
// with p_filesz 0 so debuggers still see the address range.
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>

#include "common/result.h"
#include "engine/dump/memory_source.h"
#include "store/process_state.h"

namespace slsdbg::dump {

struct CoreProgress {
  uint64_t bytes_done = 0;
  uint64_t bytes_total = 0;
};

struct CoreOptions {
  int signal = SIGSTOP;                                // stop signal shown by debuggers
  std::function<void(const CoreProgress&)> progress;   // called every chunk, may be empty
};

struct CoreSummary {
  uint64_t file_size = 0;       // logical size of the core
  uint64_t memory_bytes = 0;    // bytes of mapping contents
  uint64_t zero_bytes = 0;      // of those, left as holes (all-zero chunks)
  uint32_t load_segments = 0;
  uint32_t threads = 0;
};

// Creates (or truncates) `path` with mode 0600. On error the partial file is
// removed and the error names the path or the address that failed.
Result<CoreSummary> write_core(const store::ProcessState& state, MemorySource& memory, const std::string& path,
                               const CoreOptions& options);

}  // namespace slsdbg::dump
