// Where a process state stands: function, FILE:LINE and backtrace of its
// first thread (engine/dump's unwinder over the given memory).
#pragma once

#include "engine/bisect/bisect.h"
#include "engine/dump/memory_source.h"
#include "store/process_state.h"

namespace slsdbg::bisect {

Location locate(const store::ProcessState& state, dump::MemorySource& memory);

// The instruction that wrote, for a state stopped right after it (a
// watchpoint stop: pc-1 lies inside it): f's write_function, write_file,
// write_line and write_pc.
void describe_write(const store::ProcessState& state, dump::MemorySource& memory, Refined& f);

}  // namespace slsdbg::bisect
