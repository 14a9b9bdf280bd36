// The backtrace of every thread of a process state, with optional
// disassembly around each thread's pc, and its text (gdb-like) and JSON forms.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "engine/dump/disassembler.h"
#include "engine/dump/memory_source.h"
#include "engine/dump/unwinder.h"
#include "store/process_state.h"

namespace slsdbg::dump {

enum class Disasm { No, Yes };

struct ThreadBacktrace {
  Tid tid;
  std::vector<Frame> frames;
  std::vector<Instruction> disasm;  // around frames[0].pc, when asked for
  std::string error;                // why unwinding or disassembly failed, "" when fine
};

// recording_dir: symbols come from its pack when it has one ("" = none).
// unwind.max_frames = 1: frame 0 alone (no other module's debug info read).
std::vector<ThreadBacktrace> backtrace_threads(const store::ProcessState& state, MemorySource& memory, Disasm disasm,
                                               const std::string& recording_dir = "", const UnwindOptions& unwind = {});

// "#3  0x000055d0c0de12a9 in dump_gamma+0x2b at /src/dump_chain.c:35 (/bin/dump_chain)"
std::string format_frame(size_t index, const Frame& frame);
std::string format_text(const std::vector<ThreadBacktrace>& threads);
// {"threads":[{"tid":N,"frames":[{...}],"disasm":[{...}]}]} ; `header` fields merged in first.
std::string format_json(const std::vector<ThreadBacktrace>& threads, const std::string& header_fields);

}  // namespace slsdbg::dump
