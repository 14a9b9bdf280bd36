// Where a process state stands: function, FILE:LINE and backtrace of its
// first thread (engine/dump's unwinder over the given memory).
#pragma once

#include "engine/bisect/bisect.h"
#include "engine/dump/memory_source.h"
#include "store/process_state.h"

namespace slsdbg::bisect {

Location locate(const store::ProcessState& state, dump::MemorySource& memory);

}  // namespace slsdbg::bisect
