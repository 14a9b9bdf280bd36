// A thread's x86 debug registers (DR0-DR3, DR6, DR7) through
// PTRACE_PEEKUSER/POKEUSER, so replay sets hardware breakpoints and
// watchpoints without calling ptrace itself. Which slot means what is the
// caller's business (engine/replay/debug_registers.h).
#pragma once

#include <sys/types.h>

#include "common/result.h"

namespace slsdbg::process {

// DR`i` (0-7) of thread `tid`, which must be in a ptrace stop.
Result<unsigned long> read_debug_register(pid_t tid, int i);
Status write_debug_register(pid_t tid, int i, unsigned long value);

}  // namespace slsdbg::process
