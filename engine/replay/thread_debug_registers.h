// The owner of each replayed thread's debug registers in a threaded replay
// (threaded_timeline.h, thread_check.h): one DebugRegisters table per
// thread, found by tid. Watchpoints (thread_watch.h) and the breakpoint
// that brings a thread to its checkpoint (thread_reach.h) claim slots in
// the same table, so neither rewrites the other's DR7 bits, and a refused
// claim names the holders. A restore re-creates recorded tids, so a table
// outlives its thread: each owner releases what it claimed (or its
// previous claims before it claims again).
#pragma once

#include <sys/types.h>

#include "engine/replay/debug_registers.h"

namespace slsdbg::replay {

DebugRegisters& thread_debug_registers(pid_t tid);

}  // namespace slsdbg::replay
