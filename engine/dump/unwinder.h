// Backtraces from a process state and its memory image, without a live
// process: libunwind's remote interface (unw_create_addr_space) with
// accessors that read registers from the ThreadState and memory from a
// MemorySource; unwind tables come from each module's .eh_frame_hdr.
#pragma once

#include <cstdint>
#include <vector>

#include "common/result.h"
#include "engine/dump/memory_source.h"
#include "engine/dump/module_cache.h"
#include "store/process_state.h"

namespace slsdbg::dump {

enum class FrameKind { Normal, Signal };

struct Frame {
  uint64_t pc = 0;
  uint64_t sp = 0;
  uint64_t cfa = 0;
  FrameKind kind = FrameKind::Normal;
  Symbolized where;   // of pc (frame 0, signal frames) or pc-1 (return addresses)
};

struct UnwindOptions {
  size_t max_frames = 256;
};

Result<std::vector<Frame>> unwind_thread(const store::ThreadState& thread, MemorySource& memory, ModuleCache& modules,
                                         const UnwindOptions& options = {});

}  // namespace slsdbg::dump
